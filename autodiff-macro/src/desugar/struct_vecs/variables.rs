//! A struct variable put in a `Vec` (`vec![a]`, `fs.push(b)`), bound by a
//! `let` of a struct literal with every field named (`let a = F { px: x
//! };`): written out as the literal of its fields, `F { px: a.px }`, which
//! the split takes like any struct written out, and which reads each field
//! where the variable is put in, as the variable itself would be.

use syn::visit_mut::VisitMut;

use crate::desugar::internal::{binds, binds_inside, plain_let};

/// `stmts` with each struct variable pushed or listed written out.
pub(super) fn written_out(stmts: &mut [syn::Stmt]) {
    for i in 0..stmts.len() {
        let Some((name, path, fields)) = struct_let(&stmts[i]) else {
            continue;
        };
        let mut out = WrittenOut {
            name: &name,
            path: &path,
            fields: &fields,
        };
        for s in &mut stmts[i + 1..] {
            // Up to where the name means another variable.
            if binds(s, &name) || binds_inside(s, &name) {
                break;
            }
            out.visit_stmt_mut(s);
        }
    }
}

/// `let [mut] a = P { x: .., y: .. };` (every field named): the name, the
/// struct's path and its fields.
fn struct_let(s: &syn::Stmt) -> Option<(syn::Ident, syn::Path, Vec<syn::Member>)> {
    let l = plain_let(s, true)?;
    let syn::Expr::Struct(lit) = l.init_bare() else {
        return None;
    };
    if lit.rest.is_some() || lit.qself.is_some() || lit.fields.is_empty() {
        return None;
    }
    let fields = lit.fields.iter().map(|f| f.member.clone()).collect();
    Some((l.name(), lit.path.clone(), fields))
}

struct WrittenOut<'a> {
    name: &'a syn::Ident,
    path: &'a syn::Path,
    fields: &'a [syn::Member],
}

impl WrittenOut<'_> {
    fn literal(&self, e: &mut syn::Expr) {
        if matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name)) {
            let (name, path) = (self.name, self.path);
            let fields = self.fields.iter();
            let again = self.fields.iter();
            *e = syn::parse_quote_spanned!(name.span()=> #path { #(#fields: #name.#again),* });
        }
    }
}

impl VisitMut for WrittenOut<'_> {
    fn visit_expr_method_call_mut(&mut self, m: &mut syn::ExprMethodCall) {
        syn::visit_mut::visit_expr_method_call_mut(self, m);
        if m.method == "push" && m.args.len() == 1 {
            self.literal(&mut m.args[0]);
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        crate::desugar::vec_items(m, |listed| {
            if let syn::Expr::Array(a) = listed {
                a.elems.iter_mut().for_each(|e| self.literal(e));
            }
        });
    }

    // A closure's body is another scope: left as written.
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
}

//! Code kept as written, in the forward sweep: the user names it reads,
//! bound to the values they hold there where those were renamed (after
//! shadowing or reassignment), around it or inside a closure it holds.

use super::*;

impl Emitter<'_> {
    /// `let name = forward_name;` for each name that code kept as written
    /// reads while it holds a renamed value.
    pub(super) fn rebind(&self, reads: &Reads) -> TokenStream {
        reads
            .0
            .iter()
            // A pattern's binding named apart is the pattern's own name
            // wherever code kept as written can read it.
            .filter(|(n, v)| {
                !n.is_empty() && self.names.forward_str(*v) != n && !self.names.renamed(*v)
            })
            .map(|(n, v)| {
                let user = self.names.user(n, *v, &self.f.values);
                let fwd = self.names.forward(*v);
                // A local `Vec` or struct, or a call's result read in
                // parts (`let s = p.step(dt); check(s.w.len());`), is lent,
                // never moved: the code after reads it under its own name.
                let lent = self.owned_vec(*v)
                    || matches!(&self.f.value(*v).ty, Ty::Composite(c) if c.holder == Holder::Value)
                    || self.parts_results.contains(v);
                match lent {
                    true => quote!(#[allow(unused_variables)] let #user = &#fwd;),
                    false => quote!(#[allow(unused_variables)] let #user = #fwd;),
                }
            })
            .collect()
    }

    /// Whether `v` is a local `Vec` (owned, not `Copy`).
    fn owned_vec(&self, v: ValueId) -> bool {
        self.f.value(v).kind == ValueKind::Def
            && matches!(self.f.value(v).ty.array(), Some(a) if !matches!(a.shape, Shape::Fixed(_)))
    }

    /// Code kept as written (a statement, `Some(stmt)`, or an expression)
    /// where a struct literal's field is a local `Vec` named bare (`P { w:
    /// q_w, .. }`, how desugar/local_structs.rs uses a local struct whole,
    /// `hp(&q)`), with that field a copy of it, `<[_]>::to_vec(&q_w)`: the
    /// struct the user wrote was lent there, and its `Vec` is read after,
    /// in the next iteration of a loop, say. Anything else as it is.
    pub(super) fn lent_vec_fields(
        &self,
        tokens: &TokenStream,
        reads: &Reads,
        stmt: bool,
    ) -> TokenStream {
        use syn::visit_mut::VisitMut;
        let vecs: std::collections::HashSet<String> = reads
            .0
            .iter()
            .filter(|(n, v)| !n.is_empty() && self.owned_vec(*v))
            .map(|(n, _)| n.clone())
            .collect();
        if vecs.is_empty() {
            return tokens.clone();
        }
        struct Lend<'v>(&'v std::collections::HashSet<String>);
        impl VisitMut for Lend<'_> {
            fn visit_field_value_mut(&mut self, f: &mut syn::FieldValue) {
                syn::visit_mut::visit_field_value_mut(self, f);
                let syn::Expr::Path(p) = &f.expr else { return };
                let named = p.qself.is_none()
                    && p.path
                        .get_ident()
                        .is_some_and(|i| self.0.contains(&i.to_string()));
                if named && f.colon_token.is_some() {
                    let e = &f.expr;
                    let span = syn::spanned::Spanned::span(e);
                    f.expr = syn::parse_quote_spanned!(span=> <[_]>::to_vec(&#e));
                }
            }
            // A closure or an item has names of its own.
            fn visit_item_mut(&mut self, _: &mut syn::Item) {}
        }
        let mut lend = Lend(&vecs);
        match stmt {
            true => match syn::parse2::<syn::Stmt>(tokens.clone()) {
                Ok(mut s) => {
                    lend.visit_stmt_mut(&mut s);
                    s.into_token_stream()
                }
                Err(_) => tokens.clone(),
            },
            false => match syn::parse2::<syn::Expr>(tokens.clone()) {
                Ok(mut e) => {
                    lend.visit_expr_mut(&mut e);
                    e.into_token_stream()
                }
                Err(_) => tokens.clone(),
            },
        }
    }

    /// An initialiser kept as written that holds a closure (`let c = |v|
    /// a * v;`), with the names it reads renamed to the values they hold
    /// here: rebinding them in a block around it would leave the closure
    /// borrowing the block's locals (E0373). `None` where a renamed name is
    /// bound inside it or a macro reads it (then the block it is).
    pub(super) fn renamed_closure(&self, init: &syn::Expr, reads: &Reads) -> Option<syn::Expr> {
        use syn::visit::Visit;
        use syn::visit_mut::VisitMut;
        let renames: std::collections::HashMap<String, syn::Ident> = reads
            .0
            .iter()
            .filter(|(n, v)| {
                !n.is_empty() && self.names.forward_str(*v) != n && !self.names.renamed(*v)
            })
            .map(|(n, v)| (n.clone(), self.names.forward(*v)))
            .collect();
        struct Scan<'r> {
            renames: &'r std::collections::HashMap<String, syn::Ident>,
            closure: bool,
            blocked: bool,
        }
        impl<'a> Visit<'a> for Scan<'_> {
            fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
                self.closure = true;
                syn::visit::visit_expr_closure(self, c);
            }
            fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
                self.blocked |= self.renames.contains_key(&p.ident.to_string());
            }
            fn visit_macro(&mut self, m: &'a syn::Macro) {
                let idents = crate::lower::token_idents(m.tokens.clone());
                self.blocked |= idents.iter().any(|i| self.renames.contains_key(i));
            }
            // `S { a }`: a shorthand field names the variable too.
            fn visit_field_value(&mut self, f: &'a syn::FieldValue) {
                if f.colon_token.is_none() {
                    if let syn::Member::Named(n) = &f.member {
                        self.blocked |= self.renames.contains_key(&n.to_string());
                    }
                }
                syn::visit::visit_field_value(self, f);
            }
        }
        let mut scan = Scan {
            renames: &renames,
            closure: false,
            blocked: false,
        };
        scan.visit_expr(init);
        if !scan.closure || scan.blocked {
            return None;
        }
        struct Rename<'r>(&'r std::collections::HashMap<String, syn::Ident>);
        impl VisitMut for Rename<'_> {
            fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
                if p.qself.is_none() {
                    if let Some(new) = p.path.get_ident().and_then(|i| self.0.get(&i.to_string())) {
                        p.path = new.clone().into();
                    }
                }
            }
        }
        let mut init = init.clone();
        Rename(&renames).visit_expr_mut(&mut init);
        Some(init)
    }
}

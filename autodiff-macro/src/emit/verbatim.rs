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
                // A local `Vec` is lent, never moved: the code after reads
                // it under its own name.
                let owned_vec = self.f.value(*v).kind == ValueKind::Def
                    && matches!(self.f.value(*v).ty.array(), Some(a) if !matches!(a.shape, Shape::Fixed(_)));
                match owned_vec {
                    true => quote!(#[allow(unused_variables)] let #user = &#fwd;),
                    false => quote!(#[allow(unused_variables)] let #user = #fwd;),
                }
            })
            .collect()
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

//! What a closure's body does with names: whether it changes one it
//! does not declare (`changes`, which decides whether a closure is
//! inlined and which parameters it changes as its own), and which names a
//! body only calls (`only_called`).

use super::*;

/// Whether a closure assigns to, or borrows mutably, a name it does not
/// declare itself (`ignored`: parameters taken for not declared, to find
/// whether it changes them).
pub(super) fn changes(
    closure: &syn::ExprClosure,
    ignored: &[&syn::Ident],
    shared: &std::collections::HashSet<String>,
) -> bool {
    struct Find<'s> {
        declared: Vec<String>,
        shared: &'s std::collections::HashSet<String>,
        found: bool,
    }
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_local(&mut self, l: &'a syn::Local) {
            syn::visit::visit_local(self, l);
            let mut ids = Vec::new();
            collect_pat_idents(&l.pat, &mut ids);
            self.declared.extend(ids.iter().map(|i| i.to_string()));
        }
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            let targets: Vec<String> = match e {
                syn::Expr::Assign(a) => crate::lower::tuples::assigned_names(&a.left),
                syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                    base_local(&b.left).into_iter().collect()
                }
                syn::Expr::Reference(r) if r.mutability.is_some() => {
                    base_local(&r.expr).into_iter().collect()
                }
                // `w.iter()`, `w.len()`, `x.sin()` leave `w` as it was.
                syn::Expr::MethodCall(m) => base_local(&m.receiver)
                    .filter(|r| {
                        !rules::leaves_receiver(&m.method.to_string()) && !self.shared.contains(r)
                    })
                    .into_iter()
                    .collect(),
                _ => Vec::new(),
            };
            if targets.iter().any(|t| !self.declared.contains(t)) {
                self.found = true;
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut declared = Vec::new();
    for p in &closure.inputs {
        collect_pat_idents(p, &mut declared);
    }
    declared.retain(|d| !ignored.contains(&d));
    let mut f = Find {
        declared: declared.iter().map(|i| i.to_string()).collect(),
        shared,
        found: false,
    };
    f.visit_expr(&closure.body);
    f.found
}

/// The names `block` uses only as the callee of a call, never as a value
/// (besides binding them).
pub(in crate::lower) fn only_called(block: &syn::Block) -> std::collections::HashSet<String> {
    #[derive(Default)]
    struct Uses {
        called: std::collections::HashSet<String>,
        other: std::collections::HashSet<String>,
    }
    impl<'a> Visit<'a> for Uses {
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            match &*c.func {
                syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                    self.called.insert(
                        p.path
                            .get_ident()
                            .map(|i| i.to_string())
                            .unwrap_or_default(),
                    );
                }
                other => self.visit_expr(other),
            }
            for a in &c.args {
                self.visit_expr(a);
            }
        }
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if let Some(i) = p.path.get_ident() {
                self.other.insert(i.to_string());
            }
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            self.other.extend(token_idents(m.tokens.clone()));
        }
    }
    let mut u = Uses::default();
    u.visit_block(block);
    u.called.difference(&u.other).cloned().collect()
}

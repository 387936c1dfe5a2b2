//! What a function's code may change in place, read before lowering it:
//! the locals lent by `&mut` to calls, changed by a method of `Vec`'s,
//! or by a method, a macro or `iter_mut` that the lowering does not
//! follow (the receivers of method calls other than the float methods the
//! rules table knows, `&mut name`, and the names given to a macro that
//! may write them), and the names a macro could change at all
//! (`mutable_names`).

use super::*;

/// `&mut name`, an argument a writer changes (`update(&mut s, y)`): the
/// name.
pub(in crate::lower) fn lent_mut(arg: &syn::Expr) -> Option<&syn::Ident> {
    let syn::Expr::Reference(r) = arg else {
        return None;
    };
    let syn::Expr::Path(p) = &*r.expr else {
        return None;
    };
    if r.mutability.is_none() || p.qself.is_some() {
        return None;
    }
    p.path.get_ident()
}

/// The locals lent by `&mut` to a function call (`update(&mut s, y)`):
/// changed in place only where they are not floats, which the call
/// writes as a new value (`Lowerer::writer_call`).
pub(in crate::lower) fn lent_to_calls(block: &syn::Block) -> std::collections::HashSet<String> {
    struct Find(std::collections::HashSet<String>);
    impl<'a> Visit<'a> for Find {
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            // `std::mem::replace(&mut s, next)`: the assignment it stands
            // for (`whole_changes::replaced`), no lending.
            let e = syn::Expr::Call(c.clone());
            if super::whole_changes::replaced(&e).is_none() {
                for a in &c.args {
                    self.0.extend(lent_mut(a).map(|i| i.to_string()));
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    let mut find = Find(Default::default());
    find.visit_block(block);
    find.0
}

/// The locals a method of `Vec`'s changes (`changes_a_vec`): first those
/// it changes inside an expression, in a way the lowering does not follow
/// as element stores (`while let Some(v) = stack.pop()`, `let last =
/// v.remove(0);`), then those it changes anywhere, as a statement of its
/// own too (`z.reverse();`). The first are kept as written, not modelled
/// as float arrays whose variable would be bound without `mut`; where one
/// carries a derivative, activity analysis says so at its `let`. A method
/// called as a statement of its own on a modelled array is refused there
/// instead, with what to write; on a call's result of a type the source
/// does not state, it says the result is a `Vec`, no struct a writer
/// changes (`Lowerer::let_stmt`).
pub(in crate::lower) fn changed_by_vec_methods(
    block: &syn::Block,
) -> (
    std::collections::HashSet<String>,
    std::collections::HashSet<String>,
) {
    #[derive(Default)]
    struct Find {
        in_expressions: std::collections::HashSet<String>,
        anywhere: std::collections::HashSet<String>,
    }
    impl<'a> Visit<'a> for Find {
        fn visit_stmt(&mut self, s: &'a syn::Stmt) {
            match s {
                syn::Stmt::Expr(syn::Expr::MethodCall(m), _) => {
                    if rules::changes_a_vec(&m.method) || m.method == "push" {
                        self.anywhere.extend(base_local(&m.receiver));
                    }
                    self.visit_expr(&m.receiver);
                    m.args.iter().for_each(|a| self.visit_expr(a));
                }
                _ => syn::visit::visit_stmt(self, s),
            }
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            if rules::changes_a_vec(&m.method) {
                self.in_expressions.extend(base_local(&m.receiver));
            }
            if rules::changes_a_vec(&m.method) || m.method == "push" {
                self.anywhere.extend(base_local(&m.receiver));
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut find = Find::default();
    find.visit_block(block);
    (find.in_expressions, find.anywhere)
}

/// The locals some statement may change in place, and of those the ones
/// changed otherwise than by a method that may be the user's (`&mut
/// name`, a macro, `iter_mut`): a call's result of a type the source does
/// not state that only such methods are called on (`let mut s = make(a,
/// b); s = s.stepped(dt); s.energy()`) is still modelled: a method called
/// as a statement on it is a struct writer's call (`s.step(dt);`,
/// `lower/struct_writers.rs`), one that is no writer a compile error at
/// the call, and one called in an expression is called on `&s`
/// (`emit/ops.rs`), so that one taking `&mut self` fails to compile
/// rather than change it unseen.
pub(in crate::lower) fn changed_in_place(
    block: &syn::Block,
) -> (
    std::collections::HashSet<String>,
    std::collections::HashSet<String>,
) {
    struct Find(
        std::collections::HashSet<String>,
        std::collections::HashSet<String>,
    );
    impl<'a> Visit<'a> for Find {
        // `s = s.stepped(dt)`: whatever the method does to `s`, the
        // assignment replaces it whole, so the call changes nothing that
        // is kept (its arguments may still change other variables).
        fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
            if let (syn::Expr::Path(l), syn::Expr::MethodCall(m)) = (&*a.left, &*a.right) {
                let same = matches!(&*m.receiver, syn::Expr::Path(r) if r.path == l.path);
                if same && l.path.get_ident().is_some() {
                    m.args.iter().for_each(|x| self.visit_expr(x));
                    return;
                }
            }
            syn::visit::visit_expr_assign(self, a);
        }
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            // `&mut s` given to a function: see `lent_to_calls`.
            for a in &c.args {
                match lent_mut(a) {
                    Some(_) => {}
                    None => self.visit_expr(a),
                }
            }
            self.visit_expr(&c.func);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            let name = m.method.to_string();
            if !rules::leaves_receiver(&name) {
                self.0.extend(base_local(&m.receiver));
                if !rules::maybe_users_method(&name) {
                    self.1.extend(base_local(&m.receiver));
                }
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_reference(&mut self, r: &'a syn::ExprReference) {
            if r.mutability.is_some() {
                self.0.extend(base_local(&r.expr));
                self.1.extend(base_local(&r.expr));
            }
            syn::visit::visit_expr_reference(self, r);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            if !is_read_only_macro(m) {
                self.0.extend(token_idents(m.tokens.clone()));
                self.1.extend(token_idents(m.tokens.clone()));
            }
        }
    }
    let mut find = Find(Default::default(), Default::default());
    find.visit_block(block);
    (find.0, find.1)
}

/// The names the function binds as mutable: `let mut x`, a `mut` or
/// `&mut` parameter, `&mut self` (`self`). Only these (and values with a
/// `Cell` inside) can a macro kept as written change.
pub(in crate::lower) fn mutable_names(item: &syn::ItemFn) -> std::collections::HashSet<String> {
    struct Find(std::collections::HashSet<String>);
    impl<'a> Visit<'a> for Find {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            if p.mutability.is_some() {
                self.0.insert(p.ident.to_string());
            }
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_fn_arg(&mut self, a: &'a syn::FnArg) {
            match a {
                syn::FnArg::Receiver(r) => {
                    let by_mut_ref = r.reference.is_some() && r.mutability.is_some();
                    if by_mut_ref || r.reference.is_none() && r.mutability.is_some() {
                        self.0.insert("self".to_string());
                    }
                }
                syn::FnArg::Typed(t) => {
                    if let (syn::Type::Reference(r), syn::Pat::Ident(p)) = (&*t.ty, &*t.pat) {
                        if r.mutability.is_some() {
                            self.0.insert(p.ident.to_string());
                        }
                    }
                }
            }
            syn::visit::visit_fn_arg(self, a);
        }
        // Another item's names are its own.
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut find = Find(Default::default());
    find.visit_signature(&item.sig);
    find.visit_block(&item.block);
    find.0
}

/// The names the body reads as variables (a path of one name, not a
/// call's function): one a macro binds (`let_sq!(t, x); t * y`) is read
/// so, a function's name it is given is not.
pub(in crate::lower) fn read_names(block: &syn::Block) -> std::collections::HashSet<String> {
    struct Find(std::collections::HashSet<String>);
    impl<'a> Visit<'a> for Find {
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if let (None, Some(i)) = (&p.qself, p.path.get_ident()) {
                self.0.insert(i.to_string());
            }
        }
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if !matches!(&*c.func, syn::Expr::Path(_)) {
                self.visit_expr(&c.func);
            }
            c.args.iter().for_each(|a| self.visit_expr(a));
        }
        // Not a macro's tokens: the name of a function given to one
        // (`apply!(helper, x)`) is no variable it binds.
        fn visit_macro(&mut self, _: &'a syn::Macro) {}
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut find = Find(Default::default());
    find.visit_block(block);
    find.0
}

//! What a loop's code assigns ([`Lowerer::assigned_in`]): the names
//! declared outside it that it assigns, compounds, pushes to, lends by
//! `&mut`, writes through `iter_mut`, and the receivers of the methods it
//! calls as statements (a struct writer's among them).

use super::super::*;

/// The variables assigned that were declared outside: a name the
/// loop declares itself (`let mut x` shadowing an outer `x`) is
/// its own from there to the end of its block.
pub(super) struct Assigned {
    pub(super) found: Vec<String>,
    /// The receivers of methods called as statements: a struct
    /// writer's (`b.step(dt);`, `lower/struct_writers.rs`) among
    /// them.
    pub(super) receivers: Vec<String>,
    /// The names declared so far in each open block of the loop.
    scopes: crate::lower::locals::LocalNames,
}
impl Assigned {
    fn outer(&mut self, name: Option<String>) {
        if let Some(n) = name {
            if !self.scopes.declared(&n) {
                self.found.push(n);
            }
        }
    }
    fn declare(&mut self, pat: &syn::Pat) {
        self.scopes.declare(pat);
    }
    /// Visits `f` in a block of its own, with `pats` declared.
    fn scoped(&mut self, pats: &[&syn::Pat], f: impl FnOnce(&mut Self)) {
        self.scopes.open(pats);
        f(self);
        self.scopes.close();
    }
}
impl<'a> Visit<'a> for Assigned {
    fn visit_block(&mut self, b: &'a syn::Block) {
        self.scoped(&[], |v| {
            for stmt in &b.stmts {
                match stmt {
                    syn::Stmt::Local(l) => {
                        if let Some(init) = &l.init {
                            v.visit_expr(&init.expr);
                            if let Some((_, e)) = &init.diverge {
                                v.visit_expr(e);
                            }
                        }
                        v.declare(&l.pat);
                    }
                    // `b.step(dt);`: a struct writer's call, if
                    // `b` is a struct (`lower/struct_writers.rs`).
                    syn::Stmt::Expr(syn::Expr::MethodCall(m), Some(_)) => {
                        if let syn::Expr::Path(p) = &*m.receiver {
                            if let Some(n) = p.path.get_ident().map(|i| i.to_string()) {
                                if !v.scopes.declared(&n) {
                                    v.receivers.push(n);
                                }
                            }
                        }
                        v.visit_stmt(stmt);
                    }
                    other => v.visit_stmt(other),
                }
            }
        });
    }
    fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
        let pats: Vec<&syn::Pat> = c.inputs.iter().collect();
        self.scoped(&pats, |v| v.visit_expr(&c.body));
    }
    fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
        // `for x in xs.iter_mut()`, `&mut xs`, `xs.iter_mut().zip(..)`:
        // the loop writes `xs`'s elements.
        fn written(e: &syn::Expr, out: &mut Vec<Option<String>>) {
            match e {
                syn::Expr::Reference(r) if r.mutability.is_some() => out.push(base_local(&r.expr)),
                syn::Expr::Paren(p) => written(&p.expr, out),
                syn::Expr::MethodCall(m) if m.method == "iter_mut" => {
                    out.push(base_local(&m.receiver))
                }
                syn::Expr::MethodCall(m) => {
                    written(&m.receiver, out);
                    m.args.iter().for_each(|a| written(a, out));
                }
                _ => {}
            }
        }
        let mut roots = Vec::new();
        written(&f.expr, &mut roots);
        for n in roots {
            self.outer(n);
        }
        self.visit_expr(&f.expr);
        self.scoped(&[&f.pat], |v| v.visit_block(&f.body));
    }
    fn visit_expr_if(&mut self, i: &'a syn::ExprIf) {
        match &*i.cond {
            syn::Expr::Let(l) => {
                self.visit_expr(&l.expr);
                self.scoped(&[&l.pat], |v| v.visit_block(&i.then_branch));
            }
            cond => {
                self.visit_expr(cond);
                self.visit_block(&i.then_branch);
            }
        }
        if let Some((_, e)) = &i.else_branch {
            self.visit_expr(e);
        }
    }
    fn visit_expr_while(&mut self, w: &'a syn::ExprWhile) {
        match &*w.cond {
            syn::Expr::Let(l) => {
                self.visit_expr(&l.expr);
                self.scoped(&[&l.pat], |v| v.visit_block(&w.body));
            }
            cond => {
                self.visit_expr(cond);
                self.visit_block(&w.body);
            }
        }
    }
    fn visit_arm(&mut self, a: &'a syn::Arm) {
        self.scoped(&[&a.pat], |v| {
            if let Some((_, g)) = &a.guard {
                v.visit_expr(g);
            }
            v.visit_expr(&a.body);
        });
    }
    fn visit_expr(&mut self, e: &'a syn::Expr) {
        match e {
            syn::Expr::Assign(a) => {
                for n in crate::lower::tuples::assigned_names(&a.left) {
                    self.outer(Some(n));
                }
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => self.outer(base_local(&b.left)),
            syn::Expr::MethodCall(m)
                if matches!(
                    m.method.to_string().as_str(),
                    "push"
                        | "copy_from_slice"
                        | "clone_from_slice"
                        | "fill"
                        | "swap_with_slice"
                        | "swap"
                ) =>
            {
                self.outer(base_local(&m.receiver))
            }
            // `update(&mut s, y)`: the writer gives `s` a new value;
            // `decay(&mut v[i], r)`, an element of `v`.
            syn::Expr::Call(c) => {
                for a in &c.args {
                    match a {
                        syn::Expr::Reference(r)
                            if r.mutability.is_some()
                                && matches!(&*r.expr, syn::Expr::Index(_)) =>
                        {
                            self.outer(base_local(&r.expr))
                        }
                        a => {
                            if let Some(n) = crate::lower::opaque::lent_mut(a) {
                                self.outer(Some(n.to_string()));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }
}

impl Assigned {
    pub(super) fn new() -> Self {
        Assigned {
            found: Vec::new(),
            receivers: Vec::new(),
            scopes: crate::lower::locals::LocalNames::new(),
        }
    }
}

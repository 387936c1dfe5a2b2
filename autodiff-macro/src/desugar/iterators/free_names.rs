//! A name a pattern binds, in the body it is bound for: its free
//! occurrences renamed (`rename_free`, `RenameFree`: a later `let` or a
//! closure's parameter of the same name binds one of its own), or `*name`
//! read as the name where the desugaring binds by value what Rust binds
//! by reference (`Dereferenced`); and the expressions of a `vec![..]`,
//! where such a name is read too (`visit_vec_macro`).

use syn::visit_mut::VisitMut;

/// `body` with the free occurrences of `from` renamed `to` (see
/// [`RenameFree`]); `None` where a macro other than `vec!` names it.
pub(crate) fn rename_free(
    body: &syn::Expr,
    from: &syn::Ident,
    to: &syn::Ident,
) -> Option<syn::Expr> {
    let mut rename = RenameFree {
        from,
        to,
        escaped: false,
    };
    let mut out = body.clone();
    rename.visit_expr_mut(&mut out);
    (!rename.escaped).then_some(out)
}

/// Renames the free occurrences of `from` to `to`: not inside a closure,
/// loop, arm or `if let` whose pattern binds `from`, nor after a `let`
/// that binds it in a block. Escapes at a macro other than `vec!` that
/// names it.
pub(super) struct RenameFree<'a> {
    pub(super) from: &'a syn::Ident,
    pub(super) to: &'a syn::Ident,
    pub(super) escaped: bool,
}

impl RenameFree<'_> {
    fn binds(&self, pat: &syn::Pat) -> bool {
        crate::desugar::internal::pat_binds(pat, self.from)
    }

    /// An `if`'s or `while`'s condition, renamed; whether it binds the
    /// name for the body (`if let Some(r) = ..`).
    fn condition_binds(&mut self, cond: &mut syn::Expr) -> bool {
        match cond {
            syn::Expr::Let(l) => {
                self.visit_expr_mut(&mut l.expr);
                self.binds(&l.pat)
            }
            cond => {
                self.visit_expr_mut(cond);
                false
            }
        }
    }
}

impl VisitMut for RenameFree<'_> {
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        let named = crate::desugar::internal::mentions(&m.tokens, self.from);
        if m.path.segments.last().is_some_and(|s| s.ident == "vec") {
            visit_vec_macro(m, &mut |e| self.visit_expr_mut(e));
        } else if named {
            self.escaped = true;
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.from) => {
                // The new name where the old one was written, for errors.
                let span = p.path.segments[0].ident.span();
                p.path.segments[0].ident = syn::Ident::new(&self.to.to_string(), span);
            }
            syn::Expr::Closure(c) => {
                if !c.inputs.iter().any(|p| self.binds(p)) {
                    self.visit_expr_mut(&mut c.body);
                }
            }
            syn::Expr::ForLoop(f) => {
                self.visit_expr_mut(&mut f.expr);
                if !self.binds(&f.pat) {
                    self.visit_block_mut(&mut f.body);
                }
            }
            syn::Expr::Match(m) => {
                self.visit_expr_mut(&mut m.expr);
                for arm in &mut m.arms {
                    if !self.binds(&arm.pat) {
                        if let Some((_, g)) = &mut arm.guard {
                            self.visit_expr_mut(g);
                        }
                        self.visit_expr_mut(&mut arm.body);
                    }
                }
            }
            syn::Expr::If(i) => {
                if !self.condition_binds(&mut i.cond) {
                    self.visit_block_mut(&mut i.then_branch);
                }
                if let Some((_, other)) = &mut i.else_branch {
                    self.visit_expr_mut(other);
                }
            }
            syn::Expr::While(w) => {
                if !self.condition_binds(&mut w.cond) {
                    self.visit_block_mut(&mut w.body);
                }
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        for stmt in &mut b.stmts {
            match stmt {
                syn::Stmt::Local(l) => {
                    if let Some(init) = &mut l.init {
                        self.visit_expr_mut(&mut init.expr);
                        if let Some((_, d)) = &mut init.diverge {
                            self.visit_expr_mut(d);
                        }
                    }
                    if self.binds(&l.pat) {
                        return;
                    }
                }
                other => self.visit_stmt_mut(other),
            }
        }
    }
}

/// `*name` read as `name`, bound by value where Rust binds a reference
/// (`View::Copied`); not inside a closure or a block that binds the name
/// anew.
pub(super) struct Dereferenced<'a>(pub(super) &'a syn::Ident);

impl VisitMut for Dereferenced<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Unary(u) = &*e {
            if matches!(u.op, syn::UnOp::Deref(_))
                && matches!(&*u.expr, syn::Expr::Path(p) if p.path.is_ident(self.0))
            {
                *e = (*u.expr).clone();
                return;
            }
        }
        if let syn::Expr::Closure(c) = &*e {
            let mut bound = std::collections::HashSet::new();
            for p in &c.inputs {
                crate::desugar::internal::collect_idents(
                    quote::ToTokens::to_token_stream(p),
                    &mut bound,
                );
            }
            if bound.contains(&self.0.to_string()) {
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        for stmt in &mut b.stmts {
            self.visit_stmt_mut(stmt);
            // A `let` that binds the name anew ends its reach.
            if let syn::Stmt::Local(l) = stmt {
                let mut bound = std::collections::HashSet::new();
                crate::desugar::internal::collect_idents(
                    quote::ToTokens::to_token_stream(&l.pat),
                    &mut bound,
                );
                if bound.contains(&self.0.to_string()) {
                    return;
                }
            }
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The expressions of a `vec![..]` (`vec![v; n]`, `vec![a, b]`), visited
/// by `visit` and written back; any other macro as it is.
pub(in crate::desugar) fn visit_vec_macro(
    m: &mut syn::Macro,
    visit: &mut dyn FnMut(&mut syn::Expr),
) {
    use syn::parse::Parser;
    if !m.path.segments.last().is_some_and(|s| s.ident == "vec") {
        return;
    }
    let repeat = |input: syn::parse::ParseStream| {
        let v: syn::Expr = input.parse()?;
        let _: syn::Token![;] = input.parse()?;
        let n: syn::Expr = input.parse()?;
        Ok((v, n))
    };
    if let Ok((mut v, mut n)) = repeat.parse2(m.tokens.clone()) {
        visit(&mut v);
        visit(&mut n);
        m.tokens = quote::quote!(#v; #n);
        return;
    }
    let list = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
    if let Ok(mut items) = list.parse2(m.tokens.clone()) {
        items.iter_mut().for_each(visit);
        m.tokens = quote::ToTokens::to_token_stream(&items);
    }
}

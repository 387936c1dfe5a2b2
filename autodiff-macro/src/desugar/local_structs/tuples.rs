//! A local tuple read and written through its elements only (`let mut st
//! = (x, y); st.0 += y * y; st.0 * st.1`, `let sc = x.sin_cos(); sc.0 *
//! sc.1`): one variable per element, `let (mut st_0, mut st_1) = (x,
//! y);`, which the lowering follows as floats. A tuple used whole
//! anywhere (passed on, returned, inside a macro) is left as written.

use super::*;

/// `let [mut] t = (e0, e1, ..);` or `let [mut] t = x.sin_cos();`: the
/// name, whether `mut`, and the number of elements.
fn tuple_let(stmt: &syn::Stmt) -> Option<(syn::Ident, bool, usize)> {
    let l = plain_let(stmt, false)?;
    let n = match l.init_bare() {
        syn::Expr::Tuple(t) if t.elems.len() >= 2 => t.elems.len(),
        syn::Expr::MethodCall(m) if m.method == "sin_cos" && m.args.is_empty() => 2,
        _ => return None,
    };
    Some((l.name(), l.mutable(), n))
}

/// Whether every mention of `name` in `stmt` is an element `name.k`, `k
/// < n`, outside macros, and no pattern binds the name again.
fn elements_only(stmt: &syn::Stmt, name: &syn::Ident, n: usize) -> bool {
    struct Uses<'n> {
        name: &'n syn::Ident,
        n: usize,
        whole: bool,
    }
    impl<'a> Visit<'a> for Uses<'_> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            let is_name = |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name));
            match e {
                syn::Expr::Field(f) if is_name(&f.base) => match &f.member {
                    syn::Member::Unnamed(i) if (i.index as usize) < self.n => {}
                    _ => self.whole = true,
                },
                _ if is_name(e) => self.whole = true,
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            if p.ident == *self.name {
                self.whole = true;
            }
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            let mut found = HashSet::new();
            crate::desugar::internal::collect_idents(m.tokens.clone(), &mut found);
            if found.contains(&self.name.to_string()) {
                self.whole = true;
            }
        }
    }
    let mut u = Uses {
        name,
        n,
        whole: false,
    };
    u.visit_stmt(stmt);
    !u.whole
}

/// `name.k` as the element's variable.
struct Elements<'n> {
    name: &'n syn::Ident,
    vars: &'n [syn::Ident],
}

impl VisitMut for Elements<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Field(f) = e {
            let of_name = matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident(self.name));
            if let (true, syn::Member::Unnamed(i)) = (of_name, &f.member) {
                if let Some(v) = self.vars.get(i.index as usize) {
                    let v = syn::Ident::new(&v.to_string(), i.span);
                    *e = syn::parse_quote!(#v);
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

impl Split {
    /// The statements that replace `stmts` where `stmts[0]` binds a
    /// tuple used through its elements only until it is bound again: the
    /// `let` of a pattern with a variable per element, then the
    /// statements reading those; `None` otherwise.
    pub(super) fn tuple_elements(&mut self, stmts: &[syn::Stmt]) -> Option<Vec<syn::Stmt>> {
        let first = stmts.first()?;
        let (name, mutable, n) = tuple_let(first)?;
        let rest = &stmts[1..];
        let end = rest
            .iter()
            .position(|s| binds(s, &name))
            .unwrap_or(rest.len());
        if rest.get(end).is_some_and(|s| mentions(s, &name))
            || !rest[..end].iter().all(|s| elements_only(s, &name, n))
            || !rest[..end].iter().any(|s| mentions(s, &name))
        {
            return None;
        }
        let vars: Vec<syn::Ident> = (0..n)
            .map(|k| syn::Ident::new(&self.names.fresh(&format!("{name}_{k}")), name.span()))
            .collect();
        let m = mutable.then(|| quote::quote!(mut));
        let syn::Stmt::Local(l) = first else {
            return None;
        };
        let mut l = l.clone();
        l.pat = syn::parse_quote!((#(#m #vars),*));
        let mut out = vec![syn::Stmt::Local(l)];
        let mut elements = Elements {
            name: &name,
            vars: &vars,
        };
        for s in &rest[..end] {
            let mut s = s.clone();
            elements.visit_stmt_mut(&mut s);
            out.push(s);
        }
        out.extend(rest[end..].iter().cloned());
        Some(out)
    }
}

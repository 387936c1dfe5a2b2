//! Two `Vec`s of one element shape that hand their contents to each other
//! whole, the double buffer of a time step:
//!
//! ```text
//! let mut pos: Vec<[f64; 2]> = ..;                 (pos_0, pos_1)
//! for _ in 0..steps {
//!     let mut next = vec![[0.0; 2]; n];            (next_0, next_1)
//!     next[i][0] = pos[i][0] + dt * ..;
//!     pos = next;                             =>   pos_0 = next_0; pos_1 = next_1;
//! }
//! ```
//!
//! also `pos = next.clone();`, `std::mem::swap(&mut pos, &mut next);`,
//! `pos.copy_from_slice(&next);`, `pos.clone_from(&next);` and `prev =
//! pos;`. Where the `Vec` being split (`pos`) meets the `let` of another
//! (`next`, `prev`) that such a statement pairs it with, the other is split
//! the same way, its partner's (the first's) parts known to it, so that
//! each of those statements becomes the same statement of each part's
//! `Vec`s. The first is split only where its partner is: otherwise the
//! statement uses it whole, as before.

use syn::visit::Visit;
use syn::visit_mut::VisitMut;

use super::pushes::{empty_vec_let, listed_as_pushes, pushed_shape, written_type};
use super::shape::Shape;
use super::Rewrite;
use crate::desugar::internal::{binds, mentions};

/// Whether `e` is the name `n` (in parentheses or not).
fn named(e: &syn::Expr, n: &str) -> bool {
    match e {
        syn::Expr::Paren(p) => named(&p.expr, n),
        syn::Expr::Path(p) => p.qself.is_none() && p.path.is_ident(n),
        _ => false,
    }
}

/// Whether the statement `s` hands one of the `Vec`s `a` and `b` to the
/// other whole: `a = b;`, `a = b.clone();`, `std::mem::swap(&mut a, &mut
/// b);`, `a.copy_from_slice(&b);`, `a.clone_from_slice(&b);`,
/// `a.clone_from(&b);`, either way round.
pub(super) fn exchanged(s: &syn::Stmt, a: &str, b: &str) -> bool {
    let syn::Stmt::Expr(e, Some(_)) = s else {
        return false;
    };
    let pair =
        |x: &syn::Expr, y: &syn::Expr| (named(x, a) && named(y, b)) || (named(x, b) && named(y, a));
    match e {
        syn::Expr::Assign(asg) => {
            let right = match &*asg.right {
                syn::Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
                    &*m.receiver
                }
                r => r,
            };
            pair(&asg.left, right)
        }
        syn::Expr::Call(c) => {
            let swap = crate::desugar::whole_arrays::is_mem_swap(c);
            match (swap, &c.args.iter().collect::<Vec<_>>()[..]) {
                (true, [syn::Expr::Reference(x), syn::Expr::Reference(y)])
                    if x.mutability.is_some() && y.mutability.is_some() =>
                {
                    pair(&x.expr, &y.expr)
                }
                _ => false,
            }
        }
        syn::Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "copy_from_slice" | "clone_from_slice" | "clone_from"
            ) && m.args.len() == 1 =>
        {
            match &m.args[0] {
                syn::Expr::Reference(r) if r.mutability.is_none() => pair(&m.receiver, &r.expr),
                _ => false,
            }
        }
        _ => false,
    }
}

/// Whether some statement of `stmts`, at any depth, is [`exchanged`]
/// between `a` and `b`.
fn exchanges_with(stmts: &[syn::Stmt], a: &str, b: &str) -> bool {
    struct Finder<'n> {
        a: &'n str,
        b: &'n str,
        found: bool,
    }
    impl<'s> Visit<'s> for Finder<'_> {
        fn visit_stmt(&mut self, s: &'s syn::Stmt) {
            self.found |= exchanged(s, self.a, self.b);
            if !self.found {
                syn::visit::visit_stmt(self, s);
            }
        }
    }
    let mut f = Finder { a, b, found: false };
    for s in stmts {
        f.visit_stmt(s);
    }
    f.found
}

/// `s` with the names of `renames` replaced (`pos` by `pos_0`).
fn renamed(s: &syn::Stmt, renames: &[(&str, &syn::Ident)]) -> syn::Stmt {
    struct Renamer<'r, 'i>(&'r [(&'r str, &'i syn::Ident)]);
    impl VisitMut for Renamer<'_, '_> {
        fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
            if let Some((_, to)) = self.0.iter().find(|(n, _)| p.path.is_ident(n)) {
                p.path = (*to).clone().into();
            }
        }
    }
    let mut s = s.clone();
    Renamer(renames).visit_stmt_mut(&mut s);
    s
}

/// Whether two shapes are the same kind of element.
fn same_shape(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Struct(p), Shape::Struct(q)) => p == q,
        (Shape::Tuple, Shape::Tuple) | (Shape::Array, Shape::Array) => true,
        _ => false,
    }
}

impl Rewrite<'_> {
    /// Where this `Vec` was split as the partner of another (`next` of
    /// `pos`), a statement that hands one to the other whole, as the same
    /// statement of each part's `Vec`s.
    pub(super) fn partner_exchange(&self, s: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
        let (partner, theirs) = self.partner?;
        if !exchanged(s, &self.name, partner) {
            return None;
        }
        self.vars
            .iter()
            .map(|(f, v)| {
                let w = theirs.iter().find(|(g, _)| g == f).map(|(_, w)| w)?;
                Some(renamed(s, &[(self.name.as_str(), v), (partner, w)]))
            })
            .collect()
    }

    /// `s`, the `let` of another `Vec` (`let mut next = vec![[0.0; 2];
    /// n];`, `let mut prev = Vec::new();`) that a statement of `rest`
    /// hands to this one whole or this one to it: that `Vec` split as this
    /// one is, its parts' `let`s and `rest` with its uses rewritten onto
    /// them. `None` where `s` is no such `let`, or the other `Vec` is
    /// used in a way this file does not follow or holds elements of
    /// another shape.
    pub(super) fn split_partner(
        &mut self,
        s: &syn::Stmt,
        rest: &[syn::Stmt],
    ) -> Option<(Vec<syn::Stmt>, Vec<syn::Stmt>)> {
        let from_here =
            listed_as_pushes(s).or_else(|| empty_vec_let(s).map(|_| vec![s.clone()]))?;
        let (x, init) = empty_vec_let(&from_here[0])?;
        if x == self.name || !exchanges_with(rest, &self.name, &x.to_string()) {
            return None;
        }
        let mut all: Vec<syn::Stmt> = from_here[1..].to_vec();
        all.extend(rest.iter().cloned());
        let end = all.iter().position(|s| binds(s, &x)).unwrap_or(all.len());
        if all[end..].iter().any(|s| mentions(s, &x)) {
            return None;
        }
        let pushed = pushed_shape(&all[..end], &x, written_type(&from_here[0]), self.rows)?;
        let fields: Vec<&String> = self.vars.iter().map(|(f, _)| f).collect();
        if !same_shape(&pushed.shape, self.shape)
            || pushed.fields.iter().collect::<Vec<_>>() != fields
        {
            return None;
        }
        let after = all.split_off(end);
        let (vars, mut rewritten) = self.split_alike(&x, all)?;
        rewritten.extend(after);
        // Each part's `Vec` a `Vec` of its part's type: the written one,
        // or what the exchange with the partner's gives it.
        let lets = vars
            .iter()
            .map(|(_, v)| match &pushed.part_type {
                Some(t) => syn::parse_quote!(
                    #[allow(unused_mut)] let mut #v: ::std::vec::Vec<#t> = #init;
                ),
                None => syn::parse_quote!(#[allow(unused_mut)] let mut #v = #init;),
            })
            .collect();
        Some((lets, rewritten))
    }
}

//! A row's part at a position that is no literal (`v[i][d]`, `v` a `Vec`
//! of arrays), read and stored through each position's `Vec` in turn
//! (`shape::read_at`, `shape::write_at`).

use syn::visit_mut::VisitMut;

use super::shape::{self, Part};
use super::Rewrite;

impl Rewrite<'_> {
    /// Whether `e` is `v[i][d]` with `d` no literal.
    pub(super) fn dynamic_part(&self, e: &syn::Expr) -> bool {
        let syn::Expr::Index(outer) = e else {
            return false;
        };
        matches!(&*outer.expr, syn::Expr::Index(ix) if self.is_name(&ix.expr))
            && matches!(self.shape.part_of(e), Some(Part::Unnamed(_)))
    }

    /// `v[i][d]` with `d` no literal, `v` an array's `Vec`: the places of
    /// each position at `i` (`v_0[i]`, `v_1[i]`), `i` and `d` rewritten.
    pub(super) fn positions(&mut self, e: &syn::Expr) -> Option<(Vec<syn::Expr>, syn::Expr)> {
        let (row, at) = self.shape.dynamic_position(e)?;
        let syn::Expr::Index(ix) = row else {
            return None;
        };
        if !self.is_name(&ix.expr) {
            return None;
        }
        let (mut index, mut at) = ((*ix.index).clone(), at.clone());
        self.visit_expr_mut(&mut index);
        self.visit_expr_mut(&mut at);
        let places = self
            .vars
            .iter()
            .map(|(_, v)| syn::parse_quote!(#v[#index]))
            .collect();
        Some((places, at))
    }

    /// `v[i][d] = value;` or `op=`, `d` no literal: the store
    /// `shape::write_at` writes.
    pub(super) fn written_at(&mut self, s: &syn::Stmt) -> Option<syn::Stmt> {
        let syn::Stmt::Expr(e, Some(_)) = s else {
            return None;
        };
        let (left, op, right) = match e {
            syn::Expr::Assign(a) => (&*a.left, quote::quote!(=), &*a.right),
            syn::Expr::Binary(b) if crate::desugar::is_compound_assign(&b.op) => {
                let op = &b.op;
                (&*b.left, quote::quote!(#op), &*b.right)
            }
            _ => return None,
        };
        let mut value = right.clone();
        let (places, at) = self.positions(left)?;
        self.visit_expr_mut(&mut value);
        Some(shape::write_at(&places, &at, op, &value))
    }
}

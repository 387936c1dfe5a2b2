//! Iterator chains seen from the lowering: what an array's elements are
//! to a chain (`indexable`), a reduction's loop (`reduction`, the type of
//! a `fold`'s accumulator), rows and float locals read through `*`.

use super::*;
use crate::desugar::iterators::Elems;

impl Lowerer {
    /// A reduction over modelled arrays as the loop it stands for. A sum
    /// starts at -0.0, as std's `Sum` for floats does (so that a sum of
    /// negative zeros is -0.0, bit for bit).
    pub(super) fn reduction(&self, m: &syn::ExprMethodCall) -> Option<syn::Expr> {
        let zero = match &self.types.generic {
            Some(t) => {
                let t = syn::Ident::new(t, m.method.span());
                syn::parse_quote!(<#t as ::autodiff::Float>::from_f64(-0.0))
            }
            None => syn::parse_quote!(-0.0),
        };
        let one = self.float_one(m.method.span());
        crate::desugar::iterators::reduction(
            m,
            &|e| self.indexable(e),
            (&zero, &one, self.fold_float(m).as_ref()),
            &self.internal,
        )
    }

    /// One element of a tuple `fold`'s result, `chain.fold((a, b), ..).0`:
    /// the fold's loop, ending with that accumulator instead of their
    /// tuple.
    pub(super) fn fold_element(&self, fe: &syn::ExprField) -> Option<syn::Expr> {
        let (syn::Member::Unnamed(i), syn::Expr::MethodCall(m)) = (&fe.member, &*fe.base) else {
            return None;
        };
        if m.method != "fold" || !matches!(m.args.first(), Some(syn::Expr::Tuple(_))) {
            return None;
        }
        let syn::Expr::Block(mut b) = self.reduction(m)? else {
            return None;
        };
        let Some(syn::Stmt::Expr(syn::Expr::Tuple(t), None)) = b.block.stmts.last_mut() else {
            return None;
        };
        let picked = t.elems.iter().nth(i.index as usize)?.clone();
        *b.block.stmts.last_mut()? = syn::Stmt::Expr(picked, None);
        Some(syn::Expr::Block(b))
    }

    /// Whether `e` is an array an iterator chain can index, and what its
    /// elements are: a modelled array (rows if nested), a row of a nested
    /// one (`w[i]`), a composite or a part of one, or of a value the macro
    /// does not model (parts, read in place), or a parameter declared as a
    /// slice, `Vec` or array of something else (`&[(usize, usize)]`, read
    /// as written).
    pub(super) fn indexable(&self, e: &syn::Expr) -> Option<Elems> {
        let rows = |nested: bool| if nested { Elems::Rows } else { Elems::Items };
        if let Some(v) = self.modelled_array(e) {
            return Some(rows(matches!(
                self.values[v.0].ty.array()?.shape,
                Shape::Nested
            )));
        }
        // A part of a differentiated struct, or of a constant value the
        // macro does not model (`net.layers`, `data.ys`): its elements,
        // floats or structs, are read in place.
        if self.composite_place(e).is_some()
            || self.unmodelled_place(e)
            || matches!(e, syn::Expr::Path(_)) && self.composite_root(e).is_some()
        {
            return Some(Elems::Parts);
        }
        if let syn::Expr::Index(ix) = e {
            let v = self.modelled_array(&ix.expr)?;
            return matches!(self.values[v.0].ty.array()?.shape, Shape::Nested)
                .then_some(Elems::Items);
        }
        let syn::Expr::Path(p) = e else { return None };
        match self.lookup(&p.path.get_ident()?.to_string()) {
            Some(Binding::Value(v)) if self.float_rows.contains(v) => Some(Elems::Rows),
            Some(Binding::Value(v)) if self.slices.contains(v) => Some(Elems::Refs),
            Some(Binding::Value(v)) if self.owned_slices.contains(v) => Some(Elems::Owned),
            // A `const` or `static` of the user's (`W.iter()`): read in
            // place.
            None => Some(Elems::Parts),
            _ => None,
        }
    }

    /// `w[i]` of a nested modelled array: a row, read in place.
    pub(super) fn is_row(&self, e: &syn::Expr) -> bool {
        let syn::Expr::Index(ix) = e else {
            return false;
        };
        self.modelled_array(&ix.expr).is_some_and(|v| {
            matches!(
                self.values[v.0].ty.array().map(|a| &a.shape),
                Some(Shape::Nested)
            )
        })
    }

    /// The float type of `fold(0.0, |acc, x| ..)`'s accumulator, which a
    /// loop would leave for rustc to infer from its uses, too late for
    /// `acc.sin()`: that of the chain's array where the source states it,
    /// else the function's. `None` for another fold (a typed or suffixed
    /// start, a typed accumulator) or where neither is stated.
    fn fold_float(&self, m: &syn::ExprMethodCall) -> Option<syn::Type> {
        let untyped_literal = matches!(m.args.first(), Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Float(f), .. })) if f.suffix().is_empty());
        let untyped_acc = matches!(m.args.get(1), Some(syn::Expr::Closure(c)) if !matches!(c.inputs.first(), Some(syn::Pat::Type(_))));
        if m.method != "fold" || !untyped_literal || !untyped_acc {
            return None;
        }
        let mut root = &*m.receiver;
        while let syn::Expr::MethodCall(inner) = root {
            root = &inner.receiver;
        }
        let root = match root {
            syn::Expr::Reference(r) => &*r.expr,
            other => other,
        };
        let stated = self
            .modelled_array(root)
            .and_then(|v| self.values[v.0].ty.array())
            .map(|a| a.elem)
            .filter(|f| !matches!(f, FloatTy::Inferred));
        match stated.unwrap_or(self.ret_float) {
            FloatTy::F64 => Some(syn::parse_quote!(f64)),
            FloatTy::F32 => Some(syn::parse_quote!(f32)),
            FloatTy::Generic | FloatTy::Inferred => None,
        }
    }

    pub(super) fn is_float_local(&self, e: &syn::Expr) -> bool {
        let e = match e {
            // `**x` from a filter's `|x|` over `&&f64`.
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                return self.is_float_local(&u.expr)
            }
            syn::Expr::Paren(p) => return self.is_float_local(&p.expr),
            other => other,
        };
        let syn::Expr::Path(p) = e else { return false };
        let Some(name) = p.path.get_ident() else {
            return false;
        };
        matches!(self.lookup(&name.to_string()), Some(Binding::Value(v)) if self.values[v.0].ty.is_float())
    }
}

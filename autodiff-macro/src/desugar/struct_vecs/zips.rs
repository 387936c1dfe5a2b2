//! Loops over a `Vec` of structs zipped with an array on either side
//! (`element_zip`) or with itself shifted (`element_zip_shifted`), either
//! then counted by `enumerate` (`zipped_pair`), as index loops over the
//! fields' `Vec`s.

use syn::visit_mut::VisitMut;

use super::Rewrite;

impl Rewrite<'_> {
    /// `for (p, y) in v.iter().zip(ys)` (`v.iter_mut()`; the `Vec` second
    /// too, `ys.iter().zip(&v)`, `zip(&mut v)`, `zip(v.iter())`): the
    /// element's side a range of indices, `for (k, y) in
    /// (0..v_x.len()).zip(ys)`, the element read through the fields'
    /// `Vec`s at `k` as in [`Self::element_loop`]. `None` for any other
    /// loop.
    pub(super) fn element_zip(&mut self, f: &syn::ExprForLoop) -> Option<syn::Expr> {
        let (z, t, count) = zipped_pair(f)?;
        // Whether `e` is the `Vec`'s elements, and whether lent by `&mut`.
        let elements = |e: &syn::Expr| -> Option<bool> {
            match e {
                syn::Expr::MethodCall(m)
                    if m.args.is_empty()
                        && (m.method == "iter" || m.method == "iter_mut")
                        && self.is_name(&m.receiver) =>
                {
                    Some(m.method == "iter_mut")
                }
                syn::Expr::Reference(r) if self.is_name(&r.expr) => Some(r.mutability.is_some()),
                _ => None,
            }
        };
        let (side, mutable) = match (elements(&z.receiver), elements(&z.args[0])) {
            (Some(m), None) if !matches!(&*z.receiver, syn::Expr::Reference(_)) => (0, m),
            (None, Some(m)) => (1, m),
            _ => return None,
        };
        let (k, body) = self.element_body(&t.elems[side], None, mutable, &f.body)?;
        let first = self.first().clone();
        let range: syn::Expr = syn::parse_quote!((0..#first.len()));
        let mut z = z.clone();
        let mut pat = t.clone();
        pat.elems[side] = syn::parse_quote!(#k);
        if side == 0 {
            *z.receiver = range;
            self.visit_expr_mut(&mut z.args[0]);
        } else {
            z.args[0] = range;
            self.visit_expr_mut(&mut z.receiver);
        }
        let label = &f.label;
        Some(match count {
            None => syn::parse_quote!(#label for #pat in #z #body),
            Some(i) => syn::parse_quote!(#label for (#i, #pat) in #z.enumerate() #body),
        })
    }

    /// `for (a, b) in v.iter().zip(v.iter().skip(s))` (`&v` first,
    /// `zip(&v[s..])`, `zip(v[s..].iter())`): each pair of elements `s`
    /// apart, `{ let shift = s; for k in 0..v_x.len().saturating_sub(shift)
    /// { let k_shifted = k + shift; .. } }`, `a` read at `k` and `b` at
    /// `k_shifted` as in [`Self::element_loop`]. `None` for any other loop.
    pub(super) fn element_zip_shifted(&mut self, f: &syn::ExprForLoop) -> Option<syn::Expr> {
        let (z, t, count) = zipped_pair(f)?;
        let iter_of = |e: &syn::Expr| {
            matches!(e, syn::Expr::MethodCall(m)
                if m.method == "iter" && m.args.is_empty() && self.is_name(&m.receiver))
        };
        let whole = match &*z.receiver {
            syn::Expr::Reference(r) => r.mutability.is_none() && self.is_name(&r.expr),
            e => iter_of(e),
        };
        // `&v[s..]`, `v[s..]` (under `.iter()`): `s`.
        let tail = |e: &syn::Expr| -> Option<syn::Expr> {
            let syn::Expr::Index(ix) = e else {
                return None;
            };
            match &*ix.index {
                syn::Expr::Range(syn::ExprRange {
                    start: Some(s),
                    end: None,
                    limits: syn::RangeLimits::HalfOpen(_),
                    ..
                }) if self.is_name(&ix.expr) => Some((**s).clone()),
                _ => None,
            }
        };
        let shift = match &z.args[0] {
            syn::Expr::MethodCall(m) if m.method == "skip" && m.args.len() == 1 => {
                iter_of(&m.receiver).then(|| m.args[0].clone())
            }
            syn::Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => {
                tail(&m.receiver)
            }
            syn::Expr::Reference(r) if r.mutability.is_none() => tail(&r.expr),
            _ => None,
        };
        let (true, Some(mut shift)) = (whole, shift) else {
            return None;
        };
        let at = syn::Ident::new(&self.name, syn::spanned::Spanned::span(&z.method));
        let (k, shifted, by) = (
            self.fresh(&at, "k"),
            self.fresh(&at, "k_shifted"),
            self.fresh(&at, "shift"),
        );
        let (_, mut body) =
            self.element_body(&t.elems[1], Some(shifted.clone()), false, &f.body)?;
        body.stmts
            .insert(0, syn::parse_quote!(let #shifted: usize = #k + #by;));
        let (_, mut body) = self.element_body(&t.elems[0], Some(k.clone()), false, &body)?;
        // `.enumerate()` after the `zip`: its count is `k`.
        if let Some(i) = count {
            body.stmts.insert(0, syn::parse_quote!(let #i: usize = #k;));
        }
        self.visit_expr_mut(&mut shift);
        let first = self.first();
        let label = &f.label;
        Some(syn::parse_quote!({
            let #by: usize = #shift;
            #label for #k in 0..#first.len().saturating_sub(#by) #body
        }))
    }
}

/// `for (a, b) in x.zip(y)`, or `for (i, (a, b)) in x.zip(y).enumerate()`:
/// the `zip` call, the pair's pattern and the count's.
fn zipped_pair(
    f: &syn::ExprForLoop,
) -> Option<(&syn::ExprMethodCall, &syn::PatTuple, Option<&syn::Pat>)> {
    let (syn::Expr::MethodCall(z), syn::Pat::Tuple(t)) = (&*f.expr, &*f.pat) else {
        return None;
    };
    let (z, t, count) = match (&*z.receiver, &t.elems.first(), t.elems.len()) {
        (syn::Expr::MethodCall(inner), Some(i), 2)
            if z.method == "enumerate" && z.args.is_empty() =>
        {
            let syn::Pat::Tuple(pair) = &t.elems[1] else {
                return None;
            };
            (inner, pair, Some(*i))
        }
        _ => (z, t, None),
    };
    (z.method == "zip" && z.args.len() == 1 && t.elems.len() == 2).then_some((z, t, count))
}

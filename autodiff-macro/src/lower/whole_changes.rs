//! Changes of a variable as a whole, as the statements they stand for:
//! an array's (`u.copy_from_slice(&next)`, `u.fill(0.0)`,
//! `std::mem::swap(&mut u, &mut next)`, through `desugar/whole_arrays.rs`)
//! two floats swapped, and a float replaced (`std::mem::replace`).

use super::*;

impl Lowerer {
    /// `u.copy_from_slice(&next)`, `u.fill(0.0)`,
    /// `std::mem::swap(&mut u, &mut next)` on modelled arrays: the element
    /// stores they stand for (`desugar/whole_arrays.rs`).
    pub(super) fn whole_change(&self, e: &syn::Expr) -> Option<Vec<syn::Stmt>> {
        use crate::desugar::whole_arrays;
        let is_array = |e: &syn::Expr| self.whole_array(e);
        match e {
            syn::Expr::MethodCall(m) => {
                // `u[..].copy_from_slice(..)`: the whole of `u`.
                let receiver = match &*m.receiver {
                    syn::Expr::Index(i) if matches!(&*i.index, syn::Expr::Range(r) if r.start.is_none() && r.end.is_none()) => {
                        &*i.expr
                    }
                    other => other,
                };
                let array = self.whole_array(receiver)?;
                whole_arrays::method(&array, m, &is_array, &self.internal)
            }
            syn::Expr::Call(c) => whole_arrays::swap(c, &is_array, &self.internal),
            _ => None,
        }
    }

    /// The name of the modelled array `e` is, if it is one that element
    /// stores can change as a whole: a flat local array (a parameter is
    /// borrowed, or its own copy kept as the caller gave it).
    pub(super) fn whole_array(&self, e: &syn::Expr) -> Option<syn::Ident> {
        let syn::Expr::Path(p) = e else {
            return None;
        };
        let ident = p.path.get_ident()?;
        match self.lookup(&ident.to_string()) {
            Some(Binding::Value(v)) if self.values[v.0].kind == ValueKind::Def => {
                match self.values[v.0].ty.array() {
                    Some(a) if a.shape != Shape::Nested => Some(ident.clone()),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Whether `e` names a float array the lowering models, not nested
    /// (`s` of `s: &mut [f64; 2]`, whose `*s` is the same array).
    pub(super) fn is_array_name(&self, e: &syn::Expr) -> bool {
        let syn::Expr::Path(p) = e else { return false };
        let Some(name) = p.path.get_ident() else {
            return false;
        };
        matches!(self.lookup(&name.to_string()), Some(Binding::Value(v))
            if matches!(self.values[v.0].ty.array(), Some(a) if a.shape != Shape::Nested))
    }

    /// `let old = std::mem::replace(&mut x, next);` of a float: the
    /// new value first (it may read `x`'s old name), then the old one
    /// bound, then the new one assigned.
    pub(super) fn replaced_let(&mut self, local: &syn::Local, out: &mut Vec<Inst>) -> bool {
        let Some((name, value)) = local.init.as_ref().and_then(|i| {
            let (name, value) = replaced(&i.expr)?;
            (i.diverge.is_none() && self.is_replaceable(name)).then_some((name, value))
        }) else {
            return false;
        };
        let (_, base) = self.internal.fresh_loop();
        let t = syn::Ident::new(&format!("{base}_replacing"), name.span());
        let mut old = local.clone();
        old.init = Some(syn::LocalInit {
            eq_token: Default::default(),
            expr: Box::new(syn::parse_quote!(#name)),
            diverge: None,
        });
        let stmts: [syn::Stmt; 3] = [
            syn::parse_quote!(let #t = #value;),
            syn::Stmt::Local(old),
            syn::parse_quote!(#name = #t;),
        ];
        for st in &stmts {
            self.stmt(st, out);
        }
        true
    }
}

/// `std::mem::swap(&mut a, &mut b)` (also `mem::swap`, `core::mem::swap`)
/// of two variables named bare: their names. An array's is rewritten
/// before the lowering (`desugar/whole_arrays.rs`), so what reaches here
/// is any other variable's, which the lowering exchanges as values.
pub(super) fn float_swap(c: &syn::ExprCall) -> Option<(syn::Ident, syn::Ident)> {
    // A bare `swap(..)` may be the user's own writer of that name.
    let qualified = crate::desugar::whole_arrays::mem_fn(c, "swap") == Some(true);
    if !qualified || c.args.len() != 2 {
        return None;
    }
    let name = |e: &syn::Expr| super::opaque::lent_mut(e).cloned();
    Some((name(&c.args[0])?, name(&c.args[1])?))
}

/// `std::mem::replace(&mut x, value)` (also `mem::replace`,
/// `core::mem::replace`) of a variable named bare: its name and the new
/// value. The call is `x`'s old value, and `x` holds `value` after it.
pub(super) fn replaced(e: &syn::Expr) -> Option<(&syn::Ident, &syn::Expr)> {
    let syn::Expr::Call(c) = e else {
        return None;
    };
    let is_replace = crate::desugar::whole_arrays::mem_fn(c, "replace") == Some(true);
    if !is_replace || c.args.len() != 2 {
        return None;
    }
    let name = match &c.args[0] {
        syn::Expr::Reference(r) if r.mutability.is_some() => match &*r.expr {
            syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident()?,
            _ => return None,
        },
        _ => return None,
    };
    Some((name, &c.args[1]))
}

//! Type annotations that say no more than the value does, dropped before
//! the other stages, which follow a value by the shape of its initialiser
//! and know the untyped spellings: `let s: V2 = V2 { .. };`, `let t: (f64,
//! f64) = (a, b);`, `let [c, d]: [f64; 2] = [a * b, a + b];`, `let r: &[f64;
//! 2] = &q;`, `let s: &[f64] = &v[1..];`, `let f: fn(f64) -> f64 = sq;`.
//! Each of these has the same type without its annotation (a float
//! literal's type is then inferred from its uses, so an element that is a
//! literal keeps the annotation unless it says `f64`, the default). The
//! function kept as written keeps its annotations; only the copy the
//! stages read loses them.

use syn::visit_mut::VisitMut;

/// `item` without the type annotations its values make evident.
pub fn evident(mut item: syn::ItemFn) -> syn::ItemFn {
    Annotations.visit_block_mut(&mut item.block);
    item
}

struct Annotations;

impl VisitMut for Annotations {
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        syn::visit_mut::visit_local_mut(self, local);
        let (syn::Pat::Type(typed), Some(init)) = (&local.pat, &local.init) else {
            return;
        };
        if init.diverge.is_some() || !said_by(&typed.pat, &typed.ty, &init.expr) {
            return;
        }
        local.pat = (*typed.pat).clone();
    }
}

/// Whether `value`, bound by `pat`, has the type `ty` as written, whatever
/// its uses.
fn said_by(pat: &syn::Pat, ty: &syn::Type, value: &syn::Expr) -> bool {
    use syn::{Expr as E, Type as T};
    match (ty, value) {
        (T::Paren(t), _) => said_by(pat, &t.elem, value),
        (_, E::Paren(p)) => said_by(pat, ty, &p.expr),
        // `let s: V2 = V2 { .. };`
        (T::Path(t), E::Struct(s)) => {
            t.qself.is_none() && s.qself.is_none() && same(&t.path, &s.path)
        }
        // `let t: (f64, f64) = (x * y, x + y);`
        (T::Tuple(t), E::Tuple(v)) => {
            t.elems.len() == v.elems.len()
                && t.elems.iter().zip(&v.elems).all(|(t, e)| float_elem(t, e))
        }
        // `let [c, d]: [f64; 2] = [a * b, a + b];` (a name bound to an
        // array keeps its type, which the stages read).
        (T::Array(t), E::Array(v)) => {
            matches!(pat, syn::Pat::Slice(_)) && v.elems.iter().all(|e| float_elem(&t.elem, e))
        }
        // `let r: &[f64; 2] = &q;`, `let s: &[f64] = &v[1..];`, `let w:
        // &Vec<f64> = &m.w;`: a reference to a place, of floats.
        (T::Reference(t), E::Reference(r)) => {
            t.mutability.is_none()
                && r.mutability.is_none()
                && matches!(pat, syn::Pat::Ident(_))
                && floats(&t.elem)
                && matches!(&*r.expr, E::Path(_) | E::Field(_) | E::Index(_))
        }
        // `let f: fn(f64) -> f64 = sq;`
        (T::BareFn(_), E::Path(p)) => p.qself.is_none() && matches!(pat, syn::Pat::Ident(_)),
        _ => false,
    }
}

/// Whether two paths are written the same.
fn same(a: &syn::Path, b: &syn::Path) -> bool {
    quote::ToTokens::to_token_stream(a).to_string()
        == quote::ToTokens::to_token_stream(b).to_string()
}

/// Whether `e`, an element of type `t`, has that type without it: `t` a
/// float type, and `e` no literal unless `t` is `f64`, a float literal's
/// type where nothing says otherwise.
fn float_elem(t: &syn::Type, e: &syn::Expr) -> bool {
    let literal = match e {
        syn::Expr::Lit(_) => true,
        syn::Expr::Unary(u) => matches!(&*u.expr, syn::Expr::Lit(_)),
        _ => false,
    };
    match t {
        syn::Type::Path(p) if p.path.is_ident("f64") => true,
        syn::Type::Path(p) if p.path.is_ident("f32") => !literal,
        _ => false,
    }
}

/// Whether `t` is an array, a slice or a `Vec` of `f64` or `f32`.
fn floats(t: &syn::Type) -> bool {
    let float = |t: &syn::Type| matches!(t, syn::Type::Path(p) if p.path.is_ident("f64") || p.path.is_ident("f32"));
    match t {
        syn::Type::Array(a) => float(&a.elem),
        syn::Type::Slice(s) => float(&s.elem),
        syn::Type::Path(_) => crate::ir::vec_elem(t).is_some_and(float),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    #[test]
    fn annotations_the_values_make_evident_go() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn f(x: f32, y: f32, q: [f32; 2], v: Vec<f64>) -> f32 {
                let s: V2 = V2 { x, y };
                let t: (f32, f32) = (x * y, x + y);
                let l: (f32, f32) = (1.0, x);
                let [c, d]: [f32; 2] = [x * y, x];
                let a: [f32; 2] = [x, y];
                let r: &[f32; 2] = &q;
                let w: &[f64] = &v[1..];
                let g: fn(f32) -> f32 = sq;
                let n: usize = 3;
                x
            }
        };
        let text = evident(item).block.to_token_stream().to_string();
        let want: syn::Block = syn::parse_quote!({
            let s = V2 { x, y };
            let t = (x * y, x + y);
            let l: (f32, f32) = (1.0, x);
            let [c, d] = [x * y, x];
            let a: [f32; 2] = [x, y];
            let r = &q;
            let w = &v[1..];
            let g = sq;
            let n: usize = 3;
            x
        });
        assert_eq!(text, want.to_token_stream().to_string());
    }
}

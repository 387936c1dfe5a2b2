//! `v.extend_from_slice(s);` of a local `Vec` as the pushes it stands
//! for, `for &item in s { v.push(item); }` (trial 10 r683): the lowering
//! follows a `Vec` filled by `push` anywhere, and a `for` over a slice,
//! so a state vector assembled from parts (`v.extend_from_slice(&pos);
//! v.extend_from_slice(&vel);`) is differentiated element by element,
//! with no rule of its own. Only in the body the macro lowers: the
//! function is kept as written.

use syn::visit_mut::VisitMut;

/// `item` with each `v.extend_from_slice(s);` statement, `v` a name, as
/// a loop of pushes.
pub fn as_pushes(mut item: syn::ItemFn) -> syn::ItemFn {
    AsPushes.visit_block_mut(&mut item.block);
    item
}

struct AsPushes;

impl VisitMut for AsPushes {
    fn visit_stmt_mut(&mut self, s: &mut syn::Stmt) {
        syn::visit_mut::visit_stmt_mut(self, s);
        let syn::Stmt::Expr(syn::Expr::MethodCall(m), Some(_)) = s else {
            return;
        };
        let (syn::Expr::Path(v), Some(slice), 1) = (&*m.receiver, m.args.first(), m.args.len())
        else {
            return;
        };
        let Some(v) = v.path.get_ident().filter(|_| v.qself.is_none()) else {
            return;
        };
        if m.method != "extend_from_slice" {
            return;
        }
        // A name of the loop's own, apart from the `Vec`'s: the body is
        // the push alone, so nothing else of the user's is in its scope.
        let item = match v == "__autodiff_item" {
            true => quote::format_ident!("__autodiff_item_", span = m.method.span()),
            false => quote::format_ident!("__autodiff_item", span = m.method.span()),
        };
        let push = syn::Ident::new("push", m.method.span());
        *s = syn::parse_quote_spanned! {m.method.span()=>
            for &#item in #slice {
                #v.#push(#item);
            }
        };
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}

    // A closure's body is its own: a `Vec` it fills is the closure's.
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::{quote, ToTokens};

    #[test]
    fn extend_from_slice_is_a_loop_of_pushes() {
        let f: syn::ItemFn = syn::parse2(quote!(
            fn f(a: &[f64], b: &[f64; 2]) -> f64 {
                let mut v = Vec::new();
                v.extend_from_slice(a);
                v.extend_from_slice(&b[..1]);
                v.extend_from_slice(a).len();
                v[0]
            }
        ))
        .unwrap();
        let want = quote!({
            let mut v = Vec::new();
            for &__autodiff_item in a {
                v.push(__autodiff_item);
            }
            for &__autodiff_item in &b[..1] {
                v.push(__autodiff_item);
            }
            v.extend_from_slice(a).len();
            v[0]
        });
        assert_eq!(
            as_pushes(f).block.to_token_stream().to_string(),
            want.to_string()
        );
    }
}

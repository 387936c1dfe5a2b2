//! A scalar output's `<name>_vjp(args.., seed)`: the value, and `seed`
//! times the gradient, one entry per differentiated parameter as `_grad`
//! gives them; and its `__autodiff_vjp_slots_<name>` (`slots.rs`).
//!
//! Every `#[grad]` function has a `_vjp` this way, whatever it returns, so
//! a caller that does not see what a callee returns (`let arm = sub(&r,
//! &p); cross(arm, f)`: `arm` passed on whole) differentiates the call
//! through the callee's `_vjp` slots, seeded with its adjoint of the
//! result, and rustc checks the seed's type against the callee's output.
//!
//! It is a sweep of its own, not a call of `_grad`: a function without a
//! receiver cannot name its own `_grad` (free, `<name>_grad`; associated,
//! `Self::<name>_grad`), and the macro cannot see which it is.

use super::*;

/// `<name>_vjp` and its slots; `body` computes the value and the
/// gradients from `seed`, `returned` gives them back.
pub(super) fn scalar_vjp_fn(
    item: &syn::ItemFn,
    f: &Function,
    inputs: &[TokenStream],
    seed: &syn::Ident,
    (body, returned): (TokenStream, TokenStream),
) -> TokenStream {
    let sig = &item.sig;
    let fname = &sig.ident;
    let name = format_ident!("{}_vjp", fname);
    let ret_ty = f.float_ident(f.ret_ty).into_token_stream();
    let grads: Vec<&Param> = f.params.iter().filter(|p| p.active).collect();
    let grad_tys = gradient_types(f, &grads);
    let returned_ty = fallible_ty(f, quote!((#ret_ty, #(#grad_tys),*)));
    let doc = format!(
        " Vector-Jacobian product of [`{fname}`]: its value, and `{seed}` times its gradient, one entry per differentiated parameter as `{fname}_grad` gives them."
    );
    let slots = slots_fns(item, f, Some((seed, &ret_ty)), &ret_ty, |form| match form {
        Form::Path => slots_name(fname, true),
        Form::Receiver => method_slots_name(fname, true, false),
    });
    let (generics, where_clause, vis) = (&sig.generics, &sig.generics.where_clause, &item.vis);
    let attrs = kept_attrs(item);
    quote! {
        #[doc = #doc]
        #(#attrs)*
        #[allow(non_snake_case, clippy::too_many_arguments, clippy::type_complexity)]
        #vis fn #name #generics (#(#inputs,)* #seed: #ret_ty) -> #returned_ty #where_clause {
            #body
            #returned
        }
        #slots
    }
}

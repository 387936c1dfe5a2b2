//! The `#[grad]` attribute of `autodiff`.
//!
//! Stages, one file each, in the order data flows:
//! [`attr`] (options) → [`lower`] (syn → IR) → [`activity`] (analysis) →
//! [`reverse`] (adjoint IR) → [`emit`] (tokens), which asks [`windows`]
//! where a loop can read through a bounds-checked slice; [`rules`] maps names to
//! runtime rules. [`expand::expand`] drives them on `proc_macro2` tokens so
//! tests can call it directly.

mod activity;
mod attr;
mod desugar;
mod emit;
mod expand;
mod generic;
mod ir;
mod lower;
mod names;
mod reverse;
mod rules;
mod windows;

use proc_macro::TokenStream;

/// Generates `<name>_grad`, returning the value and the gradient of the
/// function's active (float) parameters. See the `autodiff` crate docs.
#[proc_macro_attribute]
pub fn grad(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(attr.into(), item.into()).into()
}

/// The Wengert list that `#[grad]` derived for a function, as text:
/// `autodiff::wengert!(f)` or `autodiff::wengert!(module::f)`.
#[proc_macro]
pub fn wengert(input: TokenStream) -> TokenStream {
    let mut path = syn::parse_macro_input!(input as syn::Path);
    if let Some(last) = path.segments.last_mut() {
        last.ident = emit::wengert_const(&last.ident);
    }
    quote::quote!(#path).into()
}

//! The `#[grad]` attribute of `autodiff`.
//!
//! Stages, in the order data flows (imports only point down this list;
//! ARCHITECTURE.md at the repository root walks through them):
//!
//! - `diag`: errors collected across stages, reported together;
//! - `attr`: the options of `#[grad(...)]`;
//! - `rules`: operator, method, function and kernel to runtime rule, and
//!   what a call's path resolves to;
//! - `ir`: the Wengert list with structured regions;
//! - `desugar`: syntax rewritten into simpler syntax (jumps, guard
//!   clauses, iterator reductions, a vector output's tail);
//! - `lower`: `syn` to IR, one file per construct;
//! - `analysis`: activity, repeated loads, bounds-check windows;
//! - `reverse`: the adjoint program;
//! - `emit`: IR and adjoint program to tokens, one file per generated
//!   function kind and sweep.
//!
//! `expand::expand` is the pipeline, on `proc_macro2` tokens so that
//! tests can call it directly.

#![warn(missing_docs)]

mod analysis;
mod attr;
mod derive;
mod desugar;
mod diag;
mod emit;
mod expand;
mod ir;
mod lower;
#[cfg(test)]
mod never_panics;
mod reverse;
mod rules;
#[cfg(test)]
mod snapshots;

use proc_macro::TokenStream;

/// Generates `<name>_grad`, returning the value and the gradient of the
/// function's active (float) parameters, and `<name>_vjp`, the same
/// gradient times a seed of the output. See the `autodiff` crate docs, and
/// its README for the subset of Rust it differentiates.
///
/// Options: `wrt(a, b)` names the parameters to differentiate (without
/// it, every float parameter); `jvp` adds `<name>_jvp`, forward mode;
/// `hessian` adds `<name>_hvp` and `<name>_hessian`, second derivatives;
/// `trace` adds `<name>_trace`, the evaluation recorded with its values
/// and adjoints; `pullback = rule` takes the derivative from `rule`
/// instead of from the body.
///
/// On a trait's `impl` block (`#[grad] impl Dynamics for Body { .. }`), it
/// differentiates the methods marked `#[grad(..)]` in it, and puts what it
/// generates for them in an inherent `impl` of the type.
#[proc_macro_attribute]
pub fn grad(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(attr.into(), item.into()).into()
}

/// `#[checkpoint(every = K)]` or `#[checkpoint(snapshots = S)]` on a `for`
/// loop over an integer range at the top level of a `#[grad]` function's
/// body: the generated gradient stores the loop's state every K
/// iterations, or at most S states on a binomial (Revolve) schedule, and
/// recomputes the iterations between, instead of recording them all. The
/// gradient is the same, bit for bit. `#[grad]` reads and removes the
/// attribute, so it needs no import (`#[checkpoint(..)]` and
/// `#[autodiff::checkpoint(..)]` both work); this macro only answers where
/// rustc meets it outside a `#[grad]` function.
#[proc_macro_attribute]
pub fn checkpoint(_attr: TokenStream, item: TokenStream) -> TokenStream {
    let item: proc_macro2::TokenStream = item.into();
    let err = syn::Error::new(
        proc_macro2::Span::call_site(),
        "#[checkpoint] is read by #[grad] on the function around a `for` loop; here rustc met it outside such a function: put it on a loop in a #[grad] function",
    )
    .to_compile_error();
    quote::quote!(#item #err).into()
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

/// The Wengert list that `#[grad]` derived for a function, as a Graphviz
/// DOT graph without values: `autodiff::wengert_dot!(f)`. A `_trace`'s
/// `to_dot()` (feature `render`) draws it with values and adjoints.
#[proc_macro]
pub fn wengert_dot(input: TokenStream) -> TokenStream {
    let mut path = syn::parse_macro_input!(input as syn::Path);
    if let Some(last) = path.segments.last_mut() {
        last.ident = emit::wengert_dot_const(&last.ident);
    }
    quote::quote!(#path).into()
}

/// `#[derive(Differentiable)]`: a struct whose gradient is a value of the
/// same struct, derivatives in its float fields (floats, float arrays and
/// `Vec`s, nested derived structs) and copies of every other field. Mark a
/// field `#[differentiable(constant)]` to copy it whatever its type.
#[proc_macro_derive(Differentiable, attributes(differentiable))]
pub fn derive_differentiable(input: TokenStream) -> TokenStream {
    derive::derive(input.into()).into()
}

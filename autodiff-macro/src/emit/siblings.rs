//! How a generated function calls another generated for the same function
//! (`_trace` its `_trace_into`, `_jacobian` its `_vjp` or `_jvp`, `_hvp`
//! and `_hessian` its `_grad` at dual numbers).
//!
//! A method calls it as `Self::name`. A function without a receiver may be
//! free or associated, which an attribute macro cannot see: a bare `name`
//! would find, inside an `impl`, a free function of the same name (the
//! siblings of a free function of the same name and signature), and give
//! its values without a word. So where the function's own tokens do not
//! name `Self` (which would settle it), the caller holds a copy of its
//! sibling as an item of its own body, which the bare name finds first,
//! wherever the function is.

use super::*;

/// Whether the function is surely an associated function: it has a
/// receiver, or its signature or body names `Self`.
pub fn in_impl(item: &syn::ItemFn) -> bool {
    fn mentions_self(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == "Self",
            proc_macro2::TokenTree::Group(g) => mentions_self(g.stream()),
            _ => false,
        })
    }
    item.sig.receiver().is_some()
        || mentions_self(item.sig.to_token_stream())
        || mentions_self(item.block.to_token_stream())
}

/// The path that calls `name`, a function generated beside the one `item`
/// declares (or that function itself): `Self::name` in an `impl`, with the
/// function's own type and const parameters, in order (`name::<T, N>`).
pub(super) fn sibling_path(item: &syn::ItemFn, name: &syn::Ident) -> TokenStream {
    let type_params: Vec<&syn::Ident> = item
        .sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(&t.ident),
            syn::GenericParam::Const(c) => Some(&c.ident),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    let turbofish = (!type_params.is_empty()).then(|| quote!(::<#(#type_params),*>));
    match in_impl(item) {
        true => quote!(Self::#name #turbofish),
        false => quote!(#name #turbofish),
    }
}

/// What a generated function's body starts with so that `name` calls the
/// sibling generated as `sibling` (tokens holding a function item of that
/// name): nothing in an `impl` (`Self::name` calls it), else a copy of it
/// as an item of the body, hidden from the docs, found by the bare name
/// before any other of that name.
pub(super) fn own_copy(
    item: &syn::ItemFn,
    sibling: &TokenStream,
    name: &syn::Ident,
) -> TokenStream {
    if in_impl(item) {
        return TokenStream::new();
    }
    let Ok(file) = syn::parse2::<syn::File>(sibling.clone()) else {
        return TokenStream::new();
    };
    file.items
        .into_iter()
        .find_map(|it| match it {
            syn::Item::Fn(f) if f.sig.ident == *name => Some(nested(f)),
            _ => None,
        })
        .unwrap_or_default()
}

/// [`own_copy`] of a sibling already parsed.
pub fn own_item(item: &syn::ItemFn, sibling: &syn::ItemFn) -> TokenStream {
    match in_impl(item) {
        true => TokenStream::new(),
        false => nested(sibling.clone()),
    }
}

/// `f` as an item of a function's body: private, undocumented.
fn nested(mut f: syn::ItemFn) -> TokenStream {
    f.vis = syn::Visibility::Inherited;
    f.attrs.retain(|a| !a.path().is_ident("doc"));
    f.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
    f.into_token_stream()
}

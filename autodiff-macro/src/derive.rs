//! `#[derive(Differentiable)]`: the runtime's `Differentiable` for a
//! struct, field by field. A field marked `#[differentiable(constant)]` is
//! copied (`Clone`) into a gradient and never added to; every other field
//! must itself be `Differentiable` (floats, float arrays and `Vec`s,
//! integers and `bool` as constants, nested derived structs).

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use crate::diag::combine;

pub fn derive(input: TokenStream) -> TokenStream {
    let item: syn::DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    match expand(&item) {
        Ok(tokens) => tokens,
        Err(e) => e.to_compile_error(),
    }
}

/// One field: how to name it, its type, and whether it is a constant.
struct Field {
    member: syn::Member,
    ty: syn::Type,
    constant: bool,
}

fn expand(item: &syn::DeriveInput) -> syn::Result<TokenStream> {
    let data = match &item.data {
        syn::Data::Struct(s) => s,
        syn::Data::Enum(e) => {
            return Err(syn::Error::new_spanned(
                e.enum_token,
                "`Differentiable` can be derived for structs only: the gradient of an enum would depend on its variant; keep the floats in a struct",
            ))
        }
        syn::Data::Union(u) => {
            return Err(syn::Error::new_spanned(
                u.union_token,
                "`Differentiable` can be derived for structs only",
            ))
        }
    };
    let mut errors = None;
    let mut fields = Vec::new();
    for (i, f) in data.fields.iter().enumerate() {
        let member = match &f.ident {
            Some(id) => syn::Member::Named(id.clone()),
            None => syn::Member::Unnamed(syn::Index::from(i)),
        };
        let mut constant = false;
        for attr in f
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("differentiable"))
        {
            let parsed = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("constant") {
                    constant = true;
                    Ok(())
                } else {
                    Err(meta.error(
                        "unknown option of `differentiable`: write `#[differentiable(constant)]` for a field the gradient copies",
                    ))
                }
            });
            if let Err(e) = parsed {
                combine(&mut errors, e);
            }
        }
        fields.push(Field {
            member,
            ty: f.ty.clone(),
            constant,
        });
    }
    if let Some(e) = errors {
        return Err(e);
    }

    let name = &item.ident;
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    let mut where_clause = where_clause
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(where));
    if !item.generics.params.is_empty() {
        for f in &fields {
            let ty = &f.ty;
            where_clause.predicates.push(if f.constant {
                syn::parse_quote!(#ty: ::core::clone::Clone)
            } else {
                syn::parse_quote!(#ty: ::autodiff::runtime::Differentiable)
            });
        }
    }
    let trait_path = quote!(::autodiff::runtime::Differentiable);
    let zero = fields.iter().map(|f| {
        let m = &f.member;
        if f.constant {
            quote!(#m: ::core::clone::Clone::clone(&self.#m))
        } else {
            let ty = &f.ty;
            quote!(#m: <#ty as #trait_path>::zero_like(&self.#m))
        }
    });
    let added: Vec<&Field> = fields.iter().filter(|f| !f.constant).collect();
    let accumulate = added.iter().map(|f| {
        let (m, ty) = (&f.member, &f.ty);
        quote!(<#ty as #trait_path>::accumulate(&mut self.#m, &other.#m);)
    });
    let scaled = added.iter().map(|f| {
        let (m, ty) = (&f.member, &f.ty);
        quote!(<#ty as #trait_path>::scaled_add(&mut self.#m, alpha, &other.#m);)
    });
    let inner: Vec<TokenStream> = added
        .iter()
        .map(|f| {
            let (m, ty) = (&f.member, &f.ty);
            quote!(<#ty as ::autodiff::runtime::tangent::Inner>::inner(&self.#m, &other.#m))
        })
        .collect();
    // `Inner` where the fields are; `Along` for any float type.
    let mut inner_where = where_clause.clone();
    if !item.generics.params.is_empty() {
        for f in &added {
            let ty = &f.ty;
            inner_where
                .predicates
                .push(syn::parse_quote!(#ty: ::autodiff::runtime::tangent::Inner));
        }
    }
    let mut along_generics_list = item.generics.clone();
    along_generics_list
        .params
        .push(syn::parse_quote!(__AutodiffF: ::autodiff::runtime::Float));
    let (along_generics, _, _) = along_generics_list.split_for_impl();
    let along_where = inner_where.clone();
    let unused = added.is_empty().then(|| quote!(let _ = (other, alpha);));
    let unused_acc = added.is_empty().then(|| quote!(let _ = other;));
    let construct = match &data.fields {
        syn::Fields::Unit => quote!(#name),
        _ => quote!(#name { #(#zero),* }),
    };
    // What each field is to a gradient (`runtime::differentiable::ActiveField`).
    let (plain_impl, plain_ty, plain_where) = item.generics.split_for_impl();
    let kinds = fields.iter().map(|f| {
        let method = kind_method(&f.member);
        let kind = match f.constant {
            true => quote!(ConstantField),
            false => quote!(ActiveField),
        };
        quote! {
            #[doc(hidden)]
            #[inline(always)]
            #[allow(non_snake_case, dead_code)]
            pub fn #method(&self) -> ::autodiff::runtime::differentiable::#kind {
                ::autodiff::runtime::differentiable::#kind
            }
        }
    });
    let doc_name = name.to_token_stream().to_string();
    let doc = format!(" The gradient of a `{doc_name}` is a `{doc_name}`: derivatives in its float parts, copies elsewhere.");
    Ok(quote! {
        #[doc = #doc]
        #[automatically_derived]
        impl #impl_generics #trait_path for #name #ty_generics #where_clause {
            #[inline]
            fn zero_like(&self) -> Self {
                #construct
            }
            #[inline]
            fn accumulate(&mut self, other: &Self) {
                #unused_acc
                #(#accumulate)*
            }
            #[inline]
            fn scaled_add(&mut self, alpha: f64, other: &Self) {
                #unused
                #(#scaled)*
            }
        }
        #[automatically_derived]
        impl #plain_impl #name #plain_ty #plain_where {
            #(#kinds)*
        }
        #[automatically_derived]
        impl #impl_generics ::autodiff::runtime::differentiable::Derived for #name #ty_generics #where_clause {}
        #[automatically_derived]
        impl #impl_generics ::autodiff::runtime::tangent::Inner for #name #ty_generics #inner_where {
            #[inline]
            fn inner(&self, other: &Self) -> f64 {
                #unused_acc
                0.0 #(+ #inner)*
            }
        }
        #[automatically_derived]
        impl #along_generics ::autodiff::runtime::tangent::Along<#name #ty_generics, __AutodiffF> for #name #ty_generics #along_where {
            #[inline]
            fn along(&self, tangent: &Self) -> __AutodiffF {
                ::autodiff::runtime::tangent::along_inner(self, tangent)
            }
        }
    })
}

/// `__autodiff_kind_x` for the field `x` (`__autodiff_kind_0` for `.0`):
/// the method `#[derive(Differentiable)]` gives each field, saying whether
/// it is marked `#[differentiable(constant)]`, and the name generated code
/// calls (`emit::field_kinds_in_scope` falls back where it is missing).
pub fn kind_method(member: &syn::Member) -> syn::Ident {
    match member {
        syn::Member::Named(n) => {
            let n = syn::ext::IdentExt::unraw(n);
            quote::format_ident!("__autodiff_kind_{}", n, span = n.span())
        }
        syn::Member::Unnamed(i) => {
            quote::format_ident!("__autodiff_kind_{}", i.index, span = i.span)
        }
    }
}

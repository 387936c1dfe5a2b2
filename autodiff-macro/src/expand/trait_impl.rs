//! `#[grad]` on a trait's implementation, `#[grad] impl Dynamics for Body
//! { #[grad] fn step(&mut self, dt: f64) { .. } }`.
//!
//! An attribute on a method sees the method alone, and a trait's `impl`
//! may hold only the trait's items: the `step_grad`, `step_vjp` and slots
//! that `#[grad]` generates beside a method would be rustc's error E0407
//! there. On the `impl` block, the macro sees both: each method marked
//! `#[grad(..)]` is expanded as any method is (`expand_item`), the method
//! itself stays in the trait's `impl`, and what was generated beside it goes
//! to an inherent `impl` of the same type, with the same generics. That
//! `impl` sits in an anonymous `const` block that imports the trait, so
//! that the generated code's `Self::step` finds the trait's method
//! wherever the trait is declared.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// The `impl` block `item`, its methods marked `#[grad]` expanded, or the
/// errors found.
pub(super) fn expand(attr: TokenStream, mut item: syn::ItemImpl) -> TokenStream {
    crate::desugar::groups::visible_in_impl(&mut item);
    let Some((_, trait_path, _)) = &item.trait_ else {
        let err = syn::Error::new_spanned(
            item.impl_token,
            "#[grad] on an `impl` block is for a trait's implementation (`#[grad] impl Dynamics for Body { #[grad] fn step(..) .. }`), whose methods cannot have items beside them; in an inherent `impl`, put `#[grad]` on each method instead",
        );
        let err = err.to_compile_error();
        return quote!(#item #err);
    };
    // `impl Mul<V2> for f64` (`k * v`, trial 11 r972): the generated
    // functions go in an inherent `impl` of the type, which a primitive
    // cannot have (E0390).
    if let Some(primitive) = primitive(&item.self_ty) {
        let err = syn::Error::new_spanned(
            &item.self_ty,
            format!("#[grad] puts the functions it generates in an `impl` of the type a trait is implemented for, and `{primitive}` is a primitive type, which cannot have one: write the operator with your type on the left (`v * k`, `impl Mul<{primitive}> for V2`), or a `#[grad]` function (`fn scaled(k: {primitive}, v: V2) -> V2`) and call it"),
        );
        for member in &mut item.items {
            if let syn::ImplItem::Fn(method) = member {
                method.attrs.retain(|a| !is_grad(a));
            }
        }
        let err = err.to_compile_error();
        return quote!(#item #err);
    }
    let mut errors: Option<syn::Error> = None;
    if !attr.is_empty() {
        crate::diag::combine(
            &mut errors,
            syn::Error::new_spanned(
                &attr,
                "#[grad] on an `impl` block takes no options: give them to each method's own `#[grad(..)]`",
            ),
        );
    }
    let mut generated = Vec::new();
    let mut marked = 0;
    for member in &mut item.items {
        let syn::ImplItem::Fn(method) = member else {
            continue;
        };
        let Some(k) = method.attrs.iter().position(is_grad) else {
            continue;
        };
        marked += 1;
        let options = match &method.attrs.remove(k).meta {
            syn::Meta::List(l) => l.tokens.clone(),
            _ => TokenStream::new(),
        };
        // The generated functions are as public as the trait's methods:
        // `pub`, in the inherent `impl`.
        let as_fn = syn::ItemFn {
            attrs: method.attrs.clone(),
            vis: syn::parse_quote!(pub),
            sig: method.sig.clone(),
            block: Box::new(method.block.clone()),
        };
        let expanded = super::expand(options, as_fn.into_token_stream());
        match syn::parse2::<syn::File>(expanded) {
            Ok(file) => {
                for it in file.items {
                    match it {
                        // The method itself, as the expansion keeps it
                        // (its `#[checkpoint]`s read): back in the trait's
                        // `impl`, without the visibility a trait's method
                        // cannot have.
                        syn::Item::Fn(f) if f.sig.ident == method.sig.ident => {
                            method.attrs = f.attrs;
                            method.block = *f.block;
                        }
                        other => generated.push(other),
                    }
                }
            }
            Err(e) => crate::diag::combine(&mut errors, e),
        }
    }
    if marked == 0 {
        crate::diag::combine(
            &mut errors,
            syn::Error::new_spanned(
                trait_path,
                "#[grad] on a trait's `impl` differentiates the methods marked `#[grad]` in it, and none is: put `#[grad]` on each method to differentiate",
            ),
        );
    }
    let errors = errors.map(|e| e.to_compile_error());
    let inherent = inherent_impl(&item, trait_path, generated);
    quote!(#item #inherent #errors)
}

/// Whether `attr` is `#[grad]`, `#[grad(..)]` or `#[autodiff::grad(..)]`.
fn is_grad(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "grad")
}

/// The items generated beside the methods, in an inherent `impl` of the
/// type with the trait's `impl`'s generics, in an anonymous `const` block
/// that imports the trait.
fn inherent_impl(
    item: &syn::ItemImpl,
    trait_path: &syn::Path,
    generated: Vec<syn::Item>,
) -> TokenStream {
    if generated.is_empty() {
        return TokenStream::new();
    }
    let mut members = TokenStream::new();
    let mut outside = TokenStream::new();
    for it in generated {
        match it {
            // An error of the expansion (`compile_error!`) or a helper item
            // (a `const`, a `fn`) goes where it came from: an `impl`'s
            // member.
            syn::Item::Macro(m) => members.extend(m.into_token_stream()),
            syn::Item::Fn(f) => members.extend(f.into_token_stream()),
            syn::Item::Const(c) => members.extend(c.into_token_stream()),
            other => outside.extend(other.into_token_stream()),
        }
    }
    // The trait by its path, without generic arguments, for `use`.
    let mut used = trait_path.clone();
    for seg in &mut used.segments {
        seg.arguments = syn::PathArguments::None;
    }
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    let self_ty = &item.self_ty;
    quote! {
        const _: () = {
            #[allow(unused_imports)]
            use #used as _;
            #outside
            impl #impl_generics #self_ty #where_clause {
                #members
            }
        };
    }
}

/// The name of a primitive type (`f64`, `usize`, `bool`, ...), which
/// cannot have an inherent `impl`.
fn primitive(ty: &syn::Type) -> Option<String> {
    const PRIMITIVES: &[&str] = &[
        "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
        "u128", "usize", "bool", "char", "str",
    ];
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let name = p.path.get_ident()?.to_string();
            PRIMITIVES.contains(&name.as_str()).then_some(name)
        }
        syn::Type::Reference(r) => primitive(&r.elem),
        _ => None,
    }
}

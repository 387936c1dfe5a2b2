//! The generated functions of a function with nalgebra values in its
//! signature (`desugar/nalgebra`): its twin with arrays in their place,
//! `__autodiff_na_<name>`, is differentiated as usual, and each of the
//! twin's public functions (`_grad`, `_vjp`, `_jacobian`, `_jvp`, `_hvp`,
//! `_hessian`, `_trace`) gets a wrapper under the function's own name that
//! converts at the boundary: a nalgebra argument to the array of its
//! entries, column by column (`core::array::from_fn(|k| v[k])`, nalgebra's
//! linear index being column-major), and an array back to the nalgebra
//! type as written (`<Vector3<f64>>::from_column_slice(&g)`, a point
//! `From` its array). The twin and its functions are hidden.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};

use crate::desugar::nalgebra::{Held, NaTy, Plan};

/// What the parts of a generated function's inputs and outputs are.
#[derive(Clone, Copy)]
enum Part {
    /// The function's output (its value, a seed, a directional derivative).
    Output,
    /// The k-th differentiated parameter (a gradient, a tangent, a
    /// direction, an `H·v`).
    Active(usize),
    /// Anything else, passed as it is.
    Other,
}

/// The twin as kept, its generated functions hidden, and a wrapper for
/// each public one.
pub fn wrapped(
    item: &syn::ItemFn,
    plan: &Plan,
    active: &[bool],
    generated: TokenStream,
) -> syn::Result<TokenStream> {
    let file: syn::File = syn::parse2(generated)?;
    let name = item.sig.ident.to_string();
    let twin_name = plan.twin.sig.ident.to_string();
    // The differentiated parameters, in order.
    let active: Vec<usize> = (0..active.len()).filter(|i| active[*i]).collect();
    let mut out = TokenStream::new();
    let mut twin = plan.twin.clone();
    hide(&mut twin.attrs, &twin_name, &name);
    twin.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
    crate::attr::read_checkpoint_counts(&mut twin);
    out.extend(twin.into_token_stream());
    for generated in file.items {
        let syn::Item::Fn(mut f) = generated else {
            out.extend(generated.into_token_stream());
            continue;
        };
        let suffix = f
            .sig
            .ident
            .to_string()
            .strip_prefix(&twin_name)
            .map(str::to_owned);
        if let Some(suffix) = suffix.filter(|s| PUBLIC.contains(&s.as_str())) {
            out.extend(wrapper(item, plan, &f, &suffix, &active));
        }
        hide(&mut f.attrs, &twin_name, &name);
        out.extend(f.into_token_stream());
    }
    Ok(out)
}

/// `ty`, a type of `inner`'s signature, at the function's float type: a
/// function written for `f64` has its second derivatives through a twin
/// generic over its float (`desugar/float_twin`), whose generated
/// functions' types say `T` (`(T, [T; 2], Vec<Vec<T>>)` of `_hessian`)
/// where the wrapper, which is not generic, says `f64`.
fn at_float(ty: &syn::Type, inner: &syn::ItemFn, item: &syn::ItemFn, plan: &Plan) -> syn::Type {
    use syn::visit_mut::VisitMut;
    struct Float<'a>(Vec<&'a syn::Ident>, syn::Type);
    impl VisitMut for Float<'_> {
        fn visit_type_mut(&mut self, t: &mut syn::Type) {
            match t {
                syn::Type::Path(p)
                    if p.qself.is_none()
                        && p.path.get_ident().is_some_and(|i| self.0.contains(&i)) =>
                {
                    *t = self.1.clone();
                }
                _ => syn::visit_mut::visit_type_mut(self, t),
            }
        }
    }
    let own: Vec<&syn::Ident> = item.sig.generics.type_params().map(|p| &p.ident).collect();
    let twin: Vec<&syn::Ident> = inner
        .sig
        .generics
        .type_params()
        .map(|p| &p.ident)
        .filter(|i| !own.contains(i))
        .collect();
    if twin.is_empty() {
        return ty.clone();
    }
    let float = plan
        .params
        .iter()
        .chain([&plan.output])
        .flatten()
        .find_map(|t| t.elem.clone())
        .unwrap_or_else(|| syn::parse_quote!(f64));
    let mut ty = ty.clone();
    Float(twin, float).visit_type_mut(&mut ty);
    ty
}

/// The generated functions a user calls.
const PUBLIC: [&str; 7] = [
    "_grad",
    "_vjp",
    "_jacobian",
    "_jvp",
    "_hvp",
    "_hessian",
    "_trace",
];

/// `#[doc(hidden)]` on a generated item, its doc naming the function.
fn hide(attrs: &mut Vec<syn::Attribute>, twin: &str, name: &str) {
    rename_docs(attrs, twin, name);
    attrs.push(syn::parse_quote!(#[doc(hidden)]));
}

fn rename_docs(attrs: &mut [syn::Attribute], twin: &str, name: &str) {
    for a in attrs.iter_mut() {
        if let syn::Meta::NameValue(nv) = &mut a.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &mut nv.value
            {
                *s = syn::LitStr::new(&s.value().replace(twin, name), s.span());
            }
        }
    }
}

/// The wrapper of `inner`, the twin's `<suffix>` function.
fn wrapper(
    item: &syn::ItemFn,
    plan: &Plan,
    inner: &syn::ItemFn,
    suffix: &str,
    active: &[usize],
) -> TokenStream {
    let n = plan.params.len();
    let k = active.len();
    let na_of = |part: Part| -> Option<&NaTy> {
        match part {
            Part::Output => plan.output.as_ref(),
            Part::Active(i) => plan.params.get(*active.get(i)?)?.as_ref(),
            Part::Other => None,
        }
    };
    // The parts of the extra inputs and of the returned tuple.
    let extra = |i: usize| match suffix {
        "_vjp" => Part::Output,
        "_jvp" | "_hvp" => Part::Active(i),
        _ => Part::Other,
    };
    let returned = |i: usize| match (suffix, i) {
        (_, 0) => Part::Output,
        ("_jvp", 1) => Part::Output,
        ("_grad" | "_vjp" | "_hvp" | "_hessian", i) if i <= k => Part::Active(i - 1),
        ("_hvp", i) if i <= 2 * k => Part::Active(i - 1 - k),
        _ => Part::Other,
    };
    let k_ident = syn::Ident::new("__autodiff_k", Span::mixed_site());
    let v_ident = syn::Ident::new("__autodiff_v", Span::mixed_site());
    // A value's entries; a list's, value by value.
    let i_ident = syn::Ident::new("__autodiff_i", Span::mixed_site());
    let entries = |x: &TokenStream, t: &NaTy| {
        let one = |x: &TokenStream| quote!(::core::array::from_fn(|#k_ident| #x[#k_ident]));
        let each = one(&quote!(#v_ident));
        let list = quote!(#x.iter().map(|#v_ident| #each).collect::<::std::vec::Vec<_>>());
        let nth = one(&quote!(#x[#i_ident]));
        let array = quote!(::core::array::from_fn(|#i_ident| #nth));
        match &t.held {
            Held::One => one(x),
            Held::Slice => quote!(&#list),
            Held::Vec => list,
            Held::Array { lent: false, .. } => array,
            Held::Array { lent: true, .. } => quote!(&#array),
        }
    };
    // An array back to the value, a list of arrays to the list of values
    // (`ty`: the value's type).
    let rebuilt = |x: &TokenStream, t: &NaTy, ty: &syn::Type| {
        let one = |x: &TokenStream| match t.point {
            true => quote!(<#ty as ::core::convert::From<_>>::from(#x)),
            false => quote!(<#ty>::from_column_slice(&#x)),
        };
        let each = one(&quote!(#v_ident));
        match &t.held {
            Held::One => one(x),
            Held::Array { .. } => quote!(#x.map(|#v_ident| #each)),
            _ => quote!(#x.into_iter().map(|#v_ident| #each).collect::<::std::vec::Vec<#ty>>()),
        }
    };
    let mut inputs = Vec::new();
    let mut args = Vec::new();
    for (i, arg) in inner.sig.inputs.iter().enumerate() {
        let syn::FnArg::Typed(p) = arg else { continue };
        let x = format_ident!("__autodiff_a{}", i, span = Span::mixed_site());
        let (ty, na) = match i < n {
            true => {
                let written = item.sig.inputs.iter().nth(i);
                let ty = match written {
                    Some(syn::FnArg::Typed(w)) => (*w.ty).clone(),
                    _ => (*p.ty).clone(),
                };
                (ty, plan.params[i].as_ref())
            }
            false => {
                let na = na_of(extra(i - n));
                let ty = match na.and_then(|_| nalgebra_ty(item, extra(i - n), plan, active, true))
                {
                    Some(t) => t,
                    None => at_float(&p.ty, inner, item, plan),
                };
                (ty, na)
            }
        };
        let name = match (&*p.pat, i < n) {
            (syn::Pat::Ident(pi), _) => {
                let id = syn::Ident::new(&pi.ident.to_string(), pi.ident.span());
                quote!(#id)
            }
            _ => quote!(#x),
        };
        inputs.push(quote!(#name: #ty));
        args.push(match na {
            Some(t) => entries(&name, t),
            None => name,
        });
    }
    let inner_name = &inner.sig.ident;
    let vis = &item.vis;
    let generics = &item.sig.generics;
    let where_clause = &generics.where_clause;
    let public = format_ident!("{}{}", item.sig.ident, suffix);
    let mut attrs = inner.attrs.clone();
    rename_docs(
        &mut attrs,
        &plan.twin.sig.ident.to_string(),
        &item.sig.ident.to_string(),
    );
    // The twin's function called by its own name (`emit/siblings.rs`).
    let own = super::own_item(item, inner);
    let inner_path = match super::in_impl(item) {
        true => quote!(Self::#inner_name),
        false => inner_name.to_token_stream(),
    };
    let call = quote!(#inner_path(#(#args),*));
    let (ret, body) = match &inner.sig.output {
        syn::ReturnType::Type(_, t) => match &**t {
            syn::Type::Tuple(tuple) => {
                let mut tys = Vec::new();
                let mut parts = Vec::new();
                let mut values = Vec::new();
                for (i, elem) in tuple.elems.iter().enumerate() {
                    let x = format_ident!("__autodiff_r{}", i, span = Span::mixed_site());
                    let part = returned(i);
                    match (na_of(part), nalgebra_ty(item, part, plan, active, false)) {
                        (Some(t), Some(ty)) => {
                            values.push(rebuilt(&quote!(#x), t, &ty));
                            tys.push(match &t.held {
                                Held::One => ty.into_token_stream(),
                                Held::Array { len, .. } => quote!([#ty; #len]),
                                _ => quote!(::std::vec::Vec<#ty>),
                            });
                        }
                        _ => {
                            values.push(quote!(#x));
                            tys.push(at_float(elem, inner, item, plan).to_token_stream());
                        }
                    }
                    parts.push(x);
                }
                (
                    quote!((#(#tys),*)),
                    quote! {
                        let (#(#parts),*) = #call;
                        (#(#values),*)
                    },
                )
            }
            other => match (
                na_of(Part::Output),
                nalgebra_ty(item, Part::Output, plan, active, false),
                suffix,
            ) {
                (Some(t), Some(ty), "") => (ty.to_token_stream(), rebuilt(&call, t, &ty)),
                _ => (other.to_token_stream(), call),
            },
        },
        syn::ReturnType::Default => (quote!(()), call),
    };
    quote! {
        #(#attrs)*
        #vis fn #public #generics (#(#inputs),*) -> #ret #where_clause {
            #own
            #body
        }
    }
}

/// The nalgebra type of a part as the signature writes it: the output's,
/// or the k-th differentiated parameter's; a value's type without a
/// reference, and for a list the type of its values, or, where `input`
/// (a tangent, a direction), the list as the parameter is written.
fn nalgebra_ty(
    item: &syn::ItemFn,
    part: Part,
    plan: &Plan,
    active: &[usize],
    input: bool,
) -> Option<syn::Type> {
    let strip = |t: &syn::Type| -> syn::Type {
        let t = match t {
            syn::Type::Reference(r) => &*r.elem,
            other => other,
        };
        let vec_elem = match t {
            syn::Type::Path(p) => match p.path.segments.last() {
                Some(s) if s.ident == "Vec" => match &s.arguments {
                    syn::PathArguments::AngleBracketed(a) => match a.args.first() {
                        Some(syn::GenericArgument::Type(e)) => Some(e.clone()),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        match (t, vec_elem) {
            (syn::Type::Slice(s), _) => (*s.elem).clone(),
            (syn::Type::Array(a), _) => (*a.elem).clone(),
            (_, Some(e)) => e,
            (other, None) => other.clone(),
        }
    };
    match part {
        Part::Output => match &item.sig.output {
            syn::ReturnType::Type(_, t) if plan.output.is_some() => Some(strip(t)),
            _ => None,
        },
        Part::Active(k) => {
            let i = *active.get(k)?;
            let listed = plan.params[i].as_ref()?.held != Held::One;
            match item.sig.inputs.iter().nth(i)? {
                syn::FnArg::Typed(p) if listed && input => Some((*p.ty).clone()),
                syn::FnArg::Typed(p) => Some(strip(&p.ty)),
                syn::FnArg::Receiver(_) => None,
            }
        }
        Part::Other => None,
    }
}

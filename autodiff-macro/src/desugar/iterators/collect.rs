//! A local `Vec` filled from a chain (`let ys = <chain>.collect::<Vec<_>>();`,
//! `xs.to_vec()`, `xs.clone()`) as the loop that fills it.

use super::{chain, value_of, Elems, IsArray};
use crate::desugar::internal::Internal;

/// `let ys = <chain>.collect::<Vec<_>>();` (or with the type on the
/// `let`), `let ys = xs.to_vec();`, `let ys = xs.clone();`: a local array
/// filled by the loop the chain stands for. `None` for anything else (a
/// filtered chain, whose length is not known before it runs, included).
pub fn collected(
    local: &syn::Local,
    is_array: IsArray,
    zero: &syn::Expr,
    names: &Internal,
) -> Option<Vec<syn::Stmt>> {
    let init = local.init.as_ref()?;
    if init.diverge.is_some() {
        return None;
    }
    let syn::Expr::MethodCall(m) = &*init.expr else {
        return None;
    };
    let (name, ty) = match &local.pat {
        syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => (&i.ident, None),
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                (&i.ident, Some(&*t.ty))
            }
            _ => return None,
        },
        _ => return None,
    };
    let source: &syn::Expr = match (m.method.to_string().as_str(), m.args.len()) {
        ("collect", 0) => {
            // Into a `Vec`, said by the turbofish or the `let`'s type.
            // A `Vec` of floats (or of elements whose type is inferred):
            // one of indices, `Vec<usize>`, is not a float array.
            let says_vec = |t: &syn::Type| matches!(t, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Vec" && float_elements(&s.arguments)));
            let turbofish_vec = m.turbofish.as_ref().is_some_and(|t| {
                t.args.len() == 1
                    && matches!(&t.args[0], syn::GenericArgument::Type(t) if says_vec(t))
            });
            if !turbofish_vec && !ty.is_some_and(says_vec) {
                return None;
            }
            &m.receiver
        }
        ("to_vec" | "clone" | "to_owned", 0)
            if matches!(is_array(&m.receiver), Some(Elems::Items | Elems::Parts)) =>
        {
            &m.receiver
        }
        _ => return None,
    };
    let chain = chain(source, is_array)?;
    if !chain.filters.is_empty() {
        return None;
    }
    let (index, acc) = names.fresh_loop();
    let k = syn::Ident::new(&index, m.method.span());
    let k_expr: syn::Expr = syn::parse_quote!(#k);
    let value = value_of((chain.elem)(&k_expr)?)?;
    let count = &chain.count;
    let annot = ty.map(|t| quote::quote!(: #t));
    let count_name = syn::Ident::new(&format!("{acc}_len"), m.method.span());
    // `let mut v = v.to_vec();`: the copy must read the `v` of before, so
    // it is filled under a name of its own, then bound to `v`.
    let mut mentioned = std::collections::HashSet::new();
    crate::desugar::internal::collect_idents(
        quote::ToTokens::to_token_stream(source),
        &mut mentioned,
    );
    let shadows = mentioned.contains(&name.to_string());
    let filled = match shadows {
        true => syn::Ident::new(&format!("{acc}_copy"), name.span()),
        false => name.clone(),
    };
    let mut out: Vec<syn::Stmt> = vec![
        syn::parse_quote!(let #count_name: usize = #count;),
        syn::parse_quote!(let mut #filled #annot = vec![#zero; #count_name];),
        syn::parse_quote!(for #k in 0..#count_name { #filled[#k] = #value; }),
    ];
    if shadows {
        out.push(syn::parse_quote!(let mut #name #annot = #filled;));
    }
    Some(out)
}

/// Whether `Vec`'s type argument, as written, may be a float: `f64`,
/// `f32`, `_`, or a name of the user's (a type parameter), not a primitive
/// of another kind (`usize`, `bool`, `char`, ...), `String`, a reference
/// or a tuple.
pub(crate) fn float_elements(args: &syn::PathArguments) -> bool {
    let syn::PathArguments::AngleBracketed(a) = args else {
        return true;
    };
    match a.args.first() {
        Some(syn::GenericArgument::Type(syn::Type::Infer(_))) | None => true,
        Some(syn::GenericArgument::Type(syn::Type::Path(p))) => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            !matches!(
                name.as_str(),
                "usize"
                    | "isize"
                    | "u8"
                    | "u16"
                    | "u32"
                    | "u64"
                    | "u128"
                    | "i8"
                    | "i16"
                    | "i32"
                    | "i64"
                    | "i128"
                    | "bool"
                    | "char"
                    | "String"
                    | "Vec"
                    | "Option"
            )
        }
        _ => false,
    }
}

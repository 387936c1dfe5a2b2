//! `<name>_jacobian` for a vector output: one forward sweep and a
//! reverse sweep per output when nothing is recorded, else `_vjp` once
//! per output.

use super::*;

/// The row of the Jacobian that the adjoints `g` of the active parameters
/// hold: their entries flattened in order.
pub(super) fn flatten_row(
    f: &Function,
    grads: &[&Param],
    g: &[syn::Ident],
    row: &syn::Ident,
) -> TokenStream {
    grads
        .iter()
        .zip(g)
        .map(
            |(p, g)| match f.value(p.value).ty.array().map(|a| &a.shape) {
                None => quote!(#row.push(#g);),
                Some(Shape::Nested) => quote!(for r in #g.iter() { #row.extend_from_slice(r); }),
                Some(_) => quote!(#row.extend_from_slice(&#g);),
            },
        )
        .collect()
}

/// `<name>_jacobian` for a function whose reverse sweep reads no stack
/// (no loop records a value): the forward sweep once, then, for each
/// output, the reverse sweep seeded with that output's unit vector. The
/// adjoints are declared inside each pass, so every pass starts from zero.
pub(super) fn fused_jacobian_fn(
    item: &syn::ItemFn,
    f: &Function,
    (inputs, seed, locals): (&[TokenStream], &syn::Ident, &[syn::Ident; 4]),
    (forward, reverse, value): (&TokenStream, &TokenStream, &TokenStream),
    grads: &[&Param],
    g: &[syn::Ident],
) -> TokenStream {
    let [out, rows, row, k] = locals;
    let sig = &item.sig;
    let vis = &item.vis;
    let name = format_ident!("{}_jacobian", sig.ident);
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let out_ty = match &sig.output {
        syn::ReturnType::Type(_, t) => t.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let elem = f.float_ident(f.ret_ty);
    let flatten = flatten_row(f, grads, g, row);
    // The row's length: one per scalar, the length of each flat array.
    let width = grads
        .iter()
        .zip(g)
        .map(
            |(p, g)| match f.value(p.value).ty.array().map(|a| &a.shape) {
                None => quote!(1),
                Some(Shape::Nested) => quote!(#g.iter().map(|r| r.len()).sum::<usize>()),
                Some(_) => quote!(#g.len()),
            },
        )
        .reduce(|acc, w| quote!(#acc + #w))
        .unwrap_or_else(|| quote!(0));
    let (z, o) = (zero(f), one(f));
    let passes = match &f.output {
        Output::Tuple(elems) => {
            let n = elems.len();
            (0..n)
                .map(|k| {
                    let unit = (0..n).map(|j| if j == k { o.clone() } else { z.clone() });
                    quote! {{
                        let #seed = (#(#unit),*);
                        #reverse
                        let mut #row = ::std::vec::Vec::with_capacity(#width);
                        #flatten
                        #rows.push(#row);
                    }}
                })
                .collect::<TokenStream>()
        }
        _ => {
            let zeros = match &f.output {
                Output::Array(ArrayTy {
                    shape: Shape::Fixed(m),
                    ..
                }) => {
                    let m: TokenStream = m.parse().unwrap_or_default();
                    quote!([#z; #m])
                }
                _ => quote!(::std::vec![#z; #out.len()]),
            };
            quote! {
                for #k in 0..#out.len() {
                    let mut #seed = #zeros;
                    #seed[#k] = #o;
                    #reverse
                    let mut #row = ::std::vec::Vec::with_capacity(#width);
                    #flatten
                    #rows.push(#row);
                }
            }
        }
    };
    let count = match &f.output {
        Output::Tuple(elems) => {
            let n = elems.len();
            quote!(#n)
        }
        _ => quote!(#out.len()),
    };
    let doc = format!(" Value and Jacobian of [`{}`]: a row per output, a column per active input (flattened in order).", sig.ident);
    let iterator = iterator_in_scope();
    quote! {
        #[doc = #doc]
        #vis fn #name #generics (#(#inputs),*) -> (#out_ty, ::std::vec::Vec<::std::vec::Vec<#elem>>) #where_clause {
            #iterator
            #forward
            let #out = #value;
            let mut #rows = ::std::vec::Vec::with_capacity(#count);
            #passes
            (#out, #rows)
        }
    }
}

/// `<name>_jacobian(args..) -> (value, J)` for a vector output: one row per
/// output, from the vector-Jacobian product with each unit seed, and one
/// column per active input, flattened in order.
pub(super) fn jacobian_fn(
    item: &syn::ItemFn,
    f: &Function,
    (vjp, call): (&syn::Ident, &TokenStream),
    grads: &[&Param],
    [value, rows_, row, k, seed_]: &[syn::Ident; 5],
    g: &[syn::Ident],
) -> TokenStream {
    let sig = &item.sig;
    let vis = &item.vis;
    let name = format_ident!("{}_jacobian", sig.ident);
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let inputs = &sig.inputs;
    let args: Vec<&syn::Ident> = f.params.iter().map(|p| &p.ident).collect();
    let out_ty = match &sig.output {
        syn::ReturnType::Type(_, t) => t.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let elem = f.float_ident(f.ret_ty);
    let flatten = flatten_row(f, grads, g, row);
    let (z, o) = (zero(f), one(f));
    let rows = match &f.output {
        Output::Tuple(elems) => {
            let n = elems.len();
            (0..n)
                .map(|k| {
                    let seed = (0..n).map(|j| if j == k { o.clone() } else { z.clone() });
                    quote! {{
                        let (_, #(#g),*) = #vjp(#(#args,)* (#(#seed),*));
                        let mut #row = ::std::vec::Vec::new();
                        #flatten
                        #rows_.push(#row);
                    }}
                })
                .collect::<TokenStream>()
        }
        _ => {
            let seed = match &f.output {
                Output::Array(ArrayTy {
                    shape: Shape::Fixed(m),
                    ..
                }) => {
                    let m: TokenStream = m.parse().unwrap_or_default();
                    quote!([#z; #m])
                }
                _ => quote!(::std::vec![#z; #value.len()]),
            };
            let pass = match &f.output {
                Output::Array(ArrayTy {
                    shape: Shape::Vec, ..
                }) => quote!(&#seed_),
                _ => quote!(#seed_),
            };
            quote! {
                for #k in 0..#value.len() {
                    let mut #seed_ = #seed;
                    #seed_[#k] = #o;
                    let (_, #(#g),*) = #vjp(#(#args,)* #pass);
                    let mut #row = ::std::vec::Vec::new();
                    #flatten
                    #rows_.push(#row);
                }
            }
        }
    };
    let doc = format!(" Value and Jacobian of [`{}`]: a row per output, a column per active input (flattened in order).", sig.ident);
    let iterator = iterator_in_scope();
    quote! {
        #[doc = #doc]
        #vis fn #name #generics (#inputs) -> (#out_ty, ::std::vec::Vec<::std::vec::Vec<#elem>>) #where_clause {
            #iterator
            let #value = #call(#(#args),*);
            let mut #rows_ = ::std::vec::Vec::new();
            #rows
            (#value, #rows_)
        }
    }
}

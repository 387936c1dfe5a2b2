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
        .map(|(p, g)| {
            let ty = &f.value(p.value).ty;
            // A gradient of another float type than the rows' (an `f64`
            // parameter of a function of `T`), converted.
            let other = match ty {
                Ty::Float(t) => other_float(f, *t),
                Ty::Array(a) => other_float(f, a.elem),
                _ => false,
            };
            let convert = quote!(::autodiff::runtime::float::cast_tangent);
            match (ty.array().map(|a| &a.shape), other) {
                (None, false) => quote!(#row.push(#g);),
                (None, true) => quote!(#row.push(#convert(&#g));),
                (Some(Shape::Nested), false) => {
                    quote!(for r in #g.iter() { #row.extend_from_slice(r); })
                }
                (Some(Shape::Nested), true) => {
                    quote!(for r in #g.iter() { #row.extend(r.iter().map(#convert)); })
                }
                (Some(_), false) => quote!(#row.extend_from_slice(&#g);),
                (Some(_), true) => quote!(#row.extend(#g.iter().map(#convert));),
            }
        })
        .collect()
}

/// The largest Jacobian returned as a fixed-size array, in entries (32 KB
/// of `f64`): beyond it, `Vec<Vec<T>>`, which does not put the matrix on
/// the caller's stack.
const FIXED_ENTRIES: usize = 4096;

/// The Jacobian's rows and columns when both are written in the source as
/// integer literals (every active parameter a float or an array `[T; n]`,
/// the output a tuple or an array `[T; m]`) and the matrix has at most
/// [`FIXED_ENTRIES`] entries: then `_jacobian` returns `[[T; n]; m]`.
pub(super) fn fixed_size(f: &Function, grads: &[&Param]) -> Option<(usize, usize)> {
    let rows = match &f.output {
        Output::Tuple(elems) => elems.len(),
        Output::Array(ArrayTy {
            shape: Shape::Fixed(m),
            ..
        }) => m.parse().ok()?,
        _ => return None,
    };
    let mut columns = 0usize;
    for p in grads {
        columns += match &f.value(p.value).ty {
            Ty::Array(ArrayTy {
                shape: Shape::Fixed(n),
                ..
            }) => n.parse().ok()?,
            Ty::Array(_) | Ty::Composite(_) => return None,
            _ => 1,
        };
    }
    (rows.checked_mul(columns)? <= FIXED_ENTRIES).then_some((rows, columns))
}

/// `n` as an unsuffixed literal, for an index or an array length.
pub(super) fn index(n: usize) -> proc_macro2::Literal {
    proc_macro2::Literal::usize_unsuffixed(n)
}

/// The Jacobian being filled: its type, its declaration, and the code that
/// stores the active parameters' adjoints `g` as row `k`.
pub(super) enum Rows {
    /// `[[T; columns]; rows]`, each adjoint copied to its columns.
    Fixed { rows: usize, columns: usize },
    /// `Vec<Vec<T>>`, a row pushed per output.
    Vec,
}

impl Rows {
    pub(super) fn of(f: &Function, grads: &[&Param]) -> Rows {
        match fixed_size(f, grads) {
            Some((rows, columns)) => Rows::Fixed { rows, columns },
            None => Rows::Vec,
        }
    }

    fn ty(&self, elem: &TokenStream) -> TokenStream {
        match self {
            Rows::Fixed { rows, columns } => {
                let (rows, columns) = (index(*rows), index(*columns));
                quote!([[#elem; #columns]; #rows])
            }
            Rows::Vec => quote!(::std::vec::Vec<::std::vec::Vec<#elem>>),
        }
    }

    /// `let mut rows = ..;`, with room for `count` rows.
    fn declare(&self, f: &Function, rows_: &syn::Ident, count: &TokenStream) -> TokenStream {
        match self {
            Rows::Fixed { rows, columns } => {
                let (z, rows, columns) = (zero(f), index(*rows), index(*columns));
                quote!(let mut #rows_ = [[#z; #columns]; #rows];)
            }
            Rows::Vec => quote!(let mut #rows_ = ::std::vec::Vec::with_capacity(#count);),
        }
    }

    /// Row `k` from the adjoints `g` (a fixed-size row is written in
    /// place; a `Vec` row is built in `row` and pushed, so `k` is unused).
    fn store(
        &self,
        f: &Function,
        (grads, g): (&[&Param], &[syn::Ident]),
        (rows_, row, k): (&syn::Ident, &syn::Ident, &TokenStream),
    ) -> TokenStream {
        match self {
            Rows::Fixed { .. } => {
                let mut at = 0usize;
                let parts = grads
                    .iter()
                    .zip(g)
                    .map(|(p, g)| match &f.value(p.value).ty {
                        Ty::Array(ArrayTy {
                            shape: Shape::Fixed(n),
                            elem,
                            ..
                        }) => {
                            let n: usize = n.parse().unwrap_or_default();
                            let (from, to) = (index(at), index(at + n));
                            at += n;
                            match other_float(f, *elem) {
                                false => quote!(#row[#from..#to].copy_from_slice(&#g);),
                                true => quote! {
                                    for (r, g) in #row[#from..#to].iter_mut().zip(#g.iter()) {
                                        ::autodiff::runtime::float::add_cast(r, *g);
                                    }
                                },
                            }
                        }
                        ty => {
                            let i = index(at);
                            at += 1;
                            match ty {
                                Ty::Float(elem) if other_float(f, *elem) => {
                                    quote!(::autodiff::runtime::float::add_cast(&mut #row[#i], #g);)
                                }
                                _ => quote!(#row[#i] = #g;),
                            }
                        }
                    });
                quote! {{
                    let #row = &mut #rows_[#k];
                    #(#parts)*
                }}
            }
            Rows::Vec => {
                let width = grads
                    .iter()
                    .zip(g)
                    .map(
                        |(p, g)| match f.value(p.value).ty.array().map(|a| &a.shape) {
                            None => quote!(1),
                            Some(Shape::Nested) => {
                                quote!(#g.iter().map(|r| r.len()).sum::<usize>())
                            }
                            Some(_) => quote!(#g.len()),
                        },
                    )
                    .reduce(|acc, w| quote!(#acc + #w))
                    .unwrap_or_else(|| quote!(0));
                let flatten = flatten_row(f, grads, g, row);
                quote! {
                    let mut #row = ::std::vec::Vec::with_capacity(#width);
                    #flatten
                    #rows_.push(#row);
                }
            }
        }
    }
}

/// Outputs of at most this many entries, with the count written as a
/// literal, get one reverse pass each, written out with the unit seed as
/// literals, so that the optimiser removes what a zero seed multiplies.
const UNROLLED_ROWS: usize = 8;

/// The unit seeds of the passes: one per output. A tuple, or an array of
/// at most [`UNROLLED_ROWS`] entries written as a literal, gets its passes
/// written out with the seed's entries as literals (`(k, seed)` pairs);
/// other arrays get one loop over `k` (`None`).
fn unit_seeds(f: &Function) -> Option<Vec<(usize, TokenStream)>> {
    // Typed: an entry no pass reads (a constant output's) has nothing
    // else to infer its type from.
    let (z, o) = match f.generic {
        Some(_) => {
            let (ty, rt) = (f.float_ident(f.ret_ty), quote!(::autodiff::runtime::float));
            (quote!(#rt::zero::<#ty>()), quote!(#rt::one::<#ty>()))
        }
        None => (zero(f), one(f)),
    };
    let unit = |n: usize, k: usize| -> Vec<TokenStream> {
        (0..n)
            .map(|j| if j == k { o.clone() } else { z.clone() })
            .collect()
    };
    match &f.output {
        Output::Tuple(elems) => {
            let n = elems.len();
            Some(
                (0..n)
                    .map(|k| {
                        let u = unit(n, k);
                        (k, quote!((#(#u),*)))
                    })
                    .collect(),
            )
        }
        Output::Array(ArrayTy {
            shape: Shape::Fixed(m),
            ..
        }) => {
            let m: usize = m.parse().ok().filter(|m| *m <= UNROLLED_ROWS)?;
            Some(
                (0..m)
                    .map(|k| {
                        let u = unit(m, k);
                        (k, quote!([#(#u),*]))
                    })
                    .collect(),
            )
        }
        _ => None,
    }
}

/// For each output, `body` (which binds the adjoints `g` of the active
/// parameters) with `seed` bound to that output's unit seed, then the
/// row it gives stored: written out pass by pass where the seeds are
/// literals (`unit_seeds`), else a loop over the entries of `value`.
fn each_output(
    f: &Function,
    rows: &Rows,
    (grads, g): (&[&Param], &[syn::Ident]),
    (rows_, row, k): (&syn::Ident, &syn::Ident, &syn::Ident),
    (seed, value): (&syn::Ident, &syn::Ident),
    body: &TokenStream,
) -> TokenStream {
    match unit_seeds(f) {
        Some(seeds) => seeds
            .into_iter()
            .map(|(k, unit)| {
                let k = index(k);
                let store = rows.store(f, (grads, g), (rows_, row, &quote!(#k)));
                quote! {{
                    let #seed = #unit;
                    #body
                    #store
                }}
            })
            .collect(),
        None => {
            let zeros = zero_seed(f, value);
            let o = one(f);
            let store = rows.store(f, (grads, g), (rows_, row, &quote!(#k)));
            quote! {
                for #k in 0..#value.len() {
                    let mut #seed = #zeros;
                    #seed[#k] = #o;
                    #body
                    #store
                }
            }
        }
    }
}

/// The zero seed of an array output, for the loop over its entries.
fn zero_seed(f: &Function, value: &syn::Ident) -> TokenStream {
    let z = zero(f);
    match &f.output {
        Output::Array(ArrayTy {
            shape: Shape::Fixed(m),
            ..
        }) => {
            let m: TokenStream = m.parse().unwrap_or_default();
            quote!([#z; #m])
        }
        _ => quote!(::std::vec![#z; #value.len()]),
    }
}

/// The signature of `<name>_jacobian`: the function's own parameters
/// (`inputs`), returning the value and the Jacobian as `rows`.
pub(super) fn signature(
    item: &syn::ItemFn,
    f: &Function,
    inputs: TokenStream,
    rows: &Rows,
) -> TokenStream {
    let sig = &item.sig;
    let name = format_ident!("{}_jacobian", sig.ident);
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let out_ty = match &sig.output {
        syn::ReturnType::Type(_, t) => t.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let j = rows.ty(&f.float_ident(f.ret_ty).to_token_stream());
    let doc = format!(" Value and Jacobian of [`{}`]: a row per output, a column per active input (flattened in order).", sig.ident);
    let vis = &item.vis;
    let returned = fallible_ty(f, quote!((#out_ty, #j)));
    quote! {
        #[doc = #doc]
        #[allow(non_snake_case, unused_variables)]
        #vis fn #name #generics (#inputs) -> #returned #where_clause
    }
}

/// `<name>_jacobian` for a function whose reverse sweep reads no stack
/// (no loop records a value): the forward sweep once, then, for each
/// output, the reverse sweep seeded with that output's unit vector. The
/// adjoints are declared inside each pass, so every pass starts from zero.
pub(super) fn fused_jacobian_fn(
    item: &syn::ItemFn,
    f: &Function,
    (inputs, seed, locals): (&[TokenStream], &syn::Ident, &[syn::Ident; 4]),
    (forward, reverse, fast, value): (
        &TokenStream,
        &TokenStream,
        Option<&TokenStream>,
        &TokenStream,
    ),
    grads: &[&Param],
    g: &[syn::Ident],
) -> TokenStream {
    let [out, rows_, row, k] = locals;
    let rows = Rows::of(f, grads);
    let passes = |reverse: &TokenStream| {
        let at = (rows_, row, k);
        each_output(f, &rows, (grads, g), at, (seed, out), reverse)
    };
    let count = match &f.output {
        Output::Tuple(elems) => {
            let n = elems.len();
            quote!(#n)
        }
        _ => quote!(#out.len()),
    };
    let declare = rows.declare(f, rows_, &count);
    // Every pass first without the guard on products and quotients, then,
    // only if an entry came out NaN, every pass again with it (see
    // `grad_fn::first_try`): one check for all rows, so that the passes
    // of the first attempt run without a branch between them.
    let passes = match fast {
        Some(fast) => {
            let (first, again) = (passes(fast), passes(reverse));
            let clear = matches!(rows, Rows::Vec).then(|| quote!(#rows_.clear();));
            let rt = quote!(::autodiff::runtime::float::first_try);
            quote! {
                #first
                if #rows_.iter().any(|r| #rt::any_nan(r)) {
                    #clear
                    #again
                }
            }
        }
        None => passes(reverse),
    };
    let head = signature(item, f, quote!(#(#inputs),*), &rows);
    let iterator = iterator_in_scope(f);
    // An array output is read again by the passes (its adjoint's length):
    // the value returned is a copy.
    let value = match &f.output {
        Output::Array(_) => quote!(::core::clone::Clone::clone(&#value)),
        _ => value.clone(),
    };
    let returned = fallible_value(f, quote!((#out, #rows_)));
    quote! {
        #head {
            #iterator
            #forward
            let #out = #value;
            #declare
            #passes
            #returned
        }
    }
}

/// `<name>_jacobian(args..) -> (value, J)` for a vector output: one row per
/// output, from the vector-Jacobian product with each unit seed, and one
/// column per active input, flattened in order; the value from it at a
/// zero seed (`generated_vjp`: the `_vjp` named `vjp`, as generated,
/// called by its own name: `siblings.rs`).
pub(super) fn jacobian_fn(
    item: &syn::ItemFn,
    f: &Function,
    (vjp, generated_vjp): (&syn::Ident, &TokenStream),
    grads: &[&Param],
    [value, rows_, row, k, seed_]: &[syn::Ident; 5],
    g: &[syn::Ident],
) -> TokenStream {
    let inputs = &item.sig.inputs;
    let args: Vec<&syn::Ident> = f.params.iter().map(|p| &p.ident).collect();
    let rows = Rows::of(f, grads);
    let pass = match &f.output {
        Output::Array(ArrayTy {
            shape: Shape::Vec, ..
        }) => quote!(&#seed_),
        _ => quote!(#seed_),
    };
    let try_ = fallible_try(f);
    let own = own_copy(item, generated_vjp, vjp);
    let vjp = sibling_path(item, vjp);
    let vjp_call = quote!(let (_, #(#g),*) = #vjp(#(#args,)* #pass) #try_;);
    let passes = each_output(
        f,
        &rows,
        (grads, g),
        (rows_, row, k),
        (seed_, value),
        &vjp_call,
    );
    // As many rows as outputs: a tuple's arity, an array's length.
    let count = match &f.output {
        Output::Tuple(elems) => index(elems.len()).into_token_stream(),
        _ => quote!(#value.len()),
    };
    let declare = rows.declare(f, rows_, &count);
    let head = signature(item, f, inputs.to_token_stream(), &rows);
    let iterator = iterator_import();
    let returned = fallible_value(f, quote!((#value, #rows_)));
    // The value (a writer's: what it writes, an array's new contents or
    // several floats' new values, as its `_vjp` returns them).
    let z = zero(f);
    let zero_seed = match &f.output {
        Output::Tuple(elems) => {
            let zs = elems.iter().map(|_| &z);
            quote!((#(#zs),*))
        }
        Output::Array(ArrayTy {
            shape: Shape::Fixed(m),
            ..
        }) => {
            let m: TokenStream = m.parse().unwrap_or_default();
            quote!([#z; #m])
        }
        _ => quote!(&[]),
    };
    let computed = quote!((#vjp(#(#args,)* #zero_seed) #try_).0);
    quote! {
        #head {
            #own
            #iterator
            let #value = #computed;
            #declare
            #passes
            #returned
        }
    }
}

/// Whether a parameter of float type `elem` has a float type other than
/// the output's, whose rows hold its gradient converted (an `f64`
/// parameter of a function of `T`): both stated and different.
fn other_float(f: &Function, elem: FloatTy) -> bool {
    let stated = |t: FloatTy| !matches!(t, FloatTy::Inferred);
    stated(elem) && stated(f.ret_ty) && elem != f.ret_ty
}

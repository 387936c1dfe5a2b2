//! `<name>_jacobian` in forward mode, for a function with `#[grad(jvp)]`
//! whose Jacobian has fewer columns than rows (fewer active scalar inputs
//! than outputs), all sizes written as literals: one `_jvp` per column,
//! its tangents a unit vector, instead of one reverse sweep per row.

use super::*;

/// The forward-mode `_jacobian`, or `None` where reverse mode is the
/// cheaper direction or a size is not written as a literal.
pub(super) fn forward_jacobian_fn(
    item: &syn::ItemFn,
    f: &Function,
    (grads, inputs): (&[&Param], &[TokenStream]),
    generated_jvp: &TokenStream,
    [value, rows_, tangent]: &[syn::Ident; 3],
) -> Option<TokenStream> {
    let (rows, columns) = jacobian::fixed_size(f, grads)?;
    if columns == 0 || columns >= rows || f.fallible.is_some() || !f.lent.is_empty() {
        return None;
    }
    let jvp_name = format_ident!("{}_jvp", item.sig.ident);
    let jvp = sibling_path(item, &jvp_name);
    let own = own_copy(item, generated_jvp, &jvp_name);
    let args: Vec<&syn::Ident> = f.params.iter().map(|p| &p.ident).collect();
    let (z, o) = (zero(f), one(f));
    // The parameters' sizes, in columns, and their written types.
    let sizes: Vec<(usize, bool)> = grads
        .iter()
        .map(|p| {
            let n = match &f.value(p.value).ty {
                Ty::Array(ArrayTy {
                    shape: Shape::Fixed(n),
                    ..
                }) => n.parse().unwrap_or_default(),
                _ => 0,
            };
            (n, matches!(p.ty, syn::Type::Reference(_)))
        })
        .collect();
    let mut passes = TokenStream::new();
    let mut column = 0usize;
    for (p, (n, _)) in grads.iter().zip(&sizes) {
        let width = (*n).max(1);
        for k in 0..width {
            // The unit tangent of this column: one in this parameter's
            // entry `k`, zero in every other parameter's.
            let tangents = grads.iter().zip(&sizes).map(|(q, (m, by_ref))| {
                let here = std::ptr::eq(*q, *p);
                let t = match (*m, here) {
                    (0, true) => o.clone(),
                    (0, false) => z.clone(),
                    (m, true) => {
                        let (m, k) = (index(m), index(k));
                        quote!({ let mut e = [#z; #m]; e[#k] = #o; e })
                    }
                    (m, false) => {
                        let m = index(m);
                        quote!([#z; #m])
                    }
                };
                match (*m > 0, by_ref) {
                    (true, true) => quote!(&#t),
                    _ => t,
                }
            });
            let c = index(column);
            let store = (0..rows).map(|r| {
                let (r, i) = (index(r), index(r));
                match &f.output {
                    Output::Tuple(_) => quote!(#rows_[#r][#c] = #tangent.#i;),
                    _ => quote!(#rows_[#r][#c] = #tangent[#i];),
                }
            });
            // The value from the first pass.
            let kept = match column {
                0 => value.to_token_stream(),
                _ => quote!(_),
            };
            passes.extend(quote! {
                let (#kept, #tangent) = #jvp(#(#args,)* #(#tangents),*);
                #(#store)*
            });
            column += 1;
        }
    }
    let head = jacobian::signature(item, f, quote!(#(#inputs),*), &jacobian::Rows::of(f, grads));
    let iterator = iterator_import();
    let (r, cl) = (index(rows), index(columns));
    Some(quote! {
        #head {
            #own
            #iterator
            let mut #rows_ = [[#z; #cl]; #r];
            #passes
            (#value, #rows_)
        }
    })
}

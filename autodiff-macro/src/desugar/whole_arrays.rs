//! Whole-array changes as element stores: the ways a time loop replaces
//! its state.
//!
//! ```text
//! u = next;                        u = step(&u, k);       s = [a, b];
//! u.copy_from_slice(&next);        u.fill(0.0);           std::mem::swap(&mut u, &mut next);
//! u.swap_with_slice(&mut next);
//! ```
//!
//! A modelled array is memory that the IR changes element by element
//! (`Inst::Store`), with an adjoint array beside it; so each of these is
//! rewritten into the stores it stands for, whose reverse the sweep
//! already has (`d_next[k] += d_u[k]; d_u[k] = 0`), and a carried array
//! needs nothing a carried element does not. `u = next` copies where the
//! function moved, which costs one pass over the array per assignment in
//! the generated code only. A `Vec` that changes its length this way
//! would leave its adjoint the wrong length: the rewrite checks, and the
//! generated code panics with the array's name
//! (`runtime::array::keeps_length`).

use syn::parse_quote;

use super::internal::Internal;

/// What a rewrite needs to know of a name: whether it is a float array
/// the macro models element by element (not nested).
pub type IsArray<'a> = &'a dyn Fn(&syn::Expr) -> Option<syn::Ident>;

/// The statements that `array = rhs;` stands for, `array` a modelled
/// array.
pub fn assign(
    array: &syn::Ident,
    rhs: &syn::Expr,
    is_array: IsArray,
    names: &Internal,
) -> Vec<syn::Stmt> {
    let name = array.to_string();
    match strip(rhs) {
        // `s = [a, b]`, `u = vec![a, b]`: the items first, as they may read
        // the array, then one store each.
        syn::Expr::Array(list) => items(array, list.elems.iter().collect(), names),
        syn::Expr::Macro(m) if is_vec_macro(&m.mac) => {
            match m.mac.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            ) {
                Ok(list) => items(array, list.iter().collect(), names),
                Err(_) => match m.mac.parse_body::<RepeatBody>() {
                    Ok(RepeatBody(value, len)) => fill(array, &value, Some(&len), names),
                    Err(_) => copy(array, rhs, &name, is_array, names),
                },
            }
        }
        syn::Expr::Repeat(r) => fill(array, &r.expr, None, names),
        _ => copy(array, rhs, &name, is_array, names),
    }
}

/// `array.copy_from_slice(&from)`, `array.clone_from_slice(&from)`,
/// `array.fill(value)`: the statements they stand for, or `None` for
/// another method.
pub fn method(
    array: &syn::Ident,
    m: &syn::ExprMethodCall,
    is_array: IsArray,
    names: &Internal,
) -> Option<Vec<syn::Stmt>> {
    if m.args.len() != 1 {
        return None;
    }
    let arg = &m.args[0];
    match m.method.to_string().as_str() {
        "copy_from_slice" | "clone_from_slice" => {
            let from = array_of(arg, is_array)?;
            Some(copy_from(array, &from, names))
        }
        "fill" => Some(fill(array, arg, None, names)),
        // `u.swap_with_slice(&mut next)`: as `std::mem::swap`.
        "swap_with_slice" => {
            let other = match strip(arg) {
                syn::Expr::Reference(r) if r.mutability.is_some() => array_of(&r.expr, is_array)?,
                _ => return None,
            };
            Some(swapped(array, &other, names))
        }
        _ => None,
    }
}

/// Whether `c` calls `std::mem::swap` by a path that says so
/// (`core::mem::swap`, `mem::swap`).
pub fn is_mem_swap(c: &syn::ExprCall) -> bool {
    // Not a bare `swap(..)`, which may be a function of the user's that
    // does something else (trial 11: `fn swap(a: &mut Vec<f64>, b: &mut
    // Vec<f64>)` adding `b` into `a` was differentiated as an exchange,
    // silently); refused by `lower/stmt.rs`.
    mem_fn(c, "swap") == Some(true)
}

/// Whether `c` calls the function `name` of `std::mem` (`core::mem::name`,
/// `mem::name`, or `name` bare): `Some(true)` where the path says so,
/// `Some(false)` for the bare name, which may be the user's own.
pub fn mem_fn(c: &syn::ExprCall, name: &str) -> Option<bool> {
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    if p.qself.is_some() {
        return None;
    }
    let segments: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    match segments.as_slice() {
        [f] => (*f == name).then_some(false),
        ["mem", f] | ["std" | "core", "mem", f] => (*f == name).then_some(true),
        _ => None,
    }
}

/// `std::mem::swap(&mut a, &mut b)` (`core::mem::swap`, `mem::swap`)
/// of two modelled arrays: the element swaps, or `None` for any other
/// call.
pub fn swap(c: &syn::ExprCall, is_array: IsArray, names: &Internal) -> Option<Vec<syn::Stmt>> {
    let is_swap = is_mem_swap(c);
    if !is_swap || c.args.len() != 2 {
        return None;
    }
    let lent = |e: &syn::Expr| match strip(e) {
        syn::Expr::Reference(r) if r.mutability.is_some() => is_array(&r.expr),
        _ => None,
    };
    let a = lent(&c.args[0])?;
    let b = lent(&c.args[1])?;
    Some(swapped(&a, &b, names))
}

/// `a` and `b` trading their elements, one by one.
fn swapped(a: &syn::Ident, b: &syn::Ident, names: &Internal) -> Vec<syn::Stmt> {
    if a == b {
        return Vec::new();
    }
    let (k, held) = names.fresh_loop();
    let k = syn::Ident::new(&k, a.span());
    let held = syn::Ident::new(&held, a.span());
    let name = a.to_string();
    vec![
        parse_quote!(::autodiff::runtime::array::keeps_length(#a.len(), #b.len(), #name);),
        parse_quote!(for #k in 0..#a.len() {
            let #held = #a[#k];
            #a[#k] = #b[#k];
            #b[#k] = #held;
        }),
    ]
}

/// `array = rhs` for any other `rhs`: another array copied, or a value
/// (a callee's result, `step(&u)`) bound first and copied element by
/// element.
fn copy(
    array: &syn::Ident,
    rhs: &syn::Expr,
    name: &str,
    is_array: IsArray,
    names: &Internal,
) -> Vec<syn::Stmt> {
    if let Some(from) = array_of(rhs, is_array) {
        return copy_from(array, &from, names);
    }
    let (k, value) = names.fresh_loop();
    let k = syn::Ident::new(&k, array.span());
    // A variable (a callee's result bound by the user) is read in place,
    // so that its reads are reads of the call's result.
    let (bind, value): (Option<syn::Stmt>, syn::Expr) = match strip(rhs) {
        syn::Expr::Path(p) if p.path.get_ident().is_some() => (None, rhs.clone()),
        // `u = state.u` (a field of a call's struct, `s.u = next.u`): read
        // in place too, its elements parts of that value.
        syn::Expr::Field(f) if matches!(&*f.base, syn::Expr::Path(_)) => (None, rhs.clone()),
        // `u.iter().map(..).collect()`: into a `Vec`, as the array is.
        syn::Expr::MethodCall(m) if m.method == "collect" && m.turbofish.is_none() => {
            let value = syn::Ident::new(&value, array.span());
            (
                Some(parse_quote!(let #value: ::std::vec::Vec<_> = #rhs;)),
                parse_quote!(#value),
            )
        }
        _ => {
            let value = syn::Ident::new(&value, array.span());
            (Some(parse_quote!(let #value = #rhs;)), parse_quote!(#value))
        }
    };
    let mut out: Vec<syn::Stmt> = bind.into_iter().collect();
    out.push(
        parse_quote!(::autodiff::runtime::array::keeps_length(#array.len(), #value.len(), #name);),
    );
    out.push(parse_quote!(for #k in 0..#array.len() { #array[#k] = #value[#k]; }));
    out
}

/// `array`'s elements set to `from`'s.
fn copy_from(array: &syn::Ident, from: &syn::Ident, names: &Internal) -> Vec<syn::Stmt> {
    if array == from {
        return Vec::new();
    }
    let (k, _) = names.fresh_loop();
    let k = syn::Ident::new(&k, array.span());
    let name = array.to_string();
    vec![
        parse_quote!(::autodiff::runtime::array::keeps_length(#array.len(), #from.len(), #name);),
        parse_quote!(for #k in 0..#array.len() { #array[#k] = #from[#k]; }),
    ]
}

/// Every element of `array` set to `value` (`len`: the length the source
/// gives, checked against the array's).
fn fill(
    array: &syn::Ident,
    value: &syn::Expr,
    len: Option<&syn::Expr>,
    names: &Internal,
) -> Vec<syn::Stmt> {
    let (k, held) = names.fresh_loop();
    let k = syn::Ident::new(&k, array.span());
    let held = syn::Ident::new(&held, array.span());
    let name = array.to_string();
    let mut out: Vec<syn::Stmt> = vec![parse_quote!(let #held = #value;)];
    if let Some(n) = len {
        out.push(parse_quote!(::autodiff::runtime::array::keeps_length(#array.len(), #n, #name);));
    }
    out.push(parse_quote!(for #k in 0..#array.len() { #array[#k] = #held; }));
    out
}

/// `array = [a, b, ..]`: each item bound, then stored.
fn items(array: &syn::Ident, items: Vec<&syn::Expr>, names: &Internal) -> Vec<syn::Stmt> {
    let name = array.to_string();
    let n = items.len();
    let mut out: Vec<syn::Stmt> =
        vec![parse_quote!(::autodiff::runtime::array::keeps_length(#array.len(), #n, #name);)];
    let mut held = Vec::new();
    for item in &items {
        let (_, h) = names.fresh_loop();
        let h = syn::Ident::new(&h, array.span());
        out.push(parse_quote!(let #h = #item;));
        held.push(h);
    }
    for (i, h) in held.iter().enumerate() {
        let i = proc_macro2::Literal::usize_unsuffixed(i);
        out.push(parse_quote!(#array[#i] = #h;));
    }
    out
}

/// The modelled array `e` names, as itself or copied (`next`, `&next`,
/// `next.clone()`, `next.to_vec()`, `next.to_owned()`, `&next[..]`).
fn array_of(e: &syn::Expr, is_array: IsArray) -> Option<syn::Ident> {
    match strip(e) {
        syn::Expr::Reference(r) if r.mutability.is_none() => array_of(&r.expr, is_array),
        syn::Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "clone" | "to_vec" | "to_owned"
                ) =>
        {
            array_of(&m.receiver, is_array)
        }
        syn::Expr::Index(i) if matches!(strip(&i.index), syn::Expr::Range(r) if r.start.is_none() && r.end.is_none()) => {
            array_of(&i.expr, is_array)
        }
        other => is_array(other),
    }
}

fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

fn is_vec_macro(m: &syn::Macro) -> bool {
    m.path.segments.last().is_some_and(|s| s.ident == "vec")
}

/// `value; len`, the body of `vec![value; len]`.
struct RepeatBody(syn::Expr, syn::Expr);

impl syn::parse::Parse for RepeatBody {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let value: syn::Expr = input.parse()?;
        input.parse::<syn::Token![;]>()?;
        let len: syn::Expr = input.parse()?;
        Ok(RepeatBody(value, len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn names() -> Internal {
        Internal::new(quote!(
            fn f() {}
        ))
    }

    fn arrays(e: &syn::Expr) -> Option<syn::Ident> {
        match e {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .filter(|i| *i == "u" || *i == "next")
                .cloned(),
            _ => None,
        }
    }

    fn text(stmts: &[syn::Stmt]) -> String {
        stmts
            .iter()
            .map(|s| quote!(#s).to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn an_array_given_another_copies_its_elements() {
        let u: syn::Ident = parse_quote!(u);
        let out = text(&assign(&u, &parse_quote!(next), &arrays, &names()));
        assert!(
            out.contains("keeps_length (u . len () , next . len () , \"u\")"),
            "{out}"
        );
        assert!(out.contains("u [") && out.contains("] = next ["), "{out}");
    }

    #[test]
    fn a_callee_result_is_bound_then_copied() {
        let u: syn::Ident = parse_quote!(u);
        let out = text(&assign(&u, &parse_quote!(step(&u, k)), &arrays, &names()));
        assert!(out.starts_with("let "), "{out}");
        assert!(out.contains("= step (& u , k) ;"), "{out}");
    }

    #[test]
    fn a_list_binds_every_item_before_storing() {
        let u: syn::Ident = parse_quote!(u);
        let out = text(&assign(&u, &parse_quote!([u[1], u[0]]), &arrays, &names()));
        let first_store = out.find("u [0] =").expect("a store");
        assert!(
            out.find("= u [0] ;").expect("a read") < first_store,
            "{out}"
        );
    }

    #[test]
    fn swap_swaps_elements_and_other_calls_are_left() {
        let c: syn::ExprCall = parse_quote!(std::mem::swap(&mut u, &mut next));
        let out = text(&swap(&c, &arrays, &names()).expect("a swap"));
        assert!(out.contains("u [") && out.contains("next ["), "{out}");
        let c: syn::ExprCall = parse_quote!(std::mem::replace(&mut u, &mut next));
        assert!(swap(&c, &arrays, &names()).is_none());
    }
}

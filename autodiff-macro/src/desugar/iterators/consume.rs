//! The consumers of a chain that reduce it to one value, as the loops
//! they stand for: `sum`, `product`, `fold` (`reduction`), and `max_by`,
//! `min_by`, `max`/`min` through `fold(f64::max)` (`extremum`).

use super::*;

/// A consumer of a chain as the loop it stands for, a block expression:
/// `sum`, `product`, `fold(init, |acc, p| e)`, `fold(init, f64::max)`.
pub fn reduction(
    m: &syn::ExprMethodCall,
    is_array: IsArray,
    (zero, one, fold_float): (&syn::Expr, &syn::Expr, Option<&syn::Type>),
    names: &Internal,
) -> Option<syn::Expr> {
    // `sum::<usize>()`: integers, which the code as written computes.
    if let Some(t) = &m.turbofish {
        let integer = t.args.iter().any(|a| {
            matches!(a, syn::GenericArgument::Type(syn::Type::Path(p))
                if p.path.get_ident().is_some_and(|i| crate::lower::is_known_constant_type(&i.to_string())))
        });
        if integer {
            return None;
        }
    }
    let (index, acc) = names.fresh_loop();
    let k = syn::Ident::new(&index, m.method.span());
    let acc = syn::Ident::new(&acc, m.method.span());
    let k_expr: syn::Expr = syn::parse_quote!(#k);
    let chain = chain(&m.receiver, is_array)?;
    let elem = (chain.elem)(&k_expr)?;
    let count = &chain.count;
    if let (true, [syn::Expr::Tuple(init), syn::Expr::Closure(c)]) = (
        m.method == "fold",
        m.args.iter().collect::<Vec<_>>().as_slice(),
    ) {
        return tuple_fold(init, c, &chain, (&k, &acc), elem);
    }
    let (init, step): (syn::Expr, syn::Expr) = match (m.method.to_string().as_str(), m.args.len()) {
        ("sum", 0) => {
            let item = value_of(elem)?;
            (zero.clone(), syn::parse_quote!(#acc + #item))
        }
        ("product", 0) => {
            let item = value_of(elem)?;
            (one.clone(), syn::parse_quote!(#acc * #item))
        }
        ("fold", 2) => {
            let init = m.args[0].clone();
            (init, combined(&m.args[1], &acc, elem)?)
        }
        _ => return None,
    };
    let update: syn::Expr = syn::parse_quote!(#acc = #step);
    let body = filtered(&chain.filters, &k_expr, syn::parse_quote!({ #update; }))?;
    // `sum::<f64>()`: the accumulator has the type the turbofish says;
    // `fold(0.0, ..)`, the float type the caller found for it.
    let annot = m
        .turbofish
        .as_ref()
        .and_then(|t| match t.args.first() {
            Some(syn::GenericArgument::Type(ty)) if t.args.len() == 1 => Some(quote::quote!(: #ty)),
            _ => None,
        })
        .or_else(|| fold_float.map(|t| quote::quote!(: #t)));
    Some(syn::parse_quote!({
        let mut #acc #annot = #init;
        for #k in 0..#count {
            #(#body)*
        }
        #acc
    }))
}

/// `fold((0.0, 0.0), |(s, s2), &x| (s + x, s2 + x * x))`: one accumulator
/// per element of the tuple, the closure's tuple pattern bound to them at
/// each iteration and its tuple (a literal, or branches ending in tuples)
/// assigned back; the value is their tuple, for a `let (a, b) = ..` to
/// bind. `None` for a closure whose accumulator is not a tuple pattern of
/// the same length.
fn tuple_fold(
    init: &syn::ExprTuple,
    c: &syn::ExprClosure,
    chain: &Chain,
    (k, acc): (&syn::Ident, &syn::Ident),
    elem: Elem,
) -> Option<syn::Expr> {
    let n = init.elems.len();
    let (2, Some(syn::Pat::Tuple(pat))) = (c.inputs.len(), c.inputs.first()) else {
        return None;
    };
    if pat.elems.len() != n {
        return None;
    }
    let accs: Vec<syn::Ident> = (0..n)
        .map(|j| syn::Ident::new(&format!("{acc}_{j}"), acc.span()))
        .collect();
    let next: Vec<syn::Ident> = (0..n)
        .map(|j| syn::Ident::new(&format!("{acc}_next{j}"), acc.span()))
        .collect();
    let (stmts, body) = bind(&c.inputs[1], elem, &c.body)?;
    let inits = init.elems.iter();
    let k_expr: syn::Expr = syn::parse_quote!(#k);
    let step = filtered(
        &chain.filters,
        &k_expr,
        syn::parse_quote!({
            let #pat = (#(#accs),*);
            #(#stmts)*
            let (#(#next),*) = #body;
            #(#accs = #next;)*
        }),
    )?;
    let count = &chain.count;
    Some(syn::parse_quote!({
        #(let mut #accs = #inits;)*
        for #k in 0..#count {
            #(#step)*
        }
        (#(#accs),*)
    }))
}

/// `chain.max_by(cmp).unwrap()` and `chain.min_by(cmp).unwrap()` (with
/// `.copied()` or `.cloned()` before the `unwrap`, or `max_by` on a chain of
/// copies): the element the comparator picks, as the loop it stands for.
/// As in `std`, on a tie `max_by` keeps the last of the equal elements and
/// `min_by` the first; the adjoint goes to that element alone. An empty
/// chain panics, as `unwrap` of `None` does.
pub fn extremum(m: &syn::ExprMethodCall, is_array: IsArray, names: &Internal) -> Option<syn::Expr> {
    if m.method != "unwrap" || !m.args.is_empty() {
        return None;
    }
    let mut inner = &*m.receiver;
    if let syn::Expr::MethodCall(c) = inner {
        if (c.method == "copied" || c.method == "cloned") && c.args.is_empty() {
            inner = &c.receiver;
        }
    }
    let syn::Expr::MethodCall(by) = inner else {
        return None;
    };
    if by.method == "reduce" {
        return reduced(by, is_array, names);
    }
    let is_max = match by.method.to_string().as_str() {
        "max_by" => true,
        "min_by" => false,
        _ => return None,
    };
    let [syn::Expr::Closure(cmp)] = by.args.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    if cmp.inputs.len() != 2 {
        return None;
    }
    let chain = chain(&by.receiver, is_array)?;
    if !chain.filters.is_empty() {
        return None;
    }
    let (index, best) = names.fresh_loop();
    let k = syn::Ident::new(&index, m.method.span());
    let best = syn::Ident::new(&best, m.method.span());
    let cand = syn::Ident::new(&format!("{best}_next"), m.method.span());
    let first = value_of((chain.elem)(&syn::parse_quote!(0))?)?;
    let next = value_of((chain.elem)(&syn::parse_quote!(#k))?)?;
    let count = &chain.count;
    // The comparator on (candidate, best so far), each by reference, in
    // one call kept as written (it orders; it carries no derivative).
    let order: syn::Expr = syn::parse_quote!(::autodiff::runtime::order(#cmp, &#cand, &#best));
    // max_by: a candidate not less than the best replaces it (the last of
    // equals wins); min_by: only one less than it does (the first wins).
    let replace: syn::Expr = match is_max {
        true => syn::parse_quote!(#order != ::core::cmp::Ordering::Less),
        false => syn::parse_quote!(#order == ::core::cmp::Ordering::Less),
    };
    Some(syn::parse_quote!({
        if #count == 0 {
            ::core::panic!("called `Option::unwrap()` on a `None` value");
        }
        let mut #best = #first;
        for #k in 1..#count {
            let #cand = #next;
            if #replace {
                #best = #cand;
            }
        }
        #best
    }))
}

/// `chain.reduce(f).unwrap()` over a chain of values (`.copied()`,
/// `.cloned()`, `.map(..)` before the `reduce`), `f` a closure of two
/// (`|a, b| a.max(b)`) or a path (`f64::max`): the first element, then
/// `f` of the result so far and each next one, as the loop it stands
/// for. An empty chain panics, as `unwrap` of `None` does.
fn reduced(by: &syn::ExprMethodCall, is_array: IsArray, names: &Internal) -> Option<syn::Expr> {
    let syn::Expr::MethodCall(source) = &*by.receiver else {
        return None;
    };
    if !matches!(
        source.method.to_string().as_str(),
        "copied" | "cloned" | "map"
    ) {
        return None;
    }
    let [f] = by.args.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let chain = chain(&by.receiver, is_array)?;
    if !chain.filters.is_empty() {
        return None;
    }
    let (index, acc) = names.fresh_loop();
    let k = syn::Ident::new(&index, by.method.span());
    let acc = syn::Ident::new(&acc, by.method.span());
    let first = value_of((chain.elem)(&syn::parse_quote!(0))?)?;
    let next = (chain.elem)(&syn::parse_quote!(#k))?;
    let step = combined(f, &acc, next)?;
    let count = &chain.count;
    Some(syn::parse_quote!({
        if #count == 0 {
            ::core::panic!("called `Option::unwrap()` on a `None` value");
        }
        let mut #acc = #first;
        for #k in 1..#count {
            #acc = #step;
        }
        #acc
    }))
}

/// The result so far, `acc`, combined with the element `elem` by `f`, a
/// `fold`'s or a `reduce`'s: a closure of two (`|a, &x| a + x * x`, its
/// accumulator bound to `acc` and its element by its pattern) or a path
/// (`f64::max`).
fn combined(f: &syn::Expr, acc: &syn::Ident, elem: Elem) -> Option<syn::Expr> {
    match f {
        syn::Expr::Closure(c) if c.inputs.len() == 2 => {
            let a = &c.inputs[0];
            let (stmts, body) = bind(&c.inputs[1], elem, &c.body)?;
            let first: syn::Stmt = syn::parse_quote!(let #a = #acc;);
            Some(block_expr(
                std::iter::once(first).chain(stmts).collect(),
                Some(body),
            ))
        }
        syn::Expr::Path(f) => {
            let item = value_of(elem)?;
            Some(syn::parse_quote!(#f(#acc, #item)))
        }
        _ => None,
    }
}

//! Iterator forms over float arrays rewritten into the index loops they
//! stand for (`for x in xs`, `xs.iter().map(..).sum()`, `fold`). Which
//! names are float arrays is the caller's to say (`is_array`).

/// Whether an expression names a float array the lowering models.
pub type IsArray<'a> = &'a dyn Fn(&syn::Expr) -> bool;

/// The names a reduction's closure gives the elements: `|v|`, `|&v|`,
/// `|(a, b)|`, `|(&a, &b)|`.
pub fn closure_names(input: &syn::Pat, count: usize) -> Option<Vec<syn::Pat>> {
    let strip = |p: &syn::Pat| -> syn::Pat {
        match p {
            syn::Pat::Reference(r) => (*r.pat).clone(),
            syn::Pat::Type(t) => (*t.pat).clone(),
            other => other.clone(),
        }
    };
    match (strip(input), count) {
        (syn::Pat::Tuple(t), n) if t.elems.len() == n && n > 1 => {
            Some(t.elems.iter().map(strip).collect())
        }
        (p @ syn::Pat::Ident(_), 1) => Some(vec![p]),
        _ => None,
    }
}

/// `xs`, `xs.iter()`, `xs.iter().copied()`, `xs.iter().cloned()`,
/// `xs.iter().enumerate()`: the array expression, and whether enumerated.
pub fn slice_iter(e: &syn::Expr) -> Option<(&syn::Expr, bool)> {
    match e {
        syn::Expr::Path(_) => Some((e, false)),
        syn::Expr::Reference(r) => slice_iter(&r.expr),
        syn::Expr::Paren(p) => slice_iter(&p.expr),
        syn::Expr::MethodCall(m) if m.args.is_empty() && m.turbofish.is_none() => {
            let (inner, enumerated) = slice_iter(&m.receiver)?;
            match m.method.to_string().as_str() {
                "iter" | "into_iter" | "copied" | "cloned" if !enumerated => Some((inner, false)),
                "enumerate" if !enumerated => Some((inner, true)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A loop over a modelled array (`for x in xs`, `for &x in xs.iter()`,
/// `for (i, x) in xs.iter().enumerate()`, with `.copied()` or
/// `.cloned()`), as the index loop it is: `for i in 0..xs.len()`, with
/// `let x = xs[i];` first in the body.
pub fn slice_loop(
    l: &syn::ExprForLoop,
    is_array: IsArray,
    names: &crate::desugar::internal::Internal,
) -> Option<syn::ExprForLoop> {
    let (array, enumerate) = slice_iter(&l.expr)?;
    is_array(array).then_some(())?;
    let (index, element) = match (&*l.pat, enumerate) {
        (syn::Pat::Tuple(t), true) if t.elems.len() == 2 => {
            (Some(t.elems[0].clone()), t.elems[1].clone())
        }
        (pat, false) => (None, pat.clone()),
        _ => return None,
    };
    let element = match element {
        syn::Pat::Reference(r) => *r.pat,
        other => other,
    };
    let syn::Pat::Ident(_) = &element else {
        return None;
    };
    let index = match index {
        Some(syn::Pat::Ident(i)) => i.ident,
        Some(syn::Pat::Wild(_)) | None => syn::Ident::new(&names.index, l.for_token.span),
        Some(_) => return None,
    };
    let body = &l.body.stmts;
    Some(syn::parse_quote! {
        for #index in 0..#array.len() {
            let #element = #array[#index];
            #(#body)*
        }
    })
}

/// The reductions Rust users write over float arrays, as the loops they
/// are (block expressions lowered like the user's own code):
/// `xs.iter().sum()`, `xs.iter().map(|v| e).sum()`,
/// `xs.iter().zip(ys).map(|(a, b)| e).sum()`,
/// `xs.iter().fold(init, |acc, v| e)` and
/// `xs.iter().cloned().fold(init, f64::max)`.
pub fn reduction(
    m: &syn::ExprMethodCall,
    is_array: IsArray,
    zero: &syn::Expr,
    names: &crate::desugar::internal::Internal,
) -> Option<syn::Expr> {
    let i = syn::Ident::new(&names.index, m.method.span());
    let acc = syn::Ident::new(&names.acc, m.method.span());
    let elem = syn::Ident::new(&names.elem, m.method.span());
    // The element bindings and the expression of the iterator chain.
    let (bindings, item, len): (Vec<syn::Stmt>, syn::Expr, syn::Expr) = {
        let (source, map) = match &*m.receiver {
            syn::Expr::MethodCall(map) if map.method == "map" && map.args.len() == 1 => {
                (&*map.receiver, Some(&map.args[0]))
            }
            other => (other, None),
        };
        let arrays = zipped_arrays(source, is_array)?;
        let names: Vec<syn::Pat> = match map {
            Some(syn::Expr::Closure(c)) if c.inputs.len() == 1 => {
                closure_names(&c.inputs[0], arrays.len())?
            }
            Some(_) => return None,
            None if arrays.len() == 1 => vec![syn::parse_quote!(#elem)],
            None => return None,
        };
        let bindings = names
            .iter()
            .zip(&arrays)
            .map(|(n, a)| syn::parse_quote!(let #n = #a[#i];))
            .collect();
        let item: syn::Expr = match map {
            Some(syn::Expr::Closure(c)) => (*c.body).clone(),
            _ => syn::parse_quote!(#elem),
        };
        let first = arrays[0];
        let len = arrays[1..].iter().fold(
            syn::parse_quote!(#first.len()),
            |l: syn::Expr, a| syn::parse_quote!(#l.min(#a.len())),
        );
        (bindings, item, len)
    };
    match (m.method.to_string().as_str(), m.args.len()) {
        ("sum", 0) => Some(syn::parse_quote!({
            let mut #acc = #zero;
            for #i in 0..#len {
                #(#bindings)*
                #acc += #item;
            }
            #acc
        })),
        ("fold", 2) => {
            let init = &m.args[0];
            let step: syn::Expr = match &m.args[1] {
                syn::Expr::Closure(c) if c.inputs.len() == 2 => {
                    let a = closure_names(&c.inputs[0], 1)?.remove(0);
                    let v = closure_names(&c.inputs[1], 1)?.remove(0);
                    let body = &c.body;
                    syn::parse_quote!({ let #a = #acc; let #v = #item; #body })
                }
                syn::Expr::Path(f) => syn::parse_quote!(#f(#acc, #item)),
                _ => return None,
            };
            Some(syn::parse_quote!({
                let mut #acc = #init;
                for #i in 0..#len {
                    #(#bindings)*
                    #acc = #step;
                }
                #acc
            }))
        }
        _ => None,
    }
}

/// `xs.iter()` (with `.copied()`/`.cloned()`) or
/// `xs.iter().zip(ys)` (`ys.iter()`, `&ys`) over modelled arrays.
pub fn zipped_arrays<'e>(e: &'e syn::Expr, is_array: IsArray) -> Option<Vec<&'e syn::Expr>> {
    match e {
        syn::Expr::MethodCall(z) if z.method == "zip" && z.args.len() == 1 => {
            let mut left = zipped_arrays(&z.receiver, is_array)?;
            let (right, false) = slice_iter(&z.args[0])? else {
                return None;
            };
            is_array(right).then_some(())?;
            left.push(right);
            Some(left)
        }
        other => {
            let (array, false) = slice_iter(other)? else {
                return None;
            };
            if matches!(other, syn::Expr::Path(_)) {
                return None;
            }
            is_array(array).then_some(())?;
            Some(vec![array])
        }
    }
}

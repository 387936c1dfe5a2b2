//! `if let` as the `match` it stands for:
//! `if let P = e { a } else { b }` is `match e { P => { a } _ => { b } }`,
//! so that it branches, binds and merges as a `match` does; and `while let`
//! as the `loop` it stands for.

/// The `match` that `if let P = e { .. } else { .. }` is; `None` for an
/// `if` whose condition is not a lone `let` (`if let .. && c` chains).
pub fn as_match(x: &syn::ExprIf) -> Option<syn::ExprMatch> {
    let syn::Expr::Let(l) = &*x.cond else {
        return None;
    };
    let pat = &*l.pat;
    let scrutinee = &*l.expr;
    let then = &x.then_branch;
    let otherwise: syn::Expr = match &x.else_branch {
        Some((_, e)) => (**e).clone(),
        None => syn::parse_quote!({}),
    };
    Some(syn::parse_quote! {
        match #scrutinee {
            #pat => #then,
            _ => #otherwise,
        }
    })
}

/// `while let P = e { body }` as
///
/// ```text
/// loop {
///     let next = e;
///     let go = matches!(&next, P);
///     if !go { break; }
///     match next { P => { body } _ => {} }
/// }
/// ```
///
/// a `loop` whose `break` ends a branch of an `if`, and whose body is a
/// `match` on a value that carries no derivative. `next` is a name of the
/// macro's. `None` for another `while`, or a labelled one.
pub fn while_let_as_loop(w: &syn::ExprWhile, next: &syn::Ident) -> Option<syn::ExprLoop> {
    let syn::Expr::Let(l) = &*w.cond else {
        return None;
    };
    if w.label.is_some() {
        return None;
    }
    let pat = &*l.pat;
    let scrutinee = &*l.expr;
    let body = &w.body;
    let attrs = &w.attrs;
    let go = syn::Ident::new(&format!("{next}_matches"), next.span());
    // Spanned at the `while`, where an error about the loop is said.
    let span = w.while_token.span;
    Some(syn::parse_quote_spanned! {span=>
        #(#attrs)*
        loop {
            let #next = #scrutinee;
            #[allow(unused_variables)]
            let #go = ::core::matches!(&#next, #pat);
            if !#go {
                break;
            }
            match #next {
                #pat => #body,
                _ => {}
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    #[test]
    fn if_let_is_a_match() {
        let x: syn::ExprIf = syn::parse_quote!(if let Some(l) = opt {
            s += l;
        } else if c {
            s = 0.0;
        });
        let m = super::as_match(&x).unwrap();
        let show = |t: &dyn ToTokens| t.to_token_stream().to_string();
        assert_eq!(show(&m.expr), "opt");
        assert_eq!(m.arms.len(), 2);
        assert_eq!(show(&m.arms[0].pat), "Some (l)");
        assert_eq!(show(&m.arms[0].body), "{ s += l ; }");
        assert_eq!(show(&m.arms[1].pat), "_");
        assert_eq!(show(&m.arms[1].body), "if c { s = 0.0 ; }");
    }

    #[test]
    fn while_let_is_a_loop_that_breaks_then_matches() {
        let w: syn::ExprWhile = syn::parse_quote!(while let Some(i) = todo.pop() {
            s += w[i];
        });
        let next: syn::Ident = syn::parse_quote!(__next);
        let l = super::while_let_as_loop(&w, &next).unwrap();
        let text = l.to_token_stream().to_string();
        assert!(
            text.starts_with("loop { let __next = todo . pop () ;"),
            "{text}"
        );
        assert!(text.contains("matches ! (& __next , Some (i))"), "{text}");
        assert!(text.contains("if ! __next_matches { break ; }"), "{text}");
        assert!(
            text.contains("match __next { Some (i) => { s += w [i] ; } , _ => { } }"),
            "{text}"
        );
    }
}

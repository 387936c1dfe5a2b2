//! `if let` as the `match` it stands for:
//! `if let P = e { a } else { b }` is `match e { P => { a } _ => { b } }`,
//! so that it branches, binds and merges as a `match` does.

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
}

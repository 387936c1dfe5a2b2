//! Parameters written as tuple patterns, `fn f((a, b): (f64, f64), ..)`
//! (trial 10 r693), as the plain names the stages take, each name bound
//! to its element at the start of the body: `fn f(a_b: (f64, f64), ..) {
//! let a = a_b.0; let b = a_b.1; .. }`. The name joins the pattern's own names (`a_b`), apart
//! from every identifier of the function; a parameter `_` is `_unused`
//! (with a number where that is taken), which nothing reads. The
//! generated functions take the parameter in its place, its gradient in
//! its type's shape (a tuple of floats: a tuple of their derivatives);
//! the function itself is kept as written. A receiver with its type
//! written, `self: &Self`, is its shorthand, `&self`. `wrt` names such a parameter
//! by any of its names (`wrt(a)` or `wrt(b)` of `(a, b)`: the whole
//! parameter, whose gradient is one).

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;

/// `item` with each parameter pattern a name and a `let`, and `attr` with
/// a name a pattern binds in `wrt(..)` as that parameter's.
pub fn named(attr: TokenStream, item: &syn::ItemFn) -> (TokenStream, syn::ItemFn) {
    let mut renamed = Vec::new();
    let item = names(item, &mut renamed);
    (in_wrt(attr, &renamed), item)
}

/// `wrt(a, b)` with each name a pattern binds as its parameter's, once.
fn in_wrt(attr: TokenStream, renamed: &[(String, syn::Ident)]) -> TokenStream {
    if renamed.is_empty() {
        return attr;
    }
    let mut out = Vec::new();
    let mut after_wrt = false;
    for tt in attr {
        match tt {
            TokenTree::Group(g) if after_wrt => {
                let mut seen = HashSet::new();
                let mut listed = Vec::new();
                for entry in g.stream().into_iter() {
                    let TokenTree::Ident(i) = &entry else {
                        continue;
                    };
                    let i = match renamed.iter().find(|(n, _)| i == n) {
                        Some((_, param)) => param.clone(),
                        None => i.clone(),
                    };
                    // Anything else `wrt` holds is the attribute's parser's
                    // to refuse: kept as it was.
                    if seen.insert(i.to_string()) {
                        listed.push(i);
                    }
                }
                let all_idents = g.stream().into_iter().all(|t| {
                    matches!(t, TokenTree::Ident(_))
                        || matches!(&t, TokenTree::Punct(p) if p.as_char() == ',')
                });
                let stream = match all_idents {
                    true => quote::quote!(#(#listed),*),
                    false => g.stream(),
                };
                let mut group = proc_macro2::Group::new(g.delimiter(), stream);
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
                after_wrt = false;
            }
            tt => {
                after_wrt = matches!(&tt, TokenTree::Ident(i) if i == "wrt");
                out.push(tt);
            }
        }
    }
    out.into_iter().collect()
}

/// `item` with each parameter pattern a name and a `let`; `renamed`
/// gets each bound name with its parameter's.
fn names(item: &syn::ItemFn, renamed: &mut Vec<(String, syn::Ident)>) -> syn::ItemFn {
    let mut item = item.clone();
    let mut used = HashSet::new();
    crate::desugar::internal::collect_idents(item.to_token_stream(), &mut used);
    let mut lets: Vec<syn::Stmt> = Vec::new();
    for input in item.sig.inputs.iter_mut() {
        let t = match input {
            syn::FnArg::Receiver(r) => {
                shorthand(r);
                continue;
            }
            syn::FnArg::Typed(t) => t,
        };
        let base = match &*t.pat {
            // A struct's pattern (`P { x, y }: P`) stays refused, as its
            // `let` would be.
            syn::Pat::Tuple(_) => {
                let mut names = Vec::new();
                bound_names(&t.pat, &mut names);
                match names.is_empty() {
                    true => "_unused".to_string(),
                    false => names.join("_"),
                }
            }
            syn::Pat::Wild(_) => "_unused".to_string(),
            _ => continue,
        };
        let name = (0..)
            .map(|k| match k {
                0 => base.clone(),
                k => format!("{base}{k}"),
            })
            .find(|n| !used.contains(n))
            .expect("a free name");
        used.insert(name.clone());
        let span = syn::spanned::Spanned::span(&t.pat);
        let ident = syn::Ident::new(&name, span);
        if !matches!(&*t.pat, syn::Pat::Wild(_)) {
            let mut bound = Vec::new();
            bound_names(&t.pat, &mut bound);
            renamed.extend(bound.into_iter().map(|n| (n, ident.clone())));
            let base: syn::Expr = syn::parse_quote!(#ident);
            match elements(&t.pat, &base) {
                Some(each) => lets.extend(each),
                None => {
                    let pat = &t.pat;
                    lets.push(syn::parse_quote_spanned!(span=> let #pat = #ident;));
                }
            }
        }
        *t.pat = syn::Pat::Ident(syn::PatIdent {
            attrs: Vec::new(),
            by_ref: None,
            mutability: None,
            ident,
            subpat: None,
        });
    }
    if !lets.is_empty() {
        lets.append(&mut item.block.stmts);
        item.block.stmts = lets;
    }
    item
}

/// A receiver with its type written, `self: &Self`, `self: &mut Self`,
/// `self: Self`, as its shorthand (`&self`, `&mut self`, `self`), which
/// the stages read (trial 11 r961); `self: Box<Self>` and the like stay.
fn shorthand(r: &mut syn::Receiver) {
    if r.colon_token.is_none() {
        return;
    }
    let is_self = |t: &syn::Type| matches!(t, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self"));
    match &*r.ty {
        syn::Type::Reference(t) if is_self(&t.elem) && r.mutability.is_none() => {
            r.reference = Some((t.and_token, t.lifetime.clone()));
            r.mutability = t.mutability;
        }
        t if is_self(t) => {}
        _ => return,
    }
    r.colon_token = None;
}

/// A tuple pattern's names, each bound to its element, `let (mut) c =
/// c_d.0.0;` (a nested destructuring `let` is more than the lowering
/// takes); `None` for a pattern with `..`, `ref` or anything but names,
/// `_` and tuples.
fn elements(pat: &syn::Pat, place: &syn::Expr) -> Option<Vec<syn::Stmt>> {
    match pat {
        syn::Pat::Paren(p) => elements(&p.pat, place),
        syn::Pat::Wild(_) => Some(Vec::new()),
        syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
            let (m, name) = (&i.mutability, &i.ident);
            Some(vec![
                syn::parse_quote_spanned!(name.span()=> let #m #name = #place;),
            ])
        }
        syn::Pat::Tuple(t) => {
            let mut out = Vec::new();
            for (k, elem) in t.elems.iter().enumerate() {
                let index = syn::Index::from(k);
                out.extend(elements(elem, &syn::parse_quote!(#place.#index))?);
            }
            Some(out)
        }
        _ => None,
    }
}

/// The names a pattern binds, in order.
fn bound_names(pat: &syn::Pat, out: &mut Vec<String>) {
    struct Names<'o>(&'o mut Vec<String>);
    impl<'a> syn::visit::Visit<'a> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0
                .push(p.ident.to_string().trim_start_matches("r#").to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    syn::visit::Visit::visit_pat(&mut Names(out), pat);
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn patterns_are_names_destructured_first() {
        let f: syn::ItemFn = syn::parse2(quote!(
            fn f((a, mut b): (f64, f64), ((x, _), y): ((f64, f64), f64), _: f64, a_b: f64) -> f64 {
                b += a_b;
                a * b + x * y
            }
        ))
        .unwrap();
        let want = quote!(
            fn f(a_b1: (f64, f64), x_y: ((f64, f64), f64), _unused: f64, a_b: f64) -> f64 {
                let a = a_b1.0;
                let mut b = a_b1.1;
                let x = x_y.0 .0;
                let y = x_y.1;
                b += a_b;
                a * b + x * y
            }
        );
        let (attr, named) = named(quote!(wrt(a, b, a_b, y)), &f);
        assert_eq!(named.to_token_stream().to_string(), want.to_string());
        assert_eq!(attr.to_string(), quote!(wrt(a_b1, a_b, x_y)).to_string());
    }
}

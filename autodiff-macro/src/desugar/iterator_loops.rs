//! An iterator bound by a `let` and drained by `while let` as the `for`
//! loop it stands for: `let mut it = xs.iter(); while let Some(&v) =
//! it.next() { .. }` is `for &v in xs.iter() { .. }`, where `it` is named
//! nowhere else. The `for` loop over the chain is then lowered as any
//! other (`desugar/iterators.rs`), its elements read in place.
//!
//! The two run the same iterations in the same order, `break` and
//! `continue` included; only the iterator's state after the loop could
//! tell them apart, and nothing reads it.
//!
//! So is a `Vec` drained by `pop`, `while let Some(v) = st.pop() { .. }`
//! where nothing else names `st` after its `let`: `for v in
//! st.into_iter().rev() { .. }`.

use syn::visit_mut::VisitMut;

use crate::desugar::internal::{mentions, plain_let};

/// `item` with such loops as `for` loops.
pub fn as_for_loops(mut item: syn::ItemFn) -> syn::ItemFn {
    Loops.visit_block_mut(&mut item.block);
    item
}

struct Loops;

impl VisitMut for Loops {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, b);
        let mut i = 0;
        while i < b.stmts.len() {
            let Some(it) = plain_let(&b.stmts[i], true).map(|l| l.name()) else {
                i += 1;
                continue;
            };
            // The first statement after the `let` that names the iterator,
            // and whether any after that one does too. In between, the
            // iterator borrows what it walks, so nothing changes it:
            // making it there gives the same elements.
            let named: Vec<usize> = (i + 1..b.stmts.len())
                .filter(|k| mentions(&b.stmts[*k], &it))
                .collect();
            if let [j] = named[..] {
                if let Some(for_loop) = drained(&b.stmts[i], &b.stmts[j]) {
                    b.stmts[j] = syn::Stmt::Expr(for_loop, None);
                    b.stmts.remove(i);
                    continue;
                }
                if let Some((kept, for_loop)) = popped(&b.stmts[i], &b.stmts[j]) {
                    b.stmts[j] = syn::Stmt::Expr(for_loop, None);
                    b.stmts[i] = kept;
                }
            }
            i += 1;
        }
    }
}

/// The `for` loop that `let mut it = chain; while let Some(p) = it.next()
/// { body }` stands for, where the body does not name `it`; `None`
/// otherwise.
fn drained(first: &syn::Stmt, second: &syn::Stmt) -> Option<syn::Expr> {
    let l = plain_let(first, false)?;
    let it = l.name();
    let chain = l.init_bare();
    // An iterator over something: a method chain ending in `iter()` and
    // adapters, not a `Vec` or a value.
    let syn::Expr::MethodCall(m) = chain else {
        return None;
    };
    let adapters = [
        "iter",
        "copied",
        "cloned",
        "enumerate",
        "zip",
        "rev",
        "skip",
        "take",
        "map",
        "filter",
    ];
    if !adapters.contains(&m.method.to_string().as_str()) || !from_iter(chain) {
        return None;
    }
    let (w, pat) = drains(second, &it, "next")?;
    let (body, label) = (&w.body, &w.label);
    Some(syn::parse_quote!(#label for #pat in #chain #body))
}

/// `while let Some(p) = name.method() { body }`, `method` taking no
/// argument, where the body does not name `name`: the loop and `p`.
fn drains<'s>(
    stmt: &'s syn::Stmt,
    name: &syn::Ident,
    method: &str,
) -> Option<(&'s syn::ExprWhile, &'s syn::Pat)> {
    let syn::Stmt::Expr(syn::Expr::While(w), _) = stmt else {
        return None;
    };
    let syn::Expr::Let(cond) = &*w.cond else {
        return None;
    };
    let syn::Pat::TupleStruct(some) = &*cond.pat else {
        return None;
    };
    if !some.path.is_ident("Some") || some.elems.len() != 1 {
        return None;
    }
    let syn::Expr::MethodCall(call) = &*cond.expr else {
        return None;
    };
    let on_name = matches!(&*call.receiver, syn::Expr::Path(p) if p.path.is_ident(name));
    if call.method != method || !call.args.is_empty() || !on_name || mentions(&w.body, name) {
        return None;
    }
    Some((w, &some.elems[0]))
}

/// `let mut st = init; while let Some(p) = st.pop() { body }` of floats,
/// where the body does not name `st` (nothing pushes while it drains):
/// `let st = init; for p in st.into_iter().rev() { body }`, the same elements by
/// value in the same order, the `let` kept where it was, so that `init`
/// is evaluated there. `None` otherwise.
fn popped(first: &syn::Stmt, second: &syn::Stmt) -> Option<(syn::Stmt, syn::Expr)> {
    let l = plain_let(first, true)?;
    let st = l.name();
    // Floats, which the `for` loop walks as an array: said by the type
    // (`Vec<f64>`), or by a float literal among the items of `vec![..]`.
    let floats = match (l.ty, l.init_bare()) {
        (Some(syn::Type::Path(t)), _) => t.path.segments.last().is_some_and(|s| {
            s.ident == "Vec" && crate::desugar::iterators::float_elements(&s.arguments)
        }),
        (None, syn::Expr::Macro(m)) if m.mac.path.is_ident("vec") => {
            m.mac.tokens.clone().into_iter().any(|t| {
                matches!(t, proc_macro2::TokenTree::Literal(l) if {
                    let text = l.to_string();
                    text.contains('.') || text.ends_with("f64") || text.ends_with("f32")
                })
            })
        }
        _ => false,
    };
    if !floats {
        return None;
    }
    let (w, pat) = drains(second, &st, "pop")?;
    let mut kept = first.clone();
    if let syn::Stmt::Local(local) = &mut kept {
        match &mut local.pat {
            syn::Pat::Ident(p) => p.mutability = None,
            syn::Pat::Type(t) => {
                if let syn::Pat::Ident(p) = &mut *t.pat {
                    p.mutability = None;
                }
            }
            _ => return None,
        }
    }
    let (body, label) = (&w.body, &w.label);
    Some((
        kept,
        syn::parse_quote!(#label for #pat in #st.into_iter().rev() #body),
    ))
}

/// Whether the chain starts with `.iter()` on something (`xs.iter()`,
/// `data.ys.iter().enumerate()`).
fn from_iter(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => true,
        syn::Expr::MethodCall(m) => from_iter(&m.receiver),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    fn body(src: &str) -> String {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        super::as_for_loops(item)
            .block
            .to_token_stream()
            .to_string()
    }

    #[test]
    fn a_drained_iterator_is_a_for_loop() {
        let got =
            body("fn f() { let mut it = xs.iter(); while let Some(&v) = it.next() { s += v; } s }");
        assert!(
            got.contains("for & v in xs . iter () { s += v ; }"),
            "{got}"
        );
        let got = body("fn f() { let mut it = xs.iter().enumerate(); while let Some((i, &v)) = it.next() { if v > 1.0 { break; } } s }");
        assert!(
            got.contains("for (i , & v) in xs . iter () . enumerate ()"),
            "{got}"
        );
    }

    #[test]
    fn an_iterator_named_elsewhere_is_kept() {
        for src in [
            "fn f() { let mut it = xs.iter(); while let Some(&v) = it.next() { s += v; } it.count() }",
            "fn f() { let mut it = xs.iter(); while let Some(&v) = it.next() { it.next(); } s }",
            "fn f() { let mut st = vec![1, 2]; while let Some(v) = st.pop() { st.push(v); } s }",
            "fn f() { let mut st = vec![1, 2]; while let Some(v) = st.pop() { s += 1.0; } st.len() }",
        ] {
            assert!(body(src).contains("while let"), "{src}");
        }
    }

    #[test]
    fn a_vec_drained_by_pop_is_walked_backwards() {
        let got = body(
            "fn f() { let mut st: Vec<f64> = xs.to_vec(); while let Some(v) = st.pop() { s += v; } s }",
        );
        assert!(
            got.contains("let st : Vec < f64 > = xs . to_vec () ; for v in st . into_iter () . rev () { s += v ; }"),
            "{got}"
        );
    }
}

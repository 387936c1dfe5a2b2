//! The macro never panics: property tests feed `expand` functions built
//! from seeds (each construct of the supported subset, and constructs
//! outside it) and mutated token by token (a token deleted, duplicated,
//! replaced, a construct inserted, at any depth). Every input must give
//! code or spanned errors, never the internal error a panic becomes.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use proptest::prelude::*;

/// Bodies of `fn f(x: f64, y: f64, xs: &[f64], n: usize) -> f64`.
const SEEDS: &[&str] = &[
    "x * y + x.sin()",
    "let mut s = 0.0; for i in 0..n { s += xs[i] * x; } s",
    "let mut s = x; while s < 10.0 { s *= 1.5; if s > y { break; } } s",
    "if x > y { x } else { y.exp() }",
    "match n { 0 => x, 1 | 2 => y, _ => x * y }",
    "let (a, b) = (x, y); let sq = |v: f64| v * v; sq(a) + sq(b)",
    "xs.iter().zip(xs).map(|(a, b)| a * b).sum::<f64>() + x",
    "let v: Vec<f64> = xs.iter().map(|t| t * x).collect(); v.iter().sum()",
    "let mut z = vec![0.0; n]; for i in 0..n { z[i] = x * i as f64; } z.iter().fold(0.0, |a, b| a + b)",
    "if let Some(w) = xs.first() { x * w } else { y }",
    "for (i, w) in xs.windows(2).enumerate() { if w[0] > w[1] { return x * i as f64; } } y",
    "let mut k = 0; loop { k += 1; if k > n { break; } } x * k as f64",
    "'outer: for _ in 0..n { loop { break 'outer; } } x",
    "let r = &mut 1.0; *r += x; *r",
    "async { x }; unsafe { y }",
    "let s: f64 = xs.iter().product(); s.powf(x)",
];

/// Constructs inserted anywhere.
const SNIPPETS: &[&str] = &[
    "for _ in 0..3 { }",
    "let z = |t: f64| t * x;",
    "return x;",
    "break;",
    "continue;",
    "x?",
    "&mut",
    "..",
    "{ }",
    "match x { _ => y }",
    "static S: f64 = 1.0;",
    "println!(\"{}\", x);",
    "xs[n]",
    "y = x;",
    "let (a, b) = (x, y);",
    "if let Some(q) = Some(x) { q } else { y }",
    "while x > 0.0 { }",
    "*",
    "=",
    "as",
    ";",
    "f64::max(x, y)",
    "self.k",
    "Self::f(x)",
    "xs.iter().rev()",
];

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize),
    Duplicate(usize),
    Replace(usize, usize),
    Insert(usize, usize),
    /// The same edit inside the `k`-th group found.
    Inside(usize, Box<Edit>),
}

fn edit() -> impl Strategy<Value = Edit> {
    let leaf = prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        any::<usize>().prop_map(Edit::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(i, s)| Edit::Replace(i, s)),
        (any::<usize>(), any::<usize>()).prop_map(|(i, s)| Edit::Insert(i, s)),
    ];
    leaf.prop_recursive(3, 8, 1, |inner| {
        (any::<usize>(), inner).prop_map(|(k, e)| Edit::Inside(k, Box::new(e)))
    })
}

fn snippet(s: usize) -> Vec<TokenTree> {
    SNIPPETS[s % SNIPPETS.len()]
        .parse::<TokenStream>()
        .expect("a snippet lexes")
        .into_iter()
        .collect()
}

fn apply(tokens: TokenStream, e: &Edit) -> TokenStream {
    let mut v: Vec<TokenTree> = tokens.into_iter().collect();
    let at = |i: usize, len: usize| if len == 0 { 0 } else { i % len };
    match e {
        Edit::Delete(i) if !v.is_empty() => {
            let i = at(*i, v.len());
            v.remove(i);
        }
        Edit::Duplicate(i) if !v.is_empty() => {
            let i = at(*i, v.len());
            let t = v[i].clone();
            v.insert(i, t);
        }
        Edit::Replace(i, s) if !v.is_empty() => {
            let i = at(*i, v.len());
            v.splice(i..=i, snippet(*s));
        }
        Edit::Insert(i, s) => {
            let i = at(*i, v.len() + 1);
            v.splice(i..i, snippet(*s));
        }
        Edit::Inside(k, inner) => {
            let groups: Vec<usize> = v
                .iter()
                .enumerate()
                .filter(|(_, t)| matches!(t, TokenTree::Group(_)))
                .map(|(i, _)| i)
                .collect();
            if let Some(&gi) = groups.get(at(*k, groups.len().max(1))) {
                if let TokenTree::Group(g) = &v[gi] {
                    let mut ng = Group::new(g.delimiter(), apply(g.stream(), inner));
                    ng.set_span(g.span());
                    v[gi] = TokenTree::Group(ng);
                }
            }
        }
        _ => {}
    }
    v.into_iter().collect()
}

fn function(body: TokenStream) -> TokenStream {
    let body = TokenTree::Group(Group::new(Delimiter::Brace, body));
    quote::quote!(fn f(x: f64, y: f64, xs: &[f64], n: usize) -> f64 #body)
}

fn never_panics(attr: TokenStream, item: TokenStream) -> Result<(), TestCaseError> {
    let out = crate::expand::expand(attr, item.clone()).to_string();
    prop_assert!(
        !out.contains("internal error in #[grad]"),
        "the macro failed on: {}",
        item
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_functions_give_code_or_errors(seed in 0..SEEDS.len(), edits in proptest::collection::vec(edit(), 1..4)) {
        let mut body: TokenStream = SEEDS[seed].parse().expect("a seed lexes");
        for e in &edits {
            body = apply(body, e);
        }
        never_panics(TokenStream::new(), function(body))?;
    }

    #[test]
    fn every_seed_under_every_option(seed in 0..SEEDS.len(), opt in 0..4usize) {
        let attr: TokenStream = ["", "wrt(x)", "wrt(xs, y)", "wrt(n)"][opt].parse().unwrap();
        never_panics(attr, function(SEEDS[seed].parse().unwrap()))?;
    }
}

//! The twin's rewrites and refusals.

use super::*;
use quote::ToTokens;

fn twin_of(src: &str) -> Result<String, String> {
    let item: syn::ItemFn = syn::parse_str(src).unwrap();
    twin(&item)
        .map(|t| t.to_token_stream().to_string().replace(' ', ""))
        .map_err(|e| e.to_string())
}

#[test]
fn a_function_of_f64_becomes_generic() {
    let t = twin_of("fn f(x: f64, xs: &[f64], n: usize) -> f64 { let mut s: f64 = 0.0; for i in 0..n { s += xs[i] * (i as f64) + std::f64::consts::PI + 2f64; } s * x.sin() + f64::sin(x) }").unwrap();
    assert!(
        t.starts_with("fn__autodiff_hessian_f<T:::autodiff::Float>(x:T,xs:&[T],n:usize)->T"),
        "{t}"
    );
    assert!(t.contains("letmuts:T="), "{t}");
    assert!(t.contains("from_f64(iasf64)"), "{t}");
    assert!(t.contains("from_f64(std::f64::consts::PI)"), "{t}");
    assert!(t.contains("from_f64(2.0)"), "{t}");
    assert!(!t.contains("f64::sin"), "{t}");
}

#[test]
fn elements_copied_or_taken_apart_by_reference_are_values() {
    for src in [
        "fn f(v: &[f64]) -> f64 { let mut s = 0.0; for &x in v { s += x * x; } s }",
        "fn f(v: &[f64]) -> f64 { let mut s = 0.0; for (i, &x) in v.iter().enumerate() { s += x * (i as f64); } s }",
        "fn f(v: &[f64], w: &[f64]) -> f64 { let mut s = 0.0; for (&a, &b) in v.iter().zip(w.iter()) { s += a * b; } s }",
        "fn f(v: &[f64]) -> f64 { v.iter().copied().map(|x| x * x).fold(0.0, |a, b| a + b) }",
        "fn f(v: Vec<f64>) -> f64 { let mut s = 0.0; for x in v { s += x * x; } s }",
        "fn f(v: &[f64]) -> f64 { let mut s = 0.0; for w in v.windows(2) { s += w[0] * w[1]; } s + v.len() as f64 }",
    ] {
        assert!(twin_of(src).is_ok(), "{src}: {:?}", twin_of(src));
    }
}

#[test]
fn what_would_not_compile_at_a_generic_float_is_refused() {
    for (src, says) in [
        ("fn f(x: f64) -> f64 { x * K }", "`K`, an item outside"),
        ("fn f(x: f64) -> f64 { helper(x) }", "calls `helper`"),
        ("fn f(x: f64) -> f64 { (x as f64) * 2.0 }", "casts a value"),
        (
            "fn f(xs: &[f64]) -> f64 { xs.iter().copied().sum() }",
            "`.sum()`",
        ),
        ("fn f(x: f64) -> f64 { println!(\"{x}\"); x }", "macro"),
        ("fn f(p: &P) -> f64 { p.x }", "parameter's type"),
        ("fn f(x: f64, y: f32) -> f64 { x }", "both `f32` and `f64`"),
        ("fn f(x: f64) -> f64 { x.rem_cube() }", "`.rem_cube()`"),
        (
            "fn f(x: f64) -> f64 { let h = |g: f64| g * 2.0; h(x) + g(x) }",
            "calls `g`",
        ),
        (
            "fn f(x: f64) -> f64 { let a = { let g = |t: f64| t + 1.0; g(x) }; g(a) }",
            "calls `g`",
        ),
        (
            "fn f(x: f64) -> f64 { let a = g(x); let g = |t: f64| t * a; g(x) }",
            "calls `g`",
        ),
        (
            "fn f(x: f64, n: usize) -> f64 { let n = x * (n as f64); n * (n as f64) }",
            "casts a value",
        ),
        (
            "fn f(v: &[f64]) -> f64 { let mut s = 0.0; for x in v { s += x * x; } s }",
            "`for &x in ..`",
        ),
        (
            "fn f(v: &[f64]) -> f64 { v.iter().map(|x| x * x).fold(0.0, |a, b| a + b) }",
            "`.iter().copied()`",
        ),
    ] {
        let e = twin_of(src).unwrap_err();
        assert!(e.contains(says), "{src}: {e}");
    }
}

#[test]
fn an_integer_let_and_a_named_constant_convert() {
    let t = twin_of(
        "fn f(xs: &[f64]) -> f64 { let n = xs.len(); let m = n - 1; xs[m] * PI / n as f64 }",
    )
    .unwrap();
    assert!(t.contains("from_f64(nasf64)"), "{t}");
    assert!(t.contains("from_f64(PI)"), "{t}");
    // A name bound to an integer and to a float is neither.
    let e =
        twin_of("fn f(x: f64) -> f64 { let n = 2; let n = x * 0.5; x * n as f64 }").unwrap_err();
    assert!(e.contains("casts a value that may be a float"), "{e}");
    // `E` may be anything of the user's: refused as an outside item.
    assert!(twin_of("fn f(x: f64) -> f64 { x * E }").is_err());
}

#[test]
fn kernels_and_integer_collections_pass_as_they_are() {
    let t = twin_of("fn f(w: &[f64], xs: &[f64], labels: &[usize], idx: [u32; 2], v: Vec<i64>) -> f64 { let z: Vec<f64> = autodiff::matvec(w, xs, 2); autodiff::softmax_cross_entropy(&z, labels[0]) + softmax(&z)[labels[1]] * z[v.len() + idx.len()] }").unwrap();
    assert!(
        t.starts_with("fn__autodiff_hessian_f<T:::autodiff::Float>(w:&[T],xs:&[T],labels:&[usize],idx:[u32;2],v:Vec<i64>)->T"),
        "{t}"
    );
    assert!(t.contains("letz:Vec<T>=autodiff::matvec(w,xs,2)"), "{t}");
}

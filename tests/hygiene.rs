//! User names that look like the generated code's own locals.

use autodiff::grad;

/// A vector output whose loop records values (so `_jacobian` calls `_vjp`
/// once per output), with parameters named like `_jacobian`'s locals:
/// `k`, `value`, `rows`, `row`, `seed`, `g0`. It failed to compile.
#[grad]
fn named_like_locals(
    k: f64,
    value: f64,
    rows: f64,
    seed: f64,
    row: f64,
    g0: f64,
    n: usize,
) -> (f64, f64) {
    let mut a = k;
    let mut b = value;
    for _ in 0..n {
        a = a * rows + seed;
        b = b * a * row * g0;
    }
    (a, b)
}

/// The same for an array output.
#[grad]
fn array_named_like_locals(k: &[f64], seed: f64, value: f64) -> Vec<f64> {
    let mut out = vec![0.0; k.len()];
    for i in 0..k.len() {
        out[i] = k[i] * seed * k[i] + value;
    }
    out
}

#[test]
fn generated_locals_never_capture_user_names() {
    let (v, jac) = named_like_locals_jacobian(1.0, 2.0, 3.0, 4.0, 0.5, 1.0, 2);
    // a1 = 3k + 4 = 7, b1 = 2 * 7 * 0.5 = 7; a2 = 25, b2 = 87.5.
    assert_eq!(v, (25.0, 87.5));
    // da/d(k, value, rows, seed, row, g0) = (r^2, 0, a1 + r k, r + 1, 0, 0).
    assert_eq!(jac[0], vec![9.0, 0.0, 10.0, 4.0, 0.0, 0.0]);
    let (v2, dk, dvalue, drows, dseed, drow, dg0) =
        named_like_locals_vjp(1.0, 2.0, 3.0, 4.0, 0.5, 1.0, 2, (0.0, 1.0));
    assert_eq!(v2, v);
    assert_eq!(
        vec![dk, dvalue, drows, dseed, drow, dg0],
        jac[1],
        "a vjp with a one-hot seed is a row of the Jacobian"
    );
    let (v, jac) = array_named_like_locals_jacobian(&[1.0, 2.0], 3.0, 0.5);
    assert_eq!(v, vec![3.5, 12.5]);
    assert_eq!(
        jac,
        vec![vec![6.0, 0.0, 1.0, 1.0], vec![0.0, 12.0, 4.0, 1.0]]
    );
}

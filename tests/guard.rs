//! The zero-adjoint guard (a zero adjoint gives a zero contribution, even
//! through an infinite partial) and the first attempt without it: a
//! reverse sweep that reads no value stack runs first with unguarded
//! products and quotients, and again with every rule guarded only when a
//! gradient entry comes out NaN (`autodiff::runtime::float::first_try`).
//! Each case here makes the first attempt produce NaN where the guarded
//! sweep does not, or a NaN that is the true answer.

#![deny(warnings)]

use autodiff::grad;

/// `big` overflows to infinity, and the branch taken does not use it: the
/// unguarded product `0 · big` is NaN in the first attempt.
#[grad]
fn unused_overflow(x: f64, w: &[f64; 3]) -> f64 {
    let big = (x * 1000.0).exp();
    let wasted = big * w[0];
    let used = x * w[1] + w[2];
    if x > 0.0 {
        used
    } else {
        wasted
    }
}

#[test]
fn an_infinite_value_off_the_path_gives_the_guarded_gradient() {
    let w = [2.0, 3.0, 4.0];
    let (v, dx, dw) = unused_overflow_grad(1.0, &w);
    assert_eq!(v, 7.0);
    assert_eq!(dx, 3.0);
    assert_eq!(dw, [0.0, 1.0, 1.0]);
    // On the other side the infinity reaches the result, and the
    // gradient says so.
    let (v, dx, dw) = unused_overflow_grad(-1.0, &w);
    assert_eq!(v, 0.0);
    assert_eq!(dw[0], 0.0);
    assert_eq!(dx, 0.0);
}

/// A quotient by zero off the path: `1 / x` at x = 0 in the arm not taken.
#[grad]
fn unused_quotient(x: f64, y: f64) -> f64 {
    let r = y / x;
    let s = r * r;
    if y > 0.0 {
        x + y
    } else {
        s
    }
}

#[test]
fn a_division_by_zero_off_the_path_gives_the_guarded_gradient() {
    assert_eq!(unused_quotient_grad(0.0, 1.0), (1.0, 1.0, 1.0));
}

/// The derivative of `sqrt` at a negative input is NaN: the true answer,
/// which both attempts give.
#[grad]
fn root(x: f64, y: f64) -> f64 {
    x.sqrt() * y
}

#[test]
fn a_gradient_that_is_nan_in_truth_stays_nan() {
    let (v, dx, dy) = root_grad(-1.0, 2.0);
    assert!(v.is_nan() && dx.is_nan() && dy.is_nan());
    let (v, dx, dy) = root_grad(4.0, 2.0);
    assert_eq!((v, dx, dy), (4.0, 0.5, 2.0));
}

/// Two outputs, one of which overflows: seeding the other leaves a zero
/// adjoint on the infinite value, so that row's first attempt is NaN.
#[grad]
fn one_row_overflows(x: f64) -> [f64; 2] {
    let big = (x * 1000.0).exp();
    [x * 2.0, big * x]
}

#[test]
fn a_jacobian_row_with_a_zero_seed_on_an_infinite_value() {
    let (v, j) = one_row_overflows_jacobian(1.0);
    assert_eq!(v, [2.0, f64::INFINITY]);
    assert_eq!(j[0], [2.0]);
    assert_eq!(j[1], [f64::INFINITY]);
    // The same through `_vjp`, with the seed's zero on the overflow.
    let (_, dx) = one_row_overflows_vjp(1.0, [1.0, 0.0]);
    assert_eq!(dx, 2.0);
}

/// A zero entry of a gradient, reached through products with a zero
/// adjoint: equal to 0.0 (the first attempt may give it the other sign).
#[grad]
fn zero_slope(x: f64, y: f64) -> f64 {
    let a = x * y;
    a * 0.0 + y
}

#[test]
fn a_zero_entry_is_zero() {
    let (v, dx, dy) = zero_slope_grad(-3.0, 2.0);
    assert_eq!(v, 2.0);
    assert_eq!(dx, 0.0);
    assert_eq!(dy, 1.0);
}

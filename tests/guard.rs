//! The zero-adjoint guard (a zero adjoint gives a zero contribution, even
//! through an infinite partial) and the first attempt without it: a
//! reverse sweep runs first with unguarded rules, reading its value stacks
//! without taking their entries, and again with every rule guarded,
//! popping them, only when a gradient entry comes out NaN
//! (`autodiff::runtime::float::first_try`).
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

// Sweeps that read value stacks: the first attempt reads each stack
// without taking its entries (`Stack::replay`), so that the guarded sweep
// can pop them if it has to run.

/// `big` overflows in every iteration, and only the arm not taken uses
/// it: the first attempt's `0 · e^big` is NaN, inside a loop that records
/// its values on a stack.
#[grad]
fn overflow_in_a_loop(x: f64, w: &[f64]) -> f64 {
    let mut s = 0.0;
    for &wi in w {
        let big = (x * wi * 1000.0).exp();
        let t = if wi > 0.0 { x * wi } else { big * x };
        s += t * t;
    }
    s
}

#[test]
fn an_infinite_value_off_the_path_in_a_loop_gives_the_guarded_gradient() {
    let w = [1.0, 2.0, 3.0];
    autodiff::runtime::stack::reset_stats();
    let (v, dx, dw) = overflow_in_a_loop_grad(1.0, &w);
    // One push per iteration: the second sweep popped what the first
    // replayed, and nothing was recorded twice.
    assert_eq!(autodiff::runtime::stack::stats().pushes, 3);
    assert_eq!(v, 14.0);
    // d/dx Σ (x wᵢ)² = 2x Σ wᵢ², d/dwᵢ = 2x² wᵢ.
    assert_eq!(dx, 28.0);
    assert_eq!(dw, vec![2.0, 4.0, 6.0]);
    // Where no value overflows, the first attempt stands.
    let (v, dx, dw) = overflow_in_a_loop_grad(1e-3, &w);
    assert!((v - 14e-6).abs() < 1e-18);
    assert!((dx - 28e-3).abs() < 1e-15);
    for (d, wi) in dw.iter().zip(w) {
        assert!((d - 2e-6 * wi).abs() < 1e-18);
    }
}

/// A scratch vector filled in each iteration and recorded whole on the
/// stack, read in place by the first attempt; the overflow off the path
/// makes that attempt NaN, and the guarded sweep pops the same vectors.
#[grad]
fn scratch_vector_and_overflow(x: &[f64], k: usize) -> f64 {
    let mut total = 0.0;
    for j in 0..k {
        let mut v = vec![0.0; x.len()];
        for i in 0..x.len() {
            v[i] = x[i] * (j as f64 + 1.0);
        }
        let mut acc = 0.0;
        for vi in &v {
            acc += vi * vi;
        }
        let big = (acc * 1000.0).exp();
        total += if acc > 0.0 { acc } else { big };
    }
    total
}

#[test]
fn scratch_vectors_on_the_stack_serve_both_attempts() {
    let x = [0.5, -1.0, 2.0];
    // Σⱼ (j + 1)² ‖x‖², so d/dxᵢ = 2 xᵢ Σⱼ (j + 1)²: 2 xᵢ · 14 for k = 3.
    for (scale, expect_nan_first) in [(1.0, true), (1e-3, false)] {
        let x: Vec<f64> = x.iter().map(|v| v * scale).collect();
        let (v, dx) = scratch_vector_and_overflow_grad(&x, 3);
        let norm: f64 = x.iter().map(|v| v * v).sum();
        assert!((v - 14.0 * norm).abs() <= 1e-12 * v, "{expect_nan_first}");
        for (d, xi) in dx.iter().zip(&x) {
            assert!((d - 28.0 * xi).abs() <= 1e-12 * d.abs().max(1e-300));
        }
    }
}

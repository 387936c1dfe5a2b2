//! Calls between `#[grad]` functions: each active call runs the callee's
//! `_grad` once, in the forward sweep, and the reverse sweep scales the
//! partials it returned.

#![deny(warnings)]

use approx::assert_relative_eq;
use autodiff::grad;

#[grad]
fn square(x: f64) -> f64 {
    x * x
}

#[grad]
fn inner(x: f64, y: f64) -> f64 {
    square(x) * y.sin() + x
}

#[grad]
fn middle(x: f64, y: f64) -> f64 {
    // Fan-out through calls: x reaches the result through both.
    inner(x, y) + inner(y, x) * square(y)
}

#[grad]
fn outer(x: f64, y: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for k in 0..n {
        s += middle(x + k as f64 * 0.1, y) * 0.5;
    }
    if s > 0.0 {
        s + middle(y, x)
    } else {
        s
    }
}

fn derivative(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6 * x.abs().max(1.0);
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn nested_calls_three_deep_with_fan_out() {
    for (x, y) in [(0.3, 1.2), (-0.7, 0.4), (1.5, -2.0)] {
        let (v, dx, dy) = middle_grad(x, y);
        assert_eq!(v, middle(x, y));
        assert_relative_eq!(dx, derivative(|x| middle(x, y), x), max_relative = 1e-6);
        assert_relative_eq!(dy, derivative(|y| middle(x, y), y), max_relative = 1e-6);
        let (v, dx, dy) = outer_grad(x, y, 3);
        assert_eq!(v, outer(x, y, 3));
        assert_relative_eq!(dx, derivative(|x| outer(x, y, 3), x), max_relative = 1e-6);
        assert_relative_eq!(dy, derivative(|y| outer(x, y, 3), y), max_relative = 1e-6);
    }
}

#[test]
fn a_call_is_exact() {
    // inner(x, y) = x² sin y + x.
    let (v, dx, dy) = inner_grad(2.0, 0.5);
    assert_eq!(v, 4.0 * 0.5f64.sin() + 2.0);
    assert_eq!(dx, 4.0 * 0.5f64.sin() + 1.0);
    assert_eq!(dy, 4.0 * 0.5f64.cos());
}

/// A custom rule used through a caller.
#[grad(pullback = softclip_rule)]
fn softclip(x: f64) -> f64 {
    x / (1.0 + x.abs())
}

fn softclip_rule(x: f64, _value: f64, seed: f64) -> f64 {
    seed / ((1.0 + x.abs()) * (1.0 + x.abs()))
}

#[grad]
fn uses_custom(x: f64, w: f64) -> f64 {
    softclip(w * x) * 3.0
}

#[test]
fn custom_rules_through_callers() {
    for (x, w) in [(0.5, 2.0), (-1.5, 0.3)] {
        let (v, dx, dw) = uses_custom_grad(x, w);
        assert_eq!(v, uses_custom(x, w));
        let u: f64 = w * x;
        let d = 3.0 / ((1.0 + u.abs()) * (1.0 + u.abs()));
        assert_relative_eq!(dx, d * w, max_relative = 1e-15);
        assert_relative_eq!(dw, d * x, max_relative = 1e-15);
    }
}

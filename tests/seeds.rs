//! The worked examples of the reference texts (`shared/seeds/`), with their
//! exact values.

use approx::assert_relative_eq;
use autodiff::grad;

/// Bendersky's decomposition of the logistic function into primitives:
/// f = -x, g = exp(f), w = 1 + g, v = 1 / w.
#[grad]
fn sigmoid_from_primitives(x: f64) -> f64 {
    let f = -x;
    let g = f.exp();
    let w = 1.0 + g;
    1.0 / w
}

#[test]
fn sigmoid_built_from_primitives() {
    for x in [-30.0, -4.0, -1.0, -0.25, 0.0, 0.5, 2.0, 7.0, 30.0] {
        let (v, dv) = sigmoid_from_primitives_grad(x);
        let s = 1.0 / (1.0 + (-x).exp());
        assert_eq!(v, s);
        // dv/dx = -1/w² · exp(-x) · (-1) = v (1 - v), up to rounding.
        assert_relative_eq!(dv, s * (1.0 - s), max_relative = 1e-14);
    }
    assert_eq!(sigmoid_from_primitives_grad(0.0), (0.5, 0.25));
}

/// ln(x1) + x1·x2 − sin(x2): fan-in, and x1 used twice.
#[grad]
fn log_product_sine(x1: f64, x2: f64) -> f64 {
    x1.ln() + x1 * x2 - x2.sin()
}

#[test]
fn log_product_sine_gradient() {
    let (y, d1, d2) = log_product_sine_grad(2.0, 5.0);
    assert_eq!(y, 2f64.ln() + 10.0 - 5f64.sin());
    assert_eq!(d1, 0.5 + 5.0);
    assert_eq!(d2, 2.0 - 5f64.cos());
    for (x1, x2) in [(0.1, -3.0), (1.0, 0.0), (7.5, 2.25), (100.0, -0.5)] {
        let (_, d1, d2) = log_product_sine_grad(x1, x2);
        assert_relative_eq!(d1, 1.0 / x1 + x2, max_relative = 1e-15);
        assert_relative_eq!(d2, x1 - x2.cos(), max_relative = 1e-15);
    }
}

/// (x1 − x2)² + cos(x1 + x2): the numeric walk-through of the second text.
#[grad]
fn square_plus_cosine(x1: f64, x2: f64) -> f64 {
    (x1 - x2).powi(2) + (x1 + x2).cos()
}

#[test]
fn square_plus_cosine_at_one_two() {
    let (y, d1, d2) = square_plus_cosine_grad(1.0, 2.0);
    assert_eq!(y, 1.0 + 3f64.cos());
    assert_relative_eq!(y, 0.01001, epsilon = 5e-6);
    // The walk-through's values, to the five decimals it prints.
    assert_relative_eq!(d1, -2.14112, epsilon = 5e-6);
    assert_relative_eq!(d2, 1.85888, epsilon = 5e-6);
    // And exactly: 2(x1 − x2) − sin(x1 + x2), −2(x1 − x2) − sin(x1 + x2).
    assert_eq!(d1, -2.0 - 3f64.sin());
    assert_eq!(d2, 2.0 - 3f64.sin());
}

/// z = x·x + x·y: the third text's PyTorch-style example.
#[grad]
fn xx_plus_xy(x: f64, y: f64) -> f64 {
    x * x + x * y
}

#[test]
fn xx_plus_xy_at_three_ten() {
    assert_eq!(xx_plus_xy_grad(3.0, 10.0), (39.0, 16.0, 3.0));
}

/// x1·x2 + sin(x1): case study 3 and the tiny engine of case study 10.
#[grad]
fn product_plus_sine(x1: f64, x2: f64) -> f64 {
    x1 * x2 + x1.sin()
}

#[test]
fn product_plus_sine_at_two_three() {
    let (y, d1, d2) = product_plus_sine_grad(2.0, 3.0);
    assert_eq!(y, 6.0 + 2f64.sin());
    assert_eq!(d1, 3.0 + 2f64.cos());
    assert_eq!(d2, 2.0);
}

/// Case study 2, the shared intermediate: u = x², y = sin(u) + u. The
/// adjoint of u sums both paths: ū = cos(u) + 1, then x̄ = ū · 2x.
#[grad]
fn shared_intermediate(x: f64) -> f64 {
    let u = x * x;
    u.sin() + u
}

#[test]
fn shared_intermediate_sums_both_paths() {
    for x in [-2.0, -0.3, 0.0, 0.7, 1.5, 4.0] {
        let (y, dy) = shared_intermediate_grad(x);
        let u = x * x;
        assert_eq!(y, u.sin() + u);
        assert_eq!(dy, (u.cos() + 1.0) * (2.0 * x));
    }
}

//! `#[grad(pullback = rule)]`: the derivative is the user's rule, not
//! derived from the body.

#![deny(warnings)]

use approx::assert_relative_eq;
use autodiff::grad;

/// ln(eᵃ + eᵇ), computed stably; its rule is the softmax of (a, b), also
/// stable, where differentiating the body line by line would go through
/// `max`.
#[grad(pullback = logaddexp_rule)]
fn logaddexp(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    m + ((a - m).exp() + (b - m).exp()).ln()
}

fn logaddexp_rule(a: f64, b: f64, value: f64, seed: f64) -> (f64, f64) {
    (seed * (a - value).exp(), seed * (b - value).exp())
}

#[test]
fn stable_logaddexp() {
    let (v, da, db) = logaddexp_grad(1000.0, 999.0);
    assert!(v.is_finite());
    assert_relative_eq!(da + db, 1.0, max_relative = 1e-13);
    assert_relative_eq!(da, 1.0 / (1.0 + (-1f64).exp()), max_relative = 1e-13);
    assert_eq!(logaddexp_grad(0.0, 0.0), (2f64.ln(), 0.5, 0.5));
}

/// The positive root of t³ + p·t − 1 = 0, found by Newton iterations. Its
/// derivative comes from the implicit function theorem, dt/dp = −t / (3t² +
/// p), not from unrolling the iterations.
#[grad(pullback = root_rule)]
fn root(p: f64) -> f64 {
    let mut t = 1.0;
    for _ in 0..50 {
        t -= (t * t * t + p * t - 1.0) / (3.0 * t * t + p);
    }
    t
}

fn root_rule(_p: f64, t: f64, seed: f64) -> f64 {
    seed * -t / (3.0 * t * t + _p)
}

#[test]
fn implicit_function_theorem() {
    for p in [0.5, 1.0, 3.0] {
        let (t, dt) = root_grad(p);
        assert_relative_eq!(t * t * t + p * t, 1.0, max_relative = 1e-13);
        let h = 1e-6;
        let fd = (root(p + h) - root(p - h)) / (2.0 * h);
        assert_relative_eq!(dt, fd, max_relative = 1e-7);
    }
}

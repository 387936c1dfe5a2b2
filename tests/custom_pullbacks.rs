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

/// A custom pullback on an associated function (no receiver) inside an
/// `impl`: the generated functions compute its value in place, since its
/// bare name does not resolve there.
pub struct Model;

fn cube_rule(x: f64, _value: f64, dy: f64) -> f64 {
    3.0 * x * x * dy
}

impl Model {
    #[autodiff::grad(pullback = cube_rule)]
    fn cube(x: f64) -> f64 {
        if x == 0.0 {
            return 0.0;
        }
        x * x * x
    }

    #[autodiff::grad]
    fn energy(x: f64) -> f64 {
        Self::cube(x) + x
    }
}

#[test]
fn an_associated_function_with_a_custom_pullback() {
    assert_eq!(Model::cube_grad(2.0), (8.0, 12.0));
    assert_eq!(Model::cube_vjp(2.0, 0.5), (8.0, 6.0));
    assert_eq!(Model::energy_grad(2.0), (10.0, 13.0));
    assert_eq!(Model::cube_grad(0.0), (0.0, 0.0));
}

/// A custom pullback of two float types, called from a traced function.
fn mix_rule(x: f64, y: f32, _value: f64, dy: f64) -> (f64, f32) {
    (dy * f64::from(y), (dy * x) as f32)
}

#[autodiff::grad(pullback = mix_rule)]
fn mix(x: f64, y: f32) -> f64 {
    x * f64::from(y)
}

#[autodiff::grad(trace)]
fn uses_mix(x: f64, y: f32) -> f64 {
    mix(x, y) * x
}

#[test]
fn a_custom_pullback_of_f32_and_f64_in_a_trace() {
    let (v, dx, dy) = uses_mix_grad(2.0, 3.0);
    assert_eq!((v, dx, dy), (12.0, 12.0, 4.0));
    let t = uses_mix_trace(2.0, 3.0);
    assert_eq!(t.value(), v);
    assert_eq!(t.adjoint_of("x"), Some(dx));
    assert_eq!(t.adjoint_of("y"), Some(f64::from(dy)));
}

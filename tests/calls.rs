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

/// A helper returning a tuple of floats (`let (a, b) = f(..)`): the
/// reverse sweep calls its `_vjp` with the tuple's adjoint. A damped
/// oscillator integrated by RK4, its energy differentiated with respect to
/// the stiffness and the damping.
#[grad]
fn oscillator(x: f64, v: f64, k: f64, c: f64) -> (f64, f64) {
    (v, -k * x - c * v)
}

#[grad]
fn rk4_step(x: f64, v: f64, k: f64, c: f64, dt: f64) -> (f64, f64) {
    let (k1x, k1v) = oscillator(x, v, k, c);
    let (k2x, k2v) = oscillator(x + 0.5 * dt * k1x, v + 0.5 * dt * k1v, k, c);
    let (k3x, k3v) = oscillator(x + 0.5 * dt * k2x, v + 0.5 * dt * k2v, k, c);
    let (k4x, k4v) = oscillator(x + dt * k3x, v + dt * k3v, k, c);
    (
        x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
        v + dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v),
    )
}

#[grad(wrt(k, c))]
fn final_energy(k: f64, c: f64, steps: usize) -> f64 {
    let mut x = 1.0;
    let mut v = 0.0;
    for _ in 0..steps {
        let (nx, nv) = rk4_step(x, v, k, c, 0.05);
        x = nx;
        v = nv;
    }
    0.5 * k * x * x + 0.5 * v * v
}

#[test]
fn helpers_returning_tuples_are_differentiated_through_their_vjp() {
    let h = 1e-6;
    for (k, c) in [(2.0, 0.3), (0.5, 0.0), (4.0, 1.2)] {
        let (e, dk, dc) = final_energy_grad(k, c, 40);
        assert_eq!(e, final_energy(k, c, 40));
        let fk = (final_energy(k + h, c, 40) - final_energy(k - h, c, 40)) / (2.0 * h);
        let fc = (final_energy(k, c + h, 40) - final_energy(k, c - h, 40)) / (2.0 * h);
        assert!((dk - fk).abs() < 1e-7, "{dk} vs {fk}");
        assert!((dc - fc).abs() < 1e-7, "{dc} vs {fc}");
    }
}

#[grad]
fn sigmoid(x: f64) -> f64 {
    2.0 * x
}
#[grad]
fn own_sigmoid_by_path(x: f64) -> f64 {
    self::sigmoid(x)
}
#[grad]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += 2.0 * a[i] * b[i];
    }
    s
}
#[grad]
fn own_dot_by_path(xs: &[f64], ys: &[f64]) -> f64 {
    crate::dot(xs, ys)
}
/// A function of the user's named like a runtime one is theirs when called
/// by its path (a bare call is a compile error: tests/ui/runtime_name_shadowed.rs).
#[test]
fn own_functions_named_like_runtime_ones_called_by_path() {
    let (v, dx) = own_sigmoid_by_path_grad(1.0);
    assert_eq!(v, 2.0);
    assert_eq!(dx, 2.0);
    let (v, dx, _) = own_dot_by_path_grad(&[1.0], &[3.0]);
    assert_eq!((v, dx), (6.0, vec![6.0]));
}

/// Recursion: each level's `_grad` calls the next level's once.
#[grad]
fn power_by_recursion(x: f64, n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    x * power_by_recursion(x, n - 1)
}

#[test]
fn recursive_functions_and_their_depth() {
    let (v, d) = power_by_recursion_grad(1.5, 5);
    assert_eq!(v, 1.5f64.powi(5));
    assert_relative_eq!(d, 5.0 * 1.5f64.powi(4), max_relative = 1e-14);
    // 10,000 levels on an 8 MB stack, in a debug build too (README: about
    // 40,000 fit there, 480,000 in a release build).
    let deep = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(|| power_by_recursion_grad(1.0, 10_000))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(deep, (1.0, 10_000.0));
}

/// A callee taking an `f64` and an `f32`: the caller's adjoint (`f64`,
/// the callee's result's) is converted into the `f32` argument's.
#[grad]
fn mixed_callee(x: f64, y: f32) -> f64 {
    x * f64::from(y) + x.sin()
}

#[grad]
fn mixed_caller(x: f64, y: f32) -> f64 {
    mixed_callee(x, y) * x
}

#[test]
fn a_callee_of_f32_and_f64() {
    let (x, y) = (2.0_f64, 3.0_f32);
    let (v, dx, dy) = mixed_caller_grad(x, y);
    let c = x * f64::from(y) + x.sin();
    assert_eq!(v, c * x);
    assert_relative_eq!(dx, c + x * (f64::from(y) + x.cos()), max_relative = 1e-15);
    assert_relative_eq!(f64::from(dy), x * x, max_relative = 1e-6);
}

// Difftest seed 9137 p0054: a scalar call given a parameter `xs: &[f64;
// 3]` for its `&[f64]` and a struct's integer field cast to a float, its
// value passed on to a call returning an array: the check of the cast's
// slot gave `like(&xs)` for the slice (E0308 inside the expansion).
#[grad]
fn weighted_first(rs: &[f64], rx: f64) -> f64 {
    rs[0] * rx + rs[1] * rs[2]
}

#[grad]
fn spread3(m: f64) -> [f64; 3] {
    [m, 2.0 * m, m * m]
}

#[derive(Clone, autodiff::Differentiable)]
struct Counted {
    f: f64,
    n: usize,
}

#[grad(wrt(xs, p))]
fn cast_into_a_slice_call(xs: &[f64; 3], p: &Counted) -> f64 {
    let d = spread3(weighted_first(xs, p.n as f64));
    d[0] + d[2] * p.f
}

#[test]
fn an_array_parameter_lent_to_a_slice_beside_a_cast() {
    let xs = [0.3, -1.2, 0.8];
    let p = Counted { f: 0.7, n: 2 };
    let (v, dxs, dp) = cast_into_a_slice_call_grad(&xs, &p);
    // m = 2·x0 + x1·x2, value m + 0.7 m².
    let m = 2.0 * xs[0] + xs[1] * xs[2];
    assert_eq!(v, cast_into_a_slice_call(&xs, &p));
    let dm = 1.0 + 2.0 * 0.7 * m;
    assert!((v - (m + 0.7 * m * m)).abs() < 1e-12);
    assert!((dxs[0] - 2.0 * dm).abs() < 1e-12);
    assert!((dxs[1] - xs[2] * dm).abs() < 1e-12);
    assert!((dxs[2] - xs[1] * dm).abs() < 1e-12);
    assert!((dp.f - m * m).abs() < 1e-12);
}

/// `#[grad]` functions of another module: called by their path, through a
/// module import, a glob import, and imported by name with their siblings
/// (README, "Composing"; by name alone is `tests/ui/imported_by_name.rs`).
mod physics {
    use autodiff::grad;

    #[grad]
    pub fn potential(m: f64, h: f64) -> f64 {
        m * 9.81 * h
    }

    #[grad]
    pub fn kinetic(m: f64, v: f64) -> f64 {
        0.5 * m * v * v
    }
}

mod by_path {
    use autodiff::grad;

    #[grad]
    pub fn energy(m: f64, h: f64, v: f64) -> f64 {
        crate::physics::potential(m, h) + super::physics::kinetic(m, v)
    }
}

mod by_module {
    use crate::physics;
    use autodiff::grad;

    #[grad]
    pub fn energy(m: f64, h: f64, v: f64) -> f64 {
        physics::potential(m, h) + physics::kinetic(m, v)
    }
}

mod by_glob {
    use crate::physics::*;
    use autodiff::grad;

    #[grad]
    pub fn energy(m: f64, h: f64, v: f64) -> f64 {
        potential(m, h) + kinetic(m, v)
    }
}

mod with_siblings {
    use crate::physics::{
        __autodiff_grad_slots_kinetic, __autodiff_grad_slots_potential, kinetic, kinetic_grad,
        potential, potential_grad,
    };
    use autodiff::grad;

    #[grad]
    pub fn energy(m: f64, h: f64, v: f64) -> f64 {
        potential(m, h) + kinetic(m, v)
    }
}

#[test]
fn grad_functions_of_another_module() {
    let (m, h, v) = (1.5, 2.0, -0.7);
    // E = 9.81 m h + m v²/2.
    let want = (
        9.81 * m * h + 0.5 * m * v * v,
        9.81 * h + 0.5 * v * v,
        9.81 * m,
        m * v,
    );
    for got in [
        by_path::energy_grad(m, h, v),
        by_module::energy_grad(m, h, v),
        by_glob::energy_grad(m, h, v),
        with_siblings::energy_grad(m, h, v),
    ] {
        assert_relative_eq!(got.0, want.0, max_relative = 1e-15);
        assert_relative_eq!(got.1, want.1, max_relative = 1e-15);
        assert_relative_eq!(got.2, want.2, max_relative = 1e-15);
        assert_relative_eq!(got.3, want.3, max_relative = 1e-15);
    }
}

/// Callees that take a `Vec` or a struct by value (trial 11 r999: the
/// caller moved it into the call and its reverse sweep read it after,
/// E0382): a local `Vec`, nested calls' results, a struct a call returned,
/// bound and not.
#[grad]
fn sumsq(a: Vec<f64>) -> f64 {
    a.iter().map(|t| t * t).sum()
}

#[grad]
fn sub3(a: &[f64], b: &[f64]) -> Vec<f64> {
    vec![a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[grad]
fn cross3(u: Vec<f64>, v: Vec<f64>) -> Vec<f64> {
    vec![
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ]
}

#[grad]
fn norm3(u: Vec<f64>) -> f64 {
    (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt()
}

#[grad]
fn triangle_area(p: &[f64]) -> f64 {
    let a = &p[0..3];
    let b = &p[3..6];
    let c = &p[6..9];
    let v = vec![p[0] * 2.0, p[4]];
    0.5 * norm3(cross3(sub3(b, a), sub3(c, a))) + sumsq(v)
}

#[derive(autodiff::Differentiable, Clone)]
struct Launched {
    x: f64,
    v: f64,
    hist: Vec<f64>,
}

#[grad]
fn launch(x0: f64, v0: f64) -> Launched {
    Launched {
        x: x0,
        v: v0 * x0,
        hist: vec![x0, v0],
    }
}

#[grad(wrt(b))]
fn launched_energy(b: Launched) -> f64 {
    b.x * b.v + b.hist[1] * b.hist[0]
}

#[grad]
fn launched_twice(x0: f64, v0: f64) -> f64 {
    let b = launch(x0, v0);
    launched_energy(launch(v0, x0)) * 2.0 + launched_energy(b)
}

#[test]
fn values_given_by_value_to_callees() {
    let p = [0.3, -1.2, 0.5, 1.0, 0.2, -0.4, 0.7, 0.9, 1.1];
    let (v, g) = triangle_area_grad(&p);
    assert_eq!(v, triangle_area(&p));
    let h = 1e-6;
    for i in 0..p.len() {
        let (mut a, mut b) = (p, p);
        a[i] += h;
        b[i] -= h;
        let fd = (triangle_area(&a) - triangle_area(&b)) / (2.0 * h);
        assert_relative_eq!(g[i], fd, max_relative = 1e-6, epsilon = 1e-8);
    }
    // E(a, b) = a·ab + b·a, twice with (v0, x0), once with (x0, v0):
    // 2(v0² x0 + x0 v0) + x0² v0 + v0 x0.
    let (x0, v0) = (0.3, -1.2);
    let (v, dx, dv) = launched_twice_grad(x0, v0);
    assert_relative_eq!(
        v,
        2.0 * (v0 * v0 * x0 + x0 * v0) + x0 * x0 * v0 + v0 * x0,
        max_relative = 1e-14
    );
    assert_relative_eq!(
        dx,
        2.0 * (v0 * v0 + v0) + 2.0 * x0 * v0 + v0,
        max_relative = 1e-14
    );
    assert_relative_eq!(
        dv,
        2.0 * (2.0 * v0 * x0 + x0) + x0 * x0 + x0,
        max_relative = 1e-14
    );
}

/// A copy made for the call, `sumsq(v.clone())`, `sumsq(x.to_vec())`
/// (trial 12 r1007: "no derivative rule for the method `clone`", where
/// `let w = v.clone(); sumsq(w)` worked).
#[grad]
fn copies_given(x: &[f64]) -> f64 {
    let v = vec![x[0] * 2.0, x[1]];
    let s = sumsq(v.clone());
    s + sumsq(v.to_vec()) * v[0] + sumsq(x.to_vec()) + sumsq(x.to_owned())
}

#[test]
fn copies_made_for_the_call() {
    for x in [[0.3, 1.2], [1.5, -0.4]] {
        let (v, g) = copies_given_grad(&x);
        // s = 4x0² + x1², value s + s · 2x0 + 2 (x0² + x1²)
        let s = 4.0 * x[0] * x[0] + x[1] * x[1];
        assert_eq!(v, copies_given(&x));
        assert!((v - (s + s * 2.0 * x[0] + 2.0 * (x[0] * x[0] + x[1] * x[1]))).abs() < 1e-12);
        let d0 = 8.0 * x[0] + 2.0 * s + 16.0 * x[0] * x[0] + 4.0 * x[0];
        let d1 = 2.0 * x[1] + 4.0 * x[0] * x[1] + 4.0 * x[1];
        assert!(
            (g[0] - d0).abs() < 1e-12 && (g[1] - d1).abs() < 1e-12,
            "{g:?}"
        );
    }
}

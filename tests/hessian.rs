//! `#[grad(hessian)]`: `_hvp` and `_hessian` by forward over reverse, the
//! gradient run at dual numbers. Exact Hessians where they are known in
//! closed form (Rosenbrock, a two-variable function, a quadratic form);
//! elsewhere central differences of `_grad` (h = 1e-5, relative 1e-6,
//! absolute 1e-6), at points spread over each domain. Every Hessian is
//! symmetric to rounding, `_hvp` is `H·v`, and the gradient entries are
//! exactly `_grad`'s.

#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

use approx::assert_relative_eq;
use autodiff::{dot, grad, Float};

/// Central differences of a gradient: column j is (∇f(x + h e_j) − ∇f(x −
/// h e_j)) / 2h.
fn fd_hessian(grad: impl Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    let h = 1e-5;
    let n = x.len();
    let mut out = vec![vec![0.0; n]; n];
    for j in 0..n {
        let (mut a, mut b) = (x.to_vec(), x.to_vec());
        a[j] += h;
        b[j] -= h;
        let (ga, gb) = (grad(&a), grad(&b));
        for i in 0..n {
            out[i][j] = (ga[i] - gb[i]) / (2.0 * h);
        }
    }
    out
}

fn close(got: &[Vec<f64>], want: &[Vec<f64>], rel: f64, abs: f64) {
    assert_eq!(got.len(), want.len());
    for (r, w) in got.iter().zip(want) {
        assert_eq!(r.len(), w.len());
        for (g, w) in r.iter().zip(w) {
            assert_relative_eq!(*g, *w, max_relative = rel, epsilon = abs);
        }
    }
}

fn symmetric(h: &[Vec<f64>]) {
    for i in 0..h.len() {
        for j in 0..i {
            assert_relative_eq!(h[i][j], h[j][i], max_relative = 1e-12, epsilon = 1e-12);
        }
    }
}

// ---- Rosenbrock: the benchmark every AD library shows first ------------

#[grad(hessian)]
pub fn rosenbrock<T: Float>(x: &[T]) -> T {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}

/// Rosenbrock's Hessian in closed form.
fn rosenbrock_hessian_exact(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for i in 0..n - 1 {
        h[i][i] += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
        h[i + 1][i + 1] += 200.0;
        h[i][i + 1] -= 400.0 * x[i];
        h[i + 1][i] -= 400.0 * x[i];
    }
    h
}

#[test]
fn rosenbrock_hessian_is_exact() {
    for x in [
        vec![1.2, 0.8],
        vec![-1.5, 2.0, 0.3],
        vec![0.1, -0.7, 1.9, 1.0, -0.2, 0.5, 3.0, -2.5],
    ] {
        let (v, g, h) = rosenbrock_hessian(&x);
        let (v0, g0) = rosenbrock_grad(&x);
        assert_eq!(v, v0);
        assert_eq!(g, g0);
        close(&h, &rosenbrock_hessian_exact(&x), 1e-14, 1e-12);
        symmetric(&h);
        // `_hvp` along a direction: H·v.
        let dir: Vec<f64> = (0..x.len()).map(|k| 0.5 - k as f64 * 0.25).collect();
        let (w, gh, hv) = rosenbrock_hvp(&x, &dir);
        assert_eq!(w, v0);
        assert_eq!(gh, g0);
        for i in 0..x.len() {
            let want: f64 = (0..x.len()).map(|j| h[i][j] * dir[j]).sum();
            assert_relative_eq!(hv[i], want, max_relative = 1e-12, epsilon = 1e-10);
        }
    }
}

// ---- scalars: a closed form, constants of other types ------------------

/// f = sin(xy) + eˣ y² + k x, `k` an integer constant.
#[grad(hessian)]
pub fn mixed<T: Float>(x: T, y: T, k: usize) -> T {
    (x * y).sin() + x.exp() * y * y + T::from_f64(k as f64) * x
}

#[test]
fn a_closed_form_with_an_integer_constant() {
    for (x, y) in [(0.3f64, 0.7f64), (-1.2, 2.0), (2.5, -0.4)] {
        let (v, gx, gy, h) = mixed_hessian(x, y, 3);
        assert_eq!((v, gx, gy), mixed_grad(x, y, 3));
        let s = (x * y).sin();
        let c = (x * y).cos();
        let want = vec![
            vec![
                -y * y * s + x.exp() * y * y,
                c - x * y * s + 2.0 * x.exp() * y,
            ],
            vec![
                c - x * y * s + 2.0 * x.exp() * y,
                -x * x * s + 2.0 * x.exp(),
            ],
        ];
        close(&h, &want, 1e-13, 1e-13);
        let (_, _, _, hx, hy) = mixed_hvp(x, y, 3, 1.0, -2.0);
        assert_relative_eq!(hx, want[0][0] - 2.0 * want[0][1], max_relative = 1e-13);
        assert_relative_eq!(hy, want[1][0] - 2.0 * want[1][1], max_relative = 1e-13);
    }
}

/// A quadratic form ½ xᵀAx + bᵀx with `A` a constant matrix passed as
/// rows, `wrt(x)`: the Hessian is `(A + Aᵀ)/2`, exactly.
#[grad(hessian, wrt(x))]
pub fn quadratic<T: Float>(x: [T; 3], a: &[[f64; 3]; 3], b: [T; 3]) -> T {
    let mut s = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            s += 0.5 * T::from_f64(a[i][j]) * x[i] * x[j];
        }
        s += b[i] * x[i];
    }
    s
}

#[test]
fn a_quadratic_form_has_its_matrix_for_hessian() {
    let a = [[2.0, 1.0, 0.0], [3.0, 4.0, -1.0], [0.5, 0.0, 6.0]];
    let (_, g, h) = quadratic_hessian([0.3, -1.0, 2.0], &a, [1.0, 2.0, 3.0]);
    assert_eq!(g.len(), 3);
    for i in 0..3 {
        for j in 0..3 {
            assert_eq!(h[i][j], 0.5 * (a[i][j] + a[j][i]));
        }
    }
}

// ---- control flow, kernels, calls --------------------------------------

/// Branches, a `while` loop and a kernel (`dot`), in one function.
#[grad(hessian)]
pub fn flowing<T: Float>(w: &[T], x: &[T], t: T) -> T {
    let z = dot(w, x);
    let mut acc = if z > 0.0 { z.tanh() } else { z * z * 0.5 };
    let mut k = 0;
    while k < w.len() {
        acc += (w[k] * t).sin() * x[k];
        k += 1;
    }
    acc * acc + t.ln()
}

#[grad(hessian)]
pub fn softplus_sum<T: Float>(v: &[T], s: T) -> T {
    let mut total = 0.0;
    for e in v {
        total += (1.0 + (*e * s).exp()).ln();
    }
    total / T::from_f64(v.len() as f64)
}

/// Helpers: one returning a float taking an array, one returning an array.
#[grad]
pub fn weighted<T: Float>(w: &[T], s: T) -> T {
    let mut out = 0.0;
    for k in 0..w.len() {
        out += w[k] * w[k] * s;
    }
    out.sqrt()
}

#[grad]
pub fn rotated<T: Float>(p: [T; 2], a: T) -> [T; 2] {
    let (s, c) = a.sin_cos();
    [c * p[0] - s * p[1], s * p[0] + c * p[1]]
}

/// Calls to generic `#[grad]` helpers, at dual numbers too: a float result
/// chained through its `_grad` (an array argument included), an array
/// result through its `_vjp`, and a float result passed on whole.
#[grad(hessian)]
pub fn calling<T: Float>(w: &[T], p: [T; 2], a: T) -> T {
    let r = rotated(p, a);
    let s: T = r[0] * r[1];
    let n = weighted(w, s);
    let q = rotated(rotated(p, n), a);
    let q1: T = q[1];
    n * q[0] + softplus_sum(w, q1)
}

fn hessian_against_differences(
    hess: impl Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    points: &[Vec<f64>],
) {
    for x in points {
        let (v, g, h) = hess(x);
        let (v0, g0) = grad(x);
        assert_eq!(v, v0);
        assert_eq!(g, g0);
        symmetric(&h);
        close(&h, &fd_hessian(|y| grad(y).1, x), 1e-6, 1e-6);
    }
}

#[test]
fn control_flow_kernels_and_calls() {
    let points = [
        vec![0.5, -0.3, 0.8, 1.2, 0.4, -0.9, 1.3],
        vec![-0.7, 0.2, 0.1, 0.6, -1.1, 0.3, 0.45],
        vec![1.5, 1.0, -0.5, 0.25, 0.75, 2.0, 2.2],
    ];
    hessian_against_differences(
        |x| {
            let (v, dw, dx, dt, h) = flowing_hessian(&x[0..3], &x[3..6], x[6]);
            (v, [dw, dx, vec![dt]].concat(), h)
        },
        |x| {
            let (v, dw, dx, dt) = flowing_grad(&x[0..3], &x[3..6], x[6]);
            (v, [dw, dx, vec![dt]].concat())
        },
        &points,
    );
    hessian_against_differences(
        |x| {
            let (v, dw, dp, da, h) = calling_hessian(&x[0..4], [x[4], x[5]], x[6]);
            (v, [dw, dp.to_vec(), vec![da]].concat(), h)
        },
        |x| {
            let (v, dw, dp, da) = calling_grad(&x[0..4], [x[4], x[5]], x[6]);
            (v, [dw, dp.to_vec(), vec![da]].concat())
        },
        &points,
    );
}

/// `_hessian` carries several columns in one sweep (`Lanes`): each of its
/// columns is, bit for bit, `_hvp` along that scalar's unit vector, where
/// the active scalars span more than one sweep, in floats, slices and
/// arrays, with a constant parameter between them.
#[test]
fn each_column_is_the_hvp_of_its_unit_vector_bit_for_bit() {
    let unit =
        |n: usize, j: usize| -> Vec<f64> { (0..n).map(|i| f64::from(u8::from(i == j))).collect() };
    // 19 scalars: three sweeps of 8, the last one partly empty.
    let x: Vec<f64> = (0..19).map(|i| 0.3 + (f64::from(i) * 0.7).sin()).collect();
    let (_, _, h) = rosenbrock_hessian(&x);
    for j in 0..x.len() {
        let (_, _, hv) = rosenbrock_hvp(&x, &unit(x.len(), j));
        let column: Vec<f64> = h.iter().map(|row| row[j]).collect();
        assert_eq!(column, hv, "column {j}");
    }
    // w (9), p (2), a (1): 12 scalars.
    let w: Vec<f64> = (0..9).map(|i| 0.2 + 0.1 * f64::from(i)).collect();
    let (p, a) = ([0.5, 0.6], 0.1);
    let (_, _, _, _, h) = calling_hessian(&w, p, a);
    assert!(h.iter().flatten().all(|e| e.is_finite()));
    for j in 0..12 {
        let e = unit(12, j);
        let (_, _, _, _, hw, hp, ha) = calling_hvp(&w, p, a, &e[..9], [e[9], e[10]], e[11]);
        let column: Vec<f64> = h.iter().map(|row| row[j]).collect();
        assert_eq!(column, [hw, hp.to_vec(), vec![ha]].concat(), "column {j}");
    }
    // An integer parameter between two floats.
    let (_, _, _, h) = mixed_hessian(0.7, -1.3, 3);
    let (_, _, _, hx, hy) = mixed_hvp(0.7, -1.3, 3, 1.0, 0.0);
    assert_eq!((h[0][0], h[1][0]), (hx, hy));
}

// ---- single precision ---------------------------------------------------

#[test]
fn the_same_function_at_f32() {
    let x = [1.2f32, 0.8, -0.5];
    let (_, _, h) = rosenbrock_hessian(&x);
    let exact = rosenbrock_hessian_exact(&[1.2, 0.8, -0.5]);
    for i in 0..3 {
        for j in 0..3 {
            assert_relative_eq!(
                f64::from(h[i][j]),
                exact[i][j],
                max_relative = 1e-5,
                epsilon = 1e-4
            );
        }
    }
}

/// `.sum::<T>()` with `T: Sum` among the bounds runs at dual numbers too.
#[grad(hessian)]
pub fn summed<T: Float + std::iter::Sum>(x: &[T]) -> T {
    x.iter().map(|v| v.sin() * *v).sum::<T>()
}

#[test]
fn a_sum_at_dual_numbers() {
    let x = [0.3, -1.2, 2.0];
    let (_, _, h) = summed_hessian(&x);
    for i in 0..3 {
        for j in 0..3 {
            // d²/dx² (x sin x) = 2 cos x − x sin x, on the diagonal only.
            let want = match i == j {
                true => 2.0 * f64::cos(x[i]) - x[i] * f64::sin(x[i]),
                false => 0.0,
            };
            assert_relative_eq!(h[i][j], want, max_relative = 1e-14, epsilon = 1e-15);
        }
    }
}

#[grad]
fn sub2<T: Float>(a: [T; 2], b: [T; 2]) -> [T; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

#[grad]
fn norm2<T: Float>(v: [T; 2]) -> T {
    (v[0] * v[0] + v[1] * v[1]).sqrt()
}

/// A call's array result typed by its `let`, passed whole to a float
/// helper: chained element by element at the elements' type, so the dual
/// numbers keep the second derivative (refused before, with a message
/// that suggested typing it; new-user trial).
#[grad(hessian)]
fn cubed_distance<T: Float>(a: [T; 2], b: [T; 2]) -> T {
    let diff: [T; 2] = sub2(a, b);
    let d: T = norm2(diff);
    d * d * d
}

#[test]
fn a_typed_array_result_given_to_a_float_helper() {
    for (a, b) in [([1.0f64, 2.0], [0.5, -1.0]), ([-0.3, 0.8], [1.1, 0.4])] {
        let (v, ga, gb, h) = cubed_distance_hessian(a, b);
        let r = [a[0] - b[0], a[1] - b[1]];
        let d = (r[0] * r[0] + r[1] * r[1]).sqrt();
        assert_relative_eq!(v, d * d * d, max_relative = 1e-15);
        for i in 0..2 {
            assert_relative_eq!(ga[i], 3.0 * d * r[i], max_relative = 1e-14);
            assert_relative_eq!(gb[i], -3.0 * d * r[i], max_relative = 1e-14);
            for j in 0..2 {
                // ∂²(d³)/∂r_i∂r_j = 3 (d δ_ij + r_i r_j / d); b enters as -r.
                let hrr = 3.0 * (if i == j { d } else { 0.0 } + r[i] * r[j] / d);
                assert_relative_eq!(h[i][j], hrr, max_relative = 1e-13);
                assert_relative_eq!(h[i][j + 2], -hrr, max_relative = 1e-13);
                assert_relative_eq!(h[i + 2][j + 2], hrr, max_relative = 1e-13);
            }
        }
    }
}

/// A `&Vec<T>` and an owned `Vec<T>` parameter: each direction is a `&[T]`
/// (the `&Vec<T>` was lifted beside it as a `Vec`: E0308 inside the
/// expansion; the owned `Vec` was moved into `_grad` and read again).
#[grad(hessian)]
#[allow(clippy::ptr_arg)] // the spelling under test
fn of_vecs<T: Float>(v: &Vec<T>, w: Vec<T>) -> T {
    v[0] * v[1] * w[0] + (w[0] * v[1]).sin()
}

#[test]
fn vec_parameters() {
    let points = [vec![0.3, 0.5, 2.0], vec![-1.2, 0.7, 0.4]];
    hessian_against_differences(
        |x| {
            let (v, dv, dw, h) = of_vecs_hessian(&x[0..2].to_vec(), vec![x[2]]);
            (v, [dv, dw].concat(), h)
        },
        |x| {
            let (v, dv, dw) = of_vecs_grad(&x[0..2].to_vec(), vec![x[2]]);
            (v, [dv, dw].concat())
        },
        &points,
    );
    let x = vec![0.3, 0.5];
    let (_, _, _, h) = of_vecs_hessian(&x, vec![2.0]);
    let (_, _, _, hv, hw) = of_vecs_hvp(&x, vec![2.0], &[0.0, 1.0], &[0.0]);
    assert_eq!([hv, hw].concat(), [h[0][1], h[1][1], h[2][1]]);
}

// ---- Functions written for f64: through their generic twin -------------

/// Rosenbrock as most people write it, for `f64`.
#[grad(hessian)]
pub fn rosenbrock_f64(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}

#[test]
fn a_function_of_f64_has_the_hessian_of_its_generic_twin_bit_for_bit() {
    for x in [
        vec![-1.2, 1.0],
        vec![0.3, -0.7, 1.9, 0.05],
        vec![1.0, 1.0, 1.0],
    ] {
        let (v, g, h) = rosenbrock_f64_hessian(&x);
        let (v_t, g_t, h_t) = rosenbrock_hessian(&x);
        assert_eq!((v, &g, &h), (v_t, &g_t, &h_t));
        close(&h, &rosenbrock_hessian_exact(&x), 1e-12, 1e-12);
        // The gradient entries are `_grad`'s, of the function as written.
        assert_eq!(rosenbrock_f64_grad(&x), (v, g.clone()));
        let dir: Vec<f64> = (0..x.len()).map(|k| 0.5 - k as f64).collect();
        let (_, _, hv) = rosenbrock_f64_hvp(&x, &dir);
        let want: Vec<f64> = h
            .iter()
            .map(|row| row.iter().zip(&dir).map(|(a, b)| a * b).sum())
            .collect();
        for (a, b) in hv.iter().zip(&want) {
            assert_relative_eq!(*a, *b, max_relative = 1e-12, epsilon = 1e-12);
        }
    }
}

/// A damped pendulum's energy after a few explicit steps, written for
/// `f64` the way physics code is: `f64::` paths, `std::f64::consts`, an
/// integer cast, a suffixed literal, a branch, an array and a closure.
#[grad(hessian)]
pub fn pendulum(theta: f64, omega: f64, damping: f64, steps: usize) -> f64 {
    let dt = 0.05f64;
    let g = 9.81;
    let spring = |a: f64| -> f64 { -g * f64::sin(a) };
    let mut state = [theta, omega];
    for k in 0..steps {
        let t = k as f64 * dt;
        let forcing = 0.1 * (2.0 * std::f64::consts::PI * t).cos();
        let acc = spring(state[0]) - damping * state[1] + forcing;
        state[1] += dt * acc;
        state[0] += dt * state[1];
    }
    let kinetic = 0.5 * state[1].powi(2);
    let potential = if state[0].abs() < 1.0 {
        g * (1.0 - state[0].cos())
    } else {
        g * state[0].abs().sqrt()
    };
    kinetic + potential
}

#[test]
fn physics_written_for_f64_against_central_differences() {
    for (theta, omega, damping) in [
        (0.3, -0.2, 0.1),
        (-0.8, 1.5, 0.4),
        (0.05, 0.0, 0.0),
        (1.4, 0.9, 0.2),
    ] {
        let (v, a, b, c, h) = pendulum_hessian(theta, omega, damping, 12);
        assert_eq!(pendulum_grad(theta, omega, damping, 12), (v, a, b, c));
        symmetric(&h);
        let grad = |p: &[f64]| {
            let (_, a, b, c) = pendulum_grad(p[0], p[1], p[2], 12);
            vec![a, b, c]
        };
        close(&h, &fd_hessian(grad, &[theta, omega, damping]), 1e-6, 1e-6);
    }
}

/// The same for `f32`.
#[grad(hessian)]
fn well_f32(x: f32, y: f32) -> f32 {
    (x * x - 1.0).powi(2) + 2.0f32 * y * y + x * y.sin()
}

#[test]
fn a_function_of_f32() {
    let (v, gx, gy, h) = well_f32_hessian(0.7, -0.4);
    assert_eq!(well_f32_grad(0.7, -0.4), (v, gx, gy));
    let (x, y) = (0.7f32, -0.4f32);
    let want = [[12.0 * x * x - 4.0, y.cos()], [y.cos(), 4.0 - x * y.sin()]];
    for i in 0..2 {
        for j in 0..2 {
            assert_relative_eq!(h[i][j], want[i][j], max_relative = 1e-5);
        }
    }
}

/// An integer bound by `let` from a length (`let n = xs.len();`, `let m =
/// n - 1;`) and cast to the float, in a function written for `f64`: the
/// twin reads it as the integer it is.
#[grad(hessian)]
fn mean_of_cubes(xs: &[f64]) -> f64 {
    let n = xs.len();
    let m = n - 1;
    let mut s = 0.0;
    for i in 0..n {
        s += xs[i] * xs[i] * xs[0];
    }
    s / n as f64 + xs[m] / m as f64
}

#[test]
fn an_integer_bound_from_a_length_casts_in_the_twin() {
    let (v, g, h) = mean_of_cubes_hessian(&[1.0, 2.0, 3.0]);
    assert_relative_eq!(v, 14.0 / 3.0 + 1.5, max_relative = 1e-15);
    assert_relative_eq!(g[0], 16.0 / 3.0, max_relative = 1e-15);
    assert_relative_eq!(g[1], 4.0 / 3.0, max_relative = 1e-15);
    assert_relative_eq!(g[2], 2.5, max_relative = 1e-15);
    let expected = [
        [2.0, 4.0 / 3.0, 2.0],
        [4.0 / 3.0, 2.0 / 3.0, 0.0],
        [2.0, 0.0, 2.0 / 3.0],
    ];
    for (row, e) in h.iter().zip(expected) {
        for (a, b) in row.iter().zip(e) {
            assert_relative_eq!(*a, b, max_relative = 1e-14, epsilon = 1e-15);
        }
    }
}

/// `PI` read bare after `use std::f64::consts::PI;`, in a function
/// written for `f64`: converted in the twin by its own name.
use std::f64::consts::PI;

#[grad(hessian)]
fn wave(x: f64, y: f64) -> f64 {
    (PI * x).sin() * y * y + std::f64::consts::TAU * x
}

#[test]
fn a_constant_named_after_a_use_in_the_twin() {
    let (v, gx, gy, h) = wave_hessian(0.25, 2.0);
    let (s, c) = (PI * 0.25).sin_cos();
    assert_relative_eq!(v, s * 4.0 + 2.0 * PI * 0.25, max_relative = 1e-15);
    assert_relative_eq!(gx, PI * c * 4.0 + 2.0 * PI, max_relative = 1e-15);
    assert_relative_eq!(gy, 4.0 * s, max_relative = 1e-15);
    assert_relative_eq!(h[0][0], -PI * PI * s * 4.0, max_relative = 1e-14);
    assert_relative_eq!(h[0][1], 4.0 * PI * c, max_relative = 1e-14);
    assert_relative_eq!(h[1][1], 2.0 * s, max_relative = 1e-14);
}

/// An `f64` function calling the kernels in a loop: its generic twin calls
/// the same kernels, which are generic over the float type, at dual
/// numbers.
#[grad(hessian, wrt(w))]
fn softmax_regression(w: &[f64], xs: &[f64], labels: &[usize]) -> f64 {
    let d = 2;
    let mut nll = 0.0;
    for i in 0..labels.len() {
        let x = &xs[i * d..(i + 1) * d];
        let logits = autodiff::matvec(w, x, 3);
        nll += autodiff::softmax_cross_entropy(&logits, labels[i]);
        let p: Vec<f64> = autodiff::softmax(&logits);
        nll += 0.1 * dot(&p, &p) + autodiff::logsumexp(&p);
    }
    nll
}

#[test]
fn kernels_in_a_loop_of_an_f64_function() {
    let xs = [0.4, -1.2, -0.9, 0.3, 1.1, 0.8];
    let labels = [2, 0, 1];
    let points: Vec<Vec<f64>> = [-1.0, 0.35, 1.4]
        .iter()
        .map(|s| (0..6).map(|k| s * (0.7 * k as f64 + 0.3).sin()).collect())
        .collect();
    hessian_against_differences(
        |w| softmax_regression_hessian(w, &xs, &labels),
        |w| softmax_regression_grad(w, &xs, &labels),
        &points,
    );
}

/// Weights given as integers (`k: &[u32]`, `j: &[usize]`) cast to
/// the float type: the twin converts the cast, which is of an integer
/// for sure (its parameter's type says so).
#[grad(hessian)]
fn weighted_counts(x: &[f64], k: &[u32], j: &[usize]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i] * (k[i] as f64) + x[i] * (j[i] as f64);
    }
    s * x[0]
}

#[test]
fn integer_weights_cast_to_the_float_type() {
    let (x, k, jj) = ([1.5, -2.0, 0.5], [3u32, 1, 4], [2usize, 5, 1]);
    let (v, g, h) = weighted_counts_hessian(&x, &k, &jj);
    // s = Σ kᵢ xᵢ² + jᵢ xᵢ, f = s x₀.
    let s: f64 = (0..3)
        .map(|i| k[i] as f64 * x[i] * x[i] + jj[i] as f64 * x[i])
        .sum();
    assert_relative_eq!(v, s * x[0], max_relative = 1e-15);
    for i in 0..3 {
        let ds = 2.0 * k[i] as f64 * x[i] + jj[i] as f64;
        let want = ds * x[0] + if i == 0 { s } else { 0.0 };
        assert_relative_eq!(g[i], want, max_relative = 1e-14);
        for m in 0..3 {
            let dsi = 2.0 * k[i] as f64 * x[i] + jj[i] as f64;
            let dsj = 2.0 * k[m] as f64 * x[m] + jj[m] as f64;
            let mut want = if i == m {
                2.0 * k[i] as f64 * x[0]
            } else {
                0.0
            };
            if i == 0 {
                want += dsj;
            }
            if m == 0 {
                want += dsi;
            }
            assert_relative_eq!(h[i][m], want, max_relative = 1e-14, epsilon = 1e-14);
        }
    }
}

/// An iterator drained by `while let` (trial 7 r211): refused under
/// `hessian` before, with advice that was refused in turn.
#[grad(hessian)]
#[allow(clippy::while_let_on_iterator)]
fn drained(mu: f64, xs: &[f64]) -> f64 {
    let mut acc = 0.0;
    let mut it = xs.iter();
    while let Some(&y) = it.next() {
        acc += (y * mu).sin();
    }
    let mut copied = xs.iter().copied();
    while let Some(y) = copied.next() {
        acc += 0.5 * (y * mu).cos();
    }
    acc
}

#[test]
fn second_derivatives_of_while_let_loops() {
    let xs = [1.0, 2.0, -0.5];
    for mu in [0.5, -1.2, 2.0] {
        let (v, g, _, h) = drained_hessian(mu, &xs);
        assert_eq!(v, drained(mu, &xs));
        let d1: f64 = xs
            .iter()
            .map(|y| y * (y * mu).cos() - 0.5 * y * (y * mu).sin())
            .sum();
        let d2: f64 = xs
            .iter()
            .map(|y| -y * y * (y * mu).sin() - 0.5 * y * y * (y * mu).cos())
            .sum();
        assert_relative_eq!(g, d1, max_relative = 1e-12);
        assert_relative_eq!(h[0][0], d2, max_relative = 1e-12);
    }
}

/// `Vec::new()` and `Vec::with_capacity(n)` filled by `push` (trial 6
/// r160): the twin took them for functions of the user's.
#[grad(hessian)]
fn pushed(mu: f64, xs: &[f64]) -> f64 {
    let mut v: Vec<f64> = Vec::new();
    let mut w = Vec::with_capacity(xs.len());
    for &x in xs {
        v.push((x * mu).sin());
        w.push(x * mu * mu);
    }
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * w[i];
    }
    s
}

#[test]
fn second_derivatives_through_pushed_vecs() {
    let xs = [1.0, 2.0, -0.5];
    for mu in [0.7, -1.1] {
        // Σ x mu² sin(x mu).
        let (v, g, _, h) = pushed_hessian(mu, &xs);
        assert_eq!(v, pushed(mu, &xs));
        let d1: f64 = xs
            .iter()
            .map(|x| x * (2.0 * mu * (x * mu).sin() + mu * mu * x * (x * mu).cos()))
            .sum();
        let d2: f64 = xs
            .iter()
            .map(|x| {
                x * (2.0 * (x * mu).sin() + 4.0 * mu * x * (x * mu).cos()
                    - mu * mu * x * x * (x * mu).sin())
            })
            .sum();
        assert_relative_eq!(g, d1, max_relative = 1e-12);
        assert_relative_eq!(h[0][0], d2, max_relative = 1e-12);
    }
}

/// A double buffer exchanged by `std::mem::swap` and a total taken by
/// `std::mem::replace`, written for `f64` (trial 11 C1): the twin took
/// `std::mem::swap` for a function of the user's and refused it.
#[grad(hessian)]
fn swapped_buffers(u0: &[f64], k: f64) -> f64 {
    let n = u0.len();
    let mut u: Vec<f64> = u0.to_vec();
    let mut next: Vec<f64> = vec![0.0; n];
    for _ in 0..4 {
        for i in 1..n - 1 {
            next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]) * u[i];
        }
        next[0] = u[0];
        next[n - 1] = u[n - 1];
        std::mem::swap(&mut u, &mut next);
    }
    let mut acc = 0.0;
    for i in 0..n {
        acc += u[i] * u[i];
    }
    let old = std::mem::replace(&mut acc, 0.5);
    old * acc
}

#[test]
fn second_derivatives_through_mem_swap_and_replace() {
    let grad = |q: &[f64]| {
        let (_, mut g, dk) = swapped_buffers_grad(&q[..4], q[4]);
        g.push(dk);
        g
    };
    for x in [[0.1, 0.5, 0.9, 0.4, 0.3], [-0.4, 0.2, -0.7, 1.1, -0.2]] {
        let (v, du, dk, h) = swapped_buffers_hessian(&x[..4], x[4]);
        assert_eq!(v, swapped_buffers(&x[..4], x[4]));
        let mut g = du;
        g.push(dk);
        assert_eq!(g, grad(&x));
        close(&h, &fd_hessian(grad, &x), 1e-6, 1e-8);
        symmetric(&h);
    }
}

/// One element of a tuple `fold`'s result (trial 11 C3), and a fold
/// whose closure takes its element by `&x` (C2), each refused before.
#[grad(jvp, hessian)]
fn fold_parts(p: &[f64]) -> f64 {
    let prod = p
        .iter()
        .copied()
        .fold((1.0, 0.0), |(b, a), x| (b * x, a + x))
        .0;
    let var = p
        .iter()
        .fold((0.0, 0.0), |(s, s2), &x| (s + x, s2 + x * x))
        .1
        * 0.5;
    let mapped = p.iter().map(|&x| x * x).fold(0.0, |a, b| a + b);
    prod + var + mapped.sin()
}

#[test]
fn second_derivatives_of_a_tuple_folds_element() {
    let grad = |q: &[f64]| fold_parts_grad(q).1;
    for x in [[0.3, -1.2, 0.7], [1.5, 0.4, -0.9]] {
        let (v, g) = fold_parts_grad(&x);
        let sq: f64 = x.iter().map(|a| a * a).sum();
        assert_relative_eq!(
            v,
            x[0] * x[1] * x[2] + 0.5 * sq + sq.sin(),
            max_relative = 1e-14
        );
        for i in 0..3 {
            let others: f64 = (0..3).filter(|&j| j != i).map(|j| x[j]).product();
            let want = others + x[i] + 2.0 * x[i] * sq.cos();
            assert_relative_eq!(g[i], want, max_relative = 1e-12);
        }
        let (_, gh, h) = fold_parts_hessian(&x);
        assert_eq!(gh, g);
        close(&h, &fd_hessian(grad, &x), 1e-6, 1e-8);
        symmetric(&h);
        let (vj, d) = fold_parts_jvp(&x, &[0.5, -1.0, 2.0]);
        assert_eq!(vj, v);
        assert_relative_eq!(d, 0.5 * g[0] - g[1] + 2.0 * g[2], max_relative = 1e-12);
    }
}

/// Horner's rule in reverse over a range, `(0..n).rev()`, a range by
/// steps, and a const generic length, in functions written for `f64`
/// (trial 12 r1025, r1026: refused as a `for` that may bind floats by
/// reference, and `N` as an item outside the function).
#[grad(hessian)]
fn reversed_horner(c: &[f64], x: f64) -> f64 {
    let n = c.len();
    let mut acc = 0.0;
    for i in (0..n).rev() {
        acc = acc * x + c[i];
    }
    let mut s = 0.0;
    for i in (0..n).step_by(2) {
        s += c[i] * x;
    }
    acc * s
}

#[grad(jvp, hessian)]
fn const_generic_horner<const N: usize>(c: [f64; N], x: f64) -> f64 {
    let mut acc = 0.0;
    for i in (0..N).rev() {
        acc = acc * x + c[i];
    }
    acc * (N as f64)
}

#[test]
fn second_derivatives_over_reversed_ranges_and_const_generics() {
    let grad = |q: &[f64]| {
        let (_, mut g, gx) = reversed_horner_grad(&q[..3], q[3]);
        g.push(gx);
        g
    };
    for x in [[1.0, -2.0, 0.5, 0.3], [0.4, 1.5, -1.0, -1.1]] {
        let (v, mut g, gx, h) = reversed_horner_hessian(&x[..3], x[3]);
        assert_eq!(v, reversed_horner(&x[..3], x[3]));
        g.push(gx);
        assert_eq!(g, grad(&x));
        close(&h, &fd_hessian(grad, &x), 1e-6, 1e-8);
        symmetric(&h);
    }
    // 3 (c0 + c1 x + c2 x²)
    let (v, gc, gx, h) = const_generic_horner_hessian([1.0, 2.0, 3.0], 0.5);
    assert_eq!(v, 8.25);
    assert_eq!((gc, gx), ([3.0, 1.5, 0.75], 15.0));
    let want = [
        [0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 3.0],
        [0.0, 0.0, 0.0, 3.0],
        [0.0, 3.0, 3.0, 18.0],
    ];
    for i in 0..4 {
        assert_eq!(h[i], want[i].to_vec());
    }
}

/// Slice methods generic over their elements (`copy_from_slice`, `fill`,
/// `to_owned`) and a float's method given as a function (`reduce(f64::max)`,
/// `fold(.., f64::max)`) in a function written for `f64` (trial 12 r1015:
/// "cannot tell is a method of the float type or of a slice").
#[grad(hessian)]
fn buffered_heat(u0: &[f64], k: f64) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut tmp = vec![0.0; n];
    for _ in 0..3 {
        for i in 1..n - 1 {
            tmp[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]) * u[i];
        }
        tmp[0] = u[0];
        tmp[n - 1] = u[n - 1];
        u.copy_from_slice(&tmp);
        tmp.fill(0.0);
    }
    let s = u.to_owned();
    let top = u.iter().copied().reduce(f64::max).unwrap();
    let low = u.iter().copied().fold(f64::INFINITY, f64::min);
    s[0] * s[1] + top * low
}

#[test]
fn second_derivatives_through_slice_methods_and_float_functions() {
    let grad = |q: &[f64]| {
        let (_, mut g, gk) = buffered_heat_grad(&q[..4], q[4]);
        g.push(gk);
        g
    };
    for x in [[0.1, 0.5, 0.9, 0.4, 0.3], [-0.4, 0.2, -0.7, 1.1, -0.2]] {
        let (v, mut g, gk, h) = buffered_heat_hessian(&x[..4], x[4]);
        assert_eq!(v, buffered_heat(&x[..4], x[4]));
        g.push(gk);
        assert_eq!(g, grad(&x));
        close(&h, &fd_hessian(grad, &x), 1e-6, 1e-8);
        symmetric(&h);
    }
}

/// A sub-slice copied, `let a: Vec<T> = xs[..2].to_vec();`, and the copy
/// lent to a `#[grad]` callee (trial 12 r1097: the copy was code kept as
/// written, and the refusal spoke of a reference made to point elsewhere).
#[grad(hessian)]
fn cubed<T: Float>(v: &[T]) -> T {
    let mut s = T::from_f64(0.0);
    for i in 0..v.len() {
        s += v[i] * v[i] * v[i];
    }
    s
}

#[grad(hessian)]
fn copied_parts<T: Float>(xs: &[T], k: T) -> T {
    let a: Vec<T> = xs[..2].to_vec();
    let b = xs[1..].to_owned();
    let head: T = cubed(&a);
    let tail: T = cubed(&b);
    head * k + tail * tail
}

#[test]
fn second_derivatives_through_copied_sub_slices() {
    let grad = |q: &[f64]| {
        let (_, mut g, gk) = copied_parts_grad(&q[..4], q[4]);
        g.push(gk);
        g
    };
    for x in [[0.3, -0.7, 1.1, 0.5, 1.5], [-0.2, 0.4, 0.9, -1.3, -0.6]] {
        let (v, mut g, gk, h) = copied_parts_hessian(&x[..4], x[4]);
        assert_eq!(v, copied_parts(&x[..4], x[4]));
        g.push(gk);
        assert_eq!(g, grad(&x));
        let cube = |s: &[f64]| s.iter().map(|t| t * t * t).sum::<f64>();
        let (head, tail) = (cube(&x[..2]), cube(&x[1..4]));
        assert_relative_eq!(gk, head, max_relative = 1e-14);
        assert_relative_eq!(g[3], 2.0 * tail * 3.0 * x[3] * x[3], max_relative = 1e-14);
        close(&h, &fd_hessian(grad, &x), 1e-6, 1e-8);
        symmetric(&h);
    }
}

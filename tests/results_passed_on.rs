//! A call's result that the caller only passes on whole, to other
//! `#[grad]` calls, without stating its type: `let arm = sub(&r, &p);
//! cross(arm, f)`, `cross(sub(&b, &a), sub(&c, &a))`, `h(g(x), y)`. The
//! caller cannot see whether it is a float, an array, a `Vec` or a struct;
//! every `#[grad]` function has a `_vjp` (a scalar one's is `seed` times
//! its gradient), so the call goes through the callee's `_vjp` slots and
//! rustc checks the seed's type. Values exactly the function's, gradients
//! against central differences (h = 1e-6, relative 1e-6, absolute 1e-8)
//! at points spread over each domain, and exact where the gradient is
//! known in closed form.

#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

use approx::assert_relative_eq;
use autodiff::{grad, Differentiable};

/// Central differences of `f` at `x`, one entry per coordinate.
fn central(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|k| {
            let (mut a, mut b) = (x.to_vec(), x.to_vec());
            a[k] += h;
            b[k] -= h;
            (f(&a) - f(&b)) / (2.0 * h)
        })
        .collect()
}

fn close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_relative_eq!(*g, *w, max_relative = 1e-6, epsilon = 1e-8);
    }
}

// ---- arrays: vector helpers, as a physics user writes them ------------

#[grad]
pub fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[grad]
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[grad]
pub fn norm(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// The torque's magnitude: the lever arm bound, passed on whole.
#[grad]
pub fn torque(r: [f64; 3], p: [f64; 3], f: [f64; 3]) -> f64 {
    let arm = sub(&r, &p);
    let t = cross(arm, f);
    norm(t)
}

/// A triangle's area: calls nested in calls, none of their results named.
#[grad]
pub fn area(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> f64 {
    0.5 * norm(cross(sub(&b, &a), sub(&c, &a)))
}

fn split9(x: &[f64]) -> ([f64; 3], [f64; 3], [f64; 3]) {
    ([x[0], x[1], x[2]], [x[3], x[4], x[5]], [x[6], x[7], x[8]])
}

#[test]
fn vector_helpers_passed_on_whole() {
    let points: [[f64; 9]; 3] = [
        [1.0, 0.2, -0.3, 0.1, 0.5, 0.4, 0.3, -1.0, 2.0],
        [-2.0, 1.5, 0.7, 0.9, -0.4, 1.1, -0.6, 0.8, -1.3],
        [0.05, -0.3, 3.0, 2.2, 1.7, -0.9, 1.4, 0.35, 0.6],
    ];
    for x in points {
        let (r, p, f) = split9(&x);
        let (v, dr, dp, df) = torque_grad(r, p, f);
        assert_eq!(v, torque(r, p, f));
        let fd = central(
            |y| {
                let (r, p, f) = split9(y);
                torque(r, p, f)
            },
            &x,
        );
        close(&[dr, dp, df].concat(), &fd);

        let (a, b, c) = split9(&x);
        let (v, da, db, dc) = area_grad(a, b, c);
        assert_eq!(v, area(a, b, c));
        let fd = central(
            |y| {
                let (a, b, c) = split9(y);
                area(a, b, c)
            },
            &x,
        );
        close(&[da, db, dc].concat(), &fd);
    }
}

// ---- floats: a chain of scalar helpers --------------------------------

#[grad(jvp)]
pub fn squash(x: f64) -> f64 {
    x.tanh() * 2.0
}

#[grad(jvp)]
pub fn blend(x: f64, y: f64) -> f64 {
    x * y + x.exp()
}

/// `blend(squash(x), y)`: exactly `2 tanh(x) y + exp(2 tanh x)`.
#[grad(jvp)]
pub fn chained(x: f64, y: f64) -> f64 {
    let s = squash(x);
    blend(s, y)
}

#[grad(jvp)]
pub fn nested(x: f64, y: f64) -> f64 {
    blend(squash(x), squash(y))
}

#[test]
fn float_results_passed_on_whole() {
    for (x, y) in [(0.3, 2.0), (-1.4, 0.45), (2.2, -1.1)] {
        let s = 2.0 * f64::tanh(x);
        let ds = 2.0 * (1.0 - x.tanh().powi(2));
        let (v, dx, dy) = chained_grad(x, y);
        assert_eq!(v, chained(x, y));
        assert_relative_eq!(dx, (y + s.exp()) * ds, max_relative = 1e-14);
        assert_relative_eq!(dy, s, max_relative = 1e-14);
        // Forward mode takes the same calls as floats.
        let (w, t) = chained_jvp(x, y, 0.5, -2.0);
        assert_eq!(w, v);
        assert_relative_eq!(t, 0.5 * dx - 2.0 * dy, max_relative = 1e-14);

        let (v, dx, dy) = nested_grad(x, y);
        assert_eq!(v, nested(x, y));
        close(&[dx, dy], &central(|z| nested(z[0], z[1]), &[x, y]));
        let (_, t) = nested_jvp(x, y, 1.0, 1.0);
        assert_relative_eq!(t, dx + dy, max_relative = 1e-12);
    }
}

/// A scalar function's `_vjp` is its gradient times the seed.
#[test]
fn a_scalar_vjp_is_the_gradient_scaled() {
    let (v, dx, dy) = blend_grad(0.7, -0.2);
    let (w, sx, sy) = blend_vjp(0.7, -0.2, -3.0);
    assert_eq!(w, v);
    assert_relative_eq!(sx, -3.0 * dx, max_relative = 1e-15);
    assert_relative_eq!(sy, -3.0 * dy, max_relative = 1e-15);
    let (_, z) = squash_vjp(0.4, 0.0);
    assert_eq!(z, 0.0);
}

// ---- Vecs: a small network's layers -----------------------------------

#[grad]
pub fn dense(w: &[f64], b: &[f64], x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut out = Vec::with_capacity(b.len());
    for i in 0..b.len() {
        let mut acc = b[i];
        for j in 0..n {
            acc += w[i * n + j] * x[j];
        }
        out.push(acc);
    }
    out
}

#[grad]
pub fn softplus_all(z: &[f64]) -> Vec<f64> {
    z.iter().map(|v| (1.0 + v.exp()).ln()).collect()
}

#[grad]
pub fn sum_squares(h: &[f64]) -> f64 {
    h.iter().map(|v| v * v).sum()
}

/// Two layers, each result lent whole to the next call.
#[grad(wrt(w1, w2))]
pub fn two_layers(w1: &[f64], w2: &[f64], b1: &[f64], b2: &[f64], x: &[f64]) -> f64 {
    let z1 = dense(w1, b1, x);
    let h1 = softplus_all(&z1);
    let z2 = dense(w2, b2, &h1);
    sum_squares(&softplus_all(&z2))
}

#[test]
fn vec_results_lent_whole() {
    let x = [0.5, -1.0, 2.0];
    let b1 = [0.1, -0.2];
    let b2 = [0.3, 0.0];
    let w1 = [0.2, -0.4, 0.1, 0.7, 0.05, -0.3];
    let w2 = [-0.6, 0.25, 0.9, -0.15];
    let (v, d1, d2) = two_layers_grad(&w1, &w2, &b1, &b2, &x);
    assert_eq!(v, two_layers(&w1, &w2, &b1, &b2, &x));
    close(&d1, &central(|w| two_layers(w, &w2, &b1, &b2, &x), &w1));
    close(&d2, &central(|w| two_layers(&w1, w, &b1, &b2, &x), &w2));
}

// ---- structs and methods ----------------------------------------------

#[derive(Clone, Copy, Debug, Differentiable)]
pub struct State {
    pub q: f64,
    pub v: f64,
}

#[grad]
pub fn state(q: f64, v: f64) -> State {
    State { q, v: v * q }
}

#[grad(wrt(s, k))]
pub fn energy(s: State, k: f64) -> f64 {
    0.5 * s.v * s.v + 0.5 * k * s.q * s.q
}

pub struct Spring {
    pub k: f64,
}

impl Spring {
    #[grad]
    pub fn pull(&self, x: [f64; 3], y: [f64; 3]) -> [f64; 3] {
        [
            self.k * (x[0] - y[0]),
            self.k * (x[1] - y[1]),
            self.k * (x[2] - y[2]),
        ]
    }

    /// A method's array result, passed on whole to a free function.
    #[grad]
    pub fn force(&self, x: [f64; 3], y: [f64; 3]) -> f64 {
        let f = self.pull(x, y);
        norm(f)
    }
}

/// A struct a call returns, passed on whole to another call.
#[grad]
pub fn energy_of(q: f64, v: f64, k: f64) -> f64 {
    let s = state(q, v);
    energy(s, k)
}

#[test]
fn structs_and_methods_passed_on_whole() {
    for x in [[0.3, 2.0, 1.5], [-1.2, 0.4, 0.2], [2.5, -0.7, 3.0]] {
        let (v, dq, dv, dk) = energy_of_grad(x[0], x[1], x[2]);
        assert_eq!(v, energy_of(x[0], x[1], x[2]));
        close(&[dq, dv, dk], &central(|y| energy_of(y[0], y[1], y[2]), &x));
    }
    let s = Spring { k: 1.7 };
    let (x, y) = ([0.3, -0.2, 1.0], [1.1, 0.4, -0.5]);
    let (v, dx, dy) = s.force_grad(x, y);
    assert_eq!(v, s.force(x, y));
    let fd = central(
        |z| s.force([z[0], z[1], z[2]], [z[3], z[4], z[5]]),
        &[x, y].concat(),
    );
    close(&[dx, dy].concat(), &fd);
}

// ---- in a time loop -----------------------------------------------------

#[grad]
pub fn rhs(s: [f64; 2], w: f64) -> [f64; 2] {
    [s[1], -w * w * s[0] - 0.1 * s[1]]
}

#[grad]
pub fn axpy(s: [f64; 2], k: [f64; 2], h: f64) -> [f64; 2] {
    [s[0] + h * k[0], s[1] + h * k[1]]
}

/// Midpoint steps of a damped oscillator: each stage's result passed on
/// whole to the next call, the state replaced by the last.
#[grad]
pub fn oscillator(q0: f64, w: f64) -> f64 {
    let mut s = [q0, 0.0];
    let h = 0.05;
    for _ in 0..40 {
        let k1 = rhs(s, w);
        let mid = axpy(s, k1, 0.5 * h);
        let k2 = rhs(mid, w);
        let next: [f64; 2] = axpy(s, k2, h);
        s = next;
    }
    s[0] * s[0] + s[1]
}

#[test]
fn stages_of_a_time_step_passed_on_whole() {
    for x in [[1.0, 2.0], [-0.4, 0.7], [2.3, 3.1]] {
        let (v, dq, dw) = oscillator_grad(x[0], x[1]);
        assert_eq!(v, oscillator(x[0], x[1]));
        close(&[dq, dw], &central(|y| oscillator(y[0], y[1]), &x));
    }
}

// ---- fallible callees ---------------------------------------------------

#[grad]
pub fn checked_ln(x: f64) -> Result<f64, String> {
    if x <= 0.0 {
        return Err(format!("ln of {x}"));
    }
    Ok(x.ln())
}

#[grad]
pub fn log_blend(x: f64, y: f64) -> Result<f64, String> {
    let l = checked_ln(x)?;
    Ok(blend(l, y))
}

#[test]
fn a_fallible_result_passed_on_whole() {
    for (x, y) in [(0.3, 2.0), (1.7, -0.5), (4.0, 0.1)] {
        let (v, dx, dy) = log_blend_grad(x, y).unwrap();
        assert_eq!(v, log_blend(x, y).unwrap());
        close(
            &[dx, dy],
            &central(|z| log_blend(z[0], z[1]).unwrap(), &[x, y]),
        );
    }
    assert_eq!(log_blend_grad(-1.0, 2.0), Err("ln of -1".to_string()));
}

// ---- names in the arms a `continue` copies the rest of the loop into ---

#[derive(Clone, Debug, Differentiable)]
pub struct Cell {
    pub a: f64,
    pub b: f64,
}

impl Cell {
    #[grad(wrt(self))]
    pub fn energy(&self, k: usize) -> f64 {
        self.a * self.b + k as f64
    }
}

#[grad]
pub fn pair_of(u: f64, v: f64) -> [f64; 2] {
    [u, v.tanh() + u.cos()]
}

/// The statements after a `match` with a `continue` are copied into the
/// arms that go on; in each copy, a method of a local struct is called
/// twice, once passed on whole to a call, once as a fold's start. The
/// copies' values once shared names by chance across arms (difftest seed
/// 2024, program 201: `match` arms of incompatible types, inside the
/// expansion).
#[grad]
pub fn continued(x: f64, y: f64, n: usize) -> f64 {
    let mut c = Cell { a: x, b: y * x };
    let mut s = 0.0;
    #[autodiff::checkpoint(every = 2)]
    for i in 0..4 {
        match (n + i) % 3 {
            1 => {
                s *= 0.5;
                continue;
            }
            0 => {
                c.b = c.b * 0.9 + 0.1;
            }
            _ => s = s * 0.9 + y,
        }
        let d = pair_of(x.tanh(), c.energy(0));
        s += d[0] * d[1] + (0..2).fold(c.energy(1), |acc, j| acc * 0.5 + j as f64);
    }
    s + c.b
}

#[test]
fn methods_in_the_copies_a_continue_makes() {
    for n in 0..3 {
        for x in [[0.3, 1.2], [-0.8, 0.5], [1.5, -0.4]] {
            let (v, dx, dy) = continued_grad(x[0], x[1], n);
            assert_eq!(v, continued(x[0], x[1], n));
            close(&[dx, dy], &central(|z| continued(z[0], z[1], n), &x));
        }
    }
}

// ---- through branches, copies and a loop's state ----------------------

#[grad]
pub fn rot(v: [f64; 2], a: f64) -> [f64; 2] {
    [
        a.cos() * v[0] - a.sin() * v[1],
        a.sin() * v[0] + a.cos() * v[1],
    ]
}

#[grad]
pub fn stretch(v: [f64; 2], a: f64) -> [f64; 2] {
    [a * v[0], v[1] / a]
}

#[grad]
pub fn len2(v: [f64; 2]) -> f64 {
    v[0] * v[0] + v[1] * v[1]
}

/// Branches that end with calls returning arrays, the result passed on
/// whole and read in parts; a copy of a call's result.
#[grad]
pub fn branched(v: [f64; 2], a: f64, rotate: bool) -> f64 {
    let k = if rotate { rot(v, a) } else { stretch(v, a) };
    let j = match rotate {
        true => stretch(k, a),
        false => rot(k, a),
    };
    let copy = j;
    len2(copy) + k[0] * k[1]
}

#[grad]
pub fn start(q0: f64, v0: f64) -> [f64; 2] {
    [q0, v0 * q0]
}

#[grad]
pub fn kick(s: [f64; 2], w: f64, dt: f64) -> [f64; 2] {
    let v = s[1] - dt * w * w * s[0].sin();
    [s[0] + dt * v, v]
}

/// A pendulum's state from a call, replaced by a call each step, then
/// read in parts, with and without its type; and one passed on whole.
#[grad]
pub fn pendulum(q0: f64, v0: f64, w: f64) -> f64 {
    let mut s = start(q0, v0);
    for _ in 0..25 {
        s = kick(s, w, 0.05);
    }
    let mut t: [f64; 2] = start(v0, q0);
    for k in 0..10 {
        if k % 3 == 0 {
            t = kick(t, w, 0.1);
        }
    }
    let mut u = start(q0, w);
    for _ in 0..5 {
        u = rot(u, 0.1 * w);
    }
    s[0] * s[0] + s[1] + t[0] * t[1] + len2(u)
}

#[test]
fn through_branches_copies_and_loop_states() {
    for (v, a) in [([1.0, 2.0], 0.3), ([-0.5, 0.7], 1.4), ([2.0, -1.0], -0.6)] {
        for rotate in [true, false] {
            let (f, dv, da) = branched_grad(v, a, rotate);
            assert_eq!(f, branched(v, a, rotate));
            let fd = central(|z| branched([z[0], z[1]], z[2], rotate), &[v[0], v[1], a]);
            close(&[dv[0], dv[1], da], &fd);
        }
    }
    for x in [[0.5, 0.1, 2.0], [-1.0, 0.8, 1.3], [2.0, -0.4, 0.7]] {
        let (f, dq, dv, dw) = pendulum_grad(x[0], x[1], x[2]);
        assert_eq!(f, pendulum(x[0], x[1], x[2]));
        close(&[dq, dv, dw], &central(|z| pendulum(z[0], z[1], z[2]), &x));
    }
}

// ---- a constant array a call gave, after a guard clause -----------------

#[grad]
pub fn made(a: f64, b: f64) -> [f64; 2] {
    [a * b, b.sin()]
}

#[grad]
pub fn shifted(v: [f64; 2], t: f64) -> [f64; 2] {
    [v[0] * t, v[1] + t]
}

#[grad]
pub fn scaled_v(s: &[f64], t: f64) -> Vec<f64> {
    s.iter().map(|e| e * t).collect()
}

#[grad]
pub fn read2(s: &[f64], t: f64) -> f64 {
    s[0] * t + s[1]
}

/// After a `return` (or a `break`), the rest is an arm, which passes out
/// the constant array `made(0.5, 1.5)` gave wrapped in an `Option`: the
/// reverse arm handing it to `shifted`'s and `scaled_v`'s `_vjp` takes it
/// back out (difftest `passed_whole`, seed 11: E0308 inside the
/// expansion, also before this session's changes).
#[grad]
pub fn after_guard(x: f64, y: f64) -> f64 {
    if x > 1.0 {
        return 0.5;
    }
    let d = made(0.5, 1.5);
    let e = shifted(d, y);
    let w = scaled_v(&d, y);
    e[0] * x + read2(&w, x) + len2(shifted(d, x))
}

#[grad]
pub fn after_break(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    for _ in 0..3 {
        if s > 1.0 {
            break;
        }
        let d = made(0.5, 1.5);
        s += len2(shifted(d, y)) * x;
    }
    s
}

#[test]
fn a_constant_array_after_a_guard_clause() {
    for x in [[0.3, 1.2], [-0.8, 0.5], [0.9, -0.4], [0.05, 0.1]] {
        let (v, dx, dy) = after_guard_grad(x[0], x[1]);
        assert_eq!(v, after_guard(x[0], x[1]));
        close(&[dx, dy], &central(|z| after_guard(z[0], z[1]), &x));
        let (v, dx, dy) = after_break_grad(x[0], x[1]);
        assert_eq!(v, after_break(x[0], x[1]));
        close(&[dx, dy], &central(|z| after_break(z[0], z[1]), &x));
    }
    assert_eq!(after_guard_grad(2.0, 1.0), (0.5, 0.0, 0.0));
}

// ---- in a fold's start, in a tuple's arm, taken out once in a loop ------

/// The start of a `fold` is lowered inside a block of its own: a call's
/// array result passed on whole there (`rd(mk(y), x)`) goes through
/// `mk`'s `_vjp` like anywhere else (difftest `passed_whole`, seed 2024:
/// `mk_grad` missing inside the expansion).
#[grad]
pub fn fold_from_call(x: f64, y: f64, xs: &[f64]) -> f64 {
    let d = made(y, x);
    xs.iter()
        .fold(shifted_sum(d, x), |acc, &u| acc * 0.5 + u * y)
}

#[grad]
pub fn fold_from_nested_call(x: f64, y: f64) -> f64 {
    (0..3).fold(shifted_sum(made(y, x), x), |acc, i| {
        acc * 0.5 + (i as f64) * x
    })
}

#[grad]
pub fn shifted_sum(v: [f64; 2], t: f64) -> f64 {
    v[0] * t + v[1]
}

/// `let (a, b) = if .. { .. } else { (shifted_sum(d, x), 0.49) };`: the
/// array passed on whole in an arm of a tuple from branches.
#[grad]
pub fn tuple_arm_passes_on(x: f64, y: f64) -> f64 {
    let d = made(x, y);
    let (a, b) = if y <= 0.23 {
        (x, 0.5)
    } else {
        (shifted_sum(d, x), 0.49)
    };
    a * b + a
}

/// After a guard clause (the rest an arm, passing `d` out wrapped), a
/// loop whose body `continue`s (a branch of its own) hands `d` to `_vjp`
/// calls: the outer reverse arm takes `d` out, the inner one leaves it
/// (difftest `passed_whole`, seed 2024: `&Option<_>` expected, `&[f64;
/// 2]` found).
#[grad]
pub fn guard_then_continue(x: f64, y: f64) -> f64 {
    if y > 2.0 {
        return 0.0;
    }
    let d = made(y, x);
    let mut s = 0.0;
    for j in 0..3 {
        if x > 0.5 && j == 1 {
            continue;
        }
        s += read2(&d, read2(&d, 0.75));
        let w = scaled_v(&d, 0.75);
        s += w[0] * x;
    }
    s
}

#[test]
fn in_a_fold_start_a_tuple_arm_and_a_loop_after_a_guard() {
    let xs = [1.0, -2.0, 0.5];
    for x in [[0.3, -0.7], [-1.1, 0.4], [0.8, 1.6], [0.6, 0.1]] {
        let (v, dx, dy, _) = fold_from_call_grad(x[0], x[1], &xs);
        assert_eq!(v, fold_from_call(x[0], x[1], &xs));
        close(&[dx, dy], &central(|z| fold_from_call(z[0], z[1], &xs), &x));
        let (v, dx, dy) = fold_from_nested_call_grad(x[0], x[1]);
        assert_eq!(v, fold_from_nested_call(x[0], x[1]));
        close(
            &[dx, dy],
            &central(|z| fold_from_nested_call(z[0], z[1]), &x),
        );
        let (v, dx, dy) = tuple_arm_passes_on_grad(x[0], x[1]);
        assert_eq!(v, tuple_arm_passes_on(x[0], x[1]));
        close(&[dx, dy], &central(|z| tuple_arm_passes_on(z[0], z[1]), &x));
        let (v, dx, dy) = guard_then_continue_grad(x[0], x[1]);
        assert_eq!(v, guard_then_continue(x[0], x[1]));
        close(&[dx, dy], &central(|z| guard_then_continue(z[0], z[1]), &x));
    }
    // Exact: shifted_sum(made(y, x), x) = y x² + sin x, four times
    // halved, plus the fold's terms.
    let (x, y) = (0.3f64, -0.7f64);
    let (_, dx, dy, _) = fold_from_call_grad(x, y, &xs);
    assert_relative_eq!(dx, (2.0 * y * x + x.cos()) / 8.0, max_relative = 1e-15);
    assert_relative_eq!(
        dy,
        x * x / 8.0 + xs[0] / 4.0 + xs[1] / 2.0 + xs[2],
        max_relative = 1e-15
    );
    assert_eq!(guard_then_continue_grad(0.3, 2.5), (0.0, 0.0, 0.0));
}

/// A loop that changes nothing the macro follows is kept as written; it
/// may read a call's result passed on whole elsewhere (`rd(d, y)` in a
/// loop whose value is dead): that read needs the value only, so `made`
/// still goes through its `_vjp` (E0425 `made_grad` inside the expansion;
/// difftest `passed_whole`, seed 2024).
#[grad]
pub fn read_in_a_kept_loop(x: f64, y: f64) -> f64 {
    let d = made(x, y);
    let s = shifted_sum(d, x);
    for _ in 0..4 {
        let _a = shifted_sum(d, y);
    }
    s
}

#[test]
fn a_result_read_by_a_loop_kept_as_written() {
    for x in [[0.3, -0.7], [-1.1, 0.4], [0.8, 1.6]] {
        let (v, dx, dy) = read_in_a_kept_loop_grad(x[0], x[1]);
        assert_eq!(v, read_in_a_kept_loop(x[0], x[1]));
        close(&[dx, dy], &central(|z| read_in_a_kept_loop(z[0], z[1]), &x));
    }
}

// ---- passed on to a writer, or into a struct's field -------------------

#[grad]
pub fn twice(w: &[f64]) -> Vec<f64> {
    vec![2.0 * w[0] * w[1], w[1].sin()]
}

#[grad]
pub fn add_scaled(y: &mut [f64], a: f64, x: &[f64]) {
    for i in 0..y.len() {
        y[i] += a * x[i];
    }
}

/// A `Vec` result lent only to an array writer's other parameter: `g`
/// is passed on whole (calls trial r01, an expansion that did not
/// compile: `g` was read as a float).
#[grad]
pub fn stepped(w0: &[f64], lr: f64) -> f64 {
    let mut w = w0.to_vec();
    let g = twice(&w);
    add_scaled(&mut w, -lr, &g);
    w[0] * w[1]
}

#[test]
fn a_vec_result_lent_to_an_array_writer() {
    for (w, lr) in [([1.0, 2.0], 0.1), ([-0.7, 0.3], 0.5), ([2.5, -1.5], -0.2)] {
        let (v, d_w, d_lr) = stepped_grad(&w, lr);
        assert_relative_eq!(v, stepped(&w, lr), max_relative = 1e-15);
        let want = central(|x| stepped(&x[..2], x[2]), &[w[0], w[1], lr]);
        close(&[d_w[0], d_w[1], d_lr], &want);
    }
}

#[grad]
pub fn add2(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] + b[0], a[1] * b[1]]
}

#[grad]
pub fn cube(a: f64) -> f64 {
    a * a * a
}

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Body {
    pub pos: [f64; 2],
    pub m: f64,
}

impl Body {
    /// A struct writer whose field takes a call's array whole (calls
    /// trial r02).
    #[grad]
    pub fn kick(&mut self, f: [f64; 2]) {
        self.pos = add2(self.pos, f);
        self.m = cube(self.m);
    }
}

/// A struct built from calls' results, an array and a float (calls trial
/// r03).
#[grad(wrt(b, v))]
pub fn moved(b: &Body, v: [f64; 2]) -> Body {
    Body {
        pos: add2(b.pos, v),
        m: cube(b.m),
    }
}

/// `Σ seed · out` of a struct-valued function, for central differences.
fn along(b: &Body, seed: &Body) -> f64 {
    b.pos[0] * seed.pos[0] + b.pos[1] * seed.pos[1] + b.m * seed.m
}

#[test]
fn a_struct_field_given_a_calls_array() {
    let seed = Body {
        pos: [0.7, -1.3],
        m: 0.4,
    };
    for (p, m, f) in [
        ([1.0, 2.0], 0.5, [0.5, 0.5]),
        ([-2.0, 0.3], 1.5, [-1.0, 2.0]),
    ] {
        let b = Body { pos: p, m };
        let want = central(
            |x| {
                let b = Body {
                    pos: [x[0], x[1]],
                    m: x[2],
                };
                along(&moved(&b, [x[3], x[4]]), &seed)
            },
            &[p[0], p[1], m, f[0], f[1]],
        );
        let (out, d_b, d_v) = moved_vjp(&b, f, seed.clone());
        assert_eq!(out, moved(&b, f));
        close(&[d_b.pos[0], d_b.pos[1], d_b.m, d_v[0], d_v[1]], &want);

        let (out, d_b, d_f) = b.kick_vjp(f, seed.clone());
        let mut kicked = b.clone();
        kicked.kick(f);
        assert_eq!(out, kicked);
        close(&[d_b.pos[0], d_b.pos[1], d_b.m, d_f[0], d_f[1]], &want);
    }
}

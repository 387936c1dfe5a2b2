//! Struct writers: a function or a method that returns nothing and
//! changes one struct through `&mut` (`fn kick(b: &mut Body, f: f64)`,
//! `fn step(&mut self, dt: f64)`). Its `_vjp` takes the struct by shared
//! reference and a seed of the struct's type, and gives the new value and
//! the gradients; callers write `b.step(dt);` and `kick(&mut b, f);`, in
//! loops and branches, and are differentiated through it. Exact values
//! where they exist; central differences (h = 1e-6, relative 1e-6) at
//! points spread over each domain elsewhere.

// The expansions are warning-free. Users copy array fields with
// `.clone()`; so do these tests.
#![deny(warnings)]
#![allow(clippy::clone_on_copy, clippy::useless_vec)]

use approx::assert_relative_eq;
use autodiff::{grad, Differentiable};

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Body {
    pub x: f64,
    pub v: f64,
    pub m: f64,
}

impl Body {
    /// Symplectic Euler, in place.
    #[grad(jvp)]
    pub fn step(&mut self, dt: f64) {
        self.v -= self.x / self.m * dt;
        self.x += self.v * dt;
    }

    /// Another writer called on `self`, and a method reading it whole.
    #[grad]
    pub fn step_and_kick(&mut self, dt: f64, f: f64) {
        self.step(dt);
        if self.energy() > 1.0 {
            self.v *= 0.5;
        } else {
            kick(self, f * dt);
        }
    }

    #[grad(wrt(self))]
    pub fn energy(&self) -> f64 {
        0.5 * self.m * self.v * self.v + 0.5 * self.x * self.x
    }

    /// A loop inside the writer, and the struct replaced whole.
    #[grad]
    pub fn relax(&mut self, h: f64, n: usize) {
        for _ in 0..n {
            self.x -= h * self.x.sin();
        }
        if self.x < -10.0 {
            *self = Body {
                x: -10.0,
                v: 0.0,
                m: self.m,
            };
        }
    }
}

#[grad(jvp)]
pub fn kick(b: &mut Body, f: f64) {
    b.v += f / b.m;
}

// ---- the writers' own `_vjp` ----------------------------------------------

#[test]
fn a_writers_vjp_gives_its_new_value_and_gradients() {
    let b = Body {
        x: 1.0,
        v: 0.5,
        m: 2.0,
    };
    let dt = 0.1;
    // v' = v - x/m dt, x' = x + v' dt; seeded on x'.
    let seed = Body {
        x: 1.0,
        v: 0.0,
        m: 0.0,
    };
    let (new, d_b, d_dt) = b.step_vjp(dt, seed);
    let mut expected = b.clone();
    expected.step(dt);
    assert_eq!(new, expected);
    assert_relative_eq!(d_b.x, 1.0 - dt * dt / b.m, max_relative = 1e-15);
    assert_relative_eq!(d_b.v, dt, max_relative = 1e-15);
    assert_relative_eq!(d_b.m, dt * dt * b.x / (b.m * b.m), max_relative = 1e-15);
    assert_relative_eq!(d_dt, new.v - dt * b.x / b.m, max_relative = 1e-15);
    // `kick`: v' = v + f/m, seeded on v'.
    let (new, d_b, d_f) = kick_vjp(
        &b,
        3.0,
        Body {
            x: 0.0,
            v: 1.0,
            m: 0.0,
        },
    );
    assert_eq!(
        new,
        Body {
            x: 1.0,
            v: 2.0,
            m: 2.0
        }
    );
    assert_eq!(
        d_b,
        Body {
            x: 0.0,
            v: 1.0,
            m: -0.75
        }
    );
    assert_eq!(d_f, 0.5);
}

// ---- callers --------------------------------------------------------------

/// A local struct changed by both writers in a time loop, in both modes.
#[grad(jvp)]
fn energy_after(x0: f64, v0: f64, f: f64, n: usize) -> f64 {
    let mut b = Body {
        x: x0,
        v: v0,
        m: 2.0,
    };
    for _ in 0..n {
        b.step(0.1);
        kick(&mut b, f * 0.01);
    }
    b.energy()
}

fn energy_after_plain(x0: f64, v0: f64, f: f64, n: usize) -> f64 {
    let mut b = Body {
        x: x0,
        v: v0,
        m: 2.0,
    };
    for _ in 0..n {
        b.step(0.1);
        kick(&mut b, f * 0.01);
    }
    b.energy()
}

/// A struct parameter copied, changed by writers (one calling another,
/// with a branch), and a writer with a loop inside.
#[grad(wrt(b0, dt, f))]
fn trajectory(b0: &Body, dt: f64, f: f64, n: usize) -> f64 {
    let mut b = b0.clone();
    let mut path = 0.0;
    for _ in 0..n {
        b.step_and_kick(dt, f);
        path += b.x.abs();
    }
    b.relax(dt, 3);
    path + b.x * b.v
}

fn trajectory_plain(b0: &Body, dt: f64, f: f64, n: usize) -> f64 {
    let mut b = b0.clone();
    let mut path = 0.0;
    for _ in 0..n {
        b.step_and_kick(dt, f);
        path += b.x.abs();
    }
    b.relax(dt, 3);
    path + b.x * b.v
}

fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn callers_of_writers_in_time_loops_against_central_differences() {
    for (x0, v0, f) in [(1.0, 0.5, 3.0), (-0.7, 1.3, -2.0), (2.5, -0.4, 0.5)] {
        for n in [0, 1, 10] {
            let (v, dx, dv, df) = energy_after_grad(x0, v0, f, n);
            assert_eq!(v, energy_after_plain(x0, v0, f, n));
            let cx = central(|x| energy_after_plain(x, v0, f, n), x0);
            let cv = central(|y| energy_after_plain(x0, y, f, n), v0);
            let cf = central(|g| energy_after_plain(x0, v0, g, n), f);
            assert_relative_eq!(dx, cx, max_relative = 1e-6, epsilon = 1e-8);
            assert_relative_eq!(dv, cv, max_relative = 1e-6, epsilon = 1e-8);
            assert_relative_eq!(df, cf, max_relative = 1e-6, epsilon = 1e-8);
            // Forward mode: the gradient along a direction.
            let (vj, t) = energy_after_jvp(x0, v0, f, n, 0.3, -1.2, 0.7);
            assert_eq!(vj, v);
            let want = 0.3 * dx - 1.2 * dv + 0.7 * df;
            assert_relative_eq!(t, want, max_relative = 1e-12, epsilon = 1e-12);
        }
    }
}

#[test]
fn a_copied_parameter_through_writers_that_call_writers() {
    for (x, v, m, dt, f) in [
        (1.0, 0.5, 2.0, 0.1, 3.0),
        (-0.3, 0.2, 0.7, 0.05, -1.0),
        (0.4, -1.5, 1.5, 0.2, 0.25),
    ] {
        let b = Body { x, v, m };
        let (val, d_b, d_dt, d_f) = trajectory_grad(&b, dt, f, 6);
        assert_eq!(val, trajectory_plain(&b, dt, f, 6));
        let at =
            |x: f64, v: f64, m: f64, dt: f64, f: f64| trajectory_plain(&Body { x, v, m }, dt, f, 6);
        let tol = |a: f64, c: f64| assert_relative_eq!(a, c, max_relative = 1e-6, epsilon = 1e-7);
        tol(d_b.x, central(|s| at(s, v, m, dt, f), x));
        tol(d_b.v, central(|s| at(x, s, m, dt, f), v));
        tol(d_b.m, central(|s| at(x, v, s, dt, f), m));
        tol(d_dt, central(|s| at(x, v, m, s, f), dt));
        tol(d_f, central(|s| at(x, v, m, dt, s), f));
    }
}

// ---- a field that is a `Vec`, assigned whole -------------------------------

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Grid {
    pub w: Vec<f64>,
    pub s: f64,
}

impl Grid {
    /// One smoothing sweep: a new field computed, then assigned whole.
    #[grad]
    pub fn smooth(&mut self, k: f64) {
        let mut w = self.w.clone();
        for i in 1..w.len() - 1 {
            w[i] = self.w[i] + k * (self.w[i - 1] - 2.0 * self.w[i] + self.w[i + 1]);
        }
        self.w = w;
        self.s *= 1.0 - k;
    }
}

#[grad(wrt(g0, k))]
fn smoothed(g0: &Grid, k: f64, sweeps: usize) -> f64 {
    let mut g = g0.clone();
    for _ in 0..sweeps {
        g.smooth(k);
    }
    let mut total = g.s;
    for i in 0..g.w.len() {
        total += g.w[i] * g.w[i];
    }
    total
}

fn smoothed_plain(g0: &Grid, k: f64, sweeps: usize) -> f64 {
    let mut g = g0.clone();
    for _ in 0..sweeps {
        g.smooth(k);
    }
    g.s + g.w.iter().map(|w| w * w).sum::<f64>()
}

#[test]
fn a_vec_field_assigned_whole_in_a_time_loop() {
    let w = vec![0.3, -1.2, 2.0, 0.7, -0.4];
    for k in [0.1, 0.25, 0.4] {
        let g = Grid {
            w: w.clone(),
            s: 1.5,
        };
        let (v, d_g, d_k) = smoothed_grad(&g, k, 4);
        assert_relative_eq!(v, smoothed_plain(&g, k, 4), max_relative = 1e-14);
        for i in 0..w.len() {
            let at = |x: f64| {
                let mut w = w.clone();
                w[i] = x;
                smoothed_plain(&Grid { w, s: 1.5 }, k, 4)
            };
            assert_relative_eq!(
                d_g.w[i],
                central(at, w[i]),
                max_relative = 1e-6,
                epsilon = 1e-8
            );
        }
        let at_s = |s: f64| smoothed_plain(&Grid { w: w.clone(), s }, k, 4);
        assert_relative_eq!(
            d_g.s,
            central(at_s, 1.5),
            max_relative = 1e-6,
            epsilon = 1e-8
        );
        let at_k = |k: f64| smoothed_plain(&g, k, 4);
        assert_relative_eq!(d_k, central(at_k, k), max_relative = 1e-6, epsilon = 1e-8);
    }
}

// ---- shapes found by a new-user trial and the differential tester ----------
//
// Each failed to compile inside the generated code before (the error in
// brackets); each is checked against a plain copy by central differences.

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct P {
    pub x: f64,
    pub w: Vec<f64>,
    pub a: [f64; 2],
}

impl P {
    #[grad(wrt(self, x))]
    pub fn energy(&self, x: f64) -> f64 {
        self.x * x + self.a[0] * self.a[1]
    }

    /// Reads itself whole in a loop (E0502), takes a slice and another
    /// struct by `&` (E0308), copies an array field and assigns it back
    /// (E0308), lends itself on through `&mut *self` (E0614).
    #[grad(wrt(self, g, other, dt))]
    pub fn update(&mut self, g: &[f64], other: &P, dt: f64) {
        let mut s = 0.0;
        for _ in 0..2 {
            s += self.energy(dt);
        }
        let mut a = self.a.clone();
        a[0] += g[0] * dt + other.x;
        self.a = a;
        self.x += s * 0.1;
        nudge(&mut *self, dt);
    }

    /// Writers in an `else if` chain (`Default` needed before).
    #[grad]
    pub fn cycle(&mut self, f: f64) {
        if f > 0.5 {
            self.bump(f);
        } else if self.x > 0.0 {
            self.bump(-f);
        }
    }

    #[grad]
    pub fn bump(&mut self, f: f64) {
        self.x += f * self.a[1];
    }
}

/// A one-letter struct's writer (refused before as a writer of floats).
#[grad]
pub fn nudge(p: &mut P, dt: f64) {
    p.x *= 1.0 - dt;
}

/// A local `Vec` lent to a writer's slice parameter and a local struct
/// to its `&P` one; a writer whose argument reads its receiver (a parse
/// error); a parameter copied, written in a loop inside a branch and in
/// nested loops (E0425); a struct parameter taken by value and written
/// in a loop (E0368).
#[grad(wrt(p0, q, t))]
fn shapes(p0: &P, mut q: P, t: f64) -> f64 {
    let g = vec![t * t, 1.0];
    let other = P {
        x: t,
        w: vec![],
        a: [0.0, 0.0],
    };
    let mut p = p0.clone();
    p.update(&g, &other, 0.1);
    let mut l = P {
        x: t,
        w: vec![],
        a: [t, 0.5],
    };
    l.bump(l.x);
    if t > 0.0 {
        for _ in 0..2 {
            p.cycle(t);
        }
    }
    for _ in 0..2 {
        for _ in 0..2 {
            p.bump(0.1);
            q.bump(t);
        }
    }
    p.x * l.x + p.a[0] + q.x
}

fn shapes_plain(p0: &P, mut q: P, t: f64) -> f64 {
    let g = vec![t * t, 1.0];
    let other = P {
        x: t,
        w: vec![],
        a: [0.0, 0.0],
    };
    let mut p = p0.clone();
    p.update(&g, &other, 0.1);
    let mut l = P {
        x: t,
        w: vec![],
        a: [t, 0.5],
    };
    l.bump(l.x);
    if t > 0.0 {
        for _ in 0..2 {
            p.cycle(t);
        }
    }
    for _ in 0..2 {
        for _ in 0..2 {
            p.bump(0.1);
            q.bump(t);
        }
    }
    p.x * l.x + p.a[0] + q.x
}

#[test]
fn writer_shapes_users_write() {
    for (x, a0, t) in [(0.4, 1.5, 0.7), (-0.8, 0.3, -0.2), (1.2, -0.6, 0.3)] {
        let p = P {
            x,
            w: vec![],
            a: [a0, 0.25],
        };
        let q = P {
            x: -x,
            w: vec![],
            a: [0.5, a0],
        };
        let (v, dp, dq, dt) = shapes_grad(&p, q.clone(), t);
        assert_eq!(v, shapes_plain(&p, q.clone(), t));
        let tol = |a: f64, c: f64| assert_relative_eq!(a, c, max_relative = 1e-6, epsilon = 1e-7);
        let with = |x: f64, a0: f64, qx: f64, qa1: f64, t: f64| {
            shapes_plain(
                &P {
                    x,
                    w: vec![],
                    a: [a0, 0.25],
                },
                P {
                    x: qx,
                    w: vec![],
                    a: [0.5, qa1],
                },
                t,
            )
        };
        tol(dp.x, central(|s| with(s, a0, -x, a0, t), x));
        tol(dp.a[0], central(|s| with(x, s, -x, a0, t), a0));
        tol(dq.x, central(|s| with(x, a0, s, a0, t), -x));
        tol(dq.a[1], central(|s| with(x, a0, -x, s, t), a0));
        tol(dt, central(|s| with(x, a0, -x, a0, s), t));
    }
}

/// A guard clause in a writer (refused before as a `return` of a vector
/// output), and a writer's call as a `match` arm (E0618 before).
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Gate {
    pub x: f64,
}

impl Gate {
    #[grad]
    pub fn push(&mut self, f: f64) {
        if self.x > 3.0 {
            return;
        }
        self.x += f * self.x;
    }
}

#[grad(wrt(x0, f))]
fn gated(x0: f64, f: f64, k: u8) -> f64 {
    let mut g = Gate { x: x0 };
    match k {
        0 => g.push(f),
        _ => g.push(2.0 * f),
    }
    g.push(f);
    g.x
}

fn gated_plain(x0: f64, f: f64, k: u8) -> f64 {
    let mut g = Gate { x: x0 };
    match k {
        0 => g.push(f),
        _ => g.push(2.0 * f),
    }
    g.push(f);
    g.x
}

#[test]
fn guard_clauses_and_match_arms() {
    for (x0, f) in [(0.5, 0.8), (2.5, 0.3), (4.0, 1.0), (-1.0, 0.5)] {
        for k in [0, 1] {
            let (v, dx, df) = gated_grad(x0, f, k);
            assert_eq!(v, gated_plain(x0, f, k));
            let cx = central(|s| gated_plain(s, f, k), x0);
            let cf = central(|s| gated_plain(x0, s, k), f);
            assert_relative_eq!(dx, cx, max_relative = 1e-6, epsilon = 1e-8);
            assert_relative_eq!(df, cf, max_relative = 1e-6, epsilon = 1e-8);
        }
    }
}

/// A copy of a parameter changed through its fields (refused before:
/// "assign the whole variable"; difftest `struct_writer`, seed 7).
#[grad(wrt(p0, t))]
fn fields_of_a_copy(p0: &P, t: f64) -> f64 {
    let mut q = p0.clone();
    q.x += t.sin();
    for _ in 0..3 {
        q.x *= 0.5 + t;
        q.bump(t);
    }
    q.a = [q.x, t];
    q.x * q.a[1] + q.a[0]
}

#[test]
fn a_copy_changed_through_its_fields() {
    for (x, a1, t) in [(0.4, 1.5, 0.7), (-0.8, 0.3, -0.2)] {
        let plain = |x: f64, a1: f64, t: f64| {
            let mut q = P {
                x,
                w: vec![],
                a: [0.0, a1],
            };
            q.x += t.sin();
            for _ in 0..3 {
                q.x *= 0.5 + t;
                q.bump(t);
            }
            q.a = [q.x, t];
            q.x * q.a[1] + q.a[0]
        };
        let p = P {
            x,
            w: vec![],
            a: [0.0, a1],
        };
        let (v, dp, dt) = fields_of_a_copy_grad(&p, t);
        assert_eq!(v, plain(x, a1, t));
        let tol = |a: f64, c: f64| assert_relative_eq!(a, c, max_relative = 1e-6, epsilon = 1e-7);
        tol(dp.x, central(|s| plain(s, a1, t), x));
        tol(dp.a[1], central(|s| plain(x, s, t), a1));
        tol(dt, central(|s| plain(x, a1, s), t));
    }
}

/// A writer reading itself by a method's path (`Self::m0(self, x)`,
/// `Gate::open(g, x)`): lent by `&`, not as a writer's call (difftest
/// `struct_writer_path_read`).
impl Gate {
    #[grad(wrt(self, x))]
    pub fn open(&self, x: f64) -> f64 {
        self.x * x
    }

    #[grad]
    pub fn widen(&mut self, x: f64) {
        self.x += Self::open(self, x);
    }
}

#[grad]
pub fn widen_twice(g: &mut Gate, x: f64) {
    g.x += Gate::open(g, x) * 2.0;
    g.widen(x);
}

#[test]
fn a_writer_reads_itself_by_a_methods_path() {
    let g = Gate { x: 0.3 };
    let (new, d, dx) = g.widen_vjp(0.5, Gate { x: 1.0 });
    assert_eq!(new, Gate { x: 0.3 + 0.3 * 0.5 });
    assert_eq!((d.x, dx), (1.5, 0.3));
    // x1 = x + 2 x k = x (1 + 2k); x2 = x1 (1 + k).
    let (new, d, dk) = widen_twice_vjp(&g, 0.5, Gate { x: 1.0 });
    assert_relative_eq!(new.x, 0.3 * 2.0 * 1.5, max_relative = 1e-15);
    assert_relative_eq!(d.x, 2.0 * 1.5, max_relative = 1e-15);
    assert_relative_eq!(dk, 0.3 * (2.0 * 1.5 + 2.0 * 1.0), max_relative = 1e-15);
}

// ---- a struct a `#[grad]` call returned, changed by writers ---------------

#[grad(jvp)]
pub fn launched(x: f64, v: f64) -> Body {
    Body { x, v, m: 1.5 }
}

/// `let mut b = launched(..); b.step(dt);`: the call's result is a struct
/// the writers change (it was left out of the sweep, E0596 inside the
/// expansion, and with `mut` kept the derivative would have missed every
/// step).
#[grad]
fn flight(x: f64, v: f64, dt: f64) -> f64 {
    let mut b = launched(x, v);
    b.step(dt);
    b.x
}

/// Its type stated, the call's result is lent to a free writer too, in a
/// time loop and a branch.
#[grad]
fn flight_kicked(x: f64, v: f64, dt: f64) -> f64 {
    let mut b: Body = launched(x, v);
    for _ in 0..10 {
        b.step(dt);
        kick(&mut b, 0.1 * dt);
    }
    if b.x > 0.0 {
        b.step_and_kick(dt, 0.2);
    }
    b.energy() + b.x
}

#[test]
fn writers_change_a_struct_a_call_returned() {
    // One step: x' = x + (v - x/m dt) dt.
    for (x, v, dt) in [(1.0, 0.5, 0.1), (-2.0, 1.5, 0.3)] {
        let (value, dx, dv, ddt) = flight_grad(x, v, dt);
        assert_relative_eq!(value, x + (v - x / 1.5 * dt) * dt, max_relative = 1e-15);
        assert_relative_eq!(dx, 1.0 - dt * dt / 1.5, max_relative = 1e-14);
        assert_relative_eq!(dv, dt, max_relative = 1e-15);
        assert_relative_eq!(ddt, v - 2.0 * x / 1.5 * dt, max_relative = 1e-14);
    }
    for (x, v, dt) in [(0.3, 0.5, 0.1), (-1.0, 2.0, 0.05), (2.0, -1.0, 0.2)] {
        let (value, dx, dv, ddt) = flight_kicked_grad(x, v, dt);
        assert_eq!(value, flight_kicked(x, v, dt));
        let h = [
            central(|a| flight_kicked(a, v, dt), x),
            central(|a| flight_kicked(x, a, dt), v),
            central(|a| flight_kicked(x, v, a), dt),
        ];
        for (g, h) in [dx, dv, ddt].into_iter().zip(h) {
            assert_relative_eq!(g, h, max_relative = 1e-6, epsilon = 1e-9);
        }
    }
}

/// Copies of a struct a call returned, `let mut o3 = o.clone();`, changed
/// by writers while the original is read after (trial 11 B8: refused as
/// "a value of a type #[grad] does not model, computed from `o`"), and a
/// copy of such a copy after the writers changed it, under forward mode
/// too.
#[grad(jvp)]
fn cloned_flights(x: f64, v: f64, dt: f64) -> f64 {
    let o = launched(x, v);
    let mut o3 = o.clone();
    for _ in 0..3 {
        o3.step(dt);
    }
    let mut o4 = o3.clone();
    o4.step(2.0 * dt);
    o3.x + o.v * o4.x
}

#[test]
fn writers_change_copies_of_a_struct_a_call_returned() {
    for (x, v, dt) in [(1.5, 2.0, 0.1), (-1.0, 0.5, 0.05), (0.3, -1.2, 0.2)] {
        let (value, dx, dv, ddt) = cloned_flights_grad(x, v, dt);
        assert_eq!(value, cloned_flights(x, v, dt));
        let h = [
            central(|a| cloned_flights(a, v, dt), x),
            central(|a| cloned_flights(x, a, dt), v),
            central(|a| cloned_flights(x, v, a), dt),
        ];
        for (g, h) in [dx, dv, ddt].into_iter().zip(h) {
            assert_relative_eq!(g, h, max_relative = 1e-6, epsilon = 1e-9);
        }
        let (jv, along) = cloned_flights_jvp(x, v, dt, 0.5, -1.0, 0.25);
        assert_eq!(jv, value);
        assert_relative_eq!(along, 0.5 * dx - dv + 0.25 * ddt, max_relative = 1e-12);
    }
}

// ---- a struct replaced by what a `#[grad]` call returned ------------------

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Orbit {
    pub x: f64,
    pub v: f64,
}

impl Orbit {
    #[grad(wrt(self, dt))]
    pub fn stepped(&self, dt: f64) -> Orbit {
        Orbit {
            x: self.x + self.v * dt,
            v: self.v - self.x * dt,
        }
    }

    /// A method returning what another returned.
    #[grad(wrt(self, dt))]
    pub fn twice(&self, dt: f64) -> Orbit {
        self.stepped(dt).stepped(dt)
    }

    /// `*self = self.stepped(dt)`, in branches and in a loop: refused
    /// before ("needs a function returning a struct to end with it built
    /// whole").
    #[grad]
    pub fn advance(&mut self, dt: f64) {
        if self.x > 0.0 {
            *self = self.stepped(dt);
        } else {
            *self = self.twice(dt);
        }
    }

    #[grad]
    pub fn run(&mut self, dt: f64, n: usize) {
        for _ in 0..n {
            *self = self.stepped(dt);
        }
    }
}

/// A free writer replacing its struct by a free function's result.
#[grad(wrt(o, dt))]
pub fn leapt(o: &Orbit, dt: f64) -> Orbit {
    let half = o.stepped(0.5 * dt);
    half.stepped(0.5 * dt)
}

#[grad]
pub fn leap(o: &mut Orbit, dt: f64) {
    *o = leapt(o, dt);
}

#[grad]
fn orbited(x: f64, v: f64, dt: f64) -> f64 {
    let mut o = Orbit { x, v };
    o.advance(dt);
    o.run(dt, 5);
    leap(&mut o, dt);
    o.x * o.v + o.x
}

#[test]
fn a_struct_replaced_by_a_calls_result() {
    // x'' = x (1 - dt²) + 2 v dt, v'' = v (1 - dt²) - 2 x dt.
    let o = Orbit { x: 1.0, v: 0.5 };
    let (new, d, ddt) = o.twice_vjp(0.1, Orbit { x: 1.0, v: 0.0 });
    assert_relative_eq!(new.x, 0.99 + 0.1, max_relative = 1e-15);
    assert_relative_eq!(d.x, 0.99, max_relative = 1e-15);
    assert_relative_eq!(d.v, 0.2, max_relative = 1e-15);
    assert_relative_eq!(ddt, 2.0 * 0.5 - 2.0 * 0.1, max_relative = 1e-14);
    let (new, d, ddt) = o.advance_vjp(0.1, Orbit { x: 0.0, v: 1.0 });
    assert_eq!(new, o.stepped(0.1));
    assert_eq!((d.x, d.v, ddt), (-0.1, 1.0, -1.0));
    for (x, v, dt) in [(0.3, 0.7, 0.1), (-0.3, 0.7, 0.1), (1.5, -2.0, 0.05)] {
        let (value, dx, dv, ddt) = orbited_grad(x, v, dt);
        assert_eq!(value, orbited(x, v, dt));
        let h = [
            central(|a| orbited(a, v, dt), x),
            central(|a| orbited(x, a, dt), v),
            central(|a| orbited(x, v, a), dt),
        ];
        for (g, h) in [dx, dv, ddt].into_iter().zip(h) {
            assert_relative_eq!(g, h, max_relative = 1e-6, epsilon = 1e-9);
        }
    }
}

// ---- an array field assigned a list ---------------------------------------

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Transform {
    pub c: [f64; 2],
}

impl Transform {
    /// The list bound with its type first, as the refusal of the list
    /// assigned directly says (ui writer_array_field_untyped).
    #[grad]
    pub fn update(&mut self) {
        let c = self.c;
        let a: [f64; 2] = [c[0] * c[1], c[1]];
        self.c = a;
    }
}

#[test]
fn an_array_field_assigned_a_list_bound_with_its_type() {
    let t = Transform { c: [1.0, 2.0] };
    let (new, d) = t.update_vjp(Transform { c: [1.0, 0.0] });
    assert_eq!(new.c, [2.0, 2.0]);
    assert_eq!(d.c, [2.0, 1.0]);
}

// ---- writers on a `Vec`'s elements ----------------------------------------

/// `bs[i].step(dt);`, `for b in bs.iter_mut() { b.step(dt); }` and `for
/// p in &mut ps`, on `Vec`s of structs listed (`vec![..]`) or filled by
/// `push`, two in one body: each element built again from the fields'
/// `Vec`s, the writer called on it, its fields stored back (before, the
/// list was refused as floats of an unknown type, the second `Vec` was
/// never split, and a writer on an element was refused).
#[grad]
fn swarm(x: f64, dt: f64) -> f64 {
    let mut bs = vec![
        Body { x, v: 0.0, m: 1.0 },
        Body {
            x: 2.0 * x,
            v: 1.0,
            m: 2.0,
        },
    ];
    bs[0].step(dt);
    for _ in 0..5 {
        for b in bs.iter_mut() {
            b.step(dt);
            b.x *= 1.0 - dt;
        }
        for (i, b) in bs.iter_mut().enumerate() {
            if i == 1 {
                kick(b, 0.5 * dt);
            }
        }
    }
    let mut ps = Vec::new();
    for k in 0..3 {
        ps.push(Body {
            x: x + k as f64,
            v: dt,
            m: 1.5,
        });
    }
    for p in &mut ps {
        p.step(dt);
    }
    ps[2].step(dt);
    bs[0].x * bs[1].v + bs[1].x + ps[0].x * ps[2].v
}

#[test]
fn writers_on_a_vecs_elements() {
    for (x, dt) in [(1.5, 0.1), (-0.5, 0.2), (3.0, 0.05)] {
        let (value, dx, ddt) = swarm_grad(x, dt);
        assert_eq!(value, swarm(x, dt));
        assert_relative_eq!(
            dx,
            central(|a| swarm(a, dt), x),
            max_relative = 1e-6,
            epsilon = 1e-9
        );
        assert_relative_eq!(
            ddt,
            central(|a| swarm(x, a), dt),
            max_relative = 1e-6,
            epsilon = 1e-9
        );
    }
}

// ---- a writer calling writers on its struct's fields ----------------------

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Rig {
    pub body: Body,
    pub y: f64,
}

impl Rig {
    /// `self.body.step(dt);`: writers on a field, each on a copy of it
    /// assigned back (before: "needs a function returning a struct to end
    /// with it built whole").
    #[grad]
    pub fn advance(&mut self, dt: f64) {
        self.body.step(dt);
        self.y += self.body.x * dt;
        self.body.step(self.y * dt);
    }
}

#[grad(wrt(r0, dt))]
fn rigged(r0: &Rig, dt: f64) -> f64 {
    let mut r = r0.clone();
    for _ in 0..4 {
        r.advance(dt);
    }
    r.body.x * r.y + r.body.v
}

#[test]
fn a_writer_calls_writers_on_its_fields() {
    let r = Rig {
        body: Body {
            x: 1.0,
            v: 0.5,
            m: 2.0,
        },
        y: 1.0,
    };
    let dt = 0.1;
    let mut expected = r.clone();
    expected.body.step(dt);
    expected.y += expected.body.x * dt;
    let y = expected.y;
    expected.body.step(y * dt);
    let seed = Rig {
        body: Body {
            x: 0.0,
            v: 1.0,
            m: 0.0,
        },
        y: 0.0,
    };
    let (new, d, ddt) = r.advance_vjp(dt, seed);
    assert_eq!(new, expected);
    // Against central differences of the writer itself, seeded on v''.
    let stepped = |r: &Rig, dt: f64| {
        let mut r = r.clone();
        r.advance(dt);
        r.body.v
    };
    let with = |f: &dyn Fn(&mut Rig, f64), a: f64| {
        let mut q = r.clone();
        f(&mut q, a);
        stepped(&q, dt)
    };
    let dy = central(|a| with(&|q, a| q.y = a, a), r.y);
    let dv = central(|a| with(&|q, a| q.body.v = a, a), r.body.v);
    let dx = central(|a| with(&|q, a| q.body.x = a, a), r.body.x);
    assert_relative_eq!(d.y, dy, max_relative = 1e-6, epsilon = 1e-9);
    assert_relative_eq!(d.body.v, dv, max_relative = 1e-6, epsilon = 1e-9);
    assert_relative_eq!(d.body.x, dx, max_relative = 1e-6, epsilon = 1e-9);
    assert_relative_eq!(
        ddt,
        central(|a| stepped(&r, a), dt),
        max_relative = 1e-6,
        epsilon = 1e-9
    );
    let at = |x: f64| Rig {
        body: Body { x, v: 0.5, m: 2.0 },
        y: 1.0,
    };
    for (x, dt) in [(1.0, 0.1), (-0.5, 0.2), (2.0, 0.05)] {
        let (value, d, ddt) = rigged_grad(&at(x), dt);
        assert_eq!(value, rigged(&at(x), dt));
        let dx = central(|a| rigged(&at(a), dt), x);
        assert_relative_eq!(d.body.x, dx, max_relative = 1e-6, epsilon = 1e-9);
        let h = central(|a| rigged(&at(x), a), dt);
        assert_relative_eq!(ddt, h, max_relative = 1e-6, epsilon = 1e-9);
    }
}

// ---- a copy of a parameter changed in a loop inside a branch arm -----------

/// `let mut q = p0.clone();` in an arm of an `if` inside a `while` loop,
/// changed by a writer in a `for` loop there and read after it (the
/// difftest's seed 2024, programs 226 and 310): E0425 and E0277 `P0:
/// Default` inside the expansion before, the copy's adjoint declared
/// outside the arm and what the loop carried out given a placeholder.
#[grad(wrt(p0, x0))]
fn stepped_in_an_arm(p0: &Orbit, x0: f64) -> f64 {
    let mut k: usize = 0;
    let mut out = 0.0;
    while k < 4 {
        k += 1;
        if x0 > -0.06 * k as f64 {
            let mut q = p0.clone();
            for i in 0..3 {
                let a = q.x.sin();
                q.run(a * x0 * i as f64, 1);
            }
            out += q.x * x0 + q.v;
        } else {
            continue;
        }
        out *= 0.9;
    }
    out
}

#[test]
fn a_parameters_copy_stepped_in_a_branch_arm_of_a_loop() {
    for (x, v, x0) in [(0.3, 0.2, 0.5), (-1.0, 0.5, 0.1), (0.7, -0.4, -0.1)] {
        let p0 = Orbit { x, v };
        let (value, d, dx0) = stepped_in_an_arm_grad(&p0, x0);
        assert_eq!(value, stepped_in_an_arm(&p0, x0));
        let h = [
            central(|a| stepped_in_an_arm(&Orbit { x: a, v }, x0), x),
            central(|a| stepped_in_an_arm(&Orbit { x, v: a }, x0), v),
            central(|a| stepped_in_an_arm(&p0, a), x0),
        ];
        for (g, h) in [d.x, d.v, dx0].into_iter().zip(h) {
            assert_relative_eq!(g, h, max_relative = 1e-6, epsilon = 1e-9);
        }
    }
}

// ---- a writer's struct in a branch the loop desugars to --------------------

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Spin {
    pub a: f64,
    pub b: f64,
}

impl Spin {
    #[grad]
    pub fn drift(&mut self, k: f64) {
        self.a += k * self.b;
    }

    #[grad(wrt(self))]
    pub fn e(&self) -> f64 {
        self.a * self.b
    }

    #[grad(wrt(self, x))]
    pub fn at(&self, x: f64) -> f64 {
        self.a * x + x.sin()
    }
}

#[grad]
pub fn twist(s: &mut Spin, k: f64) {
    s.a += (k * s.a).sin();
}

/// A copy of a parameter changed by a writer whose argument reads it, in
/// a loop over a filtered chain (a branch that skips), and read through
/// a method after the writer (the difftest's seed 7, program 186: E0425
/// inside the expansion, the other arm's placeholder of the method's slot
/// shaped by a value not yet made).
#[grad(wrt(x0, p0))]
fn filtered_drift(x0: f64, p0: &Spin) -> f64 {
    let mut q = p0.clone();
    let v = vec![0.0_f64; 3];
    let mut w = vec![0.0_f64; 3];
    for (j, _y) in v.iter().enumerate().filter(|(j, _)| *j % 3 != 2) {
        q.drift(q.e());
        w[j] = w[0] * 0.5 + q.e();
    }
    let mut s = p0.b * x0;
    for _ in 0..2 {
        s = s * 0.25 + q.b;
    }
    s + q.a + w[0] + w[1]
}

/// A writer in a loop guarded by `continue`, a struct built from a method
/// of the changed copy, and that struct's method in a nested loop's
/// value (the difftest's seed 7, program 275: E0425 inside the
/// expansion).
#[grad(wrt(x0, p0))]
fn guarded_twist(x0: f64, p0: &Spin) -> f64 {
    let mut s = x0;
    let mut q = p0.clone();
    let v = vec![1.0, 2.0];
    let mut k = 0;
    loop {
        k += 1;
        if k > 3 {
            break;
        }
        twist(&mut q, s);
        if q.a < -0.09 {
            continue;
        }
        let made = Spin {
            a: q.at(-x0),
            b: 0.5,
        };
        let mut t = p0.a;
        for &y in v.iter() {
            let mut j = 0;
            let r = loop {
                j += 1;
                if y < 1.5 {
                    t -= made.at(0.03).abs().sin();
                }
                if j > 2 {
                    break p0.at(p0.b) * (q.a - s);
                }
            };
            s += r * 0.1 + t;
        }
    }
    s + q.a
}

#[test]
fn writers_in_the_arms_of_filters_and_guards() {
    type F = fn(f64, &Spin) -> f64;
    type G = fn(f64, &Spin) -> (f64, f64, Spin);
    let cases: [(F, G); 2] = [
        (filtered_drift, filtered_drift_grad),
        (guarded_twist, guarded_twist_grad),
    ];
    for (f, g) in cases {
        for (x0, a, b) in [(0.3, 0.1, 0.2), (-0.7, 0.4, -0.3), (1.2, -0.5, 0.6)] {
            let p0 = Spin { a, b };
            let (value, dx0, dp) = g(x0, &p0);
            assert_eq!(value, f(x0, &p0));
            let h = [
                central(|t| f(t, &p0), x0),
                central(|t| f(x0, &Spin { a: t, b }), a),
                central(|t| f(x0, &Spin { a, b: t }), b),
            ];
            for (d, h) in [dx0, dp.a, dp.b].into_iter().zip(h) {
                assert_relative_eq!(d, h, max_relative = 1e-6, epsilon = 1e-9);
            }
        }
    }
}

// ---- an element of a `Vec` of structs lent to a writer ---------------------

/// `kick(&mut bodies[i], f)`, `let b = &mut bodies[k]; b.step(dt);
/// kick(b, f); b.v *= ..; *b = ..`: the element is changed, the gradient
/// follows it. (These gave `_grad` of the function before the change, the
/// writes dropped on a copy of the element, until the struct-of-arrays
/// split wrote elements lent by `&mut` back.)
#[grad]
#[allow(clippy::needless_range_loop)] // an index loop, as users write it
fn lent_elements(x0: f64, f: f64, dt: f64) -> f64 {
    let mut bodies = vec![
        Body {
            x: x0,
            v: 0.5,
            m: 1.0,
        },
        Body {
            x: 1.0,
            v: x0 * f,
            m: 2.0,
        },
    ];
    for i in 0..2 {
        kick(&mut bodies[i], f);
    }
    for _ in 0..3 {
        let b = &mut bodies[1];
        b.step(dt);
        kick(b, 0.5 * f);
        b.v *= 0.9;
    }
    let b = &mut bodies[0];
    *b = Body {
        x: b.x * f,
        v: b.v,
        m: b.m,
    };
    bodies[0].x * bodies[1].v + bodies[1].energy()
}

#[test]
fn elements_lent_by_mut_reference_are_changed_and_differentiated() {
    // The function itself (its writers called on the elements) for the
    // differences.
    let plain = lent_elements;
    for (x0, f, dt) in [(0.7, 1.3, 0.1), (-1.2, 0.4, 0.05), (2.0, -0.8, 0.2)] {
        let (v, dx, df, ddt) = lent_elements_grad(x0, f, dt);
        assert_eq!(v, plain(x0, f, dt));
        let cx = central(|s| plain(s, f, dt), x0);
        let cf = central(|s| plain(x0, s, dt), f);
        let cdt = central(|s| plain(x0, f, s), dt);
        assert_relative_eq!(dx, cx, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(df, cf, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(ddt, cdt, max_relative = 1e-6, epsilon = 1e-8);
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Drop {
    pub x: f64,
    pub v: f64,
    pub alive: bool,
    pub bounces: u8,
}

impl Drop {
    /// A float field and a `bool` one assigned in the same arm.
    #[grad]
    pub fn fall(&mut self, dt: f64) {
        if self.x > 0.0 {
            self.x -= dt * self.v;
            self.alive = false;
        }
    }

    /// A guard first, then a float field, an integer and a float again.
    #[grad]
    pub fn bounce(&mut self, k: f64) {
        if !self.alive {
            return;
        }
        self.v *= -k;
        self.bounces += 1;
        self.x += 0.1 * self.v;
    }
}

/// The same as a free function.
#[grad]
pub fn settle(d: &mut Drop, c: f64) {
    if d.x < 1.0 {
        d.v *= c;
        d.bounces = 0;
    }
}

#[grad]
fn dropped(x0: f64, k: f64) -> f64 {
    let mut a = Drop {
        x: x0,
        v: 1.0,
        alive: true,
        bounces: 0,
    };
    let mut b = Drop {
        x: 0.5,
        v: k,
        alive: true,
        bounces: 0,
    };
    for _ in 0..2 {
        a.bounce(k);
        a.fall(0.1);
        settle(&mut a, 0.5 + k);
        b.fall(0.2);
        b.bounce(k);
    }
    a.x * b.v + b.x + f64::from(a.bounces)
}

/// Writers assigning a float field and a `bool` or integer one in one
/// arm, or after a guard. (The struct each assignment makes was read by
/// the reverse sweep outside the arm it was made in: E0425 `this_1`
/// inside the expansion.)
#[test]
fn writers_assigning_floats_and_flags_in_one_arm() {
    for (x0, k) in [(0.7, 0.9), (1.4, 0.3), (-0.2, 1.2)] {
        let (v, dx, dk) = dropped_grad(x0, k);
        assert_eq!(v, dropped(x0, k));
        assert_relative_eq!(dx, central(|x| dropped(x, k), x0), max_relative = 1e-6);
        assert_relative_eq!(dk, central(|k| dropped(x0, k), k), max_relative = 1e-6);
    }
}

#[grad]
#[allow(clippy::needless_range_loop)] // indices, as users write element writers
fn dropped_in_a_vec(x0: f64, k: f64) -> f64 {
    let mut drops = vec![
        Drop {
            x: x0,
            v: 1.0,
            alive: true,
            bounces: 0,
        },
        Drop {
            x: 0.5,
            v: k,
            alive: true,
            bounces: 0,
        },
    ];
    for i in 0..drops.len() {
        drops[i].bounce(k);
        drops[i].fall(0.1);
        settle(&mut drops[i], 0.5 + k);
    }
    drops[1].bounce(k);
    drops[1].bounce(k);
    let mut alive = 0.0;
    for d in &drops {
        if d.alive {
            alive += d.x;
        }
    }
    drops[0].x * drops[1].v + alive + f64::from(drops[0].bounces + drops[1].bounces)
}

/// The same writers on the elements of a `Vec` of structs, whose `bool`
/// and integer fields are `Vec`s of their own after the split. (Stored back
/// after a writer, they were taken to hold derivatives: "`drops_alive`
/// holds a value of a type #[grad] does not model".)
#[test]
fn writers_on_elements_with_flags_and_counters() {
    for (x0, k) in [(0.7, 0.9), (1.4, 0.3), (-0.2, 1.2)] {
        let (v, dx, dk) = dropped_in_a_vec_grad(x0, k);
        assert_eq!(v, dropped_in_a_vec(x0, k));
        assert_relative_eq!(
            dx,
            central(|x| dropped_in_a_vec(x, k), x0),
            max_relative = 1e-6
        );
        assert_relative_eq!(
            dk,
            central(|k| dropped_in_a_vec(x0, k), k),
            max_relative = 1e-6
        );
    }
}

impl Drop {
    /// A flag negated, then read in a condition.
    #[grad]
    pub fn flip(&mut self, dt: f64) {
        self.alive = !self.alive;
        if self.alive {
            self.x += dt * self.v;
        }
    }
}

#[grad]
fn flipped(x0: f64, v: f64) -> f64 {
    let mut d = Drop {
        x: x0,
        v,
        alive: false,
        bounces: 0,
    };
    d.flip(0.5);
    d.flip(0.25);
    d.flip(0.125);
    d.x * x0
}

/// `!` of a struct's `bool` field in a writer: no float has `!`, so it
/// carries no derivative. (It was refused: "cannot differentiate `!`".)
#[test]
fn a_flag_negated_in_a_writer() {
    for (x0, v) in [(1.5, 2.0), (-0.5, 0.25)] {
        let (value, dx, dv) = flipped_grad(x0, v);
        assert_eq!(value, flipped(x0, v));
        // x = x0 + 0.5v + 0.125v.
        let x = x0 + 0.625 * v;
        assert_relative_eq!(dx, x + x0, max_relative = 1e-15);
        assert_relative_eq!(dv, 0.625 * x0, max_relative = 1e-15);
    }
}

/// A `Vec` of structs holding copies of a differentiated struct parameter
/// beside a struct written out (`vec![b0.clone(), Drop { .. }]`, then
/// `push(b0.clone())`), stepped by writers. (The copies were no struct
/// written out, so the `Vec` was kept as written and refused, with a
/// message asking for a `Vec<f64>`.)
#[grad(wrt(d0, k))]
fn copies_in_a_vec(d0: &Drop, k: f64) -> f64 {
    let mut drops = vec![
        d0.clone(),
        Drop {
            x: 1.0,
            v: k,
            alive: true,
            bounces: 0,
        },
    ];
    drops.push(d0.clone());
    for _ in 0..3 {
        for d in drops.iter_mut() {
            d.fall(0.1);
            d.v -= k * d.x * 0.1;
        }
    }
    drops[0].x * drops[1].x + drops[2].v
}

#[test]
fn copies_of_a_parameter_in_a_vec_of_structs() {
    let d0 = Drop {
        x: 0.5,
        v: 0.3,
        alive: true,
        bounces: 0,
    };
    let f = |x: f64, v: f64, k: f64| copies_in_a_vec(&Drop { x, v, ..d0.clone() }, k);
    for k in [0.7, -0.4] {
        let (value, d, dk) = copies_in_a_vec_grad(&d0, k);
        assert_eq!(value, copies_in_a_vec(&d0, k));
        let h = 1e-6;
        let cx = (f(0.5 + h, 0.3, k) - f(0.5 - h, 0.3, k)) / (2.0 * h);
        let cv = (f(0.5, 0.3 + h, k) - f(0.5, 0.3 - h, k)) / (2.0 * h);
        let ck = (f(0.5, 0.3, k + h) - f(0.5, 0.3, k - h)) / (2.0 * h);
        assert_relative_eq!(d.x, cx, max_relative = 1e-6);
        assert_relative_eq!(d.v, cv, max_relative = 1e-6);
        assert_relative_eq!(dk, ck, max_relative = 1e-6);
        assert_eq!((d.alive, d.bounces), (true, 0), "copied");
    }
}

/// A copy of a parameter changed after a loop that may `return`, itself
/// after another such loop: the code after each `return` is an arm, and
/// the copy's changed struct is merged by the inner one. (The reverse
/// sweep shaped its adjoint by that merge, which the outer arm did not
/// pass out: E0425 inside the expansion; difftest seed 11 program 285.)
#[grad(wrt(d0, x))]
fn changed_after_returns(d0: &Drop, x: f64) -> f64 {
    let q = Drop {
        x: 1.0,
        v: x,
        alive: true,
        bounces: 0,
    };
    for _ in 0..2 {
        if x > 5.0 {
            return q.v * 2.0;
        }
    }
    let ys = vec![0.5, 1.5, 2.5];
    let mut c = d0.clone();
    for &y in ys.iter() {
        if y > x * 10.0 {
            return y * x;
        }
    }
    c.x += 0.5 * x;
    c.v * c.x
}

#[test]
fn a_copy_changed_after_loops_that_may_return() {
    let d0 = Drop {
        x: 0.3,
        v: 1.2,
        alive: true,
        bounces: 0,
    };
    for x in [0.4, 1.0] {
        let (v, d, dx) = changed_after_returns_grad(&d0, x);
        assert_eq!(v, changed_after_returns(&d0, x));
        assert_eq!(v, 1.2 * (0.3 + 0.5 * x));
        assert_relative_eq!(dx, 0.6, max_relative = 1e-15);
        assert_relative_eq!(d.x, 1.2, max_relative = 1e-15);
        assert_relative_eq!(d.v, 0.3 + 0.5 * x, max_relative = 1e-15);
    }
    // A `return` taken: y·x with the first y over 10x, 1.5.
    let (v, d, dx) = changed_after_returns_grad(&d0, 0.1);
    assert_eq!((v, d.x, d.v, dx), (1.5 * 0.1, 0.0, 0.0, 1.5));
}

mod writers_as_arm_values {
    use super::*;

    #[derive(Differentiable, Clone, Copy)]
    struct Cart {
        pos: f64,
        vel: f64,
    }

    impl Cart {
        #[grad(wrt(self, f))]
        fn push(&mut self, f: f64) {
            self.vel += f;
            self.pos += self.vel;
        }

        #[grad(wrt(self))]
        fn drift(&mut self) {
            self.pos += self.vel;
        }
    }

    #[derive(Clone, Copy)]
    enum Cmd {
        Push(f64),
        Coast(usize),
        Check,
    }

    /// A writer as an arm's value (`Cmd::Push(f) => b.push(..),`) beside an
    /// arm ending in a loop and one ending in a macro (trial 7 r200): the
    /// arm's value was emitted in front of the arm's outputs, which rustc
    /// read as a call of `()` (E0618 inside the expansion).
    #[grad]
    fn run(v0: f64, cmds: &[Cmd]) -> f64 {
        let mut b = Cart { pos: 0.0, vel: v0 };
        for c in cmds {
            match c {
                Cmd::Push(f) => b.push(v0 * f),
                Cmd::Coast(k) => {
                    for _ in 0..*k {
                        b.drift();
                    }
                }
                Cmd::Check => assert!(b.vel.is_finite()),
            }
        }
        b.pos
    }

    /// The same as an `if` at the end of a loop's body.
    #[grad]
    fn alternate(x0: f64, f: f64) -> f64 {
        let mut b = Cart { pos: x0, vel: 0.0 };
        for k in 0..4 {
            if k % 2 == 0 {
                b.push(f)
            } else {
                for _ in 0..2 {
                    b.drift();
                }
            }
        }
        b.pos
    }

    #[test]
    fn writers_as_the_values_of_arms_in_a_loop() {
        let cmds = [Cmd::Push(1.0), Cmd::Coast(2), Cmd::Check, Cmd::Push(2.0)];
        for v0 in [0.5, -1.25, 3.0] {
            // vel 2 v0, pos 2 v0; two drifts: 6 v0; vel 4 v0, pos 10 v0.
            let (v, d) = run_grad(v0, &cmds);
            assert_eq!(v, run(v0, &cmds));
            assert_relative_eq!(v, 10.0 * v0, max_relative = 1e-15);
            assert_relative_eq!(d, 10.0, max_relative = 1e-15);
        }
        for (x0, f) in [(1.0, 0.5), (-2.0, 1.5)] {
            // push: vel f, pos x0 + f; drifts: x0 + 3f; push: vel 2f,
            // pos x0 + 5f; drifts: x0 + 9f.
            let (v, dx0, df) = alternate_grad(x0, f);
            assert_eq!(v, alternate(x0, f));
            assert_relative_eq!(v, x0 + 9.0 * f, max_relative = 1e-15);
            assert_eq!((dx0, df), (1.0, 9.0));
        }
    }
}

// ---- `self` read inside a macro after the writer changed it -------------

// `vec![self.x]` after `self.x *= 2.0` reads the struct as changed so far
// (a wrong value and gradient before: the macro's tokens kept the
// receiver as it was on entry).
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Tracked {
    pub x: f64,
    pub v: f64,
    pub hist: Vec<f64>,
}

impl Tracked {
    #[grad(wrt(self))]
    pub fn step(&mut self) {
        self.x *= 2.0;
        self.v *= self.x;
        let h: Vec<f64> = vec![self.x, self.v * 1.0, self.hist[0]];
        self.hist = h;
    }

    #[grad(wrt(self, k))]
    pub fn repeat(&mut self, k: f64) {
        self.x += k;
        let h: Vec<f64> = vec![self.x * self.v; 3];
        self.hist = h;
        self.v = self.hist[1] + self.x;
    }
}

#[grad(wrt(s, k))]
fn scaled_into(s: &mut Tracked, k: f64) {
    s.x *= k;
    let h: Vec<f64> = vec![s.x, s.v, s.x * s.v];
    s.hist = h;
}

#[grad]
fn tracked(x0: f64, v0: f64) -> f64 {
    let mut s = Tracked {
        x: x0,
        v: v0,
        hist: vec![0.5, 0.0, 0.0],
    };
    s.step();
    s.repeat(x0);
    s.step();
    scaled_into(&mut s, v0);
    s.hist[0] * s.hist[1] + s.v
}

#[test]
fn a_writer_reads_itself_as_changed_inside_vec() {
    // The writer alone: hist = [2 x0], d hist[0] / d x = 2.
    let s = Tracked {
        x: 1.5,
        v: 0.25,
        hist: vec![0.5, 0.0, 0.0],
    };
    let mut after = s.clone();
    after.step();
    let (new, d) = s.step_vjp(Tracked {
        x: 0.0,
        v: 0.0,
        hist: vec![1.0, 0.0, 0.0],
    });
    assert_eq!(new, after);
    assert_eq!(new.hist, vec![3.0, 0.75, 0.5]);
    assert_eq!(d.x, 2.0);
    assert_eq!(d.v, 0.0);
    for (a, b) in [(1.5, 0.3), (-0.7, 1.1), (0.2, -2.0)] {
        let (v, da, db) = tracked_grad(a, b);
        assert_eq!(v, tracked(a, b));
        let h = 1e-6;
        let fa = (tracked(a + h, b) - tracked(a - h, b)) / (2.0 * h);
        let fb = (tracked(a, b + h) - tracked(a, b - h)) / (2.0 * h);
        assert_relative_eq!(da, fa, max_relative = 1e-6, epsilon = 1e-6);
        assert_relative_eq!(db, fb, max_relative = 1e-6, epsilon = 1e-6);
    }
}

// ---- an element of an array field changed in place ----------------------

// `self.vel[1] -= g * dt;` in a writer (trial 8 r310, refused before): the
// store goes to a copy of the field, assigned back whole.
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Ball {
    pub pos: [f64; 2],
    pub vel: [f64; 2],
    pub trail: Vec<f64>,
}

impl Ball {
    #[grad(wrt(self, g))]
    pub fn fall(&mut self, g: f64, dt: f64) {
        self.vel[1] -= g * dt;
        self.pos[0] += self.vel[0] * dt;
        self.pos[1] += self.vel[1] * dt;
        self.trail[0] += self.pos[1] * self.trail[1];
    }
}

#[grad]
fn ball_apex(v0: f64, g: f64) -> f64 {
    let mut b = Ball {
        pos: [0.0, 0.0],
        vel: [1.0, v0],
        trail: vec![0.0, 0.5],
    };
    let mut best = 0.0;
    for _ in 0..20 {
        b.fall(g, 0.05);
        if b.pos[1] > best {
            best = b.pos[1];
        }
    }
    best + b.pos[0] * b.trail[0]
}

#[test]
fn a_writer_changes_an_element_of_an_array_field() {
    let b = Ball {
        pos: [0.0, 1.0],
        vel: [2.0, 3.0],
        trail: vec![0.25, 0.5],
    };
    let mut after = b.clone();
    after.fall(10.0, 0.1);
    // vel = [2, 2], pos = [0.2, 1.2], trail[0] = 0.25 + 0.6.
    assert_eq!(after.vel, [2.0, 2.0]);
    assert_relative_eq!(after.trail[0], 0.85, max_relative = 1e-15);
    let h = 1e-6;
    // Points away from a tie of two steps' heights (the max's kink).
    for (v, g) in [(3.0, 9.8), (1.03, 2.0), (2.2, 3.1)] {
        let (val, dv, dg) = ball_apex_grad(v, g);
        assert_eq!(val, ball_apex(v, g));
        let fv = (ball_apex(v + h, g) - ball_apex(v - h, g)) / (2.0 * h);
        let fg = (ball_apex(v, g + h) - ball_apex(v, g - h)) / (2.0 * h);
        assert_relative_eq!(dv, fv, max_relative = 1e-6);
        assert_relative_eq!(dg, fg, max_relative = 1e-6);
    }
}

// The same under `jvp` (trial 9 r527: E0308 inside the expansion, the
// tangent of the field's copy a `Vec` where the field is an array).
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Arm {
    pub q: [f64; 2],
}

impl Arm {
    #[grad(jvp)]
    pub fn nudge(&mut self, k: f64) {
        self.q[0] += k * self.q[1];
        let mut q = self.q.clone();
        q[1] *= k;
        self.q = q;
    }
}

#[grad(jvp)]
fn arm_after(q0: f64, k: f64) -> f64 {
    let mut a = Arm { q: [q0, 1.5] };
    for _ in 0..3 {
        a.nudge(k);
    }
    a.q[0] * a.q[1]
}

#[test]
fn a_writer_changing_an_array_fields_element_under_jvp() {
    for (q0, k) in [(1.0, 0.5), (-0.5, 1.25), (2.0, -0.75)] {
        let (v, dq, dk) = arm_after_grad(q0, k);
        let (vj, t) = arm_after_jvp(q0, k, 0.25, -2.0);
        assert_eq!(v, arm_after(q0, k));
        assert_eq!(vj, v);
        assert_relative_eq!(
            t,
            0.25 * dq - 2.0 * dk,
            max_relative = 1e-12,
            epsilon = 1e-12
        );
        let h = 1e-6;
        let fk = (arm_after(q0, k + h) - arm_after(q0, k - h)) / (2.0 * h);
        assert_relative_eq!(dk, fk, max_relative = 1e-6, epsilon = 1e-8);
    }
}

// A writer assigning a field marked `#[differentiable(constant)]` of a
// type that is not `Differentiable` (trial 9 r481: "`Phase` is not
// `Differentiable`" inside the expansion, under `jvp` too).
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Phase {
    Up,
    Down,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Osc {
    pub x: f64,
    #[differentiable(constant)]
    pub phase: Phase,
}

impl Osc {
    #[grad(jvp)]
    pub fn swing(&mut self, k: f64) {
        let a = match self.phase {
            Phase::Up => k,
            Phase::Down => -k,
        };
        self.x += a * self.x;
        if self.x > 1.0 {
            self.phase = Phase::Down;
        }
    }
}

#[test]
fn a_writer_assigns_a_constant_field_of_any_type() {
    // x' = x + k x while up: dx'/dx = 1 + k, dx'/dk = x; past 1 the phase
    // turns down, a constant.
    for (x0, k) in [(0.5, 0.7), (0.9, 0.2), (0.3, -0.4)] {
        let o = Osc {
            x: x0,
            phase: Phase::Up,
        };
        let mut after = o.clone();
        after.swing(k);
        let seed = Osc {
            x: 1.0,
            phase: Phase::Up,
        };
        let (new, d_self, d_k) = o.swing_vjp(k, seed.clone());
        assert_eq!(new, after);
        assert_eq!(
            new.phase,
            if x0 + k * x0 > 1.0 {
                Phase::Down
            } else {
                Phase::Up
            }
        );
        assert_relative_eq!(d_self.x, 1.0 + k, max_relative = 1e-15);
        assert_relative_eq!(d_k, x0, max_relative = 1e-15);
        let (new_j, t) = o.swing_jvp(k, &seed, 0.5);
        assert_eq!(new_j, after);
        assert_relative_eq!(t.x, 1.0 + k + 0.5 * x0, max_relative = 1e-15);
    }
}

/// A local struct with that constant field, swung by the writer in a
/// time loop (the phase written back after each call and given to the
/// next), then copied and swung again (trial 11 B7: refused, "cannot
/// differentiate through `o_phase`", its field read back taken for an
/// active value of a type the macro does not model). The phase turns
/// where x passes 1, and the value follows it.
#[grad(jvp)]
fn swung(x0: f64, k: f64) -> f64 {
    let mut o = Osc {
        x: x0,
        phase: Phase::Up,
    };
    for _ in 0..4 {
        o.swing(k);
    }
    let mut c = o.clone();
    c.swing(k);
    let turned = if c.phase == Phase::Down { 1.0 } else { 0.0 };
    c.x + o.x * k + turned
}

/// Its phase not read after the last call: no `unused_assignments`
/// warning in the user's crate (this file denies warnings).
#[grad]
fn swung_twice(x0: f64, k: f64) -> f64 {
    let mut o = Osc {
        x: x0,
        phase: Phase::Up,
    };
    o.swing(k);
    o.swing(k);
    o.x
}

#[test]
fn a_local_structs_constant_field_through_writers() {
    // Below 1 throughout: (1 + k)² x0.
    let (v, dx, dk) = swung_twice_grad(0.25, 0.5);
    assert_eq!((v, dx, dk), (0.5625, 2.25, 0.75));
    let plain = |x0: f64, k: f64| {
        let (mut x, mut up) = (x0, true);
        let mut swing = |x: &mut f64| {
            *x += if up { k } else { -k } * *x;
            if *x > 1.0 {
                up = false;
            }
        };
        for _ in 0..4 {
            swing(&mut x);
        }
        let o = x;
        swing(&mut x);
        x + o * k + if up { 0.0 } else { 1.0 }
    };
    // Turning down within the loop, after it, and never.
    for (x0, k) in [(0.5, 0.3), (0.6, 0.12), (0.2, 0.1), (0.4, -0.2)] {
        let (v, dx, dk) = swung_grad(x0, k);
        assert_eq!(v, swung(x0, k));
        assert_relative_eq!(v, plain(x0, k), max_relative = 1e-14);
        let h = 1e-7;
        let fx = (plain(x0 + h, k) - plain(x0 - h, k)) / (2.0 * h);
        let fk = (plain(x0, k + h) - plain(x0, k - h)) / (2.0 * h);
        assert_relative_eq!(dx, fx, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(dk, fk, max_relative = 1e-6, epsilon = 1e-8);
        let (vj, t) = swung_jvp(x0, k, 0.5, -1.0);
        assert_eq!(vj, v);
        assert_relative_eq!(t, 0.5 * dx - dk, max_relative = 1e-12, epsilon = 1e-12);
    }
}

// ---- trial 13: writers in the shapes robotics code writes ---------------

#[derive(Differentiable, Clone, Copy, Debug)]
pub struct Joint {
    pub q: f64,
    pub qd: f64,
}

impl Joint {
    #[grad(wrt(self, target, dt), jvp)]
    pub fn servo(&mut self, target: f64, dt: f64) {
        let tau = 2.0 * (target - self.q) - 0.5 * self.qd;
        self.qd += tau * dt;
        self.q += self.qd * dt;
    }

    #[grad(wrt(self, dt), jvp)]
    pub fn moved(&self, dt: f64) -> Joint {
        Joint {
            q: self.q + self.qd * dt,
            qd: 0.9 * self.qd,
        }
    }
}

#[derive(Differentiable, Clone, Copy, Debug)]
pub struct Leg {
    pub hip: Joint,
    pub knee: Joint,
    pub t: f64,
}

pub enum Cmd {
    Hold,
    Move(f64),
    Both { h: f64, k: f64 },
}

impl Leg {
    /// Writers on its fields inside the arms of a `match` and after a
    /// guard clause (trial 13 B1: "`Joint: Default` is not satisfied"
    /// inside the expansion; `Joint` derives no `Default`).
    #[grad(wrt(self, dt), jvp)]
    pub fn apply(&mut self, c: &Cmd, dt: f64) {
        if dt <= 0.0 {
            return;
        }
        match c {
            Cmd::Hold => {
                let h = self.hip.q;
                self.hip.servo(h, dt);
            }
            Cmd::Move(a) => self.hip.servo(*a, dt),
            Cmd::Both { h, k } => {
                self.hip.servo(*h, dt);
                self.knee.servo(*k + self.hip.q * 0.1, dt);
            }
        }
        self.t += dt;
    }
}

/// The commands walked by reference, each lent to the writer: the loop
/// records `c`, a reference to `cmds` (E0597 inside the expansion: the
/// stack that held it outlived `cmds`).
#[grad(jvp)]
fn walked(x: f64, dt: f64) -> f64 {
    let mut leg = Leg {
        hip: Joint { q: x, qd: 0.0 },
        knee: Joint {
            q: 0.5 * x,
            qd: 0.1,
        },
        t: 0.0,
    };
    let cmds = [
        Cmd::Hold,
        Cmd::Move(1.0),
        Cmd::Both { h: 0.5, k: -0.3 },
        Cmd::Move(0.2),
    ];
    for c in &cmds {
        leg.apply(c, dt);
    }
    leg.hip.q * leg.knee.q + leg.t
}

#[grad(wrt(q, qd), jvp)]
fn started(q: f64, qd: f64) -> Joint {
    Joint { q, qd: 2.0 * qd }
}

/// A struct a call returned, replaced by a method's struct result, then
/// changed by a writer, in a time loop (trial 13 B2: the method's call
/// was taken for a float's, E0277 inside the expansion).
#[grad(jvp)]
fn restarted(x: f64, v: f64) -> f64 {
    let mut j = started(x, v);
    for _ in 0..3 {
        j = j.moved(0.1);
        j.servo(0.5 * x, 0.2);
    }
    j.q * j.qd
}

#[derive(Differentiable, Clone, Debug)]
pub struct Lin {
    pub w: Vec<f64>,
    pub b: f64,
}

impl Lin {
    /// A writer taking a `Vec` by value (trial 13 B5: E0382 inside the
    /// caller's expansion, the argument moved and read again).
    #[grad(wrt(self, w))]
    pub fn set(&mut self, w: Vec<f64>) {
        self.w = w;
    }
}

#[grad]
fn set_whole(w0: &[f64]) -> f64 {
    let mut m = Lin {
        w: vec![0.0; 2],
        b: 0.0,
    };
    let wv = w0.to_vec();
    m.set(wv);
    m.w[0] * m.w[1] + m.b
}

#[test]
fn writers_as_robotics_code_writes_them() {
    let h = 1e-6;
    type G = fn(f64, f64) -> (f64, f64, f64);
    type J = fn(f64, f64, f64, f64) -> (f64, f64);
    type F = fn(f64, f64) -> f64;
    let cases: [(F, G, J); 2] = [
        (walked, walked_grad, walked_jvp),
        (restarted, restarted_grad, restarted_jvp),
    ];
    for (f, g, jvp) in cases {
        for (x, y) in [(0.3, 0.1), (-0.7, 0.05), (1.2, 0.15)] {
            let (v, dx, dy) = g(x, y);
            assert_eq!(v, f(x, y));
            let fx = (f(x + h, y) - f(x - h, y)) / (2.0 * h);
            let fy = (f(x, y + h) - f(x, y - h)) / (2.0 * h);
            assert_relative_eq!(dx, fx, max_relative = 1e-6, epsilon = 1e-8);
            assert_relative_eq!(dy, fy, max_relative = 1e-6, epsilon = 1e-8);
            let (vj, t) = jvp(x, y, 0.5, -1.0);
            assert_eq!(vj, v);
            assert_relative_eq!(t, 0.5 * dx - dy, max_relative = 1e-12, epsilon = 1e-12);
        }
    }
    // w0[0] w0[1].
    assert_eq!(set_whole_grad(&[2.0, 3.0]), (6.0, vec![3.0, 2.0]));
}

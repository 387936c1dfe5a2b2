//! Forward mode (issue 27): the generated `_jvp`, a directional derivative
//! in one forward sweep, against the function itself, a hand-written
//! directional derivative and num-dual's dual numbers with one derivative
//! (`Dual64`), on Σ sin(xᵢ xᵢ₊₁) and the chain of 400 operations; and
//! `_jacobian` of a function with 2 inputs and 100 outputs in both
//! directions, forward (`#[grad(jvp)]`: one `_jvp` per input) against
//! reverse (`#[grad]`: one reverse sweep per output) and the hand-written
//! Jacobian. Every result is checked before it is timed.
//! `cargo bench -p autodiff-benches --bench forward`.

use std::hint::black_box;

#[allow(dead_code)] // the gradients' peers, for `benches/gradients.rs`
mod chain;
mod common;

use autodiff::grad;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use num_dual::{Dual64, DualNum};

// ------------------------------------------------------------- Σ sin --

/// Σ sin(xᵢ xᵢ₊₁).
#[grad(jvp)]
fn ring(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += (x[i] * x[i + 1]).sin();
    }
    s
}

/// The directional derivative a careful person writes: one pass, the
/// cosine of each product times the product's own derivative.
fn ring_hand(x: &[f64], v: &[f64]) -> (f64, f64) {
    let (mut s, mut d) = (0.0, 0.0);
    for (p, q) in x.windows(2).zip(v.windows(2)) {
        let (sin, cos) = (p[0] * p[1]).sin_cos();
        s += sin;
        d += cos * (q[0] * p[1] + p[0] * q[1]);
    }
    (s, d)
}

fn ring_dual(x: &[Dual64]) -> Dual64 {
    let mut s = Dual64::from(0.0);
    for i in 0..x.len() - 1 {
        s += (x[i] * x[i + 1]).sin();
    }
    s
}

fn sum_of_sines(c: &mut Criterion) {
    let mut g = c.benchmark_group("jvp: sum of sin(x[i] x[i+1])");
    for n in [100usize, 1000] {
        let mut rng = common::Rng::new(7);
        let x = rng.uniform_vec(n, -1.0, 1.0);
        let v = rng.uniform_vec(n, -1.0, 1.0);
        let (value, t) = ring_jvp(&x, &v);
        let (hv, ht) = ring_hand(&x, &v);
        common::assert_close("hand-written", &[hv, ht], &[value, t], 1e-12);
        let xd: Vec<Dual64> = x.iter().zip(&v).map(|(&a, &b)| Dual64::new(a, b)).collect();
        let r = ring_dual(&xd);
        common::assert_close("num-dual", &[r.re, r.eps], &[value, t], 1e-12);
        g.bench_with_input(BenchmarkId::new("function", n), &x, |b, x| {
            b.iter(|| ring(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("generated _jvp", n), &x, |b, x| {
            b.iter(|| ring_jvp(black_box(x), black_box(&v)))
        });
        g.bench_with_input(BenchmarkId::new("hand-written", n), &x, |b, x| {
            b.iter(|| ring_hand(black_box(x), black_box(&v)))
        });
        g.bench_with_input(BenchmarkId::new("num-dual (Dual64)", n), &xd, |b, xd| {
            b.iter(|| ring_dual(black_box(xd)))
        });
    }
    g.finish();
}

// ------------------------------------------------------------- chain --

fn chain_of_400(c: &mut Criterion) {
    let mut g = c.benchmark_group("jvp: chain of 400 operations");
    let (x, y, tx, ty) = (0.3, -0.7, 0.6, -1.1);
    let (value, t) = chain::chain_jvp(x, y, tx, ty);
    let (_, gx, gy) = chain::chain_grad(x, y);
    common::assert_close(
        "gradient along the tangent",
        &[t],
        &[gx * tx + gy * ty],
        1e-9,
    );
    let r = chain::chain_dual1(Dual64::new(x, tx), Dual64::new(y, ty));
    common::assert_close("num-dual", &[r.re, r.eps], &[value, t], 1e-9);
    g.bench_function("function", |b| {
        b.iter(|| chain::chain(black_box(x), black_box(y)))
    });
    g.bench_function("generated _jvp", |b| {
        b.iter(|| chain::chain_jvp(black_box(x), black_box(y), black_box(tx), black_box(ty)))
    });
    g.bench_function("num-dual (Dual64)", |b| {
        b.iter(|| chain::chain_dual1(Dual64::new(black_box(x), tx), Dual64::new(black_box(y), ty)))
    });
    g.finish();
}

// ---------------------------------------------------------- Jacobian --

/// Heights of a projectile with quadratic drag at 100 times, against its
/// launch speed and angle: 2 inputs, 100 outputs. With `jvp`, its
/// `_jacobian` runs forward, one `_jvp` per input.
#[grad(jvp)]
#[allow(clippy::needless_range_loop)]
fn trajectory_fwd(v0: f64, angle: f64) -> [f64; 100] {
    let mut out = [0.0; 100];
    let (mut vx, mut vy) = (v0 * angle.cos(), v0 * angle.sin());
    let (mut h, dt, k) = (0.0, 0.01, 0.05);
    for i in 0..100 {
        let speed = (vx * vx + vy * vy).sqrt();
        vx -= dt * k * speed * vx;
        vy -= dt * (9.81 + k * speed * vy);
        h += dt * vy;
        out[i] = h;
    }
    out
}

/// The same function without `jvp`: its `_jacobian` is reverse mode, one
/// sweep per output (the body written out again: `#[grad]` reads the
/// body's own tokens, not a macro's).
#[grad]
#[allow(clippy::needless_range_loop)]
fn trajectory_rev(v0: f64, angle: f64) -> [f64; 100] {
    let mut out = [0.0; 100];
    let (mut vx, mut vy) = (v0 * angle.cos(), v0 * angle.sin());
    let (mut h, dt, k) = (0.0, 0.01, 0.05);
    for i in 0..100 {
        let speed = (vx * vx + vy * vy).sqrt();
        vx -= dt * k * speed * vx;
        vy -= dt * (9.81 + k * speed * vy);
        h += dt * vy;
        out[i] = h;
    }
    out
}

/// The Jacobian by hand: the state's derivatives with respect to both
/// inputs carried along the steps (forward sensitivities).
fn trajectory_hand(v0: f64, angle: f64) -> ([f64; 100], [[f64; 2]; 100]) {
    let (mut out, mut jac) = ([0.0; 100], [[0.0; 2]; 100]);
    let (c, s) = (angle.cos(), angle.sin());
    let (mut vx, mut vy) = (v0 * c, v0 * s);
    // d(vx, vy, h) / d(v0, angle).
    let (mut dvx, mut dvy, mut dh) = ([c, -v0 * s], [s, v0 * c], [0.0, 0.0]);
    let (mut h, dt, k) = (0.0, 0.01, 0.05);
    for i in 0..100 {
        let speed = (vx * vx + vy * vy).sqrt();
        let mut dspeed = [0.0; 2];
        for j in 0..2 {
            dspeed[j] = (vx * dvx[j] + vy * dvy[j]) / speed;
        }
        let (nvx, nvy) = (vx - dt * k * speed * vx, vy - dt * (9.81 + k * speed * vy));
        for j in 0..2 {
            let ax = dvx[j] - dt * k * (dspeed[j] * vx + speed * dvx[j]);
            let ay = dvy[j] - dt * k * (dspeed[j] * vy + speed * dvy[j]);
            dvx[j] = ax;
            dvy[j] = ay;
            dh[j] += dt * dvy[j];
        }
        vx = nvx;
        vy = nvy;
        h += dt * vy;
        out[i] = h;
        jac[i] = dh;
    }
    (out, jac)
}

fn jacobian_directions(c: &mut Criterion) {
    let mut g = c.benchmark_group("jacobian: 2 inputs, 100 outputs");
    let (v0, angle) = (12.0, 0.8);
    let (vf, jf) = trajectory_fwd_jacobian(v0, angle);
    let (vr, jr) = trajectory_rev_jacobian(v0, angle);
    let (vh, jh) = trajectory_hand(v0, angle);
    assert_eq!(vf, vr);
    for i in 0..100 {
        common::assert_close("forward against reverse", &jf[i], &jr[i], 1e-12);
        common::assert_close("hand-written", &jh[i], &jr[i], 1e-9);
    }
    assert!((vh[99] - vr[99]).abs() < 1e-12);
    g.bench_function("function", |b| {
        b.iter(|| trajectory_rev(black_box(v0), black_box(angle)))
    });
    g.bench_function("generated, forward (2 _jvp)", |b| {
        b.iter(|| trajectory_fwd_jacobian(black_box(v0), black_box(angle)))
    });
    g.bench_function("generated, reverse (100 sweeps)", |b| {
        b.iter(|| trajectory_rev_jacobian(black_box(v0), black_box(angle)))
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| trajectory_hand(black_box(v0), black_box(angle)))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = sum_of_sines, chain_of_400, jacobian_directions
}
criterion_main!(benches);

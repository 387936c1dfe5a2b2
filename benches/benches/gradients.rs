//! The generated gradient against the function itself, a hand-written
//! gradient, forward mode with dual numbers (`num-dual`), a tape-based
//! reverse mode (`reverse`) and central differences, one criterion group
//! per workload. `cargo bench -p autodiff-benches` runs them; BENCHMARKS.md
//! reports them.

use std::hint::black_box;

mod chain;
mod common;

use autodiff::grad;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use nalgebra::DVector;
use num_dual::{gradient, DualDVec64, DualNum};
use reverse::{Gradient, Powf};

// ---------------------------------------------------------------- seeds --

#[grad]
fn seed_f(x1: f64, x2: f64) -> f64 {
    (x1 - x2).powi(2) + (x1 + x2).cos()
}

fn seed_hand(x1: f64, x2: f64) -> (f64, f64, f64) {
    let d = x1 - x2;
    let s = x1 + x2;
    let sin = s.sin();
    (d * d + s.cos(), 2.0 * d - sin, -2.0 * d - sin)
}

fn seeds(c: &mut Criterion) {
    let mut g = c.benchmark_group("seeds");
    let (x1, x2) = (1.0, 2.0);
    g.bench_function("function", |b| {
        b.iter(|| seed_f(black_box(x1), black_box(x2)))
    });
    g.bench_function("generated", |b| {
        b.iter(|| seed_f_grad(black_box(x1), black_box(x2)))
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| seed_hand(black_box(x1), black_box(x2)))
    });
    let x = DVector::from_vec(vec![x1, x2]);
    g.bench_function("num-dual", |b| {
        b.iter(|| {
            gradient(
                |v: DVector<DualDVec64>| {
                    (v[0].clone() - v[1].clone()).powi(2) + (v[0].clone() + v[1].clone()).cos()
                },
                black_box(&x),
            )
        })
    });
    g.bench_function("reverse (tape)", |b| {
        b.iter(|| {
            let tape = reverse::Tape::new();
            let v = tape.add_vars(&[black_box(x1), black_box(x2)]);
            let r = (v[0] - v[1]).powf(2.0) + (v[0] + v[1]).cos();
            (r.val, r.grad().wrt(&v))
        })
    });
    g.bench_function("central differences", |b| {
        b.iter(|| common::central_differences(|v| seed_f(v[0], v[1]), black_box(&[x1, x2])))
    });
    g.finish();
}

// -------------------------------------------------------------- scaling --

/// Σ sin(xᵢ xᵢ₊₁).
#[grad]
fn ring(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += (x[i] * x[i + 1]).sin();
    }
    s
}

/// The best gradient a careful person writes: one pass over the pairs,
/// `sin` and `cos` of each product from one `sin_cos` (one `sincos`
/// call: nothing between the two halves), and the element shared by
/// adjacent terms (∂/∂xᵢ₊₁ of term i and ∂/∂xᵢ₊₁ of term i + 1) carried
/// in a register and stored once, with no bounds check in the loop.
fn ring_hand(x: &[f64]) -> (f64, Vec<f64>) {
    let mut s = 0.0;
    let mut g = vec![0.0; x.len()];
    // ∂/∂xᵢ of the terms seen so far that read xᵢ.
    let mut carried = 0.0;
    for (gi, pair) in g.iter_mut().zip(x.windows(2)) {
        let (sin, cos) = (pair[0] * pair[1]).sin_cos();
        s += sin;
        *gi = carried + cos * pair[1];
        carried = cos * pair[0];
    }
    if let Some(last) = g.last_mut() {
        *last = carried;
    }
    (s, g)
}

fn ring_dual(x: &DVector<DualDVec64>) -> DualDVec64 {
    let mut s = DualDVec64::from(0.0);
    for i in 0..x.len() - 1 {
        s += (x[i].clone() * x[i + 1].clone()).sin();
    }
    s
}

fn scaling(c: &mut Criterion) {
    let mut g = c.benchmark_group("scaling");
    for n in [10usize, 100, 1_000, 10_000, 100_000] {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        g.bench_with_input(BenchmarkId::new("function", n), &x, |b, x| {
            b.iter(|| ring(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("generated", n), &x, |b, x| {
            b.iter(|| ring_grad(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("hand-written", n), &x, |b, x| {
            b.iter(|| ring_hand(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("reverse (tape)", n), &x, |b, x| {
            b.iter(|| {
                let tape = reverse::Tape::new();
                let v = tape.add_vars(black_box(x));
                let mut s = v[0] * 0.0;
                for i in 0..v.len() - 1 {
                    s = s + (v[i] * v[i + 1]).sin();
                }
                s.grad().wrt(&v)
            })
        });
        // Forward mode costs n times the function: affordable up to 1,000.
        if n <= 1_000 {
            let xd = DVector::from_vec(x.clone());
            g.bench_with_input(BenchmarkId::new("num-dual", n), &xd, |b, x| {
                b.iter(|| gradient(|v: DVector<DualDVec64>| ring_dual(&v), black_box(x)))
            });
            g.bench_with_input(BenchmarkId::new("central differences", n), &x, |b, x| {
                b.iter(|| common::central_differences(ring, black_box(x)))
            });
        }
    }
    g.finish();
}

// ------------------------------------------------- logistic regression --

/// The mean logistic loss of weights `w` on `n` points of dimension
/// `w.len()` (row-major `xs`) with labels ±1.
#[grad(wrt(w))]
fn logistic(w: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    let d = w.len();
    let n = ys.len();
    let mut total = 0.0;
    for p in 0..n {
        let mut z = 0.0;
        for j in 0..d {
            z += w[j] * xs[p * d + j];
        }
        total += autodiff::softplus(-ys[p] * z);
    }
    total / n as f64
}

fn logistic_hand(w: &[f64], xs: &[f64], ys: &[f64]) -> (f64, Vec<f64>) {
    let d = w.len();
    let n = ys.len();
    let mut total = 0.0;
    let mut g = vec![0.0; d];
    for p in 0..n {
        let row = &xs[p * d..(p + 1) * d];
        let z: f64 = w.iter().zip(row).map(|(a, b)| a * b).sum();
        let m = -ys[p] * z;
        total += autodiff::softplus(m);
        // d softplus(m)/dz = σ(m)·(−y).
        let s = -ys[p] * autodiff::sigmoid(m) / n as f64;
        for j in 0..d {
            g[j] += s * row[j];
        }
    }
    (total / n as f64, g)
}

fn logistic_regression(c: &mut Criterion) {
    let mut g = c.benchmark_group("logistic regression d=100 n=10000");
    let (d, n) = (100, 10_000);
    let w: Vec<f64> = (0..d).map(|j| (j as f64 * 0.13).sin() * 0.1).collect();
    let xs: Vec<f64> = (0..n * d)
        .map(|k| ((k * 7919 % 1000) as f64 / 500.0) - 1.0)
        .collect();
    let ys: Vec<f64> = (0..n)
        .map(|p| if p % 3 == 0 { 1.0 } else { -1.0 })
        .collect();
    g.bench_function("function", |b| b.iter(|| logistic(black_box(&w), &xs, &ys)));
    g.bench_function("generated", |b| {
        b.iter(|| logistic_grad(black_box(&w), &xs, &ys))
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| logistic_hand(black_box(&w), &xs, &ys))
    });
    g.bench_function("reverse (tape)", |b| {
        b.iter(|| {
            let tape = reverse::Tape::new();
            let v = tape.add_vars(black_box(&w));
            let mut total = v[0] * 0.0;
            for p in 0..n {
                let mut z = v[0] * 0.0;
                for j in 0..d {
                    z = z + v[j] * xs[p * d + j];
                }
                let m = z * -ys[p];
                // softplus(m) = max(m, 0) + ln(1 + e^−|m|), on the tape.
                let sp = if m.val > 0.0 {
                    m + (m * -1.0).exp().ln_1p()
                } else {
                    m.exp().ln_1p()
                };
                total = total + sp;
            }
            (total / n as f64).grad().wrt(&v)
        })
    });
    g.finish();
}

fn chain_of_400(c: &mut Criterion) {
    let mut g = c.benchmark_group("chain of 400 operations");
    let (x, y) = (0.3, -0.7);
    // The generated and the hand-written gradients agree before they race.
    let (v, gx, gy) = chain::chain_grad(x, y);
    let (hv, hx, hy) = chain::chain_hand(x, y);
    assert!((v - hv).abs() <= 1e-12 * v.abs().max(1.0));
    assert!(
        (gx - hx).abs() <= 1e-9 * gx.abs().max(1.0) && (gy - hy).abs() <= 1e-9 * gy.abs().max(1.0)
    );
    g.bench_function("function", |b| {
        b.iter(|| chain::chain(black_box(x), black_box(y)))
    });
    g.bench_function("generated", |b| {
        b.iter(|| chain::chain_grad(black_box(x), black_box(y)))
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| chain::chain_hand(black_box(x), black_box(y)))
    });
    let xy = nalgebra::SVector::from([x, y]);
    let (dv, dg) = gradient(|v| chain::chain_dual(v[0], v[1]), &xy);
    common::assert_close("num-dual", &[dv, dg[0], dg[1]], &[v, gx, gy], 1e-9);
    g.bench_function("num-dual", |b| {
        b.iter(|| gradient(|v| chain::chain_dual(v[0], v[1]), black_box(&xy)))
    });
    g.bench_function("reverse (tape)", |b| {
        b.iter(|| {
            let tape = reverse::Tape::new();
            let v = tape.add_vars(&[black_box(x), black_box(y)]);
            let r = chain::chain_tape(v[0], v[1]);
            (r.val(), r.grad().wrt(&v))
        })
    });
    g.bench_function("central differences", |b| {
        b.iter(|| common::central_differences(|v| chain::chain(v[0], v[1]), black_box(&[x, y])))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = seeds, chain_of_400, scaling, logistic_regression
}
criterion_main!(benches);

//! Second derivatives of Rosenbrock (Σ 100(x[i+1] − x[i]²)² + (1 −
//! x[i])²): the generated `_hvp` and `_hessian` (`#[grad(hessian)]`, the
//! gradient run at dual numbers) against the hand-written closed forms and
//! num-dual's second-order dual numbers (`Dual2DVec64`, the Hessian in one
//! forward pass whose every operation carries an n × n block). Each result
//! is checked against the hand-written one before it is timed.
//! `cargo bench -p autodiff-benches --bench second_order`.

use std::hint::black_box;

mod common;

use autodiff::{grad, Float};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use nalgebra::DVector;
use num_dual::{hessian, Dual2DVec64, DualNum};

#[grad(hessian)]
fn rosenbrock<T: Float>(x: &[T]) -> T {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}

/// The Hessian in closed form (tridiagonal), as a dense matrix.
fn hessian_hand(x: &[f64]) -> Vec<Vec<f64>> {
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

/// `H·v` in closed form, without the matrix.
fn hvp_hand(x: &[f64], v: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut out = vec![0.0; n];
    for i in 0..n - 1 {
        let a = 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
        let b = -400.0 * x[i];
        out[i] += a * v[i] + b * v[i + 1];
        out[i + 1] += b * v[i] + 200.0 * v[i + 1];
    }
    out
}

fn rosenbrock_dual2(x: &DVector<Dual2DVec64>) -> Dual2DVec64 {
    let mut s = Dual2DVec64::from(0.0);
    for i in 0..x.len() - 1 {
        let a = x[i + 1].clone() - x[i].clone() * x[i].clone();
        let b = -x[i].clone() + 1.0;
        s += a.powi(2) * 100.0 + b.powi(2);
    }
    s
}

fn flat(h: &[Vec<f64>]) -> Vec<f64> {
    h.iter().flatten().copied().collect()
}

fn second_order(c: &mut Criterion) {
    let mut g = c.benchmark_group("rosenbrock_second_order");
    for n in [10usize, 100] {
        let x: Vec<f64> = (0..n).map(|i| 0.5 + (i as f64 * 0.37).sin()).collect();
        let v: Vec<f64> = (0..n).map(|i| (i as f64 * 0.11).cos()).collect();
        let (_, _, h) = rosenbrock_hessian(&x);
        common::assert_close(
            "generated _hessian",
            &flat(&h),
            &flat(&hessian_hand(&x)),
            1e-12,
        );
        let (_, _, hv) = rosenbrock_hvp(&x, &v);
        common::assert_close("generated _hvp", &hv, &hvp_hand(&x, &v), 1e-12);
        let xd = DVector::from_vec(x.clone());
        let (_, _, hd) = hessian(|y: DVector<Dual2DVec64>| rosenbrock_dual2(&y), &xd);
        let hd: Vec<f64> = (0..n)
            .flat_map(|i| (0..n).map(move |j| (i, j)))
            .map(|(i, j)| hd[(i, j)])
            .collect();
        common::assert_close("num-dual hessian", &hd, &flat(&hessian_hand(&x)), 1e-12);

        g.bench_with_input(BenchmarkId::new("gradient (_grad)", n), &x, |b, x| {
            b.iter(|| rosenbrock_grad(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("H·v generated (_hvp)", n), &x, |b, x| {
            b.iter(|| rosenbrock_hvp(black_box(x), black_box(&v)))
        });
        g.bench_with_input(BenchmarkId::new("H·v hand-written", n), &x, |b, x| {
            b.iter(|| hvp_hand(black_box(x), black_box(&v)))
        });
        g.bench_with_input(
            BenchmarkId::new("Hessian generated (_hessian)", n),
            &x,
            |b, x| b.iter(|| rosenbrock_hessian(black_box(x))),
        );
        g.bench_with_input(BenchmarkId::new("Hessian hand-written", n), &x, |b, x| {
            b.iter(|| hessian_hand(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("Hessian num-dual", n), &xd, |b, x| {
            b.iter(|| hessian(|y: DVector<Dual2DVec64>| rosenbrock_dual2(&y), black_box(x)))
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = second_order
}
criterion_main!(benches);

//! Data-parallel gradients (issue 29): the gradient of a one-hidden-layer
//! network's squared error over a batch of 100,000 points, by one `_grad`
//! over the whole batch, by `_grad` chunk by chunk on one thread (what
//! splitting costs without threads), and by rayon over the chunks (each
//! worker calls `_grad` on its chunks; the chunks' gradients are summed
//! with `Differentiable::accumulate`). The parallel gradient is checked
//! against the sequential one (to 1e-12 of the largest entry or 1) before it
//! is timed. `cargo bench -p autodiff-benches --bench parallel`.

#![allow(clippy::needless_range_loop)] // index loops, as users write them

use std::hint::black_box;

mod common;

use autodiff::{grad, Differentiable};
use criterion::{criterion_group, criterion_main, Criterion};
use rayon::prelude::*;

const INPUTS: usize = 4;
const HIDDEN: usize = 16;
const POINTS: usize = 100_000;
const CHUNK: usize = 4_096;

#[derive(Differentiable, Clone)]
struct Mlp {
    w1: Vec<f64>, // HIDDEN × INPUTS, row-major
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: f64,
}

/// The squared error summed over the points: chunks' losses and gradients
/// add up to the batch's.
#[grad(wrt(model))]
fn batch_loss(model: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
    let d = INPUTS;
    let mut total = 0.0;
    for p in 0..ys.len() {
        let mut out = model.b2;
        for j in 0..HIDDEN {
            let mut a = model.b1[j];
            for k in 0..d {
                a += model.w1[j * d + k] * xs[p * d + k];
            }
            out += model.w2[j] * a.tanh();
        }
        total += (out - ys[p]).powi(2);
    }
    total
}

/// The sum of two chunks' losses and gradients.
fn add((la, mut ga): (f64, Mlp), (lb, gb): (f64, Mlp)) -> (f64, Mlp) {
    ga.accumulate(&gb);
    (la + lb, ga)
}

fn chunked(model: &Mlp, xs: &[f64], ys: &[f64]) -> (f64, Mlp) {
    xs.chunks(CHUNK * INPUTS)
        .zip(ys.chunks(CHUNK))
        .map(|(x, y)| batch_loss_grad(model, x, y))
        .fold((0.0, model.zero_like()), add)
}

fn parallel(model: &Mlp, xs: &[f64], ys: &[f64]) -> (f64, Mlp) {
    xs.par_chunks(CHUNK * INPUTS)
        .zip(ys.par_chunks(CHUNK))
        .map(|(x, y)| batch_loss_grad(model, x, y))
        .reduce(|| (0.0, model.zero_like()), add)
}

fn entries(m: &Mlp) -> Vec<f64> {
    let mut v = m.w1.clone();
    v.extend(&m.b1);
    v.extend(&m.w2);
    v.push(m.b2);
    v
}

fn batch(c: &mut Criterion) {
    let mut rng = common::Rng::new(29);
    let model = Mlp {
        w1: (0..HIDDEN * INPUTS).map(|_| 0.5 * rng.normal()).collect(),
        b1: (0..HIDDEN).map(|_| 0.1 * rng.normal()).collect(),
        w2: (0..HIDDEN).map(|_| 0.3 * rng.normal()).collect(),
        b2: 0.0,
    };
    let xs: Vec<f64> = (0..POINTS * INPUTS).map(|_| rng.normal()).collect();
    let ys: Vec<f64> = (0..POINTS)
        .map(|p| (xs[p * INPUTS] * 2.0).sin() + 0.3 * xs[p * INPUTS + 1] + 0.05 * rng.normal())
        .collect();

    let (l, g) = batch_loss_grad(&model, &xs, &ys);
    let mut want = entries(&g);
    want.push(l);
    for (name, (lo, go)) in [
        ("chunks", chunked(&model, &xs, &ys)),
        ("rayon", parallel(&model, &xs, &ys)),
    ] {
        let mut got = entries(&go);
        got.push(lo);
        common::assert_close(name, &got, &want, 1e-12);
    }

    let mut group = c.benchmark_group(format!(
        "batch gradient, {POINTS} points, {} threads",
        rayon::current_num_threads()
    ));
    group.bench_function("sequential, one call", |b| {
        b.iter(|| batch_loss_grad(black_box(&model), &xs, &ys))
    });
    group.bench_function("sequential, chunks", |b| {
        b.iter(|| chunked(black_box(&model), &xs, &ys))
    });
    group.bench_function("rayon, chunks", |b| {
        b.iter(|| parallel(black_box(&model), &xs, &ys))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = batch
}
criterion_main!(benches);

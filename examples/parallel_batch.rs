//! Data-parallel gradients: trains a small network by full-batch gradient
//! descent, its batch gradient computed on all cores with rayon. Each
//! worker calls the generated `batch_loss_grad` on its chunks of the data;
//! the chunks' gradients, values of the model's own type, are added with
//! `Differentiable::accumulate`. Then it times the batch gradient on one
//! thread and on rayon's.
//!
//! Run with `cargo run --example parallel_batch` (add `--release` for the
//! speed-up the optimised code gets).

#![allow(clippy::needless_range_loop)] // index loops, as users write them

use std::time::Instant;

use autodiff::{grad, Differentiable};
use rayon::prelude::*;

const INPUTS: usize = 2;
const HIDDEN: usize = 8;
/// Points per rayon task: enough work per `_grad` call that the split
/// costs little, and enough chunks that every core gets some.
const CHUNK: usize = 256;

/// A network with one hidden layer of tanh units and one output.
#[derive(Differentiable, Clone)]
struct Mlp {
    w1: Vec<f64>, // HIDDEN × INPUTS, row-major
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: f64,
}

/// The squared error summed over the points of `xs` (rows of `INPUTS`)
/// against `ys`. Summed, not averaged: the losses of a batch's chunks add
/// up to the batch's, and so do their gradients.
#[grad(wrt(model))]
fn batch_loss(model: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
    let mut total = 0.0;
    for p in 0..ys.len() {
        let mut out = model.b2;
        for j in 0..HIDDEN {
            let mut a = model.b1[j];
            for k in 0..INPUTS {
                a += model.w1[j * INPUTS + k] * xs[p * INPUTS + k];
            }
            out += model.w2[j] * a.tanh();
        }
        total += (out - ys[p]).powi(2);
    }
    total
}

/// The batch's loss and gradient, one `_grad` per chunk on rayon's
/// workers, summed with the model's `Differentiable` operations.
fn parallel_grad(model: &Mlp, xs: &[f64], ys: &[f64]) -> (f64, Mlp) {
    xs.par_chunks(CHUNK * INPUTS)
        .zip(ys.par_chunks(CHUNK))
        .map(|(x, y)| batch_loss_grad(model, x, y))
        .reduce(
            || (0.0, model.zero_like()),
            |(loss_a, mut grad_a), (loss_b, grad_b)| {
                grad_a.accumulate(&grad_b);
                (loss_a + loss_b, grad_a)
            },
        )
}

/// A small deterministic generator, so that every run is the same.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn centred(&mut self, scale: f64) -> f64 {
        scale * (2.0 * self.next() - 1.0)
    }
}

/// Milliseconds per call of `f`, the best of `runs`.
fn best_ms<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let mut rng = Lcg(29);
    // y = sin(2 x₀) + 0.3 x₁ + noise, on 4,000 points of [−1, 1]².
    let n = 4_000;
    let xs: Vec<f64> = (0..n * INPUTS).map(|_| rng.centred(1.0)).collect();
    let ys: Vec<f64> = (0..n)
        .map(|p| (2.0 * xs[p * INPUTS]).sin() + 0.3 * xs[p * INPUTS + 1] + rng.centred(0.02))
        .collect();
    let mut model = Mlp {
        w1: (0..HIDDEN * INPUTS).map(|_| rng.centred(1.0)).collect(),
        b1: (0..HIDDEN).map(|_| rng.centred(0.5)).collect(),
        w2: (0..HIDDEN).map(|_| rng.centred(0.5)).collect(),
        b2: 0.0,
    };

    println!(
        "{n} points, {} chunks of up to {CHUNK}, {} rayon threads",
        n.div_ceil(CHUNK),
        rayon::current_num_threads()
    );
    let learning_rate = 0.3;
    let epochs = 60;
    let mut first = None;
    let mut last = 0.0;
    for epoch in 0..=epochs {
        let (loss, grad) = parallel_grad(&model, &xs, &ys);
        let mse = loss / n as f64;
        first.get_or_insert(mse);
        last = mse;
        if epoch % 10 == 0 {
            println!("epoch {epoch:3}: mean squared error {mse:.5}");
        }
        if epoch < epochs {
            // The gradient of the mean is the summed gradient over n.
            model.scaled_add(-learning_rate / n as f64, &grad);
        }
    }
    let first = first.unwrap();
    assert!(last < 0.25 * first, "the loss decreases: {first} → {last}");

    // The parallel gradient is the sequential one to rounding (the chunks
    // are summed in another order).
    let (seq_loss, seq_grad) = batch_loss_grad(&model, &xs, &ys);
    let (par_loss, par_grad) = parallel_grad(&model, &xs, &ys);
    let mut worst = (par_loss - seq_loss).abs() / seq_loss.abs();
    for (p, s) in [
        (&par_grad.w1, &seq_grad.w1),
        (&par_grad.b1, &seq_grad.b1),
        (&par_grad.w2, &seq_grad.w2),
    ] {
        for (a, b) in p.iter().zip(s) {
            worst = worst.max((a - b).abs() / b.abs().max(1e-3));
        }
    }
    println!("parallel against sequential gradient: largest relative difference {worst:.1e}");
    assert!(worst < 1e-9);

    let seq = best_ms(5, || batch_loss_grad(&model, &xs, &ys));
    let par = best_ms(5, || parallel_grad(&model, &xs, &ys));
    println!(
        "time per batch gradient: sequential {seq:.2} ms, rayon {par:.2} ms ({:.2}× on {} threads)",
        seq / par,
        rayon::current_num_threads()
    );
}

//! Data-parallel gradients (issue 29): a batch's gradient split over
//! threads with rayon, each thread calling `_grad` on its chunk and the
//! chunks' gradients summed with `Differentiable`'s operations, equals the
//! gradient of one `_grad` over the whole batch to rounding.
//!
//! Generated functions keep no global state: a call's value stacks are its
//! own and their memory comes from a per-thread pool. `tests/threads.rs`
//! shows that many threads at once give the bits of one thread (and that a
//! panic midway leaves the thread usable); the last test here shows the
//! same of rayon's workers, on a loss whose loop records on the stacks.

#![allow(clippy::needless_range_loop)] // index loops, as users write them

use autodiff::runtime::stack;
use autodiff::{grad, Differentiable};
use rayon::prelude::*;

/// A network with one hidden layer of tanh units and one output.
#[derive(Differentiable, Clone, Debug)]
struct Mlp {
    w1: Vec<f64>, // hidden × inputs, row-major
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: f64,
    inputs: usize,
    hidden: usize,
}

/// The squared error summed (not averaged) over the points of `xs` (rows
/// of `model.inputs`) against `ys`: summed, the losses of the chunks of a
/// batch add up to the batch's loss, and so do their gradients. The loop
/// records each point's hidden activations on the value stack.
#[grad(wrt(model))]
fn batch_loss(model: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
    let d = model.inputs;
    let mut total = 0.0;
    for p in 0..ys.len() {
        let mut out = model.b2;
        for j in 0..model.hidden {
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

/// The batch's loss and gradient, `chunk` points per rayon task.
fn parallel_grad(model: &Mlp, xs: &[f64], ys: &[f64], chunk: usize) -> (f64, Mlp) {
    xs.par_chunks(chunk * model.inputs)
        .zip(ys.par_chunks(chunk))
        .map(|(x, y)| batch_loss_grad(model, x, y))
        .reduce(
            || (0.0, model.zero_like()),
            |(la, mut ga), (lb, gb)| {
                ga.accumulate(&gb);
                (la + lb, ga)
            },
        )
}

fn model(inputs: usize, hidden: usize) -> Mlp {
    let w = |i: usize, s: f64| ((i as f64 * 0.37 + s).sin()) * 0.5;
    Mlp {
        w1: (0..hidden * inputs).map(|i| w(i, 0.1)).collect(),
        b1: (0..hidden).map(|i| w(i, 1.3)).collect(),
        w2: (0..hidden).map(|i| w(i, 2.7)).collect(),
        b2: 0.05,
        inputs,
        hidden,
    }
}

fn data(n: usize, inputs: usize) -> (Vec<f64>, Vec<f64>) {
    let xs: Vec<f64> = (0..n * inputs)
        .map(|k| ((k * 7919 % 1000) as f64 / 500.0) - 1.0)
        .collect();
    let ys: Vec<f64> = (0..n)
        .map(|p| (xs[p * inputs] * 2.0).sin() + 0.3 * xs[p * inputs + 1])
        .collect();
    (xs, ys)
}

/// The model's float parts, in a fixed order: what a gradient holds.
fn entries(m: &Mlp) -> Vec<f64> {
    let mut v = m.w1.clone();
    v.extend(&m.b1);
    v.extend(&m.w2);
    v.push(m.b2);
    v
}

#[test]
fn the_parallel_gradient_is_the_sequential_one_to_rounding() {
    const CHUNK: usize = 64;
    let (inputs, hidden) = (3, 5);
    let m = model(inputs, hidden);
    // Four workers on any machine, so the batch is split and the chunks
    // are summed in rayon's order, not the loop's.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    // Divisible by the chunk and not: one point, less than a chunk, one
    // chunk, a chunk and a point, many chunks and a remainder.
    for n in [1, 7, 64, 65, 100, 257, 1000, 1024] {
        let (xs, ys) = data(n, inputs);
        let (seq_loss, seq_grad) = batch_loss_grad(&m, &xs, &ys);
        let (par_loss, par_grad) = pool.install(|| parallel_grad(&m, &xs, &ys, CHUNK));

        // The tolerance. Summing n terms tᵢ in floating point, in any
        // order, errs by at most (n − 1)·(ε/2)·Σ|tᵢ| (ε = f64::EPSILON);
        // the sequential and the parallel sum each do, so they differ by
        // at most (n − 1)·ε·Σ|tᵢ|. The terms are each point's own loss
        // and gradient (computed alike by both: a point's adjoints do not
        // depend on the other points), so Σ|tᵢ| is summed from one-point
        // calls; the bound used is twice the worst case.
        let mut abs_loss = 0.0;
        let mut abs_grad = vec![0.0; entries(&m).len()];
        for p in 0..n {
            let (l, g) = batch_loss_grad(&m, &xs[p * inputs..(p + 1) * inputs], &ys[p..p + 1]);
            abs_loss += l.abs();
            for (a, e) in abs_grad.iter_mut().zip(entries(&g)) {
                *a += e.abs();
            }
        }
        let tol = |scale: f64| 2.0 * n as f64 * f64::EPSILON * scale;

        assert!(
            (par_loss - seq_loss).abs() <= tol(abs_loss),
            "n = {n}: loss {par_loss} in parallel, {seq_loss} in sequence"
        );
        let (par, seq) = (entries(&par_grad), entries(&seq_grad));
        assert_eq!(par.len(), seq.len());
        for (i, ((p, s), a)) in par.iter().zip(&seq).zip(&abs_grad).enumerate() {
            assert!(
                (p - s).abs() <= tol(*a),
                "n = {n}, entry {i}: {p} in parallel, {s} in sequence (tolerance {})",
                tol(*a)
            );
        }
        assert!(
            seq.iter().any(|g| *g != 0.0),
            "n = {n}: a gradient to compare"
        );
        // The constant fields are copies, not sums of the chunks'.
        assert_eq!((par_grad.inputs, par_grad.hidden), (inputs, hidden));
    }
}

#[test]
fn each_chunk_gives_the_same_bits_on_any_worker() {
    const CHUNK: usize = 50;
    let (inputs, hidden) = (4, 6);
    let m = model(inputs, hidden);
    let (xs, ys) = data(1003, inputs);

    // On this thread, chunk by chunk; and the loss's loop does record on
    // this thread's value stacks (the tanh of each hidden unit).
    stack::reset_stats();
    let here: Vec<(f64, Mlp)> = xs
        .chunks(CHUNK * inputs)
        .zip(ys.chunks(CHUNK))
        .map(|(x, y)| batch_loss_grad(&m, x, y))
        .collect();
    assert!(
        stack::stats().pushes >= ys.len() as u64,
        "the loop records: {:?}",
        stack::stats()
    );

    // The same chunks on rayon's workers, many times over, all at once.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .unwrap();
    for _ in 0..5 {
        let there: Vec<(f64, Mlp)> = pool.install(|| {
            xs.par_chunks(CHUNK * inputs)
                .zip(ys.par_chunks(CHUNK))
                .map(|(x, y)| batch_loss_grad(&m, x, y))
                .collect()
        });
        assert_eq!(there.len(), here.len());
        for (k, ((lt, gt), (lh, gh))) in there.iter().zip(&here).enumerate() {
            assert_eq!(lt.to_bits(), lh.to_bits(), "chunk {k}: loss");
            let bits = |m: &Mlp| entries(m).iter().map(|e| e.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(gt), bits(gh), "chunk {k}: gradient");
        }
    }
}

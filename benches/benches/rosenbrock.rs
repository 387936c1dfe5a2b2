//! Rosenbrock, Σ 100(x[i+1] − x[i]²)² + (1 − x[i])², the benchmark every
//! AD library shows first: the generated gradient against the function,
//! the best hand-written gradient (each entry gathered from its
//! neighbours, a loop LLVM vectorises), and echidna's reverse modes (its
//! Adept-style tape, `echidna::grad`; its bytecode tape, recorded at each
//! call and recorded once outside the timing). Every gradient is checked
//! against the hand-written one (to 1e-12 relative) before it is timed.
//! `cargo bench -p autodiff-benches --bench rosenbrock`.

use std::hint::black_box;

mod common;

use autodiff::grad;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

#[grad]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}

/// The gradient by hand: entry i gathers the term of i (as the left end)
/// and of i − 1 (as the right end), so no entry is written twice and the
/// loop vectorises.
fn rosenbrock_hand(x: &[f64]) -> (f64, Vec<f64>) {
    let n = x.len();
    let mut g = vec![0.0; n];
    let mut f = 0.0;
    for i in 0..n - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        f += 100.0 * a * a + b * b;
    }
    g[0] = -400.0 * x[0] * (x[1] - x[0] * x[0]) - 2.0 * (1.0 - x[0]);
    for (i, w) in x.windows(3).enumerate() {
        let (l, m, r) = (w[0], w[1], w[2]);
        g[i + 1] = 200.0 * (m - l * l) - 400.0 * m * (r - m * m) - 2.0 * (1.0 - m);
    }
    g[n - 1] = 200.0 * (x[n - 1] - x[n - 2] * x[n - 2]);
    (f, g)
}

fn rosenbrock_echidna<T: echidna::Scalar<Float = f64>>(x: &[T]) -> T {
    let mut s = T::from_f(0.0);
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = T::from_f(1.0) - x[i];
        s = s + T::from_f(100.0) * a * a + b * b;
    }
    s
}

fn gradients(c: &mut Criterion) {
    let mut g = c.benchmark_group("rosenbrock");
    for n in [100usize, 1_000, 10_000] {
        let x: Vec<f64> = (0..n).map(|i| 0.5 + (i as f64 * 0.37).sin()).collect();
        let (f, want) = rosenbrock_hand(&x);
        let (v, got) = rosenbrock_grad(&x);
        common::assert_close("generated", &[v], &[f], 1e-12);
        common::assert_close("generated", &got, &want, 1e-12);
        common::assert_close(
            "echidna tape",
            &echidna::grad(rosenbrock_echidna, &x),
            &want,
            1e-12,
        );
        let (mut tape, _) = echidna::record(rosenbrock_echidna, &x);
        common::assert_close("echidna bytecode", &tape.gradient(&x), &want, 1e-12);

        g.bench_with_input(BenchmarkId::new("function", n), &x, |b, x| {
            b.iter(|| rosenbrock(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("generated", n), &x, |b, x| {
            b.iter(|| rosenbrock_grad(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("hand-written", n), &x, |b, x| {
            b.iter(|| rosenbrock_hand(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("echidna tape (grad)", n), &x, |b, x| {
            b.iter(|| echidna::grad(rosenbrock_echidna, black_box(x)))
        });
        g.bench_with_input(
            BenchmarkId::new("echidna bytecode, recorded each call", n),
            &x,
            |b, x| {
                b.iter(|| {
                    let (mut tape, _) = echidna::record(rosenbrock_echidna, black_box(x));
                    tape.gradient(x)
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new("echidna bytecode, recorded once", n),
            &x,
            |b, x| b.iter(|| tape.gradient(black_box(x))),
        );
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = gradients
}
criterion_main!(benches);

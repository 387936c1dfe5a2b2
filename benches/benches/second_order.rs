//! Second derivatives of Rosenbrock (Σ 100(x[i+1] − x[i]²)² + (1 −
//! x[i])²): the generated `_hvp` and `_hessian` (`#[grad(hessian)]`, the
//! gradient run at dual numbers) against the hand-written closed forms,
//! num-dual's second-order dual numbers (`Dual2SVec64<N>`, the Hessian in
//! one forward pass whose every operation carries an N × N block, at its
//! fastest with the size fixed at compile time) and echidna's bytecode
//! tape (`echidna::hessian`: record, then one forward-over-reverse sweep
//! per column; `hessian_vec::<4>`: four columns a sweep; and the Hessian
//! of a tape recorded once, outside the timing, as a user who evaluates
//! one function at many points does). Each result is checked against the
//! hand-written one before it is timed.
//! `cargo bench -p autodiff-benches --bench second_order`.

use std::hint::black_box;

mod common;

use autodiff::{grad, Float};
use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion};
use nalgebra::SVector;
use num_dual::{hessian, Dual2SVec64, DualNum};

#[grad(hessian)]
fn rosenbrock<T: Float>(x: &[T]) -> T {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}

/// ADBench's GMM objective (`benches/gmm.rs`), generic over its float
/// type as `#[grad(hessian)]` asks: the data and the prior's settings stay
/// `f64`, converted where they meet the parameters.
#[grad(hessian, wrt(alphas, means, icf))]
#[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
fn gmm_objective<T: Float>(
    d: usize,
    k: usize,
    alphas: &[T],
    means: &[T],
    icf: &[T],
    x: &[f64],
    gamma: f64,
    m: f64,
) -> T {
    let n = x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let constant = -(n as f64) * d as f64 * 0.5 * (2.0 * std::f64::consts::PI).ln();
    let mut qdiags = vec![T::zero(); d * k];
    let mut sum_qs = vec![T::zero(); k];
    for ik in 0..k {
        let mut s = T::zero();
        for id in 0..d {
            let q = icf[ik * icf_sz + id];
            s += q;
            qdiags[ik * d + id] = q.exp();
        }
        sum_qs[ik] = s;
    }
    let mut slse = T::zero();
    for ix in 0..n {
        let mut main_term = vec![T::zero(); k];
        for ik in 0..k {
            let mut xcentered = vec![T::zero(); d];
            let mut qxcentered = vec![T::zero(); d];
            for id in 0..d {
                xcentered[id] = T::from_f64(x[ix * d + id]) - means[ik * d + id];
                qxcentered[id] = qdiags[ik * d + id] * xcentered[id];
            }
            let mut l = ik * icf_sz + d;
            for i in 0..d {
                for j in i + 1..d {
                    qxcentered[j] += icf[l] * xcentered[i];
                    l += 1;
                }
            }
            let mut sqnorm = T::zero();
            for id in 0..d {
                sqnorm += qxcentered[id] * qxcentered[id];
            }
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm;
        }
        let mut mx = main_term[0];
        for ik in 1..k {
            mx = mx.max(main_term[ik]);
        }
        let mut semx = T::zero();
        for ik in 0..k {
            semx += (main_term[ik] - mx).exp();
        }
        slse += semx.ln() + mx;
    }
    let lse_alphas = autodiff::logsumexp(alphas);
    let err = T::from_f64(constant) + slse - T::from_f64(n as f64) * lse_alphas;
    let mut prior = T::zero();
    for ik in 0..k {
        let mut frobenius = T::zero();
        for id in 0..d {
            let q = qdiags[ik * d + id];
            frobenius += q * q;
        }
        for t in d..icf_sz {
            let v = icf[ik * icf_sz + t];
            frobenius += v * v;
        }
        prior += T::from_f64(0.5 * gamma * gamma) * frobenius - T::from_f64(m) * sum_qs[ik];
    }
    err + prior
}

/// The same sum for echidna's scalars.
fn rosenbrock_echidna<T: echidna::Scalar<Float = f64>>(x: &[T]) -> T {
    let mut s = T::from_f(0.0);
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = T::from_f(1.0) - x[i];
        s = s + T::from_f(100.0) * a * a + b * b;
    }
    s
}

/// The same sum for num-dual's numbers.
fn rosenbrock_num_dual<const N: usize>(x: &[Dual2SVec64<N>]) -> Dual2SVec64<N> {
    let mut s = Dual2SVec64::<N>::from(0.0);
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = -x[i] + 1.0;
        s += a.powi(2) * 100.0 + b.powi(2);
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

fn flat(h: &[Vec<f64>]) -> Vec<f64> {
    h.iter().flatten().copied().collect()
}

fn point(n: usize) -> (Vec<f64>, Vec<f64>) {
    let x = (0..n).map(|i| 0.5 + (i as f64 * 0.37).sin()).collect();
    let v = (0..n).map(|i| (i as f64 * 0.11).cos()).collect();
    (x, v)
}

/// num-dual's Hessian at a size fixed at compile time, as a dense matrix.
fn hessian_num_dual<const N: usize>(x: &SVector<f64, N>) -> Vec<Vec<f64>> {
    let (_, _, h) = hessian(
        |y: SVector<Dual2SVec64<N>, N>| rosenbrock_num_dual(y.as_slice()),
        x,
    );
    (0..N)
        .map(|i| (0..N).map(|j| h[(i, j)]).collect())
        .collect()
}

/// The full Hessian, each method, at n = N.
fn hessians<const N: usize>(g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let (x, _) = point(N);
    let want = flat(&hessian_hand(&x));
    let xs = SVector::<f64, N>::from_column_slice(&x);
    let (_, _, h) = rosenbrock_hessian(&x);
    common::assert_close("generated _hessian", &flat(&h), &want, 1e-12);
    common::assert_close(
        "num-dual hessian",
        &flat(&hessian_num_dual(&xs)),
        &want,
        1e-12,
    );
    let (_, _, h) = echidna::hessian(rosenbrock_echidna, &x);
    common::assert_close("echidna hessian", &flat(&h), &want, 1e-12);
    let (_, _, h) = echidna::hessian_vec::<f64, 4>(rosenbrock_echidna, &x);
    common::assert_close("echidna hessian_vec", &flat(&h), &want, 1e-12);
    let (tape, _) = echidna::record(rosenbrock_echidna, &x);
    common::assert_close(
        "echidna tape.hessian",
        &flat(&tape.hessian(&x).2),
        &want,
        1e-12,
    );

    g.bench_with_input(
        BenchmarkId::new("Hessian generated (_hessian)", N),
        &x,
        |b, x| b.iter(|| rosenbrock_hessian(black_box(x))),
    );
    g.bench_with_input(BenchmarkId::new("Hessian hand-written", N), &x, |b, x| {
        b.iter(|| hessian_hand(black_box(x)))
    });
    g.bench_with_input(BenchmarkId::new("Hessian num-dual", N), &xs, |b, x| {
        b.iter(|| hessian_num_dual(black_box(x)))
    });
    g.bench_with_input(BenchmarkId::new("Hessian echidna", N), &x, |b, x| {
        b.iter(|| echidna::hessian(rosenbrock_echidna, black_box(x)))
    });
    g.bench_with_input(
        BenchmarkId::new("Hessian echidna hessian_vec::<4>", N),
        &x,
        |b, x| b.iter(|| echidna::hessian_vec::<f64, 4>(rosenbrock_echidna, black_box(x))),
    );
    g.bench_with_input(
        BenchmarkId::new("Hessian echidna, tape recorded once", N),
        &x,
        |b, x| b.iter(|| tape.hessian(black_box(x))),
    );
}

fn second_order(c: &mut Criterion) {
    let mut g = c.benchmark_group("rosenbrock_hessian");
    hessians::<10>(&mut g);
    hessians::<20>(&mut g);
    hessians::<50>(&mut g);
    g.finish();

    let mut g = c.benchmark_group("rosenbrock_hvp");
    for n in [100usize, 1_000, 10_000] {
        let (x, v) = point(n);
        let (_, _, hv) = rosenbrock_hvp(&x, &v);
        common::assert_close("generated _hvp", &hv, &hvp_hand(&x, &v), 1e-12);
        let (_, hv) = echidna::hvp(rosenbrock_echidna, &x, &v);
        common::assert_close("echidna hvp", &hv, &hvp_hand(&x, &v), 1e-12);
        g.bench_with_input(BenchmarkId::new("gradient (_grad)", n), &x, |b, x| {
            b.iter(|| rosenbrock_grad(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("H·v generated (_hvp)", n), &x, |b, x| {
            b.iter(|| rosenbrock_hvp(black_box(x), black_box(&v)))
        });
        g.bench_with_input(BenchmarkId::new("H·v hand-written", n), &x, |b, x| {
            b.iter(|| hvp_hand(black_box(x), black_box(&v)))
        });
        g.bench_with_input(BenchmarkId::new("H·v echidna", n), &x, |b, x| {
            b.iter(|| echidna::hvp(rosenbrock_echidna, black_box(x), black_box(&v)))
        });
    }
    g.finish();
}

/// `_hvp` against `_grad` on GMM (d = 10, K = 5, 1,000 points, the
/// parameters ADBench draws), `H·v` checked first against central
/// differences of `_grad` along `v`.
fn gmm_hvp(c: &mut Criterion) {
    let (d, k, n) = (10usize, 5usize, 1_000usize);
    let mut rng = common::Rng::new(0x5eed_0000 + (d * 100 + k) as u64);
    let icf_sz = d * (d + 1) / 2;
    let alphas = rng.normal_vec(k);
    let means = rng.uniform_vec(k * d, 0.0, 1.0);
    let icf: Vec<f64> = (0..k * icf_sz).map(|_| 0.1 * rng.normal()).collect();
    let x = rng.uniform_vec(n * d, 0.0, 1.0);
    let va = rng.normal_vec(k);
    let vm = rng.normal_vec(k * d);
    let vi = rng.normal_vec(k * icf_sz);
    let (gamma, m) = (1.0, 0.0);
    let grad = |t: f64| {
        let at = |p: &[f64], v: &[f64]| -> Vec<f64> {
            p.iter().zip(v).map(|(p, v)| p + t * v).collect()
        };
        let (_, ga, gm, gi) = gmm_objective_grad(
            d,
            k,
            &at(&alphas, &va),
            &at(&means, &vm),
            &at(&icf, &vi),
            &x,
            gamma,
            m,
        );
        [ga, gm, gi].concat()
    };
    let h = 1e-5;
    let fd: Vec<f64> = grad(h)
        .iter()
        .zip(grad(-h))
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect();
    let (_, _, _, _, ha, hm, hi) =
        gmm_objective_hvp(d, k, &alphas, &means, &icf, &x, gamma, m, &va, &vm, &vi);
    common::assert_close("generated GMM _hvp", &[ha, hm, hi].concat(), &fd, 1e-5);

    let mut g = c.benchmark_group("gmm_hvp");
    g.bench_function("gradient (_grad), d = 10, K = 5, 1,000 points", |b| {
        b.iter(|| gmm_objective_grad(d, k, black_box(&alphas), &means, &icf, &x, gamma, m))
    });
    g.bench_function("H·v generated (_hvp), d = 10, K = 5, 1,000 points", |b| {
        b.iter(|| {
            gmm_objective_hvp(
                d,
                k,
                black_box(&alphas),
                &means,
                &icf,
                &x,
                gamma,
                m,
                &va,
                &vm,
                &vi,
            )
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = second_order, gmm_hvp
}
criterion_main!(benches);

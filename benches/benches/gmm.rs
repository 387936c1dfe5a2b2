//! ADBench's GMM objective: the negative log-likelihood of a Gaussian
//! mixture with a Wishart prior on the inverse covariances, ported from
//! the reference definition in microsoft/ADBench, `src/cpp/shared/gmm.h`
//! (`gmm_objective`, `preprocess_qs`, `Qtimesx`, `logsumexp`,
//! `log_wishart_prior`).
//!
//! Parameters: `alphas` (K log mixture weights, unnormalised), `means`
//! (K·d) and `icf` (K · d(d+1)/2: per component, the logs of the diagonal
//! of the inverse-covariance factor Q, then its strictly lower part
//! column by column). Data: n = 1000 points of dimension d, drawn with a
//! fixed seed. One criterion group per (d, K). Peers: the `reverse`
//! crate's tape and echidna's (`echidna::grad`) where the tape stays
//! under 5 million nodes, num-dual and central differences at the
//! smallest sizes.

// The port keeps the reference's index loops.
#![allow(clippy::needless_range_loop)]

mod common;

use std::hint::black_box;

use autodiff::grad;
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::DVector;
use num_dual::{gradient, DualDVec64, DualNum, DualStruct};
use reverse::Gradient;

/// n points; ADBench's GMM sizes run d from 2 to 64 and K from 5 to 50.
const N: usize = 1000;
const SIZES: [(usize, usize); 5] = [(2, 5), (10, 5), (10, 25), (20, 50), (64, 5)];

/// The objective as a user writes it: index loops and scratch vectors,
/// following `gmm_objective` line by line. `gamma` and `m` are the
/// Wishart parameters; `prior_constant` is the prior's constant term
/// (`k · C` in `log_wishart_prior`), which needs the log-gamma function
/// and is computed once by [`prior_constant`].
#[grad(wrt(alphas, means, icf))]
#[allow(clippy::too_many_arguments)]
fn gmm_objective(
    d: usize,
    k: usize,
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    gamma: f64,
    m: f64,
    prior_constant: f64,
) -> f64 {
    let n = x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let constant = -(n as f64) * d as f64 * 0.5 * (2.0 * std::f64::consts::PI).ln();
    // preprocess_qs: Q's diagonal, and the sum of its logs, per component.
    let mut qdiags = vec![0.0; d * k];
    let mut sum_qs = vec![0.0; k];
    for ik in 0..k {
        let mut s = 0.0;
        for id in 0..d {
            let q = icf[ik * icf_sz + id];
            s += q;
            qdiags[ik * d + id] = q.exp();
        }
        sum_qs[ik] = s;
    }
    let mut slse = 0.0;
    for ix in 0..n {
        let mut main_term = vec![0.0; k];
        for ik in 0..k {
            // subtract, then Qtimesx.
            let mut xcentered = vec![0.0; d];
            let mut qxcentered = vec![0.0; d];
            for id in 0..d {
                xcentered[id] = x[ix * d + id] - means[ik * d + id];
                qxcentered[id] = qdiags[ik * d + id] * xcentered[id];
            }
            let mut l = ik * icf_sz + d;
            for i in 0..d {
                for j in i + 1..d {
                    qxcentered[j] += icf[l] * xcentered[i];
                    l += 1;
                }
            }
            let mut sqnorm = 0.0;
            for id in 0..d {
                sqnorm += qxcentered[id] * qxcentered[id];
            }
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm;
        }
        // logsumexp(main_term), as the reference writes it.
        let mut mx = main_term[0];
        for ik in 1..k {
            mx = mx.max(main_term[ik]);
        }
        let mut semx = 0.0;
        for ik in 0..k {
            semx += (main_term[ik] - mx).exp();
        }
        slse += semx.ln() + mx;
    }
    let lse_alphas = autodiff::logsumexp(alphas);
    let err = constant + slse - n as f64 * lse_alphas;
    // log_wishart_prior.
    let mut prior = 0.0;
    for ik in 0..k {
        let mut frobenius = 0.0;
        for id in 0..d {
            let q = qdiags[ik * d + id];
            frobenius += q * q;
        }
        for t in d..icf_sz {
            let v = icf[ik * icf_sz + t];
            frobenius += v * v;
        }
        prior += 0.5 * gamma * gamma * frobenius - m * sum_qs[ik];
    }
    err + prior - prior_constant
}

/// `gmm_objective` as a careful Rust programmer writes it: the scratch
/// vectors allocated once, before the point loop, and overwritten in each
/// iteration (issue 28's hoisted-buffer spelling). The value is the same
/// bit for bit.
#[grad(wrt(alphas, means, icf))]
#[allow(clippy::too_many_arguments)]
fn gmm_objective_hoisted(
    d: usize,
    k: usize,
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    gamma: f64,
    m: f64,
    prior_constant: f64,
) -> f64 {
    let n = x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let constant = -(n as f64) * d as f64 * 0.5 * (2.0 * std::f64::consts::PI).ln();
    let mut qdiags = vec![0.0; d * k];
    let mut sum_qs = vec![0.0; k];
    for ik in 0..k {
        let mut s = 0.0;
        for id in 0..d {
            let q = icf[ik * icf_sz + id];
            s += q;
            qdiags[ik * d + id] = q.exp();
        }
        sum_qs[ik] = s;
    }
    let mut main_term = vec![0.0; k];
    let mut xcentered = vec![0.0; d];
    let mut qxcentered = vec![0.0; d];
    let mut slse = 0.0;
    for ix in 0..n {
        for ik in 0..k {
            for id in 0..d {
                xcentered[id] = x[ix * d + id] - means[ik * d + id];
                qxcentered[id] = qdiags[ik * d + id] * xcentered[id];
            }
            let mut l = ik * icf_sz + d;
            for i in 0..d {
                for j in i + 1..d {
                    qxcentered[j] += icf[l] * xcentered[i];
                    l += 1;
                }
            }
            let mut sqnorm = 0.0;
            for id in 0..d {
                sqnorm += qxcentered[id] * qxcentered[id];
            }
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm;
        }
        let mut mx = main_term[0];
        for ik in 1..k {
            mx = mx.max(main_term[ik]);
        }
        let mut semx = 0.0;
        for ik in 0..k {
            semx += (main_term[ik] - mx).exp();
        }
        slse += semx.ln() + mx;
    }
    let lse_alphas = autodiff::logsumexp(alphas);
    let err = constant + slse - n as f64 * lse_alphas;
    let mut prior = 0.0;
    for ik in 0..k {
        let mut frobenius = 0.0;
        for id in 0..d {
            let q = qdiags[ik * d + id];
            frobenius += q * q;
        }
        for t in d..icf_sz {
            let v = icf[ik * icf_sz + t];
            frobenius += v * v;
        }
        prior += 0.5 * gamma * gamma * frobenius - m * sum_qs[ik];
    }
    err + prior - prior_constant
}

/// `k · C` of `log_wishart_prior`: C = n·p·(ln γ − ½ ln 2) − ln Γ_p(n/2),
/// n = p + m + 1.
fn prior_constant(p: usize, k: usize, gamma: f64, m: f64) -> f64 {
    let n = p as f64 + m + 1.0;
    let c = n * p as f64 * (gamma.ln() - 0.5 * 2f64.ln()) - log_gamma_distrib(0.5 * n, p);
    k as f64 * c
}

/// ln Γ_p(a), the multivariate log-gamma function (ADBench's
/// `log_gamma_distrib`).
fn log_gamma_distrib(a: f64, p: usize) -> f64 {
    let mut out = 0.25 * (p * (p - 1)) as f64 * std::f64::consts::PI.ln();
    for j in 1..=p {
        out += ln_gamma(a + 0.5 * (1.0 - j as f64));
    }
    out
}

/// ln Γ(x) for x > 0, Lanczos (g = 7, 9 terms): 15 digits.
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// One problem: parameters, data and Wishart parameters.
struct Gmm {
    d: usize,
    k: usize,
    alphas: Vec<f64>,
    means: Vec<f64>,
    icf: Vec<f64>,
    x: Vec<f64>,
    gamma: f64,
    m: f64,
    constant: f64,
}

impl Gmm {
    /// Random parameters and points with a fixed seed, in the ranges of
    /// ADBench's generated inputs (means and points in [0, 1), log-weights
    /// and factors of order 1).
    fn new(d: usize, k: usize, n: usize) -> Gmm {
        let mut rng = common::Rng::new(0x5eed_0000 + (d * 100 + k) as u64);
        let icf_sz = d * (d + 1) / 2;
        let alphas = rng.normal_vec(k);
        let means = rng.uniform_vec(k * d, 0.0, 1.0);
        let icf: Vec<f64> = (0..k * icf_sz).map(|_| 0.1 * rng.normal()).collect();
        let x = rng.uniform_vec(n * d, 0.0, 1.0);
        let (gamma, m) = (1.0, 0.0);
        Gmm {
            d,
            k,
            alphas,
            means,
            icf,
            x,
            gamma,
            m,
            constant: prior_constant(d, k, gamma, m),
        }
    }

    fn objective(&self, alphas: &[f64], means: &[f64], icf: &[f64]) -> f64 {
        gmm_objective(
            self.d,
            self.k,
            alphas,
            means,
            icf,
            &self.x,
            self.gamma,
            self.m,
            self.constant,
        )
    }

    /// The parameters as one vector: alphas, means, icf.
    fn params(&self) -> Vec<f64> {
        [&self.alphas[..], &self.means, &self.icf].concat()
    }

    fn split<'a>(&self, p: &'a [f64]) -> (&'a [f64], &'a [f64], &'a [f64]) {
        let (a, rest) = p.split_at(self.k);
        let (mu, icf) = rest.split_at(self.k * self.d);
        (a, mu, icf)
    }

    fn generated(&self) -> (f64, Vec<f64>) {
        let (v, da, dm, di) = gmm_objective_grad(
            self.d,
            self.k,
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            self.gamma,
            self.m,
            self.constant,
        );
        (v, [da, dm, di].concat())
    }

    fn objective_hoisted(&self, alphas: &[f64], means: &[f64], icf: &[f64]) -> f64 {
        gmm_objective_hoisted(
            self.d,
            self.k,
            alphas,
            means,
            icf,
            &self.x,
            self.gamma,
            self.m,
            self.constant,
        )
    }

    fn generated_hoisted(&self) -> (f64, Vec<f64>) {
        let (v, da, dm, di) = gmm_objective_hoisted_grad(
            self.d,
            self.k,
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            self.gamma,
            self.m,
            self.constant,
        );
        (v, [da, dm, di].concat())
    }
}

/// The gradient by hand, as one writes it for speed. Every scratch buffer
/// (x − μ and Q·(x − μ) for all K components, the K main terms, and one
/// d-long buffer of adjoints) is allocated once, before the loop over
/// points, and reused: nothing is allocated per point or per component.
/// Inner loops run over sub-slices zipped together, so they carry no
/// bounds checks. Per point and component, the forward part writes x − μ
/// and diag(Q)·(x − μ) in one loop, adds each column of Q's strictly lower
/// part into the coordinates below it, and forms the main term, keeping
/// Q·(x − μ) for the reverse part. After the log-sum-exp, per component
/// with softmax weight w: the adjoints dq = −w·Q(x − μ) go into the reused
/// buffer once (with the diagonal's gradient in the same loop); then, per
/// coordinate i, one loop over column i of the lower part adds dq_j·(x − μ)_i
/// to the factor's gradient and sums the adjoint of (x − μ)_i in a local
/// variable, subtracted from the mean's gradient once. The prior and the
/// alphas' log-sum-exp are differentiated analytically.
fn gmm_hand(g: &Gmm) -> (f64, Vec<f64>) {
    let (d, k) = (g.d, g.k);
    let n = g.x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let mut d_alphas = vec![0.0; k];
    let mut d_means = vec![0.0; k * d];
    let mut d_icf = vec![0.0; k * icf_sz];
    let qdiags: Vec<f64> = (0..k * d)
        .map(|i| g.icf[(i / d) * icf_sz + i % d].exp())
        .collect();
    let sum_qs: Vec<f64> = (0..k)
        .map(|ik| g.icf[ik * icf_sz..ik * icf_sz + d].iter().sum())
        .collect();
    // Scratch, reused for every point: x − μ and Q·(x − μ) per component,
    // the main terms, and the adjoints of one component's Q·(x − μ).
    let mut xc = vec![0.0; k * d];
    let mut qxc = vec![0.0; k * d];
    let mut main = vec![0.0; k];
    let mut dq = vec![0.0; d];
    let mut slse = 0.0;
    for point in g.x.chunks_exact(d) {
        for (ik, main_k) in main.iter_mut().enumerate() {
            let xc = &mut xc[ik * d..(ik + 1) * d];
            let qxc = &mut qxc[ik * d..(ik + 1) * d];
            let mean = &g.means[ik * d..(ik + 1) * d];
            let qd = &qdiags[ik * d..(ik + 1) * d];
            let ltri = &g.icf[ik * icf_sz + d..(ik + 1) * icf_sz];
            for (((xc, qxc), (&p, &mu)), &q) in xc
                .iter_mut()
                .zip(qxc.iter_mut())
                .zip(point.iter().zip(mean))
                .zip(qd)
            {
                *xc = p - mu;
                *qxc = q * *xc;
            }
            // Column i of the strictly lower part: Q[j][i] for j > i.
            let mut l = 0;
            for (i, &xi) in xc.iter().enumerate() {
                let len = d - i - 1;
                let col = &ltri[l..l + len];
                l += len;
                for (qj, &lji) in qxc[i + 1..].iter_mut().zip(col) {
                    *qj += lji * xi;
                }
            }
            let sq: f64 = qxc.iter().map(|v| v * v).sum();
            *main_k = g.alphas[ik] + sum_qs[ik] - 0.5 * sq;
        }
        let mx = main.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let semx: f64 = main.iter().map(|v| (v - mx).exp()).sum();
        slse += semx.ln() + mx;
        for (ik, &main_k) in main.iter().enumerate() {
            // ∂ lse / ∂ main_k: the component's posterior weight.
            let w = (main_k - mx).exp() / semx;
            d_alphas[ik] += w;
            let (d_qlog, d_ltri) = d_icf[ik * icf_sz..(ik + 1) * icf_sz].split_at_mut(d);
            let d_mean = &mut d_means[ik * d..(ik + 1) * d];
            let xc = &xc[ik * d..(ik + 1) * d];
            let qxc = &qxc[ik * d..(ik + 1) * d];
            let qd = &qdiags[ik * d..(ik + 1) * d];
            let ltri = &g.icf[ik * icf_sz + d..(ik + 1) * icf_sz];
            // main_k = α_k + Σ q − ½‖Q xc‖²: ∂/∂(Q xc) = −w · Q xc.
            for ((((dq, &qx), &x), &q), dl) in dq
                .iter_mut()
                .zip(qxc)
                .zip(xc)
                .zip(qd)
                .zip(d_qlog.iter_mut())
            {
                *dq = -w * qx;
                // Diagonal: Q_jj = exp(q_j), and q_j also enters Σ q.
                *dl += w + *dq * x * q;
            }
            // Column i of the lower part: the factor's adjoints
            // Q[j][i] += dq_j · xc_i, and the adjoint of xc_i summed in a
            // local variable.
            let mut l = 0;
            for (i, ((&xi, &qi), dm)) in xc.iter().zip(qd).zip(d_mean.iter_mut()).enumerate() {
                let len = d - i - 1;
                let col = &ltri[l..l + len];
                let d_col = &mut d_ltri[l..l + len];
                l += len;
                let mut acc = qi * dq[i];
                for ((dl, &lji), &dqj) in d_col.iter_mut().zip(col).zip(&dq[i + 1..]) {
                    *dl += dqj * xi;
                    acc += lji * dqj;
                }
                *dm -= acc;
            }
        }
    }
    // −n · logsumexp(alphas).
    let amx = g.alphas.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let ase: f64 = g.alphas.iter().map(|a| (a - amx).exp()).sum();
    let lse_alphas = ase.ln() + amx;
    for ik in 0..k {
        d_alphas[ik] -= n as f64 * (g.alphas[ik] - amx).exp() / ase;
    }
    // The prior: ½γ²(Σ Q_jj² + Σ L²) − m Σ q.
    let gg = g.gamma * g.gamma;
    let mut prior = 0.0;
    for ik in 0..k {
        let mut frobenius = 0.0;
        for id in 0..d {
            let q = qdiags[ik * d + id];
            frobenius += q * q;
            d_icf[ik * icf_sz + id] += gg * q * q - g.m;
        }
        for t in d..icf_sz {
            let v = g.icf[ik * icf_sz + t];
            frobenius += v * v;
            d_icf[ik * icf_sz + t] += gg * v;
        }
        prior += 0.5 * gg * frobenius - g.m * sum_qs[ik];
    }
    let constant = -(n as f64) * d as f64 * 0.5 * (2.0 * std::f64::consts::PI).ln();
    let value = constant + slse - n as f64 * lse_alphas + prior - g.constant;
    (value, [d_alphas, d_means, d_icf].concat())
}

/// The objective on the `reverse` crate's tape: the same operations, one
/// tape node each.
fn gmm_tape(g: &Gmm, p: &[f64]) -> (f64, Vec<f64>) {
    let (d, k) = (g.d, g.k);
    let n = g.x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let tape = reverse::Tape::new();
    let v = tape.add_vars(p);
    let (alphas, rest) = v.split_at(k);
    let (means, icf) = rest.split_at(k * d);
    let zero = v[0] * 0.0;
    let qdiags: Vec<reverse::Var> = (0..k * d)
        .map(|i| icf[(i / d) * icf_sz + i % d].exp())
        .collect();
    let sum_qs: Vec<reverse::Var> = (0..k)
        .map(|ik| (0..d).fold(zero, |s, id| s + icf[ik * icf_sz + id]))
        .collect();
    let mut slse = zero;
    let mut main = vec![zero; k];
    for ix in 0..n {
        for ik in 0..k {
            let xc: Vec<reverse::Var> = (0..d)
                .map(|id| (means[ik * d + id] - g.x[ix * d + id]) * -1.0)
                .collect();
            let mut qxc: Vec<reverse::Var> =
                (0..d).map(|id| qdiags[ik * d + id] * xc[id]).collect();
            let mut l = ik * icf_sz + d;
            for i in 0..d {
                for j in i + 1..d {
                    qxc[j] = qxc[j] + icf[l] * xc[i];
                    l += 1;
                }
            }
            let sq = qxc.iter().fold(zero, |s, q| s + *q * *q);
            main[ik] = alphas[ik] + sum_qs[ik] - sq * 0.5;
        }
        let mx = main
            .iter()
            .map(|m| m.val())
            .fold(f64::NEG_INFINITY, f64::max);
        let semx = main.iter().fold(zero, |s, m| s + (*m - mx).exp());
        slse = slse + semx.ln() + mx;
    }
    let amx = alphas
        .iter()
        .map(|a| a.val())
        .fold(f64::NEG_INFINITY, f64::max);
    let lse_alphas = alphas.iter().fold(zero, |s, a| s + (*a - amx).exp()).ln() + amx;
    let constant = -(n as f64) * d as f64 * 0.5 * (2.0 * std::f64::consts::PI).ln();
    let mut err = slse + constant - lse_alphas * n as f64;
    for ik in 0..k {
        let mut frobenius = zero;
        for id in 0..d {
            frobenius = frobenius + qdiags[ik * d + id] * qdiags[ik * d + id];
        }
        for t in d..icf_sz {
            frobenius = frobenius + icf[ik * icf_sz + t] * icf[ik * icf_sz + t];
        }
        err = err + frobenius * (0.5 * g.gamma * g.gamma) - sum_qs[ik] * g.m;
    }
    let err = err - g.constant;
    (err.val(), err.grad().wrt(&v))
}

/// The objective for echidna's scalars (its Adept-style tape through
/// `echidna::grad`), as `gmm_tape` writes it for `reverse`.
fn gmm_echidna<T: echidna::Scalar<Float = f64>>(g: &Gmm, p: &[T]) -> T {
    let (d, k) = (g.d, g.k);
    let n = g.x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let c = T::from_f;
    let (alphas, rest) = p.split_at(k);
    let (means, icf) = rest.split_at(k * d);
    let qdiags: Vec<T> = (0..k * d)
        .map(|i| icf[(i / d) * icf_sz + i % d].exp())
        .collect();
    let sum_qs: Vec<T> = (0..k)
        .map(|ik| (0..d).fold(c(0.0), |s, id| s + icf[ik * icf_sz + id]))
        .collect();
    let mut slse = c(0.0);
    let mut main = vec![c(0.0); k];
    let mut xc = vec![c(0.0); d];
    let mut qxc = vec![c(0.0); d];
    for ix in 0..n {
        for ik in 0..k {
            for id in 0..d {
                xc[id] = c(g.x[ix * d + id]) - means[ik * d + id];
                qxc[id] = qdiags[ik * d + id] * xc[id];
            }
            let mut l = ik * icf_sz + d;
            for i in 0..d {
                for j in i + 1..d {
                    qxc[j] = qxc[j] + icf[l] * xc[i];
                    l += 1;
                }
            }
            let sq = qxc.iter().fold(c(0.0), |s, q| s + *q * *q);
            main[ik] = alphas[ik] + sum_qs[ik] - sq * c(0.5);
        }
        let mx = main
            .iter()
            .map(|m| m.value())
            .fold(f64::NEG_INFINITY, f64::max);
        let semx = main.iter().fold(c(0.0), |s, m| s + (*m - c(mx)).exp());
        slse = slse + semx.ln() + c(mx);
    }
    let amx = alphas
        .iter()
        .map(|a| a.value())
        .fold(f64::NEG_INFINITY, f64::max);
    let lse_alphas = alphas
        .iter()
        .fold(c(0.0), |s, a| s + (*a - c(amx)).exp())
        .ln()
        + c(amx);
    let constant = -(n as f64) * d as f64 * 0.5 * (2.0 * std::f64::consts::PI).ln();
    let mut err = slse + c(constant) - lse_alphas * c(n as f64);
    for ik in 0..k {
        let mut frobenius = c(0.0);
        for id in 0..d {
            frobenius = frobenius + qdiags[ik * d + id] * qdiags[ik * d + id];
        }
        for t in d..icf_sz {
            frobenius = frobenius + icf[ik * icf_sz + t] * icf[ik * icf_sz + t];
        }
        err = err + frobenius * c(0.5 * g.gamma * g.gamma) - sum_qs[ik] * c(g.m);
    }
    err - c(g.constant)
}

/// The objective over dual numbers, for `num_dual::gradient`.
fn gmm_dual(g: &Gmm, p: &DVector<DualDVec64>) -> DualDVec64 {
    let (d, k) = (g.d, g.k);
    let n = g.x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let at = |i: usize| p[i].clone();
    let (a0, m0, i0) = (0, k, k + k * d);
    let qdiags: Vec<DualDVec64> = (0..k * d)
        .map(|i| at(i0 + (i / d) * icf_sz + i % d).exp())
        .collect();
    let sum_qs: Vec<DualDVec64> = (0..k)
        .map(|ik| (0..d).fold(DualDVec64::from(0.0), |s, id| s + at(i0 + ik * icf_sz + id)))
        .collect();
    let mut slse = DualDVec64::from(0.0);
    for ix in 0..n {
        let mut main = Vec::with_capacity(k);
        for ik in 0..k {
            let xc: Vec<DualDVec64> = (0..d)
                .map(|id| -(at(m0 + ik * d + id) - g.x[ix * d + id]))
                .collect();
            let mut qxc: Vec<DualDVec64> = (0..d)
                .map(|id| qdiags[ik * d + id].clone() * xc[id].clone())
                .collect();
            let mut l = i0 + ik * icf_sz + d;
            for i in 0..d {
                for j in i + 1..d {
                    qxc[j] = qxc[j].clone() + at(l) * xc[i].clone();
                    l += 1;
                }
            }
            let sq = qxc
                .iter()
                .fold(DualDVec64::from(0.0), |s, q| s + q.clone() * q.clone());
            main.push(at(a0 + ik) + sum_qs[ik].clone() - sq * 0.5);
        }
        let mx = main
            .iter()
            .map(|m| m.re())
            .fold(f64::NEG_INFINITY, f64::max);
        let semx = main
            .iter()
            .fold(DualDVec64::from(0.0), |s, m| s + (m.clone() - mx).exp());
        slse = slse + semx.ln() + mx;
    }
    let amx = (0..k).map(|i| p[i].re()).fold(f64::NEG_INFINITY, f64::max);
    let lse_alphas = (0..k)
        .fold(DualDVec64::from(0.0), |s, i| s + (at(i) - amx).exp())
        .ln()
        + amx;
    let constant = -(n as f64) * d as f64 * 0.5 * (2.0 * std::f64::consts::PI).ln();
    let mut err = slse + constant - lse_alphas * n as f64;
    for ik in 0..k {
        let mut frobenius = DualDVec64::from(0.0);
        for id in 0..d {
            frobenius += qdiags[ik * d + id].clone() * qdiags[ik * d + id].clone();
        }
        for t in d..icf_sz {
            frobenius += at(i0 + ik * icf_sz + t) * at(i0 + ik * icf_sz + t);
        }
        err = err + frobenius * (0.5 * g.gamma * g.gamma) - sum_qs[ik].clone() * g.m;
    }
    err - g.constant
}

fn gmm(c: &mut Criterion) {
    for (d, k) in SIZES {
        let g = Gmm::new(d, k, N);
        let p = g.params();
        let small = d * k <= 10;
        // Every method agrees with the generated gradient before it is timed.
        autodiff::runtime::stack::reset_stats();
        let (v, grad) = g.generated();
        let st = autodiff::runtime::stack::stats();
        // What the value stacks held at their peaks: the loops' entries,
        // and the slabs the scratch vectors (x − μ and Q·(x − μ), d values
        // each per point and component) are copied onto.
        eprintln!(
            "gmm d={d} K={k}: the value stacks held at most {:.1} MB ({} values pushed)",
            st.bytes as f64 / 1e6,
            st.pushes,
        );
        assert_eq!(v, g.objective(&g.alphas, &g.means, &g.icf));
        // The hoisted-buffer spelling: the same value and gradient bit for
        // bit, and the same recording (issue 28).
        autodiff::runtime::stack::reset_stats();
        assert_eq!(g.generated_hoisted(), (v, grad.clone()));
        let hoisted = autodiff::runtime::stack::stats();
        assert_eq!((hoisted.pushes, hoisted.bytes), (st.pushes, st.bytes));
        assert_eq!(v, g.objective_hoisted(&g.alphas, &g.means, &g.icf));
        let (hv, hg) = gmm_hand(&g);
        assert!((v - hv).abs() <= 1e-10 * v.abs());
        common::assert_close("hand-written", &hg, &grad, 1e-10);
        // The tape stores every operation: ~K·d²/2 nodes per point.
        let tape_nodes = N * k * d * (d + 3);
        if tape_nodes <= 5_000_000 {
            let (tv, tg) = gmm_tape(&g, &p);
            assert!((v - tv).abs() <= 1e-10 * v.abs());
            common::assert_close("reverse (tape)", &tg, &grad, 1e-10);
            let eg = echidna::grad(|q| gmm_echidna(&g, q), &p);
            common::assert_close("echidna (tape)", &eg, &grad, 1e-10);
        }
        let objective = |p: &[f64]| {
            let (a, mu, icf) = g.split(p);
            g.objective(a, mu, icf)
        };
        let pd = DVector::from_vec(p.clone());
        if small {
            let (dv, dg) = gradient(|v| gmm_dual(&g, &v), &pd);
            assert!((v - dv).abs() <= 1e-10 * v.abs());
            common::assert_close("num-dual", dg.as_slice(), &grad, 1e-10);
            let fd = common::central_differences(objective, &p);
            common::assert_close("central differences", &fd, &grad, 1e-5);
        }

        let mut group = c.benchmark_group(format!("gmm d={d} K={k}"));
        group.bench_function("function", |b| {
            b.iter(|| g.objective(black_box(&g.alphas), &g.means, &g.icf))
        });
        group.bench_function("generated", |b| b.iter(|| black_box(&g).generated()));
        group.bench_function("function, buffers hoisted", |b| {
            b.iter(|| g.objective_hoisted(black_box(&g.alphas), &g.means, &g.icf))
        });
        group.bench_function("generated, buffers hoisted", |b| {
            b.iter(|| black_box(&g).generated_hoisted())
        });
        group.bench_function("hand-written", |b| b.iter(|| gmm_hand(black_box(&g))));
        if tape_nodes <= 5_000_000 {
            group.bench_function("reverse (tape)", |b| b.iter(|| gmm_tape(&g, black_box(&p))));
            group.bench_function("echidna (tape)", |b| {
                b.iter(|| echidna::grad(|q| gmm_echidna(&g, q), black_box(&p)))
            });
        }
        if small {
            group.bench_function("num-dual", |b| {
                b.iter(|| gradient(|v| gmm_dual(&g, &v), black_box(&pd)))
            });
            group.bench_function("central differences", |b| {
                b.iter(|| common::central_differences(objective, black_box(&p)))
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = gmm
}
criterion_main!(benches);

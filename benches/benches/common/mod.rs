//! What every bench target shares: the criterion settings, central
//! differences and a seeded random number generator (so the workloads are
//! the same on every machine without a dependency on `rand`).

#![allow(dead_code)] // each bench target uses its own part of this module

use std::time::Duration;

use criterion::Criterion;

/// 10 samples of 2 s after 0.5 s of warm-up: enough for stable point
/// estimates, short enough that `cargo bench -p autodiff-benches` runs every
/// workload.
pub fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500))
}

/// Central differences of `f` at `x`: 2n evaluations.
pub fn central_differences(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let mut p = x.to_vec();
    (0..x.len())
        .map(|i| {
            let h = 1e-6 * x[i].abs().max(1.0);
            p[i] = x[i] + h;
            let hi = f(&p);
            p[i] = x[i] - h;
            let lo = f(&p);
            p[i] = x[i];
            (hi - lo) / (2.0 * h)
        })
        .collect()
}

/// xorshift64*: a fixed seed gives the same workload everywhere.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let r = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        (r >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal, by Box–Muller.
    pub fn normal(&mut self) -> f64 {
        let u = self.uniform().max(f64::MIN_POSITIVE);
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }

    pub fn uniform_vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| lo + (hi - lo) * self.uniform()).collect()
    }

    pub fn normal_vec(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.normal()).collect()
    }
}

/// Whether two gradients agree to a relative tolerance: every bench checks
/// its methods against each other before it times them.
pub fn assert_close(what: &str, a: &[f64], b: &[f64], rtol: f64) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    let scale = a.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= rtol * scale,
            "{what}: component {i} differs: {x} against {y}"
        );
    }
}

//! Central differences and the tolerance the time-loop tests hold
//! gradients to (h = 1e-6, relative 1e-6, absolute 1e-8 near zero).

use approx::assert_relative_eq;

/// Central differences of `f` at `x`.
pub fn central(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|i| {
            let mut p = x.to_vec();
            let mut m = x.to_vec();
            p[i] += h;
            m[i] -= h;
            (f(&p) - f(&m)) / (2.0 * h)
        })
        .collect()
}

/// `got` against `want`, entry by entry.
pub fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_relative_eq!(*g, *w, max_relative = 1e-6, epsilon = 1e-8);
    }
}

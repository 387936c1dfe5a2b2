//! Whole programs against an independent oracle (central differences
//! through `autodiff::check_gradient`): the two-layer network of the `mlp`
//! example, smaller.

#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

use autodiff::{check_gradient, grad};

const HIDDEN: usize = 3;

#[grad(wrt(w1, b1, w2, b2))]
fn mlp_loss(w1: &[f64], b1: &[f64], w2: &[f64], b2: &[f64], xs: &[f64], labels: &[usize]) -> f64 {
    let n = labels.len();
    let mut hidden = [0.0; HIDDEN];
    let mut total = 0.0;
    for p in 0..n {
        for j in 0..HIDDEN {
            let a = w1[j * 2] * xs[p * 2] + w1[j * 2 + 1] * xs[p * 2 + 1] + b1[j];
            hidden[j] = a.tanh();
        }
        let mut z0 = b2[0];
        let mut z1 = b2[1];
        for j in 0..HIDDEN {
            z0 += w2[j] * hidden[j];
            z1 += w2[HIDDEN + j] * hidden[j];
        }
        let m = z0.max(z1);
        let log_sum = m + ((z0 - m).exp() + (z1 - m).exp()).ln();
        let picked = if labels[p] == 0 { z0 } else { z1 };
        total += log_sum - picked;
    }
    total / n as f64
}

#[test]
fn mlp_gradient_against_central_differences() {
    let xs = [0.3, -0.2, -0.5, 0.8, 0.9, 0.1, -0.7, -0.6];
    let labels = [0, 1, 1, 0];
    let params: Vec<f64> = (0..HIDDEN * 2 + HIDDEN + 2 * HIDDEN + 2)
        .map(|k| (k as f64 * 1.37).sin())
        .collect();
    let split = |p: &[f64]| -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
        let (w1, rest) = p.split_at(HIDDEN * 2);
        let (b1, rest) = rest.split_at(HIDDEN);
        let (w2, b2) = rest.split_at(2 * HIDDEN);
        (w1.to_vec(), b1.to_vec(), w2.to_vec(), b2.to_vec())
    };
    let (w1, b1, w2, b2) = split(&params);
    let (value, dw1, db1, dw2, db2) = mlp_loss_grad(&w1, &b1, &w2, &b2, &xs, &labels);
    assert_eq!(value, mlp_loss(&w1, &b1, &w2, &b2, &xs, &labels));
    let claimed: Vec<f64> = [dw1, db1, dw2, db2].concat();
    let report = check_gradient(
        |p| {
            let (w1, b1, w2, b2) = split(p);
            mlp_loss(&w1, &b1, &w2, &b2, &xs, &labels)
        },
        &params,
        &claimed,
        1e-6,
        1e-8,
        1e-6,
    );
    assert!(report.passed, "{report}");
}

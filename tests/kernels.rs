//! The runtime's kernels called from `#[grad]` code, differentiated by
//! their own pullbacks, against hand-written gradients and central
//! differences.

#![deny(warnings)]

use approx::assert_relative_eq;
use autodiff::{check_gradient, grad};

#[grad]
fn linear_softmax_loss(w: &[f64], x: &[f64], b: &[f64], target: usize) -> f64 {
    let z = autodiff::matvec(w, x, b.len());
    let mut logits = vec![0.0; b.len()];
    for i in 0..b.len() {
        logits[i] = z[i] + b[i];
    }
    let probs = autodiff::softmax(b);
    let penalty = autodiff::dot(&probs, &probs);
    autodiff::softmax_cross_entropy(&z, target)
        + 0.1 * penalty
        + autodiff::logsumexp(x)
        + logits[0] * 0.0
}

#[test]
fn kernels_against_central_differences() {
    let (m, n) = (3, 4);
    let w: Vec<f64> = (0..m * n).map(|k| (k as f64 * 0.61).cos()).collect();
    let x: Vec<f64> = (0..n).map(|k| 0.3 - 0.25 * k as f64).collect();
    let b = vec![0.2, -0.1, 0.4];
    let (v, dw, dx, db) = linear_softmax_loss_grad(&w, &x, &b, 1);
    assert_eq!(v, linear_softmax_loss(&w, &x, &b, 1));
    let all: Vec<f64> = [w.clone(), x.clone(), b.clone()].concat();
    let claimed: Vec<f64> = [dw, dx, db].concat();
    let report = check_gradient(
        |p| linear_softmax_loss(&p[..m * n], &p[m * n..m * n + n], &p[m * n + n..], 1),
        &all,
        &claimed,
        1e-6,
        1e-9,
        1e-6,
    );
    assert!(report.passed, "{report}");
}

/// Case study 7: the fused rule of softmax cross-entropy is softmax minus
/// one-hot.
#[grad]
fn cross_entropy(logits: &[f64], target: usize) -> f64 {
    autodiff::softmax_cross_entropy(logits, target)
}

#[test]
fn softmax_cross_entropy_is_softmax_minus_one_hot() {
    let logits = [2.0, -1.0, 0.5, 1000.0];
    let (v, d) = cross_entropy_grad(&logits, 2);
    assert!(v.is_finite());
    assert_relative_eq!(v, 999.5, max_relative = 1e-12);
    let lse = autodiff::logsumexp(&logits);
    for (i, g) in d.iter().enumerate() {
        let expected = (logits[i] - lse).exp() - if i == 2 { 1.0 } else { 0.0 };
        assert_relative_eq!(*g, expected, epsilon = 1e-15);
    }
}

#[grad]
fn product_trace(a: &[f64], b: &[f64]) -> f64 {
    let c = autodiff::matmul(a, b, 2, 3, 2);
    c[0] + c[3]
}

#[test]
fn matmul_trace_gradient() {
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let b = [0.5, -1.0, 0.25, 2.0, -0.75, 1.5];
    let (v, da, db) = product_trace_grad(&a, &b);
    assert_eq!(v, product_trace(&a, &b));
    // tr(AB) has d/dA = Bᵀ, d/dB = Aᵀ.
    assert_eq!(da, vec![b[0], b[2], b[4], b[1], b[3], b[5]]);
    assert_eq!(db, vec![a[0], a[3], a[1], a[4], a[2], a[5]]);
}

/// What the error for `dot(&w[i], x)` asks for: the row's loop inline.
#[grad]
fn tanh_layer_sum(w: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for row in w {
        let mut d = 0.0;
        for j in 0..x.len() {
            d += row[j] * x[j];
        }
        s += d.tanh();
    }
    s
}

#[test]
fn row_loop_written_inline_has_the_analytic_gradient() {
    let w = vec![vec![1.0, 2.0, -0.5], vec![0.5, -1.0, 0.25]];
    let x = [0.3, 0.7, -1.2];
    let (v, dw, dx) = tanh_layer_sum_grad(&w, &x);
    assert_eq!(v, tanh_layer_sum(&w, &x));
    let d: Vec<f64> = w
        .iter()
        .map(|r| r.iter().zip(&x).map(|(a, b)| a * b).sum::<f64>())
        .collect();
    for i in 0..2 {
        let sech2 = 1.0 - d[i].tanh().powi(2);
        for j in 0..3 {
            assert_relative_eq!(dw[i][j], sech2 * x[j], max_relative = 1e-14);
        }
    }
    for j in 0..3 {
        let expected: f64 = (0..2).map(|i| (1.0 - d[i].tanh().powi(2)) * w[i][j]).sum();
        assert_relative_eq!(dx[j], expected, max_relative = 1e-14);
    }
}

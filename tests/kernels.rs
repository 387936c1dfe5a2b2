//! The runtime's kernels called from `#[grad]` code, differentiated by
//! their own pullbacks, against hand-written gradients and central
//! differences.

#![deny(warnings)]
// Rows by index are what some of these tests are about.
#![allow(clippy::needless_range_loop)]

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

/// The row's loop written inline: the reference for the kernel on a row.
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

/// A kernel given a row of a nested array: `&w[i]` by index, `row` bound
/// by `for`, and two rows of one array (whose adjoints land in the same
/// `d_w`).
#[grad]
fn tanh_layer_dot(w: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += autodiff::dot(&w[i], x).tanh();
    }
    s
}

#[grad]
fn tanh_layer_row(w: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for row in w {
        s += autodiff::dot(row, x).tanh();
    }
    s
}

#[grad]
fn gram_of_rows(w: &[[f64; 3]]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        for j in 0..w.len() {
            s += autodiff::dot(&w[i], &w[j]) * (i + 2 * j) as f64;
        }
    }
    s
}

#[grad]
fn row_logsumexp(w: Vec<[f64; 2]>, k: usize) -> f64 {
    autodiff::logsumexp(&w[k]) + autodiff::logsumexp(&w[0])
}

#[test]
fn a_kernel_given_a_row_matches_the_loop_written_inline() {
    let w = vec![
        vec![1.0, 2.0, -0.5],
        vec![0.5, -1.0, 0.25],
        vec![-0.3, 0.1, 0.9],
    ];
    let x = [0.3, 0.7, -1.2];
    let (v0, dw0, dx0) = tanh_layer_sum_grad(&w, &x);
    for (v, dw, dx) in [tanh_layer_dot_grad(&w, &x), tanh_layer_row_grad(&w, &x)] {
        assert_relative_eq!(v, v0, max_relative = 1e-15);
        for i in 0..3 {
            for j in 0..3 {
                assert_relative_eq!(dw[i][j], dw0[i][j], max_relative = 1e-14);
            }
            assert_relative_eq!(dx[i], dx0[i], max_relative = 1e-14);
        }
    }
}

#[test]
fn two_rows_of_one_array_both_receive_their_adjoints() {
    let w = [[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]];
    let (v, dw) = gram_of_rows_grad(&w);
    assert_eq!(v, gram_of_rows(&w));
    // s = Σ_ij c_ij <w_i, w_j>, c_ij = i + 2j: d/dw_k = Σ_j (c_kj + c_jk) w_j.
    let c = |i: usize, j: usize| (i + 2 * j) as f64;
    for k in 0..2 {
        for m in 0..3 {
            let expected: f64 = (0..2).map(|j| (c(k, j) + c(j, k)) * w[j][m]).sum();
            assert_relative_eq!(dw[k][m], expected, max_relative = 1e-14);
        }
    }
}

#[test]
fn logsumexp_of_a_row_is_softmax_of_the_row() {
    let w = vec![[0.5, -1.0], [2.0, 0.25], [-0.5, 0.0]];
    for k in 0..3 {
        let (v, dw) = row_logsumexp_grad(w.clone(), k);
        assert_eq!(v, row_logsumexp(w.clone(), k));
        let softmax = |r: [f64; 2]| {
            let z = r[0].exp() + r[1].exp();
            [r[0].exp() / z, r[1].exp() / z]
        };
        let mut expected = [[0.0; 2]; 3];
        for (row, weight) in [(k, 1.0), (0, 1.0)] {
            let p = softmax(w[row]);
            expected[row][0] += weight * p[0];
            expected[row][1] += weight * p[1];
        }
        for i in 0..3 {
            for j in 0..2 {
                assert_relative_eq!(dw[i][j], expected[i][j], max_relative = 1e-14);
            }
        }
    }
}

/// A kernel given a part of a differentiated struct or of a nested fixed
/// array: the adjoint lands in the same place of the gradient.
#[derive(Clone, autodiff::Differentiable)]
struct Neuron {
    w: Vec<f64>,
    b: f64,
}

#[grad(wrt(n, x))]
fn neuron(n: &Neuron, x: &[f64]) -> f64 {
    (autodiff::dot(&n.w, x) + n.b).tanh()
}

#[grad(wrt(n, kernel))]
fn neuron_bare(n: &Neuron, kernel: &Neuron) -> f64 {
    autodiff::dot(&n.w, &kernel.w) * n.b
}

#[grad]
fn point_norms(points: &[[f64; 3]]) -> f64 {
    let mut s = 0.0;
    for i in 0..points.len() {
        s += autodiff::dot(&points[i], &points[i]).sqrt();
    }
    s
}

#[test]
fn a_kernel_given_a_struct_field_or_a_fixed_row() {
    let n = Neuron {
        w: vec![0.5, -0.25, 1.0],
        b: 0.1,
    };
    let x = [1.0, 2.0, -0.5];
    let (v, dn, dx) = neuron_grad(&n, &x);
    assert_eq!(v, neuron(&n, &x));
    let z = 0.5 * 1.0 - 0.25 * 2.0 - 0.5 + 0.1;
    let sech2 = 1.0 - f64::tanh(z).powi(2);
    assert_relative_eq!(dn.b, sech2, max_relative = 1e-14);
    for j in 0..3 {
        assert_relative_eq!(dn.w[j], sech2 * x[j], max_relative = 1e-14);
        assert_relative_eq!(dx[j], sech2 * n.w[j], max_relative = 1e-14);
    }
    let k = Neuron {
        w: vec![2.0, 1.0, -1.0],
        b: 3.0,
    };
    let (v, dn, dk) = neuron_bare_grad(&n, &k);
    let d = 1.0 - 0.25 - 1.0;
    assert_eq!(v, d * 0.1);
    assert_eq!(dn.b, d);
    assert_eq!(dk.b, 0.0);
    for j in 0..3 {
        assert_relative_eq!(dn.w[j], 0.1 * k.w[j], max_relative = 1e-15);
        assert_relative_eq!(dk.w[j], 0.1 * n.w[j], max_relative = 1e-15);
    }
    let points = [[3.0, 4.0, 0.0], [1.0, -2.0, 2.0]];
    let (v, dp) = point_norms_grad(&points);
    assert_eq!(v, 8.0);
    for i in 0..2 {
        let r = points[i].iter().map(|a| a * a).sum::<f64>().sqrt();
        for j in 0..3 {
            assert_relative_eq!(dp[i][j], points[i][j] / r, max_relative = 1e-15);
        }
    }
}

// ---- kernels given sub-slices -----------------------------------------

/// Row-major data read by sub-slices: `dot(w, &xs[i * d..(i + 1) * d])`,
/// both arrays active, the same array twice (`&z[..n]`, `&z[n..]`), a
/// nested row's sub-slice, and `logsumexp` of one, in a loop: the adjoint
/// of each sub-slice goes into the same sub-slice of its array's (refused
/// before: "a sub-slice is not one yet"; new-user trial).
#[grad(wrt(w, xs, z, rows))]
fn sub_slices(w: &[f64], xs: &[f64], z: &[f64], rows: &[Vec<f64>], n: usize) -> f64 {
    let d = w.len();
    let mut s = 0.0;
    for i in 0..xs.len() / d {
        s += autodiff::dot(w, &xs[i * d..(i + 1) * d]).tanh();
    }
    s += autodiff::dot(&z[..n], &z[n..]);
    s += autodiff::logsumexp(&xs[1..=2]);
    for r in 0..rows.len() {
        s += autodiff::dot(&rows[r][1..], &w[..d - 1]) * 0.5;
    }
    s
}

#[test]
fn kernels_given_sub_slices() {
    let w = [0.3, -0.7, 0.2];
    let xs = [1.0, 2.0, -0.5, 0.4, 1.5, -1.2];
    let z = [0.5, -1.0, 2.0, 0.25];
    let rows = vec![vec![0.1, 0.2, 0.3], vec![-0.4, 0.6, 1.1]];
    let (v, dw, dxs, dz, drows) = sub_slices_grad(&w, &xs, &z, &rows, 2);
    assert_eq!(v, sub_slices(&w, &xs, &z, &rows, 2));
    let flat_rows: Vec<f64> = rows.concat();
    let all: Vec<f64> = [&w[..], &xs[..], &z[..], &flat_rows[..]].concat();
    let claimed: Vec<f64> = [dw.clone(), dxs, dz, drows.concat()].concat();
    let report = check_gradient(
        |p| {
            let rows: Vec<Vec<f64>> = p[13..].chunks(3).map(|c| c.to_vec()).collect();
            sub_slices(&p[..3], &p[3..9], &p[9..13], &rows, 2)
        },
        &all,
        &claimed,
        1e-6,
        1e-9,
        1e-6,
    );
    assert!(report.passed, "{report}");
    // The first column of each row takes no gradient.
    assert_eq!((drows[0][0], drows[1][0]), (0.0, 0.0));
}

#[grad]
fn weighted_sum(w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += w[i] * x[i] * x[i];
    }
    s
}

/// A chunk or a window given whole to a kernel or a `#[grad]` helper
/// (`dot(w, x)` for `x` in `xs.chunks(2)`): the sub-slice it is (refused
/// before: "may change the array `xs`", "this iterator is not one of
/// those"; new-user trial).
#[grad(wrt(w, xs))]
fn chunks_to_calls(w: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, &y) in xs.chunks(2).zip(ys) {
        s += y * autodiff::dot(w, x);
    }
    for x in xs.chunks_exact(2) {
        s += weighted_sum(w, x).sin();
    }
    for win in xs.windows(2) {
        s += autodiff::logsumexp(win) * 0.25;
    }
    s + weighted_sum(&xs[..2], &xs[4..]) + weighted_sum(&w[1..], &xs[3..=3])
}

#[test]
fn chunks_and_windows_given_whole_to_calls() {
    let w = [0.3, -0.7];
    let xs = [1.0, 2.0, -0.5, 0.4, 1.5, -1.2];
    let ys = [0.5, -1.5, 2.0];
    let (v, dw, dxs) = chunks_to_calls_grad(&w, &xs, &ys);
    assert_eq!(v, chunks_to_calls(&w, &xs, &ys));
    let all: Vec<f64> = [&w[..], &xs[..]].concat();
    let claimed: Vec<f64> = [dw, dxs].concat();
    let report = check_gradient(
        |p| chunks_to_calls(&p[..2], &p[2..], &ys),
        &all,
        &claimed,
        1e-6,
        1e-9,
        1e-6,
    );
    assert!(report.passed, "{report}");
}

struct Rows {
    xs: Vec<Vec<f64>>,
}

/// A kernel on rows of a constant struct's field, each copied into a local
/// first, as the refusal of `dot(w, &data.xs[i])` says to write
/// (tests/ui/kernel_row_of_a_constant_struct.rs).
#[grad(wrt(w))]
fn scores_of_rows(w: &[f64], data: &Rows) -> f64 {
    let mut s = 0.0;
    for i in 0..data.xs.len() {
        let x = data.xs[i].to_vec();
        s += autodiff::dot(w, &x).tanh();
    }
    s
}

#[test]
fn a_kernel_on_rows_of_a_constant_struct_copied_first() {
    let data = Rows {
        xs: vec![vec![1.0, 2.0, -0.5], vec![3.0, -4.0, 0.25]],
    };
    let w = [0.5, -0.25, 1.5];
    let (v, dw) = scores_of_rows_grad(&w, &data);
    let z: Vec<f64> = data
        .xs
        .iter()
        .map(|x| x.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>())
        .collect();
    assert_relative_eq!(
        v,
        z.iter().map(|z| z.tanh()).sum::<f64>(),
        max_relative = 1e-14
    );
    for j in 0..3 {
        let exact: f64 = (0..2)
            .map(|i| (1.0 - z[i].tanh().powi(2)) * data.xs[i][j])
            .sum();
        assert_relative_eq!(dw[j], exact, max_relative = 1e-14);
    }
}

// ---- kernels returning a `Vec` inside loops, branches and blocks --------

/// Multinomial logistic regression, a sample at a time: the kernels'
/// results are values of the iteration, recorded whole as a call's are.
#[grad(wrt(w), jvp)]
fn multinomial_nll(w: &[f64], xs: &[Vec<f64>], labels: &[usize]) -> f64 {
    let classes = 3;
    let mut nll = 0.0;
    for (x, &y) in xs.iter().zip(labels) {
        let logits = autodiff::matvec(w, x, classes);
        let p = autodiff::softmax(&logits);
        nll -= p[y].ln();
    }
    nll / xs.len() as f64
}

/// A hoisted buffer whose element type is left to rustc, a kernel's result
/// changed in place, kernels in both arms of an `if`, and a state replaced
/// by a kernel's result each step.
#[grad(wrt(w), jvp)]
fn attention_steps(w: &[f64], xs: &[Vec<f64>]) -> f64 {
    let mut scores = vec![0.0; 3];
    let mut h = vec![w[0], w[1], w[2]];
    let mut total = 0.0;
    for x in xs {
        for j in 0..3 {
            scores[j] = w[j] * x[j] + h[j];
        }
        let mut a: Vec<f64> = autodiff::softmax(&scores);
        a[0] += 0.5 * a[2];
        if x[0] > 0.0 {
            let q = autodiff::softmax(&a);
            total += q[1] * w[3];
        } else {
            total += autodiff::logsumexp(&a);
        }
        h = autodiff::softmax(&a);
    }
    total + h[0]
}

/// The same kernel in a checkpointed loop, recomputed in the reverse sweep.
#[grad(wrt(w))]
fn attention_checkpointed(w: &[f64], xs: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    #[autodiff::checkpoint(every = 2)]
    for i in 0..xs.len() {
        let z = vec![w[0] * xs[i][0], w[1] * xs[i][1], s];
        let p: Vec<f64> = autodiff::softmax(&z);
        s += p[2] + p[0] * w[2];
    }
    s
}

/// `claimed` against central differences of `f` at `at` (step 1e-6,
/// relative 1e-6).
fn agrees(f: impl FnMut(&[f64]) -> f64, at: &[f64], claimed: &[f64]) {
    let report = check_gradient(f, at, claimed, 1e-6, 1e-9, 1e-6);
    assert!(report.passed, "{report}");
}

/// A `_jvp`'s directional derivative is the gradient dotted with the
/// direction, to rounding.
fn is_gradient_along(tangent: f64, gradient: &[f64], direction: &[f64]) {
    let along: f64 = gradient.iter().zip(direction).map(|(g, v)| g * v).sum();
    assert_relative_eq!(tangent, along, max_relative = 1e-12, epsilon = 1e-14);
}

#[test]
fn kernels_returning_a_vec_inside_loops_and_branches() {
    let xs = vec![
        vec![0.4, -1.2, 0.7],
        vec![-0.9, 0.3, 1.5],
        vec![1.1, 0.8, -0.2],
        vec![-0.3, -0.6, 0.9],
    ];
    let labels = [2, 0, 1, 1];
    let v = [0.3, -0.8, 0.5, 0.1, -0.4, 0.9, 0.2, 0.6, -0.1];
    for s in [-1.0, 0.35, 1.4] {
        let w: Vec<f64> = (0..9).map(|k| s * (0.7 * k as f64 + 0.3).sin()).collect();
        let (value, dw) = multinomial_nll_grad(&w, &xs, &labels);
        assert_eq!(value, multinomial_nll(&w, &xs, &labels));
        agrees(|p| multinomial_nll(p, &xs, &labels), &w, &dw);
        let (_, tangent) = multinomial_nll_jvp(&w, &xs, &labels, &v);
        is_gradient_along(tangent, &dw, &v);

        let w = &w[..4];
        let (value, dw) = attention_steps_grad(w, &xs);
        assert_eq!(value, attention_steps(w, &xs));
        agrees(|p| attention_steps(p, &xs), w, &dw);
        let (_, tangent) = attention_steps_jvp(w, &xs, &v[..4]);
        is_gradient_along(tangent, &dw, &v);

        let w = &w[..3];
        let (value, dw) = attention_checkpointed_grad(w, &xs);
        assert_eq!(value, attention_checkpointed(w, &xs));
        agrees(|p| attention_checkpointed(p, &xs), w, &dw);
    }
}

/// The logits a `#[grad]` function returns, given to the kernels whole,
/// with no type written: rustc knows the callee's.
#[grad(wrt(w), jvp)]
fn logits(w: &[f64], x: &[f64]) -> Vec<f64> {
    vec![w[0] * x[0] + w[1], w[2] * x[1] - w[0], w[1] * x[0] * x[1]]
}

#[grad(wrt(w), jvp)]
fn cross_entropy_of_returned_logits(w: &[f64], xs: &[Vec<f64>], labels: &[usize]) -> f64 {
    let mut loss = 0.0;
    for (x, &y) in xs.iter().zip(labels) {
        let z = logits(w, x);
        let p = autodiff::softmax(&z);
        loss += autodiff::softmax_cross_entropy(&z, y) + 0.1 * p[0] * p[0];
    }
    loss
}

#[test]
fn kernels_given_a_call_result() {
    let xs = vec![vec![0.4, -1.2], vec![-0.9, 0.3], vec![1.1, 0.8]];
    let labels = [2, 0, 1];
    let v = [0.3, -0.8, 0.5];
    for w in [[0.5, 1.0, -0.3], [-1.2, 0.2, 0.9], [2.0, -0.7, 0.05]] {
        let (value, dw) = cross_entropy_of_returned_logits_grad(&w, &xs, &labels);
        assert_eq!(value, cross_entropy_of_returned_logits(&w, &xs, &labels));
        agrees(
            |p| cross_entropy_of_returned_logits(p, &xs, &labels),
            &w,
            &dw,
        );
        let (_, tangent) = cross_entropy_of_returned_logits_jvp(&w, &xs, &labels, &v);
        is_gradient_along(tangent, &dw, &v);
    }
}

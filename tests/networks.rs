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

// ---- layers of different widths, the activation replaced each layer ----

#[derive(Clone, autodiff::Differentiable)]
struct Dense {
    w: Vec<f64>,
    b: Vec<f64>,
    n_in: usize,
    n_out: usize,
}

impl Dense {
    #[grad(wrt(self, x), jvp)]
    fn forward(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.n_out];
        for o in 0..self.n_out {
            let mut z = self.b[o];
            for i in 0..self.n_in {
                z += self.w[o * self.n_in + i] * x[i];
            }
            out[o] = z.tanh();
        }
        out
    }
}

#[derive(Clone, autodiff::Differentiable)]
struct Net {
    layers: Vec<Dense>,
}

/// `h = layer.forward(&h)` over layers 2 → 4 → 1 → 3: the activation is
/// the call's result, a value whose length changes from one layer to the
/// next, and so does its adjoint in the reverse sweep.
#[grad(wrt(net), jvp)]
fn deep_loss(net: &Net, x: &[f64], target: f64) -> f64 {
    let mut h = net.layers[0].forward(x);
    for layer in &net.layers[1..] {
        h = layer.forward(&h);
    }
    let out: f64 = h.iter().sum();
    (out - target).powi(2)
}

/// The same, with an activation collected between the layers: the
/// activation loop's length is the width of the layer before, which the
/// reverse sweep takes from the value each iteration started from.
#[grad(wrt(net))]
fn activated_loss(net: &Net, x: &[f64], target: f64) -> f64 {
    let mut h = net.layers[0].forward(x);
    for layer in &net.layers[1..] {
        let activated: Vec<f64> = h.iter().map(|v| v.sin() + 0.5 * v).collect();
        h = layer.forward(&activated);
    }
    let out: f64 = h.iter().sum();
    (out - target).powi(2)
}

impl Net {
    /// The activations of the last layer, returned: the variable replaced
    /// by each layer's result is copied where it is returned, so that its
    /// width may change on the way.
    #[grad(wrt(self, x))]
    fn predict(&self, x: &[f64]) -> Vec<f64> {
        let mut h = self.layers[0].forward(x);
        for layer in &self.layers[1..] {
            h = layer.forward(&h);
        }
        h
    }
}

#[grad(wrt(net, x))]
fn predicted_loss(net: &Net, x: &[f64], target: f64) -> f64 {
    let out = net.predict(x);
    out.iter().map(|v| (v - target).powi(2)).sum()
}

fn dense(n_in: usize, n_out: usize, seed: f64) -> Dense {
    Dense {
        w: (0..n_in * n_out)
            .map(|k| (seed + 0.7 * k as f64).sin() * 0.8)
            .collect(),
        b: (0..n_out)
            .map(|k| (seed * 1.3 + k as f64).cos() * 0.3)
            .collect(),
        n_in,
        n_out,
    }
}

#[test]
fn layers_of_different_widths_replace_the_activation() {
    let widths = [2, 4, 1, 3];
    for seed in [0.2, 1.7, -2.4] {
        let net = Net {
            layers: widths
                .windows(2)
                .enumerate()
                .map(|(k, w)| dense(w[0], w[1], seed + k as f64))
                .collect(),
        };
        let x = [0.6, -1.1];
        let (v, d) = deep_loss_grad(&net, &x, 0.5);
        assert_eq!(v, deep_loss(&net, &x, 0.5));
        // Every weight and bias against central differences.
        let flat = |n: &Net| -> Vec<f64> {
            n.layers
                .iter()
                .flat_map(|l| l.w.iter().chain(&l.b).copied())
                .collect()
        };
        let rebuild = |p: &[f64]| -> Net {
            let mut n = net.clone();
            let mut k = 0;
            for l in &mut n.layers {
                for v in l.w.iter_mut().chain(l.b.iter_mut()) {
                    *v = p[k];
                    k += 1;
                }
            }
            n
        };
        let report = autodiff::check_gradient(
            |p| deep_loss(&rebuild(p), &x, 0.5),
            &flat(&net),
            &flat(&d),
            1e-6,
            1e-9,
            1e-6,
        );
        assert!(report.passed, "{report}");
        let (v, a) = activated_loss_grad(&net, &x, 0.5);
        assert_eq!(v, activated_loss(&net, &x, 0.5));
        let report = autodiff::check_gradient(
            |p| activated_loss(&rebuild(p), &x, 0.5),
            &flat(&net),
            &flat(&a),
            1e-6,
            1e-9,
            1e-6,
        );
        assert!(report.passed, "{report}");
        // The activations returned by a method, its loss in a caller.
        let (v, dn, dx) = predicted_loss_grad(&net, &x, 0.5);
        assert_eq!(v, predicted_loss(&net, &x, 0.5));
        let mut all = flat(&net);
        all.extend(x);
        let mut got = flat(&dn);
        got.extend(&dx);
        let k = all.len() - 2;
        let report = autodiff::check_gradient(
            |p| predicted_loss(&rebuild(&p[..k]), &p[k..], 0.5),
            &all,
            &got,
            1e-6,
            1e-9,
            1e-6,
        );
        assert!(report.passed, "{report}");
        // Forward mode along the gradient's own direction: |∇|².
        let (_, along) = deep_loss_jvp(&net, &x, 0.5, &d);
        let norm2: f64 = flat(&d).iter().map(|g| g * g).sum();
        assert!(
            (along - norm2).abs() <= 1e-12 * norm2.max(1.0),
            "{along} {norm2}"
        );
    }
}

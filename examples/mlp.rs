//! Trains a small multilayer perceptron to separate two interleaved
//! spirals, with the gradient `#[grad]` generates and plain gradient
//! descent.
//!
//! Run with `cargo run --release --example mlp`.

use autodiff::grad;

const HIDDEN: usize = 16;

/// The mean softmax cross-entropy of a 2-16-2 network with tanh hidden
/// units over the points `xs` (flat pairs) with labels 0 or 1. Weights are
/// row-major: `w1[j * 2 + k]`, `w2[c * HIDDEN + j]`.
#[grad(wrt(w1, b1, w2, b2))]
fn loss(w1: &[f64], b1: &[f64], w2: &[f64], b2: &[f64], xs: &[f64], labels: &[usize]) -> f64 {
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
        // Cross-entropy of softmax(z0, z1), stable for large logits.
        let m = z0.max(z1);
        let log_sum = m + ((z0 - m).exp() + (z1 - m).exp()).ln();
        let picked = if labels[p] == 0 { z0 } else { z1 };
        total += log_sum - picked;
    }
    total / n as f64
}

/// The class the network predicts for one point.
fn predict(w1: &[f64], b1: &[f64], w2: &[f64], b2: &[f64], x: f64, y: f64) -> usize {
    let mut z = [b2[0], b2[1]];
    for j in 0..HIDDEN {
        let h = (w1[j * 2] * x + w1[j * 2 + 1] * y + b1[j]).tanh();
        z[0] += w2[j] * h;
        z[1] += w2[HIDDEN + j] * h;
    }
    usize::from(z[1] > z[0])
}

/// A small deterministic generator, so that every run is the same.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Two spirals of `per_class` points each, with a little noise.
fn spirals(per_class: usize, rng: &mut Lcg) -> (Vec<f64>, Vec<usize>) {
    let mut xs = Vec::new();
    let mut labels = Vec::new();
    for class in 0..2 {
        for i in 0..per_class {
            let t = i as f64 / per_class as f64 * 3.0 * std::f64::consts::PI / 2.0 + 0.3;
            let angle = t + class as f64 * std::f64::consts::PI;
            let r = t / 5.0;
            xs.push(r * angle.cos() + 0.02 * (rng.next() - 0.5));
            xs.push(r * angle.sin() + 0.02 * (rng.next() - 0.5));
            labels.push(class);
        }
    }
    (xs, labels)
}

fn main() {
    let mut rng = Lcg(7);
    let (xs, labels) = spirals(100, &mut rng);
    let mut init = |n: usize, scale: f64| -> Vec<f64> {
        (0..n).map(|_| (rng.next() - 0.5) * 2.0 * scale).collect()
    };
    let mut w1 = init(HIDDEN * 2, 2.0);
    let mut b1 = init(HIDDEN, 0.5);
    let mut w2 = init(2 * HIDDEN, 0.5);
    let mut b2 = vec![0.0; 2];

    let rate = 0.5;
    println!("{:>6}  {:>10}  {:>9}", "epoch", "loss", "accuracy");
    for epoch in 0..=3000 {
        let (value, dw1, db1, dw2, db2) = loss_grad(&w1, &b1, &w2, &b2, &xs, &labels);
        if epoch % 300 == 0 {
            let correct = labels
                .iter()
                .enumerate()
                .filter(|(p, &label)| {
                    predict(&w1, &b1, &w2, &b2, xs[p * 2], xs[p * 2 + 1]) == label
                })
                .count();
            println!(
                "{epoch:>6}  {value:>10.5}  {:>8.1}%",
                100.0 * correct as f64 / labels.len() as f64
            );
        }
        for (w, d) in [
            (&mut w1, &dw1),
            (&mut b1, &db1),
            (&mut w2, &dw2),
            (&mut b2, &db2),
        ] {
            for (wi, di) in w.iter_mut().zip(d) {
                *wi -= rate * di;
            }
        }
    }
}

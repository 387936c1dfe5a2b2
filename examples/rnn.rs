//! Fits a small recurrent network, h_t = tanh(a·h_{t−1} + b·x_t + c),
//! ŷ_t = v·h_t + d, to predict the next value of a sequence, with the
//! gradient `#[grad]` generates (backpropagation through time) and gradient
//! descent with momentum.
//!
//! Run with `cargo run --release --example rnn`.

use autodiff::grad;

/// The mean squared error of one-step-ahead predictions over the sequence.
/// The hidden state is overwritten every step: the forward sweep records
/// what the reverse sweep needs of it.
#[grad(wrt(a, b, c, v, d))]
fn prediction_error(a: f64, b: f64, c: f64, v: f64, d: f64, xs: &[f64]) -> f64 {
    let mut h = 0.0;
    let mut total = 0.0;
    for t in 0..xs.len() - 1 {
        h = (a * h + b * xs[t] + c).tanh();
        let predicted = v * h + d;
        let miss = predicted - xs[t + 1];
        total += miss * miss;
    }
    total / (xs.len() - 1) as f64
}

fn main() {
    // A sequence with some memory: a slow sine plus an echo of itself.
    let xs: Vec<f64> = (0..200)
        .map(|t| (t as f64 * 0.15).sin() * 0.8 + (t as f64 * 0.05).cos() * 0.2)
        .collect();
    let mut p = [0.1, 0.5, 0.0, 0.5, 0.0];
    let mut velocity = [0.0; 5];
    let (rate, momentum) = (0.02, 0.8);
    println!("{:>6}  {:>12}", "step", "mean sq err");
    for step in 0..=4000 {
        let (err, da, db, dc, dv, dd) = prediction_error_grad(p[0], p[1], p[2], p[3], p[4], &xs);
        if step % 400 == 0 {
            println!("{step:>6}  {err:>12.6}");
        }
        for (k, g) in [da, db, dc, dv, dd].into_iter().enumerate() {
            velocity[k] = momentum * velocity[k] - rate * g;
            p[k] += velocity[k];
        }
    }
    println!(
        "a = {:.4}, b = {:.4}, c = {:.4}, v = {:.4}, d = {:.4}",
        p[0], p[1], p[2], p[3], p[4]
    );
}

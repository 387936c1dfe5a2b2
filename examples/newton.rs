//! Newton's method with the generated Hessian: the extended Rosenbrock
//! function in 6 dimensions, from (1.2, −0.5, 1.2, −0.5, ..), minimised by
//! damped Newton steps (`H + λI` solved by Cholesky, λ raised until the
//! step descends): 22 steps to the minimum at (1, .., 1), the last ones
//! quadratic (the gradient's norm 3e−6, 4e−10, 1e−13), where gradient
//! descent takes thousands. (From the classic (−1.2, 1, −1.2, 1, ..) it
//! finds the function's other, local minimum near (−0.99, 0.98, ..).)
//!
//! Run with `cargo run --example newton`.

use autodiff::{grad, Float};

/// Σ 100 (x[i+1] − x[i]²)² + (1 − x[i])², generic over its float type so
/// that `#[grad(hessian)]` can run its gradient at dual numbers.
#[grad(hessian)]
fn rosenbrock<T: Float>(x: &[T]) -> T {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}

/// Solves `(h + λI) d = −g` by Cholesky; `None` where `h + λI` is not
/// positive definite.
fn newton_step(h: &[Vec<f64>], g: &[f64], lambda: f64) -> Option<Vec<f64>> {
    let n = g.len();
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let dot: f64 = l[i][..j].iter().zip(&l[j][..j]).map(|(a, b)| a * b).sum();
            let s = h[i][j] + if i == j { lambda } else { 0.0 } - dot;
            if i == j {
                if s <= 0.0 {
                    return None;
                }
                l[i][i] = s.sqrt();
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    }
    // L y = −g, then Lᵀ d = y.
    let mut y = vec![0.0; n];
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l[i][k] * y[k]).sum();
        y[i] = (-g[i] - s) / l[i][i];
    }
    let mut d = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[k][i] * d[k]).sum();
        d[i] = (y[i] - s) / l[i][i];
    }
    Some(d)
}

fn main() {
    let mut x: Vec<f64> = (0..6)
        .map(|i| if i % 2 == 0 { 1.2 } else { -0.5 })
        .collect();
    let mut lambda = 1e-3;
    println!("step  f(x)                  |grad f|");
    for step in 0..100 {
        let (f, g, h) = rosenbrock_hessian(&x);
        let norm = g.iter().map(|v| v * v).sum::<f64>().sqrt();
        println!("{step:4}  {f:<20.12e}  {norm:.3e}");
        if norm < 1e-10 {
            println!("minimum at {x:.6?}");
            return;
        }
        // Damped: raise λ until the step is defined and decreases f.
        loop {
            if let Some(d) = newton_step(&h, &g, lambda) {
                let trial: Vec<f64> = x.iter().zip(&d).map(|(a, b)| a + b).collect();
                if rosenbrock(&trial) < f {
                    x = trial;
                    lambda = (lambda * 0.3).max(1e-12);
                    break;
                }
            }
            lambda *= 10.0;
        }
    }
    panic!("Newton's method did not converge: x = {x:?}");
}

//! Minimises the Rosenbrock function with plain gradient descent, using the
//! gradient `#[grad]` generates.
//!
//! Run with `cargo run --example gradient_descent`.

use autodiff::grad;

/// Rosenbrock's banana: its minimum is 0 at (1, 1), at the end of a long,
/// curved, flat valley.
#[grad]
fn rosenbrock(x: f64, y: f64) -> f64 {
    let a = 1.0;
    let b = 100.0;
    (a - x).powi(2) + b * (y - x * x).powi(2)
}

fn main() {
    let (mut x, mut y) = (-1.2, 1.0);
    // Gradient descent with momentum: the valley is badly conditioned.
    let (rate, momentum) = (1.5e-3, 0.9);
    let (mut vx, mut vy) = (0.0, 0.0);
    println!(
        "{:>6}  {:>12}  {:>10}  {:>10}  {:>12}",
        "step", "f(x, y)", "x", "y", "|grad|"
    );
    for step in 0..=20_000 {
        let (value, dx, dy) = rosenbrock_grad(x, y);
        let norm = dx.hypot(dy);
        if step % 2000 == 0 || norm < 1e-8 {
            println!("{step:>6}  {value:>12.6e}  {x:>10.6}  {y:>10.6}  {norm:>12.4e}");
        }
        if norm < 1e-8 {
            break;
        }
        vx = momentum * vx - rate * dx;
        vy = momentum * vy - rate * dy;
        x += vx;
        y += vy;
    }
    println!("minimum found at ({x:.6}, {y:.6}); the true minimum is at (1, 1)");
}

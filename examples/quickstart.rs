//! The reference texts' worked examples, differentiated at compile time.
//!
//! Run with `cargo run --example quickstart`.

use autodiff::grad;

/// The second text's walk-through: (x1 − x2)² + cos(x1 + x2). `trace`
/// also generates `f_trace`, the walk-through itself.
#[grad(trace)]
fn f(x1: f64, x2: f64) -> f64 {
    (x1 - x2).powi(2) + (x1 + x2).cos()
}

/// ln(x1) + x1·x2 − sin(x2).
#[grad]
fn g(x1: f64, x2: f64) -> f64 {
    x1.ln() + x1 * x2 - x2.sin()
}

/// z = x·x + x·y.
#[grad]
fn z(x: f64, y: f64) -> f64 {
    x * x + x * y
}

/// The logistic function built from primitives.
#[grad]
fn logistic(x: f64) -> f64 {
    let f = -x;
    let g = f.exp();
    let w = 1.0 + g;
    1.0 / w
}

/// A shared intermediate: u feeds two paths, so its adjoint sums both.
#[grad]
fn shared(x: f64) -> f64 {
    let u = x * x;
    u.sin() + u
}

fn main() {
    let (y, d1, d2) = f_grad(1.0, 2.0);
    println!("f(x1, x2) = (x1 - x2)^2 + cos(x1 + x2) at (1, 2)");
    println!(
        "  value {y:.5}, gradient ({d1:.5}, {d2:.5})   [expected 0.01001, (-2.14112, 1.85888)]"
    );

    let (y, d1, d2) = g_grad(2.0, 5.0);
    println!("g(x1, x2) = ln(x1) + x1*x2 - sin(x2) at (2, 5)");
    println!("  value {y:.5}, gradient ({d1:.5}, {d2:.5})   [expected (1/x1 + x2, x1 - cos x2) = (5.5, {:.5})]", 2.0 - 5f64.cos());

    let (v, dx, dy) = z_grad(3.0, 10.0);
    println!("z(x, y) = x*x + x*y at (3, 10)");
    println!("  value {v}, gradient ({dx}, {dy})   [expected 39, (16, 3)]");

    let (s, ds) = logistic_grad(0.0);
    println!("logistic(x) = 1 / (1 + exp(-x)) at 0");
    println!("  value {s}, derivative {ds}   [expected 0.5, 0.25]");

    let (y, dy) = shared_grad(1.5);
    println!("shared(x) = sin(x^2) + x^2 at 1.5");
    println!(
        "  value {y:.5}, derivative {dy:.5}   [expected (cos(x^2) + 1) 2x = {:.5}]",
        (2.25f64.cos() + 1.0) * 3.0
    );

    println!();
    println!("The Wengert list #[grad] derived for f (also in f_grad's doc comment):");
    println!("{}", autodiff::wengert!(f));

    println!();
    println!("The walk-through of f at (1, 2), step by step (#[grad(trace)]):");
    println!("{}", f_trace(1.0, 2.0));
}

// A function of the user's named like a runtime primitive is not silently
// replaced by the runtime's (whose pullback would not match it).
use autodiff::grad;

fn softplus(x: f64) -> f64 {
    0.5 * (1.0 + x.exp()).ln()
}

#[grad]
fn f(x: f64) -> f64 {
    softplus(x) * 2.0
}

// The same for a kernel name: the message says to call it by its path.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| 2.0 * x * y).sum()
}

#[grad]
fn g(xs: &[f64], ys: &[f64]) -> f64 {
    dot(xs, ys).sqrt()
}

fn main() {}

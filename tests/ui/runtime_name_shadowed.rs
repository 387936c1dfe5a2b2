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

fn main() {}

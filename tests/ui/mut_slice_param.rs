// A `&mut` array parameter would let the function change the caller's
// values: refused.
use autodiff::grad;

#[grad]
fn f(x: &mut [f64]) -> f64 {
    x[0] * 2.0
}

fn main() {}

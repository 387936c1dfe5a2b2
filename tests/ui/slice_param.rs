// A slice parameter is refused (for now).
use autodiff::grad;

#[grad]
fn f(x: &[f64]) -> f64 {
    x[0] * x[1]
}

fn main() {}

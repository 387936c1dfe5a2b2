// Active values destructured out of a tuple are refused.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let (a, b) = (x, x * 2.0);
    a * b
}

fn main() {}

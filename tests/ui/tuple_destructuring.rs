// Active values destructured out of a tuple that a call returns are
// refused (a tuple literal, `let (a, b) = (x, 2.0 * x);`, is supported).
use autodiff::grad;

fn pair(x: f64) -> (f64, f64) {
    (x, x * 2.0)
}

#[grad]
fn f(x: f64) -> f64 {
    let (a, b) = pair(x);
    a * b
}

fn main() {}

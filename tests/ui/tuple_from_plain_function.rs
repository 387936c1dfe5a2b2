// A tuple destructured out of a call to a function without #[grad]:
// rustc cannot find its `_vjp` (the function needs #[grad]).
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

// A call to a plain (non-#[grad]) function on an active value is refused.
use autodiff::grad;

fn helper(x: f64) -> f64 {
    x * 2.0
}

#[grad]
fn f(x: f64) -> f64 {
    helper(x) + 1.0
}

fn main() {}

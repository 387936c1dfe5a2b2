// A function that returns something other than a float is refused.
use autodiff::grad;

#[grad]
fn f(x: f64) -> i64 {
    (x * 2.0) as i64
}

fn main() {}

// A parameter that destructures a pattern is refused.
use autodiff::grad;

#[grad]
fn f((a, b): (f64, f64)) -> f64 {
    a * b
}

fn main() {}

// A float method without a derivative rule is refused.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    x.copysign(-1.0) * 2.0
}

fn main() {}

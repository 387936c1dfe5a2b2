// A function without a return type has nothing to differentiate.
use autodiff::grad;

#[grad]
fn f(x: f64) {
    let _y = x * 2.0;
}

fn main() {}

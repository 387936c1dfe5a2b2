// A `return` before the last statement is refused.
use autodiff::grad;

#[grad]
#[allow(unreachable_code)]
fn f(x: f64) -> f64 {
    let y = x * 2.0;
    return y;
    y * y
}

fn main() {}

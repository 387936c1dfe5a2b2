// A raw-pointer parameter is refused.
use autodiff::grad;

#[grad]
fn f(x: f64, p: *const f64) -> f64 {
    let _ = p;
    x * 2.0
}

fn main() {}

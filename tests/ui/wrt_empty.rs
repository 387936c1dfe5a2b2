// An empty `wrt()` is refused.
use autodiff::grad;

#[grad(wrt())]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {}

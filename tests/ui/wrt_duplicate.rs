// A parameter named twice in `wrt` is refused.
use autodiff::grad;

#[grad(wrt(x, x))]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {}

// `wrt` naming something that is not a parameter is refused.
use autodiff::grad;

#[grad(wrt(x, z))]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {}

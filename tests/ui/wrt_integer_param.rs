// `wrt` naming an integer parameter is refused.
use autodiff::grad;

#[grad(wrt(n))]
fn f(x: f64, n: i32) -> f64 {
    x.powi(n)
}

fn main() {}

// An unknown option of #[grad(...)] is refused.
use autodiff::grad;

#[grad(mode = "forward")]
fn f(x: f64) -> f64 {
    x * 2.0
}

fn main() {}

// `async fn` is refused.
use autodiff::grad;

#[grad]
async fn f(x: f64) -> f64 {
    x * 2.0
}

fn main() {}

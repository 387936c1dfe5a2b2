// `unsafe fn` is refused.
use autodiff::grad;

#[grad]
unsafe fn f(x: f64) -> f64 {
    x * 2.0
}

fn main() {}

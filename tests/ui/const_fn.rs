// `const fn` is refused.
use autodiff::grad;

#[grad]
const fn f(x: f64) -> f64 {
    x * 2.0
}

fn main() {}

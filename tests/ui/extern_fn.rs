// A function with an `extern` ABI is refused.
use autodiff::grad;

#[grad]
extern "C" fn f(x: f64) -> f64 {
    x * 2.0
}

fn main() {}

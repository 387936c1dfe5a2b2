// A C-variadic function is refused.
use autodiff::grad;

#[grad]
unsafe extern "C" fn f(x: f64, _args: ...) -> f64 {
    x * 2.0
}

fn main() {}

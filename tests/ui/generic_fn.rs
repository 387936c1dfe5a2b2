// A generic function is refused.
use autodiff::grad;

#[grad]
fn f<T: Into<f64>>(x: f64, scale: T) -> f64 {
    x * scale.into()
}

fn main() {}

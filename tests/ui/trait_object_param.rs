// A trait-object parameter is refused.
use autodiff::grad;

#[grad]
fn f(x: f64, g: &dyn Fn(f64) -> f64) -> f64 {
    let _ = g;
    x * 2.0
}

fn main() {}

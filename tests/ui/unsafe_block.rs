// A call inside an `unsafe` block on the active path is refused.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let y = unsafe { std::ptr::read(&x) };
    y * 2.0
}

fn main() {}

// `if let` is kept as written: on the active path it is refused.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let y = if let Some(v) = Some(x) { v * 2.0 } else { 0.0 };
    y + 1.0
}

fn main() {}

// `if let` is a `match`: a pattern that binds a value out of an active
// scrutinee is refused at the pattern (over an inactive one, it works).
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let y = if let Some(v) = Some(x) { v * 2.0 } else { 0.0 };
    y + 1.0
}

fn main() {}

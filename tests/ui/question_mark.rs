// The `?` operator is refused.
use autodiff::grad;

#[grad]
fn f(x: f64, s: &str) -> f64 {
    let k: f64 = s.parse().ok()?;
    x * k
}

fn main() {}

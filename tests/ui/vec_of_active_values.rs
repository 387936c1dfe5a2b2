// An active value stored in a Vec and read back into the result is refused.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let v = vec![x, x * 2.0];
    v[0] + v[1]
}

fn main() {}

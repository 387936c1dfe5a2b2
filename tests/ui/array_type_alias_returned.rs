// A type alias of an array as the return type: #[grad] reads the name
// from the tokens and cannot see through the alias.
use autodiff::grad;

type V3 = [f64; 3];

#[grad]
fn scaled(x: f64) -> V3 {
    [x, 2.0 * x, x * x]
}

fn main() {
    let _ = scaled(1.0);
}

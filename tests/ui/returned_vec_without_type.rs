// A returned `Vec` declared empty without a type: the error asks for the
// element type at the `let`.
use autodiff::grad;

#[grad]
fn pushed(xs: &[f64], k: f64) -> Vec<f64> {
    let mut out = Vec::new();
    for &x in xs {
        out.push((k * x).sin());
    }
    out
}

fn main() {}

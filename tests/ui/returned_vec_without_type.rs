// A returned `Vec` declared empty without a type, whose pushes do not show
// floats (an element bound by the loop's pattern): the error asks for the
// element type at the `let`.
use autodiff::grad;

#[grad]
fn pushed(xs: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for &x in xs {
        out.push(x);
    }
    out
}

fn main() {}

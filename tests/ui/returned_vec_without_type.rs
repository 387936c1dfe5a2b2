// A returned `Vec` declared empty without a type, whose pushes do not show
// floats (names bound by an array pattern): the error asks for the element
// type at the `let`.
use autodiff::grad;

#[grad]
fn pushed(xs: &[f64], pairs: &[(usize, usize)]) -> Vec<f64> {
    let mut out = Vec::new();
    for &(i, j) in pairs {
        let [a, b] = [xs[i], xs[j]];
        out.push(a * b);
    }
    out
}

fn main() {}

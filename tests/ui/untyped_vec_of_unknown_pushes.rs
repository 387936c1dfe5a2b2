// A `Vec` declared empty without a type, whose pushes do not show floats
// (a callee's result), carrying active values: #[grad] asks for its type.
use autodiff::grad;

fn halve(x: f64) -> f64 {
    x / 2.0
}

#[grad]
fn f(xs: &[f64]) -> f64 {
    let mut r = Vec::new();
    for i in 0..xs.len() {
        let v = halve(xs[i]);
        r.push(v);
    }
    r[0]
}

fn main() {}

// A kernel takes whole float arrays: a row of a nested array, written
// `&w[i]` or bound by `for row in w`, is refused at the row.
use autodiff::{dot, grad};

#[grad]
fn by_index(w: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += dot(&w[i], x).tanh();
    }
    s
}

#[grad]
fn by_row(w: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for row in w {
        s += dot(row, x).tanh();
    }
    s
}

fn main() {}

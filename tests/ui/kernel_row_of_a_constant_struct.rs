// A kernel given a row of a constant struct's field: refused, saying to
// copy the row into a local first (tests/kernels.rs checks that rewrite).
use autodiff::grad;

struct Data {
    xs: Vec<Vec<f64>>,
}

#[grad(wrt(w))]
fn score(w: &[f64], data: &Data) -> f64 {
    let mut s = 0.0;
    for i in 0..data.xs.len() {
        s += autodiff::dot(w, &data.xs[i]);
    }
    s
}

fn main() {}

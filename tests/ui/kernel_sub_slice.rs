// A kernel given a sub-slice: refused at the argument, with what to
// write, never taken for a function of the user's named `dot`.
use autodiff::{dot, grad};

#[grad(wrt(w))]
fn score(w: &[f64], xs: &[f64]) -> f64 {
    let d = w.len();
    let mut s = 0.0;
    for i in 0..xs.len() / d {
        s += dot(w, &xs[i * d..(i + 1) * d]).tanh();
    }
    s
}

fn main() {}

// A kernel given an array it cannot see as one (a temporary made by a
// method, a sub-slice of a sub-slice): refused at the argument, with what
// to write, never taken for a function of the user's named `dot`.
// Sub-slices of arrays (`&xs[a..b]`) are fine.
use autodiff::{dot, grad};

#[grad(wrt(w))]
fn score(w: &[f64], xs: &[f64]) -> f64 {
    let d = w.len();
    let mut s = dot(w, &xs[..d]);
    for i in 0..xs.len() / d {
        s += dot(w, &xs[i * d..][..d]).tanh();
    }
    s
}

fn main() {}

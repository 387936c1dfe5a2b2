// A bare `swap(&mut a, &mut b)` was taken for `std::mem::swap` on arrays
// whatever it was: a function of the user's named `swap` that adds one
// array into the other was differentiated as an exchange, the value and
// the gradient silently wrong (trial 11). And `use std::mem::swap;` then
// a bare `swap` of two floats failed inside the expansion (trial 11 B1).
// The macro cannot tell the two apart: a bare `swap`, `replace` or
// `take` lending a variable is refused, with the paths to write
// (`tests/regressions.rs` has both written out).
use autodiff::grad;

fn swap(a: &mut Vec<f64>, b: &mut Vec<f64>) {
    for i in 0..a.len() {
        a[i] += 2.0 * b[i];
    }
}

#[grad]
fn own_swap(x: &[f64]) -> f64 {
    let mut u = x.to_vec();
    let mut w = vec![x[0] * 3.0, x[1]];
    swap(&mut u, &mut w);
    u[0] * u[1] + w[0]
}

mod imported {
    use autodiff::grad;
    use std::mem::{swap, take};

    #[grad]
    fn exchanged(a: f64, b: f64) -> f64 {
        let (mut x, mut y) = (a, b * 2.0);
        swap(&mut x, &mut y);
        let mut v = vec![x, y];
        take(&mut v);
        x * y
    }
}

fn main() {}

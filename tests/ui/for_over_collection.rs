// A `for` loop over an iterator #[grad] does not model (here a slice
// iterator stepped by two) that changes an active variable is refused.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let weights = [1.0, 2.0, 3.0];
    let mut s = 0.0;
    for w in weights.iter().step_by(2) {
        s += w * x;
    }
    s
}

fn main() {}

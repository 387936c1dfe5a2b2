// A `for` loop over a collection that changes an active variable is
// refused (for now): only integer ranges are differentiated.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let weights = [1.0, 2.0, 3.0];
    let mut s = 0.0;
    for w in weights.iter() {
        s += w * x;
    }
    s
}

fn main() {}

// A `Vec` parameter given a `push`: its gradient has the length the
// caller gave it, so the push is refused, saying to copy it first.
use autodiff::grad;

#[grad]
fn f(mut v: Vec<f64>, k: f64) -> f64 {
    v.push(k);
    v[0] * v[1]
}

fn main() {}

// A `Vec` of active values built with `push` inside a loop is not modelled
// (yet): its adjoint has no length to start from in the reverse sweep.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        let mut h: Vec<f64> = Vec::new();
        h.push(x * i as f64);
        s += h[0];
    }
    s
}

fn main() {}

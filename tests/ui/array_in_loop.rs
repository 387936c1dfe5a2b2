// An array of active values declared inside a loop is not modelled (yet):
// declare it before the loop.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        let mut h = vec![0.0; 2];
        h[0] = x * i as f64;
        s += h[0];
    }
    s
}

fn main() {}

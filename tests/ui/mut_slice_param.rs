// A `&mut` array parameter is differentiated in an array writer only (a
// function that returns nothing, changes that one array and runs to its
// end): one that also returns a value, or leaves by `return`, is refused.
use autodiff::grad;

#[grad]
fn f(x: &mut [f64]) -> f64 {
    x[0] * 2.0
}

#[grad]
fn g(x: &mut [f64], k: f64) {
    if k == 1.0 {
        return;
    }
    x[0] *= k;
}

fn main() {}

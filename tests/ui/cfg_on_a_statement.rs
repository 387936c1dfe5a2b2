// A block under `#[cfg]` that is not compiled ran in `_grad` (trial 5
// r109: a wrong value and gradient): refused, with `cfg!` that works.
use autodiff::grad;

#[grad]
fn f(x: f64, y: f64) -> f64 {
    let mut s = x * y;
    s += 1.0;
    #[cfg(not(debug_assertions))]
    {
        s += x * x;
    }
    #[cfg(any())]
    for _ in 0..2 {
        s *= y;
    }
    s
}

fn main() {}

// A custom pullback is for functions that return one float.
use autodiff::grad;

fn rule(x: f64, _value: (f64, f64), seed: f64) -> f64 {
    x * seed
}

#[grad(pullback = rule)]
fn f(x: f64) -> (f64, f64) {
    (x, x * x)
}

fn main() {}

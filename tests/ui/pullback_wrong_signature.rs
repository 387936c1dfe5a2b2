// A rule whose signature does not fit (it misses the seed) is a type error
// at the attribute.
use autodiff::grad;

fn rule(x: f64, _value: f64) -> f64 {
    x
}

#[grad(pullback = rule)]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}

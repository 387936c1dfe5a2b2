// `pullback` given twice is refused.
use autodiff::grad;

fn rule(x: f64, _value: f64, seed: f64) -> f64 {
    x * seed
}

#[grad(pullback = rule, pullback = rule)]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}

// `#[grad(trace)]` traces straight-line code: a loop, an array parameter
// and `trace` beside a custom `pullback` are refused, each at its place.
use autodiff::grad;

#[grad(trace)]
fn sum_of_squares(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for &x in xs {
        s += x * x;
    }
    s
}

fn rule(x: f64, _y: f64, dy: f64) -> f64 {
    dy * x
}

#[grad(trace, pullback = rule)]
fn half_square(x: f64) -> f64 {
    0.5 * x * x
}

fn main() {}

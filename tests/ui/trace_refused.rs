// `#[grad(trace)]` shows a function's own Wengert list: a kernel (whose
// pullback works on whole arrays), a vector output and `trace` beside a
// custom `pullback` are refused, each at its place.
use autodiff::{dot, grad};

#[grad(trace)]
fn score(w: &[f64], x: &[f64]) -> f64 {
    dot(w, x).tanh()
}

#[grad(trace)]
fn polar(r: f64, theta: f64) -> (f64, f64) {
    (r * theta.cos(), r * theta.sin())
}

fn rule(x: f64, _y: f64, dy: f64) -> f64 {
    dy * x
}

#[grad(trace, pullback = rule)]
fn half_square(x: f64) -> f64 {
    0.5 * x * x
}

fn main() {}

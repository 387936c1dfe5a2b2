// What `_jvp` does not take is refused at the construct, with what to
// do: a function with a custom pullback.
use autodiff::grad;

fn square_pullback(x: f64, _y: f64, dy: f64) -> f64 {
    2.0 * x * dy
}

#[grad(jvp, pullback = square_pullback)]
fn square(x: f64) -> f64 {
    x * x
}

fn main() {}

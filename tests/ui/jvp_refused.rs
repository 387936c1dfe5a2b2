// What `_jvp` does not take yet is refused at the construct, with what to
// do: a call whose result is an array, and a function with a custom
// pullback.
use autodiff::grad;

#[grad]
fn sub(a: &[f64; 2], b: &[f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

#[grad(jvp)]
fn gap(x: [f64; 2], y: [f64; 2]) -> f64 {
    let d = sub(&x, &y);
    d[0] * d[1]
}

fn square_pullback(x: f64, _y: f64, dy: f64) -> f64 {
    2.0 * x * dy
}

#[grad(jvp, pullback = square_pullback)]
fn square(x: f64) -> f64 {
    x * x
}

fn main() {}

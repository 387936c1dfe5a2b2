// An array literal of a call's struct's fields, passed to a #[grad]
// function: its element type is not stated; the message says to bind it
// with its type (which works).
use autodiff::grad;

#[derive(Clone, Copy, autodiff::Differentiable)]
struct V2 {
    x: f64,
    y: f64,
}

#[grad]
fn make(a: f64, b: f64) -> V2 {
    V2 { x: a * b, y: a + b }
}

#[grad]
fn n2(v: [f64; 2]) -> f64 {
    (v[0] * v[0] + v[1] * v[1]).sqrt()
}

#[grad]
fn f(a: f64, b: f64) -> f64 {
    let p = make(a, b);
    n2([p.x, p.y])
}

fn main() {
    println!("{:?}", f_grad(0.7, 1.3));
}

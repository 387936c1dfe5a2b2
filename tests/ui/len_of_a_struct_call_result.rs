// A struct's own `len` on another `#[grad]` call's result whose type the
// source does not state: read as a vector's length, which the bound
// checks, never the struct's `len` called without its derivative.
use autodiff::{grad, Differentiable};

#[derive(Differentiable, Clone, Copy)]
struct V2 {
    x: f64,
    y: f64,
}

impl V2 {
    #[grad(wrt(self))]
    fn len(&self) -> f64 {
        self.x.hypot(self.y)
    }
}

#[grad]
fn make(a: f64, b: f64) -> V2 {
    V2 { x: a * b, y: a - b }
}

#[grad]
fn f(a: f64, b: f64) -> f64 {
    let p = make(a, b);
    p.len() + a
}

fn main() {}

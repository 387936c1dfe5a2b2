// A float's method on a call that returns a struct (`made(a, b).abs()`,
// the struct having an `abs` of its own): read as the float's, a compile
// error at the call that says to bind the value with its type, never a
// missing generated name.
use autodiff::{grad, Differentiable};

#[derive(Clone, Copy, Differentiable)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

impl V2 {
    #[grad(wrt(self))]
    pub fn abs(&self) -> f64 {
        self.x.abs() + self.y.abs()
    }
}

#[grad]
fn made(a: f64, b: f64) -> V2 {
    V2 { x: a * b, y: a - b }
}

#[grad]
fn f(a: f64, b: f64) -> f64 {
    made(a, b).abs() + a
}

fn main() {}

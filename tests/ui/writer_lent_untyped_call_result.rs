// A call's result lent by `&mut` to a writer needs its type written: a
// float, an array and a struct are lent alike.
use autodiff::{grad, Differentiable};

#[derive(Clone, Differentiable)]
pub struct Body {
    pub x: f64,
    pub v: f64,
}

#[grad]
fn launched(x: f64) -> Body {
    Body { x, v: 1.0 }
}

#[grad]
fn kick(b: &mut Body, f: f64) {
    b.v += f;
}

#[grad]
fn flight(x: f64) -> f64 {
    let mut b = launched(x);
    kick(&mut b, 0.5);
    b.x * b.v
}

fn main() {}

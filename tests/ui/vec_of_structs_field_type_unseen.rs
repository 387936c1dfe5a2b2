// A `Vec` of structs every element of which gives a field a call's
// result: #[grad] keeps one `Vec` per field and cannot see that this
// one holds floats; the message says to bind the value with its type.
use autodiff::{grad, Differentiable};

#[derive(Clone, Differentiable)]
pub struct P {
    pub x: f64,
    pub v: f64,
}

impl P {
    #[grad(wrt(self))]
    fn energy(&self) -> f64 {
        self.x * self.v
    }
}

#[grad(wrt(p))]
fn f(p: &P) -> f64 {
    let ps = vec![P { x: p.energy(), v: 1.0 }];
    ps[0].x * ps[0].v
}

fn main() {}

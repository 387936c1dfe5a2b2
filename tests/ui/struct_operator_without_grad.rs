// An operator of a struct whose `impl` has no `#[grad]`: the error is at
// the operator, and says to put `#[grad]` on its method.
use autodiff::{grad, Differentiable};
use std::ops::Sub;

#[derive(Differentiable, Clone, Copy)]
struct V2 {
    x: f64,
    y: f64,
}

impl Sub for V2 {
    type Output = V2;
    fn sub(self, o: V2) -> V2 {
        V2 { x: self.x - o.x, y: self.y - o.y }
    }
}

#[grad(wrt(a, b))]
fn gap(a: V2, b: V2) -> f64 {
    let d = a - b;
    d.x * d.x + d.y * d.y
}

fn main() {}

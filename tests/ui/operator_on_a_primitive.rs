// `#[grad] impl Mul<V2> for f64` (the `k * v` form, trial 11 r972): the
// generated functions go in an inherent `impl` of the type, which `f64`
// cannot have. Refused at the type, with what to write instead.
use autodiff::{grad, Differentiable};
use std::ops::Mul;

#[derive(Clone, Copy, Differentiable)]
struct V2 {
    x: f64,
    y: f64,
}

#[grad]
impl Mul<V2> for f64 {
    type Output = V2;
    #[grad(wrt(self, o))]
    fn mul(self, o: V2) -> V2 {
        V2 {
            x: self * o.x,
            y: self * o.y,
        }
    }
}

fn main() {}

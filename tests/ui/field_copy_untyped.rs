// A copy of a struct's array field changed by element, in a function
// that does not return it: the `let` does not say it is an array, and the
// message says to write its type (which then works: tests/struct_fields.rs).
use autodiff::{grad, Differentiable};

#[derive(Differentiable, Clone, Debug)]
pub struct Arm {
    l: f64,
    base: [f64; 2],
}

impl Arm {
    #[grad(wrt(self, x))]
    fn reach(&self, x: f64) -> f64 {
        let mut p = self.base;
        p[0] += self.l * x.cos();
        p[0] * p[1]
    }
}

fn main() {}

// A struct writer assigning an array field a list whose elements' float
// type #[grad] cannot tell: refused at the list, with the binding to
// write (which tests/struct_writers.rs checks works), never with the
// macro's own name for the list.
use autodiff::{grad, Differentiable};

#[derive(Clone, Differentiable)]
pub struct Transform {
    pub c: [f64; 2],
}

impl Transform {
    #[grad]
    pub fn update(&mut self) {
        let c = self.c;
        self.c = [c[0] * c[1], c[1]];
    }
}

fn main() {}

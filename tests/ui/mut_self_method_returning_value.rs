// A method that changes `self` and returns a value is no struct writer:
// refused where `self` is changed, with the split to write.
use autodiff::{grad, Differentiable};

#[derive(Clone, Differentiable)]
pub struct Body {
    pub v: f64,
}

impl Body {
    #[grad]
    pub fn damp(&mut self, c: f64) -> f64 {
        self.v *= 1.0 - c;
        self.v
    }
}

fn main() {}

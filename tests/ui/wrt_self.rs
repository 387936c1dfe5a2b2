// `wrt(self)` takes the gradient with respect to `&self`; `&mut self` is
// refused (the gradient of a value the function changes is not defined).
use autodiff::{grad, Differentiable};

#[derive(Differentiable)]
pub struct Scaler {
    pub factor: f64,
}

impl Scaler {
    #[grad(wrt(self, x))]
    pub fn apply(&mut self, x: f64) -> f64 {
        self.factor * x
    }
}

fn main() {}

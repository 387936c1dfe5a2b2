// The gradient with respect to `self` (a value of the struct's shape) is
// refused (for now), with what to do instead.
use autodiff::grad;

pub struct Scale {
    pub factor: f64,
}

impl Scale {
    #[grad(wrt(self, x))]
    pub fn apply(&self, x: f64) -> f64 {
        self.factor * x
    }
}

fn main() {}

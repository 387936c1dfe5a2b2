// #[grad] on a method with a `self` receiver is refused.
use autodiff::grad;

pub struct Scale {
    pub k: f64,
}

impl Scale {
    #[grad]
    pub fn apply(&self, x: f64) -> f64 {
        self.k * x
    }
}

fn main() {}

// `#[grad]` on an `impl` block is for a trait's implementation, takes no
// options, and differentiates the methods marked `#[grad]` in it.
use autodiff::grad;

pub trait Shape {
    fn area(&self) -> f64;
}

#[derive(Clone, autodiff::Differentiable)]
pub struct Square {
    pub side: f64,
}

#[grad]
impl Square {
    #[grad(wrt(self))]
    fn perimeter(&self) -> f64 {
        4.0 * self.side
    }
}

#[grad(jvp)]
impl Shape for Square {
    fn area(&self) -> f64 {
        self.side * self.side
    }
}

fn main() {}

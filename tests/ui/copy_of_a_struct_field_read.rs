// A copy of a differentiated struct's struct field read through its fields
// (`let p = self.pos.clone(); p.x`): it failed inside the expansion, the
// copy taken for a `Vec` of floats; refused at the read, with the borrow
// that works (`let p = &self.pos;`).
use autodiff::{grad, Differentiable};

#[derive(Differentiable, Clone, Debug)]
struct P {
    x: f64,
    y: f64,
}

#[derive(Differentiable, Clone, Debug)]
struct World {
    pos: P,
}

impl World {
    #[grad(wrt(self))]
    fn e(&self) -> f64 {
        let p = self.pos.clone();
        p.x * p.y
    }
}

fn main() {}

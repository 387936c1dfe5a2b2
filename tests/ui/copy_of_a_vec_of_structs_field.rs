// A copy of a differentiated struct's `Vec` of structs, changed through its
// elements and assigned back (trial 4 r67: it failed inside the expansion,
// the copy taken for a `Vec` of floats): refused at the copy, with the
// state one float `Vec` per field to write instead.
use autodiff::{grad, Differentiable};

#[derive(Differentiable, Clone, Debug)]
struct Body {
    x: f64,
}

impl Body {
    #[grad]
    fn kick(&mut self, a: f64) {
        self.x += a;
    }
}

#[derive(Differentiable, Clone, Debug)]
struct World {
    bodies: Vec<Body>,
    g: f64,
}

impl World {
    #[grad]
    fn step(&mut self) {
        let mut bs = self.bodies.clone();
        for i in 0..bs.len() {
            bs[i].kick(self.g);
        }
        self.bodies = bs;
    }
}

fn main() {}

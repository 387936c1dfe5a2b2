// A struct writer is differentiated with respect to the struct it
// changes: a `wrt` that leaves it out is refused, with the `wrt` to write.
use autodiff::{grad, Differentiable};

#[derive(Clone, Differentiable)]
pub struct Body {
    pub x: f64,
}

impl Body {
    #[grad(wrt(dt))]
    pub fn step(&mut self, dt: f64) {
        self.x += self.x * dt;
    }
}

#[grad(wrt(f))]
pub fn kick(b: &mut Body, f: f64) {
    b.x += f;
}

fn main() {}

// A struct writer replacing itself by a method's result, `*self =
// self.stepped(dt);`, where the method's `wrt(self)` leaves `dt` constant:
// the derivative through `dt` would be lost, a compile error at the call
// (it was spanned at the writer's `#[grad]`).
use autodiff::{grad, Differentiable};

#[derive(Differentiable, Clone, Debug)]
struct B {
    x: f64,
    v: f64,
}

impl B {
    #[grad(wrt(self))]
    fn stepped(&self, dt: f64) -> B {
        B {
            x: self.x + self.v * dt,
            v: self.v,
        }
    }

    #[grad]
    fn advance(&mut self, dt: f64) {
        *self = self.stepped(dt);
    }
}

fn main() {}

// A `let mut` local struct given to a method in the right operand of `||`:
// the method may change the struct, and may not run, so its changes could
// not be written back to the fields' variables. Refused at its `let` (a
// struct that is not `mut`, or one passed to a function there, is built
// again in place and differentiated).
#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Walker {
    pub x: f64,
    pub v: f64,
}

impl Walker {
    #[autodiff::grad]
    pub fn energy(&self, k: f64) -> f64 {
        0.5 * self.v * self.v + k * self.x
    }
}

#[autodiff::grad]
fn f(a: f64, b: f64) -> f64 {
    let mut w = Walker { x: a, v: b };
    w.x += 1.0;
    let mut s = 0.0;
    if a > 1.0 || w.energy(b) > 0.5 {
        s += b;
    }
    s + w.x
}

fn main() {}

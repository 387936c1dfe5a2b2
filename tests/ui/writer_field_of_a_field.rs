// A writer that changes a field of a field in place (trial 12 r1030) is
// refused with a spelling that works: the field assigned a struct built
// whole.
use autodiff::grad;

#[derive(Clone, Copy, Debug, autodiff::Differentiable)]
struct Osc {
    x: f64,
    v: f64,
}

#[derive(Clone, Copy, Debug, autodiff::Differentiable)]
struct Rig {
    osc: Osc,
    gain: f64,
}

impl Rig {
    #[grad(wrt(self))]
    fn damp(&mut self) {
        self.osc.v *= self.gain;
    }
}

fn main() {}

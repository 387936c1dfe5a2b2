// Under `#[grad(jvp)]`, a method returning an array called on its
// receiver goes through its `_jvp` (refused before), and so does a struct
// writer's call: one without `jvp` is an error at the call that says to
// write it.
#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Lens {
    pub f: f64,
}

impl Lens {
    #[autodiff::grad(wrt(self, x), jvp)]
    pub fn image(&self, x: f64) -> [f64; 2] {
        [self.f * x, x]
    }

    #[autodiff::grad]
    pub fn focus(&mut self, k: f64) {
        self.f *= k;
    }
}

#[autodiff::grad(wrt(l, x), jvp)]
pub fn on_receiver(l: &Lens, x: f64) -> f64 {
    let i = l.image(x);
    i[0] + i[1]
}

#[autodiff::grad(wrt(l, x), jvp)]
pub fn writer_call(l: &Lens, x: f64) -> f64 {
    let mut m = l.clone();
    m.focus(x);
    m.f
}

fn main() {}

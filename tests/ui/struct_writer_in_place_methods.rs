// A struct writer's field changed by a method of `std`'s that changes it
// in place, and `self` reborrowed by `&mut`: refused once each, saying
// `self` as written (the lowering names it otherwise).
use autodiff::{grad, Differentiable};

#[derive(Clone, Differentiable)]
pub struct Body {
    pub x: f64,
    pub w: Vec<f64>,
}

impl Body {
    #[grad]
    pub fn scale(&mut self, k: f64) {
        for e in self.w.iter_mut() {
            *e *= k;
        }
    }

    #[grad]
    pub fn sorted(&mut self, k: f64) {
        self.x *= k;
        self.w.sort_by(|a, b| a.total_cmp(b));
    }

    #[grad]
    pub fn nudge(&mut self, k: f64) {
        let p = &mut *self;
        p.x += k;
    }
}

fn main() {}

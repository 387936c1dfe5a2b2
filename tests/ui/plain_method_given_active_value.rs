// A method without #[grad] on a local struct built from constants, given a
// value that carries a derivative: it may keep it in the struct. It is
// called as a struct writer, which needs `#[grad]` on it and the struct
// `Clone` and `Differentiable`: compile errors that say so. It once ran as
// written and the derivative was dropped (a gradient of 0).
use autodiff::grad;

struct Acc {
    total: f64,
}

impl Acc {
    fn add(&mut self, v: f64) {
        self.total += v;
    }
}

#[grad]
fn f(a: f64) -> f64 {
    let mut acc = Acc { total: 0.0 };
    acc.add(a * a);
    acc.total
}

fn main() {}

// A method without #[grad] called with a value that depends on the active
// inputs: an error at the call that names it and says to put #[grad] on it.
use autodiff::grad;

struct Scale {
    k: f64,
}

impl Scale {
    fn apply(&self, v: f64) -> f64 {
        self.k * v
    }
}

#[grad]
fn f(a: f64) -> f64 {
    let s = Scale { k: 2.0 };
    s.apply(a * a)
}

fn main() {}

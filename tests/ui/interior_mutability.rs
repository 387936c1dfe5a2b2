// A struct parameter taken by shared reference may still change inside
// (a `Cell`): a method called on it in code kept as written may store an
// active value that a later read brings back. #[grad] cannot follow it,
// and refuses it rather than drop the derivative.
use std::cell::Cell;

struct Cache {
    last: Cell<f64>,
}

impl Cache {
    fn store(&self, v: f64) {
        self.last.set(v);
    }
    fn read(&self) -> f64 {
        self.last.get()
    }
}

#[autodiff::grad]
fn f(x: f64, cache: &Cache) -> f64 {
    for _ in 0..2 {
        cache.store(x * 2.0);
    }
    cache.read() * x
}

fn main() {}

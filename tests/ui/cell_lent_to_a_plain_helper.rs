// A value kept in a `Cell` by a plain helper given the cell by `&` (trial
// 5 r78a: the derivative through it was 0; r78c, the cell in a local
// struct's field: E0382 inside the expansion). Refused at the call.
use autodiff::grad;
use std::cell::Cell;

fn store(c: &Cell<f64>, v: f64) {
    c.set(v);
}

#[grad]
fn stored(a: f64, b: f64) -> f64 {
    let c = Cell::new(1.0);
    store(&c, a * b);
    c.get() + b
}

struct Memo {
    last: Cell<f64>,
}

fn remember(m: &Memo, v: f64) {
    m.last.set(v);
}

#[grad]
fn remembered(x: f64) -> f64 {
    let m = Memo {
        last: Cell::new(0.0),
    };
    remember(&m, x * x);
    m.last.get() + x
}

fn main() {}

// A value that carries a derivative kept in a local `Cell` (directly, in a
// closure's body, or in a local struct's field) and read back: #[grad]
// cannot follow it, and says so (it gave a zero derivative through the
// cell before). A `Cell` of constants is fine (tests/regressions.rs).
use autodiff::grad;
use std::cell::Cell;

#[grad]
fn direct(a: f64, b: f64) -> f64 {
    let c = Cell::new(0.0);
    c.set(a * b);
    c.get() + b
}

#[grad]
fn through_a_closure(k: f64, x: f64) -> f64 {
    let energy = Cell::new(0.0);
    let add = |e: f64| energy.set(energy.get() + e);
    for i in 1..4 {
        let d = x * i as f64;
        add(0.5 * k * d * d);
    }
    energy.get()
}

struct Memo {
    v: Cell<f64>,
}

#[grad]
fn in_a_field(x: f64) -> f64 {
    let m = Memo { v: Cell::new(0.0) };
    m.v.set(3.0 * x);
    m.v.get() * x
}

fn main() {}

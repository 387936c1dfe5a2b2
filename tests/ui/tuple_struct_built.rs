// A tuple struct built from values that carry a derivative, `Pt(a, b)`,
// was taken for a call of a `#[grad]` function `Pt` (trial 4 r59: code
// inside the expansion that did not compile); it is refused at the
// constructor, with what to write. Built from constants it is fine.
use autodiff::grad;

#[derive(Clone, Copy, Debug)]
struct Pt(f64, f64);

#[grad]
fn f(a: f64, b: f64) -> f64 {
    let p = Pt(a, b * a);
    p.0 * p.1
}

#[grad]
fn constant_one(a: f64) -> f64 {
    let p = Pt(1.0, 2.0);
    a * p.0 + p.1
}

fn main() {}

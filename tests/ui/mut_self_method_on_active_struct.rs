// A method without `#[grad]` called on a local struct whose fields carry a
// derivative may change it (`&mut self`): it is called as a struct writer
// (`desugar/struct_writers.rs`), whose `#[grad]` the method lacks, so it
// is a compile error at the call that says to put `#[grad]` on it. (It
// once ran as written and its change was left out of the gradient.)
#[derive(Clone, Copy, Debug, autodiff::Differentiable)]
struct S {
    x: f64,
    v: f64,
}

impl S {
    fn damp(&mut self, c: f64) {
        self.v *= c;
    }
}

#[autodiff::grad]
fn f(x: f64, k: f64) -> f64 {
    let mut s = S { x, v: x * k };
    s.damp(k);
    s.v + s.x
}

fn main() {}

// A method without arguments on a part of a differentiated struct
// (`o.inner.energy()`): kept as written (the part may be a `String`), so
// where it carries a derivative it is refused, saying to call it by path.
use autodiff::{grad, Differentiable};

#[derive(Differentiable, Clone, Debug)]
struct Inner {
    a: f64,
}

impl Inner {
    #[grad(wrt(self))]
    fn energy(&self) -> f64 {
        self.a * self.a
    }
}

#[derive(Differentiable, Clone, Debug)]
struct Outer {
    inner: Inner,
}

#[grad(wrt(o, x))]
fn f(o: &Outer, x: f64) -> f64 {
    o.inner.energy() * x
}

fn main() {}

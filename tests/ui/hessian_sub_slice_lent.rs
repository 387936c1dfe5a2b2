// Under `hessian`, a sub-slice lent to a `#[grad]` callee is refused with
// the spelling that works, a copy (trial 12 r1069: the message asked to
// give a type that was written).
use autodiff::{grad, Float};

#[grad(hessian)]
fn cubes<T: Float>(v: &[T]) -> T {
    let mut s = T::from_f64(0.0);
    for i in 0..v.len() {
        s = s + v[i] * v[i] * v[i];
    }
    s
}

#[grad(hessian)]
fn f<T: Float>(xs: &[T], k: T) -> T {
    let head: T = cubes(&xs[..2]);
    head * k
}

fn main() {}

// A parameter written as a pattern other than a tuple's is refused, with
// what to write; tuple patterns are taken (`tests/written_as_users_write.rs`).
use autodiff::{grad, Differentiable};

#[derive(Clone, Copy, Differentiable)]
struct P {
    x: f64,
    y: f64,
}

#[grad(wrt(x))]
fn f(P { x, y }: P) -> f64 {
    x * y
}

#[grad]
fn g(ref a: f64, k: f64) -> f64 {
    a * k
}

fn main() {}

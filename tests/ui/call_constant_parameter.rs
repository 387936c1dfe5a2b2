// An argument that carries a derivative, passed to a #[grad] function that
// leaves the matching parameter constant, would lose that derivative: a
// compile error at the argument (the callee's slot for the parameter is a
// `Constant`), whether the parameter is a float or a struct.
use autodiff::{grad, Differentiable};

#[grad(wrt(x))]
fn scaled(x: f64, k: f64) -> f64 {
    k * x
}

#[derive(Clone, Differentiable)]
struct Params {
    a: f64,
}

// A bare #[grad] leaves a struct constant.
#[grad]
fn uses(p: &Params, x: f64) -> f64 {
    p.a * x
}

#[grad(wrt(p, x, k))]
fn caller(p: &Params, x: f64, k: f64) -> f64 {
    scaled(x, k) + uses(p, x)
}

fn main() {}

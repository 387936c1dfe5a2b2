// A float field of a differentiated struct, cast (`p.x as f64`) and passed
// to a parameter the callee leaves constant, carries a derivative that
// would be lost: refused at the argument. An integer field cast the same
// way carries none and is taken (tests/struct_fields.rs).
use autodiff::{grad, Differentiable};

#[derive(Clone, Differentiable)]
struct Params {
    x: f64,
    n: usize,
}

#[grad(wrt(y))]
fn offset(y: f64, c: f64) -> f64 {
    y + c
}

#[grad(wrt(p, y))]
fn caller(p: &Params, y: f64) -> f64 {
    offset(y, p.n as f64) + offset(y, (p.x as f64) * 2.0)
}

fn main() {}

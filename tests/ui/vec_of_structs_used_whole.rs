// A `Vec` of structs listed with `vec![..]` is followed through its
// elements; used otherwise (passed whole), it is refused, saying so.
use autodiff::{grad, Differentiable};

#[derive(Clone, Differentiable)]
pub struct Body {
    pub x: f64,
}

fn total(bs: &[Body]) -> f64 {
    bs.iter().map(|b| b.x).sum()
}

#[grad]
fn f(x: f64) -> f64 {
    let mut bs = vec![Body { x }, Body { x: 2.0 * x }];
    bs[0].x *= 2.0;
    total(&bs)
}

fn main() {}

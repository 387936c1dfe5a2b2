// What `#[grad(hessian)]` does not take, each refused at the construct,
// with what to write instead.
use autodiff::{grad, Differentiable, Float};

// Written for `f64`, and reading what a generic twin could not take: a
// constant outside the function, a helper of `f64`s, a cast of a float,
// `.sum()`.
const SCALE: f64 = 2.0;

fn helper(z: f64) -> f64 {
    z * z
}

#[grad(hessian)]
pub fn concrete(x: f64, xs: &[f64]) -> f64 {
    let z = (x as f64) * SCALE;
    helper(z) + xs.iter().map(|v| v * v).sum::<f64>()
}

// A struct among the active parameters.
#[derive(Clone, Copy, Differentiable)]
pub struct P {
    pub a: f64,
}

#[grad(hessian, wrt(p, x))]
pub fn with_struct<T: Float>(p: P, x: T) -> T {
    x * T::from_f64(p.a)
}

// A vector output.
#[grad(hessian)]
pub fn pair<T: Float>(x: T) -> (T, T) {
    (x, x * x)
}

// A custom pullback has no body to differentiate twice.
fn square_pullback(x: f64, _y: f64, dy: f64) -> f64 {
    2.0 * x * dy
}

#[grad(hessian, pullback = square_pullback)]
pub fn square(x: f64) -> f64 {
    x * x
}

// A method.
pub struct M;

impl M {
    #[grad(hessian)]
    pub fn energy<T: Float>(&self, x: T) -> T {
        x * x
    }
}

// A float of a type #[grad] does not see, chained through a callee's
// `_grad`.
#[grad]
pub fn twice<T: Float>(p: [T; 2]) -> [T; 2] {
    [p[0] * 2.0, p[1] * 2.0]
}

#[grad]
pub fn sq<T: Float>(s: T) -> T {
    s * s
}

#[grad(hessian)]
pub fn chained<T: Float>(p: [T; 2]) -> T {
    let r = twice(p);
    let s = sq(r[0] * r[1]);
    s
}

fn main() {}

// `f64::from` of a value that may be a float, in a function written for
// `f64` under `hessian`: refused at the call with what to write, not as
// "a function of yours" (trial 12 r1015).
use autodiff::grad;

#[grad(hessian)]
fn f(x: f64, n: usize) -> f64 {
    x * f64::from(x * 2.0) + f64::from(n as u32)
}

fn main() {}

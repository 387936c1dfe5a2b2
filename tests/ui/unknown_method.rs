// A float method without a derivative rule is refused, by its name, also
// on an operator's result with a `const` among the operands (trial 4 r62:
// `(a - b + PI).rem_euclid(..)`, which has a rule now, was refused as "no
// rule for `add`").
use autodiff::grad;
use std::f64::consts::PI;

#[grad]
fn f(x: f64) -> f64 {
    x.copysign(-1.0) * 2.0
}

#[grad]
fn wrapped(a: f64, b: f64) -> f64 {
    let d = (a - b + PI).copysign(2.0 * PI) - PI;
    d * d
}

fn main() {}

// A `Vec` a `#[grad]` call returned is read as the call gave it: a `push`
// or another method of `Vec`'s that changes it is refused, with the copy
// to change instead.
use autodiff::grad;

#[grad]
fn twice(x: f64) -> Vec<f64> {
    vec![x, 2.0 * x]
}

#[grad]
fn pushed(x: f64) -> f64 {
    let mut v: Vec<f64> = twice(x);
    v.push(x);
    v[0] * v[2]
}

#[grad]
fn reversed(x: f64) -> f64 {
    let mut v = twice(x);
    v.reverse();
    v[0] * v[1]
}

fn main() {}

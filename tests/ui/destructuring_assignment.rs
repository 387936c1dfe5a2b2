// A destructuring assignment is followed into variables, from a tuple
// written out; an element of an array among its places, or a right-hand
// side that is not a tuple written out, is refused.
use autodiff::grad;

fn pair(x: f64) -> (f64, f64) {
    (x, 2.0 * x)
}

#[grad]
fn into_an_element(x: f64) -> f64 {
    let mut v = [0.0; 2];
    let mut a = x;
    (v[0], a) = (a, x * x);
    v[0] + a
}

#[grad]
fn from_a_call(x: f64) -> f64 {
    let mut a = x;
    let mut b = x;
    (a, b) = pair(a * b);
    a + b
}

fn main() {}

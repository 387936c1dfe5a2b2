// A destructuring assignment is followed into any places, from any value
// (`(v[0], a) = (a, x * x);`, `(a, b) = pair(a * b);`, tests/loop_shapes.rs):
// its value bound first by a `let` of the left's shape. `..` among its
// parts is refused, with what to write instead.
use autodiff::grad;

#[grad]
fn three(x: f64, y: f64) -> (f64, f64, f64) {
    (x * y, x.sin(), y * y)
}

#[grad]
fn with_a_rest(x: f64) -> f64 {
    let mut a = x;
    (a, ..) = three(a, x);
    a * x
}

fn main() {}

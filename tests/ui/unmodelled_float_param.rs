// A parameter holding floats in a shape #[grad] does not model yet is an
// error where it would be active, not a silent constant; named out of
// `wrt`, it is a constant.
use autodiff::grad;

#[grad]
fn f(points: &[[f64; 3]], pairs: Vec<(f64, f64)>) -> f64 {
    points[0][0] * pairs[0].1
}

#[grad(wrt(w))]
fn g(points: &[[f64; 3]], w: f64) -> f64 {
    points[0][0] * w
}

fn main() {}

// A nalgebra value passed to another function: #[grad] computes with its
// entries, and does not pass them on as the value yet.
use autodiff::grad;
use nalgebra::Vector3;

fn helper(v: Vector3<f64>) -> f64 {
    v.x
}

#[grad]
fn f(v: Vector3<f64>) -> f64 {
    helper(v) + v.norm()
}

fn main() {}

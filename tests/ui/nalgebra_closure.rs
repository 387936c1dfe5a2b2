// A nalgebra value passed to a closure: #[grad] computes with the value's
// entries and does not pass them to a closure yet; a #[grad] function
// takes them (`dist`).
use autodiff::grad;
use nalgebra::Vector3;

#[grad]
fn dist(a: &Vector3<f64>, b: &Vector3<f64>) -> f64 {
    (a - b).norm()
}

#[grad]
fn perimeter(a: Vector3<f64>, b: Vector3<f64>) -> f64 {
    dist(&a, &b) + dist(&b, &Vector3::new(1.0, 0.0, 0.0))
}

#[grad]
fn with_closure(a: Vector3<f64>, b: Vector3<f64>) -> f64 {
    let len = |u: Vector3<f64>| u.norm();
    len(a) + len(a - b)
}

fn main() {}

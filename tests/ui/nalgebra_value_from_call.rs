// A nalgebra value from a call of a #[grad] function is followed where its
// type is written (`typed`); where it is not, #[grad] cannot tell it from
// a float, and says to write it.
use autodiff::grad;
use nalgebra::Vector2;

#[grad]
fn elbow(q: f64) -> Vector2<f64> {
    Vector2::new(q.cos(), q.sin())
}

#[grad]
fn typed(q: f64, target: Vector2<f64>) -> f64 {
    let e: Vector2<f64> = elbow(q);
    (e - target).norm()
}

#[grad]
fn untyped(q: f64, target: Vector2<f64>) -> f64 {
    let e = elbow(q);
    (e - target).norm()
}

fn main() {}

// A nalgebra value from a call: its entries are not followed through the
// call yet; and one whose type is not written cannot be told from a float.
use autodiff::grad;
use nalgebra::Vector2;

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

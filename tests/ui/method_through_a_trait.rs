// A `#[grad]` method called through a trait, on a type parameter or a
// `dyn` object: its slots are the concrete type's own, which the call
// cannot name. The error is at the method and says what works instead.
use autodiff::grad;

trait Sdf {
    fn dist(&self, x: f64, y: f64) -> f64;
}

struct Circle {
    r: f64,
}

#[grad]
impl Sdf for Circle {
    #[grad]
    fn dist(&self, x: f64, y: f64) -> f64 {
        (x * x + y * y).sqrt() - self.r
    }
}

#[grad]
fn generic_scene<S: Sdf>(s: &S, x: f64, y: f64) -> f64 {
    s.dist(x, y).powi(2)
}

#[grad]
fn dyn_scene(shapes: &[Box<dyn Sdf>], x: f64, y: f64) -> f64 {
    let mut best = f64::INFINITY;
    for s in shapes {
        best = best.min(s.dist(x, y));
    }
    best
}

fn main() {}

// A nalgebra value taken by `&mut`, and a method with nalgebra values in
// its signature: not supported yet, each refused at the construct.
use autodiff::grad;
use nalgebra::Vector3;

#[grad]
fn nudge(v: &mut Vector3<f64>, s: f64) -> f64 {
    v.x * s
}

struct Body {
    mass: f64,
}

impl Body {
    #[grad]
    fn energy(&self, v: Vector3<f64>) -> f64 {
        0.5 * self.mass * v.norm_squared()
    }
}

fn main() {}

// A struct a #[grad] call returned, its field assigned, where the `let`
// does not state its type: the refusal says to write the type, which makes
// it a struct the function holds (tests/written_as_users_write.rs).
use autodiff::{grad, Differentiable};

#[derive(Clone, Differentiable)]
struct Body {
    x: f64,
    v: f64,
}

impl Body {
    #[grad]
    fn new(x: f64, v: f64) -> Self {
        Self { x, v }
    }
}

#[grad]
fn f(x0: f64, v0: f64) -> f64 {
    let mut b = Body::new(x0, v0);
    b.v -= 0.1 * b.x;
    b.v * b.x
}

fn main() {}

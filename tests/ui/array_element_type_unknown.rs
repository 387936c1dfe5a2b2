// A local array whose items are all fields of a struct parameter: #[grad]
// cannot read their float type, and asks for the `let`'s type.
use autodiff::grad;

#[derive(Clone, autodiff::Differentiable)]
struct P {
    a: f64,
    b: f64,
}

#[grad(wrt(p))]
fn f(p: &P) -> f64 {
    let v = [p.a, p.b];
    v[0] * v[1]
}

fn main() {}

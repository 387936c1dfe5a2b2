// A bare #[grad] helper takes a struct that derives `Differentiable` and
// returns one: it leaves the parameter constant (rustc warns at its type),
// so a caller giving it a struct that carries a derivative is an error at
// the call, not at the caller's attribute.
use autodiff::{grad, Differentiable};

#[derive(Differentiable, Clone, Copy)]
struct State {
    x: f64,
}

#[grad]
fn derivative(s: &State) -> State {
    State { x: s.x * s.x }
}

#[grad]
fn f(x: f64) -> f64 {
    let s = State { x };
    let k = derivative(&s);
    k.x
}

fn main() {}

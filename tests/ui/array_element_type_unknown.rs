// A local array whose items are all calls: #[grad] cannot read their
// float type, and asks for the `let`'s type.
use autodiff::grad;

#[grad]
fn h(x: f64) -> f64 {
    x * x
}

#[grad]
fn f(x: f64) -> f64 {
    let v = [h(x), h(2.0 * x)];
    v[0] + v[1]
}

fn main() {}

// `wrt = x` is not the syntax: the message shows the right one.
use autodiff::grad;

#[grad(wrt = x)]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {}

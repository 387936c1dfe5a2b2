// A closure called by name is differentiated as its body at the call; one
// that escapes (here, passed to a plain function) is refused, at the
// closure.
use autodiff::grad;

fn apply(f: impl Fn(f64) -> f64, v: f64) -> f64 {
    f(v)
}

#[grad]
fn f(x: f64) -> f64 {
    let times_x = |t: f64| t * x;
    apply(times_x, 2.0)
}

fn main() {}

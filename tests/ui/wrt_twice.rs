// `wrt` given twice is refused: the parameters go in one `wrt(...)`.
use autodiff::grad;

#[grad(wrt(x), wrt(y))]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {}

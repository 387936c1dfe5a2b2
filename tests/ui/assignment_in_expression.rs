// An assignment used as an expression is refused.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let mut s = x;
    let () = s *= 2.0;
    s
}

fn main() {}

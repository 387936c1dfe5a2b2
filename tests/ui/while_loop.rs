// A loop that changes an active variable is refused (for now).
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let mut s = x;
    while s < 10.0 {
        s *= 2.0;
    }
    s
}

fn main() {}

// `break` and `continue` in a loop that changes an active variable are
// refused (for now).
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let mut s = x;
    for _ in 0..10 {
        if s > 100.0 {
            break;
        }
        s *= 2.0;
    }
    s
}

fn main() {}

// A loop that changes an active variable is refused (for now).
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += x * i as f64;
    }
    s
}

fn main() {}

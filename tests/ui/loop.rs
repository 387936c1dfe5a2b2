// A `loop` is refused (for now).
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let mut s = x;
    loop {
        s *= 2.0;
        if s > 10.0 {
            break;
        }
    }
    s
}

fn main() {}

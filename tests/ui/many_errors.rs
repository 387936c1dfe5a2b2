// Every error of one function is reported together, not only the first.
use autodiff::grad;

#[grad(mode = "fast")]
fn f(x: f64, p: *const f64) -> f64 {
    let _ = p;
    let square = |t: f64| t * t;
    let y = if x > 0.0 { x } else { -x };
    let mut s = square(y);
    while s > 10.0 {
        s /= 2.0;
    }
    let t = {
        if s > 100.0 {
            return s;
        }
        s * 1.5
    };
    t
}

fn main() {}

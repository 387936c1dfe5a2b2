// A labelled `break` out of nested loops that change an active variable is
// refused (for now).
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let mut s = x;
    'outer: for _ in 0..10 {
        for _ in 0..10 {
            s *= 1.1;
            if s > 100.0 {
                break 'outer;
            }
        }
    }
    s
}

fn main() {}

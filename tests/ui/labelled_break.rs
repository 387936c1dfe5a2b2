// A labelled jump is rewritten into flags where it is a statement at the
// end of a branch; a `break 'outer` with a value, or inside an expression,
// is refused.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let mut s = x;
    'outer: for _ in 0..10 {
        for _ in 0..10 {
            s *= 1.1;
            let done = if s > 100.0 { break 'outer } else { false };
            if done {
                s += 1.0;
            }
        }
    }
    s
}

fn main() {}

// A `break` that ends an arm of a `match` written as a statement is
// rewritten into the loop's flag, the statements after the `match` going
// into the other arms (so is one in a `match` whose value is assigned or
// bound: tests/loop_shapes.rs). Refused: an arm whose pattern binds a
// name that the statements after the `match` read (`x` would be the
// arm's, not the parameter).
use autodiff::grad;

#[grad]
fn hidden(x: f64, opts: &[Option<f64>]) -> f64 {
    let mut s = x;
    for o in opts {
        match *o {
            Some(x) => s += x,
            None => break,
        }
        s *= x;
    }
    s
}

fn main() {}

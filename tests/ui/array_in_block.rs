// A float array #[grad] does not model where it is declared: in a bare
// block. One error at its `let`, which says what to write, and none for
// its uses.
use autodiff::grad;

#[grad]
fn in_a_block(xs: &[f64], x0: f64) -> f64 {
    let s = {
        let mut v: [f64; 3] = [x0, x0 * x0, 1.0];
        v[1] = v[2] * xs[0];
        v[1] + v[0]
    };
    s * 2.0
}

fn main() {}

// A float array #[grad] does not model where it is declared: built by
// `push` inside a branch, or declared in a bare block. One error at its
// `let`, which says what to write, and none for its uses.
use autodiff::grad;

#[grad]
fn pushed_in_a_branch(xs: &[f64], x0: f64) -> f64 {
    let mut s = 0.5;
    if x0 > 0.0 {
        let mut v: Vec<f64> = Vec::with_capacity(xs.len());
        for &x in xs {
            v.push(x * x0);
        }
        s += v[0];
    }
    s
}

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

// A `Vec` of rows passed whole to a function: kept whole (the split into
// one `Vec` per position cannot follow it), and the refusal speaks of
// rows and says how to pass them.
use autodiff::grad;

#[grad]
fn potential(ps: &[[f64; 2]]) -> f64 {
    ps[0][0] * ps[1][1]
}

#[grad]
fn f(x: f64, s: f64) -> f64 {
    let ps: Vec<[f64; 2]> = vec![[x, s], [s, x * x]];
    potential(&ps)
}

fn main() {}

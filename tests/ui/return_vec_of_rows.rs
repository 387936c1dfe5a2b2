// A function returning a `Vec` of rows (trial 5 r94b): the message spoke
// of a struct, `Vec<[f64; 2]> { .. }`, which cannot be written; it says
// nested arrays are not returned yet, and the flat layout that is.
use autodiff::grad;

#[grad]
fn scaled(pos: &[[f64; 2]], k: f64) -> Vec<[f64; 2]> {
    let mut out = vec![[0.0; 2]; pos.len()];
    for i in 0..pos.len() {
        out[i][0] = k * pos[i][0];
        out[i][1] = k * pos[i][1];
    }
    out
}

fn main() {}

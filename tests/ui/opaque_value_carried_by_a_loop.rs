// A value #[grad] keeps as written (a nested local array) replaced in a
// loop from values that carry a derivative, and read in the next
// iteration: refused. Its gradient was silently wrong (the dependence
// carried from one iteration to the next was dropped).
use autodiff::grad;

#[grad]
fn replaced_whole(q: f64) -> f64 {
    let mut p = [[1.0, 0.0], [0.0, 1.0]];
    let mut out = 0.0;
    for _ in 0..2 {
        let a = p[0][0] + q;
        p = [[a * q, 0.0], [0.0, 1.0]];
        out += a;
    }
    out
}

#[grad]
fn stored_into(q: f64) -> f64 {
    let mut p = [[1.0, 0.0], [0.0, 1.0]];
    let mut out = 0.0;
    for _ in 0..2 {
        let a = p[0][0] + q;
        p[0][0] = a * q;
        out += a;
    }
    out
}

fn main() {}

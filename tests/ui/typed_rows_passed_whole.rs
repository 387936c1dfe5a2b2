// A typed `Vec` of rows changed by position, then lent whole to a
// `#[grad]` function (trial 5 r94): the message said the `let` did not
// state the type, which it does; it says the `Vec` is used whole, and
// what works.
use autodiff::grad;

#[grad]
fn norm_all(p: &[[f64; 2]]) -> f64 {
    p.iter().map(|r| r[0] * r[0] + r[1] * r[1]).sum::<f64>()
}

#[grad]
fn f(p0: &[[f64; 2]], k: f64) -> f64 {
    let mut pos: Vec<[f64; 2]> = p0.to_vec();
    for i in 0..pos.len() {
        for d in 0..2 {
            pos[i][d] *= k;
        }
    }
    norm_all(&pos)
}

fn main() {}

// A checkpointed loop's iterations run again in the reverse sweep, after
// the function's end: a variable kept as written that the loop reads and
// the code after it changes would be read as it is at the end. Refused.
use autodiff::grad;

#[grad]
fn f(x: f64, w: &[f64]) -> f64 {
    let mut idx: Vec<usize> = vec![0, 1];
    let mut s = x;
    #[checkpoint(every = 2)]
    for _ in 0..4 {
        s = s * w[idx[0]] + w[idx[1]];
    }
    idx.push(2);
    s + idx.len() as f64
}

fn main() {}

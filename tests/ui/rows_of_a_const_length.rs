// A local `Vec` of rows whose length is a `const` declared outside the
// function: the split into one `Vec` per position needs the length as a
// literal, and the refusal says so.
use autodiff::grad;

const DIM: usize = 3;

#[grad]
fn f(k: f64) -> f64 {
    let mut x = vec![[0.0; DIM]; 2];
    for d in 0..3 {
        x[0][d] += k * (d as f64);
    }
    x[0][1] * x[0][2]
}

fn main() {}

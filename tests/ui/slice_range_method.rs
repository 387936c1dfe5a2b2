// A method that changes part of an array through a range (`u[1..n - 1]`)
// was taken for a method on an element, kept as written, and gave a wrong
// gradient; it is refused, with the changes #[grad] follows.
use autodiff::grad;

#[grad]
fn partial_copy(x: &[f64], k: f64) -> f64 {
    let n = x.len();
    let mut u = x.to_vec();
    let mut next = vec![0.0; n];
    for i in 0..n {
        next[i] = u[i] * k;
    }
    u[1..n - 1].copy_from_slice(&next[1..n - 1]);
    u.iter().sum()
}

#[grad]
fn reversed_tail(x: &[f64], k: f64) -> f64 {
    let mut u = x.to_vec();
    u[0] *= k;
    u[1..].reverse();
    u[1] * 2.0
}

fn main() {}

// `break` inside a `match` arm of a loop that changes an active variable is
// refused (for now): `break` ends a branch of an `if`.
use autodiff::grad;

#[grad]
fn f(x: f64, n: usize) -> f64 {
    let mut s = x;
    for i in 0..n {
        match i % 4 {
            3 => break,
            _ => s *= 2.0,
        }
    }
    s
}

fn main() {}

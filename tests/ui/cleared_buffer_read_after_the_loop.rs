// A push buffer emptied first in each step and read after the loop (trial
// 12 r1094): refused at the `clear` with what holds and what to write, not
// with advice to loop over the indices it changes.
use autodiff::grad;

#[grad]
fn f(u0: &[f64], k: f64) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next: Vec<f64> = Vec::with_capacity(n);
    for _ in 0..3 {
        next.clear();
        for i in 0..n {
            next.push(u[i] * k);
        }
        std::mem::swap(&mut u, &mut next);
    }
    u[0] * u[1] + next[0]
}

fn main() {}

// A `Vec` of rows whose row is handed out by `iter_mut` (which would change
// a copy of it): kept whole, and the refusal names the uses #[grad] follows.
use autodiff::grad;

#[grad]
fn doubled(a: f64, b: f64) -> f64 {
    let mut traj: Vec<[f64; 2]> = Vec::new();
    traj.push([a, b]);
    for x in traj[0].iter_mut() {
        *x *= 2.0;
    }
    traj[0][0]
}

fn main() {}

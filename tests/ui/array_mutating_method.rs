// A method that may change a modelled array behind #[grad]'s back is
// refused.
use autodiff::grad;

#[grad]
fn f(x: &[f64]) -> f64 {
    let mut z = vec![0.0; 3];
    z[0] = x[0];
    z.reverse();
    z[2]
}

fn main() {}

// A method of a nalgebra value that #[grad] does not follow: refused at
// the method, with the list of what it takes.
use autodiff::grad;
use nalgebra::Vector3;

#[grad]
fn f(v: Vector3<f64>) -> f64 {
    v.fixed_rows::<2>(0).sum() + v.map(|x| { let y = x * x; y }).sum()
}

fn main() {}

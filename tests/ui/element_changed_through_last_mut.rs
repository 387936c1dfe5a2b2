// An element of a local array changed through `last_mut()`: refused at
// the method, with the index form to write.
use autodiff::grad;

#[grad]
fn f(x: f64, y: f64) -> f64 {
    let mut a = [x, y, x * y];
    *a.last_mut().unwrap() += a[0];
    a[2] * a[1]
}

fn main() {}

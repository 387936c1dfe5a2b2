// A call's result that is an array (read in parts) taken as an item of a
// local array: #[grad] models arrays of floats only.
use autodiff::grad;

#[grad]
fn sub3(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[grad]
fn f(x: f64, y: f64) -> f64 {
    let d = sub3(&[x, y, 1.0], &[y, 0.5, x]);
    let v = vec![d; 2];
    d[0] + v[1][0]
}

fn main() {}

// An element of a local array changed through `last_mut()`, or through
// `get_mut(i)` in an `if let` (trial 4 r53: code inside the expansion that
// did not compile): refused at the method, with the index form to write.
use autodiff::grad;

#[grad]
fn f(x: f64, y: f64) -> f64 {
    let mut a = [x, y, x * y];
    *a.last_mut().unwrap() += a[0];
    a[2] * a[1]
}

#[grad]
fn g(a: f64, b: f64) -> f64 {
    let mut v = vec![a, b];
    if let Some(e) = v.get_mut(1) {
        *e = a * b;
    }
    v[0] + v[1]
}

fn main() {}

// A reference to an element whose index changes while it is used (trial
// 5 r102): refused, with a message about the place it borrows (it spoke
// of a differentiated struct's fields).
use autodiff::grad;

#[grad]
fn f(x: f64, y: f64) -> f64 {
    let v = vec![x, y, x * y];
    let mut i = 0;
    let r = &v[i];
    i += 1;
    *r * 3.0 + v[i]
}

fn main() {}

// A reference to a float variable made to point at another one: not read
// as either variable (it was rewritten into an assignment to `&x`, which
// did not compile); the error says to keep the value instead.
use autodiff::grad;

#[grad]
fn switched(x: f64, y: f64) -> f64 {
    let mut r = &x;
    let a = *r * 2.0;
    r = &y;
    a + *r * 3.0
}

fn main() {}

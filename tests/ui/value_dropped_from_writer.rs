// A function that returns a value and writes through `&mut`, called as a
// statement: its value dropped, the call is refused at the call, with
// what to write.
use autodiff::grad;

#[grad]
pub fn accumulate(s: &mut f64, y: f64) -> f64 {
    *s += y * y;
    s.sqrt()
}

#[grad]
pub fn total(a: f64, b: f64) -> f64 {
    let mut s = a;
    accumulate(&mut s, b);
    s * b
}

fn main() {}

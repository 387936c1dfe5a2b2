// Passing `&mut` of a differentiated variable to a function is refused.
use autodiff::grad;

fn bump(v: &mut f64) {
    *v += 1.0;
}

#[grad]
fn f(x: f64) -> f64 {
    let mut s = x * 2.0;
    bump(&mut s);
    s
}

fn main() {}

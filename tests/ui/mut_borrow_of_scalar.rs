// Passing `&mut s` of a differentiated float to a function calls it as a
// writer (`update(&mut s, y)`), through what #[grad] on it generates:
// without #[grad], rustc says `bump_grad` and its hidden writer slots are
// missing, at the call.
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

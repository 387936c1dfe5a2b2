// A nalgebra value passed to a function without #[grad]: the call goes to
// the twin #[grad] would have made of it (`__autodiff_na_helper`, taking
// the value's entries), which does not exist; rustc says so at the call,
// as for a plain helper's missing `helper_grad` (a macro cannot tell a
// function with #[grad] from one without).
use autodiff::grad;
use nalgebra::Vector3;

fn helper(v: Vector3<f64>) -> f64 {
    v.x
}

#[grad]
fn f(v: Vector3<f64>) -> f64 {
    helper(v) + v.norm()
}

fn main() {}

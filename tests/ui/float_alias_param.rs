// #[grad] reads a parameter's type as written: `Real` could be a struct,
// so `x` would be a constant and `f_grad` one gradient short. An alias of
// a float (or a float array) is a compile error at the type instead; with
// `wrt(..)` naming the active set, the other parameters are constants by
// the user's word and nothing is checked.
type Real = f64;
type V3 = [f64; 3];

#[autodiff::grad]
fn f(x: Real, v: &V3, y: f64) -> f64 {
    x * y + v[0]
}

#[autodiff::grad(wrt(y))]
fn g(x: Real, y: f64) -> f64 {
    x * y
}

fn main() {}

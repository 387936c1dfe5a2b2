// A call to a plain function on an active value goes through the `_grad`
// and the hidden slots that #[grad] on it would generate: without #[grad]
// (or a pullback), rustc says `helper_grad` is missing, at the call. (Its
// second error, about the slots, suggests another function's hidden
// slots: a macro cannot resolve a name, so it cannot say it better.)
use autodiff::grad;

fn helper(x: f64) -> f64 {
    x * 2.0
}

#[grad]
fn f(x: f64) -> f64 {
    helper(x) + 1.0
}

fn main() {}

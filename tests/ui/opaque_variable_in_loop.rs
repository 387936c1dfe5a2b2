// A variable bound by a pattern #[grad] does not model, changed in a loop
// by an active value, is refused (its gradient was silently 0).
use autodiff::grad;

#[grad]
fn f(k: f64) -> f64 {
    let [mut x, _] = [1.0, 2.0];
    for _ in 0..3 {
        x *= k;
    }
    x
}

fn main() {}

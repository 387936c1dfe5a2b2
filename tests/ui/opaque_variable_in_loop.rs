// A variable bound by a pattern #[grad] does not model, changed in a loop
// by an active value, is refused (its gradient was silently 0).
use autodiff::grad;

struct Wrapper(f64);

#[grad]
fn f(k: f64) -> f64 {
    let Wrapper(mut x) = Wrapper(1.0);
    for _ in 0..3 {
        x *= k;
    }
    x
}

fn main() {}

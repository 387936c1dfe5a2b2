// A `Vec` changed by a method #[grad] does not follow (`pop` in a loop
// that also pushes onto it), whose elements carry a derivative: refused
// at its `let` (a stack of constants works, tests/written_as_users_write.rs;
// one only drained by `pop` is walked backwards, tests/loop_shapes.rs).
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let mut s = 0.0;
    let mut stack: Vec<f64> = vec![x, 1.5];
    while let Some(v) = stack.pop() {
        s += v * x;
        if v > 2.0 {
            stack.push(v * 0.5);
        }
    }
    s
}

fn main() {}

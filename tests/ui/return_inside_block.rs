// `return` inside a nested block (not a guard clause at the top of the
// body) is refused: the rest of the function cannot become its `else`.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let y = {
        if x < 0.0 {
            return 0.0;
        }
        x * 2.0
    };
    y * y
}

fn main() {}

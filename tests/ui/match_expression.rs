// `match` is refused (for now).
use autodiff::grad;

#[grad]
fn f(x: f64, n: i32) -> f64 {
    match n {
        0 => x,
        _ => x * x,
    }
}

fn main() {}

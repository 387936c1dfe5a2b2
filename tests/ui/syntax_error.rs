// A syntax error is reported by rustc alone, not doubled by #[grad].
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let a = x * 2.0
    a
}

fn main() {}

// `#[cfg]` on a `let` would make the Wengert list depend on which
// alternative is compiled: refused.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    #[cfg(debug_assertions)]
    let y = x * 2.0;
    #[cfg(not(debug_assertions))]
    let y = x * 3.0;
    y
}

fn main() {}

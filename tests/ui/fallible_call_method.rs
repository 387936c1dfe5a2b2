// A call of a `#[grad]` function that may fail is differentiated through
// `?`, `.unwrap()` or `.expect(..)`; other methods of its `Option` or
// `Result` are refused at the method, with what to write.
use autodiff::grad;

#[grad]
fn checked_root(x: f64) -> Option<f64> {
    if x < 0.0 {
        return None;
    }
    Some(x.sqrt())
}

#[grad]
fn f(x: f64) -> f64 {
    checked_root(x).unwrap_or(0.0) + x
}

fn main() {}

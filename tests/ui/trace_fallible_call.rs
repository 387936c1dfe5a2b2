// A traced function calling a `#[grad]` function that may fail (through
// `unwrap`, `expect` or `?`) is refused at the call: the callee has no
// trace to nest.
use autodiff::grad;

#[grad]
fn checked_root(x: f64) -> Result<f64, String> {
    if x < 0.0 {
        return Err("negative".to_string());
    }
    Ok(x.sqrt())
}

#[grad(trace)]
fn traced(x: f64) -> f64 {
    let a = checked_root(x).unwrap();
    a * x
}

fn main() {}

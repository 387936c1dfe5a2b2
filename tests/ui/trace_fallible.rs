// `_trace` records a function's value: a `Result` or an `Option` has
// none to record where it fails.
#[autodiff::grad(trace)]
fn checked_root(x: f64) -> Result<f64, String> {
    if x < 0.0 {
        return Err("negative".to_string());
    }
    Ok(x.sqrt())
}

fn main() {}

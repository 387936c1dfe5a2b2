// `g(x).ok_or(e)?` and `.map_err(f)?` are differentiated where the error
// names nothing of the function's; one built from a variable is refused
// at the method, with what to write.
use autodiff::grad;

#[grad]
fn checked_root(x: f64) -> Option<f64> {
    if x < 0.0 {
        return None;
    }
    Some(x.sqrt())
}

#[grad]
fn f(x: f64) -> Result<f64, String> {
    let r = checked_root(x).ok_or(format!("no root of {x}"))?;
    Ok(r * x)
}

fn main() {}

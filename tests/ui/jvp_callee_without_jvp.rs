// A call whose result is a vector goes through the callee's own `_jvp`:
// a callee without `jvp` fails to compile at the call, rustc naming the
// missing `sub_jvp` (write `#[grad(jvp)]` on `sub`).
use autodiff::grad;

#[grad]
fn sub(a: &[f64; 2], b: &[f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

#[grad(jvp)]
fn gap(x: [f64; 2], y: [f64; 2]) -> f64 {
    let d = sub(&x, &y);
    d[0] * d[1]
}

fn main() {}

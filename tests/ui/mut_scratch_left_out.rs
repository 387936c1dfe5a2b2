// A scratch buffer taken by `&mut` and left out of `wrt`: what the function
// writes into it and reads back carries derivatives.
use autodiff::grad;

#[grad(wrt(x))]
fn smooth(x: f64, scratch: &mut [f64]) -> f64 {
    for (i, s) in scratch.iter_mut().enumerate() {
        *s = x * i as f64;
    }
    scratch.iter().map(|s| s.sin()).sum::<f64>()
}

fn main() {
    let mut buf = [0.0; 4];
    let _ = smooth_grad(0.5, &mut buf);
}

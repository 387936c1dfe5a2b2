// A local array in a `move` closure's body, from what it captured: the
// error names the captured variable as written (`k`), not the copy the
// macro makes of it where the closure is made.
use autodiff::grad;

#[grad]
fn closure_capture(a: f64, b: f64) -> f64 {
    let mut k = a;
    let f = move |x: f64| {
        let v: Vec<f64> = vec![k * x, x];
        v[0] + v[1]
    };
    k = 2.0 * b;
    f(b) + k
}

fn main() {
    println!("{:?}", closure_capture_grad(1.0, 2.0));
}

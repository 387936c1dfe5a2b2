// An `Option` held as a loop's state (`last = Some(x)`): refused, saying
// to keep the value in a float and whether there is one in a `bool`.
use autodiff::grad;

#[grad]
fn total_variation(xs: &[f64]) -> f64 {
    let mut last: Option<f64> = None;
    let mut s = 0.0;
    for &x in xs {
        if let Some(p) = last {
            s += (x - p).abs();
        }
        last = Some(x);
    }
    s
}

fn main() {
    println!("{:?}", total_variation_grad(&[1.0, 2.0]));
}

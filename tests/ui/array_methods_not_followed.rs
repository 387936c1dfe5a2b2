// A method of a modelled array #[grad] does not follow, each refused with
// what to write: an array's `map`, which changes nothing (trial 10 r633:
// the message said it "may change the array"), and `sort_by`, which
// reorders it (r681: sort a list of indices instead, which works).
// `binary_search_by` only reads the array and is accepted (r659).
use autodiff::grad;

#[grad]
fn squash(v: [f64; 3]) -> f64 {
    let s = v.map(|x| x.tanh());
    s[0] * v[1]
}

#[grad]
fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

#[grad]
fn interpolated(xs: &[f64], ys: &[f64], x: f64) -> f64 {
    let i = match xs.binary_search_by(|p| p.partial_cmp(&x).unwrap()) {
        Ok(i) => i.min(xs.len() - 2),
        Err(i) => i.clamp(1, xs.len() - 1) - 1,
    };
    ys[i] + (x - xs[i]) / (xs[i + 1] - xs[i]) * (ys[i + 1] - ys[i])
}

fn main() {
    let _ = interpolated_grad(&[0.0, 1.0], &[1.0, 2.0], 0.5);
}

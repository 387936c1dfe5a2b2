// A reference to an element is the element (`let e = &mut v[i]; *e +=
// x;` is `v[i] += x;`) only while its index names the same element: here
// `i` changes before `e` is used, so it is refused, with what to write.
use autodiff::grad;

#[grad]
fn f(x: &[f64], k: f64) -> f64 {
    let mut v = vec![0.0; x.len()];
    let mut i = 0;
    let e = &mut v[i];
    i += 1;
    *e += k * x[i];
    v[0] + v[1]
}

fn main() {}

// Rebinding a slice parameter to a sub-slice is refused: the loads after
// it read the array the name held before, a wrong value and gradient.
use autodiff::grad;

#[grad(wrt(arr))]
fn f(mut arr: &[f64], n: usize) -> f64 {
    let mut sum = 0.0;
    for i in 0..n {
        sum += arr[0] * (i as f64);
        arr = &arr[1..];
    }
    sum
}

fn main() {}

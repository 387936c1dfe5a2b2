//! Loops over float arrays and the iterator reductions Rust users write,
//! differentiated as the index loops they are.

#![deny(warnings)]

use approx::assert_relative_eq;
use autodiff::grad;

#[grad]
fn loops_over_elements(xs: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    for x in xs {
        s += *x * w;
    }
    for &x in xs.iter() {
        s += x.sin();
    }
    for (i, x) in xs.iter().enumerate() {
        s += x * i as f64;
    }
    s
}

#[test]
fn for_over_slices() {
    let xs = [0.5, -1.0, 2.0];
    let (v, dxs, dw) = loops_over_elements_grad(&xs, 3.0);
    assert_eq!(v, loops_over_elements(&xs, 3.0));
    let expected: Vec<f64> = xs
        .iter()
        .enumerate()
        .map(|(i, x)| 3.0 + x.cos() + i as f64)
        .collect();
    assert_eq!(dxs, expected);
    assert_eq!(dw, xs.iter().sum::<f64>());
}

// `&Vec<T>` is a parameter form #[grad] accepts, on purpose here.
#[grad]
#[allow(clippy::ptr_arg)]
fn reductions(xs: &[f64], ys: &Vec<f64>) -> f64 {
    let total: f64 = xs.iter().sum();
    let squares: f64 = xs.iter().map(|v| v * v).sum();
    let inner: f64 = xs.iter().zip(ys).map(|(a, b)| a * b).sum();
    let weighted = xs.iter().fold(0.0, |acc, v| acc * 0.5 + v);
    let largest = ys.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    total + squares + inner + weighted + largest
}

#[test]
fn sums_maps_zips_and_folds() {
    let xs = [0.5, -1.0, 2.0];
    let ys = vec![1.5, 3.0, -2.0];
    #[allow(clippy::ptr_arg)]
    fn check(xs: &[f64], ys: &Vec<f64>) {
        let (v, dx, dy) = reductions_grad(xs, ys);
        assert_relative_eq!(v, reductions(xs, ys), max_relative = 1e-15);
        // weighted = Σ vₖ 0.5^(n−1−k).
        let n = xs.len();
        for k in 0..n {
            let expected = 1.0 + 2.0 * xs[k] + ys[k] + 0.5f64.powi((n - 1 - k) as i32);
            assert_relative_eq!(dx[k], expected, max_relative = 1e-15);
        }
        let argmax = (0..n).fold(0, |m, k| if ys[k] > ys[m] { k } else { m });
        for k in 0..n {
            let expected = xs[k] + if k == argmax { 1.0 } else { 0.0 };
            assert_relative_eq!(dy[k], expected, max_relative = 1e-15);
        }
    }
    check(&xs, &ys);
    check(&[1.0, 2.0], &vec![-1.0, -0.5]);
}

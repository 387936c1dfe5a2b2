//! `f32` functions through branches, loops, arrays, reductions and
//! kernels: values and stacks in single precision.

#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

use autodiff::grad;

#[grad]
fn mixed_f32(xs: &[f32], w: f32, steps: usize) -> f32 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        s += xs[i] * w;
    }
    let mut t = s;
    let mut k = 0;
    while k < steps {
        t = if t > 1.0 { t.sqrt() } else { t * 1.5 };
        k += 1;
    }
    let mut z = [0.0f32; 2];
    z[0] = t;
    z[1] = xs.iter().map(|v| v * v).sum::<f32>();
    z[0] + z[1] + autodiff::dot(xs, xs) * 0.0
}

#[test]
fn single_precision_everywhere() {
    let xs = [0.5f32, -0.25, 2.0];
    let (v, dxs, dw) = mixed_f32_grad(&xs, 0.8, 4);
    assert_eq!(v, mixed_f32(&xs, 0.8, 4));
    let h = 1e-2f32;
    let fd_w = (mixed_f32(&xs, 0.8 + h, 4) - mixed_f32(&xs, 0.8 - h, 4)) / (2.0 * h);
    assert!(
        (dw - fd_w).abs() < 2e-2 * fd_w.abs().max(1.0),
        "{dw} vs {fd_w}"
    );
    for i in 0..xs.len() {
        let mut p = xs;
        p[i] += h;
        let hi = mixed_f32(&p, 0.8, 4);
        p[i] -= 2.0 * h;
        let fd = (hi - mixed_f32(&p, 0.8, 4)) / (2.0 * h);
        assert!(
            (dxs[i] - fd).abs() < 2e-2 * fd.abs().max(1.0),
            "{i}: {} vs {fd}",
            dxs[i]
        );
    }
}

//! Increments of array elements (`a[j] += e`, `a[j] = a[j] - e`): their
//! reverse keeps the element's adjoint in place instead of taking it out
//! and adding it back (`autodiff-macro/src/reverse/increments.rs`), and
//! the first contribution to a fresh adjoint is assigned
//! (`reverse/assigned.rs`). Each case checks the gradient against one
//! computed by hand, exactly, or against central differences (relative
//! tolerance 1e-7, steps of 1e-6) at points spread over the inputs'
//! signs, including the cases the rewrite must leave alone: a carried
//! value that is also the stored one, an output that is, an increment
//! of a constant, an index that differs between the load and the store.

#![deny(warnings)]
// Index loops, as the functions' authors write them.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_memcpy,
    clippy::assign_op_pattern
)]

use autodiff::grad;

/// ‖L·x‖² for a unit lower-triangular L whose strict lower part is
/// `l` (row-major, as GMM's `Qtimesx`): the inner loop is an increment.
#[grad(wrt(x, l))]
fn triangular_norm(x: &[f64; 4], l: &[f64; 6]) -> f64 {
    let d = 4;
    let mut q = vec![0.0; d];
    for i in 0..d {
        q[i] = x[i];
    }
    let mut k = 0;
    for i in 0..d {
        for j in i + 1..d {
            q[j] += l[k] * x[i];
            k += 1;
        }
    }
    let mut s = 0.0;
    for j in 0..d {
        s += q[j] * q[j];
    }
    s
}

fn triangular_by_hand(x: &[f64; 4], l: &[f64; 6]) -> (f64, [f64; 4], [f64; 6]) {
    // Column-major walk of the strict lower part, as in the function.
    let mut m = [[0.0; 4]; 4];
    let mut k = 0;
    for (i, row) in m.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    for i in 0..4 {
        for j in i + 1..4 {
            m[j][i] = l[k];
            k += 1;
        }
    }
    let q: Vec<f64> = (0..4)
        .map(|j| (0..4).map(|i| m[j][i] * x[i]).sum())
        .collect();
    let s = q.iter().map(|v| v * v).sum();
    let mut dx = [0.0; 4];
    for (i, d) in dx.iter_mut().enumerate() {
        *d = (0..4).map(|j| 2.0 * q[j] * m[j][i]).sum();
    }
    let mut dl = [0.0; 6];
    let mut k = 0;
    for i in 0..4 {
        for j in i + 1..4 {
            dl[k] = 2.0 * q[j] * x[i];
            k += 1;
        }
    }
    (s, dx, dl)
}

#[test]
fn a_triangular_product_accumulated_in_place() {
    let points = [
        ([1.0, -2.0, 0.5, 3.0], [0.25, -1.0, 2.0, 0.5, -0.75, 1.5]),
        ([-0.5, 0.0, 4.0, -1.25], [1.0, 1.0, -3.0, 0.0, 2.5, -0.5]),
        ([0.0; 4], [0.5; 6]),
    ];
    for (x, l) in points {
        let (v, dx, dl) = triangular_norm_grad(&x, &l);
        let (ev, edx, edl) = triangular_by_hand(&x, &l);
        assert!((v - ev).abs() <= 1e-12 * ev.abs().max(1.0));
        for (a, b) in dx.iter().zip(edx).chain(dl.iter().zip(edl)) {
            assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} vs {b}");
        }
    }
}

/// The three spellings of an increment, and a decrement, each the
/// reverse of which keeps the element in place.
#[grad(wrt(x, w))]
fn spellings(x: &[f64; 3], w: f64) -> f64 {
    let mut a = [1.0, 2.0, 3.0];
    for j in 0..3 {
        a[j] += w * x[j];
        a[j] = a[j] + x[j];
        a[j] = x[j] * x[j] + a[j];
        a[j] -= w;
    }
    a[0] * a[1] + a[2]
}

#[test]
fn every_spelling_of_an_increment() {
    for (x, w) in [([1.0, -2.0, 0.5], 3.0), ([-1.5, 0.25, 2.0], -0.5)] {
        let (v, dx, dw) = spellings_grad(&x, w);
        // a_j = c_j + w x_j + x_j + x_j² − w.
        let c = [1.0, 2.0, 3.0];
        let a: Vec<f64> = (0..3)
            .map(|j| c[j] + w * x[j] + x[j] + x[j] * x[j] - w)
            .collect();
        assert_eq!(v, a[0] * a[1] + a[2]);
        let da = [a[1], a[0], 1.0];
        for j in 0..3 {
            assert_eq!(dx[j], da[j] * (w + 1.0 + 2.0 * x[j]));
        }
        let edw: f64 = (0..3).map(|j| da[j] * (x[j] - 1.0)).sum();
        assert!((dw - edw).abs() <= 1e-12 * edw.abs().max(1.0));
    }
}

/// The stored value is also carried to the next iteration: its adjoint
/// takes the next iteration's too, so the element's adjoint cannot stay
/// in place.
#[grad(wrt(x, w))]
fn carried_and_stored(x: &[f64; 4], w: f64) -> f64 {
    let mut a = [x[0], x[1], x[2], x[3]];
    let mut s = 0.0;
    for j in 0..4 {
        s = a[j] + s * w;
        a[j] = s;
    }
    a[0] + 2.0 * a[1] + 3.0 * a[2] + 4.0 * a[3] + s
}

/// The result is the stored element itself.
#[grad(wrt(x))]
fn output_stored(x: &[f64; 2]) -> f64 {
    let mut a = [x[0] * x[1], x[1]];
    a[0] += x[0];
    a[0]
}

/// An increment by a constant, one from another element, and two
/// increments of one element in a row.
#[grad(wrt(x))]
fn mixed(x: &[f64; 3]) -> f64 {
    let mut a = [x[0], x[1], x[2], 0.0];
    a[1] += 1.0;
    a[3] = a[2] + x[0];
    a[2] += x[1];
    a[2] += x[0] * x[2];
    a[0] * a[1] + a[2] * a[3]
}

/// An increment in one arm of a branch.
#[grad(wrt(x))]
fn in_a_branch(x: &[f64; 3]) -> f64 {
    let mut a = [x[0], x[1], x[2]];
    for j in 0..3 {
        if x[j] > 0.0 {
            a[j] += x[j] * x[j];
        } else {
            a[j] -= x[(j + 1) % 3];
        }
    }
    a[0] * a[1] * a[2]
}

fn central(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|i| {
            let mut p = x.to_vec();
            let mut m = x.to_vec();
            p[i] += h;
            m[i] -= h;
            (f(&p) - f(&m)) / (2.0 * h)
        })
        .collect()
}

fn close(got: &[f64], want: &[f64]) {
    for (a, b) in got.iter().zip(want) {
        assert!(
            (a - b).abs() <= 1e-7 * b.abs().max(1.0),
            "{got:?} vs {want:?}"
        );
    }
}

const POINTS: [[f64; 4]; 4] = [
    [1.0, -2.0, 0.5, 3.0],
    [-0.75, 0.5, -1.5, 2.0],
    [2.0, 1.25, -0.25, -3.0],
    [-1.0, -0.5, 1.5, 0.25],
];

#[test]
fn a_carried_value_that_is_also_stored() {
    for p in POINTS {
        let w = p[1] * 0.5;
        let (_, dx, dw) = carried_and_stored_grad(&p, w);
        let fx = central(|x| carried_and_stored(&[x[0], x[1], x[2], x[3]], w), &p);
        close(&dx, &fx);
        let fw = central(|w| carried_and_stored(&p, w[0]), &[w]);
        close(&[dw], &fw);
    }
}

#[test]
fn an_output_that_is_the_stored_element() {
    for p in POINTS {
        let x = [p[0], p[1]];
        let (v, dx) = output_stored_grad(&x);
        assert_eq!(v, x[0] * x[1] + x[0]);
        assert_eq!(dx, [x[1] + 1.0, x[0]]);
    }
}

#[test]
fn constant_increments_other_elements_and_repeats() {
    for p in POINTS {
        let x = [p[0], p[1], p[2]];
        let (_, dx) = mixed_grad(&x);
        close(&dx, &central(|x| mixed(&[x[0], x[1], x[2]]), &x));
        let (_, dx) = in_a_branch_grad(&x);
        close(&dx, &central(|x| in_a_branch(&[x[0], x[1], x[2]]), &x));
    }
}

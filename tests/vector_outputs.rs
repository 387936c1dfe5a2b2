//! Vector outputs: `<name>_vjp(args.., seed)` gives the vector-Jacobian
//! product without building the Jacobian; `<name>_jacobian(args..)` gives
//! the Jacobian, a row per output and a column per active input.

#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

use approx::assert_relative_eq;
use autodiff::grad;

/// Case study 4's shape: two outputs of two inputs.
#[grad]
fn pair(x: f64, y: f64) -> (f64, f64) {
    (x * y, x + y.sin())
}

#[test]
fn vjp_of_a_pair_against_its_closed_form() {
    let (x, y) = (1.5, 0.7);
    for (u, v) in [(1.0, 0.0), (0.0, 1.0), (0.3, -2.0)] {
        let (value, dx, dy) = pair_vjp(x, y, (u, v));
        assert_eq!(value, pair(x, y));
        // uᵀJ with J = [[y, x], [1, cos y]].
        assert_relative_eq!(dx, u * y + v, max_relative = 1e-15);
        assert_relative_eq!(dy, u * x + v * y.cos(), max_relative = 1e-15);
    }
    let (value, j) = pair_jacobian(x, y);
    assert_eq!(value, pair(x, y));
    assert_eq!(j, vec![vec![y, x], vec![1.0, y.cos()]]);
}

/// An array output from an array input: a softmax-like map.
#[grad]
fn normalise(xs: &[f64], temperature: f64) -> Vec<f64> {
    let mut out = vec![0.0; xs.len()];
    let mut total = 0.0;
    for i in 0..xs.len() {
        out[i] = (xs[i] / temperature).exp();
        total += out[i];
    }
    for i in 0..xs.len() {
        out[i] /= total;
    }
    out
}

/// A fixed-size output.
#[grad]
fn polar(r: f64, theta: f64) -> [f64; 2] {
    [r * theta.cos(), r * theta.sin()]
}

#[test]
fn jacobians_against_finite_differences() {
    let xs = [0.5, -1.0, 2.0];
    let t = 1.3;
    let (value, j) = normalise_jacobian(&xs, t);
    assert_eq!(value, normalise(&xs, t));
    assert_eq!(j.len(), 3);
    let h = 1e-6;
    for col in 0..4 {
        let bump = |d: f64| {
            let mut p = xs.to_vec();
            let mut tt = t;
            if col < 3 {
                p[col] += d
            } else {
                tt += d
            }
            normalise(&p, tt)
        };
        let (hi, lo) = (bump(h), bump(-h));
        for row in 0..3 {
            let fd = (hi[row] - lo[row]) / (2.0 * h);
            assert_relative_eq!(j[row][col], fd, epsilon = 1e-8, max_relative = 1e-6);
        }
    }
    let (value, j) = polar_jacobian(2.0, 0.4);
    assert_eq!(value, polar(2.0, 0.4));
    assert_relative_eq!(j[0][0], 0.4f64.cos(), max_relative = 1e-15);
    assert_relative_eq!(j[0][1], -2.0 * 0.4f64.sin(), max_relative = 1e-15);
    assert_relative_eq!(j[1][0], 0.4f64.sin(), max_relative = 1e-15);
    assert_relative_eq!(j[1][1], 2.0 * 0.4f64.cos(), max_relative = 1e-15);
    let (_, dr, dtheta) = polar_vjp(2.0, 0.4, [1.0, 1.0]);
    assert_relative_eq!(dr, 0.4f64.cos() + 0.4f64.sin(), max_relative = 1e-15);
    assert_relative_eq!(
        dtheta,
        2.0 * (0.4f64.cos() - 0.4f64.sin()),
        max_relative = 1e-15
    );
}

/// Names the Jacobian's own code could have used: `k`, `value`, `rows`,
/// `row`. With no loop recording values, `_jacobian` runs the forward
/// sweep once and the reverse sweep once per output, in the same body as
/// these names.
#[grad]
fn named_like_locals(k: f64, value: f64) -> [f64; 2] {
    let rows = k * value;
    let row = rows.sin();
    [row, rows + k]
}

#[test]
fn a_jacobian_in_one_forward_sweep_keeps_user_names() {
    let (k, v) = (0.7, -1.3);
    let (value, j) = named_like_locals_jacobian(k, v);
    assert_eq!(value, named_like_locals(k, v));
    let c = (k * v).cos();
    assert_eq!(j, vec![vec![c * v, c * k], vec![v + 1.0, k]]);
    // The same rows as the vector-Jacobian products.
    for (i, seed) in [[1.0, 0.0], [0.0, 1.0]].into_iter().enumerate() {
        let (_, dk, dv) = named_like_locals_vjp(k, v, seed);
        assert_eq!(j[i], vec![dk, dv]);
    }
}

//! User names that look like the generated code's own locals.

// Index loops, as users write them. The expansions are warning-free.
#![allow(clippy::needless_range_loop)]
#![deny(warnings)]

use approx::assert_relative_eq;
use autodiff::grad;

/// A vector output whose loop records values (so `_jacobian` calls `_vjp`
/// once per output), with parameters named like `_jacobian`'s locals:
/// `k`, `value`, `rows`, `row`, `seed`, `g0`. It failed to compile.
#[grad]
fn named_like_locals(
    k: f64,
    value: f64,
    rows: f64,
    seed: f64,
    row: f64,
    g0: f64,
    n: usize,
) -> (f64, f64) {
    let mut a = k;
    let mut b = value;
    for _ in 0..n {
        a = a * rows + seed;
        b = b * a * row * g0;
    }
    (a, b)
}

/// The same for an array output.
#[grad]
fn array_named_like_locals(k: &[f64], seed: f64, value: f64) -> Vec<f64> {
    let mut out = vec![0.0; k.len()];
    for i in 0..k.len() {
        out[i] = k[i] * seed * k[i] + value;
    }
    out
}

#[test]
fn generated_locals_never_capture_user_names() {
    let (v, jac) = named_like_locals_jacobian(1.0, 2.0, 3.0, 4.0, 0.5, 1.0, 2);
    // a1 = 3k + 4 = 7, b1 = 2 * 7 * 0.5 = 7; a2 = 25, b2 = 87.5.
    assert_eq!(v, (25.0, 87.5));
    // da/d(k, value, rows, seed, row, g0) = (r^2, 0, a1 + r k, r + 1, 0, 0).
    assert_eq!(jac[0], [9.0, 0.0, 10.0, 4.0, 0.0, 0.0]);
    let (v2, dk, dvalue, drows, dseed, drow, dg0) =
        named_like_locals_vjp(1.0, 2.0, 3.0, 4.0, 0.5, 1.0, 2, (0.0, 1.0));
    assert_eq!(v2, v);
    assert_eq!(
        [dk, dvalue, drows, dseed, drow, dg0],
        jac[1],
        "a vjp with a one-hot seed is a row of the Jacobian"
    );
    let (v, jac) = array_named_like_locals_jacobian(&[1.0, 2.0], 3.0, 0.5);
    assert_eq!(v, vec![3.5, 12.5]);
    assert_eq!(
        jac,
        vec![vec![6.0, 0.0, 1.0, 1.0], vec![0.0, 12.0, 4.0, 1.0]]
    );
}

/// Locals named like every name the macro or its desugarings introduce:
/// the loop index and accumulator of a reduction (`__i`, `__acc`, `__x`),
/// break and return flags (`__broke1`, `__ret`, `__returned`), a vector
/// output's names (`__out0`), a loop's stack and window, partials and
/// adjoints (`stack`, `xs_win`, `g0`, `d_x`, `t0`).
#[allow(non_snake_case, clippy::needless_range_loop)]
#[grad]
fn named_like_internals(xs: &[f64], x: f64) -> f64 {
    let __i = 2.0;
    let __acc = x * __i;
    let __x = xs.iter().map(|v| v * x).sum::<f64>() + __acc;
    let mut __broke1 = 0.0;
    let mut __ret = 1.0;
    let __returned = 3.0;
    let stack = 0.5;
    let g0 = x * stack;
    let t0 = g0 + __x;
    let d_x = t0 * 2.0;
    let mut xs_win = 0.0;
    for i in 0..xs.len() {
        xs_win += xs[i] * d_x;
        __broke1 += xs_win * x;
        if i == 1 {
            break;
        }
        __ret *= x;
    }
    for k in 0..3 {
        if __broke1 > 1e9 {
            return __ret;
        }
        __broke1 += k as f64 * __returned;
    }
    __broke1 + __ret
}

#[test]
fn user_names_like_internal_ones_keep_their_meaning() {
    let xs = [0.5, -1.0, 2.0];
    let h = 1e-6;
    for x in [-0.7, 0.3, 1.1] {
        let (v, dxs, dx) = named_like_internals_grad(&xs, x);
        assert_eq!(v, named_like_internals(&xs, x));
        let fd = (named_like_internals(&xs, x + h) - named_like_internals(&xs, x - h)) / (2.0 * h);
        assert!((dx - fd).abs() < 1e-6 * fd.abs().max(1.0), "{dx} vs {fd}");
        for k in 0..3 {
            let mut p = xs;
            p[k] += h;
            let mut m = xs;
            m[k] -= h;
            let fd = (named_like_internals(&p, x) - named_like_internals(&m, x)) / (2.0 * h);
            assert!(
                (dxs[k] - fd).abs() < 1e-6 * fd.abs().max(1.0),
                "{k}: {} vs {fd}",
                dxs[k]
            );
        }
    }
}

/// A vector output whose tuple elements are named like the macro's own.
#[allow(non_snake_case)]
#[grad]
fn outputs_named_like_internals(x: f64) -> (f64, f64) {
    let __out0 = x * 2.0;
    let __out1 = x * x;
    (__out1, __out0)
}

#[test]
fn output_names_keep_their_meaning() {
    let (v, j) = outputs_named_like_internals_jacobian(3.0);
    assert_eq!(v, (9.0, 6.0));
    assert_eq!(j, [[6.0], [2.0]]);
}

/// `_trace`'s locals are named apart from the user's: parameters and
/// variables named `tape`, `node_x`, `constant`, `iteration`, `partial`.
#[grad(trace)]
fn named_like_trace_locals(tape: f64, node_x: f64, xs: &[f64]) -> f64 {
    let constant = tape * node_x;
    let mut iteration = constant;
    for i in 0..xs.len() {
        let partial = xs[i] * iteration;
        iteration += partial.sin();
    }
    iteration
}

#[test]
fn trace_locals_do_not_capture_user_names() {
    let xs = [0.5, -0.25];
    let (v, d_tape, d_node_x, d_xs) = named_like_trace_locals_grad(1.5, 0.5, &xs);
    let t = named_like_trace_locals_trace(1.5, 0.5, &xs);
    assert_eq!(t.value(), v);
    let g: Vec<f64> = t.gradient().into_iter().map(|(_, d)| d).collect();
    let want = [d_tape, d_node_x, d_xs[0], d_xs[1]];
    for (got, want) in g.iter().zip(want) {
        assert!(
            (got - want).abs() <= 1e-14 * want.abs().max(1.0),
            "{got} {want}"
        );
    }
}

/// A function whose name ends in `_`: its generated `sqrt__grad`,
/// `sqrt__vjp`, `sqrt__jvp`, `sqrt__trace` and `sqrt__jacobian` keep the
/// user's crate free of the snake-case lint's warnings (this file denies
/// warnings).
#[grad(jvp, trace)]
pub fn sqrt_(x: f64) -> f64 {
    x.sqrt()
}

#[grad]
pub fn pair_(x: f64) -> [f64; 2] {
    [x, x * x]
}

#[test]
fn names_ending_in_an_underscore() {
    assert_eq!(sqrt__grad(4.0), (2.0, 0.25));
    assert_eq!(sqrt__vjp(4.0, 2.0), (2.0, 0.5));
    assert_eq!(pair__jacobian(2.0).1, [[1.0], [4.0]]);
}

// Raw identifiers as parameters and locals (trial 9 r464: "internal
// error in #[grad]", a name derived from `r#type` could not be spelt).
#[grad(jvp)]
fn raw_names(x: f64, r#type: f64) -> f64 {
    let r#in = x * r#type;
    let r#loop = [r#in, r#type];
    r#loop[0] * r#loop[1] + r#in.sin()
}

#[test]
fn raw_identifiers_are_parameters_and_locals_like_any_other() {
    for (x, t) in [(2.0, 3.0), (-0.5, 1.25)] {
        // x t² + sin(x t).
        let (v, dx, dt) = raw_names_grad(x, t);
        assert_eq!(v, raw_names(x, t));
        assert_relative_eq!(dx, t * t + t * (x * t).cos(), max_relative = 1e-15);
        assert_relative_eq!(dt, 2.0 * x * t + x * (x * t).cos(), max_relative = 1e-15);
        let (_, d) = raw_names_jvp(x, t, 1.0, 0.0);
        assert_relative_eq!(d, dx, max_relative = 1e-15);
    }
}

//! #[grad] in a hostile scope: user types named like std's (`Result`,
//! `Ok`, `Vec`, `Option`, `Some`), a user `mod core` and `mod std`, the
//! attribute renamed on import, functions written by `macro_rules!`, a
//! `#![no_implicit_prelude]` module, two loops with the same counter, and
//! the whole file under `deny(warnings)` and clippy's pedantic lints.

#![deny(warnings, clippy::pedantic)]
#![allow(dead_code, non_camel_case_types, clippy::needless_range_loop)]

use autodiff::grad as g;

struct Result;
struct Ok;
struct Vec;
struct Option;
struct Some;
struct None;
struct Box;
struct String;
mod core {}
mod std {}
mod autodiff_runtime {}

/// Loops that record, a branch, an array, a kernel and a vector output, in
/// the scope above.
#[g]
fn hostile(xs: &[f64], x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        s += (xs[i] * x).sin();
    }
    for i in (0..xs.len()).rev() {
        if xs[i] > 0.0 {
            s *= 1.0 + 0.1 * x.tanh();
        }
    }
    let mut v = [0.0; 2];
    v[0] = s * x;
    v[1] = autodiff::dot(xs, xs) * x;
    v[0] + v[1]
}

#[g]
fn hostile_outputs(x: f64, y: f64) -> (f64, f64) {
    (x * y, x.exp() - y)
}

macro_rules! scaled {
    ($name:ident, $k:expr) => {
        #[g]
        fn $name(x: f64) -> f64 {
            let mut s = x;
            for _ in 0..3 {
                s = s * $k + x;
            }
            s
        }
    };
}

scaled!(scaled_twice, 2.0);

/// `_trace` in the same scope: a loop, a branch and a local array.
#[g(trace)]
fn hostile_trace(xs: &[f64], x: f64) -> f64 {
    let mut v = [0.0; 2];
    for i in 0..2 {
        if xs[i] > 0.0 {
            v[i] = xs[i] * x;
        } else {
            v[i] = x.sin();
        }
    }
    v[0] * v[1]
}
scaled!(scaled_half, 0.5);

#[no_implicit_prelude]
mod bare {
    use ::autodiff::grad;

    #[grad(trace)]
    pub fn bare(xs: &[f64], x: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..xs.len() {
            s += xs[i] * x * x;
        }
        if s > 1.0 {
            s = s.sqrt();
        }
        s
    }
}

/// The checks are exact on purpose (pedantic's lints are for the code
/// above, which #[grad] expands).
#[test]
#[allow(clippy::float_cmp, clippy::many_single_char_names)]
fn gradients_in_a_hostile_scope() {
    let xs = [0.5, -1.0, 2.0];
    let x = 0.7;
    let (v, dxs, dx) = hostile_grad(&xs, x);
    assert_eq!(v, hostile(&xs, x));
    assert_eq!(dxs.len(), 3);
    let h = 1e-6;
    let fd = (hostile(&xs, x + h) - hostile(&xs, x - h)) / (2.0 * h);
    assert!((dx - fd).abs() < 1e-6 * (1.0 + fd.abs()), "{dx} {fd}");
    let ((a, b), j) = hostile_outputs_jacobian(2.0, 3.0);
    assert_eq!((a, b), (6.0, 2f64.exp() - 3.0));
    assert_eq!(j, [[3.0, 2.0], [2f64.exp(), -1.0]]);
    // s = 2s + x three times from s = x: 15x; 0.5: 1.875x.
    assert_eq!(scaled_twice_grad(1.0).1, 15.0);
    assert_eq!(scaled_half_grad(1.0).1, 1.875);
    let (v, _, dx) = bare::bare_grad(&xs, 2.0);
    assert_eq!(v, bare::bare(&xs, 2.0));
    // s = 1.5 x², then sqrt: sqrt(1.5) x, d/dx = sqrt(1.5).
    assert!((dx - 1.5f64.sqrt()).abs() < 1e-15, "{dx}");
    let t = bare::bare_trace(&xs, 2.0);
    assert_eq!(t.value(), v);
    assert_eq!(t.adjoint_of("x"), ::core::option::Option::Some(dx));
    let (v, dxs, dx) = hostile_trace_grad(&[0.5, -1.0], 0.7);
    let t = hostile_trace_trace(&[0.5, -1.0], 0.7);
    assert_eq!(t.value(), v);
    let g: ::std::vec::Vec<f64> = t.gradient().into_iter().map(|(_, d)| d).collect();
    assert_eq!(g, [dxs[0], dxs[1], dx]);
}

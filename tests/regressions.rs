//! Regression tests for silent wrong gradients, one per class found, each
//! against the exact derivative. Where the macro once guessed a type from
//! syntax, these functions are written the way users write them.

use approx::assert_relative_eq;
use autodiff::grad;

/// A struct the gradient does not differentiate: its fields are constants.
pub struct Settings {
    pub w: f64,
    pub n: usize,
}

/// A struct field read inside a loop was recorded on an integer stack
/// (`t as i64`): d/dxs came out as [1, 1] at w = 1.5.
#[grad]
fn field_in_loop(p: &Settings, xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for &x in xs {
        s += p.w * x;
    }
    s
}

#[test]
fn a_struct_field_read_in_a_loop_keeps_its_type() {
    let p = Settings { w: 1.5, n: 2 };
    let (v, d) = field_in_loop_grad(&p, &[1.0, 2.0]);
    assert_eq!(v, 4.5);
    assert_eq!(d, vec![1.5, 1.5]);
}

/// The field recorded in a loop where the pullback reads it (the product
/// of two active factors needs both), and an integer field as a bound.
#[grad]
fn field_recorded(p: &Settings, x: f64) -> f64 {
    let mut s = x;
    for _ in 0..p.n {
        let k = p.w;
        s = s * s * k;
    }
    s
}

#[test]
fn fields_recorded_on_the_stack_keep_their_types() {
    let p = Settings { w: 0.5, n: 2 };
    // s1 = x^2 w, s2 = s1^2 w = x^4 w^3; d/dx = 4 x^3 w^3.
    let x = 1.5;
    let (v, d) = field_recorded_grad(&p, x);
    assert_relative_eq!(v, x.powi(4) * 0.125, max_relative = 1e-15);
    assert_relative_eq!(d, 4.0 * x.powi(3) * 0.125, max_relative = 1e-15);
}

/// A tuple destructured into variables, then updated in a loop: the
/// gradient was 0.
#[grad]
fn tuple_then_loop(k: f64) -> f64 {
    let (mut x, _y) = (1.0, 2.0);
    for _ in 0..3 {
        x *= k;
    }
    x
}

/// `let (a, b) = (b, a);` swaps: both sides are evaluated first.
#[grad]
fn tuple_swap(a: f64, b: f64) -> f64 {
    let (a, b) = (b, a);
    a * 10.0 + b
}

#[test]
fn tuples_destructured_in_a_let_are_followed() {
    assert_eq!(tuple_then_loop_grad(2.0), (8.0, 12.0));
    assert_eq!(tuple_swap_grad(2.0, 3.0), (32.0, 1.0, 10.0));
}

const K: f64 = 0.5;

/// A user `const` as the initial value of an accumulator: d/dx was 0.
#[grad]
fn const_then_loop(x: f64) -> f64 {
    let mut q = K;
    for _ in 0..3 {
        q += x;
    }
    q
}

/// The same in straight-line code (it was refused), and `let h;` whose
/// first assignment is a `const` (refused: "cannot tell the type").
#[grad]
fn const_straight(x: f64) -> f64 {
    let mut q = K;
    q += x;
    let h;
    h = K;
    q * q * h
}

/// An exponent computed from a `const` in a loop: the derivative was 0.
#[grad]
fn const_exponent(x: f64) -> f64 {
    let mut t = x;
    for _ in 0..2 {
        t = t.powf(K.tanh());
    }
    t
}

#[test]
fn user_constants_start_active_variables() {
    assert_eq!(const_then_loop_grad(2.0), (6.5, 3.0));
    // (0.5 + x)^2 * 0.5 at x = 2: value 3.125, derivative (0.5 + x).
    assert_eq!(const_straight_grad(2.0), (3.125, 2.5));
    let p = K.tanh() * K.tanh();
    let (v, d) = const_exponent_grad(2.0);
    assert_relative_eq!(v, 2.0f64.powf(p), max_relative = 1e-15);
    assert_relative_eq!(d, p * 2.0f64.powf(p - 1.0), max_relative = 1e-14);
}

/// `T::zero()` then a loop, in a generic function: the gradient was 0.
#[grad]
fn generic_sum_of_squares<T: autodiff::Float>(xs: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..xs.len() {
        s += xs[i] * xs[i];
    }
    s
}

#[test]
fn a_generic_zero_starts_an_active_accumulator() {
    assert_eq!(
        generic_sum_of_squares_grad(&[1.0f64, 2.0]),
        (5.0, vec![2.0, 4.0])
    );
    assert_eq!(generic_sum_of_squares_grad(&[3.0f32]), (9.0, vec![6.0]));
}

//! A float parameter taken by `&mut`: its entry value is what `_grad`
//! differentiates with respect to, and `_grad` writes its last value back,
//! as the function does. Exact values.

use autodiff::{grad, Float};

/// Accumulates into `acc` and returns a reading of it.
#[grad]
fn accumulate(acc: &mut f64, y: f64) -> f64 {
    *acc += y * y;
    let reading = *acc * y;
    *acc *= 0.5;
    reading
}

#[test]
fn a_float_through_mut_is_its_entry_value_and_is_written_back() {
    let mut acc = 2.0;
    let (v, d_acc, dy) = accumulate_grad(&mut acc, 3.0);
    assert_eq!(v, 33.0);
    assert_eq!(d_acc, 3.0);
    assert_eq!(dy, 11.0 + 18.0);
    // As the function leaves it.
    let mut plain = 2.0;
    accumulate(&mut plain, 3.0);
    assert_eq!(acc, plain);
    assert_eq!(acc, 5.5);
}

/// In a loop and a branch, generic.
#[grad]
fn relax<T: Float>(state: &mut T, target: T, steps: usize) -> T {
    let mut err = T::zero();
    for _ in 0..steps {
        let gap = target - *state;
        if gap > T::zero() {
            *state += 0.5 * gap;
        } else {
            *state += 0.25 * gap;
        }
        err += gap * gap;
    }
    err
}

#[test]
fn a_generic_float_through_mut_in_a_loop() {
    let mut s = 0.0f64;
    let (v, ds, dt) = relax_grad(&mut s, 1.0, 3);
    // gaps 1, 0.5, 0.25: err = 1 + 1/4 + 1/16; each gap = (t − s0)/2^k.
    assert_eq!(v, 1.3125);
    assert_eq!(ds, -2.0 * (1.0 + 0.25 + 0.0625));
    assert_eq!(dt, 2.0 * (1.0 + 0.25 + 0.0625));
    assert_eq!(s, 0.875);
}

/// A writer: returns nothing, writes one float through `&mut`. Its
/// `_grad` gives that float's new value and its gradient; callers write
/// `update(&mut s, y)` in differentiated code, in loops too.
#[grad]
fn relax_once(x: &mut f64, target: f64) {
    if target < 0.0 {
        return;
    }
    *x += 0.5 * (target - *x);
}

#[grad]
fn relaxed_square(s0: f64, target: f64) -> f64 {
    let mut s = s0;
    relax_once(&mut s, target);
    for _ in 0..3 {
        relax_once(&mut s, 2.0 * target);
    }
    s * s
}

#[test]
fn a_writer_called_with_mut_from_differentiated_code() {
    let mut x = 1.0;
    let (v, dx, dt) = relax_once_grad(&mut x, 3.0);
    assert_eq!((v, dx, dt), (2.0, 0.5, 0.5));
    assert_eq!(x, 2.0);
    let f = |s0: f64, t: f64| {
        let mut s = s0;
        relax_once(&mut s, t);
        for _ in 0..3 {
            relax_once(&mut s, 2.0 * t);
        }
        s * s
    };
    let (v, ds, dt) = relaxed_square_grad(1.0, 3.0);
    assert_eq!(v, f(1.0, 3.0));
    // s = s0/16 + t/16 + (1 − 1/8)·2t, linear in s0 and t.
    let s = 1.0 / 16.0 + 3.0 / 16.0 + 0.875 * 6.0;
    assert_eq!(v, s * s);
    assert_eq!(ds, 2.0 * s / 16.0);
    assert_eq!(dt, 2.0 * s * (1.0 / 16.0 + 1.75));
}

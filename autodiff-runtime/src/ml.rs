//! Primitives of machine learning, numerically stable for large |x|.

use crate::float::scale;
use crate::Float;

/// The logistic function σ(x) = 1/(1 + e⁻ˣ), computed without overflow:
/// it branches on the sign of x so that only e raised to a non-positive
/// power is ever evaluated (1/(1 + e⁻ˣ) for x ≥ 0, eˣ/(1 + eˣ) below).
/// σ(1000) is 1 and σ(−1000) is 0, the true values rounded; never NaN
/// (except for a NaN input).
#[inline]
pub fn sigmoid<T: Float>(x: T) -> T {
    if x >= T::zero() {
        (T::one() + (-x).exp()).recip()
    } else {
        let e = x.exp();
        e / (T::one() + e)
    }
}

/// σ'(x) = σ(x)(1 − σ(x)) = y(1 − y), from the output alone (no `exp`).
/// Finite everywhere. For x ≤ 0 it is accurate in relative terms; for
/// large positive x, 1 − y loses relative accuracy as y nears 1 (the error
/// stays below about 1e-16 in absolute terms in f64, and the result is 0
/// once y rounds to 1, past x ≈ 36.7). Only `y` is read, so the code
/// generated for loops records nothing else.
#[inline]
pub fn sigmoid_pullback<T: Float>(_x: T, y: T, dy: T) -> T {
    scale(dy, y * (T::one() - y))
}

/// relu(x) = x for x > 0, else 0. A NaN input gives NaN (unlike
/// `x.max(0.0)`, which would return 0 and hide it).
#[inline]
pub fn relu<T: Float>(x: T) -> T {
    if x > T::zero() || x.is_nan() {
        x
    } else {
        T::zero()
    }
}

/// relu'(x) = 1 for x > 0 and 0 for x ≤ 0: relu'(0) = 0, the usual
/// convention (the kink's subgradient is [0, 1]). relu'(x) is 1 exactly
/// when x > 0, so a NaN input gets 0 (the NaN is already in the value).
#[inline]
pub fn relu_pullback<T: Float>(x: T, _y: T, dy: T) -> T {
    if x > T::zero() {
        dy
    } else {
        T::zero()
    }
}

/// softplus(x) = ln(1 + eˣ), computed as max(x, 0) + ln(1 + e^−|x|): no
/// overflow for large x, no loss to rounding for very negative x.
#[inline]
pub fn softplus<T: Float>(x: T) -> T {
    x.max(T::zero()) + (-x.abs()).exp().ln_1p()
}

/// softplus'(x) = eˣ/(1 + eˣ) = σ(x), computed with the stable [`sigmoid`]:
/// finite everywhere, accurate in relative terms for negative x.
#[inline]
pub fn softplus_pullback<T: Float>(x: T, _y: T, dy: T) -> T {
    scale(dy, sigmoid(x))
}

/// ln σ(x) = −softplus(−x), stable for large |x|.
#[inline]
pub fn log_sigmoid<T: Float>(x: T) -> T {
    -softplus(-x)
}

/// d/dx ln σ(x) = 1 − σ(x) = σ(−x), computed as σ(−x) so that it does not
/// cancel to 0 for large x.
#[inline]
pub fn log_sigmoid_pullback<T: Float>(x: T, _y: T, dy: T) -> T {
    scale(dy, sigmoid(-x))
}

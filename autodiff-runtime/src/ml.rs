//! Primitives of machine learning, numerically stable for large |x|.

use crate::Float;

/// The logistic function σ(x) = 1/(1 + e⁻ˣ), computed without overflow:
/// only e raised to a non-positive power is ever evaluated, so σ(±1000) is
/// exactly 1 or a tiny positive number, never NaN.
#[inline]
pub fn sigmoid<T: Float>(x: T) -> T {
    if x >= T::zero() {
        (T::one() + (-x).exp()).recip()
    } else {
        let e = x.exp();
        e / (T::one() + e)
    }
}

/// σ'(x) = σ(x)(1 − σ(x)) = y(1 − y).
#[inline]
pub fn sigmoid_pullback<T: Float>(_x: T, y: T, dy: T) -> T {
    dy * y * (T::one() - y)
}

/// relu(x) = max(x, 0); NaN stays NaN.
#[inline]
pub fn relu<T: Float>(x: T) -> T {
    if x > T::zero() || x.is_nan() {
        x
    } else {
        T::zero()
    }
}

/// relu'(x) = 1 for x > 0 and 0 for x ≤ 0: relu'(0) = 0, the usual
/// convention.
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

/// softplus'(x) = σ(x).
#[inline]
pub fn softplus_pullback<T: Float>(x: T, _y: T, dy: T) -> T {
    dy * sigmoid(x)
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
    dy * sigmoid(-x)
}

//! Trigonometric and hyperbolic functions, their inverses, `atan2`,
//! `hypot` and angle conversions.

use crate::macros::unary_rule;
use crate::Float;

unary_rule!(
    /// d/dx sin x = cos x.
    sin, sin_pullback, sin_pullback_unguarded, |x, y| x.cos()
);
unary_rule!(
    /// d/dx cos x = −sin x.
    cos, cos_pullback, cos_pullback_unguarded, |x, y| -x.sin()
);
/// `x.sin()` and its derivative `cos x`, from one call to `sincos`
/// ([`Float::sin_cos_once`]). Generated code calls it where the reverse sweep needs
/// the derivative of an active `sin` (and records the derivative inside
/// a loop instead of `x`); its pullback is then
/// [`scale`](crate::float::scale)`(dy, derivative)`. The value is the
/// same as [`sin`]'s, bit for bit.
#[inline]
pub fn sin_with_partial<T: Float>(x: T) -> (T, T) {
    x.sin_cos_once()
}

/// `x.cos()` and its derivative `−sin x`, from one call to `sincos` (see
/// [`sin_with_partial`]).
#[inline]
pub fn cos_with_partial<T: Float>(x: T) -> (T, T) {
    let (sin, cos) = x.sin_cos_once();
    (cos, -sin)
}

unary_rule!(
    /// d/dx tan x = 1 + tan² x = 1 + y².
    tan, tan_pullback, tan_pullback_unguarded, |x, y| T::one() + y * y
);
unary_rule!(
    /// d/dx asin x = 1/√(1 − x²). At x = ±1 (asin = ±π/2) it is the
    /// one-sided limit +∞, with 0·∞ = 0 as for `sqrt`: a zero `dy` gives
    /// exactly 0. NaN outside [−1, 1], where asin itself is NaN.
    asin, asin_pullback, asin_pullback_unguarded, zero_dy_gives_zero |x, y| (T::one() - x * x).sqrt().recip()
);
unary_rule!(
    /// d/dx acos x = −1/√(1 − x²). At x = ±1 it is −∞, with 0·∞ = 0: a
    /// zero `dy` gives exactly 0. NaN outside [−1, 1].
    acos, acos_pullback, acos_pullback_unguarded, zero_dy_gives_zero |x, y| -(T::one() - x * x).sqrt().recip()
);
unary_rule!(
    /// d/dx atan x = 1/(1 + x²).
    atan, atan_pullback, atan_pullback_unguarded, |x, y| (T::one() + x * x).recip()
);
unary_rule!(
    /// d/dx sinh x = cosh x.
    sinh, sinh_pullback, sinh_pullback_unguarded, |x, y| x.cosh()
);
unary_rule!(
    /// d/dx cosh x = sinh x.
    cosh, cosh_pullback, cosh_pullback_unguarded, |x, y| x.sinh()
);
unary_rule!(
    /// d/dx tanh x = 1 − tanh² x = 1 − y².
    tanh, tanh_pullback, tanh_pullback_unguarded, |x, y| T::one() - y * y
);
unary_rule!(
    /// d/dx asinh x = 1/√(x² + 1).
    asinh, asinh_pullback, asinh_pullback_unguarded, |x, y| (x * x + T::one()).sqrt().recip()
);
unary_rule!(
    /// d/dx acosh x = 1/√(x² − 1). At x = 1 (acosh = 0) it is +∞, with
    /// 0·∞ = 0: a zero `dy` gives exactly 0. NaN below 1.
    acosh, acosh_pullback, acosh_pullback_unguarded, zero_dy_gives_zero |x, y| (x * x - T::one()).sqrt().recip()
);
unary_rule!(
    /// d/dx atanh x = 1/(1 − x²); +∞ at x = ±1 (where atanh is ±∞).
    atanh, atanh_pullback, atanh_pullback_unguarded, |x, y| (T::one() - x * x).recip()
);
unary_rule!(
    /// d/dx (180/π)·x = 180/π.
    to_degrees, to_degrees_pullback, to_degrees_pullback_unguarded, |x, y| T::from_f64(180.0 / core::f64::consts::PI)
);
unary_rule!(
    /// d/dx (π/180)·x = π/180.
    to_radians, to_radians_pullback, to_radians_pullback_unguarded, |x, y| T::from_f64(core::f64::consts::PI / 180.0)
);

/// `y.atan2(x)`, the angle of the point (x, y).
#[inline]
pub fn atan2<T: Float>(y: T, x: T) -> T {
    y.atan2(x)
}

/// ∂/∂y atan2(y, x) = x/(x² + y²), ∂/∂x atan2(y, x) = −y/(x² + y²). At the
/// origin, where atan2 has no derivative, both partials are 0.
#[inline]
pub fn atan2_pullback<T: Float>(y: T, x: T, _out: T, dout: T) -> (T, T) {
    let r2 = x * x + y * y;
    if r2.primal_eq(T::zero()) {
        return (T::zero(), T::zero());
    }
    let s = dout / r2;
    (s * x, -s * y)
}

/// `a.hypot(b)`, √(a² + b²) without overflow.
#[inline]
pub fn hypot<T: Float>(a: T, b: T) -> T {
    a.hypot(b)
}

/// ∂/∂a hypot(a, b) = a/h, ∂/∂b = b/h with h = hypot(a, b) = y. At the
/// origin (h = 0), where hypot has no derivative, both partials are 0.
#[inline]
pub fn hypot_pullback<T: Float>(a: T, b: T, y: T, dy: T) -> (T, T) {
    if y.primal_eq(T::zero()) {
        return (T::zero(), T::zero());
    }
    let s = dy / y;
    (s * a, s * b)
}

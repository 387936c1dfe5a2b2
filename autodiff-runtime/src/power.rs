//! Roots and powers.

use crate::float::scale;
use crate::Float;

/// `x.sqrt()`.
#[inline]
pub fn sqrt<T: Float>(x: T) -> T {
    x.sqrt()
}

/// d/dx √x = 1/(2√x) = 1/(2y). At x = 0 this is the one-sided limit +∞
/// (also at x = −0, where y = −0: hence the `abs`), with the convention
/// 0·∞ = 0: a zero `dy` gives exactly 0, so a square root whose result is
/// not used cannot put NaN into a gradient. NaN for x < 0, like the value.
#[inline]
pub fn sqrt_pullback<T: Float>(_x: T, y: T, dy: T) -> T {
    scale(dy, (y + y).abs().recip())
}

/// [`sqrt_pullback`] without the zero-adjoint guard, for the first attempt of a
/// reverse sweep (see [`crate::float::first_try`]).
#[doc(hidden)]
#[inline]
pub fn sqrt_pullback_unguarded<T: Float>(_x: T, y: T, dy: T) -> T {
    dy * (y + y).abs().recip()
}

/// `x.cbrt()`.
#[inline]
pub fn cbrt<T: Float>(x: T) -> T {
    x.cbrt()
}

/// d/dx ∛x = 1/(3∛x²) = 1/(3y²); at 0 the limit +∞ (from both sides), with
/// 0·∞ = 0 as for `sqrt`: a zero `dy` gives exactly 0.
#[inline]
pub fn cbrt_pullback<T: Float>(_x: T, y: T, dy: T) -> T {
    scale(dy, (T::from_f64(3.0) * y * y).recip())
}

/// [`cbrt_pullback`] without the zero-adjoint guard, for the first attempt of a
/// reverse sweep (see [`crate::float::first_try`]).
#[doc(hidden)]
#[inline]
pub fn cbrt_pullback_unguarded<T: Float>(_x: T, y: T, dy: T) -> T {
    dy * (T::from_f64(3.0) * y * y).recip()
}

/// `x.powi(n)`.
#[inline]
pub fn powi<T: Float>(x: T, n: i32) -> T {
    x.powi(n)
}

/// d/dx xⁿ = n·xⁿ⁻¹, computed as such (not n·y/x), so x = 0 works: 0 for
/// n ≥ 2, 1 for n = 1, ±∞ for n < 0 (with 0·∞ = 0 as for `sqrt`). n = 0
/// gives exactly 0 everywhere, even at x = 0 where xⁿ⁻¹ is infinite. The
/// integer exponent gets no adjoint. (For n = `i32::MIN`, where n − 1
/// overflows, xⁿ⁻¹ is computed as xⁿ/x.) When `n` is a constant, as in
/// `x.powi(2)`, the branches on it fold away.
#[inline]
pub fn powi_pullback<T: Float>(x: T, n: i32, _y: T, dy: T) -> T {
    if n == 0 {
        return T::zero();
    }
    scale(dy, powi_slope(x, n))
}

/// n·xⁿ⁻¹ for n ≠ 0 (see [`powi_pullback`]).
#[inline]
fn powi_slope<T: Float>(x: T, n: i32) -> T {
    let x_n_minus_1 = match n.checked_sub(1) {
        Some(m) => x.powi(m),
        None => x.powi(n) / x,
    };
    T::from_f64(f64::from(n)) * x_n_minus_1
}

/// [`powi_pullback`] without the zero-adjoint guard, for the first attempt of a
/// reverse sweep (see [`crate::float::first_try`]).
#[doc(hidden)]
#[inline]
pub fn powi_pullback_unguarded<T: Float>(x: T, n: i32, _y: T, dy: T) -> T {
    if n == 0 {
        return T::zero();
    }
    dy * powi_slope(x, n)
}

/// `x.powf(e)`.
#[inline]
pub fn powf<T: Float>(x: T, e: T) -> T {
    x.powf(e)
}

/// ∂/∂x xᵉ = e·xᵉ⁻¹, computed as such (not e·y/x), so at x = 0 it is 0
/// for e > 1, 1 for e = 1 and +∞ for 0 < e < 1 (with 0·∞ = 0 as for
/// `sqrt`: a zero `dy` gives exactly 0); for e = 0 (y = 1 everywhere) it is
/// exactly 0, even at x = 0.
///
/// ∂/∂e xᵉ = xᵉ ln x = y·ln x, defined as 0 where y = 0 (the limit of
/// xᵉ ln x as x → 0⁺ for e > 0). At x = 0 with e ≤ 0 it is −∞ (xᵉ jumps
/// there). For x < 0, xᵉ exists only at integer e and has no derivative in
/// e: that partial is NaN. Both partials follow 0·∞ = 0, and 0·NaN = 0 for
/// this one: a zero `dy` gives exactly (0, 0).
#[inline]
pub fn powf_pullback<T: Float>(x: T, e: T, y: T, dy: T) -> (T, T) {
    let dx = if e.primal_eq(T::zero()) {
        T::zero()
    } else {
        scale(dy, e * x.powf(e - T::one()))
    };
    let de = if y.primal_eq(T::zero()) {
        T::zero()
    } else {
        scale(dy, y * x.ln())
    };
    (dx, de)
}

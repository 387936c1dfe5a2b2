//! Piecewise functions: `abs`, `signum`, `max`, `min`, `clamp`, the
//! rounding family and Euclidean division (`rem_euclid`, `div_euclid`),
//! with their almost-everywhere derivatives.

use crate::float::scale;
use crate::macros::unary_rule;
use crate::Float;

/// `x.abs()`.
#[inline]
pub fn abs<T: Float>(x: T) -> T {
    x.abs()
}

/// d/dx |x| = signum(x) for x ≠ 0, and 0 at x = 0 and −0 (the subgradient
/// in the middle of [−1, 1]). NaN stays NaN.
#[inline]
pub fn abs_pullback<T: Float>(x: T, _y: T, dy: T) -> T {
    if x.primal_eq(T::zero()) {
        T::zero()
    } else {
        scale(dy, x.signum())
    }
}

/// [`abs_pullback`] without the zero-adjoint guard, for the first attempt of a
/// reverse sweep (see [`crate::float::first_try`]).
#[doc(hidden)]
#[inline]
pub fn abs_pullback_unguarded<T: Float>(x: T, _y: T, dy: T) -> T {
    if x.primal_eq(T::zero()) {
        T::zero()
    } else {
        dy * x.signum()
    }
}

unary_rule!(
    /// d/dx signum(x) = 0 everywhere (the jump at 0 has no derivative).
    signum, signum_pullback, signum_pullback_unguarded, |x, y| T::zero()
);
unary_rule!(
    /// d/dx ⌊x⌋ = 0 almost everywhere (0 at the jumps too).
    floor, floor_pullback, floor_pullback_unguarded, |x, y| T::zero()
);
unary_rule!(
    /// d/dx ⌈x⌉ = 0 almost everywhere (0 at the jumps too).
    ceil, ceil_pullback, ceil_pullback_unguarded, |x, y| T::zero()
);
unary_rule!(
    /// d/dx round(x) = 0 almost everywhere (0 at the jumps too).
    round, round_pullback, round_pullback_unguarded, |x, y| T::zero()
);
unary_rule!(
    /// d/dx trunc(x) = 0 almost everywhere (0 at the jumps too).
    trunc, trunc_pullback, trunc_pullback_unguarded, |x, y| T::zero()
);
unary_rule!(
    /// d/dx fract(x) = d/dx (x − trunc x) = 1 almost everywhere (1 at the
    /// jumps too).
    fract, fract_pullback, fract_pullback_unguarded, |x, y| T::one()
);

/// `a.rem_euclid(b)`, the remainder in [0, |b|) ([`Float::rem_euclid`]).
#[inline]
pub fn rem_euclid<T: Float>(a: T, b: T) -> T {
    Float::rem_euclid(a, b)
}

/// ∂/∂a = 1, ∂/∂b = −q with q = a.div_euclid(b) (from a = b·q + r, the
/// quotient piecewise constant): −trunc(a/b), as for `%`, plus sign(b)
/// where `a % b` is negative and the remainder was moved up by |b|. At the
/// jumps (a a multiple of b) the same formulas (the jump contributes 0,
/// as for `floor`).
#[inline]
pub fn rem_euclid_pullback<T: Float>(a: T, b: T, _y: T, dy: T) -> (T, T) {
    let mut db = -(a / b).trunc();
    if a % b < T::zero() {
        db += b.signum();
    }
    (dy, scale(dy, db))
}

/// `a.div_euclid(b)`, the quotient of [`rem_euclid`]
/// ([`Float::div_euclid`]).
#[inline]
pub fn div_euclid<T: Float>(a: T, b: T) -> T {
    Float::div_euclid(a, b)
}

/// ∂/∂a = ∂/∂b = 0 almost everywhere: an integer, piecewise constant (0
/// at the jumps too).
#[inline]
pub fn div_euclid_pullback<T: Float>(_a: T, _b: T, _y: T, _dy: T) -> (T, T) {
    (T::zero(), T::zero())
}

/// Splits `dy` between two arguments of `max`/`min`: to the one that was
/// returned, evenly on an exact tie.
#[inline]
fn select<T: Float>(a: T, b: T, y: T, dy: T) -> (T, T) {
    if a.primal_eq(b) {
        let half = dy * T::from_f64(0.5);
        (half, half)
    } else if y.primal_eq(a) {
        (dy, T::zero())
    } else {
        (T::zero(), dy)
    }
}

/// `a.max(b)`; if one argument is NaN, the other.
#[inline]
pub fn max<T: Float>(a: T, b: T) -> T {
    a.max(b)
}

/// ∂max(a, b)/∂a = 1 if a > b, 0 if a < b: the adjoint goes to the argument
/// `max` returned. On an exact tie a = b (including 0 = −0) it is split
/// evenly, dy/2 each (the middle of the subgradient). When one argument is
/// NaN, `max` returns the other, which gets all of it; when both are, `b`
/// gets it.
#[inline]
pub fn max_pullback<T: Float>(a: T, b: T, y: T, dy: T) -> (T, T) {
    select(a, b, y, dy)
}

/// `a.min(b)`; if one argument is NaN, the other.
#[inline]
pub fn min<T: Float>(a: T, b: T) -> T {
    a.min(b)
}

/// ∂min(a, b)/∂a = 1 if a < b, 0 if a > b: the adjoint goes to the argument
/// `min` returned, split evenly (dy/2 each) on an exact tie, and to the
/// non-NaN argument when one is NaN, as for [`max_pullback`].
#[inline]
pub fn min_pullback<T: Float>(a: T, b: T, y: T, dy: T) -> (T, T) {
    select(a, b, y, dy)
}

/// `x.clamp(lo, hi)`; panics as `f64::clamp` does if `lo > hi` or either is
/// NaN.
#[inline]
pub fn clamp<T: Float>(x: T, lo: T, hi: T) -> T {
    assert!(
        lo <= hi,
        "clamp: min > max, or either was NaN. min = {lo:?}, max = {hi:?}"
    );
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// ∂clamp/∂x = 1 inside, ∂clamp/∂lo = 1 below, ∂clamp/∂hi = 1 above: the
/// adjoint goes to `x` when lo ≤ x ≤ hi (at a bound, `x` gets it), to `lo`
/// when x < lo and to `hi` when x > hi. A NaN `x` (clamp returns it) gets
/// it too.
#[inline]
pub fn clamp_pullback<T: Float>(x: T, lo: T, hi: T, _y: T, dy: T) -> (T, T, T) {
    let zero = T::zero();
    if x < lo {
        (zero, dy, zero)
    } else if x > hi {
        (zero, zero, dy)
    } else {
        (dy, zero, zero)
    }
}

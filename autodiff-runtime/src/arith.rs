//! Arithmetic: `+ - * / %`, negation and `recip`.

use crate::float::scale;
use crate::Float;

/// `a + b`.
#[inline]
pub fn add<T: Float>(a: T, b: T) -> T {
    a + b
}

/// ∂(a + b)/∂a = 1, ∂(a + b)/∂b = 1.
#[inline]
pub fn add_pullback<T: Float>(_a: T, _b: T, _y: T, dy: T) -> (T, T) {
    (dy, dy)
}

/// `a - b`.
#[inline]
pub fn sub<T: Float>(a: T, b: T) -> T {
    a - b
}

/// ∂(a − b)/∂a = 1, ∂(a − b)/∂b = −1.
#[inline]
pub fn sub_pullback<T: Float>(_a: T, _b: T, _y: T, dy: T) -> (T, T) {
    (dy, -dy)
}

/// `a * b`.
#[inline]
pub fn mul<T: Float>(a: T, b: T) -> T {
    a * b
}

/// ∂(ab)/∂a = b, ∂(ab)/∂b = a.
#[inline]
pub fn mul_pullback<T: Float>(a: T, b: T, _y: T, dy: T) -> (T, T) {
    (scale(dy, b), scale(dy, a))
}

/// [`mul_pullback`] without the zero-adjoint guard: `dy · b`, `dy · a`,
/// so 0·∞ gives NaN. Generated code calls it only in the first attempt of
/// a reverse sweep that it repeats with the guarded rules when a gradient
/// entry comes out NaN (see [`crate::float::first_try`]).
#[doc(hidden)]
#[inline]
pub fn mul_pullback_unguarded<T: Float>(a: T, b: T, _y: T, dy: T) -> (T, T) {
    (dy * b, dy * a)
}

/// `a / b`.
#[inline]
pub fn div<T: Float>(a: T, b: T) -> T {
    a / b
}

/// ∂(a/b)/∂a = 1/b, ∂(a/b)/∂b = −a/b² = −y/b (using the output y = a/b, so
/// `a` is not read). At b = 0 the partials are infinite or NaN, like the
/// value.
#[inline]
pub fn div_pullback<T: Float>(_a: T, b: T, y: T, dy: T) -> (T, T) {
    if dy == T::zero() {
        return (T::zero(), T::zero());
    }
    let da = dy / b;
    (da, -da * y)
}

/// [`div_pullback`] without the zero-adjoint guard, for the first attempt
/// of a reverse sweep (see [`crate::float::first_try`]).
#[doc(hidden)]
#[inline]
pub fn div_pullback_unguarded<T: Float>(_a: T, b: T, y: T, dy: T) -> (T, T) {
    let da = dy / b;
    (da, -da * y)
}

/// `a % b`, Rust's remainder: a − b·trunc(a/b).
#[inline]
pub fn rem<T: Float>(a: T, b: T) -> T {
    a % b
}

/// ∂(a % b)/∂a = 1, ∂(a % b)/∂b = −trunc(a/b) (from a % b = a − b·trunc(a/b)
/// with the truncated quotient piecewise constant). Where a is a multiple of
/// b the value jumps and has no derivative; the same formulas are used
/// there (the jump itself contributes 0, as for `floor`).
#[inline]
pub fn rem_pullback<T: Float>(a: T, b: T, _y: T, dy: T) -> (T, T) {
    (dy, -scale(dy, (a / b).trunc()))
}

/// `-x`.
#[inline]
pub fn neg<T: Float>(x: T) -> T {
    -x
}

/// d(−x)/dx = −1.
#[inline]
pub fn neg_pullback<T: Float>(_x: T, _y: T, dy: T) -> T {
    -dy
}

/// `x.recip()`, 1/x.
#[inline]
pub fn recip<T: Float>(x: T) -> T {
    x.recip()
}

/// d(1/x)/dx = −1/x² = −y². At x = 0 it is −∞ (y = ±∞).
#[inline]
pub fn recip_pullback<T: Float>(_x: T, y: T, dy: T) -> T {
    -scale(dy, y * y)
}

/// [`recip_pullback`] without the zero-adjoint guard, for the first attempt of a
/// reverse sweep (see [`crate::float::first_try`]).
#[doc(hidden)]
#[inline]
pub fn recip_pullback_unguarded<T: Float>(_x: T, y: T, dy: T) -> T {
    -(dy * (y * y))
}

#[cfg(test)]
mod tests {
    /// The macro's `rules::PASSES_DY` relies on this: `a + b` hands `dy`
    /// to both arguments and `a - b` to `a`, bit for bit, whatever the
    /// inputs (the reverse of an increment then keeps an adjoint element
    /// in place instead of taking it out and adding it back).
    #[test]
    fn hands_dy_on_unchanged() {
        let values = [0.0, -0.0, 1.5, -2.25, 1e300, f64::INFINITY, f64::NAN];
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits();
        for a in values {
            for b in values {
                for dy in values {
                    let y = super::add(a, b);
                    let (ga, gb) = super::add_pullback(a, b, y, dy);
                    assert!(same(ga, dy) && same(gb, dy));
                    let y = super::sub(a, b);
                    assert!(same(super::sub_pullback(a, b, y, dy).0, dy));
                }
            }
        }
    }
}

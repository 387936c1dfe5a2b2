//! Arithmetic: `+ - * / %`, negation and `recip`.
//!
//! The pullbacks of `+ - * / %` and negation take any [`Arith`]: a float,
//! or an integer whose type the source does not state (`(l.rows *
//! l.cols) as f64` of a struct's `usize` fields, which the macro cannot
//! tell from floats), whose partials are zero: an integer carries no
//! derivative.

use crate::float::scale;
use crate::Float;

/// A value the arithmetic pullbacks take: a float ([`Float`]), or an
/// integer, whose partials are zero.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "#[grad] took a `{Self}` for a float in `+ - * / %`: an operand whose type the source does not show (a struct's field, as in `r.o + r.d * t`) is read as a float",
    label = "`{Self}` is not a float",
    note = "for an operator of a struct, state the type where the result is bound (`let p: V3 = r.o + r.d * t;`) or call the operator's method (`r.o.add(r.d.mul(t))`), with #[grad] on the method in its `impl`"
)]
pub trait Arith: Copy {
    /// [`add_pullback`].
    fn add_pullback(a: Self, b: Self, y: Self, dy: Self) -> (Self, Self);
    /// [`sub_pullback`].
    fn sub_pullback(a: Self, b: Self, y: Self, dy: Self) -> (Self, Self);
    /// [`mul_pullback`].
    fn mul_pullback(a: Self, b: Self, y: Self, dy: Self) -> (Self, Self);
    /// [`mul_pullback_unguarded`].
    fn mul_pullback_unguarded(a: Self, b: Self, y: Self, dy: Self) -> (Self, Self);
    /// [`div_pullback`].
    fn div_pullback(a: Self, b: Self, y: Self, dy: Self) -> (Self, Self);
    /// [`div_pullback_unguarded`].
    fn div_pullback_unguarded(a: Self, b: Self, y: Self, dy: Self) -> (Self, Self);
    /// [`rem_pullback`].
    fn rem_pullback(a: Self, b: Self, y: Self, dy: Self) -> (Self, Self);
    /// [`neg_pullback`].
    fn neg_pullback(x: Self, y: Self, dy: Self) -> Self;
    /// One, the seed of a pullback that gives the partials ([`one_like`]).
    fn one() -> Self;
}

impl<T: Float> Arith for T {
    #[inline(always)]
    fn add_pullback(_a: T, _b: T, _y: T, dy: T) -> (T, T) {
        (dy, dy)
    }
    #[inline(always)]
    fn sub_pullback(_a: T, _b: T, _y: T, dy: T) -> (T, T) {
        (dy, -dy)
    }
    #[inline(always)]
    fn mul_pullback(a: T, b: T, _y: T, dy: T) -> (T, T) {
        (scale(dy, b), scale(dy, a))
    }
    #[inline(always)]
    fn mul_pullback_unguarded(a: T, b: T, _y: T, dy: T) -> (T, T) {
        (dy * b, dy * a)
    }
    #[inline(always)]
    fn div_pullback(_a: T, b: T, y: T, dy: T) -> (T, T) {
        if dy == T::zero() {
            return (T::zero(), T::zero());
        }
        let da = dy / b;
        (da, -da * y)
    }
    #[inline(always)]
    fn div_pullback_unguarded(_a: T, b: T, y: T, dy: T) -> (T, T) {
        let da = dy / b;
        (da, -da * y)
    }
    #[inline(always)]
    fn rem_pullback(a: T, b: T, _y: T, dy: T) -> (T, T) {
        (dy, -scale(dy, (a / b).trunc()))
    }
    #[inline(always)]
    fn neg_pullback(_x: T, _y: T, dy: T) -> T {
        -dy
    }
    #[inline(always)]
    fn one() -> T {
        T::one()
    }
}

macro_rules! no_derivative_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)]
            fn add_pullback(_: $t, _: $t, _: $t, _: $t) -> ($t, $t) { (0, 0) }
            #[inline(always)]
            fn sub_pullback(_: $t, _: $t, _: $t, _: $t) -> ($t, $t) { (0, 0) }
            #[inline(always)]
            fn mul_pullback(_: $t, _: $t, _: $t, _: $t) -> ($t, $t) { (0, 0) }
            #[inline(always)]
            fn mul_pullback_unguarded(_: $t, _: $t, _: $t, _: $t) -> ($t, $t) { (0, 0) }
            #[inline(always)]
            fn div_pullback(_: $t, _: $t, _: $t, _: $t) -> ($t, $t) { (0, 0) }
            #[inline(always)]
            fn div_pullback_unguarded(_: $t, _: $t, _: $t, _: $t) -> ($t, $t) { (0, 0) }
            #[inline(always)]
            fn rem_pullback(_: $t, _: $t, _: $t, _: $t) -> ($t, $t) { (0, 0) }
            #[inline(always)]
            fn neg_pullback(_: $t, _: $t, _: $t) -> $t { 0 }
            #[inline(always)]
            fn one() -> $t { 1 }
        }
    )*};
}

no_derivative_arith!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// One of `y`'s type: the seed of a pullback whose partials `_jvp` and
/// `_trace` read, where the source does not state the value's type (a
/// float, or a struct's integer field).
#[doc(hidden)]
#[inline(always)]
pub fn one_like<T: Arith>(_y: &T) -> T {
    T::one()
}

/// `a + b`.
#[inline]
pub fn add<T: Float>(a: T, b: T) -> T {
    a + b
}

/// ∂(a + b)/∂a = 1, ∂(a + b)/∂b = 1.
#[inline]
pub fn add_pullback<T: Arith>(a: T, b: T, y: T, dy: T) -> (T, T) {
    T::add_pullback(a, b, y, dy)
}

/// `a - b`.
#[inline]
pub fn sub<T: Float>(a: T, b: T) -> T {
    a - b
}

/// ∂(a − b)/∂a = 1, ∂(a − b)/∂b = −1.
#[inline]
pub fn sub_pullback<T: Arith>(a: T, b: T, y: T, dy: T) -> (T, T) {
    T::sub_pullback(a, b, y, dy)
}

/// `a * b`.
#[inline]
pub fn mul<T: Float>(a: T, b: T) -> T {
    a * b
}

/// ∂(ab)/∂a = b, ∂(ab)/∂b = a.
#[inline]
pub fn mul_pullback<T: Arith>(a: T, b: T, y: T, dy: T) -> (T, T) {
    T::mul_pullback(a, b, y, dy)
}

/// [`mul_pullback`] without the zero-adjoint guard: `dy · b`, `dy · a`,
/// so 0·∞ gives NaN. Generated code calls it only in the first attempt of
/// a reverse sweep that it repeats with the guarded rules when a gradient
/// entry comes out NaN (see [`crate::float::first_try`]).
#[doc(hidden)]
#[inline]
pub fn mul_pullback_unguarded<T: Arith>(a: T, b: T, y: T, dy: T) -> (T, T) {
    T::mul_pullback_unguarded(a, b, y, dy)
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
pub fn div_pullback<T: Arith>(a: T, b: T, y: T, dy: T) -> (T, T) {
    T::div_pullback(a, b, y, dy)
}

/// [`div_pullback`] without the zero-adjoint guard, for the first attempt
/// of a reverse sweep (see [`crate::float::first_try`]).
#[doc(hidden)]
#[inline]
pub fn div_pullback_unguarded<T: Arith>(a: T, b: T, y: T, dy: T) -> (T, T) {
    T::div_pullback_unguarded(a, b, y, dy)
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
pub fn rem_pullback<T: Arith>(a: T, b: T, y: T, dy: T) -> (T, T) {
    T::rem_pullback(a, b, y, dy)
}

/// `-x`.
#[inline]
pub fn neg<T: Float>(x: T) -> T {
    -x
}

/// d(−x)/dx = −1.
#[inline]
pub fn neg_pullback<T: Arith>(x: T, y: T, dy: T) -> T {
    T::neg_pullback(x, y, dy)
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

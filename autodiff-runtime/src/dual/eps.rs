//! The ε part of a [`Dual`](super::Dual): one direction (`T` itself, for
//! `_hvp`) or several carried together ([`Lanes`], for `_hessian`, which
//! takes [`LANES`] columns of the Hessian from one reverse sweep).
//!
//! Every rule of [`Dual`](super::Dual) writes its tangent once, through
//! [`Eps`]'s operations, and they apply it lane by lane: lane `l` of a
//! `Dual<T, Lanes<T, L>>` is, bit for bit, the `eps` of a `Dual<T>` seeded
//! with the `l`-th direction, and the real part is computed once for all
//! lanes.
//!
//! One exception, where the rules meet the crate's zero-adjoint guard
//! ([`scale`], which skips an adjoint that is zero in every part): an
//! adjoint that is zero in its real part and in lane `l` but not in
//! another lane is multiplied through, so lane `l` gets `0·s'` where a
//! single direction gets an exact 0. The two differ only where that
//! slope's tangent `s'` is infinite or NaN, at a point where the Hessian
//! does not exist; there the lane may be NaN (or a zero of the other
//! sign) where `_hvp` gives 0.
//!
//! ```
//! use autodiff_runtime::dual::{Dual, Lanes};
//! use num_traits::Float;
//!
//! // x·y at (2, 3), seeded with both unit directions at once.
//! let x: Dual<f64, Lanes<f64, 2>> = Dual::new(2.0, Lanes([1.0, 0.0]));
//! let y: Dual<f64, Lanes<f64, 2>> = Dual::new(3.0, Lanes([0.0, 1.0]));
//! let p = (x * y).sin();
//! let one: Dual<f64> = (Dual::new(2.0, 1.0) * Dual::new(3.0, 0.0)).sin();
//! assert_eq!(p.re, one.re);
//! assert_eq!(p.eps.0[0], one.eps);
//! ```

use core::fmt;
use core::ops::{Add, Neg, Sub};

use crate::differentiable::Differentiable;
use crate::float::scale;
use crate::Float;

/// How many directions `_hessian` carries in one sweep: the columns of
/// the Hessian one reverse sweep at `Dual<T, Lanes<T, LANES>>` gives.
pub const LANES: usize = 8;

/// The type of a dual number's ε part: `T` (one direction) or
/// [`Lanes<T, L>`] (`L` directions). Its operations apply a scalar rule to
/// every lane.
pub trait Eps<T: Float>:
    Copy
    + fmt::Debug
    + PartialEq
    + Default
    + Send
    + Sync
    + 'static
    + Differentiable
    + Add<Output = Self>
    + Sub<Output = Self>
    + Neg<Output = Self>
{
    /// Zero in every lane: a constant's tangent.
    fn none() -> Self;
    /// Every lane exactly zero.
    fn is_none(&self) -> bool;
    /// `f` of every lane.
    fn map(self, f: impl Fn(T) -> T) -> Self;
    /// `f` of every pair of lanes.
    fn zip(self, other: Self, f: impl Fn(T, T) -> T) -> Self;
    /// Whether `p` holds of some lane.
    fn any(&self, p: impl Fn(T) -> bool) -> bool;
    /// [`scale`] of every lane by `s`: a zero lane stays exactly zero,
    /// even where `s` is infinite or NaN.
    #[inline]
    fn scaled(self, s: T) -> Self {
        self.map(|d| scale(d, s))
    }
    /// Every lane divided by `denominator`, a zero lane exactly zero (the
    /// quotient form of [`Eps::scaled`], for slopes that are
    /// reciprocals).
    #[inline]
    fn over(self, denominator: T) -> Self {
        self.map(|d| {
            if d == T::zero() {
                T::zero()
            } else {
                d / denominator
            }
        })
    }
    /// Writes ` + 0.25ε` (with the lanes' sign or list), after the real
    /// part, for [`Dual`](super::Dual)'s `Display`.
    fn fmt_after(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

impl<T: Float> Eps<T> for T {
    #[inline]
    fn none() -> T {
        T::zero()
    }
    #[inline]
    fn is_none(&self) -> bool {
        *self == T::zero()
    }
    #[inline]
    fn map(self, f: impl Fn(T) -> T) -> T {
        f(self)
    }
    #[inline]
    fn zip(self, other: T, f: impl Fn(T, T) -> T) -> T {
        f(self, other)
    }
    #[inline]
    fn any(&self, p: impl Fn(T) -> bool) -> bool {
        p(*self)
    }
    /// `1.5 - 0.25ε` for a negative `eps`, `1.5 + 0.25ε` otherwise; a
    /// precision, as in `{:.3}`, applies to both parts.
    fn fmt_after(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (sign, eps) = if self.is_sign_negative() && !self.is_nan() {
            ('-', -*self)
        } else {
            ('+', *self)
        };
        match f.precision() {
            Some(p) => write!(f, " {} {:.*}ε", sign, p, eps),
            None => write!(f, " {} {}ε", sign, eps),
        }
    }
}

/// `L` tangents of one value, one per direction: the ε part of a
/// `Dual<T, Lanes<T, L>>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lanes<T, const L: usize>(pub [T; L]);

impl<T: Float, const L: usize> Default for Lanes<T, L> {
    #[inline]
    fn default() -> Self {
        Lanes([T::zero(); L])
    }
}

impl<T: Float, const L: usize> Add for Lanes<T, L> {
    type Output = Self;
    #[inline]
    fn add(self, other: Self) -> Self {
        self.zip(other, |a, b| a + b)
    }
}

impl<T: Float, const L: usize> Sub for Lanes<T, L> {
    type Output = Self;
    #[inline]
    fn sub(self, other: Self) -> Self {
        self.zip(other, |a, b| a - b)
    }
}

impl<T: Float, const L: usize> Neg for Lanes<T, L> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        self.map(|a| -a)
    }
}

/// Lane by lane, each as `T` does it.
impl<T: Float, const L: usize> Differentiable for Lanes<T, L> {
    #[inline]
    fn zero_like(&self) -> Self {
        Lanes(core::array::from_fn(|l| self.0[l].zero_like()))
    }
    #[inline]
    fn accumulate(&mut self, other: &Self) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            a.accumulate(b);
        }
    }
    #[inline]
    fn scaled_add(&mut self, alpha: f64, other: &Self) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            a.scaled_add(alpha, b);
        }
    }
}

impl<T: Float, const L: usize> Eps<T> for Lanes<T, L> {
    #[inline]
    fn none() -> Self {
        Lanes([T::zero(); L])
    }
    #[inline]
    fn is_none(&self) -> bool {
        self.0.iter().all(|d| *d == T::zero())
    }
    #[inline]
    fn map(self, f: impl Fn(T) -> T) -> Self {
        Lanes(core::array::from_fn(|l| f(self.0[l])))
    }
    #[inline]
    fn zip(self, other: Self, f: impl Fn(T, T) -> T) -> Self {
        Lanes(core::array::from_fn(|l| f(self.0[l], other.0[l])))
    }
    #[inline]
    fn any(&self, p: impl Fn(T) -> bool) -> bool {
        self.0.iter().any(|d| p(*d))
    }
    /// ` + [0.25, -1]ε`; a precision applies to every lane.
    fn fmt_after(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(" + [")?;
        for (l, d) in self.0.iter().enumerate() {
            if l > 0 {
                f.write_str(", ")?;
            }
            match f.precision() {
                Some(p) => write!(f, "{:.*}", p, d)?,
                None => write!(f, "{}", d)?,
            }
        }
        f.write_str("]ε")
    }
}

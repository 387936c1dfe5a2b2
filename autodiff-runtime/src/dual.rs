//! Dual numbers, for second derivatives by forward-over-reverse.
//!
//! A [`Dual`] is `re + ε·eps` with ε² = 0: carried through any computation,
//! `eps` is the derivative of `re` along the direction the inputs were
//! seeded with. A reverse sweep written generically over [`Float`] (every
//! rule of this crate, and the code `#[grad]` generates) can be
//! instantiated at `Dual<f64>`: with the inputs seeded `x + ε·v` and the
//! output adjoint the constant 1, the `re` parts of the gradient are the
//! gradient and the `eps` parts are the Hessian-vector product H·v.
//!
//! ```
//! use autodiff_runtime::dual::Dual;
//! use autodiff_runtime::{arith, trig, Float};
//!
//! // f(x, y) = sin(x)·y and its reverse sweep, written once for any float.
//! fn gradient<T: Float>(x: T, y: T) -> (T, T) {
//!     let s = trig::sin(x);
//!     let f = arith::mul(s, y);
//!     let (ds, dy) = arith::mul_pullback(s, y, f, T::one());
//!     (trig::sin_pullback(x, s, ds), dy)
//! }
//!
//! // At f64: the gradient (y cos x, sin x).
//! let (gx, gy) = gradient(0.5, 2.0);
//! // At Dual<f64> seeded with v = (1, 0): the gradient again in `re`, and
//! // H·v = (−y sin x, cos x) in `eps`.
//! let (hx, hy) = gradient(Dual::new(0.5, 1.0), Dual::new(2.0, 0.0));
//! assert_eq!((hx.re, hy.re), (gx, gy));
//! assert!((hx.eps + 2.0 * 0.5_f64.sin()).abs() < 1e-15);
//! assert!((hy.eps - 0.5_f64.cos()).abs() < 1e-15);
//! ```
//!
//! # Conventions
//!
//! - Every `re` is what `T`'s own operation computes, bit for bit: the
//!   primal values of a sweep at `Dual<f64>` are those of the sweep at
//!   `f64`, and so are its branches.
//! - Every `eps` is the exact derivative by the chain rule, each term
//!   computed as [`scale`] does: a term whose incoming tangent is exactly
//!   zero is exactly zero, even where the slope is infinite or NaN. So a
//!   constant (`eps` = 0) goes through `sqrt(0)`, `ln(0)`, `1/0` or
//!   `powf` of a negative base with `eps` 0 and never NaN, as the crate's
//!   rules do with a zero adjoint.
//! - Where the derivative does not exist, the choice is that of the
//!   crate's pullbacks (see the crate's documentation), so that the
//!   tangent of a value agrees with the rule that differentiates it: `abs`
//!   at ±0 has slope 0; `max` and `min` take the tangent of the operand
//!   they return, the mean of both on an exact tie, and the other
//!   operand's when one is NaN (`other`'s when both are); `clamp` takes
//!   `x`'s at a bound; `atan2` and `hypot` at the origin have slope 0;
//!   `powi` with n = 0 and `powf` with a zero exponent have slope 0 in the
//!   base; `powf`'s slope in the exponent is 0 where the power is 0; the
//!   rounding family has slope 0, `fract` 1, and `%` slope 1 in its first
//!   operand and −trunc(a/b) in its second.
//! - `==` compares both parts, `<` and friends `re` only: see [`Dual`].
//!
//! [`scale`]: crate::float::scale

use core::cmp::Ordering;
use core::fmt;
use core::num::FpCategory;
use core::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

use num_traits::{FloatConst, Num, NumCast, One, ToPrimitive, Zero};

use crate::differentiable::Differentiable;
use crate::float::scale;
use crate::Float;

mod eps;

pub use eps::{Eps, Lanes, LANES};

/// `re + ε·eps` with ε² = 0: a value and its derivative along one
/// direction, for forward-over-reverse second derivatives (see the
/// [module documentation](self)).
///
/// It implements [`Float`], so every rule of this crate runs on it; the
/// `eps` part of each operation is its exact derivative.
///
/// # Equality and order differ on purpose
///
/// `a == b` holds when **both** parts are equal, while `a < b`, `a <= b`,
/// `partial_cmp` and so on compare `re` **only** (`partial_cmp` is `None`
/// exactly where `re`'s is). So `Dual::new(0.0, 1.0) == Dual::constant(0.0)`
/// is false, and yet neither is less than the other (`partial_cmp` gives
/// `Some(Equal)`), which `PartialOrd`'s documentation otherwise asks to
/// agree with `==`.
///
/// - Order follows the primal values, so that every branch of a rule or of
///   generated code (`if x > 0`, `max`, `clamp`) takes the way the same
///   code takes at `f64`, and the second derivative is that of the branch
///   taken.
/// - Equality sees the tangent, so that a guard such as
///   `if dy == T::zero()` in [`scale`] skips only an adjoint that is zero
///   in both parts: an adjoint `0 + ε·1` still carries a Hessian entry and
///   must not be dropped.
///
/// [`Zero::is_zero`] and [`One::is_one`] agree with `==`.
///
/// `E` is the type of the ε part: `T` for one direction, [`Lanes<T, L>`]
/// for `L` directions at once (see [`Eps`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Dual<T, E = T> {
    /// The value.
    pub re: T,
    /// The coefficient of ε: the derivative of the value along the seeded
    /// direction (one per lane for [`Lanes`]).
    pub eps: E,
}

impl<T: Float, E: Eps<T>> Dual<T, E> {
    /// `re + ε·eps`.
    #[inline]
    pub fn new(re: T, eps: E) -> Self {
        Dual { re, eps }
    }

    /// `re + ε·0`: a value that does not vary along the direction.
    #[inline]
    pub fn constant(re: T) -> Self {
        Dual { re, eps: E::none() }
    }
}

/// A constant, as [`Dual::constant`].
impl<T: Float, E: Eps<T>> From<T> for Dual<T, E> {
    #[inline]
    fn from(re: T) -> Self {
        Dual::constant(re)
    }
}

// ---------------------------------------------------------------------------
// Comparison and formatting.

impl<T: PartialEq, E: PartialEq> PartialEq for Dual<T, E> {
    /// Both parts equal (see [`Dual`] on why this differs from the order).
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.re == other.re && self.eps == other.eps
    }
}

impl<T: PartialOrd, E: PartialEq> PartialOrd for Dual<T, E> {
    /// The order of `re` alone (see [`Dual`]).
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.re.partial_cmp(&other.re)
    }
}

impl<T: Float, E: Eps<T>> fmt::Display for Dual<T, E> {
    /// `1.5 + 0.25ε` (`1.5 - 0.25ε` for a negative `eps`, `1.5 + [0.25,
    /// -1]ε` for lanes); a precision, as in `{:.3}`, applies to both parts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match f.precision() {
            Some(p) => write!(f, "{:.*}", p, self.re)?,
            None => write!(f, "{}", self.re)?,
        }
        self.eps.fmt_after(f)
    }
}

// ---------------------------------------------------------------------------
// Arithmetic.

/// `Σ`, so that a generic function's `.sum::<T>()` (with `T: Sum` among
/// its bounds) runs at dual numbers too.
impl<T: Float, E: Eps<T>> core::iter::Sum for Dual<T, E> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Dual::constant(T::zero()), |a, b| a + b)
    }
}

impl<'a, T: Float, E: Eps<T>> core::iter::Sum<&'a Dual<T, E>> for Dual<T, E> {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Dual::constant(T::zero()), |a, b| a + *b)
    }
}

/// `Π`, as [`Sum`](core::iter::Sum).
impl<T: Float, E: Eps<T>> core::iter::Product for Dual<T, E> {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Dual::constant(T::one()), |a, b| a * b)
    }
}

impl<'a, T: Float, E: Eps<T>> core::iter::Product<&'a Dual<T, E>> for Dual<T, E> {
    fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Dual::constant(T::one()), |a, b| a * *b)
    }
}

impl<T: Float, E: Eps<T>> Neg for Dual<T, E> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Dual::new(-self.re, -self.eps)
    }
}

impl<T: Float, E: Eps<T>> Add for Dual<T, E> {
    type Output = Self;
    #[inline]
    fn add(self, other: Self) -> Self {
        Dual::new(self.re + other.re, self.eps + other.eps)
    }
}

impl<T: Float, E: Eps<T>> Sub for Dual<T, E> {
    type Output = Self;
    #[inline]
    fn sub(self, other: Self) -> Self {
        Dual::new(self.re - other.re, self.eps - other.eps)
    }
}

impl<T: Float, E: Eps<T>> Mul for Dual<T, E> {
    type Output = Self;
    /// d(ab) = b·da + a·db.
    #[inline]
    fn mul(self, other: Self) -> Self {
        Dual::new(
            self.re * other.re,
            self.eps.scaled(other.re) + other.eps.scaled(self.re),
        )
    }
}

impl<T: Float, E: Eps<T>> Div for Dual<T, E> {
    type Output = Self;
    /// d(a/b) = (da − (a/b)·db)/b.
    #[inline]
    #[allow(clippy::suspicious_arithmetic_impl)] // the quotient rule's `−`
    fn div(self, other: Self) -> Self {
        let re = self.re / other.re;
        let eps = self.eps.zip(other.eps, |a, b| {
            if a == T::zero() && b == T::zero() {
                T::zero()
            } else {
                (a - scale(b, re)) / other.re
            }
        });
        Dual::new(re, eps)
    }
}

impl<T: Float, E: Eps<T>> Rem for Dual<T, E> {
    type Output = Self;
    /// `a % b` = a − b·trunc(a/b): d(a % b) = da − trunc(a/b)·db, with the
    /// truncated quotient piecewise constant (as `arith::rem_pullback`).
    #[inline]
    fn rem(self, other: Self) -> Self {
        Dual::new(
            self.re % other.re,
            self.eps - other.eps.scaled((self.re / other.re).trunc()),
        )
    }
}

macro_rules! assign {
    ($($trait:ident $method:ident $op:tt),*) => {$(
        impl<T: Float, E: Eps<T>> $trait for Dual<T, E> {
            #[inline]
            fn $method(&mut self, other: Self) {
                *self = *self $op other;
            }
        }
    )*};
}

assign!(AddAssign add_assign +, SubAssign sub_assign -, MulAssign mul_assign *, DivAssign div_assign /, RemAssign rem_assign %);

// ---------------------------------------------------------------------------
// num_traits: identities, parsing, casts, constants.

impl<T: Float, E: Eps<T>> Zero for Dual<T, E> {
    #[inline]
    fn zero() -> Self {
        Dual::constant(T::zero())
    }
    /// Both parts zero, as `==`.
    #[inline]
    fn is_zero(&self) -> bool {
        self.re.is_zero() && self.eps.is_none()
    }
}

impl<T: Float, E: Eps<T>> One for Dual<T, E> {
    #[inline]
    fn one() -> Self {
        Dual::constant(T::one())
    }
}

impl<T: Float, E: Eps<T>> Num for Dual<T, E> {
    type FromStrRadixErr = T::FromStrRadixErr;
    /// `T`'s parse, as a constant.
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        T::from_str_radix(s, radix).map(Dual::constant)
    }
}

macro_rules! to_primitive {
    ($($method:ident -> $t:ty),*) => {$(
        #[inline]
        fn $method(&self) -> Option<$t> {
            ToPrimitive::$method(&self.re)
        }
    )*};
}

/// Conversions of `re`; `eps` is dropped.
impl<T: Float, E: Eps<T>> ToPrimitive for Dual<T, E> {
    to_primitive!(
        to_isize -> isize, to_i8 -> i8, to_i16 -> i16, to_i32 -> i32, to_i64 -> i64,
        to_i128 -> i128, to_usize -> usize, to_u8 -> u8, to_u16 -> u16, to_u32 -> u32,
        to_u64 -> u64, to_u128 -> u128, to_f32 -> f32, to_f64 -> f64
    );
}

/// `T`'s conversion, as a constant.
impl<T: Float, E: Eps<T>> NumCast for Dual<T, E> {
    #[inline]
    fn from<N: ToPrimitive>(n: N) -> Option<Self> {
        <T as NumCast>::from(n).map(Dual::constant)
    }
}

macro_rules! constants {
    ($($name:ident),*) => {$(
        #[inline]
        fn $name() -> Self {
            Dual::constant(T::$name())
        }
    )*};
}

/// `T`'s constants, with `eps` 0.
impl<T: Float, E: Eps<T>> FloatConst for Dual<T, E> {
    constants!(
        E,
        FRAC_1_PI,
        FRAC_1_SQRT_2,
        FRAC_2_PI,
        FRAC_2_SQRT_PI,
        FRAC_PI_2,
        FRAC_PI_3,
        FRAC_PI_4,
        FRAC_PI_6,
        FRAC_PI_8,
        LN_10,
        LN_2,
        LOG10_E,
        LOG2_E,
        PI,
        SQRT_2,
        TAU,
        LOG10_2,
        LOG2_10
    );
}

// ---------------------------------------------------------------------------
// The elementary functions.

/// `eps` of a step function: 0.
macro_rules! flat {
    ($($name:ident),*) => {$(
        #[inline]
        fn $name(self) -> Self {
            Dual::constant(self.re.$name())
        }
    )*};
}

impl<T: Float, E: Eps<T>> num_traits::Float for Dual<T, E> {
    constants!(
        nan,
        infinity,
        neg_infinity,
        neg_zero,
        min_value,
        min_positive_value,
        epsilon,
        max_value
    );

    /// Either part NaN.
    #[inline]
    fn is_nan(self) -> bool {
        self.re.is_nan() || self.eps.any(|d| d.is_nan())
    }
    /// Neither part NaN, and one of them infinite: exactly one of
    /// `is_nan`, `is_infinite` and `is_finite` holds, as for a float.
    #[inline]
    fn is_infinite(self) -> bool {
        !self.is_nan() && (self.re.is_infinite() || self.eps.any(|d| d.is_infinite()))
    }
    /// Both parts finite.
    #[inline]
    fn is_finite(self) -> bool {
        self.re.is_finite() && !self.eps.any(|d| !d.is_finite())
    }
    /// `re` normal and `eps` finite (see `classify`).
    #[inline]
    fn is_normal(self) -> bool {
        self.classify() == FpCategory::Normal
    }
    /// `re` subnormal and `eps` finite (see `classify`).
    #[inline]
    fn is_subnormal(self) -> bool {
        self.classify() == FpCategory::Subnormal
    }
    /// `Nan` if either part is NaN, else `Infinite` if either part is
    /// infinite, else `re`'s category: consistent with `is_nan`,
    /// `is_infinite` and `is_finite`.
    #[inline]
    fn classify(self) -> FpCategory {
        if self.is_nan() {
            FpCategory::Nan
        } else if self.eps.any(|d| d.is_infinite()) {
            FpCategory::Infinite
        } else {
            self.re.classify()
        }
    }

    flat!(floor, ceil, round, trunc, signum);

    /// x − trunc(x): slope 1.
    #[inline]
    fn fract(self) -> Self {
        Dual::new(self.re.fract(), self.eps)
    }
    /// Slope signum(x), and 0 at x = ±0 (as `piecewise::abs_pullback`).
    #[inline]
    fn abs(self) -> Self {
        let eps = if self.re == T::zero() {
            E::none()
        } else {
            self.eps.scaled(self.re.signum())
        };
        Dual::new(self.re.abs(), eps)
    }
    /// Of `re`.
    #[inline]
    fn is_sign_positive(self) -> bool {
        self.re.is_sign_positive()
    }
    /// Of `re`.
    #[inline]
    fn is_sign_negative(self) -> bool {
        self.re.is_sign_negative()
    }
    /// `self·a + b` with `re` fused: d = a·dself + self·da + db.
    #[inline]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Dual::new(
            self.re.mul_add(a.re, b.re),
            self.eps.scaled(a.re) + a.eps.scaled(self.re) + b.eps,
        )
    }
    /// d(1/x) = −dx/x² = −y²·dx.
    #[inline]
    fn recip(self) -> Self {
        let y = self.re.recip();
        Dual::new(y, -self.eps.scaled(y * y))
    }
    /// d(xⁿ) = n·xⁿ⁻¹·dx, and exactly 0 for n = 0 (as
    /// `power::powi_pullback`, also for n = `i32::MIN`).
    #[inline]
    fn powi(self, n: i32) -> Self {
        let y = self.re.powi(n);
        let eps = if n == 0 {
            E::none()
        } else {
            let x_n_minus_1 = match n.checked_sub(1) {
                Some(m) => self.re.powi(m),
                None => y / self.re,
            };
            self.eps
                .scaled(T::from_f64(<f64 as From<i32>>::from(n)) * x_n_minus_1)
        };
        Dual::new(y, eps)
    }
    /// d(aᵇ) = b·aᵇ⁻¹·da + aᵇ·ln(a)·db, as `power::powf_pullback`: the first
    /// term is 0 where b = 0, the second where aᵇ = 0. Each term is 0 when
    /// its tangent is, so a negative base with a constant exponent has the
    /// slope b·aᵇ⁻¹ (no NaN from ln a), as `f64::powf` has the value.
    #[inline]
    fn powf(self, e: Self) -> Self {
        let y = self.re.powf(e.re);
        let from_base = if e.re == T::zero() {
            E::none()
        } else {
            self.eps.scaled(e.re * self.re.powf(e.re - T::one()))
        };
        let from_exponent = if y == T::zero() {
            E::none()
        } else {
            e.eps.scaled(y * self.re.ln())
        };
        Dual::new(y, from_base + from_exponent)
    }
    /// d√x = dx/(2√x); +∞ at ±0 for a nonzero tangent.
    #[inline]
    fn sqrt(self) -> Self {
        let y = self.re.sqrt();
        Dual::new(y, self.eps.over((y + y).abs()))
    }
    /// d eˣ = eˣ dx.
    #[inline]
    fn exp(self) -> Self {
        let y = self.re.exp();
        Dual::new(y, self.eps.scaled(y))
    }
    /// d 2ˣ = 2ˣ ln 2 dx.
    #[inline]
    fn exp2(self) -> Self {
        let y = self.re.exp2();
        Dual::new(y, self.eps.scaled(y * T::LN_2()))
    }
    /// d ln x = dx/x.
    #[inline]
    fn ln(self) -> Self {
        Dual::new(self.re.ln(), self.eps.over(self.re))
    }
    /// ∂/∂x log_b x = 1/(x ln b), ∂/∂b log_b x = −log_b x/(b ln b).
    #[inline]
    fn log(self, base: Self) -> Self {
        let y = self.re.log(base.re);
        let ln_b = base.re.ln();
        Dual::new(
            y,
            self.eps.over(self.re * ln_b) - base.eps.scaled(y / (base.re * ln_b)),
        )
    }
    /// d log₂ x = dx/(x ln 2).
    #[inline]
    fn log2(self) -> Self {
        Dual::new(self.re.log2(), self.eps.over(self.re * T::LN_2()))
    }
    /// d log₁₀ x = dx/(x ln 10).
    #[inline]
    fn log10(self) -> Self {
        Dual::new(self.re.log10(), self.eps.over(self.re * T::LN_10()))
    }
    /// Slope 180/π, the constant `to_degrees` multiplies by.
    #[inline]
    fn to_degrees(self) -> Self {
        Dual::new(
            self.re.to_degrees(),
            self.eps.scaled(T::from_f64(180.0 / core::f64::consts::PI)),
        )
    }
    /// Slope π/180, the constant `to_radians` multiplies by.
    #[inline]
    fn to_radians(self) -> Self {
        Dual::new(
            self.re.to_radians(),
            self.eps.scaled(T::from_f64(core::f64::consts::PI / 180.0)),
        )
    }
    /// The operand with the greater `re`, tangent and all; on an exact tie
    /// (also 0 and −0) `re` is `T::max`'s and `eps` the mean of both (the
    /// even split of `piecewise::max_pullback`); if one `re` is NaN, the
    /// other operand; if both are, `other`.
    #[inline]
    fn max(self, other: Self) -> Self {
        if self.re > other.re {
            self
        } else if self.re < other.re || self.re.is_nan() {
            other
        } else if other.re.is_nan() {
            self
        } else {
            tie(self.re.max(other.re), self, other)
        }
    }
    /// The operand with the smaller `re`, with ties and NaN as for `max`.
    #[inline]
    fn min(self, other: Self) -> Self {
        if self.re < other.re {
            self
        } else if self.re > other.re || self.re.is_nan() {
            other
        } else if other.re.is_nan() {
            self
        } else {
            tie(self.re.min(other.re), self, other)
        }
    }
    /// `x` if lo ≤ x ≤ hi (so `x`'s tangent at a bound, and a NaN `x`),
    /// else the bound, as `piecewise::clamp_pullback`.
    ///
    /// # Panics
    ///
    /// As `f64::clamp`: if `min.re > max.re` or either is NaN.
    #[inline]
    fn clamp(self, min: Self, max: Self) -> Self {
        assert!(
            min.re <= max.re,
            "min > max, or either was NaN. min = {min:?}, max = {max:?}"
        );
        if self.re < min.re {
            min
        } else if self.re > max.re {
            max
        } else {
            self
        }
    }
    /// `self − other` where `self.re > other.re`, with its tangent; else
    /// `re`'s `abs_sub` (0, or NaN) with slope 0.
    #[inline]
    fn abs_sub(self, other: Self) -> Self {
        let y = self.re.abs_sub(other.re);
        if self.re > other.re {
            Dual::new(y, self.eps - other.eps)
        } else {
            Dual::constant(y)
        }
    }
    /// d∛x = dx/(3∛x²); +∞ at 0 for a nonzero tangent.
    #[inline]
    fn cbrt(self) -> Self {
        let y = self.re.cbrt();
        Dual::new(y, self.eps.over(T::from_f64(3.0) * y * y))
    }
    /// ∂/∂a √(a² + b²) = a/h, ∂/∂b = b/h; slope 0 at the origin (as
    /// `trig::hypot_pullback`).
    #[inline]
    fn hypot(self, other: Self) -> Self {
        let h = self.re.hypot(other.re);
        let eps = if h == T::zero() {
            E::none()
        } else {
            self.eps.scaled(self.re / h) + other.eps.scaled(other.re / h)
        };
        Dual::new(h, eps)
    }
    /// d sin x = cos x dx.
    #[inline]
    fn sin(self) -> Self {
        Dual::new(self.re.sin(), self.eps.scaled(self.re.cos()))
    }
    /// d cos x = −sin x dx.
    #[inline]
    fn cos(self) -> Self {
        Dual::new(self.re.cos(), self.eps.scaled(-self.re.sin()))
    }
    /// d tan x = (1 + tan² x) dx.
    #[inline]
    fn tan(self) -> Self {
        let y = self.re.tan();
        Dual::new(y, self.eps.scaled(T::one() + y * y))
    }
    /// d asin x = dx/√((1 − x)(1 + x)).
    #[inline]
    fn asin(self) -> Self {
        let root = ((T::one() - self.re) * (T::one() + self.re)).sqrt();
        Dual::new(self.re.asin(), self.eps.over(root))
    }
    /// d acos x = −dx/√((1 − x)(1 + x)).
    #[inline]
    fn acos(self) -> Self {
        let root = ((T::one() - self.re) * (T::one() + self.re)).sqrt();
        Dual::new(self.re.acos(), -self.eps.over(root))
    }
    /// d atan x = dx/(1 + x²).
    #[inline]
    fn atan(self) -> Self {
        Dual::new(self.re.atan(), self.eps.over(T::one() + self.re * self.re))
    }
    /// `self.atan2(other)` = atan2(y, x): ∂/∂y = x/r², ∂/∂x = −y/r²,
    /// computed with r = hypot(x, y) (no overflow); slope 0 at the origin
    /// (as `trig::atan2_pullback`).
    #[inline]
    fn atan2(self, other: Self) -> Self {
        let (y, x) = (self, other);
        let r = x.re.hypot(y.re);
        let eps = if r == T::zero() {
            E::none()
        } else {
            (y.eps.scaled(x.re / r) - x.eps.scaled(y.re / r)).map(|d| d / r)
        };
        Dual::new(y.re.atan2(x.re), eps)
    }
    /// `(self.sin(), self.cos())`, from one `sin_cos` of `re`.
    #[inline]
    fn sin_cos(self) -> (Self, Self) {
        let (sin, cos) = self.re.sin_cos();
        (
            Dual::new(sin, self.eps.scaled(cos)),
            Dual::new(cos, self.eps.scaled(-sin)),
        )
    }
    /// d(eˣ − 1) = eˣ dx, with eˣ computed (not y + 1, which cancels for
    /// very negative x).
    #[inline]
    fn exp_m1(self) -> Self {
        Dual::new(self.re.exp_m1(), self.eps.scaled(self.re.exp()))
    }
    /// d ln(1 + x) = dx/(1 + x).
    #[inline]
    fn ln_1p(self) -> Self {
        Dual::new(self.re.ln_1p(), self.eps.over(T::one() + self.re))
    }
    /// d sinh x = cosh x dx.
    #[inline]
    fn sinh(self) -> Self {
        Dual::new(self.re.sinh(), self.eps.scaled(self.re.cosh()))
    }
    /// d cosh x = sinh x dx.
    #[inline]
    fn cosh(self) -> Self {
        Dual::new(self.re.cosh(), self.eps.scaled(self.re.sinh()))
    }
    /// d tanh x = dx/cosh² x (not 1 − tanh² x, which cancels for large |x|).
    #[inline]
    fn tanh(self) -> Self {
        let cosh = self.re.cosh();
        Dual::new(self.re.tanh(), self.eps.over(cosh).over(cosh))
    }
    /// d asinh x = dx/√(x² + 1), with the root as `hypot(x, 1)` (no
    /// overflow).
    #[inline]
    fn asinh(self) -> Self {
        Dual::new(self.re.asinh(), self.eps.over(self.re.hypot(T::one())))
    }
    /// d acosh x = dx/(√(x − 1)·√(x + 1)).
    #[inline]
    fn acosh(self) -> Self {
        let root = (self.re - T::one()).sqrt() * (self.re + T::one()).sqrt();
        Dual::new(self.re.acosh(), self.eps.over(root))
    }
    /// d atanh x = dx/((1 − x)(1 + x)).
    #[inline]
    fn atanh(self) -> Self {
        Dual::new(
            self.re.atanh(),
            self.eps.over((T::one() - self.re) * (T::one() + self.re)),
        )
    }
    /// Of `re`.
    #[inline]
    fn integer_decode(self) -> (u64, i16, i8) {
        self.re.integer_decode()
    }
    /// |x| with `sign`'s sign: `re` as `T::copysign`, and `eps` negated
    /// exactly when `re`'s sign was flipped (slope ±1 in `self`, 0 in
    /// `sign`).
    #[inline]
    fn copysign(self, sign: Self) -> Self {
        let re = self.re.copysign(sign.re);
        let eps = if re.is_sign_negative() == self.re.is_sign_negative() {
            self.eps
        } else {
            -self.eps
        };
        Dual::new(re, eps)
    }
}

/// `max`/`min` on an exact tie of `re`: the value `re`, and the mean of
/// the tangents.
#[inline]
fn tie<T: Float, E: Eps<T>>(re: T, a: Dual<T, E>, b: Dual<T, E>) -> Dual<T, E> {
    let half = T::from_f64(0.5);
    Dual::new(re, a.eps.zip(b.eps, |a, b| a * half + b * half))
}

// ---------------------------------------------------------------------------
// This crate's traits.

/// The real parts' inner product, as [`Float::to_f64`] reads a dual
/// number: what makes every float type's struct (`Lin<T>` of `T: Float`)
/// one with an inner product, as `#[grad(jvp)]`'s tangents need.
impl<T: Float, E: Eps<T>> crate::inner::Inner for Dual<T, E> {
    #[inline]
    fn inner(&self, other: &Self) -> f64 {
        self.re.inner(&other.re)
    }
}

impl<T: Float, E: Eps<T>> Differentiable for Dual<T, E> {
    /// Zero in both parts.
    #[inline]
    fn zero_like(&self) -> Self {
        Dual::new(self.re.zero_like(), self.eps.zero_like())
    }
    /// Both parts, each as `T` accumulates.
    #[inline]
    fn accumulate(&mut self, other: &Self) {
        self.re.accumulate(&other.re);
        self.eps.accumulate(&other.eps);
    }
    /// Both parts, each as `T` does it: `alpha` converted to `T`, and a
    /// zero `alpha` adds exactly nothing, even from an infinite or NaN part.
    #[inline]
    fn scaled_add(&mut self, alpha: f64, other: &Self) {
        self.re.scaled_add(alpha, &other.re);
        self.eps.scaled_add(alpha, &other.eps);
    }
}

impl<T: Float, E: Eps<T>> Float for Dual<T, E> {
    /// A constant: `T::from_f64(v)`, `eps` 0.
    #[inline]
    fn from_f64(v: f64) -> Self {
        Dual::constant(T::from_f64(v))
    }
    /// `re` as an `f64`; `eps` is dropped.
    #[inline]
    fn to_f64(self) -> f64 {
        Float::to_f64(self.re)
    }
    /// `(self.sin(), self.cos())` bit for bit, from `T`'s
    /// [`sin_cos_once`](Float::sin_cos_once) of `re`.
    #[inline]
    fn sin_cos_once(self) -> (Self, Self) {
        let (sin, cos) = self.re.sin_cos_once();
        (
            Dual::new(sin, self.eps.scaled(cos)),
            Dual::new(cos, self.eps.scaled(-sin)),
        )
    }
    /// The real parts' [`primal_eq`](Float::primal_eq): a rule's branch at
    /// a special point follows the values, whatever the tangents.
    #[inline]
    fn primal_eq(self, other: Self) -> bool {
        self.re.primal_eq(other.re)
    }
}

#[cfg(test)]
mod tests {
    use super::Dual;
    use crate::differentiable::Differentiable;
    use crate::stack::Stack;
    use crate::{arith, exp_log, float, kernels, ml, piecewise, power, trig};
    use core::num::FpCategory;
    use num_traits::{Float as _, FloatConst, Num, NumCast, One, ToPrimitive, Zero};

    type D = Dual<f64>;

    /// The central difference's step.
    const H: f64 = 1e-6;

    /// Equal, or within `rel` of the larger magnitude.
    fn close(a: f64, b: f64, rel: f64) -> bool {
        a == b || (a - b).abs() <= rel * a.abs().max(b.abs())
    }

    /// Within 1e-6, relative to the derivative where it exceeds 1.
    fn near_difference(difference: f64, derivative: f64) -> bool {
        (difference - derivative).abs() <= 1e-6 * derivative.abs().max(1.0)
    }

    fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
        (f(x + H) - f(x - H)) / (2.0 * H)
    }

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    struct Unary {
        name: &'static str,
        dual: fn(D) -> D,
        value: fn(f64) -> f64,
        slope: fn(f64) -> f64,
        points: &'static [f64],
    }

    fn unary_rules() -> Vec<Unary> {
        const LINE: &[f64] = &[-7.0, -1.2, -0.3, 0.0, 0.7, 2.0, 10.0];
        const POSITIVE: &[f64] = &[1e-3, 0.01, 0.5, 1.0, 7.0, 1e6];
        const UNIT: &[f64] = &[-0.95, -0.5, -0.1, 0.0, 0.3, 0.9];
        const STEPS: &[f64] = &[-2.7, -0.2, 0.4, 1.3, 5.6];
        vec![
            Unary {
                name: "sqrt",
                dual: |x| x.sqrt(),
                value: f64::sqrt,
                slope: |x| 0.5 / x.sqrt(),
                points: &[0.01, 0.3, 1.0, 2.5, 100.0],
            },
            Unary {
                name: "cbrt",
                dual: |x| x.cbrt(),
                value: f64::cbrt,
                slope: |x| 1.0 / (3.0 * x.abs().powf(2.0 / 3.0)),
                points: &[-8.0, -0.7, 0.05, 1.0, 27.0, 3e5],
            },
            Unary {
                name: "exp",
                dual: |x| x.exp(),
                value: f64::exp,
                slope: f64::exp,
                points: &[-20.0, -1.3, 0.0, 0.5, 3.0, 30.0],
            },
            Unary {
                name: "exp2",
                dual: |x| x.exp2(),
                value: f64::exp2,
                slope: |x| x.exp2() * core::f64::consts::LN_2,
                points: &[-20.0, -1.3, 0.0, 0.5, 3.0, 30.0],
            },
            Unary {
                name: "exp_m1",
                dual: |x| x.exp_m1(),
                value: f64::exp_m1,
                slope: f64::exp,
                points: &[-40.0, -1.0, -1e-8, 0.0, 1e-8, 0.7, 20.0],
            },
            Unary {
                name: "ln",
                dual: |x| x.ln(),
                value: f64::ln,
                slope: |x| 1.0 / x,
                points: POSITIVE,
            },
            Unary {
                name: "ln_1p",
                dual: |x| x.ln_1p(),
                value: f64::ln_1p,
                slope: |x| 1.0 / (1.0 + x),
                points: &[-0.9, -1e-9, 0.0, 0.5, 40.0],
            },
            Unary {
                name: "log2",
                dual: |x| x.log2(),
                value: f64::log2,
                slope: |x| 1.0 / (x * core::f64::consts::LN_2),
                points: POSITIVE,
            },
            Unary {
                name: "log10",
                dual: |x| x.log10(),
                value: f64::log10,
                slope: |x| 1.0 / (x * core::f64::consts::LN_10),
                points: POSITIVE,
            },
            Unary {
                name: "recip",
                dual: |x| x.recip(),
                value: f64::recip,
                slope: |x| -1.0 / (x * x),
                points: &[-3.0, -0.1, 0.2, 5.0, 1e3],
            },
            Unary {
                name: "neg",
                dual: |x| -x,
                value: |x| -x,
                slope: |_| -1.0,
                points: LINE,
            },
            Unary {
                name: "sin",
                dual: |x| x.sin(),
                value: f64::sin,
                slope: f64::cos,
                points: LINE,
            },
            Unary {
                name: "cos",
                dual: |x| x.cos(),
                value: f64::cos,
                slope: |x| -x.sin(),
                points: &[-7.0, -1.2, -0.3, 0.7, 2.0, 10.0],
            },
            Unary {
                name: "sin_cos().0",
                dual: |x| x.sin_cos().0,
                value: f64::sin,
                slope: f64::cos,
                points: LINE,
            },
            Unary {
                name: "sin_cos().1",
                dual: |x| x.sin_cos().1,
                value: f64::cos,
                slope: |x| -x.sin(),
                points: &[-7.0, -1.2, -0.3, 0.7, 2.0, 10.0],
            },
            Unary {
                name: "sin_cos_once().0",
                dual: |x| crate::Float::sin_cos_once(x).0,
                value: f64::sin,
                slope: f64::cos,
                points: LINE,
            },
            Unary {
                name: "sin_cos_once().1",
                dual: |x| crate::Float::sin_cos_once(x).1,
                value: f64::cos,
                slope: |x| -x.sin(),
                points: &[-7.0, -1.2, -0.3, 0.7, 2.0, 10.0],
            },
            Unary {
                name: "tan",
                dual: |x| x.tan(),
                value: f64::tan,
                slope: |x| 1.0 / (x.cos() * x.cos()),
                points: &[-1.2, -0.4, 0.0, 0.7, 1.4, 4.0],
            },
            Unary {
                name: "asin",
                dual: |x| x.asin(),
                value: f64::asin,
                slope: |x| 1.0 / (1.0 - x * x).sqrt(),
                points: UNIT,
            },
            Unary {
                name: "acos",
                dual: |x| x.acos(),
                value: f64::acos,
                slope: |x| -1.0 / (1.0 - x * x).sqrt(),
                points: UNIT,
            },
            Unary {
                name: "atan",
                dual: |x| x.atan(),
                value: f64::atan,
                slope: |x| 1.0 / (1.0 + x * x),
                points: &[-50.0, -1.0, 0.0, 0.3, 8.0, 1e8],
            },
            Unary {
                name: "sinh",
                dual: |x| x.sinh(),
                value: f64::sinh,
                slope: f64::cosh,
                points: &[-5.0, -0.2, 0.0, 1.0, 10.0],
            },
            Unary {
                name: "cosh",
                dual: |x| x.cosh(),
                value: f64::cosh,
                slope: f64::sinh,
                points: &[-5.0, -0.2, 0.3, 1.0, 10.0],
            },
            Unary {
                name: "tanh",
                dual: |x| x.tanh(),
                value: f64::tanh,
                slope: |x| 4.0 / (x.exp() + (-x).exp()).powi(2),
                points: &[-20.0, -2.0, -0.1, 0.0, 0.5, 3.0, 20.0],
            },
            Unary {
                name: "asinh",
                dual: |x| x.asinh(),
                value: f64::asinh,
                slope: |x| 1.0 / (1.0 + x * x).sqrt(),
                points: &[-1e5, -3.0, -0.1, 0.0, 0.8, 40.0],
            },
            Unary {
                name: "acosh",
                dual: |x| x.acosh(),
                value: f64::acosh,
                slope: |x| 1.0 / (x * x - 1.0).sqrt(),
                points: &[1.05, 1.5, 3.0, 1e4],
            },
            Unary {
                name: "atanh",
                dual: |x| x.atanh(),
                value: f64::atanh,
                slope: |x| 1.0 / (1.0 - x * x),
                points: UNIT,
            },
            Unary {
                name: "to_degrees",
                dual: |x| x.to_degrees(),
                value: f64::to_degrees,
                slope: |_| 180.0 / core::f64::consts::PI,
                points: &[-3.0, 0.0, 1.5, 400.0],
            },
            Unary {
                name: "to_radians",
                dual: |x| x.to_radians(),
                value: f64::to_radians,
                slope: |_| core::f64::consts::PI / 180.0,
                points: &[-300.0, 0.0, 1.5, 400.0],
            },
            Unary {
                name: "abs",
                dual: |x| x.abs(),
                value: f64::abs,
                slope: f64::signum,
                points: &[-2.5, -0.1, 0.3, 7.0],
            },
            Unary {
                name: "signum",
                dual: |x| x.signum(),
                value: f64::signum,
                slope: |_| 0.0,
                points: STEPS,
            },
            Unary {
                name: "floor",
                dual: |x| x.floor(),
                value: f64::floor,
                slope: |_| 0.0,
                points: STEPS,
            },
            Unary {
                name: "ceil",
                dual: |x| x.ceil(),
                value: f64::ceil,
                slope: |_| 0.0,
                points: STEPS,
            },
            Unary {
                name: "round",
                dual: |x| x.round(),
                value: f64::round,
                slope: |_| 0.0,
                points: STEPS,
            },
            Unary {
                name: "trunc",
                dual: |x| x.trunc(),
                value: f64::trunc,
                slope: |_| 0.0,
                points: STEPS,
            },
            Unary {
                name: "fract",
                dual: |x| x.fract(),
                value: f64::fract,
                slope: |_| 1.0,
                points: STEPS,
            },
            Unary {
                name: "powi 3",
                dual: |x| x.powi(3),
                value: |x| x.powi(3),
                slope: |x| 3.0 * x * x,
                points: &[-2.0, -0.5, 0.0, 0.3, 1.7],
            },
            Unary {
                name: "powi -2",
                dual: |x| x.powi(-2),
                value: |x| x.powi(-2),
                slope: |x| -2.0 / (x * x * x),
                points: &[-2.0, -0.5, 0.3, 1.7],
            },
            Unary {
                name: "powi 1",
                dual: |x| x.powi(1),
                value: |x| x.powi(1),
                slope: |_| 1.0,
                points: &[-2.0, 0.0, 1.7],
            },
            Unary {
                name: "powi 0",
                dual: |x| x.powi(0),
                value: |x| x.powi(0),
                slope: |_| 0.0,
                points: &[-2.0, 0.0, 1.7],
            },
            Unary {
                name: "powf 2.5",
                dual: |x| x.powf(D::constant(2.5)),
                value: |x| x.powf(2.5),
                slope: |x| 2.5 * x.powf(1.5),
                points: &[0.2, 1.0, 3.0],
            },
            Unary {
                name: "powf 3 (negative base)",
                dual: |x| x.powf(D::constant(3.0)),
                value: |x| x.powf(3.0),
                slope: |x| 3.0 * x * x,
                points: &[-2.0, -0.5, 0.5, 2.0],
            },
            Unary {
                name: "powf -2 (negative base)",
                dual: |x| x.powf(D::constant(-2.0)),
                value: |x| x.powf(-2.0),
                slope: |x| -2.0 / (x * x * x),
                points: &[-2.0, -0.5, 0.5, 2.0],
            },
            Unary {
                name: "2^x by powf",
                dual: |x| D::constant(2.0).powf(x),
                value: |x| 2f64.powf(x),
                slope: |x| 2f64.powf(x) * core::f64::consts::LN_2,
                points: &[-3.0, 0.0, 0.5, 4.0],
            },
        ]
    }

    #[test]
    fn every_unary_method_has_its_derivative() {
        for rule in unary_rules() {
            for &x in rule.points {
                let name = rule.name;
                let d = (rule.dual)(D::new(x, 1.0));
                let (value, slope) = ((rule.value)(x), (rule.slope)(x));
                assert!(same(d.re, value), "{name}({x}): {} ≠ {value}", d.re);
                assert!(
                    close(d.eps, slope, 1e-12),
                    "{name}'({x}): {} against {slope}",
                    d.eps
                );
                let difference = central(rule.value, x);
                assert!(
                    near_difference(difference, d.eps),
                    "{name}'({x}): {} against the difference {difference}",
                    d.eps
                );
                // Linear in the tangent.
                let d = (rule.dual)(D::new(x, -0.75));
                assert!(
                    close(d.eps, -0.75 * slope, 1e-12),
                    "{name}({x}) along −0.75"
                );
                // A constant stays one.
                let c = (rule.dual)(D::constant(x));
                assert!(
                    same(c.re, value) && c.eps == 0.0,
                    "{name}({x}) of a constant"
                );
            }
        }
    }

    struct Binary {
        name: &'static str,
        dual: fn(D, D) -> D,
        value: fn(f64, f64) -> f64,
        partials: fn(f64, f64) -> (f64, f64),
        points: &'static [(f64, f64)],
    }

    fn binary_rules() -> Vec<Binary> {
        const PAIRS: &[(f64, f64)] = &[(2.0, 3.0), (-1.5, 0.25), (4.0, -8.0), (0.0, 2.0)];
        vec![
            Binary {
                name: "add",
                dual: |a, b| a + b,
                value: |a, b| a + b,
                partials: |_, _| (1.0, 1.0),
                points: PAIRS,
            },
            Binary {
                name: "sub",
                dual: |a, b| a - b,
                value: |a, b| a - b,
                partials: |_, _| (1.0, -1.0),
                points: PAIRS,
            },
            Binary {
                name: "mul",
                dual: |a, b| a * b,
                value: |a, b| a * b,
                partials: |a, b| (b, a),
                points: PAIRS,
            },
            Binary {
                name: "div",
                dual: |a, b| a / b,
                value: |a, b| a / b,
                partials: |a, b| (1.0 / b, -a / (b * b)),
                points: PAIRS,
            },
            Binary {
                name: "rem",
                dual: |a, b| a % b,
                value: |a, b| a % b,
                partials: |a, b| (1.0, -(a / b).trunc()),
                points: &[(5.3, 2.0), (-7.5, 2.25), (7.5, -2.25), (0.3, 5.0)],
            },
            Binary {
                name: "powf",
                dual: |a, b| a.powf(b),
                value: f64::powf,
                partials: |a, b| (b * a.powf(b - 1.0), a.powf(b) * a.ln()),
                points: &[(0.5, 2.5), (2.0, -1.3), (3.0, 0.5), (1.5, 3.0), (7.0, 0.0)],
            },
            Binary {
                name: "atan2",
                dual: |y, x| y.atan2(x),
                value: f64::atan2,
                partials: |y, x| (x / (x * x + y * y), -y / (x * x + y * y)),
                points: &[(1.0, 2.0), (-0.5, 0.3), (2.0, -1.0), (-0.3, -2.0)],
            },
            Binary {
                name: "hypot",
                dual: |a, b| a.hypot(b),
                value: f64::hypot,
                partials: |a, b| (a / (a * a + b * b).sqrt(), b / (a * a + b * b).sqrt()),
                points: &[(3.0, 4.0), (-1.0, 0.5), (1e-3, -2.0)],
            },
            Binary {
                name: "log",
                dual: |x, b| x.log(b),
                value: f64::log,
                partials: |x, b| (1.0 / (x * b.ln()), -x.ln() / (b * b.ln() * b.ln())),
                points: &[(5.0, 2.0), (0.3, 10.0), (100.0, 0.5)],
            },
            Binary {
                name: "max",
                dual: |a, b| a.max(b),
                value: f64::max,
                partials: |a, b| if a > b { (1.0, 0.0) } else { (0.0, 1.0) },
                points: &[(1.0, 2.0), (3.0, -1.0), (-0.5, -0.7)],
            },
            Binary {
                name: "min",
                dual: |a, b| a.min(b),
                value: f64::min,
                partials: |a, b| if a < b { (1.0, 0.0) } else { (0.0, 1.0) },
                points: &[(1.0, 2.0), (3.0, -1.0), (-0.5, -0.7)],
            },
            Binary {
                name: "abs_sub",
                dual: |a, b| a.abs_sub(b),
                value: num_traits::Float::abs_sub,
                partials: |a, b| if a > b { (1.0, -1.0) } else { (0.0, 0.0) },
                points: &[(3.0, 1.0), (1.0, 3.0), (-2.0, -5.0)],
            },
            Binary {
                name: "copysign",
                dual: |a, b| a.copysign(b),
                value: f64::copysign,
                partials: |a, b| (a.signum() * b.signum(), 0.0),
                points: &[(1.5, -2.0), (-1.5, -2.0), (2.0, 3.0), (-2.0, 0.5)],
            },
            Binary {
                name: "mul_add(·, ·, 0.25)",
                dual: |a, b| a.mul_add(b, D::constant(0.25)),
                value: |a, b| a.mul_add(b, 0.25),
                partials: |a, b| (b, a),
                points: PAIRS,
            },
        ]
    }

    #[test]
    fn every_binary_method_has_both_partials() {
        for rule in binary_rules() {
            for &(a, b) in rule.points {
                let name = rule.name;
                let value = (rule.value)(a, b);
                let (pa, pb) = (rule.partials)(a, b);
                let da = (rule.dual)(D::new(a, 1.0), D::constant(b));
                let db = (rule.dual)(D::constant(a), D::new(b, 1.0));
                for d in [da, db] {
                    assert!(same(d.re, value), "{name}({a}, {b}): {} ≠ {value}", d.re);
                }
                assert!(
                    close(da.eps, pa, 1e-12),
                    "∂{name}/∂a at ({a}, {b}): {} against {pa}",
                    da.eps
                );
                assert!(
                    close(db.eps, pb, 1e-12),
                    "∂{name}/∂b at ({a}, {b}): {} against {pb}",
                    db.eps
                );
                let fa = central(|t| (rule.value)(t, b), a);
                let fb = central(|t| (rule.value)(a, t), b);
                assert!(
                    near_difference(fa, da.eps),
                    "∂{name}/∂a at ({a}, {b}): {} against the difference {fa}",
                    da.eps
                );
                assert!(
                    near_difference(fb, db.eps),
                    "∂{name}/∂b at ({a}, {b}): {} against the difference {fb}",
                    db.eps
                );
                // Both seeded: the directional derivative.
                let both = (rule.dual)(D::new(a, 0.5), D::new(b, -2.0));
                let expected = 0.5 * pa - 2.0 * pb;
                assert!(
                    (both.eps - expected).abs() <= 1e-12 * (0.5 * pa.abs() + 2.0 * pb.abs()),
                    "{name} along (0.5, −2) at ({a}, {b}): {} against {expected}",
                    both.eps
                );
                let constant = (rule.dual)(D::constant(a), D::constant(b));
                assert!(
                    same(constant.re, value) && constant.eps == 0.0,
                    "{name} of constants"
                );
            }
        }
    }

    #[test]
    fn mul_add_is_linear_in_its_addend() {
        let y = D::new(1.5, 0.0).mul_add(D::new(-2.0, 0.0), D::new(0.25, 1.0));
        assert_eq!(y, D::new(1.5_f64.mul_add(-2.0, 0.25), 1.0));
        let y = D::new(1.5, 1.0).mul_add(D::new(-2.0, 3.0), D::new(0.25, -1.0));
        assert_eq!(y.eps, -2.0 + 3.0 * 1.5 - 1.0);
    }

    /// A name, the method at `Dual`, at `f64`, and the point.
    type UnaryCase = (&'static str, fn(D) -> D, fn(f64) -> f64, f64);
    /// A name, the method at `Dual`, at `f64`, and the two operands.
    type BinaryCase = (&'static str, fn(D, D) -> D, fn(f64, f64) -> f64, f64, f64);

    #[test]
    fn constants_pass_singular_points_without_nan() {
        let unary: [UnaryCase; 14] = [
            ("sqrt", |x| x.sqrt(), f64::sqrt, 0.0),
            ("sqrt", |x| x.sqrt(), f64::sqrt, -0.0),
            ("cbrt", |x| x.cbrt(), f64::cbrt, 0.0),
            ("ln", |x| x.ln(), f64::ln, 0.0),
            ("ln", |x| x.ln(), f64::ln, -1.0),
            ("log2", |x| x.log2(), f64::log2, 0.0),
            ("ln_1p", |x| x.ln_1p(), f64::ln_1p, -1.0),
            ("recip", |x| x.recip(), f64::recip, 0.0),
            ("asin", |x| x.asin(), f64::asin, 1.0),
            ("acos", |x| x.acos(), f64::acos, -1.0),
            ("acosh", |x| x.acosh(), f64::acosh, 1.0),
            ("atanh", |x| x.atanh(), f64::atanh, 1.0),
            ("exp", |x| x.exp(), f64::exp, 1000.0),
            ("powi -1", |x| x.powi(-1), |x| x.powi(-1), 0.0),
        ];
        for (name, dual, value, x) in unary {
            let y = dual(D::constant(x));
            assert!(same(y.re, value(x)) && y.eps == 0.0, "{name}({x}) = {y}");
        }
        let binary: [BinaryCase; 7] = [
            ("div", |a, b| a / b, |a, b| a / b, 1.0, 0.0),
            ("div", |a, b| a / b, |a, b| a / b, 0.0, 0.0),
            ("powf", |a, b| a.powf(b), f64::powf, 0.0, 0.5),
            ("powf", |a, b| a.powf(b), f64::powf, -8.0, 1.0 / 3.0),
            ("atan2", |a, b| a.atan2(b), f64::atan2, 0.0, -0.0),
            ("hypot", |a, b| a.hypot(b), f64::hypot, 0.0, 0.0),
            ("rem", |a, b| a % b, |a, b| a % b, 1e300, 1e-300),
        ];
        for (name, dual, value, a, b) in binary {
            let y = dual(D::constant(a), D::constant(b));
            assert!(
                same(y.re, value(a, b)) && y.eps == 0.0,
                "{name}({a}, {b}) = {y}"
            );
        }
    }

    #[test]
    fn slopes_at_singular_points_follow_the_rules() {
        // Infinite slopes, signed by the tangent.
        assert_eq!(D::new(0.0, 1.0).sqrt().eps, f64::INFINITY);
        assert_eq!(D::new(0.0, -2.0).sqrt().eps, f64::NEG_INFINITY);
        assert_eq!(D::new(-0.0, 1.0).sqrt().eps, f64::INFINITY);
        assert_eq!(D::new(0.0, 1.0).cbrt().eps, f64::INFINITY);
        assert_eq!(D::new(1.0, 1.0).asin().eps, f64::INFINITY);
        assert_eq!(
            D::new(0.0, 1.0).ln(),
            D::new(f64::NEG_INFINITY, f64::INFINITY)
        );
        // abs at ±0: slope 0, as `abs_pullback`.
        assert_eq!(D::new(0.0, 1.0).abs(), D::new(0.0, 0.0));
        assert_eq!(D::new(-0.0, -3.0).abs(), D::new(0.0, 0.0));
        assert!(D::new(-0.0, 1.0).abs().re.is_sign_positive());
        // atan2 and hypot at the origin: slope 0.
        assert_eq!(D::new(0.0, 1.0).atan2(D::new(0.0, 1.0)).eps, 0.0);
        assert_eq!(D::new(0.0, 1.0).hypot(D::new(0.0, 1.0)).eps, 0.0);
        // powi and powf at 0.
        assert_eq!(D::new(0.0, 1.0).powi(0), D::new(1.0, 0.0));
        assert_eq!(D::new(0.0, 1.0).powi(1), D::new(0.0, 1.0));
        assert_eq!(D::new(0.0, 1.0).powi(2), D::new(0.0, 0.0));
        assert_eq!(
            D::new(1.0, 1.0).powi(i32::MIN),
            D::new(1.0, i32::MIN as f64)
        );
        assert_eq!(D::new(0.0, 1.0).powf(D::constant(2.5)).eps, 0.0);
        assert_eq!(D::new(0.0, 1.0).powf(D::constant(1.0)).eps, 1.0);
        assert_eq!(D::new(0.0, 1.0).powf(D::constant(0.5)).eps, f64::INFINITY);
        assert_eq!(D::new(0.0, 1.0).powf(D::constant(0.0)), D::new(1.0, 0.0));
        // In the exponent: 0 where the power is 0, −∞ at 0^0.
        assert_eq!(D::constant(0.0).powf(D::new(2.0, 1.0)).eps, 0.0);
        assert_eq!(
            D::constant(0.0).powf(D::new(0.0, 1.0)).eps,
            f64::NEG_INFINITY
        );
        // A negative base: the slope in the base with a constant exponent,
        // NaN with a varying one.
        assert_eq!(D::new(-2.0, 1.0).powf(D::constant(3.0)), D::new(-8.0, 12.0));
        assert!(D::new(-2.0, 1.0).powf(D::new(3.0, 1.0)).eps.is_nan());
        assert!(D::new(-2.0, 0.0).powf(D::new(3.0, 1.0)).eps.is_nan());
        // Where f64 is NaN, so is the value.
        assert!(D::new(-2.0, 1.0).powf(D::constant(0.5)).re.is_nan());
    }

    #[test]
    fn max_and_min_follow_their_pullbacks() {
        let (a, b) = (D::new(1.0, 2.0), D::new(1.0, 4.0));
        assert_eq!(a.max(b), D::new(1.0, 3.0));
        assert_eq!(a.min(b), D::new(1.0, 3.0));
        // 0 and −0 tie; the value is f64's.
        let (z, nz) = (D::new(0.0, 1.0), D::new(-0.0, -1.0));
        assert_eq!(z.max(nz).eps, 0.0);
        assert!(same(z.max(nz).re, 0.0_f64.max(-0.0)));
        assert!(same(z.min(nz).re, 0.0_f64.min(-0.0)));
        // NaN: the other operand, tangent and all; `other` when both are.
        let nan = D::new(f64::NAN, 5.0);
        let x = D::new(2.0, 7.0);
        for y in [nan.max(x), x.max(nan), nan.min(x), x.min(nan)] {
            assert_eq!(y, x);
        }
        let other = D::new(f64::NAN, 6.0);
        assert_eq!(nan.max(other).eps, 6.0);
        assert_eq!(nan.min(other).eps, 6.0);
        // Otherwise exactly the operand returned, so that `y == a` in the
        // rules' routing holds.
        assert_eq!(D::new(3.0, 1.0).max(D::new(2.0, 9.0)), D::new(3.0, 1.0));
        assert_eq!(D::new(3.0, 1.0).min(D::new(2.0, 9.0)), D::new(2.0, 9.0));
    }

    #[test]
    fn clamp_follows_its_pullback() {
        let (lo, hi) = (D::new(-1.0, 10.0), D::new(1.0, 20.0));
        assert_eq!(D::new(0.5, 1.0).clamp(lo, hi), D::new(0.5, 1.0));
        assert_eq!(D::new(-1.0, 1.0).clamp(lo, hi), D::new(-1.0, 1.0));
        assert_eq!(D::new(1.0, 1.0).clamp(lo, hi), D::new(1.0, 1.0));
        assert_eq!(D::new(-3.0, 1.0).clamp(lo, hi), lo);
        assert_eq!(D::new(3.0, 1.0).clamp(lo, hi), hi);
        assert!(D::new(f64::NAN, 1.0).clamp(lo, hi).re.is_nan());
    }

    #[test]
    #[should_panic(expected = "min > max")]
    fn clamp_panics_as_f64s_does() {
        let _ = D::constant(0.0).clamp(D::constant(1.0), D::constant(-1.0));
    }

    #[test]
    fn assignments_are_the_operators() {
        let (a, b) = (D::new(5.3, 0.5), D::new(-2.0, 1.5));
        let mut x = a;
        x += b;
        assert_eq!(x, a + b);
        let mut x = a;
        x -= b;
        assert_eq!(x, a - b);
        let mut x = a;
        x *= b;
        assert_eq!(x, a * b);
        let mut x = a;
        x /= b;
        assert_eq!(x, a / b);
        let mut x = a;
        x %= b;
        assert_eq!(x, a % b);
        assert_eq!(
            a % b,
            D::new(5.3 % -2.0, 0.5 - (5.3_f64 / -2.0).trunc() * 1.5)
        );
        assert_eq!(-a, D::new(-5.3, -0.5));
    }

    #[test]
    fn equality_sees_both_parts_and_order_the_value_only() {
        let zero_with_tangent = D::new(0.0, 1.0);
        assert_ne!(zero_with_tangent, D::zero());
        assert!(!zero_with_tangent.is_zero() && D::zero().is_zero());
        assert_eq!(D::new(-0.0, 0.0), D::zero());
        assert_eq!(
            zero_with_tangent.partial_cmp(&D::zero()),
            Some(core::cmp::Ordering::Equal)
        );
        assert!(zero_with_tangent <= D::zero() && zero_with_tangent >= D::zero());
        assert!(D::new(1.0, -5.0) > D::new(0.5, 9.0));
        assert!(D::new(1.0, 0.0) < D::new(2.0, -9.0));
        assert_eq!(D::new(f64::NAN, 0.0).partial_cmp(&D::zero()), None);
        // A NaN tangent still orders by the value.
        assert!(D::new(1.0, f64::NAN) < D::constant(2.0));
        assert!(D::one().is_one() && !D::new(1.0, 1.0).is_one());
    }

    #[test]
    fn classification_reads_both_parts() {
        let cases = [
            (D::new(1.0, 2.0), FpCategory::Normal),
            (D::new(0.0, 2.0), FpCategory::Zero),
            (D::new(1e-310, 0.0), FpCategory::Subnormal),
            (D::new(f64::INFINITY, 0.0), FpCategory::Infinite),
            (D::new(1.0, f64::NEG_INFINITY), FpCategory::Infinite),
            (D::new(f64::NAN, 0.0), FpCategory::Nan),
            (D::new(1.0, f64::NAN), FpCategory::Nan),
            (D::new(f64::INFINITY, f64::NAN), FpCategory::Nan),
        ];
        for (x, category) in cases {
            assert_eq!(x.classify(), category, "{x}");
            assert_eq!(x.is_nan(), category == FpCategory::Nan, "{x}");
            assert_eq!(x.is_infinite(), category == FpCategory::Infinite, "{x}");
            assert_eq!(x.is_finite(), !x.is_nan() && !x.is_infinite(), "{x}");
            assert_eq!(x.is_normal(), category == FpCategory::Normal, "{x}");
            assert_eq!(x.is_subnormal(), category == FpCategory::Subnormal, "{x}");
        }
        assert!(D::new(-0.0, 1.0).is_sign_negative() && D::new(0.0, -1.0).is_sign_positive());
        assert_eq!(
            D::new(-1.5, 3.0).integer_decode(),
            (-1.5_f64).integer_decode()
        );
        // The first attempt of a reverse sweep retries on a NaN tangent.
        assert!(float::first_try::is_nan(D::new(1.0, f64::NAN)));
        assert!(float::first_try::any_nan(&[
            D::one(),
            D::new(0.0, f64::NAN)
        ]));
        assert!(!float::first_try::any_nan(&[
            D::one(),
            D::new(0.0, f64::INFINITY)
        ]));
    }

    #[test]
    fn constants_are_fs_with_no_tangent() {
        let pairs: [(D, f64); 9] = [
            (D::nan(), f64::NAN),
            (D::infinity(), f64::INFINITY),
            (D::neg_infinity(), f64::NEG_INFINITY),
            (D::neg_zero(), -0.0),
            (D::min_value(), f64::MIN),
            (D::min_positive_value(), f64::MIN_POSITIVE),
            (D::epsilon(), f64::EPSILON),
            (D::max_value(), f64::MAX),
            (D::one(), 1.0),
        ];
        for (d, f) in pairs {
            assert!(same(d.re, f) && same(d.eps, 0.0), "{d} against {f}");
        }
        let consts: [(D, f64); 19] = [
            (D::E(), f64::E()),
            (D::FRAC_1_PI(), f64::FRAC_1_PI()),
            (D::FRAC_1_SQRT_2(), f64::FRAC_1_SQRT_2()),
            (D::FRAC_2_PI(), f64::FRAC_2_PI()),
            (D::FRAC_2_SQRT_PI(), f64::FRAC_2_SQRT_PI()),
            (D::FRAC_PI_2(), f64::FRAC_PI_2()),
            (D::FRAC_PI_3(), f64::FRAC_PI_3()),
            (D::FRAC_PI_4(), f64::FRAC_PI_4()),
            (D::FRAC_PI_6(), f64::FRAC_PI_6()),
            (D::FRAC_PI_8(), f64::FRAC_PI_8()),
            (D::LN_10(), f64::LN_10()),
            (D::LN_2(), f64::LN_2()),
            (D::LOG10_E(), f64::LOG10_E()),
            (D::LOG2_E(), f64::LOG2_E()),
            (D::PI(), f64::PI()),
            (D::SQRT_2(), f64::SQRT_2()),
            (D::TAU(), f64::TAU()),
            (D::LOG10_2(), f64::LOG10_2()),
            (D::LOG2_10(), f64::LOG2_10()),
        ];
        for (d, f) in consts {
            assert!(same(d.re, f) && same(d.eps, 0.0), "{d} against {f}");
        }
    }

    #[test]
    fn conversions_go_through_the_value() {
        let x = D::new(-3.75, 9.0);
        assert_eq!(ToPrimitive::to_f64(&x), Some(-3.75));
        assert_eq!(x.to_f32(), Some(-3.75));
        assert_eq!(x.to_i32(), Some(-3));
        assert_eq!(x.to_i128(), Some(-3));
        assert_eq!(x.to_u8(), None);
        assert_eq!(D::new(300.5, 1.0).to_u16(), Some(300));
        assert_eq!(D::new(f64::NAN, 1.0).to_i64(), None);
        assert_eq!(<D as NumCast>::from(7_u8), Some(D::constant(7.0)));
        assert_eq!(<D as NumCast>::from(0.5_f32), Some(D::constant(0.5)));
        assert_eq!(
            <Dual<f32> as NumCast>::from(1e300_f64),
            Some(Dual::constant(f32::INFINITY))
        );
        assert_eq!(D::from_str_radix("2.5", 10).ok(), Some(D::constant(2.5)));
        assert!(D::from_str_radix("x", 10).is_err());
        assert_eq!(<D as crate::Float>::from_f64(0.1), D::constant(0.1));
        assert_eq!(<D as From<f64>>::from(0.1), D::constant(0.1));
        assert_eq!(crate::Float::to_f64(x), -3.75);
        assert_eq!(
            <Dual<f32> as crate::Float>::from_f64(0.1),
            Dual::constant(0.1_f32)
        );
    }

    #[test]
    fn sin_cos_once_is_sin_and_cos_bit_for_bit() {
        for k in -200..200 {
            let x = D::new(k as f64 * 0.0731, 1.0 - k as f64 * 0.01);
            let (s, c) = crate::Float::sin_cos_once(x);
            let (s2, c2) = x.sin_cos();
            for (a, b) in [(s, x.sin()), (c, x.cos()), (s2, x.sin()), (c2, x.cos())] {
                assert!(same(a.re, b.re) && same(a.eps, b.eps), "at {x}");
            }
        }
    }

    #[test]
    fn displays_as_a_sum() {
        assert_eq!(D::new(1.5, 0.25).to_string(), "1.5 + 0.25ε");
        assert_eq!(D::new(1.5, -0.25).to_string(), "1.5 - 0.25ε");
        assert_eq!(D::new(-2.0, 0.0).to_string(), "-2 + 0ε");
        assert_eq!(
            format!("{:.2}", D::new(1.0 / 3.0, -2.0 / 3.0)),
            "0.33 - 0.67ε"
        );
        assert_eq!(D::new(f64::NAN, f64::INFINITY).to_string(), "NaN + infε");
        assert_eq!(
            format!("{:?}", D::new(1.5, 0.25)),
            "Dual { re: 1.5, eps: 0.25 }"
        );
    }

    #[test]
    fn differentiable_acts_on_both_parts() {
        let x = D::new(1.5, -2.0);
        assert_eq!(x.zero_like(), D::new(0.0, 0.0));
        let mut acc = x.zero_like();
        acc.accumulate(&x);
        acc.accumulate(&D::new(0.5, 1.0));
        assert_eq!(acc, D::new(2.0, -1.0));
        acc.scaled_add(-0.5, &D::new(4.0, 6.0));
        assert_eq!(acc, D::new(0.0, -4.0));
        // A zero step adds nothing, even from infinity or NaN.
        acc.scaled_add(0.0, &D::new(f64::INFINITY, f64::NAN));
        assert_eq!(acc, D::new(0.0, -4.0));
        // In a container.
        let mut w = vec![D::new(1.0, 0.0), D::new(2.0, 1.0)];
        w.scaled_add(2.0, &vec![D::new(0.5, 0.5), D::new(-1.0, 0.25)]);
        assert_eq!(w, vec![D::new(2.0, 1.0), D::new(0.0, 1.5)]);
        let mut f = Dual::new(1.0_f32, 2.0);
        f.scaled_add(0.1, &Dual::new(1.0, 1.0));
        assert_eq!(f, Dual::new(1.0 + 0.1_f64 as f32, 2.0 + 0.1_f64 as f32));
    }

    #[test]
    fn nested_duals_give_third_derivatives() {
        // x = 0.7 seeded in both directions: sin, cos, cos, −sin.
        type DD = Dual<Dual<f64>>;
        let x = DD::new(Dual::new(0.7, 1.0), Dual::new(1.0, 0.0));
        let y = x.sin();
        assert_eq!(y.re, Dual::new(0.7_f64.sin(), 0.7_f64.cos()));
        assert_eq!(y.eps, Dual::new(0.7_f64.cos(), -0.7_f64.sin()));
        // And a rule at Dual<Dual<f64>>: d²/dx² of sin' = −cos.
        let d = trig::sin_pullback(x, y, DD::one());
        assert_eq!(d.eps.eps, -0.7_f64.cos());
    }

    // -----------------------------------------------------------------------
    // The runtime's rules instantiated at Dual<f64>: second derivatives.

    #[test]
    fn sin_pullback_gives_the_second_derivative() {
        let x = D::new(0.7, 1.0);
        let y = trig::sin(x);
        let d = trig::sin_pullback(x, y, D::constant(1.0));
        assert_eq!(d.re, 0.7_f64.cos());
        assert_eq!(d.eps, -0.7_f64.sin());
        // The first attempt's unguarded rule agrees.
        assert_eq!(trig::sin_pullback_unguarded(x, y, D::constant(1.0)), d);
        // And through `sin_with_partial`, as generated code calls it.
        let (value, partial) = trig::sin_with_partial(x);
        assert_eq!(value, y);
        assert_eq!(float::scale(D::constant(1.0), partial), d);
    }

    #[test]
    fn exp_and_log_pullbacks_give_second_derivatives() {
        let x = D::new(0.3, 1.0);
        let d = exp_log::exp_pullback(x, exp_log::exp(x), D::one());
        assert_eq!(d, D::new(0.3_f64.exp(), 0.3_f64.exp()));
        let x = D::new(2.5, 1.0);
        let d = exp_log::ln_pullback(x, exp_log::ln(x), D::one());
        assert!(close(d.re, 0.4, 1e-15) && close(d.eps, -0.16, 1e-15), "{d}");
        // log(x, b): ∂²/∂x∂b = −1/(x b ln² b).
        let (x, b) = (2.5, 3.0);
        let xs = D::constant(x);
        let bs = D::new(b, 1.0);
        let (dx, _) = exp_log::log_pullback(xs, bs, exp_log::log(xs, bs), D::one());
        let expected = -1.0 / (x * b * b.ln() * b.ln());
        assert!(
            close(dx.eps, expected, 1e-12),
            "{} against {expected}",
            dx.eps
        );
    }

    #[test]
    fn power_pullbacks_give_second_derivatives() {
        let (x, e) = (1.7_f64, 2.5_f64);
        // Seeded in x: the first column of the Hessian of xᵉ.
        let (xd, ed) = (D::new(x, 1.0), D::constant(e));
        let (dx, de) = power::powf_pullback(xd, ed, power::powf(xd, ed), D::one());
        let xe1 = x.powf(e - 1.0);
        assert!(close(dx.re, e * xe1, 1e-15));
        assert!(close(dx.eps, e * (e - 1.0) * x.powf(e - 2.0), 1e-12));
        assert!(close(de.re, x.powf(e) * x.ln(), 1e-15));
        let mixed = xe1 + e * xe1 * x.ln();
        assert!(close(de.eps, mixed, 1e-12), "{} against {mixed}", de.eps);
        // Seeded in e: the second column, with the same mixed entry.
        let (xd, ed) = (D::constant(x), D::new(e, 1.0));
        let (dx, de) = power::powf_pullback(xd, ed, power::powf(xd, ed), D::one());
        assert!(close(dx.eps, mixed, 1e-12), "{} against {mixed}", dx.eps);
        assert!(close(de.eps, x.powf(e) * x.ln() * x.ln(), 1e-12));
        // A negative base with a constant exponent, as at f64.
        let xd = D::new(-1.5, 1.0);
        let (dx, _) = power::powf_pullback(
            xd,
            D::constant(3.0),
            power::powf(xd, D::constant(3.0)),
            D::one(),
        );
        assert_eq!(dx, D::new(6.75, -9.0));
        // powi.
        let x = D::new(1.3, 1.0);
        let d = power::powi_pullback(x, 3, power::powi(x, 3), D::one());
        assert!(
            close(d.re, 3.0 * 1.69, 1e-15) && close(d.eps, 6.0 * 1.3, 1e-15),
            "{d}"
        );
        let d = power::powi_pullback(x, -2, power::powi(x, -2), D::one());
        assert!(close(d.eps, 6.0 / 1.3_f64.powi(4), 1e-12), "{d}");
        // sqrt, through its output: (x^½)'' = −¼ x^(−3/2).
        let x = D::new(2.0, 1.0);
        let d = power::sqrt_pullback(x, power::sqrt(x), D::one());
        assert!(close(d.eps, -0.25 * 2f64.powf(-1.5), 1e-15), "{d}");
    }

    #[test]
    fn the_quotient_pullback_gives_its_hessian() {
        let (a, b) = (2.0_f64, 5.0_f64);
        // Seeded in a: (∂²/∂a², ∂²/∂a∂b) = (0, −1/b²).
        let (ad, bd) = (D::new(a, 1.0), D::constant(b));
        let (da, db) = arith::div_pullback(ad, bd, arith::div(ad, bd), D::one());
        // The values are the f64 pullback's, bit for bit.
        assert_eq!((da.re, db.re), arith::div_pullback(a, b, a / b, 1.0));
        assert_eq!(da.eps, 0.0);
        assert!(close(db.eps, -1.0 / (b * b), 1e-15));
        // Seeded in b: (−1/b², 2a/b³).
        let (ad, bd) = (D::constant(a), D::new(b, 1.0));
        let (da, db) = arith::div_pullback(ad, bd, arith::div(ad, bd), D::one());
        assert!(close(da.eps, -1.0 / (b * b), 1e-15));
        assert!(close(db.eps, 2.0 * a / (b * b * b), 1e-15));
        // The product: ∂²(ab)/∂a∂b = 1.
        let (ad, bd) = (D::new(a, 1.0), D::constant(b));
        let (da, db) = arith::mul_pullback(ad, bd, arith::mul(ad, bd), D::one());
        assert_eq!((da, db), (D::new(b, 0.0), D::new(a, 1.0)));
    }

    #[test]
    fn scale_keeps_an_adjoint_that_is_zero_in_value_only() {
        // dy = 0 + ε: not zero, so its Hessian contribution survives.
        let d = float::scale(D::new(0.0, 1.0), D::constant(3.0));
        assert_eq!(d, D::new(0.0, 3.0));
        // The rules built on it: an adjoint whose value is 0 still carries
        // its tangent through.
        let x = D::constant(0.7);
        assert_eq!(
            trig::sin_pullback(x, trig::sin(x), D::new(0.0, 1.0)).eps,
            0.7_f64.cos()
        );
        // A zero adjoint in both parts is exactly zero, even against ∞.
        let d = float::scale(D::zero(), D::new(f64::INFINITY, f64::NAN));
        assert_eq!(d, D::zero());
        assert!(!d.is_nan());
    }

    #[test]
    fn machine_learning_rules_give_second_derivatives() {
        let x = D::new(0.4, 1.0);
        let s = 1.0 / (1.0 + (-0.4_f64).exp());
        let d = ml::sigmoid_pullback(x, ml::sigmoid(x), D::one());
        assert!(close(d.re, s * (1.0 - s), 1e-15));
        assert!(close(d.eps, s * (1.0 - s) * (1.0 - 2.0 * s), 1e-12), "{d}");
        let d = ml::softplus_pullback(x, ml::softplus(x), D::one());
        assert!(close(d.eps, s * (1.0 - s), 1e-12), "{d}");
        // relu and abs: piecewise linear, second derivative 0.
        let x = D::new(-2.0, 1.0);
        assert_eq!(
            piecewise::abs_pullback(x, piecewise::abs(x), D::one()),
            D::new(-1.0, 0.0)
        );
        assert_eq!(
            ml::relu_pullback(-x, ml::relu(-x), D::one()),
            D::new(1.0, 0.0)
        );
        // max routes the adjoint by the values.
        let (a, b) = (D::new(3.0, 1.0), D::constant(2.0));
        let (da, db) = piecewise::max_pullback(a, b, piecewise::max(a, b), D::new(0.5, 2.0));
        assert_eq!((da, db), (D::new(0.5, 2.0), D::zero()));
    }

    #[test]
    fn logsumexp_pullback_gives_the_softmax_jacobian() {
        let x = [0.3, -1.2, 2.0];
        let v = [1.0, 0.5, -2.0];
        let xd: Vec<D> = x.iter().zip(&v).map(|(&x, &v)| D::new(x, v)).collect();
        let y = kernels::logsumexp(&xd);
        let mut dx = vec![D::zero(); 3];
        kernels::logsumexp_pullback(&xd, y, D::one(), Some(&mut dx));
        let z: f64 = x.iter().map(|x| x.exp()).sum();
        let p: Vec<f64> = x.iter().map(|x| x.exp() / z).collect();
        let pv: f64 = p.iter().zip(&v).map(|(p, v)| p * v).sum();
        for i in 0..3 {
            // (diag(p) − p pᵀ) v.
            let hv = p[i] * (v[i] - pv);
            assert!(close(dx[i].re, p[i], 1e-14), "{i}: {}", dx[i]);
            assert!(
                close(dx[i].eps, hv, 1e-12),
                "{i}: {} against {hv}",
                dx[i].eps
            );
        }
    }

    /// f(x, y) = sin(xy) + eˣ/y, its reverse sweep written with the rules
    /// as generated code writes it, generic over the float type.
    fn gradient<T: crate::Float>(x: T, y: T) -> (T, T) {
        let p = arith::mul(x, y);
        let s = trig::sin(p);
        let e = exp_log::exp(x);
        let q = arith::div(e, y);
        let f = arith::add(s, q);
        let (ds, dq) = arith::add_pullback(s, q, f, T::one());
        let (de, dy_q) = arith::div_pullback(e, y, q, dq);
        let dx_e = exp_log::exp_pullback(x, e, de);
        let dp = trig::sin_pullback(p, s, ds);
        let (dx_p, dy_p) = arith::mul_pullback(x, y, p, dp);
        (dx_e + dx_p, dy_q + dy_p)
    }

    #[test]
    fn a_reverse_sweep_at_dual_gives_hessian_vector_products() {
        let (x, y) = (0.8_f64, 1.3_f64);
        let (xy, ex) = (x * y, x.exp());
        let hxx = -y * y * xy.sin() + ex / y;
        let hxy = xy.cos() - xy * xy.sin() - ex / (y * y);
        let hyy = -x * x * xy.sin() + 2.0 * ex / (y * y * y);
        let g = gradient(x, y);
        for (v, hv) in [
            ((1.0, 0.0), (hxx, hxy)),
            ((0.0, 1.0), (hxy, hyy)),
            ((0.3, -1.2), (0.3 * hxx - 1.2 * hxy, 0.3 * hxy - 1.2 * hyy)),
        ] {
            let (gx, gy) = gradient(D::new(x, v.0), D::new(y, v.1));
            // The primal sweep is the f64 one, bit for bit.
            assert_eq!((gx.re, gy.re), g);
            assert!(
                close(gx.eps, hv.0, 1e-12),
                "v = {v:?}: {} against {}",
                gx.eps,
                hv.0
            );
            assert!(
                close(gy.eps, hv.1, 1e-12),
                "v = {v:?}: {} against {}",
                gy.eps,
                hv.1
            );
        }
    }

    #[test]
    fn stacks_of_duals_push_and_pop() {
        let entry = |k: usize| D::new(k as f64 * 0.5, -(k as f64));
        let mut s: Stack<D> = Stack::new();
        for k in 0..100 {
            s.push(entry(k));
        }
        assert_eq!(s.len(), 100);
        for k in (0..100).rev() {
            assert_eq!(s.pop(), entry(k));
        }
        assert!(s.is_empty());
        // Through a writer and a reader, as loops do, with a replay first.
        {
            let mut w = s.writer(10);
            for k in 0..37 {
                w.push(entry(k));
            }
            w.finish();
        }
        {
            let mut r = s.replay();
            for k in (0..37).rev() {
                assert_eq!(*r.read(), entry(k));
            }
        }
        assert_eq!(s.len(), 37);
        {
            let mut r = s.reader();
            for k in (0..37).rev() {
                assert_eq!(r.pop(), entry(k));
            }
        }
        assert!(s.is_empty());
        // Slabs, and tuples with a dual in them.
        let slab: Vec<D> = (0..5).map(entry).collect();
        s.push_slice(&slab);
        assert_eq!(s.reader().pop_slice(5), &slab[..]);
        let mut t: Stack<(D, usize)> = Stack::new();
        t.push((entry(3), 3));
        assert_eq!(t.pop(), (entry(3), 3));
    }
}

/// The rules' branches at special points follow the real parts, so the
/// real parts of a sweep at dual numbers are the float sweep's there too.
#[cfg(test)]
mod special_points {
    use super::Dual;

    #[test]
    fn rules_branch_on_the_real_parts() {
        let x: Dual<f64> = Dual::new(0.0, 1.0);
        let dy = Dual::new(2.0, 0.5);
        let d = crate::piecewise::abs_pullback(x, x, dy);
        assert_eq!((d.re, d.eps), (0.0, 0.0));
        let (a, b) = (Dual::new(1.0, 1.0), Dual::new(1.0, -1.0));
        let (da, db) = crate::piecewise::max_pullback(a, b, crate::piecewise::max(a, b), dy);
        assert_eq!((da.re, db.re), (1.0, 1.0));
        let (dx, _) = crate::power::powf_pullback(
            Dual::new(0.0, 0.0),
            Dual::new(0.0, 1.0),
            Dual::constant(1.0),
            dy,
        );
        assert_eq!(dx.re, 0.0);
        assert!(!dx.re.is_nan());
    }
}

#[cfg(test)]
mod sums {
    use super::Dual;

    #[test]
    fn sums_and_products_carry_the_tangents() {
        let v = [
            Dual::new(1.0, 0.5),
            Dual::new(2.0, -1.0),
            Dual::new(3.0, 0.0),
        ];
        let s: Dual<f64> = v.iter().sum();
        assert_eq!((s.re, s.eps), (6.0, -0.5));
        let p: Dual<f64> = v.iter().copied().product();
        // (1 + 0.5ε)(2 − ε)(3) = 6 + (0.5·2 − 1)·3 ε = 6 + 0ε.
        assert_eq!((p.re, p.eps), (6.0, 0.0));
        let e: Dual<f64> = core::iter::empty::<Dual<f64>>().sum();
        assert_eq!((e.re, e.eps), (0.0, 0.0));
    }
}

#[cfg(test)]
mod lanes {
    use super::{Dual, Eps, Lanes};
    use crate::float;
    use num_traits::Float as _;

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    /// Every operation, written once for any ε part: at `Lanes`, lane `l`
    /// must be, bit for bit, the `eps` of the same operation at `Dual<f64>`
    /// seeded with lane `l`'s tangents, and `re` the same.
    fn every_operation<E: Eps<f64>>(x: Dual<f64, E>, y: Dual<f64, E>) -> Vec<Dual<f64, E>> {
        let p = Dual::constant(2.5);
        vec![
            x + y,
            x - y,
            x * y,
            x / y,
            x % y,
            -x,
            x.sqrt(),
            x.cbrt(),
            x.exp(),
            x.exp2(),
            x.exp_m1(),
            x.ln(),
            x.ln_1p(),
            x.log2(),
            x.log10(),
            x.log(y),
            x.recip(),
            x.powi(3),
            x.powi(0),
            x.powi(i32::MIN),
            x.powf(y),
            x.powf(p),
            p.powf(x),
            x.sin(),
            x.cos(),
            x.tan(),
            x.asin(),
            x.acos(),
            x.atan(),
            x.atan2(y),
            x.sin_cos().0,
            x.sin_cos().1,
            crate::Float::sin_cos_once(x).1,
            x.sinh(),
            x.cosh(),
            x.tanh(),
            x.asinh(),
            x.acosh(),
            x.atanh(),
            x.abs(),
            x.signum(),
            x.floor(),
            x.fract(),
            x.max(y),
            x.min(y),
            x.max(x),
            x.clamp(p, p + y.abs()),
            x.abs_sub(y),
            x.hypot(y),
            x.mul_add(y, x),
            x.to_degrees(),
            x.to_radians(),
            x.copysign(y),
            x.powi(2) * y.exp(),
        ]
    }

    #[test]
    fn lanes_are_single_directions_bit_for_bit() {
        const L: usize = 5;
        // Directions with zeros (a zero lane stays exactly zero), a NaN and
        // an infinity (which must stay in their lane).
        let dx = [1.0, 0.0, -0.5, f64::NAN, 2.0];
        let dy = [0.0, 0.0, 3.0, 1.0, f64::INFINITY];
        for (x, y) in [
            (0.3, 0.7),
            (-0.4, 1.9),
            (0.0, -0.0),
            (1.5, 1.5),
            (0.9, -2.0),
            (2.0, 0.0),
        ] {
            let lanes = every_operation(Dual::new(x, Lanes::<f64, L>(dx)), Dual::new(y, Lanes(dy)));
            for l in 0..L {
                let single = every_operation(Dual::new(x, dx[l]), Dual::new(y, dy[l]));
                for (k, (a, b)) in lanes.iter().zip(&single).enumerate() {
                    assert!(
                        same(a.re, b.re) && same(a.eps.0[l], b.eps),
                        "operation {k} at ({x}, {y}), lane {l}: {a} against {b}"
                    );
                }
            }
        }
        // `scale`'s guard sees the whole adjoint: zero in every part, the
        // contribution is exactly zero in every lane, whatever the slope.
        let zero: Dual<f64, Lanes<f64, 2>> = Dual::constant(0.0);
        let slope = Dual::new(f64::INFINITY, Lanes([f64::NAN, 1.0]));
        assert_eq!(float::scale(zero, slope), zero);
        let c: Dual<f64, Lanes<f64, 2>> = Dual::new(1.5, Lanes([0.25, -1.0]));
        assert_eq!(format!("{c}"), "1.5 + [0.25, -1]ε");
        assert!(c.is_finite() && !c.is_nan());
        assert!(Dual::new(1.0, Lanes([0.0, f64::INFINITY])).is_infinite());
    }
}

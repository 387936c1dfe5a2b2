//! The float trait every rule is generic over.

/// The float types `#[grad]` differentiates: `f64` and `f32`.
///
/// It is `num_traits::Float` (the standard trait for the elementary
/// functions, called as methods: `x.sin()`) plus what generated code and
/// rules need on top: compound assignment for adjoint accumulation (`+=`),
/// formatting, thread safety, and
/// conversion from an `f64` literal, so that a generic body writes
/// `T::from_f64(0.5)` once for both widths.
///
/// Why a trait of this crate's own rather than a list of bounds: a user
/// writing a generic `#[grad]` function writes a single bound,
/// `T: autodiff::Float`, and the crate can add to it without breaking them.
///
/// ```
/// use autodiff_runtime::Float;
///
/// fn half_square<T: Float>(x: T) -> T {
///     T::from_f64(0.5) * x * x
/// }
/// assert_eq!(half_square(3.0_f64), 4.5);
/// assert_eq!(half_square(3.0_f32), 4.5);
/// ```
pub trait Float:
    num_traits::Float
    + num_traits::FloatConst
    + core::ops::AddAssign
    + core::ops::SubAssign
    + core::ops::MulAssign
    + core::ops::DivAssign
    + core::ops::RemAssign
    + core::fmt::Debug
    + core::fmt::Display
    + Default
    + Send
    + Sync
    + 'static
{
    /// The nearest value of this type to `v`.
    fn from_f64(v: f64) -> Self;
    /// This value as an `f64` (exact for both implementors).
    fn to_f64(self) -> f64;
}

impl Float for f64 {
    #[inline]
    fn from_f64(v: f64) -> Self {
        v
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
}

impl Float for f32 {
    #[inline]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
}

/// Multiplies `dy` by `derivative`, giving exactly zero when `dy` is zero
/// even if `derivative` is infinite: the convention that keeps an unused
/// path (`dy == 0`) from putting NaN (0·∞) into a gradient. Every rule's
/// pullback multiplies through it, and so does generated code that chains
/// a callee's partial derivative.
#[inline]
pub fn scale<T: Float>(dy: T, derivative: T) -> T {
    if dy == T::zero() {
        T::zero()
    } else {
        dy * derivative
    }
}

/// Zero of a float type, for generated code of generic functions.
#[doc(hidden)]
#[inline(always)]
pub fn zero<T: Float>() -> T {
    T::zero()
}

/// One of a float type, for generated code of generic functions.
#[doc(hidden)]
#[inline(always)]
pub fn one<T: Float>() -> T {
    T::one()
}

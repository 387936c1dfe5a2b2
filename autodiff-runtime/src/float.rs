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
    /// `(self.sin(), self.cos())`, bit for bit, from one call to the C
    /// library's `sincos` where there is one (Linux). `sin_cos()` does not
    /// promise that: it is two calls, which LLVM merges only when nothing
    /// separates them in the optimised code, and a branch scheduled
    /// between the two (a stack's capacity check, say) keeps them apart.
    #[inline]
    fn sin_cos_once(self) -> (Self, Self) {
        self.sin_cos()
    }

    /// Runs `f` on this thread's pool of spare vectors of this type (see
    /// [`stack::filled`](crate::stack::filled)); `None` where the type has
    /// no pool (a type of the user's), or while the thread ends.
    #[doc(hidden)]
    #[inline]
    fn with_vector_pool<R>(f: impl FnOnce(&mut crate::stack::VectorPool<Self>) -> R) -> Option<R> {
        let _ = f;
        None
    }
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod libm {
    extern "C" {
        pub fn sincos(x: f64, sin: *mut f64, cos: *mut f64);
        pub fn sincosf(x: f32, sin: *mut f32, cos: *mut f32);
    }
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
    #[inline]
    fn with_vector_pool<R>(f: impl FnOnce(&mut crate::stack::VectorPool<f64>) -> R) -> Option<R> {
        crate::stack::with_pool(&crate::stack::F64_VECTORS, f)
    }
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    #[inline]
    fn sin_cos_once(self) -> (f64, f64) {
        let (mut sin, mut cos) = (0.0, 0.0);
        // SAFETY: `sincos` writes one f64 through each pointer, both valid
        // for writes; it is glibc's and musl's, which std links on Linux.
        unsafe { libm::sincos(self, &mut sin, &mut cos) };
        (sin, cos)
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
    #[inline]
    fn with_vector_pool<R>(f: impl FnOnce(&mut crate::stack::VectorPool<f32>) -> R) -> Option<R> {
        crate::stack::with_pool(&crate::stack::F32_VECTORS, f)
    }
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    #[inline]
    fn sin_cos_once(self) -> (f32, f32) {
        let (mut sin, mut cos) = (0.0, 0.0);
        // SAFETY: as for f64's.
        unsafe { libm::sincosf(self, &mut sin, &mut cos) };
        (sin, cos)
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

pub mod first_try {
    //! The reverse sweep tried first without the zero-adjoint guard.
    //!
    //! [`scale`](super::scale) keeps 0·∞ out of gradients: a zero adjoint
    //! gives a zero contribution even where the partial is infinite. On
    //! products and quotients, which are most of a straight-line sweep
    //! (bundle adjustment's reprojection error), that compare-and-select
    //! costs more than the multiplication. So generated code for a reverse
    //! sweep that reads no value stack runs it twice at most: first with
    //! the unguarded product and quotient rules
    //! ([`arith::mul_pullback_unguarded`](crate::arith::mul_pullback_unguarded),
    //! [`arith::div_pullback_unguarded`](crate::arith::div_pullback_unguarded)),
    //! then, only if a gradient entry is NaN ([`is_nan`], [`any_nan`]), again
    //! with every rule guarded, from the same forward values.
    //!
    //! Why the first result, when no entry is NaN, is the guarded one. The
    //! two sweeps run the same statements on the same forward values; they
    //! differ only at an unguarded product or quotient whose adjoint is
    //! zero, where the guarded rule gives 0 and the unguarded one gives
    //! 0·p: the same zero (up to its sign) when p is finite, NaN when it is
    //! not. A NaN adjoint then reaches a gradient entry, because every
    //! later step of a reverse sweep either carries it (a sum, a product
    //! with a partial, [`scale`](super::scale) of a NaN, which is not
    //! zero, a routing by forward values as in `max`'s pullback) or ignores
    //! its adjoint altogether (a rule whose derivative is 0, as `floor`'s),
    //! and then both sweeps agree past it. No rule and no generated step
    //! reads an adjoint's value to decide anything but `dy == 0`, which a
    //! NaN fails; user code never sees an adjoint (a custom pullback is
    //! called with `dy = 1` and chained by [`scale`](super::scale)). So a
    //! gradient free of NaN after the first sweep equals the guarded one;
    //! a zero entry may carry the other sign (`-0.0 == 0.0`).
    //!
    //! A gradient that is NaN in truth is computed twice; the answer is the
    //! guarded sweep's.

    use crate::Float;

    /// Whether a scalar gradient entry is NaN.
    #[inline(always)]
    pub fn is_nan<T: Float>(x: T) -> bool {
        x.is_nan()
    }

    /// Whether any entry of an array's gradient is NaN.
    #[inline]
    pub fn any_nan<T: Float>(xs: &[T]) -> bool {
        // Without a short cut, so that the loop vectorises: the common
        // answer is `false`, after every entry.
        let mut nan = false;
        for x in xs {
            nan |= x.is_nan();
        }
        nan
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

/// The sum of `xs`, in order, as `xs.iter().sum()` computes it for `f64`
/// and `f32` (from −0.0, so that a sum of −0.0s keeps its sign), for
/// generated code that sums adjoints whose float type the source does not
/// state: rustc infers `T` from the slice.
#[doc(hidden)]
#[inline]
pub fn sum<T: Float>(xs: &[T]) -> T {
    xs.iter().fold(T::from_f64(-0.0), |acc, &x| acc + x)
}

/// `*slot += d as S`: the adjoint of a cast added back into the cast's
/// source, for generated code where the source's float type is not stated
/// (rustc infers `S`; `as _` would need it known earlier). The same value
/// as the `as` cast: exact from `f32` to `f64`, rounded to nearest the
/// other way.
#[doc(hidden)]
#[inline(always)]
pub fn add_cast<S: Float, D: Float>(slot: &mut S, d: D) {
    *slot += S::from_f64(d.to_f64());
}

#[cfg(test)]
mod tests {
    use super::Float;

    #[test]
    fn add_cast_is_the_as_cast() {
        let mut a = 1.0_f32;
        super::add_cast(&mut a, 0.1_f64);
        assert_eq!(a.to_bits(), (1.0_f32 + 0.1_f64 as f32).to_bits());
        let mut b = 1.0_f64;
        super::add_cast(&mut b, 0.1_f32);
        assert_eq!(b.to_bits(), (1.0 + 0.1_f32 as f64).to_bits());
        let mut c = 0.5_f64;
        super::add_cast(&mut c, 0.25_f64);
        assert_eq!(c, 0.75);
    }

    #[test]
    fn sum_is_std_sum_bit_for_bit() {
        let cases: [&[f64]; 4] = [&[], &[-0.0, -0.0], &[0.1, 0.2, 0.3, 1e16, -1e16], &[-0.0]];
        for xs in cases {
            assert_eq!(super::sum(xs).to_bits(), xs.iter().sum::<f64>().to_bits());
        }
        let ys = [0.1_f32, 0.7, -3.5];
        assert_eq!(super::sum(&ys).to_bits(), ys.iter().sum::<f32>().to_bits());
    }

    /// Points over the whole line: around 0, multiples of π/2 where one
    /// half is tiny, large arguments (hard range reduction), subnormals,
    /// signed zeros and the non-finite values.
    fn points() -> Vec<f64> {
        let mut p: Vec<f64> = (-2000..=2000).map(|k| k as f64 * 0.0137).collect();
        p.extend((0..64).map(|k| k as f64 * core::f64::consts::FRAC_PI_2));
        p.extend([1e5, -3.3e7, 1e22, 1.7e308, 5e-324, -2.2e-308, 0.0, -0.0]);
        p.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
        p
    }

    #[test]
    fn sin_cos_once_is_sin_and_cos_bit_for_bit() {
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        for x in points() {
            let (s, c) = x.sin_cos_once();
            assert!(same(s, x.sin()) && same(c, x.cos()), "f64 at {x:e}");
            let x = x as f32;
            let (s, c) = x.sin_cos_once();
            let same32 = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            assert!(same32(s, x.sin()) && same32(c, x.cos()), "f32 at {x:e}");
        }
    }

    #[test]
    fn value_and_partial_together_are_the_value_and_the_derivative() {
        use crate::trig::{cos, cos_with_partial, sin, sin_with_partial};
        for x in points().into_iter().filter(|x| x.is_finite()) {
            let (y, d) = sin_with_partial(x);
            assert_eq!(
                (y.to_bits(), d.to_bits()),
                (sin(x).to_bits(), x.cos().to_bits())
            );
            let (y, d) = cos_with_partial(x);
            assert_eq!(
                (y.to_bits(), d.to_bits()),
                (cos(x).to_bits(), (-x.sin()).to_bits())
            );
        }
    }

    #[test]
    fn first_try_finds_every_nan_and_nothing_else() {
        use super::first_try::{any_nan, is_nan};
        assert!(!any_nan::<f64>(&[]));
        assert!(!any_nan(&[1.0, f64::INFINITY, f64::NEG_INFINITY, -0.0]));
        for i in 0..37 {
            let mut xs = vec![0.5_f64; 37];
            xs[i] = f64::NAN;
            assert!(any_nan(&xs), "NaN at {i}");
        }
        assert!(any_nan(&[f32::NAN]));
        assert!(is_nan(f64::NAN) && !is_nan(f64::INFINITY) && !is_nan(0.0_f32));
    }

    #[test]
    fn unguarded_products_differ_from_guarded_ones_only_by_nan() {
        use crate::arith::{
            div_pullback, div_pullback_unguarded, mul_pullback, mul_pullback_unguarded,
        };
        let values = [
            0.0,
            -0.0,
            1.5,
            -2.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for a in values {
            for b in values {
                for dy in values {
                    let pairs = [
                        (
                            mul_pullback(a, b, a * b, dy),
                            mul_pullback_unguarded(a, b, a * b, dy),
                        ),
                        (
                            div_pullback(a, b, a / b, dy),
                            div_pullback_unguarded(a, b, a / b, dy),
                        ),
                    ];
                    for ((g0, g1), (u0, u1)) in pairs {
                        for (g, u) in [(g0, u0), (g1, u1)] {
                            // Equal (up to a zero's sign), or the unguarded
                            // one is NaN: what the first attempt's check
                            // catches.
                            assert!(
                                g == u || u.is_nan() && (g.is_nan() || dy == 0.0),
                                "a={a} b={b} dy={dy}: guarded {g}, unguarded {u}"
                            );
                        }
                    }
                }
            }
        }
    }
}

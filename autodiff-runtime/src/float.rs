//! The float trait every rule is generic over.

/// The float types `#[grad]` differentiates: `f64` and `f32`, and the
/// dual numbers [`Dual<T>`](crate::dual::Dual) over them, at which
/// `#[grad(hessian)]`'s `_hvp` runs a generic function's gradient.
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
    + crate::differentiable::Differentiable
    + crate::inner::Inner
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
    /// Whether the two values are equal as the function computes them:
    /// `==` for a float, the real parts for a dual number (whose `==` also
    /// compares the tangents). The rules decide their branches at
    /// special points with it (|x| at 0, a tie of `max`), so that at dual
    /// numbers they take the branch the float computation takes; a
    /// zero-adjoint guard (`dy == 0`) keeps `==`, which skips only a
    /// wholly zero adjoint.
    #[inline]
    fn primal_eq(self, other: Self) -> bool {
        self == other
    }
    /// `f64::rem_euclid` for every float type, a dual number's too, as
    /// a generic function calls it (`num_traits::Float` has none): the
    /// remainder in [0, |rhs|), `self % rhs` moved up by |rhs| where it is
    /// negative, as `f64::rem_euclid` computes it (`f64`'s and `f32`'s own
    /// method, which a call on one of them names first, gives the same
    /// bits). Its derivatives: [`crate::piecewise::rem_euclid_pullback`].
    #[inline]
    fn rem_euclid(self, rhs: Self) -> Self {
        let r = self % rhs;
        if r < Self::zero() {
            r + rhs.abs()
        } else {
            r
        }
    }
    /// `f64::div_euclid` for every float type: the quotient of
    /// [`Float::rem_euclid`], trunc(self/rhs), one less (one more for
    /// rhs < 0) where `self % rhs` is negative.
    #[inline]
    fn div_euclid(self, rhs: Self) -> Self {
        let q = (self / rhs).trunc();
        if self % rhs < Self::zero() {
            if rhs > Self::zero() {
                q - Self::one()
            } else {
                q + Self::one()
            }
        } else {
            q
        }
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

/// [`scale`] without the guard, `dy · derivative`: for the first attempt
/// of a reverse sweep (see [`first_try`]), where a derivative computed
/// with its value or a callee's partial is chained.
#[doc(hidden)]
#[inline(always)]
pub fn scale_unguarded<T: Float>(dy: T, derivative: T) -> T {
    dy * derivative
}

pub mod first_try {
    //! The reverse sweep tried first without the zero-adjoint guard.
    //!
    //! [`scale`](super::scale) keeps 0·∞ out of gradients: a zero adjoint
    //! gives a zero contribution even where the partial is infinite. Where
    //! a reverse step is a multiplication by a partial (bundle
    //! adjustment's products and quotients, a loop's `exp` or `tanh`),
    //! that compare-and-select costs more than the multiplication. So
    //! generated code runs a reverse sweep twice at most: first with the
    //! unguarded rules (`<rule>_pullback_unguarded`, as
    //! [`arith::mul_pullback_unguarded`](crate::arith::mul_pullback_unguarded),
    //! and [`scale_unguarded`](super::scale_unguarded)), reading the value
    //! stacks through [`Stack::replay`](crate::stack::Stack::replay), which
    //! leaves their entries in place; then, only if a gradient entry is NaN
    //! ([`is_nan`], [`any_nan`]), again with every rule guarded, from the
    //! same forward values, popping the entries. Where the first attempt
    //! stands, the stacks drop what they hold.
    //!
    //! Why the first result, when no entry is NaN, is the guarded one. The
    //! two sweeps run the same statements on the same forward values (the
    //! replayed entries are the popped ones); they differ only at an
    //! unguarded step whose adjoint is zero, where the guarded rule gives 0
    //! and the unguarded one gives 0·p: the same zero (up to its sign) when
    //! p is finite, NaN when it is not. A NaN adjoint then reaches a
    //! gradient entry, because every later step of a reverse sweep either
    //! carries it (a sum, a product with a partial, [`scale`](super::scale)
    //! of a NaN, which is not zero, a routing by forward values as in
    //! `max`'s pullback, a move of a loop's carried adjoint) or ignores its
    //! adjoint altogether (`abs` at 0, `powi` with n = 0), and then both
    //! sweeps agree past it. No rule and no generated step reads an
    //! adjoint's value to decide anything but `dy == 0`, which a NaN fails;
    //! user code never sees an adjoint (a custom pullback is called with
    //! `dy = 1` and chained by [`scale`](super::scale)). So a gradient free
    //! of NaN after the first sweep equals the guarded one; a zero entry
    //! may carry the other sign (`-0.0 == 0.0`).
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

/// A float, or a reference to one, read as the float: generated code's
/// reading of a pattern's binding (`Some(c)` of an `&f64`, which match
/// ergonomics binds by reference) where a rule reads it.
pub trait Read<T> {
    /// The float.
    fn read(self) -> T;
}

impl<T: Float> Read<T> for T {
    #[inline(always)]
    fn read(self) -> T {
        self
    }
}

impl<T: Float> Read<T> for &T {
    #[inline(always)]
    fn read(self) -> T {
        *self
    }
}

impl<T: Float> Read<T> for &&T {
    #[inline(always)]
    fn read(self) -> T {
        **self
    }
}

/// [`Read::read`].
#[doc(hidden)]
#[inline(always)]
pub fn read<T: Float, S: Read<T>>(s: S) -> T {
    s.read()
}

/// A value of a type the source does not state on which a float method
/// is called (`r.d.abs()`, `v.sqrt()` of `v` an element of a slice): the
/// float itself, or the float a reference refers to. A struct whose own
/// method has a float method's name is not one, and the call is a compile
/// error at the value that says what to write.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a float, and #[grad] took the method called on it for a float's by its name",
    label = "a `{Self}`, whose method here has the name of a float method",
    note = "state its type where #[grad] can read it (`let v: {Self} = ..;`, or a `for` loop over a parameter `&[{Self}]`), or call the method by its path, as in `{Self}::norm(&v)`: #[grad] then differentiates it through its #[grad]"
)]
pub trait Receiver {
    /// The float.
    type Float: Float;
    /// The float itself.
    fn float(self) -> Self::Float;
}

impl<T: Float> Receiver for T {
    type Float = T;
    #[inline(always)]
    fn float(self) -> T {
        self
    }
}

/// [`Receiver::float`].
#[doc(hidden)]
#[inline(always)]
pub fn receiver<S: Receiver>(s: S) -> S::Float {
    s.float()
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
///
/// The source of the cast may also be an integer or a `bool` whose type
/// the source code does not state (a struct's `usize` field, `m.n as
/// f64`): its adjoint is of its own type, and nothing is added to it (an
/// integer has no derivative), through [`CastAdjoint`].
#[doc(hidden)]
#[inline(always)]
pub fn add_cast<S: CastAdjoint, D: Float>(slot: &mut S, d: D) {
    slot.add_cast(d);
}

/// [`CastAdjoint::cast_tangent`]: the tangent of `x as D` from `x`'s;
/// also a gradient converted to the float type of a Jacobian's rows (an
/// `f64` parameter's, in the rows of a function of `T`).
#[doc(hidden)]
#[inline(always)]
pub fn cast_tangent<S: CastAdjoint, D: Float>(tangent: &S) -> D {
    tangent.cast_tangent()
}

/// The adjoint of the source of an `as` cast to a float: a float takes
/// the cast's adjoint, converted; an integer, a `bool` or a `char` takes
/// nothing, since the cast's derivative with respect to it is zero.
#[doc(hidden)]
pub trait CastAdjoint {
    /// `self += d as Self` for a float; nothing for any other type.
    fn add_cast<D: Float>(&mut self, d: D);
    /// The cast's tangent, from this source's (`_jvp`): the tangent
    /// converted for a float, zero for any other type (a struct's integer
    /// field, whose tangent is a copy of it).
    fn cast_tangent<D: Float>(&self) -> D;
}

impl<T: Float> CastAdjoint for T {
    #[inline(always)]
    fn add_cast<D: Float>(&mut self, d: D) {
        *self += T::from_f64(d.to_f64());
    }
    #[inline(always)]
    fn cast_tangent<D: Float>(&self) -> D {
        D::from_f64(Float::to_f64(*self))
    }
}

macro_rules! no_derivative_cast {
    ($($t:ty),*) => {$(
        impl CastAdjoint for $t {
            #[inline(always)]
            fn add_cast<D: Float>(&mut self, _: D) {}
            #[inline(always)]
            fn cast_tangent<D: Float>(&self) -> D {
                D::from_f64(0.0)
            }
        }
    )*};
}

no_derivative_cast!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool, char);

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
        // An integer's adjoint takes nothing.
        let mut n = 3usize;
        super::add_cast(&mut n, 0.25_f64);
        assert_eq!(n, 3);
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

    #[test]
    fn unguarded_unary_rules_differ_from_guarded_ones_only_by_nan() {
        use crate::{arith, exp_log, piecewise, power, trig};
        let values = [
            0.0,
            -0.0,
            0.5,
            1.0,
            -1.0,
            1.5,
            -2.0,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        type Pair = (
            &'static str,
            fn(f64, f64, f64) -> f64,
            fn(f64, f64, f64) -> f64,
            fn(f64) -> f64,
        );
        let rules: Vec<Pair> = vec![
            (
                "exp",
                exp_log::exp_pullback,
                exp_log::exp_pullback_unguarded,
                exp_log::exp,
            ),
            (
                "exp2",
                exp_log::exp2_pullback,
                exp_log::exp2_pullback_unguarded,
                exp_log::exp2,
            ),
            (
                "exp_m1",
                exp_log::exp_m1_pullback,
                exp_log::exp_m1_pullback_unguarded,
                exp_log::exp_m1,
            ),
            (
                "ln",
                exp_log::ln_pullback,
                exp_log::ln_pullback_unguarded,
                exp_log::ln,
            ),
            (
                "ln_1p",
                exp_log::ln_1p_pullback,
                exp_log::ln_1p_pullback_unguarded,
                exp_log::ln_1p,
            ),
            (
                "log2",
                exp_log::log2_pullback,
                exp_log::log2_pullback_unguarded,
                exp_log::log2,
            ),
            (
                "log10",
                exp_log::log10_pullback,
                exp_log::log10_pullback_unguarded,
                exp_log::log10,
            ),
            (
                "sin",
                trig::sin_pullback,
                trig::sin_pullback_unguarded,
                trig::sin,
            ),
            (
                "cos",
                trig::cos_pullback,
                trig::cos_pullback_unguarded,
                trig::cos,
            ),
            (
                "tan",
                trig::tan_pullback,
                trig::tan_pullback_unguarded,
                trig::tan,
            ),
            (
                "asin",
                trig::asin_pullback,
                trig::asin_pullback_unguarded,
                trig::asin,
            ),
            (
                "acos",
                trig::acos_pullback,
                trig::acos_pullback_unguarded,
                trig::acos,
            ),
            (
                "atan",
                trig::atan_pullback,
                trig::atan_pullback_unguarded,
                trig::atan,
            ),
            (
                "sinh",
                trig::sinh_pullback,
                trig::sinh_pullback_unguarded,
                trig::sinh,
            ),
            (
                "cosh",
                trig::cosh_pullback,
                trig::cosh_pullback_unguarded,
                trig::cosh,
            ),
            (
                "tanh",
                trig::tanh_pullback,
                trig::tanh_pullback_unguarded,
                trig::tanh,
            ),
            (
                "asinh",
                trig::asinh_pullback,
                trig::asinh_pullback_unguarded,
                trig::asinh,
            ),
            (
                "acosh",
                trig::acosh_pullback,
                trig::acosh_pullback_unguarded,
                trig::acosh,
            ),
            (
                "atanh",
                trig::atanh_pullback,
                trig::atanh_pullback_unguarded,
                trig::atanh,
            ),
            (
                "to_degrees",
                trig::to_degrees_pullback,
                trig::to_degrees_pullback_unguarded,
                trig::to_degrees,
            ),
            (
                "to_radians",
                trig::to_radians_pullback,
                trig::to_radians_pullback_unguarded,
                trig::to_radians,
            ),
            (
                "signum",
                piecewise::signum_pullback,
                piecewise::signum_pullback_unguarded,
                piecewise::signum,
            ),
            (
                "floor",
                piecewise::floor_pullback,
                piecewise::floor_pullback_unguarded,
                piecewise::floor,
            ),
            (
                "ceil",
                piecewise::ceil_pullback,
                piecewise::ceil_pullback_unguarded,
                piecewise::ceil,
            ),
            (
                "round",
                piecewise::round_pullback,
                piecewise::round_pullback_unguarded,
                piecewise::round,
            ),
            (
                "trunc",
                piecewise::trunc_pullback,
                piecewise::trunc_pullback_unguarded,
                piecewise::trunc,
            ),
            (
                "fract",
                piecewise::fract_pullback,
                piecewise::fract_pullback_unguarded,
                piecewise::fract,
            ),
            (
                "abs",
                piecewise::abs_pullback,
                piecewise::abs_pullback_unguarded,
                piecewise::abs,
            ),
            (
                "sqrt",
                power::sqrt_pullback,
                power::sqrt_pullback_unguarded,
                power::sqrt,
            ),
            (
                "cbrt",
                power::cbrt_pullback,
                power::cbrt_pullback_unguarded,
                power::cbrt,
            ),
            (
                "recip",
                arith::recip_pullback,
                arith::recip_pullback_unguarded,
                arith::recip,
            ),
            (
                "powi 3",
                |x, y, dy| power::powi_pullback(x, 3, y, dy),
                |x, y, dy| power::powi_pullback_unguarded(x, 3, y, dy),
                |x| x.powi(3),
            ),
            (
                "powi -2",
                |x, y, dy| power::powi_pullback(x, -2, y, dy),
                |x, y, dy| power::powi_pullback_unguarded(x, -2, y, dy),
                |x| x.powi(-2),
            ),
            (
                "powi 0",
                |x, y, dy| power::powi_pullback(x, 0, y, dy),
                |x, y, dy| power::powi_pullback_unguarded(x, 0, y, dy),
                |x| x.powi(0),
            ),
        ];
        for (name, guarded, unguarded, value) in rules {
            for x in values {
                for dy in values {
                    let y = value(x);
                    let (g, u) = (guarded(x, y, dy), unguarded(x, y, dy));
                    assert!(
                        g == u || u.is_nan() && (g.is_nan() || dy == 0.0),
                        "{name}: x={x} dy={dy}: guarded {g}, unguarded {u}"
                    );
                }
            }
        }
    }
}

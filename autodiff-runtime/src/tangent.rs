//! What `#[grad(jvp)]`'s `<name>_jvp` functions call besides the rules:
//! the directional derivative of a callee's value along its arguments'
//! tangents, from the callee's gradient slots.
//!
//! Forward mode takes each entry's tangent from the same rules as the
//! reverse sweep (a rule's pullback at dy = 1 gives the entry's partial
//! derivatives). A call to another `#[grad]` function with a float value
//! is taken through that function's gradient: the derivative of its value
//! along the tangents `ṫ` of its arguments is `Σ ⟨gradient, ṫ⟩`.

use crate::differentiable::Differentiable;
use crate::float::Float;

/// What a caller passes for an argument without a tangent (a constant, a
/// value that does not depend on its differentiated inputs) to a
/// callee's `__autodiff_jvp_slots_<name>`: the callee makes it a zero in
/// the parameter's shape where it differentiates the parameter, and
/// ignores it where it does not.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTangent;

/// A caller's tangent for a callee's parameter, as the tangent `P` the
/// callee's `_jvp` takes, owned (`Vec<T>` for a slice): the tangent
/// itself, a copy of one lent (`&[T]`, `&S`), or, from [`NoTangent`], a
/// zero in the parameter's shape.
pub trait Given<P> {
    /// The tangent, or `zero()` for [`NoTangent`].
    fn or_zero(self, zero: impl FnOnce() -> P) -> P;
}

impl<P: Differentiable> Given<P> for P {
    #[inline]
    fn or_zero(self, _: impl FnOnce() -> P) -> P {
        self
    }
}

impl<P: Differentiable> Given<P> for NoTangent {
    #[inline]
    fn or_zero(self, zero: impl FnOnce() -> P) -> P {
        zero()
    }
}

impl<S: Differentiable + Clone> Given<S> for &S {
    #[inline]
    fn or_zero(self, _: impl FnOnce() -> S) -> S {
        self.clone()
    }
}

impl<T: Differentiable + Clone> Given<Vec<T>> for &[T] {
    #[inline]
    fn or_zero(self, _: impl FnOnce() -> Vec<T>) -> Vec<T> {
        self.to_vec()
    }
}

impl<T: Differentiable + Copy, const N: usize> Given<[T; N]> for &[T] {
    #[inline]
    fn or_zero(self, _: impl FnOnce() -> [T; N]) -> [T; N] {
        assert_eq!(
            self.len(),
            N,
            "a tangent of another length than the callee's array parameter"
        );
        core::array::from_fn(|i| self[i])
    }
}

/// An array's tangent lent to a slice parameter (`vw(&d, y)`, `d` an
/// array a call returned): the slice's `Vec`.
impl<T: Differentiable + Clone, const N: usize> Given<Vec<T>> for &[T; N] {
    #[inline]
    fn or_zero(self, _: impl FnOnce() -> Vec<T>) -> Vec<T> {
        self.to_vec()
    }
}

/// A `Vec`'s tangent lent to an array parameter.
impl<T: Differentiable + Copy, const N: usize> Given<[T; N]> for &Vec<T> {
    #[inline]
    fn or_zero(self, zero: impl FnOnce() -> [T; N]) -> [T; N] {
        Given::<[T; N]>::or_zero(&self[..], zero)
    }
}

/// What a function without `#[grad(jvp)]` gives a forward-mode caller
/// instead of a `_jvp`: its hidden `<name>_jvp` stands for this type, and
/// its `__autodiff_jvp_slots_<name>` is bound by [`JvpOf`], which nothing
/// implements, so the call fails to compile where it is, with what to
/// write.
#[derive(Clone, Copy, Debug)]
pub struct NoJvp;

/// Implemented by nothing: see [`NoJvp`].
#[diagnostic::on_unimplemented(
    message = "the called #[grad] function has no `_jvp`, which forward mode takes a call returning a vector through",
    label = "called here, in a `#[grad(jvp)]` function",
    note = "write `jvp` in the called function's attribute, `#[grad(jvp)]`"
)]
pub trait JvpOf {}

/// [`Given::or_zero`], the tangent type named by the call.
#[inline]
pub fn given<P, G: Given<P>>(tangent: G, zero: impl FnOnce() -> P) -> P {
    tangent.or_zero(zero)
}

/// A callee's gradient for one parameter, taken along the tangent of the
/// caller's argument: `⟨gradient, tangent⟩`. Implemented for gradients
/// only (a float, a `Vec` or an array of floats), not for the
/// [`Constant`](crate::call::Constant) slot of a parameter the callee
/// does not differentiate: a caller whose argument has a tangent cannot
/// drop it silently.
#[diagnostic::on_unimplemented(
    message = "this argument carries a derivative into a #[grad] function that does not differentiate with respect to its parameter",
    label = "the derivative through this argument would be lost",
    note = "name the parameter in the called function's `#[grad(wrt(..))]`, or pass a value that does not depend on the differentiated inputs"
)]
pub trait Along<A: ?Sized, T> {
    /// `⟨self, tangent⟩`.
    fn along(&self, tangent: &A) -> T;
}

impl<T: Float> Along<T, T> for T {
    #[inline(always)]
    fn along(&self, tangent: &T) -> T {
        *self * *tangent
    }
}

impl<T: Float> Along<[T], T> for [T] {
    #[inline]
    fn along(&self, tangent: &[T]) -> T {
        assert_eq!(
            self.len(),
            tangent.len(),
            "a callee's gradient has another length than its argument's tangent"
        );
        self.iter()
            .zip(tangent)
            .fold(T::from_f64(0.0), |acc, (g, t)| acc + *g * *t)
    }
}

impl<T: Float> Along<[T], T> for Vec<T> {
    #[inline]
    fn along(&self, tangent: &[T]) -> T {
        self[..].along(tangent)
    }
}

impl<T: Float, const N: usize> Along<[T], T> for [T; N] {
    #[inline]
    fn along(&self, tangent: &[T]) -> T {
        self[..].along(tangent)
    }
}

/// The tangent of an integer, a `bool` or a `char` (a field of a
/// differentiated struct passed on, `offset(y, p.n)`) is no derivative:
/// a [`Constant`](crate::call::Constant) slot takes it, as zero.
macro_rules! constant_along {
    ($($t:ty),*) => {$(
        impl<T: Float> Along<$t, T> for crate::call::Constant {
            #[inline(always)]
            fn along(&self, _: &$t) -> T {
                T::zero()
            }
        }
    )*};
}

constant_along!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool, char);

pub use crate::inner::Inner;

/// A struct's gradient taken along its tangent, for the struct types that
/// `#[derive(Differentiable)]` implements [`Along`] for (through this).
#[doc(hidden)]
#[inline]
pub fn along_inner<S: Inner + ?Sized, T: Float>(slot: &S, tangent: &S) -> T {
    T::from_f64(slot.inner(tangent))
}

/// `tangent`, of the type of `value`: what fixes the float type of a
/// call's tangent where a struct's gradient, taken along its tangent, may
/// give any.
#[doc(hidden)]
#[inline(always)]
pub fn like<T>(_value: &T, tangent: T) -> T {
    tangent
}

/// `⟨slot, tangent⟩`, the derivative of a callee's value along one
/// argument's tangent.
#[inline(always)]
pub fn along<A: ?Sized, T, S: Along<A, T>>(slot: &S, tangent: &A) -> T {
    slot.along(tangent)
}

/// [`along`] for an argument whose derivative comes only through casts
/// (`runtime::call::through_cast` checked it): a float slot's partial
/// times the tangent, zero for a constant slot.
#[inline(always)]
pub fn along_through_cast<T: Float, S: crate::call::PartialOrZero<T> + Copy>(
    slot: &S,
    tangent: &T,
) -> T {
    crate::float::scale(*tangent, slot.partial_or_zero())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_and_arrays() {
        assert_eq!(along(&2.0_f64, &3.0), 6.0);
        assert_eq!(along(&vec![1.0_f64, 2.0], &[3.0, 4.0][..]), 11.0);
        assert_eq!(along(&[1.0_f32, -1.0], &[0.5, 0.25][..]), 0.25);
    }

    #[test]
    #[should_panic(expected = "another length")]
    fn lengths_must_agree() {
        let _: f64 = along(&vec![1.0_f64], &[1.0, 2.0][..]);
    }
}

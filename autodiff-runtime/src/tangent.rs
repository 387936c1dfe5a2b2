//! What `#[grad(jvp)]`'s `<name>_jvp` functions call besides the rules:
//! the directional derivative of a callee's value along its arguments'
//! tangents, from the callee's gradient slots.
//!
//! Forward mode takes each entry's tangent from the same rules as the
//! reverse sweep (a rule's pullback at dy = 1 gives the entry's partial
//! derivatives). A call to another `#[grad]` function with a float value
//! is taken through that function's gradient: the derivative of its value
//! along the tangents `ṫ` of its arguments is `Σ ⟨gradient, ṫ⟩`.

use crate::float::Float;

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

/// `⟨slot, tangent⟩`, the derivative of a callee's value along one
/// argument's tangent.
#[inline(always)]
pub fn along<A: ?Sized, T, S: Along<A, T>>(slot: &S, tangent: &A) -> T {
    slot.along(tangent)
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

//! Values a gradient can be taken with respect to, whatever their shape.
//!
//! A parameter's gradient has the parameter's own type: an `f64` for an
//! `f64`, a `Vec<f64>` for a `Vec<f64>`, a `Params` for a struct `Params`
//! that derives `Differentiable` (`#[derive(autodiff::Differentiable)]`). Its float parts hold derivatives; every other
//! part (an integer, a `bool`, a `String`, a field marked
//! `#[differentiable(constant)]`) is copied from the argument, so the
//! gradient can be handed to code that takes the type.
//!
//! Generated code uses the trait to start an adjoint at zero in the shape
//! of its value ([`zero_like`](Differentiable::zero_like)), to add a
//! contribution into a part of it ([`accumulate`](Differentiable::accumulate)),
//! and to chain through a callee's gradient
//! ([`scaled_add`](Differentiable::scaled_add)); an optimiser uses
//! `scaled_add` for its step:
//!
//! ```
//! use autodiff_runtime::Differentiable;
//!
//! let mut w = vec![1.0, 2.0];
//! let grad = vec![0.5, -1.0];
//! w.scaled_add(-0.1, &grad); // w -= 0.1 * grad
//! assert_eq!(w, vec![0.95, 2.1]);
//! ```

/// A type whose float parts a gradient holds. Implemented for `f64` and
/// `f32`; integers, `bool`, `char` and `String` (constants: their part of
/// a gradient is a copy); arrays, `Vec`s, `Option`s, boxes and tuples of
/// such types; and any struct with `#[derive(autodiff::Differentiable)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `autodiff::Differentiable`",
    label = "a gradient cannot be taken with respect to this type",
    note = "derive it with `#[derive(autodiff::Differentiable)]`, mark the field `#[differentiable(constant)]`, or leave the parameter out of `#[grad(wrt(..))]`"
)]
pub trait Differentiable: Sized {
    /// A value of the same shape whose float parts are 0 and whose other
    /// parts are copies of this one's.
    fn zero_like(&self) -> Self;

    /// Adds `other`'s float parts into this one's (`self += other`).
    fn accumulate(&mut self, other: &Self);

    /// Adds `alpha · other`'s float parts into this one's
    /// (`self += alpha * other`): a gradient step is
    /// `params.scaled_add(-learning_rate, &grad)`. `alpha` is converted to
    /// each part's float type. A zero `alpha` adds exactly nothing, even
    /// where `other` is infinite or NaN.
    fn scaled_add(&mut self, alpha: f64, other: &Self);
}

/// Implemented by `#[derive(Differentiable)]` alongside `Differentiable`:
/// what generated code asks to warn of a derived struct that a bare
/// `#[grad]` leaves constant (`runtime::call::Probe`).
#[doc(hidden)]
pub trait Derived {}

macro_rules! float {
    ($($t:ty),*) => {$(
        impl Differentiable for $t {
            #[inline]
            fn zero_like(&self) -> Self {
                0.0
            }
            #[inline]
            fn accumulate(&mut self, other: &Self) {
                *self += *other;
            }
            #[inline]
            fn scaled_add(&mut self, alpha: f64, other: &Self) {
                if alpha != 0.0 {
                    *self += alpha as $t * *other;
                }
            }
        }
    )*};
}

float!(f64, f32);

macro_rules! constant {
    ($($t:ty),*) => {$(
        impl Differentiable for $t {
            #[inline]
            fn zero_like(&self) -> Self {
                self.clone()
            }
            #[inline]
            fn accumulate(&mut self, _: &Self) {}
            #[inline]
            fn scaled_add(&mut self, _: f64, _: &Self) {}
        }
    )*};
}

/// `$m!(types..)` for the types that carry no derivative, the one list
/// of them: [`Differentiable`] holds them as constants, and
/// [`Inner`](crate::inner::Inner) gives them a zero inner product.
macro_rules! constant_types {
    ($m:ident) => {
        $m!(
            i8,
            i16,
            i32,
            i64,
            i128,
            isize,
            u8,
            u16,
            u32,
            u64,
            u128,
            usize,
            bool,
            char,
            String,
            ()
        );
    };
}
pub(crate) use constant_types;

constant_types!(constant);

impl<T: Differentiable, const N: usize> Differentiable for [T; N] {
    fn zero_like(&self) -> Self {
        core::array::from_fn(|i| self[i].zero_like())
    }
    fn accumulate(&mut self, other: &Self) {
        for (a, b) in self.iter_mut().zip(other) {
            a.accumulate(b);
        }
    }
    fn scaled_add(&mut self, alpha: f64, other: &Self) {
        for (a, b) in self.iter_mut().zip(other) {
            a.scaled_add(alpha, b);
        }
    }
}

impl<T: Differentiable> Differentiable for Vec<T> {
    fn zero_like(&self) -> Self {
        self.iter().map(T::zero_like).collect()
    }
    /// # Panics
    ///
    /// If the lengths differ: a gradient has its value's shape.
    fn accumulate(&mut self, other: &Self) {
        assert_eq!(
            self.len(),
            other.len(),
            "autodiff: adding vectors of different lengths"
        );
        for (a, b) in self.iter_mut().zip(other) {
            a.accumulate(b);
        }
    }
    /// # Panics
    ///
    /// If the lengths differ.
    fn scaled_add(&mut self, alpha: f64, other: &Self) {
        assert_eq!(
            self.len(),
            other.len(),
            "autodiff: adding vectors of different lengths"
        );
        for (a, b) in self.iter_mut().zip(other) {
            a.scaled_add(alpha, b);
        }
    }
}

impl<T: Differentiable> Differentiable for Option<T> {
    fn zero_like(&self) -> Self {
        self.as_ref().map(T::zero_like)
    }
    fn accumulate(&mut self, other: &Self) {
        if let (Some(a), Some(b)) = (self, other) {
            a.accumulate(b);
        }
    }
    fn scaled_add(&mut self, alpha: f64, other: &Self) {
        if let (Some(a), Some(b)) = (self, other) {
            a.scaled_add(alpha, b);
        }
    }
}

impl<T: Differentiable> Differentiable for Box<T> {
    fn zero_like(&self) -> Self {
        Box::new((**self).zero_like())
    }
    fn accumulate(&mut self, other: &Self) {
        (**self).accumulate(other);
    }
    fn scaled_add(&mut self, alpha: f64, other: &Self) {
        (**self).scaled_add(alpha, other);
    }
}

macro_rules! tuple {
    ($($name:ident $i:tt),*) => {
        impl<$($name: Differentiable),*> Differentiable for ($($name,)*) {
            fn zero_like(&self) -> Self {
                ($(self.$i.zero_like(),)*)
            }
            fn accumulate(&mut self, other: &Self) {
                $(self.$i.accumulate(&other.$i);)*
            }
            fn scaled_add(&mut self, alpha: f64, other: &Self) {
                $(self.$i.scaled_add(alpha, &other.$i);)*
            }
        }
    };
}

crate::macros::for_tuples!(tuple);

/// Adds `part` into `slot` (`slot += part`): the reverse of reading a part
/// of a differentiable value (`p.w`, `p.layers[k].b[i]`). Generated code
/// calls it with the part's adjoint; rustc picks the part's type.
#[doc(hidden)]
#[inline]
pub fn accumulate<T: Differentiable>(slot: &mut T, part: &T) {
    slot.accumulate(part);
}

/// `slot += alpha * part`: the chain through a callee's gradient.
#[doc(hidden)]
#[inline]
pub fn scaled_add<T: Differentiable>(slot: &mut T, alpha: f64, part: &T) {
    slot.scaled_add(alpha, part);
}

/// `slot[i] += alpha * part[i]`: the chain through a callee's gradient for
/// an array argument, whose type may differ from the caller's in shape
/// only (an array `[f64; 3]` passed where a slice is taken, whose
/// gradient is a `Vec<f64>`).
#[doc(hidden)]
#[inline]
pub fn scaled_add_elements<T: Differentiable>(slot: &mut [T], alpha: f64, part: &[T]) {
    debug_assert_eq!(slot.len(), part.len());
    for (s, p) in slot.iter_mut().zip(part) {
        s.scaled_add(alpha, p);
    }
}

/// `adjoint[i]`, or zero past its end: the start of an adjoint element that
/// a reverse loop keeps in a register while its iterations add into it
/// (read before the loop, [`put_element`] after it). Past the end, the loop
/// does not run (its forward loop would have failed on the same index),
/// so the register stays zero and nothing is written back.
#[doc(hidden)]
#[inline]
pub fn element_or_zero<T: Copy + Default>(adjoint: &[T], i: usize) -> T {
    match adjoint.get(i) {
        Some(v) => *v,
        None => T::default(),
    }
}

/// `adjoint[i] = value`, where `i` is in range (see [`element_or_zero`]).
#[doc(hidden)]
#[inline]
pub fn put_element<T>(adjoint: &mut [T], i: usize, value: T) {
    if let Some(slot) = adjoint.get_mut(i) {
        *slot = value;
    }
}

/// What a field of a derived struct is to a gradient: each struct with
/// `#[derive(Differentiable)]` has, for each field `f`, a method
/// `__autodiff_kind_f(&self)` returning [`ActiveField`] or, for a field
/// marked `#[differentiable(constant)]`, [`ConstantField`]; generated code
/// falls back to [`ActiveField`] for any other type (a tuple's field, a
/// struct implementing `Differentiable` by hand). With it, the code
/// `#[grad]` generates never adds a derivative into a constant field's
/// part of a gradient (a copy), takes no tangent from it, and takes no
/// derivative out of a callee's gradient through it: no derivative passes
/// through a constant field from one function to another.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct ActiveField;

/// A field marked `#[differentiable(constant)]`: see [`ActiveField`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct ConstantField;

/// [`ActiveField`] or [`ConstantField`].
#[doc(hidden)]
pub trait FieldKind: Copy {
    const CONSTANT: bool;
}

impl FieldKind for ActiveField {
    const CONSTANT: bool = false;
}

impl FieldKind for ConstantField {
    const CONSTANT: bool = true;
}

/// Whether a field is marked `#[differentiable(constant)]`, from its
/// kind (a constant rustc folds).
#[doc(hidden)]
#[inline(always)]
pub fn constant<K: FieldKind>(_kind: K) -> bool {
    K::CONSTANT
}

/// A field that carries no derivative, of type `T` and of this kind: one
/// marked `#[differentiable(constant)]`, or an integer, a `bool`, a `char`
/// or a `String` (whose derivative is nothing either way), which
/// [`constant_field`] reads.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "#[grad] reads this field back as a constant after a method that may change the struct (`&mut self`), and it is not marked `#[differentiable(constant)]`",
    label = "a field #[grad] took for a constant",
    note = "#[grad] reads a field the function gave a value of a type it does not model (an enum's variant, a string, a `const`) as a constant; mark the field `#[differentiable(constant)]` in the struct if no derivative passes through it, or give the field a float, an array or a struct literal, which #[grad] follows"
)]
pub trait ConstantPart<T> {}

impl<T: Clone> ConstantPart<T> for ConstantField {}

macro_rules! constant_parts {
    ($($t:ty),*) => {$(impl ConstantPart<$t> for ActiveField {})*};
}
constant_parts!(usize, isize, u8, u16, u32, u64, u128, i8, i16, i32, i64, i128, bool, char, String);

/// A field of a struct that a method taking `&mut self` may have changed,
/// read back where the function gave it a value of a type `#[grad]` does
/// not model (`mode: Mode::Damped`): a copy, carrying no derivative, which
/// compiles only where the field carries none ([`ConstantPart`]).
///
/// ```
/// use autodiff_runtime::differentiable::{constant_field, ActiveField, ConstantField};
/// #[derive(Clone, Debug, PartialEq)]
/// enum Mode { Free, Damped }
/// assert_eq!(constant_field(ConstantField, &Mode::Damped), Mode::Damped);
/// assert_eq!(constant_field(ActiveField, &3_usize), 3);
/// ```
///
/// A field that carries derivatives is a compile error, never a
/// derivative lost:
///
/// ```compile_fail
/// use autodiff_runtime::differentiable::{constant_field, ActiveField};
/// let w: Vec<f64> = vec![1.0, 2.0];
/// let _ = constant_field(ActiveField, &w);
/// ```
#[doc(hidden)]
#[inline(always)]
pub fn constant_field<K: ConstantPart<T>, T: Clone>(_kind: K, field: &T) -> T {
    field.clone()
}

/// The tangent of a part of a value whose tangent is `part`: `part`
/// itself, or zero where the part is (in) a constant field.
#[doc(hidden)]
#[inline(always)]
pub fn part_tangent<T: Differentiable + Clone>(constant: bool, part: &T) -> T {
    match constant {
        true => part.zero_like(),
        false => part.clone(),
    }
}

/// A field of a gradient set to zero where it carries a derivative, by
/// its kind: an active field's zero, a constant field's value kept (its
/// type need not be `Differentiable`, and no derivative is read from it).
#[doc(hidden)]
pub trait ZeroField<T> {
    /// The field, zeroed or kept.
    fn zeroed(self, field: &T) -> T;
}

impl<T: Differentiable> ZeroField<T> for ActiveField {
    #[inline]
    fn zeroed(self, field: &T) -> T {
        field.zero_like()
    }
}

impl<T: Clone> ZeroField<T> for ConstantField {
    #[inline]
    fn zeroed(self, field: &T) -> T {
        field.clone()
    }
}

/// A gradient's field a struct built on a copy (`Self { f: a, ..base }`)
/// names, zeroed before the rest passes to the base's adjoint
/// ([`ZeroField`]).
#[doc(hidden)]
#[inline]
pub fn zero_field<T, K: ZeroField<T>>(kind: K, field: &T) -> T {
    kind.zeroed(field)
}

/// A zero adjoint in the shape of `value`.
#[doc(hidden)]
#[inline]
pub fn zero_like<T: Differentiable>(value: &T) -> T {
    value.zero_like()
}

/// A zero adjoint in the shape of a slice: a `Vec` of its length.
#[doc(hidden)]
#[inline]
pub fn zero_like_slice<T: Differentiable>(value: &[T]) -> Vec<T> {
    value.iter().map(T::zero_like).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_kept_and_constants_copied() {
        let v = (
            1.5f64,
            [2.0f32, 3.0],
            vec![4.0f64],
            7usize,
            String::from("a"),
            Some(true),
        );
        let z = v.zero_like();
        assert_eq!(
            z,
            (0.0, [0.0, 0.0], vec![0.0], 7, String::from("a"), Some(true))
        );
        let mut acc = z.clone();
        acc.accumulate(&v);
        acc.accumulate(&v);
        assert_eq!(acc.0, 3.0);
        assert_eq!(acc.1, [4.0, 6.0]);
        assert_eq!(acc.2, vec![8.0]);
        assert_eq!(acc.3, 7, "integers are not added");
        acc.scaled_add(-0.5, &v);
        assert_eq!(acc.0, 2.25);
        assert_eq!(acc.1, [3.0, 4.5]);
    }

    #[test]
    fn a_zero_step_adds_nothing_even_from_infinity() {
        let mut w = [1.0f64, 2.0];
        w.scaled_add(0.0, &[f64::INFINITY, f64::NAN]);
        assert_eq!(w, [1.0, 2.0]);
    }

    #[test]
    #[should_panic(expected = "different lengths")]
    fn vectors_of_different_lengths_do_not_add() {
        vec![1.0f64].accumulate(&vec![1.0, 2.0]);
    }
}

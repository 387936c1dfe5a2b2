//! Calls between `#[grad]` functions: what a callee's expansion gives its
//! callers, so that no caller has to guess it.
//!
//! Every `#[grad]` function also gets a hidden sibling with the function's
//! own parameters that returns the value and **one slot per parameter**, in
//! parameter order, the receiver of a method first: the gradient for a
//! parameter the function differentiates, a [`Constant`] for one it does
//! not. A caller counts the arguments it passes, binds that many slots, and
//! adds each slot into its argument's adjoint through [`Slot`] (or takes a
//! float slot through [`FloatSlot`]). An argument that carries no derivative
//! in the caller ignores its slot, whatever it is; one that does, meeting a
//! [`Constant`], is a compile error at the argument, since dropping that
//! derivative would give a wrong gradient.
//!
//! ```
//! use autodiff_runtime::call::{Constant, Slot};
//!
//! let mut d_w = vec![0.0, 0.0];
//! // The callee's gradient for a slice parameter, scaled by the caller's
//! // adjoint of the call's result (2.0):
//! vec![1.0, -0.5].chain_into(&mut d_w[..], 2.0);
//! assert_eq!(d_w, vec![2.0, -1.0]);
//! let _unused = Constant; // a parameter the callee leaves constant
//! ```

use crate::differentiable::Differentiable;
use crate::float::Float;

/// The slot of a parameter that the called function does not
/// differentiate (an integer, a `&str`, a float left out of its
/// `#[grad(wrt(..))]`). It implements neither [`Slot`] nor
/// [`FloatSlot`], so a caller whose argument carries a derivative
/// cannot drop it silently.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Constant;

/// A callee's gradient for one parameter, added into the caller's adjoint
/// of the argument, of type `A`: the gradient's own type (a float, an
/// array, a `Vec`, a struct deriving `Differentiable`), or a slice of the
/// elements where the caller's array and the callee's parameter differ in
/// shape only (an array `[f64; 3]` passed where a slice is taken, whose
/// gradient is a `Vec<f64>`).
#[diagnostic::on_unimplemented(
    message = "this argument carries a derivative into a #[grad] function that does not differentiate with respect to its parameter",
    label = "the derivative through this argument would be lost",
    note = "name the parameter in the called function's `#[grad(wrt(..))]` (a struct needs `#[derive(autodiff::Differentiable)]`), or pass a value that does not depend on the differentiated inputs"
)]
pub trait Slot<A: ?Sized> {
    /// `adjoint += dy · self`: the chain through a callee's `_grad`.
    fn chain_into(&self, adjoint: &mut A, dy: f64);
    /// `adjoint += self`: a callee's `_vjp` gradient, already scaled.
    fn add_into(&self, adjoint: &mut A);
}

impl<T: Differentiable> Slot<T> for T {
    #[inline]
    fn chain_into(&self, adjoint: &mut T, dy: f64) {
        adjoint.scaled_add(dy, self);
    }
    #[inline]
    fn add_into(&self, adjoint: &mut T) {
        adjoint.accumulate(self);
    }
}

impl<T: Differentiable> Slot<[T]> for Vec<T> {
    #[inline]
    fn chain_into(&self, adjoint: &mut [T], dy: f64) {
        self[..].chain_into(adjoint, dy);
    }
    #[inline]
    fn add_into(&self, adjoint: &mut [T]) {
        self[..].add_into(adjoint);
    }
}

impl<T: Differentiable, const N: usize> Slot<[T]> for [T; N] {
    #[inline]
    fn chain_into(&self, adjoint: &mut [T], dy: f64) {
        self[..].chain_into(adjoint, dy);
    }
    #[inline]
    fn add_into(&self, adjoint: &mut [T]) {
        self[..].add_into(adjoint);
    }
}

/// A slice's gradient (`Vec<T>`) for an argument of a type the caller
/// does not state that is an array (`let d = rotated(&s); norm(&d)`, `d:
/// [f64; 2]`): element by element.
impl<T: Differentiable, const N: usize> Slot<[T; N]> for Vec<T> {
    #[inline]
    fn chain_into(&self, adjoint: &mut [T; N], dy: f64) {
        self[..].chain_into(&mut adjoint[..], dy);
    }
    #[inline]
    fn add_into(&self, adjoint: &mut [T; N]) {
        self[..].add_into(&mut adjoint[..]);
    }
}

impl<T: Differentiable> Slot<[T]> for [T] {
    #[inline]
    fn chain_into(&self, adjoint: &mut [T], dy: f64) {
        assert_eq!(
            adjoint.len(),
            self.len(),
            "a callee's gradient has another length than its argument"
        );
        for (a, g) in adjoint.iter_mut().zip(self) {
            a.scaled_add(dy, g);
        }
    }
    #[inline]
    fn add_into(&self, adjoint: &mut [T]) {
        assert_eq!(
            adjoint.len(),
            self.len(),
            "a callee's gradient has another length than its argument"
        );
        for (a, g) in adjoint.iter_mut().zip(self) {
            a.accumulate(g);
        }
    }
}

/// A callee's gradient lent (a slot passed out of the branch arm that
/// called, [`exported`]), for an argument of a type the caller's source
/// does not state: an array's, as the gradient itself.
impl<T: Differentiable> Slot<[T]> for &Vec<T> {
    #[inline]
    fn chain_into(&self, adjoint: &mut [T], dy: f64) {
        (**self).chain_into(adjoint, dy);
    }
    #[inline]
    fn add_into(&self, adjoint: &mut [T]) {
        (**self).add_into(adjoint);
    }
}

impl<T: Differentiable, const N: usize> Slot<[T; N]> for &Vec<T> {
    #[inline]
    fn chain_into(&self, adjoint: &mut [T; N], dy: f64) {
        (**self).chain_into(adjoint, dy);
    }
    #[inline]
    fn add_into(&self, adjoint: &mut [T; N]) {
        (**self).add_into(adjoint);
    }
}

impl<T: Differentiable, const N: usize> Slot<[T]> for &[T; N] {
    #[inline]
    fn chain_into(&self, adjoint: &mut [T], dy: f64) {
        (**self).chain_into(adjoint, dy);
    }
    #[inline]
    fn add_into(&self, adjoint: &mut [T]) {
        (**self).add_into(adjoint);
    }
}

/// A callee's gradient for a struct the caller built for the call
/// (`norm(&Point { x: a, y: b })`, `p.norm()` on a local struct): the
/// first contribution to that struct's adjoint, taken as a value of its
/// own type, so that the caller needs no zero of the struct to add it to.
/// Implemented for gradients only, like [`Slot`].
#[diagnostic::on_unimplemented(
    message = "this argument carries a derivative into a #[grad] function that does not differentiate with respect to its parameter",
    label = "the derivative through this argument would be lost",
    note = "name the parameter in the called function's `#[grad(wrt(..))]` (a struct needs `#[derive(autodiff::Differentiable)]`), or pass a value that does not depend on the differentiated inputs"
)]
pub trait FirstSlot<T> {
    /// `dy · self`.
    fn scaled(&self, dy: f64) -> T;
    /// `self`, already scaled (a `_vjp`'s).
    fn owned(self) -> T;
}

impl<T: Differentiable> FirstSlot<T> for T {
    #[inline]
    fn scaled(&self, dy: f64) -> T {
        let mut out = self.zero_like();
        out.scaled_add(dy, self);
        out
    }
    #[inline]
    fn owned(self) -> T {
        self
    }
}

impl<T: Differentiable> FirstSlot<T> for &T {
    #[inline]
    fn scaled(&self, dy: f64) -> T {
        (**self).scaled(dy)
    }
    #[inline]
    fn owned(self) -> T {
        let mut out = self.zero_like();
        out.accumulate(self);
        out
    }
}

impl<T: Differentiable> Slot<T> for &T {
    #[inline]
    fn chain_into(&self, adjoint: &mut T, dy: f64) {
        adjoint.scaled_add(dy, self);
    }
    #[inline]
    fn add_into(&self, adjoint: &mut T) {
        adjoint.accumulate(self);
    }
}

/// A callee's slot passed out of the branch arm that called it, as
/// `Some(slot)` (the other arms give `None`: there is no struct there to
/// make a placeholder of), taken back out in that arm's reverse, which
/// only runs where the arm did.
#[inline]
pub fn exported<S>(slot: &Option<S>) -> &S {
    slot.as_ref()
        .expect("a branch arm's reverse runs only where the arm ran")
}

/// What a fallible callee's functions return: a `Result` or an `Option`.
pub trait Succeeded {
    /// The successful value.
    type Value;
    /// The successful value, which it is.
    fn value(self) -> Self::Value;
}

impl<T, E> Succeeded for Result<T, E> {
    type Value = T;
    #[inline]
    fn value(self) -> T {
        match self {
            Ok(v) => v,
            Err(_) => panic!("a fallible callee's `_vjp` failed where its forward sweep had not"),
        }
    }
}

impl<T> Succeeded for Option<T> {
    type Value = T;
    #[inline]
    fn value(self) -> T {
        self.expect("a fallible callee's `_vjp` failed where its forward sweep had not")
    }
}

/// A fallible callee's `_vjp` in the reverse sweep: called again with the
/// arguments its forward call succeeded with, it succeeds.
#[inline]
pub fn succeeded<R: Succeeded>(result: R) -> R::Value {
    result.value()
}

/// `dy · slot`, as a new adjoint: [`chain`] into a zero.
#[inline]
pub fn chained<T, S: FirstSlot<T>>(slot: &S, dy: f64) -> T {
    slot.scaled(dy)
}

/// `slot`, as a new adjoint: [`add`] into a zero.
#[inline]
pub fn added<T, S: FirstSlot<T>>(slot: S) -> T {
    slot.owned()
}

/// An argument with no derivative (an integer, a `bool`, a string: a
/// struct's `usize` field passed on, whose type the caller cannot see)
/// meeting a constant parameter: nothing to add, nothing lost. Also the
/// slot lent out of the branch arm that called ([`exported`]).
macro_rules! constant_slot {
    ($($t:ty),*) => {$(
        impl Slot<$t> for Constant {
            #[inline(always)]
            fn chain_into(&self, _: &mut $t, _: f64) {}
            #[inline(always)]
            fn add_into(&self, _: &mut $t) {}
        }
        impl Slot<$t> for &Constant {
            #[inline(always)]
            fn chain_into(&self, _: &mut $t, _: f64) {}
            #[inline(always)]
            fn add_into(&self, _: &mut $t) {}
        }
    )*};
}

constant_slot!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool, char, String);

/// A callee's partial derivative for a float argument of type `T`, taken
/// as a `T` so that the caller's reverse sweep scales it like any other
/// partial. Implemented for the floats only: the slot of a parameter left
/// constant ([`Constant`]) is a compile error here.
#[diagnostic::on_unimplemented(
    message = "this argument carries a derivative into a #[grad] function that does not differentiate with respect to its parameter",
    label = "the derivative through this argument would be lost",
    note = "name the parameter in the called function's `#[grad(wrt(..))]`, or pass a value that does not depend on the differentiated inputs"
)]
pub trait FloatSlot<T> {
    /// The partial derivative.
    fn partial(self) -> T;
}

impl<T: Float> FloatSlot<T> for T {
    #[inline(always)]
    fn partial(self) -> T {
        self
    }
}

/// A slot given an argument whose derivative comes only through `as`
/// casts of values whose type the source does not state (`p.n as f64`, a
/// struct's field): a float slot takes it as [`FloatSlot`] does; a
/// [`Constant`] takes it only where each cast's source is an integer, a
/// `bool` or a `char` ([`NoDerivative`]), whose cast carries no
/// derivative. [`through_cast`] checks it in the forward sweep, at the
/// argument; the reverse sweep scales by [`PartialOrZero`].
#[diagnostic::on_unimplemented(
    message = "this argument carries a derivative into a #[grad] function that does not differentiate with respect to its parameter",
    label = "the derivative through this argument would be lost",
    note = "name the parameter in the called function's `#[grad(wrt(..))]`, or pass a value that does not depend on the differentiated inputs"
)]
pub trait CastSlot<Source: ?Sized> {}

impl<T: Float, Source: ?Sized> CastSlot<Source> for T {}

impl<Source: NoDerivative + ?Sized> CastSlot<Source> for Constant {}

/// The types whose `as` cast to a float carries no derivative.
#[diagnostic::on_unimplemented(
    message = "this argument carries a derivative into a #[grad] function that does not differentiate with respect to its parameter",
    label = "`{Self}` carries a derivative through its cast, which would be lost",
    note = "name the parameter in the called function's `#[grad(wrt(..))]`, or pass a value that does not depend on the differentiated inputs"
)]
pub trait NoDerivative {}

macro_rules! no_derivative {
    ($($t:ty),*) => {$(
        impl NoDerivative for $t {}
    )*};
}

no_derivative!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool, char);

/// The compile-time check of [`CastSlot`]: `slot` takes an argument
/// whose derivative comes through a cast of `source`.
#[inline(always)]
pub fn through_cast<S: CastSlot<Source>, Source: ?Sized>(_slot: &S, _source: &Source) {}

/// A float slot's partial, or zero for a [`Constant`] (which
/// [`through_cast`] admitted only where no derivative reaches it).
pub trait PartialOrZero<T> {
    /// The partial derivative, zero for a constant.
    fn partial_or_zero(self) -> T;
}

impl<T: Float> PartialOrZero<T> for T {
    #[inline(always)]
    fn partial_or_zero(self) -> T {
        self
    }
}

impl<T: Float> PartialOrZero<T> for Constant {
    #[inline(always)]
    fn partial_or_zero(self) -> T {
        T::zero()
    }
}

/// [`add`] of a callee's `_vjp` gradient entry for an argument checked by
/// [`through_cast`]: the entry, or zero for a [`Constant`].
#[inline]
pub fn add_through_cast<T: Float, S: PartialOrZero<T>>(adjoint: &mut T, slot: S) {
    *adjoint += slot.partial_or_zero();
}

/// [`added`] for an argument checked by [`through_cast`].
#[inline]
pub fn added_through_cast<T: Float, S: PartialOrZero<T>>(slot: S) -> T {
    slot.partial_or_zero()
}

/// [`scale`] for an argument checked by [`through_cast`].
#[inline]
pub fn scale_through_cast<T: Float, S: PartialOrZero<T>>(dy: T, slot: S) -> T {
    crate::float::scale(dy, slot.partial_or_zero())
}

/// `dy · gradient`: a scalar function's gradient scaled by its caller's
/// seed, what its `_vjp` gives (a function with a custom pullback).
#[inline]
pub fn scaled<G: Differentiable, T: Float>(gradient: G, dy: T) -> G {
    let mut out = gradient.zero_like();
    out.scaled_add(dy.to_f64(), &gradient);
    out
}

/// A callee's gradient for a flat array argument (`Vec<T>`, `[T; N]`), read
/// element by element: what [`chain_elements`] scales by an adjoint of the
/// elements' own type (a dual number's too, for `#[grad(hessian)]`).
/// Implemented for gradients only, like [`Slot`].
#[diagnostic::on_unimplemented(
    message = "this argument carries a derivative into a #[grad] function that does not differentiate with respect to its parameter",
    label = "the derivative through this argument would be lost",
    note = "name the parameter in the called function's `#[grad(wrt(..))]` (a struct needs `#[derive(autodiff::Differentiable)]`), or pass a value that does not depend on the differentiated inputs"
)]
pub trait ElementSlot<T> {
    /// The gradient's elements.
    fn elements(&self) -> &[T];
}

impl<T: Float> ElementSlot<T> for Vec<T> {
    #[inline]
    fn elements(&self) -> &[T] {
        self
    }
}

impl<T: Float, const N: usize> ElementSlot<T> for [T; N] {
    #[inline]
    fn elements(&self) -> &[T] {
        self
    }
}

impl<T: Float> ElementSlot<T> for [T] {
    #[inline]
    fn elements(&self) -> &[T] {
        self
    }
}

/// A gradient lent (a slot passed out of the branch arm that called,
/// [`exported`]).
impl<T: Float, S: ElementSlot<T> + ?Sized> ElementSlot<T> for &S {
    #[inline]
    fn elements(&self) -> &[T] {
        (**self).elements()
    }
}

/// `adjoint[i] += dy · slot[i]` ([`float::scale`](crate::float::scale),
/// so a zero `dy` adds nothing even from an infinite entry): a caller's
/// reverse step through a callee's `_grad` into an array argument's
/// adjoint, `dy` of the elements' type.
#[inline]
pub fn chain_elements<T: Float, S: ElementSlot<T> + ?Sized>(adjoint: &mut [T], slot: &S, dy: T) {
    let g = slot.elements();
    assert_eq!(
        adjoint.len(),
        g.len(),
        "a callee's gradient has another length than its argument"
    );
    for (a, g) in adjoint.iter_mut().zip(g) {
        *a += crate::float::scale(dy, *g);
    }
}

/// `adjoint += dy · slot`: a caller's reverse step through a callee's
/// `_grad`, the adjoint's type pinning the slot's.
#[inline]
pub fn chain<A: ?Sized, S: Slot<A>>(adjoint: &mut A, slot: &S, dy: f64) {
    slot.chain_into(adjoint, dy);
}

/// `adjoint += slot`: a caller's reverse step through a callee's `_vjp`.
#[inline]
pub fn add<A: ?Sized, S: Slot<A>>(adjoint: &mut A, slot: &S) {
    slot.add_into(adjoint);
}

/// `dy · slot` for a float argument: [`float::scale`](crate::float::scale)
/// (a zero `dy` gives zero, even where the partial is infinite), the
/// partial taken out of the callee's slot, of the type of `dy`.
#[inline]
pub fn scale<T: Float, S: FloatSlot<T>>(dy: T, slot: S) -> T {
    crate::float::scale(dy, slot.partial())
}

/// [`scale`] without the zero-adjoint guard, for the first attempt of a
/// reverse sweep (see [`first_try`](crate::float::first_try)).
#[doc(hidden)]
#[inline(always)]
pub fn scale_unguarded<T: Float, S: FloatSlot<T>>(dy: T, slot: S) -> T {
    dy * slot.partial()
}

/// An adjoint as one of another float type: between `f32` and `f64`,
/// converted, where a callee takes both (`fn mix(x: f64, y: f32) -> f64`:
/// the caller's adjoint of its result, an `f64`, scales `y`'s `f32`
/// partial); generated code converts only there. Itself otherwise (a
/// dual number is only ever its own).
pub trait Adjoint<T> {
    /// The adjoint in `T`.
    fn adjoint(self) -> T;
}

impl<T: Float> Adjoint<T> for T {
    #[inline(always)]
    fn adjoint(self) -> T {
        self
    }
}

impl Adjoint<f32> for f64 {
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)]
    fn adjoint(self) -> f32 {
        self as f32
    }
}

impl Adjoint<f64> for f32 {
    #[inline(always)]
    fn adjoint(self) -> f64 {
        f64::from(self)
    }
}

/// Whether a type the macro reads as a constant is a float after all (an
/// alias, `type Real = f64;`): `Probe::<T>::IS_FLOAT` is the inherent
/// `true` for the float types and float arrays, and [`NotFloat`]'s
/// `false` for every other type. Generated code asserts it is `false`
/// for each constant parameter of a type named by a path, so that an
/// aliased float is a compile error at the parameter rather than a
/// gradient silently missing from `_grad`'s tuple.
#[doc(hidden)]
pub struct Probe<T: ?Sized>(core::marker::PhantomData<T>);

macro_rules! float_probe {
    ($($t:ty),*) => {$(
        impl Probe<$t> {
            /// A float.
            pub const IS_FLOAT: bool = true;
        }
        impl<const N: usize> Probe<[$t; N]> {
            /// An array of floats.
            pub const IS_FLOAT: bool = true;
        }
        impl Probe<[$t]> {
            /// A slice of floats.
            pub const IS_FLOAT: bool = true;
        }
        impl Probe<Vec<$t>> {
            /// A `Vec` of floats.
            pub const IS_FLOAT: bool = true;
        }
    )*};
}

float_probe!(f32, f64);

/// `constant_type!(x: T)`: a compile error, at the parameter's type, if
/// `T` is a float or a float array (see [`Probe`]). As a `const` item
/// (`item`), which `cargo check` evaluates, where `T` cannot be a generic
/// parameter of an enclosing `impl`; as an inline `const` (`inline`),
/// which may name one and is evaluated when the function is built,
/// elsewhere.
#[doc(hidden)]
#[macro_export]
macro_rules! __autodiff_constant_type {
    (item $param:ident : $ty:ty) => {
        const _: () = $crate::__autodiff_constant_type!(assert $param: $ty);
    };
    (inline $param:ident : $ty:ty) => {
        const { $crate::__autodiff_constant_type!(assert $param: $ty) }
    };
    (warn $param:ident : $ty:ty) => {
        let _ = {
            #[allow(unused_imports)]
            use $crate::call::NotFloat as _;
            $crate::call::Probe::<$ty>::DIFFERENTIABLE
        };
    };
    (assert $param:ident : $ty:ty) => {
        ::core::assert!(
            !{
                #[allow(unused_imports)]
                use $crate::call::NotFloat as _;
                $crate::call::Probe::<$ty>::IS_FLOAT
            },
            ::core::concat!(
                "#[grad] took `",
                ::core::stringify!($param),
                "` for a constant, but its type `",
                ::core::stringify!($ty),
                "` is a float or a float array: #[grad] reads a parameter's type as written; write `f64`, `f32`, `[f64; N]` or `&[f64]` in the signature so that `",
                ::core::stringify!($param),
                "` gets its gradient"
            )
        )
    };
}
#[doc(hidden)]
pub use crate::__autodiff_constant_type as constant_type;

impl<T: crate::differentiable::Derived> Probe<T> {
    /// Named by generated code for a parameter that a bare `#[grad]`
    /// leaves constant: where its type derives `Differentiable`, this is
    /// the one named, and its use is rustc's warning (the trait's
    /// `DIFFERENTIABLE` is silent).
    #[deprecated(
        note = "#[grad] leaves this parameter constant, though its type derives `autodiff::Differentiable`: name it in `#[grad(wrt(..))]` to get its gradient, or name the others there to keep it constant without this warning"
    )]
    pub const DIFFERENTIABLE: () = ();
}

/// Implemented by nothing: the bound of the `__autodiff_mut_slots_<name>`
/// that a function returning a value besides what it writes through
/// `&mut` has, so that a caller dropping that value (`accumulate(&mut s,
/// y);`, which `#[grad]` takes for a call of a writer) fails to compile at
/// the call with this message, not with a missing name.
#[diagnostic::on_unimplemented(
    message = "#[grad] cannot differentiate this call as a statement: the function returns a value besides what it writes through `&mut`",
    label = "its value is dropped here",
    note = "bind the value, `let _ = accumulate(&mut s, y);` (or `let r = ..`): #[grad] then differentiates both the value and the new value of what it lends"
)]
pub trait ValueBound {}

/// What `#[grad]` reads `v.len()` of a value it does not see the type of
/// as, where the value depends on the active inputs (another `#[grad]`
/// call's result, `let h = dense(w, x); 0..h.len()`): the number of
/// elements of a `std` collection or a string, an integer without a
/// derivative. This bound checks it, so that a struct of the user's with
/// a `len` of its own is a compile error at the call, never its `len`
/// called without its derivative.
#[diagnostic::on_unimplemented(
    message = "#[grad] reads `.len()` of this value as the length of a collection, and `{Self}` is not one",
    label = "a `{Self}` that depends on the active inputs",
    note = "if `len` is a method of `{Self}` with #[grad], bind the value with its type first (`let p: {Self} = make(..); p.len()`): #[grad] then calls it through its gradient"
)]
pub trait Length {
    /// `usize`: an associated type, so that where the bound fails the
    /// length's type is unknown too, and rustc says nothing more of it.
    type Output;
    /// The number of elements.
    fn length(&self) -> Self::Output;
}

macro_rules! length {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> Length for $t {
            type Output = usize;
            fn length(&self) -> usize {
                self.len()
            }
        }
    )*};
}

length!(
    [T] [T],
    [T, const N: usize] [T; N],
    [T] Vec<T>,
    [T] std::collections::VecDeque<T>,
    [K, V, S] std::collections::HashMap<K, V, S>,
    [T, S] std::collections::HashSet<T, S>,
    [K, V] std::collections::BTreeMap<K, V>,
    [T] std::collections::BTreeSet<T>,
    [] String,
    [] str,
);

impl<T: Length + ?Sized> Length for &T {
    type Output = T::Output;
    fn length(&self) -> T::Output {
        (**self).length()
    }
}

impl<T: Length + ?Sized> Length for &mut T {
    type Output = T::Output;
    fn length(&self) -> T::Output {
        (**self).length()
    }
}

/// `v.len()` of a collection that depends on the active inputs (see
/// [`Length`]).
#[inline]
pub fn length<V: Length + ?Sized>(v: &V) -> V::Output {
    v.length()
}

/// The `<name>_grad` of a function that returns a vector or a struct,
/// which has `_vjp` instead: what a caller that read the call's value as a
/// float (`make(a, b).abs()`) passes to the function's scalar slots,
/// whose bound [`ScalarOutput`] it does not meet, so that the call is a
/// compile error at the call saying what to write.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct VectorOutput;

/// Implemented by nothing: see [`VectorOutput`].
#[diagnostic::on_unimplemented(
    message = "#[grad] reads this call's value as a float, and the function returns a vector or a struct",
    label = "a float's method, or arithmetic, on a call that returns a vector or a struct",
    note = "bind the value with its type first (`let p: V2 = make(..);`, `let v: [f64; 3] = ..;`), then call its methods or read its parts"
)]
pub trait ScalarOutput {
    /// What the scalar slots would give.
    type Slots;
}

/// The `false` of [`Probe`] for every type that is not a float.
#[doc(hidden)]
pub trait NotFloat {
    /// Not a float.
    const IS_FLOAT: bool = false;
    /// Not `Differentiable`: nothing to warn of.
    const DIFFERENTIABLE: () = ();
}

impl<T: ?Sized> NotFloat for Probe<T> {}

/// A `Vec` of a struct's field's elements, as the field: the `Vec` itself,
/// or the array of its elements (a field `v: [f64; 2]` copied by `let mut
/// v = self.v.clone();`, which the generated code holds as a `Vec`, and
/// assigned back, `self.v = v;`).
pub trait FromElements<T>: Sized {
    /// The field.
    fn from_elements(v: Vec<T>) -> Self;
}

impl<T> FromElements<T> for Vec<T> {
    #[inline]
    fn from_elements(v: Vec<T>) -> Self {
        v
    }
}

impl<T, const N: usize> FromElements<T> for [T; N] {
    #[inline]
    fn from_elements(v: Vec<T>) -> Self {
        let n = v.len();
        v.try_into()
            .unwrap_or_else(|_| panic!("a field of {N} elements given {n}"))
    }
}

/// [`FromElements::from_elements`].
#[inline]
pub fn as_field<T, F: FromElements<T>>(v: Vec<T>) -> F {
    F::from_elements(v)
}

/// A copy of a struct the generated code keeps while it changes another
/// (a struct writer's call, `b.step(dt);` or `kick(&mut b, f);`, a field
/// assigned in a writer, a struct replaced in a loop): the reverse sweep
/// reads the struct as it was. Implemented for every `Clone` type.
#[diagnostic::on_unimplemented(
    message = "#[grad] keeps a copy of `{Self}` to differentiate through what changes it, and `{Self}` is not `Clone`",
    label = "a struct changed here (a writer called on it, a field assigned, replaced in a loop)",
    note = "derive it: `#[derive(Clone)]` on `{Self}`"
)]
pub trait Kept: Sized {
    /// The copy.
    fn kept(&self) -> Self;
}

impl<T: Clone> Kept for T {
    #[inline]
    fn kept(&self) -> Self {
        self.clone()
    }
}

/// [`Kept::kept`]: a copy of `value`.
#[inline]
pub fn kept<T: Kept>(value: &T) -> T {
    value.kept()
}

/// A value a call takes by value (`sumsq(v)` of a `Vec`, `energy(b)` of
/// a struct, `norm(cross(u, w))` of another call's result) whose reverse
/// sweep the caller still reads after the call (the adjoint's shape, a
/// struct's parts): the callee gets a copy. Implemented for every `Clone`
/// type.
#[diagnostic::on_unimplemented(
    message = "#[grad] gives a copy of `{Self}` to a function that takes it by value, and `{Self}` is not `Clone`",
    label = "given by value here, and read again by the gradient after the call",
    note = "derive it, `#[derive(Clone)]` on `{Self}`, or let the function take it by reference"
)]
pub trait Given: Sized {
    /// The copy.
    fn given(&self) -> Self;
}

impl<T: Clone> Given for T {
    #[inline]
    fn given(&self) -> Self {
        self.clone()
    }
}

/// [`Given::given`]: a copy of `value` for a call that takes it by value.
#[inline]
pub fn given<T: Given>(value: &T) -> T {
    value.given()
}

/// A struct the generated code holds, lent to a method of the user's
/// whose value is used (`let e = q.energy();`, `0 => q.turn(w),` in a
/// `match` whose value is kept): read through [`Deref`](core::ops::Deref)
/// only, so a method taking `&mut self`, which would change the struct
/// where the generated code does not follow it, is a compile error at
/// the call (E0596, "cannot borrow data in dereference of `ReadOnly`
/// as mutable") instead of a derivative lost.
#[doc(hidden)]
pub struct ReadOnly<'a, T>(&'a T);

/// [`ReadOnly`] of `value`.
#[doc(hidden)]
#[inline(always)]
pub fn read_only<T>(value: &T) -> ReadOnly<'_, T> {
    ReadOnly(value)
}

impl<T> core::ops::Deref for ReadOnly<'_, T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        self.0
    }
}

/// A value of the type of what `value` refers to, for an argument of a
/// call that is compiled and never made (the check that a callee lent a
/// struct the function takes by `&` has #[grad]): the argument's type as
/// written, nothing moved.
#[doc(hidden)]
pub fn like<T>(_value: &T) -> T {
    unreachable!("autodiff: a check that is never run")
}

/// A value of any type, for an argument of a call that is compiled and
/// never made: the check that a call lent a struct the function takes by
/// `&` has #[grad] (the macro's `analysis/escapes.rs`).
#[doc(hidden)]
pub fn never<T>() -> T {
    unreachable!("autodiff: a check that is never run")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_chain_in_every_shape() {
        let mut d = 1.0f64;
        0.5f64.chain_into(&mut d, 4.0);
        assert_eq!(d, 3.0);
        let mut d = [1.0f32, 2.0];
        [1.0f32, 1.0].chain_into(&mut d, 2.0);
        assert_eq!(d, [3.0, 4.0]);
        // An array argument whose callee took a slice: a `Vec` gradient.
        let mut d = [0.0f64; 3];
        vec![1.0, 2.0, 3.0].chain_into(&mut d[..], -1.0);
        assert_eq!(d, [-1.0, -2.0, -3.0]);
        let mut d = vec![0.0f64; 2];
        [1.0, 2.0].add_into(&mut d[..]);
        assert_eq!(d, vec![1.0, 2.0]);
        let mut d = (1.0f64, 2usize);
        (0.5f64, 7usize).add_into(&mut d);
        assert_eq!(d, (1.5, 2));
    }

    #[test]
    fn a_zero_adjoint_adds_nothing_even_to_an_infinite_partial() {
        let mut d = 1.0f64;
        f64::INFINITY.chain_into(&mut d, 0.0);
        assert_eq!(d, 1.0);
    }

    #[test]
    #[should_panic(expected = "another length")]
    fn lengths_must_agree() {
        let mut d = [0.0f64; 2];
        vec![1.0, 2.0, 3.0].chain_into(&mut d[..], 1.0);
    }

    #[test]
    fn the_probe_tells_floats_from_other_types() {
        #[allow(unused_imports)]
        use super::NotFloat as _;
        type Real = f64;
        struct Settings;
        let said = [
            Probe::<Real>::IS_FLOAT,
            Probe::<[f32; 5]>::IS_FLOAT,
            Probe::<[f64]>::IS_FLOAT,
            Probe::<Vec<f64>>::IS_FLOAT,
            Probe::<Settings>::IS_FLOAT,
            Probe::<usize>::IS_FLOAT,
            Probe::<Vec<usize>>::IS_FLOAT,
        ];
        assert_eq!(said, [true, true, true, true, false, false, false]);
    }

    #[test]
    fn a_float_slot_is_its_partial_scaled() {
        assert_eq!(FloatSlot::<f32>::partial(2.5f32), 2.5);
        assert_eq!(scale(2.0f64, 1.5), 3.0);
        assert_eq!(scale(0.0f64, f64::INFINITY), 0.0);
        assert!(scale_unguarded(0.0f64, f64::INFINITY).is_nan());
    }
}

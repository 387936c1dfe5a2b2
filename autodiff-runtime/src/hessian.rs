//! What `#[grad(hessian)]`'s `_hvp` and `_hessian` call: a generic
//! function's gradient run at dual numbers ([`Dual`]), its inputs
//! `x + ε·v`, so that the ε parts of the gradient are the Hessian-vector
//! product `H·v` (forward over reverse), and the real parts the gradient.
//!
//! [`Lift`] makes a parameter's dual from its value and its direction,
//! [`Split`] takes a dual gradient apart, [`Flat`] numbers a parameter's
//! scalars for `_hessian`'s rows and columns (a float is one, an array of
//! length k is k, in parameter order).
//!
//! ```
//! use autodiff_runtime::dual::Dual;
//! use autodiff_runtime::hessian::{Lift, Split};
//!
//! let x: [f64; 2] = [1.0, 2.0];
//! let lifted: [Dual<f64>; 2] = Lift::lift(&x, &[0.5, 0.0]);
//! assert_eq!(lifted[0], Dual::new(1.0, 0.5));
//! // f(x) = x0² x1: the gradient at dual inputs.
//! let g = [
//!     Dual::from(2.0) * lifted[0] * lifted[1],
//!     lifted[0] * lifted[0],
//! ];
//! assert_eq!(Split::re(&g), [4.0, 1.0]); // the gradient
//! assert_eq!(Split::eps(&g), [2.0, 1.0]); // H·(0.5, 0)
//! ```

use crate::dual::Dual;
use crate::float::Float;

/// A parameter's dual, `value + ε·direction`, in the shape the gradient
/// function takes it at dual numbers.
pub trait Lift<T: Float> {
    /// The dual form: `Dual<T>` for a float, a `Vec` of them for a slice
    /// or a `Vec`, an array for an array.
    type Lifted;
    /// `self + ε·direction`, element by element.
    fn lift(&self, direction: &Self) -> Self::Lifted;
    /// `self` as a constant (no direction): a parameter the function does
    /// not differentiate whose type is the float type.
    fn constant(&self) -> Self::Lifted;
}

impl<T: Float> Lift<T> for T {
    type Lifted = Dual<T>;
    #[inline]
    fn lift(&self, direction: &T) -> Dual<T> {
        Dual::new(*self, *direction)
    }
    #[inline]
    fn constant(&self) -> Dual<T> {
        Dual::constant(*self)
    }
}

impl<T: Float> Lift<T> for [T] {
    type Lifted = Vec<Dual<T>>;
    fn lift(&self, direction: &[T]) -> Vec<Dual<T>> {
        assert_eq!(
            self.len(),
            direction.len(),
            "a direction of another length than its parameter"
        );
        self.iter()
            .zip(direction)
            .map(|(x, v)| Dual::new(*x, *v))
            .collect()
    }
    fn constant(&self) -> Vec<Dual<T>> {
        self.iter().map(|x| Dual::constant(*x)).collect()
    }
}

impl<T: Float> Lift<T> for Vec<T> {
    type Lifted = Vec<Dual<T>>;
    fn lift(&self, direction: &Vec<T>) -> Vec<Dual<T>> {
        self[..].lift(&direction[..])
    }
    fn constant(&self) -> Vec<Dual<T>> {
        Lift::constant(&self[..])
    }
}

impl<T: Float, const N: usize> Lift<T> for [T; N] {
    type Lifted = [Dual<T>; N];
    fn lift(&self, direction: &[T; N]) -> [Dual<T>; N] {
        core::array::from_fn(|i| Dual::new(self[i], direction[i]))
    }
    fn constant(&self) -> [Dual<T>; N] {
        core::array::from_fn(|i| Dual::constant(self[i]))
    }
}

/// A dual gradient taken apart: its real parts (the gradient) and its ε
/// parts (`H·v`), each in the gradient's shape.
pub trait Split<T: Float> {
    /// The gradient's shape at `T`.
    type Part;
    /// The real parts.
    fn re(&self) -> Self::Part;
    /// The ε parts.
    fn eps(&self) -> Self::Part;
}

impl<T: Float> Split<T> for Dual<T> {
    type Part = T;
    #[inline]
    fn re(&self) -> T {
        self.re
    }
    #[inline]
    fn eps(&self) -> T {
        self.eps
    }
}

impl<T: Float> Split<T> for Vec<Dual<T>> {
    type Part = Vec<T>;
    fn re(&self) -> Vec<T> {
        self.iter().map(|d| d.re).collect()
    }
    fn eps(&self) -> Vec<T> {
        self.iter().map(|d| d.eps).collect()
    }
}

impl<T: Float, const N: usize> Split<T> for [Dual<T>; N] {
    type Part = [T; N];
    fn re(&self) -> [T; N] {
        core::array::from_fn(|i| self[i].re)
    }
    fn eps(&self) -> [T; N] {
        core::array::from_fn(|i| self[i].eps)
    }
}

/// A differentiated parameter's scalars, numbered for `_hessian`: its
/// count, a unit direction in its shape, and its entries in order.
pub trait Flat<T: Float> {
    /// The direction's type (`T`, `Vec<T>` for a slice, `[T; N]`).
    type Owned;
    /// How many scalars: 1 for a float, the length for an array.
    fn size(&self) -> usize;
    /// A direction in this parameter's shape: one at `k`, zero elsewhere
    /// (all zero where `k` is not below [`Flat::size`]).
    fn unit(&self, k: usize) -> Self::Owned;
    /// Appends the entries, in order.
    fn extend_into(&self, out: &mut Vec<T>);
}

impl<T: Float> Flat<T> for T {
    type Owned = T;
    #[inline]
    fn size(&self) -> usize {
        1
    }
    #[inline]
    fn unit(&self, k: usize) -> T {
        if k == 0 {
            T::one()
        } else {
            T::zero()
        }
    }
    #[inline]
    fn extend_into(&self, out: &mut Vec<T>) {
        out.push(*self);
    }
}

impl<T: Float> Flat<T> for [T] {
    type Owned = Vec<T>;
    fn size(&self) -> usize {
        self.len()
    }
    fn unit(&self, k: usize) -> Vec<T> {
        (0..self.len())
            .map(|i| if i == k { T::one() } else { T::zero() })
            .collect()
    }
    fn extend_into(&self, out: &mut Vec<T>) {
        out.extend_from_slice(self);
    }
}

impl<T: Float> Flat<T> for Vec<T> {
    type Owned = Vec<T>;
    fn size(&self) -> usize {
        self.len()
    }
    fn unit(&self, k: usize) -> Vec<T> {
        self[..].unit(k)
    }
    fn extend_into(&self, out: &mut Vec<T>) {
        out.extend_from_slice(self);
    }
}

impl<T: Float, const N: usize> Flat<T> for [T; N] {
    type Owned = [T; N];
    fn size(&self) -> usize {
        N
    }
    fn unit(&self, k: usize) -> [T; N] {
        core::array::from_fn(|i| if i == k { T::one() } else { T::zero() })
    }
    fn extend_into(&self, out: &mut Vec<T>) {
        out.extend_from_slice(self);
    }
}

/// The index of scalar `j` within parameter `p`, given the parameters'
/// sizes: `j − (sizes before p)` if `j` falls in `p`, `usize::MAX` (no
/// entry) otherwise.
pub fn local_index(sizes: &[usize], p: usize, j: usize) -> usize {
    let start: usize = sizes[..p].iter().sum();
    match j.checked_sub(start) {
        Some(k) if k < sizes[p] => k,
        _ => usize::MAX,
    }
}

/// An `n × n` matrix of zeros, `_hessian`'s before its columns are
/// written.
pub fn zeros<T: Float>(n: usize) -> Vec<Vec<T>> {
    vec![vec![T::zero(); n]; n]
}

/// Writes `column` (the `H·e_j` of every parameter, flattened in order)
/// into column `j` of `h`.
pub fn set_column<T: Float>(h: &mut [Vec<T>], j: usize, column: &[T]) {
    assert_eq!(column.len(), h.len(), "a Hessian column of another size");
    for (row, c) in h.iter_mut().zip(column) {
        row[j] = *c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifts_and_splits_every_shape() {
        let d: Dual<f64> = Lift::lift(&2.0, &0.5);
        assert_eq!((d.re, d.eps), (2.0, 0.5));
        let v: Vec<Dual<f64>> = Lift::lift(&vec![1.0, 2.0], &vec![0.0, 1.0]);
        assert_eq!(Split::re(&v), vec![1.0, 2.0]);
        assert_eq!(Split::eps(&v), vec![0.0, 1.0]);
        let s: &[f64] = &[3.0];
        let c: Vec<Dual<f64>> = Lift::constant(s);
        assert_eq!(Split::eps(&c), vec![0.0]);
        let a: [Dual<f64>; 2] = Lift::lift(&[1.0, 2.0], &[3.0, 4.0]);
        assert_eq!(Split::eps(&a), [3.0, 4.0]);
    }

    #[test]
    fn numbers_the_scalars_in_parameter_order() {
        let sizes = [1, 3, 2];
        assert_eq!(local_index(&sizes, 0, 0), 0);
        assert_eq!(local_index(&sizes, 0, 1), usize::MAX);
        assert_eq!(local_index(&sizes, 1, 3), 2);
        assert_eq!(local_index(&sizes, 2, 4), 0);
        assert_eq!(local_index(&sizes, 2, 3), usize::MAX);
        assert_eq!(Flat::unit(&[0.0f64; 3], 1), [0.0, 1.0, 0.0]);
        assert_eq!(Flat::unit(&[0.0f64; 3], usize::MAX), [0.0; 3]);
        assert_eq!(Flat::<f64>::unit(&7.0, 0), 1.0);
        let mut h = zeros::<f64>(2);
        set_column(&mut h, 1, &[5.0, 6.0]);
        assert_eq!(h, vec![vec![0.0, 5.0], vec![0.0, 6.0]]);
    }
}

//! What `#[grad(hessian)]`'s `_hvp` and `_hessian` call: a generic
//! function's gradient run at dual numbers ([`Dual`]), its inputs
//! `x + ε·v`, so that the ε parts of the gradient are the Hessian-vector
//! product `H·v` (forward over reverse), and the real parts the gradient.
//! `_hessian` runs it at [`Lanes`] of [`LANES`] directions, the unit
//! vectors of that many scalars, so one sweep gives that many columns.
//!
//! [`lift`] makes a parameter's dual from its value and its direction
//! ([`lift_lanes`] for a sweep of `_hessian`), [`Split`] takes a dual
//! gradient apart, [`Flat`] numbers a parameter's scalars for
//! `_hessian`'s rows and columns (a float is one, an array of length k is
//! k, in parameter order), and [`set_lanes`] writes a sweep's columns.
//!
//! ```
//! use autodiff_runtime::dual::{Dual, Lanes};
//! use autodiff_runtime::hessian::{lift, lift_lanes, set_lanes, zeros, Split};
//!
//! let x: [f64; 2] = [1.0, 2.0];
//! let lifted: [Dual<f64>; 2] = lift(&x, &[0.5, 0.0]);
//! assert_eq!(lifted[0], Dual::new(1.0, 0.5));
//! // f(x) = x0² x1: the gradient at dual inputs.
//! let g = [
//!     Dual::from(2.0) * lifted[0] * lifted[1],
//!     lifted[0] * lifted[0],
//! ];
//! assert_eq!(Split::re(&g), [4.0, 1.0]); // the gradient
//! assert_eq!(Split::eps(&g), [2.0, 1.0]); // H·(0.5, 0)
//!
//! // Both columns of H in one sweep: lane l seeded with e_l.
//! let x = lift_lanes(&x, 0, 0);
//! let g = [Dual::from(2.0) * x[0] * x[1], x[0] * x[0]];
//! let (mut h, mut row) = (zeros::<f64>(2), 0);
//! set_lanes(&mut h, &mut row, 0, &g);
//! assert_eq!(h, vec![vec![4.0, 2.0], vec![2.0, 0.0]]);
//! ```

use crate::dual::{Dual, Eps, Lanes, LANES};
use crate::float::Float;

/// A parameter's dual, each entry `value + ε·tangent`, in the shape the
/// gradient function takes it at dual numbers (`Dual<T, E>`, `E` the ε
/// part: `T` for `_hvp`, [`Lanes`] for `_hessian`).
pub trait Lift<T: Float, E: Eps<T> = T> {
    /// The dual form: `Dual<T, E>` for a float, a `Vec` of them for a
    /// slice or a `Vec`, an array for an array.
    type Lifted;
    /// Entry `i` + ε·`eps(i)`, the entries in order.
    fn lift_each(&self, eps: impl FnMut(usize) -> E) -> Self::Lifted;
    /// `self` as a constant (no direction): a parameter the function does
    /// not differentiate whose type is the float type.
    #[inline]
    fn constant(&self) -> Self::Lifted {
        self.lift_each(|_| E::none())
    }
}

impl<T: Float, E: Eps<T>> Lift<T, E> for T {
    type Lifted = Dual<T, E>;
    #[inline]
    fn lift_each(&self, mut eps: impl FnMut(usize) -> E) -> Dual<T, E> {
        Dual::new(*self, eps(0))
    }
}

impl<T: Float, E: Eps<T>> Lift<T, E> for [T] {
    type Lifted = Vec<Dual<T, E>>;
    fn lift_each(&self, mut eps: impl FnMut(usize) -> E) -> Vec<Dual<T, E>> {
        self.iter()
            .enumerate()
            .map(|(i, x)| Dual::new(*x, eps(i)))
            .collect()
    }
}

impl<T: Float, E: Eps<T>> Lift<T, E> for Vec<T> {
    type Lifted = Vec<Dual<T, E>>;
    fn lift_each(&self, eps: impl FnMut(usize) -> E) -> Vec<Dual<T, E>> {
        self[..].lift_each(eps)
    }
}

impl<T: Float, E: Eps<T>, const N: usize> Lift<T, E> for [T; N] {
    type Lifted = [Dual<T, E>; N];
    fn lift_each(&self, mut eps: impl FnMut(usize) -> E) -> [Dual<T, E>; N] {
        core::array::from_fn(|i| Dual::new(self[i], eps(i)))
    }
}

/// `x + ε·v`, entry by entry: `_hvp`'s argument.
///
/// # Panics
///
/// If `v` has another length than `x`.
pub fn lift<T: Float, X: Lift<T> + Flat<T> + ?Sized>(x: &X, v: &X) -> X::Lifted {
    assert_eq!(
        x.size(),
        v.size(),
        "a direction of another length than its parameter"
    );
    x.lift_each(|i| v.entry(i))
}

/// A parameter lifted for one sweep of `_hessian`: its entry `i`, the
/// scalar `start + i` in the order of all the differentiated ones, is
/// seeded with the unit direction of that scalar in the lane that carries
/// its column, lane `l` carrying column `first + l`.
pub fn lift_lanes<T: Float, X: Lift<T, Lanes<T, LANES>> + ?Sized>(
    x: &X,
    start: usize,
    first: usize,
) -> X::Lifted {
    x.lift_each(|i| {
        Lanes(core::array::from_fn(|l| {
            if start + i == first + l {
                T::one()
            } else {
                T::zero()
            }
        }))
    })
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
/// count, its entries in order.
pub trait Flat<T: Float> {
    /// How many scalars: 1 for a float, the length for an array.
    fn size(&self) -> usize;
    /// Entry `i` (`i` below [`Flat::size`]).
    fn entry(&self, i: usize) -> T;
}

impl<T: Float> Flat<T> for T {
    #[inline]
    fn size(&self) -> usize {
        1
    }
    #[inline]
    fn entry(&self, _: usize) -> T {
        *self
    }
}

impl<T: Float> Flat<T> for [T] {
    #[inline]
    fn size(&self) -> usize {
        self.len()
    }
    #[inline]
    fn entry(&self, i: usize) -> T {
        self[i]
    }
}

impl<T: Float> Flat<T> for Vec<T> {
    #[inline]
    fn size(&self) -> usize {
        self.len()
    }
    #[inline]
    fn entry(&self, i: usize) -> T {
        self[i]
    }
}

impl<T: Float, const N: usize> Flat<T> for [T; N] {
    #[inline]
    fn size(&self) -> usize {
        N
    }
    #[inline]
    fn entry(&self, i: usize) -> T {
        self[i]
    }
}

/// A gradient entry at dual numbers, as the list of its duals (one for a
/// float, in order for an array).
pub trait Duals<T: Float, E: Eps<T>> {
    /// The duals, in order.
    fn duals(&self) -> &[Dual<T, E>];
}

impl<T: Float, E: Eps<T>> Duals<T, E> for Dual<T, E> {
    #[inline]
    fn duals(&self) -> &[Dual<T, E>] {
        core::slice::from_ref(self)
    }
}

impl<T: Float, E: Eps<T>> Duals<T, E> for Vec<Dual<T, E>> {
    #[inline]
    fn duals(&self) -> &[Dual<T, E>] {
        self
    }
}

impl<T: Float, E: Eps<T>, const N: usize> Duals<T, E> for [Dual<T, E>; N] {
    #[inline]
    fn duals(&self) -> &[Dual<T, E>] {
        self
    }
}

/// Where parameter `p`'s scalars start in the order of all the
/// differentiated ones, given each parameter's count.
pub fn start(sizes: &[usize], p: usize) -> usize {
    sizes[..p].iter().sum()
}

/// An `n × n` matrix of zeros, `_hessian`'s before its columns are
/// written.
pub fn zeros<T: Float>(n: usize) -> Vec<Vec<T>> {
    vec![vec![T::zero(); n]; n]
}

/// Writes one gradient entry of a sweep at lanes into `h`: its duals are
/// rows `*row..`, lane `l` of each is column `first + l` (the lanes past
/// the last column are dropped); `*row` moves past them.
pub fn set_lanes<T: Float, const L: usize>(
    h: &mut [Vec<T>],
    row: &mut usize,
    first: usize,
    g: &impl Duals<T, Lanes<T, L>>,
) {
    let columns = first..(first + L).min(h.len());
    for d in g.duals() {
        h[*row][columns.clone()].copy_from_slice(&d.eps.0[..columns.len()]);
        *row += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifts_and_splits_every_shape() {
        let d: Dual<f64> = lift(&2.0, &0.5);
        assert_eq!((d.re, d.eps), (2.0, 0.5));
        let v: Vec<Dual<f64>> = lift(&vec![1.0, 2.0], &vec![0.0, 1.0]);
        assert_eq!(Split::re(&v), vec![1.0, 2.0]);
        assert_eq!(Split::eps(&v), vec![0.0, 1.0]);
        let s: &[f64] = &[3.0];
        let c: Vec<Dual<f64>> = Lift::<f64>::constant(s);
        assert_eq!(Split::eps(&c), vec![0.0]);
        let a: [Dual<f64>; 2] = lift(&[1.0, 2.0], &[3.0, 4.0]);
        assert_eq!(Split::eps(&a), [3.0, 4.0]);
    }

    #[test]
    fn seeds_each_scalar_in_the_lane_of_its_column() {
        let sizes = [1, 3, LANES + 1];
        assert_eq!(start(&sizes, 0), 0);
        assert_eq!(start(&sizes, 2), 4);
        // The array's scalars are 1..4; the sweep from column 2 carries
        // columns 2..2 + LANES, so entry 1 (column 2) is lane 0.
        let a: [Dual<f64, Lanes<f64, LANES>>; 3] = lift_lanes(&[5.0, 6.0, 7.0], 1, 2);
        assert_eq!(a[0].eps, Lanes([0.0; LANES]));
        assert_eq!(a[1].eps.0[0], 1.0);
        assert_eq!(a[2].eps.0[1], 1.0);
        assert_eq!(a[2].eps.0.iter().sum::<f64>(), 1.0);
        assert_eq!(a[1].re, 6.0);
        let c: Dual<f64, Lanes<f64, LANES>> = Lift::constant(&2.0);
        assert_eq!(c.eps, Lanes([0.0; LANES]));
    }

    #[test]
    fn writes_a_sweeps_columns_and_drops_the_lanes_past_the_last() {
        // Three scalars, a sweep from column 2: only lane 0 is a column.
        let mut h = zeros::<f64>(3);
        let mut row = 0;
        let lane = |v: f64| Lanes(core::array::from_fn::<f64, 2, _>(|l| v + l as f64));
        set_lanes(&mut h, &mut row, 2, &Dual::new(0.0, lane(1.0)));
        set_lanes(&mut h, &mut row, 2, &vec![Dual::new(0.0, lane(5.0)); 2]);
        assert_eq!(row, 3);
        assert_eq!(
            h,
            vec![
                vec![0.0, 0.0, 1.0],
                vec![0.0, 0.0, 5.0],
                vec![0.0, 0.0, 5.0]
            ]
        );
    }
}

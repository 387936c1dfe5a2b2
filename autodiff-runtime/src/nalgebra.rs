//! `nalgebra`'s fixed-size and dynamic matrices (vectors are matrices of
//! one column) and points as gradients (feature `nalgebra`): a gradient
//! with respect to a `Vector3<f64>` is a `Vector3<f64>`, summed, scaled
//! and inner-multiplied entry by entry, so that such values can be fields
//! of a `#[derive(autodiff::Differentiable)]` struct and a batch's
//! gradients can be summed (`Differentiable::accumulate`).
//!
//! `#[grad]` itself needs nothing from here to take `nalgebra` values as
//! parameters, locals and outputs: it computes with their entries as
//! arrays and converts at the function's boundary (README, "nalgebra").

use nalgebra::{Const, DMatrix, OPoint, SMatrix, Scalar};

use crate::differentiable::Differentiable;
use crate::tangent::Inner;

fn zero_entries<'a, T: Differentiable + 'a>(entries: impl Iterator<Item = &'a mut T>) {
    for x in entries {
        *x = x.zero_like();
    }
}

fn accumulate_entries<'a, T: Differentiable + 'a>(
    into: impl Iterator<Item = &'a mut T>,
    from: impl Iterator<Item = &'a T>,
) {
    for (a, b) in into.zip(from) {
        a.accumulate(b);
    }
}

fn scaled_add_entries<'a, T: Differentiable + 'a>(
    into: impl Iterator<Item = &'a mut T>,
    alpha: f64,
    from: impl Iterator<Item = &'a T>,
) {
    for (a, b) in into.zip(from) {
        a.scaled_add(alpha, b);
    }
}

fn inner_entries<'a, T: Inner + 'a>(
    a: impl Iterator<Item = &'a T>,
    b: impl Iterator<Item = &'a T>,
) -> f64 {
    a.zip(b).map(|(x, y)| x.inner(y)).sum()
}

/// `Differentiable` and `Inner` entry by entry for a matrix type (a
/// vector is a matrix of one column), given its generic parameters besides
/// the entry type's.
///
/// # Panics
///
/// `accumulate` and `scaled_add` panic if the shapes differ (a dynamic
/// matrix's can).
macro_rules! entrywise {
    ($(($($generics:tt)*) $ty:ty;)*) => {$(
        impl<T: Scalar + Differentiable, $($generics)*> Differentiable for $ty {
            fn zero_like(&self) -> Self {
                let mut z = self.clone();
                zero_entries(z.iter_mut());
                z
            }
            fn accumulate(&mut self, other: &Self) {
                assert_eq!(self.shape(), other.shape(), "gradients of different shapes");
                accumulate_entries(self.iter_mut(), other.iter());
            }
            fn scaled_add(&mut self, alpha: f64, other: &Self) {
                assert_eq!(self.shape(), other.shape(), "gradients of different shapes");
                scaled_add_entries(self.iter_mut(), alpha, other.iter());
            }
        }

        impl<T: Scalar + Inner, $($generics)*> Inner for $ty {
            fn inner(&self, other: &Self) -> f64 {
                inner_entries(self.iter(), other.iter())
            }
        }
    )*};
}

entrywise! {
    (const R: usize, const C: usize) SMatrix<T, R, C>;
    () DMatrix<T>;
    () nalgebra::DVector<T>;
}

impl<T: Scalar + Differentiable, const D: usize> Differentiable for OPoint<T, Const<D>> {
    fn zero_like(&self) -> Self {
        OPoint::from(self.coords.zero_like())
    }
    fn accumulate(&mut self, other: &Self) {
        self.coords.accumulate(&other.coords);
    }
    fn scaled_add(&mut self, alpha: f64, other: &Self) {
        self.coords.scaled_add(alpha, &other.coords);
    }
}

impl<T: Scalar + Inner, const D: usize> Inner for OPoint<T, Const<D>> {
    fn inner(&self, other: &Self) -> f64 {
        self.coords.inner(&other.coords)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix2, Point3, Vector3};

    #[test]
    fn entry_by_entry() {
        let mut g = Vector3::new(1.0, 2.0, 3.0);
        assert_eq!(g.zero_like(), Vector3::zeros());
        g.accumulate(&Vector3::new(0.5, 0.5, 0.5));
        assert_eq!(g, Vector3::new(1.5, 2.5, 3.5));
        g.scaled_add(-2.0, &Vector3::new(1.0, 0.0, f64::NAN));
        assert!(g[2].is_nan());
        let mut h = Vector3::new(1.0, 1.0, 1.0);
        h.scaled_add(0.0, &Vector3::new(f64::INFINITY, 0.0, 0.0));
        assert_eq!(h, Vector3::new(1.0, 1.0, 1.0), "a zero alpha adds nothing");
        let m = Matrix2::new(1.0, 2.0, 3.0, 4.0);
        assert_eq!(m.inner(&m), 30.0);
        let mut p = Point3::new(1.0f32, 2.0, 3.0);
        p.accumulate(&Point3::new(1.0, 1.0, 1.0));
        assert_eq!(p, Point3::new(2.0, 3.0, 4.0));
        let mut d = nalgebra::DVector::from_vec(vec![1.0, 2.0]);
        d.accumulate(&nalgebra::DVector::from_vec(vec![1.0, 1.0]));
        assert_eq!(d.as_slice(), [2.0, 3.0]);
    }
}

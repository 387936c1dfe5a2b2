//! Whole-array operations of a differentiated function, with their
//! pullbacks: an array given another's elements (`u = next;`,
//! `u.copy_from_slice(&next)`), and a copy of an array taken where a
//! callee's `_vjp` must see it as it was (`#[grad]`'s snapshots).
//!
//! An array's adjoint holds, at each point of the reverse sweep, the
//! adjoint of the array's elements at the matching point of the forward
//! sweep: so an assignment's pullback moves the destination's adjoint to
//! the source and leaves the destination's zero, as the reverse of a store
//! does element by element.

use crate::Float;

/// `*dst = src` for a float array of the function (`u = next;`, `state =
/// step(state)`), whose length must stay: the adjoint of the array, in the
/// reverse sweep, has the length it has at the end.
///
/// # Panics
///
/// If `src` has another length than `*dst`, with `name` in the message.
#[inline]
pub fn assign<T, A: AsRef<[T]>>(dst: &mut A, src: A, name: &str) {
    let (before, after) = (dst.as_ref().len(), src.as_ref().len());
    if before != after {
        length_changed(name, before, after);
    }
    *dst = src;
}

#[cold]
#[inline(never)]
fn length_changed(name: &str, before: usize, after: usize) -> ! {
    panic!(
        "#[grad] follows `{name}` as an array of fixed length, but this assignment changes its length from {before} to {after}: assign to a new variable instead"
    )
}

/// The pullback of `dst = src` element by element: `d_src += d_dst`, then
/// `d_dst = 0` (what `dst` held before the assignment reaches the result
/// no more).
///
/// # Panics
///
/// If the adjoints' lengths differ, which [`assign`] and
/// `copy_from_slice` rule out in the forward sweep.
#[inline]
pub fn assigned_pullback<T: Float>(d_dst: &mut [T], d_src: &mut [T]) {
    assert_eq!(d_dst.len(), d_src.len());
    for (d, s) in d_dst.iter_mut().zip(d_src.iter_mut()) {
        *s += *d;
        *d = T::zero();
    }
}

/// `d_array += d_copy`, element by element: the pullback of a copy of the
/// array (a snapshot passed to a callee's `_vjp`).
///
/// # Panics
///
/// If the lengths differ (a copy has its array's).
#[inline]
pub fn add<T: Float>(d_array: &mut [T], d_copy: &[T]) {
    assert_eq!(d_array.len(), d_copy.len());
    for (d, c) in d_array.iter_mut().zip(d_copy) {
        *d += *c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assigned_pullback_moves_the_adjoint() {
        let mut d_dst = [1.0, 2.0];
        let mut d_src = [0.5, 0.0];
        assigned_pullback(&mut d_dst, &mut d_src);
        assert_eq!(d_dst, [0.0, 0.0]);
        assert_eq!(d_src, [1.5, 2.0]);
    }

    #[test]
    fn assign_keeps_the_length() {
        let mut u = vec![1.0, 2.0];
        assign(&mut u, vec![3.0, 4.0], "u");
        assert_eq!(u, [3.0, 4.0]);
        let mut s = [1.0f32; 3];
        assign(&mut s, [2.0; 3], "s");
        assert_eq!(s, [2.0; 3]);
    }

    #[test]
    #[should_panic(expected = "changes its length from 2 to 3")]
    fn assign_refuses_another_length() {
        let mut u = vec![1.0, 2.0];
        assign(&mut u, vec![3.0, 4.0, 5.0], "u");
    }

    #[test]
    fn add_sums() {
        let mut d = vec![1.0, 1.0];
        add(&mut d, &[2.0, 3.0]);
        assert_eq!(d, [3.0, 4.0]);
    }
}

//! Whole-array operations of a differentiated function: the length check
//! of an array changed as a whole (`u = next;`, which `#[grad]` rewrites
//! into element stores), and the pullback of a copy of an array taken
//! where a callee's `_vjp` or a kernel must see it as it was.

use crate::Float;

/// The check generated code makes where an array the function changes as
/// a whole (`u = next;`, `std::mem::swap(&mut u, &mut next)`) keeps its
/// length, `before`, to `after`: the array's adjoint, in the reverse
/// sweep, has one length.
///
/// # Panics
///
/// If the lengths differ, with `name` in the message.
#[inline]
pub fn keeps_length(before: usize, after: usize, name: &str) {
    if before != after {
        length_changed(name, before, after);
    }
}

#[cold]
#[inline(never)]
fn length_changed(name: &str, before: usize, after: usize) -> ! {
    panic!(
        "#[grad] follows `{name}` as an array of one length, but this assignment changes its length from {before} to {after}: assign to a new variable instead, or, in a loop (`{name} = layer.forward(&{name})` over layers of different widths), start `{name}` from a `#[grad]` call's result (`let mut {name} = layers[0].forward(x);`, then loop over `&layers[1..]`), a value whose length may change"
    )
}

/// What a `Vec` copy of an array is lent to an array writer as: the
/// writer's own parameter type, which rustc reads from the writer's
/// signature at the call (`&mut Vec<T>`, `&mut [T]`, `&mut [T; N]`), so
/// that the caller's generated code never guesses it.
pub trait Lent<'a, T>: Sized {
    /// `v` as this type.
    fn lent(v: &'a mut Vec<T>) -> Self;
}

impl<'a, T> Lent<'a, T> for &'a mut Vec<T> {
    #[inline]
    fn lent(v: &'a mut Vec<T>) -> Self {
        v
    }
}

impl<'a, T> Lent<'a, T> for &'a mut [T] {
    #[inline]
    fn lent(v: &'a mut Vec<T>) -> Self {
        v.as_mut_slice()
    }
}

impl<'a, T, const N: usize> Lent<'a, T> for &'a mut [T; N] {
    /// # Panics
    ///
    /// If `v` does not hold `N` elements (the copy of an array of `N`,
    /// which a writer of `[T; N]` is lent, always does).
    #[inline]
    fn lent(v: &'a mut Vec<T>) -> Self {
        let len = v.len();
        match <&mut [T; N]>::try_from(v.as_mut_slice()) {
            Ok(a) => a,
            Err(_) => lent_of_another_length(len, N),
        }
    }
}

#[cold]
#[inline(never)]
fn lent_of_another_length(len: usize, n: usize) -> ! {
    panic!("#[grad] lends a copy of {len} elements to a writer of an array of {n}")
}

/// `v` lent as the writer's parameter type ([`Lent`]).
#[inline]
pub fn lend<'a, T, L: Lent<'a, T>>(v: &'a mut Vec<T>) -> L {
    L::lent(v)
}

/// [`keeps_length`] for the array an array writer was lent (`record(&mut
/// hist, x);`), whose new contents the caller takes: `writer` in the
/// message, which says what to write instead.
///
/// # Panics
///
/// If the writer changed the array's length.
#[inline]
pub fn writer_keeps_length(before: usize, after: usize, name: &str, writer: &str) {
    if before != after {
        writer_changed_length(name, writer, before, after);
    }
}

#[cold]
#[inline(never)]
fn writer_changed_length(name: &str, writer: &str, before: usize, after: usize) -> ! {
    panic!(
        "`{writer}` changed the length of `{name}` from {before} to {after}: #[grad] follows an array a writer is lent as an array of one length; push in the caller what the writer would (return it from `{writer}`)"
    )
}

/// `d_array += d_copy`, element by element: the pullback of a copy of the
/// array (a snapshot passed to a callee's `_vjp`, a `Vec` cloned). A copy
/// that grew after it was taken (`let mut t = v.clone(); t.push(x);`)
/// gives back its first `d_array.len()` elements; the pushed ones went to
/// what was pushed.
///
/// # Panics
///
/// If the copy is shorter than the array.
#[inline]
pub fn add<T: Float>(d_array: &mut [T], d_copy: &[T]) {
    assert!(
        d_copy.len() >= d_array.len(),
        "a copy of an array is shorter than the array"
    );
    for (d, c) in d_array.iter_mut().zip(d_copy) {
        *d += *c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_length_accepts_the_same_length() {
        keeps_length(3, 3, "u");
    }

    #[test]
    #[should_panic(expected = "changes its length from 2 to 3")]
    fn keeps_length_refuses_another_length() {
        keeps_length(2, 3, "u");
    }

    #[test]
    fn add_sums() {
        let mut d = vec![1.0, 1.0];
        add(&mut d, &[2.0, 3.0]);
        assert_eq!(d, [3.0, 4.0]);
    }
}

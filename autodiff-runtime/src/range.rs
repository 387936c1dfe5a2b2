//! Integer ranges as the sources of iterator chains that generated code
//! writes as index loops: `(a..b).map(|i| ..).sum()` runs `for k in
//! 0..count(a, b)` with `i = nth(a, k)`, for every integer type a range
//! may have.

/// An integer type a range of a chain may run over.
pub trait RangeIndex: Copy + PartialOrd {
    /// `self + k`, in the range's own type.
    fn nth_from(self, k: usize) -> Self;
    /// How many values `self..end` holds (zero for an empty range).
    fn count_to(self, end: Self) -> usize;
}

macro_rules! range_index {
    ($($t:ty),*) => {$(
        impl RangeIndex for $t {
            #[inline(always)]
            fn nth_from(self, k: usize) -> Self {
                self + k as $t
            }
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            fn count_to(self, end: Self) -> usize {
                if end > self {
                    (end as i128 - self as i128) as usize
                } else {
                    0
                }
            }
        }
    )*};
}

range_index!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// The number of values in `start..end`.
#[inline(always)]
pub fn count<T: RangeIndex>(start: T, end: T) -> usize {
    start.count_to(end)
}

/// The number of values in `start..=end`.
#[inline(always)]
pub fn count_inclusive<T: RangeIndex>(start: T, end: T) -> usize {
    if end >= start {
        start.count_to(end) + 1
    } else {
        0
    }
}

/// The `k`-th value of a range starting at `start`.
#[inline(always)]
pub fn nth<T: RangeIndex>(start: T, k: usize) -> T {
    start.nth_from(k)
}

/// The length of the sub-slice `start..end` of a slice of `len`
/// elements, which panics where `&xs[start..end]` would, with the same
/// words.
#[inline]
pub fn sub_len(start: usize, end: usize, len: usize) -> usize {
    if start > end {
        panic!("slice index starts at {start} but ends at {end}");
    }
    if end > len {
        panic!("range end index {end} out of range for slice of length {len}");
    }
    end - start
}

/// The length of the sub-slice `start..` of a slice of `len` elements,
/// which panics where `&xs[start..]` would, with the same words.
#[inline]
pub fn sub_len_from(start: usize, len: usize) -> usize {
    if start > len {
        panic!("range start index {start} out of range for slice of length {len}");
    }
    len - start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_values_are_the_ranges() {
        assert_eq!(count(2usize, 5), (2..5).count());
        assert_eq!(count(5usize, 2), 0);
        assert_eq!(count(-3i32, 2), (-3..2).count());
        assert_eq!(count_inclusive(1u8, 4), (1..=4).count());
        assert_eq!(count_inclusive(4i64, 1), 0);
        let values: Vec<i32> = (0..count(-2i32, 3)).map(|k| nth(-2i32, k)).collect();
        assert_eq!(values, (-2..3).collect::<Vec<_>>());
    }
}

//! The value stack of the reverse sweep (the Tapenade scheme).
//!
//! Inside a loop, the forward sweep pushes the values that an iteration
//! overwrites and its reverse still needs; the reverse sweep runs the
//! iterations backwards and pops them. Generated code makes one stack per
//! element type and function call. A stack takes its memory from a
//! per-thread pool and gives it back when dropped, so repeated calls reuse
//! one allocation; [`stats`] counts what the stacks of this thread did.

use std::cell::{Cell, RefCell};
use std::thread::LocalKey;

/// A last-in, first-out stack of values.
pub struct Stack<T: Pooled> {
    values: Vec<T>,
    pushes: u64,
    peak: usize,
}

/// The element types a [`Stack`] holds, each with its per-thread pool of
/// memory.
pub trait Pooled: Copy + 'static {
    #[doc(hidden)]
    fn pool() -> &'static LocalKey<RefCell<Vec<Self>>>;
}

macro_rules! pooled {
    ($($t:ty => $pool:ident),*) => {
        thread_local! {
            $(static $pool: RefCell<Vec<$t>> = const { RefCell::new(Vec::new()) };)*
        }
        $(impl Pooled for $t {
            fn pool() -> &'static LocalKey<RefCell<Vec<Self>>> {
                &$pool
            }
        })*
    };
}

pooled!(f64 => POOL_F64, f32 => POOL_F32, i64 => POOL_I64, bool => POOL_BOOL);

/// What the stacks of this thread did since the last [`reset_stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StackStats {
    /// Values pushed.
    pub pushes: u64,
    /// The most values one stack held at once.
    pub peak: usize,
    /// Stacks created.
    pub stacks: u64,
}

thread_local! {
    static STATS: Cell<StackStats> = const { Cell::new(StackStats { pushes: 0, peak: 0, stacks: 0 }) };
}

/// What the stacks of this thread did since the last [`reset_stats`] (or
/// since the thread started). Counted when each stack is dropped.
pub fn stats() -> StackStats {
    STATS.with(Cell::get)
}

/// Sets this thread's [`stats`] back to zero.
pub fn reset_stats() {
    STATS.with(|s| s.set(StackStats::default()));
}

impl<T: Pooled> Stack<T> {
    /// An empty stack, with the memory an earlier stack of this thread gave
    /// back.
    #[inline]
    pub fn new() -> Self {
        let values = T::pool().with(|p| std::mem::take(&mut *p.borrow_mut()));
        Stack {
            values,
            pushes: 0,
            peak: 0,
        }
    }

    /// Makes room for `n` more values, when the trip count is known before
    /// a loop starts.
    #[inline]
    pub fn reserve(&mut self, n: usize) {
        self.values.reserve(n);
    }

    /// Pushes a value.
    #[inline]
    pub fn push(&mut self, value: T) {
        self.values.push(value);
        self.pushes += 1;
    }

    /// The value pushed last.
    ///
    /// # Panics
    ///
    /// If the stack is empty: the reverse sweep pops exactly what the
    /// forward sweep pushed, so this is a bug of the generated code.
    #[inline]
    pub fn pop(&mut self) -> T {
        self.peak = self.peak.max(self.values.len());
        self.values.pop().expect("autodiff: the value stack is empty (the reverse sweep popped more than the forward sweep pushed)")
    }

    /// How many values it holds.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether it holds no value.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl<T: Pooled> Default for Stack<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Pooled> Drop for Stack<T> {
    fn drop(&mut self) {
        let peak = self.peak.max(self.values.len());
        STATS.with(|s| {
            let mut st = s.get();
            st.pushes += self.pushes;
            st.peak = st.peak.max(peak);
            st.stacks += 1;
            s.set(st);
        });
        let mut values = std::mem::take(&mut self.values);
        values.clear();
        // Keep the larger of the two buffers for the next stack.
        let _ = T::pool().try_with(|p| {
            let mut p = p.borrow_mut();
            if values.capacity() > p.capacity() {
                *p = values;
            }
        });
    }
}

/// Steps a loop counter back by `step` and returns it: the reverse sweep's
/// value of a counter the forward loop advanced by `step` each iteration
/// (`l += 1`), computed instead of recorded. A function, not `at -= step`
/// in the generated code, so that the counter's integer type can be
/// inferred from its later uses.
#[doc(hidden)]
#[inline]
pub fn step_back<T: Copy + core::ops::Sub<Output = T>>(at: &mut T, step: T) -> T {
    *at = *at - step;
    *at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_in_first_out_and_counted() {
        reset_stats();
        {
            let mut s = Stack::<f64>::new();
            for i in 0..10 {
                s.push(i as f64);
            }
            for i in (0..10).rev() {
                assert_eq!(s.pop(), i as f64);
            }
            assert!(s.is_empty());
        }
        assert_eq!(
            stats(),
            StackStats {
                pushes: 10,
                peak: 10,
                stacks: 1
            }
        );
    }

    #[test]
    fn memory_is_reused_by_the_next_stack() {
        let ptr = {
            let mut s = Stack::<f32>::new();
            s.reserve(1000);
            s.push(1.0);
            s.values.as_ptr() as usize
        };
        let s = Stack::<f32>::new();
        assert!(s.values.capacity() >= 1000);
        assert_eq!(s.values.as_ptr() as usize, ptr);
    }

    #[test]
    #[should_panic(expected = "value stack is empty")]
    fn popping_an_empty_stack_is_a_bug() {
        Stack::<bool>::new().pop();
    }
}

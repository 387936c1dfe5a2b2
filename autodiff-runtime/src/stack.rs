//! The value stack of the reverse sweep (the Tapenade scheme).
//!
//! Inside a loop, the forward sweep pushes the values that an iteration
//! overwrites and its reverse still needs; the reverse sweep runs the
//! iterations backwards and pops them. Generated code makes one stack per
//! loop and function call, whose element is the tuple of what one
//! iteration records: its type is whatever rustc infers from the push, so
//! the macro never names (or guesses) the type of a recorded value. A
//! stack takes its memory from a per-thread pool and gives it back when
//! dropped, so repeated calls reuse one allocation; [`stats`] counts what
//! the stacks of this thread did.

use std::alloc::Layout;
use std::cell::{Cell, RefCell};
use std::ptr::NonNull;

/// A last-in, first-out stack of values of any type (the recorded
/// values of one loop iteration, as a tuple).
pub struct Stack<T> {
    values: Vec<T>,
    pushes: u64,
    peak: usize,
}

/// What the stacks of this thread did since the last [`reset_stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StackStats {
    /// Entries pushed (one per loop iteration that records anything: the
    /// tuple of that iteration's recorded values).
    pub pushes: u64,
    /// The most entries one stack held at once.
    pub peak: usize,
    /// Stacks created.
    pub stacks: u64,
}

thread_local! {
    static STATS: Cell<StackStats> = const { Cell::new(StackStats { pushes: 0, peak: 0, stacks: 0 }) };
    /// Memory that dropped stacks gave back: at most a few blocks, each
    /// with the layout it was allocated with.
    static POOL: RefCell<Pool> = const { RefCell::new(Pool(Vec::new())) };
}

/// Blocks of memory kept for the next stacks of one thread, freed when the
/// thread ends.
struct Pool(Vec<(NonNull<u8>, Layout)>);

impl Drop for Pool {
    fn drop(&mut self) {
        for (ptr, layout) in self.0.drain(..) {
            // SAFETY: allocated by the global allocator with `layout`
            // (see `give_back`), and owned by the pool alone.
            unsafe { std::alloc::dealloc(ptr.as_ptr(), layout) };
        }
    }
}

/// How many blocks the pool of one thread keeps.
const POOL_BLOCKS: usize = 8;

/// What the stacks of this thread did since the last [`reset_stats`] (or
/// since the thread started). Counted when each stack is dropped.
pub fn stats() -> StackStats {
    STATS.with(Cell::get)
}

/// Sets this thread's [`stats`] back to zero.
pub fn reset_stats() {
    STATS.with(|s| s.set(StackStats::default()));
}

/// The largest pooled block that can hold `T`s, as an empty `Vec<T>`.
fn take_pooled<T>() -> Vec<T> {
    let (size, align) = (std::mem::size_of::<T>(), std::mem::align_of::<T>());
    if size == 0 {
        return Vec::new();
    }
    POOL.try_with(|p| {
        let p = &mut p.borrow_mut().0;
        let best = p
            .iter()
            .enumerate()
            .filter(|(_, (_, l))| l.align() == align && l.size() % size == 0)
            .max_by_key(|(_, (_, l))| l.size())
            .map(|(i, _)| i)?;
        let (ptr, layout) = p.swap_remove(best);
        // SAFETY: `ptr` was allocated by the global allocator (it comes
        // from a `Vec` given back in `give_back`) with `layout`, whose
        // alignment is `T`'s and whose size is `capacity * size_of::<T>()`
        // exactly; the length is 0, so no value is read or dropped
        // uninitialised (a stack clears its values, dropping them, before
        // it gives the memory back).
        Some(unsafe { Vec::from_raw_parts(ptr.as_ptr().cast::<T>(), 0, layout.size() / size) })
    })
    .ok()
    .flatten()
    .unwrap_or_default()
}

/// Keeps the memory of `values` for a later stack of this thread.
fn give_back<T>(values: Vec<T>) {
    let size = std::mem::size_of::<T>();
    if size == 0 || values.capacity() == 0 {
        return;
    }
    let mut values = std::mem::ManuallyDrop::new(values);
    let layout = Layout::array::<T>(values.capacity()).expect("the layout it was allocated with");
    let ptr = NonNull::new(values.as_mut_ptr().cast::<u8>()).expect("an allocated vector");
    let kept = POOL.try_with(|p| {
        let p = &mut p.borrow_mut().0;
        p.push((ptr, layout));
        if p.len() > POOL_BLOCKS {
            // Free the smallest block.
            let smallest = (0..p.len()).min_by_key(|&i| p[i].1.size()).unwrap_or(0);
            let (ptr, layout) = p.swap_remove(smallest);
            // SAFETY: allocated by the global allocator with `layout`.
            unsafe { std::alloc::dealloc(ptr.as_ptr(), layout) };
        }
    });
    if kept.is_err() {
        // The thread is ending: free it here.
        // SAFETY: allocated by the global allocator with `layout`.
        unsafe { std::alloc::dealloc(ptr.as_ptr(), layout) };
    }
}

impl<T> Stack<T> {
    /// An empty stack, with the memory an earlier stack of this thread gave
    /// back.
    #[inline]
    pub fn new() -> Self {
        Stack {
            values: take_pooled(),
            pushes: 0,
            peak: 0,
        }
    }

    /// Makes room for `n` more entries, when the trip count is known before
    /// a loop starts.
    #[inline]
    pub fn reserve(&mut self, n: usize) {
        self.values.reserve(n);
    }

    /// Pushes an entry.
    #[inline]
    pub fn push(&mut self, value: T) {
        self.values.push(value);
        self.pushes += 1;
    }

    /// The entry pushed last.
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

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether it holds no entry.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl<T> Default for Stack<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Drop for Stack<T> {
    fn drop(&mut self) {
        let peak = self.peak.max(self.values.len());
        let _ = STATS.try_with(|s| {
            let mut st = s.get();
            st.pushes += self.pushes;
            st.peak = st.peak.max(peak);
            st.stacks += 1;
            s.set(st);
        });
        let mut values = std::mem::take(&mut self.values);
        // Drops what a loop left on it (a `_grad` that panicked midway);
        // the memory goes back empty.
        values.clear();
        give_back(values);
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
    fn memory_is_shared_between_types_of_one_layout() {
        // Entries of one size and alignment share memory: a (f64, usize)
        // and a (usize, f64).
        let ptr = {
            let mut s = Stack::<(f64, usize)>::new();
            s.reserve(100);
            s.push((1.0, 2));
            s.values.as_ptr() as usize
        };
        let mut s = Stack::<(usize, f64)>::new();
        assert_eq!(s.values.as_ptr() as usize, ptr);
        s.push((3, 4.0));
        assert_eq!(s.pop(), (3, 4.0));
        // Another alignment never takes it.
        let t = Stack::<(u8, u8)>::new();
        assert_ne!(t.values.as_ptr() as usize, ptr);
    }

    #[test]
    fn zero_sized_entries_are_counted() {
        reset_stats();
        {
            let mut s = Stack::<()>::new();
            s.push(());
            s.push(());
            s.pop();
            s.pop();
        }
        assert_eq!(stats().pushes, 2);
    }

    #[test]
    #[should_panic(expected = "value stack is empty")]
    fn popping_an_empty_stack_is_a_bug() {
        Stack::<bool>::new().pop();
    }
}

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
    /// How many entries, from the top, [`Replay`]s have walked past since
    /// the last [`Stack::reader`].
    replayed: usize,
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
    /// The most bytes of entries each stack held at once, summed over the
    /// stacks: the memory the stacks need, exactly when one loop records
    /// (stacks of nested loops may peak at different times, so this is an
    /// upper bound of what they held together).
    pub bytes: usize,
}

thread_local! {
    static STATS: Cell<StackStats> = const { Cell::new(StackStats { pushes: 0, peak: 0, stacks: 0, bytes: 0 }) };
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

/// How many blocks the pool of one thread keeps: enough for the stacks
/// and slabs of one `_grad` with many recording loops (GMM's has eleven),
/// so that a slab is not reallocated, and its pages faulted in again, on
/// every call.
const POOL_BLOCKS: usize = 16;

/// What the stacks of this thread did since the last [`reset_stats`] (or
/// since the thread started). Counted when each stack is dropped.
pub fn stats() -> StackStats {
    STATS.with(Cell::get)
}

/// Sets this thread's [`stats`] back to zero.
pub fn reset_stats() {
    STATS.with(|s| s.set(StackStats::default()));
}

/// Frees the memory this thread's pool keeps for the next `_grad` call:
/// after one gradient of a long recorded loop, the pool holds as much as
/// that loop recorded until the thread ends. Returns the bytes freed.
/// The next call allocates again.
pub fn release_pool() -> usize {
    POOL.try_with(|p| {
        let blocks = std::mem::take(&mut p.borrow_mut().0);
        let mut freed = 0;
        for (ptr, layout) in blocks {
            freed += layout.size();
            // SAFETY: allocated by the global allocator with `layout` (see
            // `give_back`), and owned by the pool alone, which no longer
            // holds it.
            unsafe { std::alloc::dealloc(ptr.as_ptr(), layout) };
        }
        freed
    })
    .unwrap_or(0)
}

/// The pooled block given back last that can hold `T`s, as an empty
/// `Vec<T>`. Last in, first out: a `_grad` declares its stacks together
/// and they are dropped in the reverse order, so the next call's stacks
/// take back, one by one, the blocks the same stacks grew to (GMM's slabs
/// of megabytes and its stacks of a few entries alike); a largest-first
/// choice handed the largest block to the first stack declared and left
/// a slab to grow again, its pages faulted in, on every call.
fn take_pooled<T>() -> Vec<T> {
    let (size, align) = (std::mem::size_of::<T>(), std::mem::align_of::<T>());
    if size == 0 {
        return Vec::new();
    }
    POOL.try_with(|p| {
        let p = &mut p.borrow_mut().0;
        let last = p
            .iter()
            .rposition(|(_, l)| l.align() == align && l.size() % size == 0)?;
        let (ptr, layout) = p.remove(last);
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
            // Free the smallest block, keeping the others in order.
            let smallest = (0..p.len()).min_by_key(|&i| p[i].1.size()).unwrap_or(0);
            let (ptr, layout) = p.remove(smallest);
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
            replayed: 0,
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

    /// Pushes every element of `values`, in order: a scratch vector an
    /// iteration records whole, copied onto a stack of its own (a slab)
    /// so that the vector itself is reused by the next iteration
    /// ([`refilled`]). The reverse sweep takes it back as a slice
    /// ([`Replay::read_slice`], [`Reader::pop_slice`]) of the length the
    /// iteration's entry on the loop's stack recorded.
    #[inline]
    pub fn push_slice(&mut self, values: &[T])
    where
        T: Copy,
    {
        self.values.extend_from_slice(values);
        self.pushes += values.len() as u64;
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

impl<T> Stack<T> {
    /// A writer that appends entries, with room reserved for `hint` of
    /// them: what a loop's forward iterations push through (`hint` is the
    /// trip count of a range loop, 0 for a `while` loop). Its pushes keep
    /// the end and the room in registers: see [`Writer::push`].
    #[inline]
    pub fn writer(&mut self, hint: usize) -> Writer<'_, T> {
        self.values.reserve(hint);
        let len = self.values.len();
        Writer {
            base: self.values.as_mut_ptr(),
            len,
            cap: self.values.capacity(),
            start: len,
            stack: self,
        }
    }

    /// A reader that takes entries from the top: what a loop's reverse
    /// iterations pop through. See [`Reader::pop`].
    #[inline]
    pub fn reader(&mut self) -> Reader<'_, T> {
        self.replayed = 0;
        let len = self.values.len();
        self.peak = self.peak.max(len);
        // The entries are the reader's until it ends (see `Reader`).
        // SAFETY: 0 <= len; the entries are now owned by the reader, which
        // gives back the ones it did not take when it is dropped; if it is
        // leaked instead, they are leaked, never dropped twice.
        unsafe { self.values.set_len(0) };
        Reader {
            base: self.values.as_mut_ptr(),
            len,
            stack: self,
        }
    }
}

impl<T> Stack<T> {
    /// A reader that walks the entries from the top down and leaves them
    /// on the stack: what the loops of a reverse sweep run as a first
    /// attempt read through, so that the sweep can run again, popping the
    /// same entries, if that attempt's gradient comes out NaN (see
    /// [`crate::float::first_try`]). Like [`Stack::reader`]s, one per
    /// reverse run of the loop: each starts where the last one of the
    /// same attempt stopped.
    #[inline]
    pub fn replay(&mut self) -> Replay<'_, T> {
        let len = self.values.len();
        self.peak = self.peak.max(len);
        let end = len - self.replayed.min(len);
        Replay {
            entries: &self.values[..end],
            replayed: &mut self.replayed,
            len,
        }
    }
}

/// Walks the entries of a [`Stack`] from the top down without taking
/// them (see [`Stack::replay`]). Safe code: the entries not yet walked are
/// a shared slice whose last element each [`Replay::read`] splits off; the
/// stack remembers how far the walk went when the replay is dropped.
pub struct Replay<'a, T> {
    entries: &'a [T],
    replayed: &'a mut usize,
    len: usize,
}

impl<'a, T> Replay<'a, T> {
    /// The next entry down, left on the stack.
    ///
    /// # Panics
    ///
    /// If there is none: the reverse sweep reads exactly what the forward
    /// sweep pushed, so this is a bug of the generated code.
    #[inline(always)]
    pub fn read(&mut self) -> &'a T {
        match self.entries.split_last() {
            Some((last, rest)) => {
                self.entries = rest;
                last
            }
            None => empty(),
        }
    }

    /// The next `n` entries down, as the slice they were pushed as
    /// ([`Stack::push_slice`]), left on the stack.
    ///
    /// # Panics
    ///
    /// If there are fewer than `n`: a bug of the generated code, as for
    /// [`Replay::read`].
    #[inline(always)]
    pub fn read_slice(&mut self, n: usize) -> &'a [T] {
        let Some(at) = self.entries.len().checked_sub(n) else {
            empty()
        };
        let (rest, last) = self.entries.split_at(at);
        self.entries = rest;
        last
    }

    /// Ends the walk: the next replay of the stack starts below the
    /// entries this one read. Dropping it does the same.
    #[inline]
    pub fn finish(self) {}
}

impl<T> Drop for Replay<'_, T> {
    #[inline]
    fn drop(&mut self) {
        *self.replayed = self.len - self.entries.len();
    }
}

/// Appends entries to a [`Stack`] with the length and the room in the
/// writer itself, local to the generated function, so that the optimiser
/// keeps them in registers across a loop: a push is one compare of two
/// registers, a store and an increment. `Vec::push`, which the stack used
/// before, passes the vector to its out-of-line growth path and so keeps
/// its length in memory, stored and loaded again at every push.
///
/// # Safety argument
///
/// While a writer lives, it holds the stack's only (`&mut`) borrow, and:
///
/// - `base` is the vector's buffer and `cap` its capacity; they change
///   only in the out-of-line growth path, which sets them from the vector again;
/// - every entry below `len` is initialised: those below the vector's
///   own length were, and the writer wrote those from there to `len`;
/// - `len <= cap`, checked before every write (`len == cap` grows first).
///
/// So each write lands in the vector's spare capacity, never on a live
/// entry. When the writer is dropped (after the loop, or while a panic
/// unwinds), the vector's length becomes `len`: every entry is then owned
/// by the vector again. A writer leaked with `mem::forget` leaves the
/// length as it was, leaking the entries it wrote, which is safe.
pub struct Writer<'a, T> {
    stack: &'a mut Stack<T>,
    base: *mut T,
    len: usize,
    cap: usize,
    /// The length when the writer started, to count its pushes.
    start: usize,
}

impl<T> Writer<'_, T> {
    /// Pushes an entry.
    #[inline(always)]
    pub fn push(&mut self, value: T) {
        if self.len == self.cap {
            (self.base, self.cap) = grow(self.stack, self.len);
        }
        // SAFETY: `len < cap` (checked above), so the slot is in the
        // vector's spare capacity (see the type's safety argument); a
        // zero-sized `T` has a capacity of `usize::MAX` and needs no room.
        unsafe { self.base.add(self.len).write(value) };
        self.len += 1;
    }

    /// Ends the writing: the entries become the stack's. Dropping the
    /// writer does the same; generated code calls this after the loop so
    /// that the stack is free for the reverse sweep.
    #[inline]
    pub fn finish(self) {}
}

impl<T> Drop for Writer<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `len <= cap` and every entry below `len` is initialised.
        unsafe { self.stack.values.set_len(self.len) };
        self.stack.pushes += (self.len - self.start) as u64;
        self.stack.peak = self.stack.peak.max(self.len);
    }
}

/// Room for more entries, out of the loop's way: the vector takes the
/// writer's length, grows (moving its entries), and gives back its new
/// buffer and capacity. By value, so that the writer's own fields never
/// have their address taken.
#[cold]
#[inline(never)]
fn grow<T>(stack: &mut Stack<T>, len: usize) -> (*mut T, usize) {
    // SAFETY: the writer initialised every entry below `len`, and
    // `len <= capacity`.
    unsafe { stack.values.set_len(len) };
    stack.values.reserve(len.max(8));
    (stack.values.as_mut_ptr(), stack.values.capacity())
}

/// Takes entries from the top of a [`Stack`], with the length in the
/// reader itself (see [`Writer`] for why): a pop is one compare, a
/// decrement and a load.
///
/// # Safety argument
///
/// The reader holds the stack's only (`&mut`) borrow. When it starts, it
/// sets the vector's length to 0 and takes the entries over: those below
/// `len` are initialised and not yet taken. A pop checks `len > 0`, moves
/// the entry at `len − 1` out and lowers `len`, so no entry is read twice.
/// When the reader is dropped (after the loop, or while a panic unwinds),
/// the vector's length becomes `len`: the entries not taken are the
/// vector's again, and those taken are not dropped a second time. A reader
/// leaked with `mem::forget` leaves the length at 0: the entries not taken
/// are leaked, never dropped twice.
pub struct Reader<'a, T> {
    stack: &'a mut Stack<T>,
    base: *const T,
    len: usize,
}

impl<'a, T> Reader<'a, T> {
    /// The entry pushed last.
    ///
    /// # Panics
    ///
    /// If there is none: the reverse sweep pops exactly what the forward
    /// sweep pushed, so this is a bug of the generated code.
    #[inline(always)]
    pub fn pop(&mut self) -> T {
        if self.len == 0 {
            empty();
        }
        self.len -= 1;
        // SAFETY: the entry at `len` (after the decrement) is initialised
        // and not taken yet (see the type's safety argument); lowering
        // `len` first makes this the only read of it.
        unsafe { self.base.add(self.len).read() }
    }

    /// The `n` entries pushed last, as the slice they were pushed as
    /// ([`Stack::push_slice`]).
    ///
    /// The slice borrows the stack for as long as the reader does (`'a`),
    /// not the reader: a reverse iteration holds the slices of several
    /// vectors at once. Sound because `T` is `Copy` (taking an entry moves
    /// nothing out and leaves nothing to drop) and the entries are never
    /// written or freed while `'a` lasts: the reader holds the stack's only
    /// borrow for `'a`, and neither it nor its `Drop` writes an entry (the
    /// drop sets the vector's length, which frees no memory).
    ///
    /// # Panics
    ///
    /// If there are fewer than `n`: a bug of the generated code, as for
    /// [`Reader::pop`].
    #[inline(always)]
    pub fn pop_slice(&mut self, n: usize) -> &'a [T]
    where
        T: Copy,
    {
        if self.len < n {
            empty();
        }
        self.len -= n;
        // SAFETY: the entries from `len` (after the subtraction) to the old
        // `len` are initialised and not taken (see the type's safety
        // argument), and stay as they are for `'a` (see above).
        unsafe { std::slice::from_raw_parts(self.base.add(self.len), n) }
    }

    /// Ends the reading: the entries not taken stay on the stack. Dropping
    /// the reader does the same.
    #[inline]
    pub fn finish(self) {}
}

impl<T> Drop for Reader<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the entries below `len` are initialised and not taken.
        unsafe { self.stack.values.set_len(self.len) };
    }
}

#[cold]
#[inline(never)]
fn empty() -> ! {
    panic!("autodiff: the value stack is empty (the reverse sweep popped more than the forward sweep pushed)")
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
            st.bytes += peak * std::mem::size_of::<T>();
            s.set(st);
        });
        let mut values = std::mem::take(&mut self.values);
        // Drops what a loop left on it (a `_grad` that panicked midway);
        // the memory goes back empty.
        values.clear();
        give_back(values);
    }
}

/// `vec![value; n]` in the vector `buffer` holds, taken out of it: what
/// generated code writes for a scratch vector declared in a loop and
/// recorded whole (GMM's `x − μ` per point and component). The iteration
/// copies the vector onto a slab ([`Stack::push_slice`]) and gives it
/// back to `buffer` at its end, so the loop allocates once, not once per
/// iteration.
///
/// Out of line on purpose: the vector comes back by value into a local
/// whose address nothing takes, which the optimiser keeps in registers.
/// `mem::take`, `clear` and `resize` written in the loop pass the local's
/// address to `resize`'s growth path; the optimiser must then reload its
/// pointer and length after every store through it, and GMM's inner loop
/// no longer vectorised (d = 64: 12.7 against 10.1 ms).
#[inline(never)]
pub fn refilled<T: Clone>(buffer: &mut Vec<T>, n: usize, value: T) -> Vec<T> {
    let mut v = std::mem::take(buffer);
    v.clear();
    v.resize(n, value);
    v
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
                stacks: 1,
                bytes: 80
            }
        );
    }

    #[test]
    fn release_pool_frees_what_the_pool_keeps() {
        std::thread::spawn(|| {
            {
                let mut s = Stack::<f64>::new();
                s.reserve(1000);
                s.push(1.0);
                assert_eq!(s.pop(), 1.0);
            }
            assert!(release_pool() >= 8000);
            assert_eq!(release_pool(), 0);
            // A stack still works, allocating anew.
            let mut s = Stack::<f64>::new();
            s.push(2.0);
            assert_eq!(s.pop(), 2.0);
        })
        .join()
        .unwrap();
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

    /// A forward loop through a writer, its reverse through a reader.
    fn round_trip(hint: usize, n: usize) {
        reset_stats();
        {
            let mut s = Stack::<(f64, usize)>::new();
            let mut w = s.writer(hint);
            for i in 0..n {
                w.push((i as f64 * 0.5, i));
            }
            w.finish();
            assert_eq!(s.len(), n);
            let mut r = s.reader();
            for i in (0..n).rev() {
                assert_eq!(r.pop(), (i as f64 * 0.5, i));
            }
            r.finish();
            assert!(s.is_empty());
        }
        assert_eq!(
            stats(),
            StackStats {
                pushes: n as u64,
                peak: n,
                stacks: 1,
                bytes: n * 16
            }
        );
    }

    #[test]
    fn a_range_loop_writes_into_the_room_it_reserved() {
        round_trip(1000, 1000);
    }

    #[test]
    fn a_loop_that_exits_early_writes_fewer_than_reserved() {
        round_trip(1000, 7);
        round_trip(1000, 0);
    }

    #[test]
    fn a_while_loop_of_unknown_length_grows_the_stack() {
        // No room reserved: the writer grows the vector as it goes,
        // through many reallocations.
        round_trip(0, 10_000);
        round_trip(3, 100);
    }

    #[test]
    fn nested_loops_write_and_read_in_turns() {
        // An inner loop's stack: one writer per outer iteration, then one
        // reader per outer iteration of the reverse sweep, each taking what
        // its iteration wrote.
        let mut s = Stack::<u32>::new();
        for outer in 0..5u32 {
            let mut w = s.writer(outer as usize);
            for inner in 0..outer {
                w.push(outer * 100 + inner);
            }
            w.finish();
        }
        for outer in (0..5u32).rev() {
            let mut r = s.reader();
            for inner in (0..outer).rev() {
                assert_eq!(r.pop(), outer * 100 + inner);
            }
        }
        assert!(s.is_empty());
    }

    #[test]
    fn entries_are_dropped_exactly_once() {
        // Entries that own memory: each is dropped once, whether popped,
        // left on the stack, or on it when a panic unwinds a writer.
        let counter = std::rc::Rc::new(());
        {
            let mut s = Stack::new();
            let mut w = s.writer(2);
            for _ in 0..5 {
                w.push(std::rc::Rc::clone(&counter));
            }
            w.finish();
            let mut r = s.reader();
            drop(r.pop());
            drop(r.pop());
            r.finish();
            assert_eq!(s.len(), 3);
            assert_eq!(std::rc::Rc::strong_count(&counter), 4);
        }
        assert_eq!(std::rc::Rc::strong_count(&counter), 1);
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut s = Stack::new();
            let mut w = s.writer(0);
            for i in 0..10 {
                if i == 6 {
                    panic!("a panic in the loop body");
                }
                w.push(std::rc::Rc::clone(&counter));
            }
        }));
        assert!(unwound.is_err());
        assert_eq!(std::rc::Rc::strong_count(&counter), 1);
    }

    #[test]
    fn a_leaked_reader_or_writer_leaks_entries_and_drops_none_twice() {
        let counter = std::rc::Rc::new(());
        let mut s = Stack::new();
        let mut w = s.writer(4);
        for _ in 0..4 {
            w.push(std::rc::Rc::clone(&counter));
        }
        w.finish();
        let mut r = s.reader();
        drop(r.pop());
        std::mem::forget(r);
        // The three entries not taken are leaked: the stack is empty, and
        // nothing is dropped twice when it goes.
        assert!(s.is_empty());
        drop(s);
        assert_eq!(std::rc::Rc::strong_count(&counter), 4);
        let mut s = Stack::new();
        std::mem::forget(s.writer(1));
        s.push(1.0);
        assert_eq!(s.pop(), 1.0);
    }

    #[test]
    #[should_panic(expected = "value stack is empty")]
    fn a_reader_popping_more_than_was_pushed_is_a_bug() {
        let mut s = Stack::<f64>::new();
        let mut w = s.writer(1);
        w.push(1.0);
        w.finish();
        let mut r = s.reader();
        r.pop();
        r.pop();
    }

    #[test]
    #[should_panic(expected = "value stack is empty")]
    fn popping_an_empty_stack_is_a_bug() {
        Stack::<bool>::new().pop();
    }

    #[test]
    fn a_replay_leaves_the_entries_for_the_reader_that_follows() {
        // An inner loop's stack, as a first attempt and then a second
        // reverse sweep read it: one replay per outer iteration, each
        // starting where the last stopped; then one reader per outer
        // iteration, taking the same entries again.
        let counter = std::rc::Rc::new(());
        let mut s = Stack::new();
        for outer in 0..5u32 {
            let mut w = s.writer(outer as usize);
            for inner in 0..outer {
                w.push((outer * 100 + inner, std::rc::Rc::clone(&counter)));
            }
            w.finish();
        }
        for attempt in 0..2 {
            for outer in (0..5u32).rev() {
                let mut r = s.replay();
                for inner in (0..outer).rev() {
                    assert_eq!(r.read().0, outer * 100 + inner, "attempt {attempt}");
                }
                r.finish();
            }
            assert_eq!(s.len(), 10);
            // The reader starts from the top again.
            for outer in (0..5u32).rev() {
                let mut r = s.reader();
                for inner in (0..outer).rev() {
                    assert_eq!(r.pop().0, outer * 100 + inner);
                }
            }
            assert!(s.is_empty());
            assert_eq!(std::rc::Rc::strong_count(&counter), 1);
            for i in 0..4 {
                s.push((i, std::rc::Rc::clone(&counter)));
            }
            // Replayed part way, then read: every entry handed over once,
            // from the top.
            let mut r = s.replay();
            assert_eq!(r.read().0, 3);
            drop(r);
            let mut seen = Vec::new();
            let mut r = s.reader();
            for _ in 0..4 {
                seen.push(r.pop().0);
            }
            r.finish();
            assert_eq!(seen, [3, 2, 1, 0]);
            assert_eq!(std::rc::Rc::strong_count(&counter), 1);
            for outer in 0..5u32 {
                for inner in 0..outer {
                    s.push((outer * 100 + inner, std::rc::Rc::clone(&counter)));
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "value stack is empty")]
    fn a_replay_reading_more_than_was_pushed_is_a_bug() {
        let mut s = Stack::<f64>::new();
        s.push(1.0);
        let mut r = s.replay();
        r.read();
        r.read();
    }

    #[test]
    fn slices_replayed_then_popped() {
        reset_stats();
        {
            let mut entries = Stack::new();
            let mut xs = Stack::new();
            let mut ys = Stack::new();
            let mut buffer_x: Vec<f64> = Vec::new();
            let mut buffer_y: Vec<f64> = Vec::new();
            for it in 0..4 {
                let mut x = refilled(&mut buffer_x, it + 1, 0.0);
                let mut y = refilled(&mut buffer_y, 2, 1.0);
                for (i, v) in x.iter_mut().enumerate() {
                    *v = (10 * it + i) as f64;
                }
                y[1] = it as f64;
                entries.push((x.len(), y.len()));
                xs.push_slice(&x);
                ys.push_slice(&y);
                buffer_x = x;
                buffer_y = y;
            }
            let expect = |it: usize, x: &[f64], y: &[f64]| {
                let want: Vec<f64> = (0..=it).map(|i| (10 * it + i) as f64).collect();
                assert_eq!(x, &want[..]);
                assert_eq!(y, &[1.0, it as f64][..]);
            };
            // The first attempt: entries stay where they are.
            {
                let mut r = entries.replay();
                let mut rx = xs.replay();
                let mut ry = ys.replay();
                for it in (0..4).rev() {
                    let (nx, ny) = *r.read();
                    let (x, y) = (rx.read_slice(nx), ry.read_slice(ny));
                    expect(it, x, y);
                }
            }
            assert_eq!((xs.len(), ys.len()), (10, 8));
            // The guarded sweep pops the same slices.
            let mut r = entries.reader();
            let mut rx = xs.reader();
            let mut ry = ys.reader();
            for it in (0..4).rev() {
                let (nx, ny) = r.pop();
                let (x, y) = (rx.pop_slice(nx), ry.pop_slice(ny));
                expect(it, x, y);
            }
            r.finish();
            rx.finish();
            ry.finish();
            assert!(entries.is_empty() && xs.is_empty() && ys.is_empty());
        }
        // Pushes count elements: 4 entries, 10 + 8 floats.
        assert_eq!(stats().pushes, 22);
    }

    #[test]
    fn refilled_reuses_the_buffer() {
        let mut buffer: Vec<f64> = Vec::with_capacity(16);
        let at = buffer.as_ptr();
        let v = refilled(&mut buffer, 5, 2.5);
        assert_eq!(v, vec![2.5; 5]);
        assert_eq!(v.as_ptr(), at, "no new allocation");
        assert!(buffer.is_empty());
        buffer = v;
        buffer[0] = 9.0;
        let v = refilled(&mut buffer, 3, 0.0);
        assert_eq!(v, vec![0.0; 3], "every element set again");
    }

    #[test]
    #[should_panic(expected = "value stack is empty")]
    fn a_slice_longer_than_what_was_pushed_panics() {
        let mut s = Stack::new();
        s.push_slice(&[1.0, 2.0]);
        let mut r = s.reader();
        let _ = r.pop_slice(3);
    }

    #[test]
    #[should_panic(expected = "value stack is empty")]
    fn a_replayed_slice_longer_than_what_was_pushed_panics() {
        let mut s = Stack::new();
        s.push_slice(&[1.0, 2.0]);
        let mut r = s.replay();
        let _ = r.read_slice(3);
    }
}

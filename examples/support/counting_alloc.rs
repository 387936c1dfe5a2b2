//! The system allocator, counting the bytes allocated at once and their
//! peak: how `examples/heat_fit.rs`, `tests/checkpoint_memory.rs` and
//! `benches/benches/checkpoint.rs` measure the memory of a gradient. Each
//! includes this file (`#[path]`) and installs it:
//!
//! ```text
//! #[global_allocator]
//! static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;
//! ```

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting.
pub struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = NOW.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

/// The bytes allocated now; the peak starts again from them.
pub fn start() -> usize {
    let base = NOW.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    base
}

/// The peak of bytes allocated at once since [`start`] returned `base`,
/// above it.
pub fn peak_since(base: usize) -> usize {
    PEAK.load(Ordering::Relaxed) - base
}

/// The bytes still held above `base`.
pub fn held_since(base: usize) -> usize {
    NOW.load(Ordering::Relaxed).saturating_sub(base)
}

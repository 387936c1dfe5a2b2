//! The memory a checkpointed loop's gradient takes, counted by a global
//! allocator: the peak of bytes allocated at once during one `_grad` call.
//! A test binary of its own, so that no other test allocates meanwhile.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use autodiff::grad;

struct Counting;

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

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak bytes allocated at once while `f` runs, above what was allocated
/// before it. On a thread of its own: the value stacks keep their memory
/// in a per-thread pool for the next call, which would then allocate
/// little and seem to need little.
fn peak<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> (T, usize) {
    let base = NOW.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = std::thread::spawn(f).join().expect("the gradient ran");
    (out, PEAK.load(Ordering::Relaxed) - base)
}

macro_rules! heat {
    ($name:ident $(, $attr:meta)?) => {
        #[grad(wrt(u0, k))]
        fn $name(u0: &[f64], k: f64, steps: usize) -> f64 {
            let n = u0.len();
            let mut u = u0.to_vec();
            $(#[$attr])?
            for _ in 0..steps {
                let mut next = vec![0.0; n];
                next[0] = u[0];
                next[n - 1] = u[n - 1];
                for i in 1..n - 1 {
                    next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
                }
                u = next;
            }
            u.iter().map(|v| v * v).sum::<f64>()
        }
    };
}

heat!(recorded);
heat!(every_100, checkpoint(every = 100));
heat!(snapshots_10, checkpoint(snapshots = 10));

#[test]
fn checkpointing_bounds_the_memory_of_a_time_loop() {
    let cells = 200;
    let steps = 2_000;
    let u0: Vec<f64> = (0..cells).map(|i| (i as f64 * 0.1).sin()).collect();
    let given = u0.clone();
    let (recorded, full) = peak(move || recorded_grad(&given, 0.2, steps));
    let given = u0.clone();
    let (every_k, every) = peak(move || every_100_grad(&given, 0.2, steps));
    let given = u0.clone();
    let (snapshots, binomial) = peak(move || snapshots_10_grad(&given, 0.2, steps));
    // The same gradient each time.
    for r in [&every_k, &snapshots] {
        assert_eq!(r.1, recorded.1);
        assert_eq!(r.2.to_bits(), recorded.2.to_bits());
    }
    println!("peak bytes: recorded {full}, every = 100 {every}, snapshots = 10 {binomial}");
    // Recorded: every step's cells. Every 100: 20 states and 100 steps.
    // Ten snapshots: ten states and one step.
    let state = cells * 8;
    assert!(full > steps * state, "recorded: {full} bytes");
    assert!(every < full / 8, "every = 100: {every} of {full} bytes");
    assert!(
        binomial < full / 50,
        "snapshots = 10: {binomial} of {full} bytes"
    );
    assert!(binomial < 40 * state, "snapshots = 10: {binomial} bytes");
}

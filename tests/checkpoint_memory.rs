//! The memory a checkpointed loop's gradient takes, counted by a global
//! allocator: the peak of bytes allocated at once during one `_grad` call.
//! A test binary of its own, so that no other test allocates meanwhile.

use autodiff::grad;

#[path = "../examples/support/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;

/// Peak bytes allocated at once while `f` runs, above what was allocated
/// before it. On a thread of its own: the value stacks keep their memory
/// in a per-thread pool for the next call, which would then allocate
/// little and seem to need little.
fn peak<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> (T, usize) {
    let base = counting_alloc::start();
    let out = std::thread::spawn(f).join().expect("the gradient ran");
    (out, counting_alloc::peak_since(base))
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

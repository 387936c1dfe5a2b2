//! Straight-line gradients allocate nothing: every allocation made on this
//! thread is counted while the generated functions run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use autodiff::grad;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

/// What `f` returns, and how many allocations it made.
fn counted<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = allocations();
    let r = f();
    (r, allocations() - before)
}

#[grad]
fn many_primitives(x: f64, y: f64, n: i32) -> f64 {
    let mut s = x.sin() * y.cos() + (x * y).exp() / (1.0 + y * y).sqrt();
    s += x.powi(n) - y.powf(1.5) + x.atan2(y) + x.hypot(y).ln();
    s *= autodiff::sigmoid(x) + autodiff::softplus(y) - x.tanh().abs();
    let t = x.max(y).clamp(-1.0, 1.0) + x.mul_add(y, 2.0);
    s + t * (n as f64)
}

#[test]
fn straight_line_gradient_allocates_nothing() {
    // Warm up anything lazily initialised on first use.
    let mut acc = many_primitives_grad(0.3, 0.7, 3);
    let before = allocations();
    for i in 0..1000 {
        let x = 0.001 * i as f64;
        let (y, dx, dy) = many_primitives_grad(x, 0.7, 3);
        acc.0 += y;
        acc.1 += dx;
        acc.2 += dy;
    }
    let after = allocations();
    assert!(acc.0.is_finite() && acc.1.is_finite() && acc.2.is_finite());
    assert_eq!(after - before, 0, "the generated gradient allocated");
    // The counter works: a Vec does allocate.
    let v = std::hint::black_box(vec![1.0_f64; 4]);
    assert!(allocations() > after);
    drop(v);
}

/// The distances from `x` to `k` points: a scratch vector per point,
/// recorded whole by the loop (the reverse of the second inner loop reads
/// it after the first wrote it).
#[grad(wrt(means))]
fn distances(x: &[f64], means: &[f64], d: usize) -> f64 {
    let k = means.len() / d;
    let mut total = 0.0;
    for ik in 0..k {
        let mut xc = vec![0.0; d];
        for id in 0..d {
            xc[id] = x[id] - means[ik * d + id];
        }
        let mut sq = 0.0;
        for v in &xc {
            sq += v * v;
        }
        total += sq.sqrt();
    }
    total
}

#[test]
fn a_scratch_vector_recorded_per_iteration_is_allocated_once_per_call() {
    let d = 3;
    let x = [0.2, -0.4, 1.1];
    let means = |k: usize| -> Vec<f64> { (0..k * d).map(|i| (i as f64 * 0.37).sin()).collect() };
    let (few, many) = (means(10), means(1000));
    // Warm up: the stacks' memory comes from this thread's pool.
    let _ = distances_grad(&x, &many, d);
    let ((_, g_many), with_many) = counted(|| distances_grad(&x, &many, d));
    let ((_, g_few), with_few) = counted(|| distances_grad(&x, &few, d));
    // The same count for 10 and for 1,000 points: nothing per iteration
    // (the vector is made in a buffer each iteration gives back, and
    // copied onto a slab).
    assert_eq!(with_many, with_few, "allocations grow with the trip count");
    // The gradient: −(x − μ) / |x − μ| per point, exact to rounding.
    for (means, g) in [(&few, &g_few), (&many, &g_many)] {
        for (ik, mu) in means.chunks(d).enumerate() {
            let r: Vec<f64> = x.iter().zip(mu).map(|(a, b)| a - b).collect();
            let norm = r.iter().map(|v| v * v).sum::<f64>().sqrt();
            for id in 0..d {
                let want = -r[id] / norm;
                assert!((g[ik * d + id] - want).abs() <= 1e-14, "{ik} {id}");
            }
        }
    }
}

/// Σ over points and centres of |x − μ|: a scratch vector per point and
/// centre, declared in a loop nested in the point loop, whose adjoint the
/// reverse of the inner loop needs afresh each iteration. Its squared
/// norm is written with an iterator adapter, whose closure is inlined as
/// a scope in the loop's body: the vector is still recorded whole, not
/// allocated and its elements recorded one by one in every iteration.
#[grad(wrt(means))]
fn distances_of_points(xs: &[f64], means: &[f64], d: usize) -> f64 {
    let n = xs.len() / d;
    let k = means.len() / d;
    let mut total = 0.0;
    for ix in 0..n {
        for ik in 0..k {
            let mut xc = vec![0.0; d];
            for id in 0..d {
                xc[id] = xs[ix * d + id] - means[ik * d + id];
            }
            let sq: f64 = xc.iter().map(|v| v * v).sum();
            total += sq.sqrt();
        }
    }
    total
}

#[test]
fn an_adjoint_buffer_in_a_nested_loop_is_allocated_once_per_call() {
    let (d, k) = (3, 4);
    let means: Vec<f64> = (0..k * d).map(|i| (i as f64 * 0.37).sin()).collect();
    let points =
        |n: usize| -> Vec<f64> { (0..n * d).map(|i| 2.0 + (i as f64 * 0.11).cos()).collect() };
    let (few, many) = (points(10), points(1000));
    let _ = distances_of_points_grad(&many, &means, d);
    let ((_, g_many), with_many) = counted(|| distances_of_points_grad(&many, &means, d));
    let ((_, g_few), with_few) = counted(|| distances_of_points_grad(&few, &means, d));
    // The same count for 10 and for 1,000 points: the adjoint of `xc`
    // comes from one buffer for the whole call, not one per point.
    assert_eq!(
        with_many, with_few,
        "allocations grow with the outer trip count"
    );
    // The gradient: −Σ_points (x − μ) / |x − μ| per centre, to rounding.
    for (xs, g) in [(&few, &g_few), (&many, &g_many)] {
        for (ik, mu) in means.chunks(d).enumerate() {
            let mut want = vec![0.0; d];
            for x in xs.chunks(d) {
                let r: Vec<f64> = x.iter().zip(mu).map(|(a, b)| a - b).collect();
                let norm = r.iter().map(|v| v * v).sum::<f64>().sqrt();
                for id in 0..d {
                    want[id] -= r[id] / norm;
                }
            }
            for id in 0..d {
                let scale = want[id].abs().max(1.0);
                assert!(
                    (g[ik * d + id] - want[id]).abs() <= 1e-12 * scale,
                    "{ik} {id}"
                );
            }
        }
    }
}

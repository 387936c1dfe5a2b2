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

//! Threads and reentrancy: the value stacks are per call, their memory per
//! thread; gradients from many threads at once give the same bits as one
//! thread, and a `_grad` that panics midway leaves the thread able to take
//! the next gradient.

#![allow(clippy::needless_range_loop)] // index loops, as users write them

use autodiff::grad;

/// A loop that records (the product's pullback reads `s`) and a branch.
#[grad]
fn recurrence(x: &[f64], a: f64) -> f64 {
    let mut s = 1.0;
    for i in 0..x.len() {
        s = s * a + x[i].sin();
        if s > 10.0 {
            s = s.ln();
        }
    }
    s
}

fn inputs(k: usize) -> (Vec<f64>, f64) {
    let x: Vec<f64> = (0..200)
        .map(|i| ((i * 7 + k) % 13) as f64 * 0.1 - 0.6)
        .collect();
    (x, 0.9 + 0.01 * (k % 5) as f64)
}

#[test]
fn many_threads_give_the_bits_of_one() {
    let expected: Vec<(u64, Vec<u64>, u64)> = (0..16)
        .map(|k| {
            let (x, a) = inputs(k);
            let (v, dx, da) = recurrence_grad(&x, a);
            (
                v.to_bits(),
                dx.iter().map(|d| d.to_bits()).collect(),
                da.to_bits(),
            )
        })
        .collect();
    let handles: Vec<_> = (0..8)
        .map(|t| {
            std::thread::spawn(move || {
                let mut out = Vec::new();
                for round in 0..50 {
                    let k = (t * 3 + round) % 16;
                    let (x, a) = inputs(k);
                    let (v, dx, da) = recurrence_grad(&x, a);
                    out.push((
                        k,
                        (
                            v.to_bits(),
                            dx.iter().map(|d| d.to_bits()).collect::<Vec<_>>(),
                            da.to_bits(),
                        ),
                    ));
                }
                out
            })
        })
        .collect();
    for h in handles {
        for (k, got) in h.join().unwrap() {
            assert_eq!(got, expected[k], "input {k}");
        }
    }
}

/// Indexes out of bounds in the middle of its loop when `n` is too large.
#[grad]
fn reads_past_the_end(x: &[f64], n: usize) -> f64 {
    let mut s = 1.0;
    for i in 0..n {
        s = s * x[i] + 1.0;
    }
    s
}

#[test]
fn a_panic_midway_leaves_the_thread_usable() {
    let x = [0.5, 1.5, 2.5];
    let before = reads_past_the_end_grad(&x, 3);
    for _ in 0..3 {
        let r = std::panic::catch_unwind(|| reads_past_the_end_grad(&x, 5));
        assert!(
            r.is_err(),
            "indexing past the end panics as the function does"
        );
        assert!(std::panic::catch_unwind(|| reads_past_the_end(&x, 5)).is_err());
        // The same thread takes the next gradient, to the bit.
        assert_eq!(reads_past_the_end_grad(&x, 3), before);
        assert_eq!(recurrence_grad(&x, 0.5), recurrence_grad(&x, 0.5));
    }
}

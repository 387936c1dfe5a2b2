//! Checkpointed loops (`#[checkpoint(every = K)]`, `#[checkpoint(snapshots
//! = S)]`): the gradient equals the one without checkpointing bit for bit,
//! for every K and S tried, and the iterations run are the schedule's
//! (counted by the loop body itself).

// Users write index loops; so do these tests.
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

use std::sync::atomic::{AtomicUsize, Ordering};

use autodiff::grad;
use autodiff::runtime::checkpoint::{binomial_advances, Schedule};

/// Iterations of the counted loops below run so far.
static RUNS: AtomicUsize = AtomicUsize::new(0);

fn tick() {
    RUNS.fetch_add(1, Ordering::Relaxed);
}

/// The reference: an explicit heat equation, every step recorded, with a
/// running sum of a nonlinear function of the state.
#[grad(wrt(u0, k))]
fn heat(u0: &[f64], k: f64, steps: usize) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut e = 0.0;
    for _ in 0..steps {
        let mut next = vec![0.0; n];
        next[0] = u[0];
        next[n - 1] = u[n - 1];
        for i in 1..n - 1 {
            next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        e += (next[1] * next[n - 2]).sin();
        u = next;
    }
    u.iter().map(|v| v * v).sum::<f64>() + e
}

#[grad(wrt(u0, k))]
fn heat_every(u0: &[f64], k: f64, steps: usize, every: usize) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut e = 0.0;
    #[checkpoint(every = every)]
    for _ in 0..steps {
        tick();
        let mut next = vec![0.0; n];
        next[0] = u[0];
        next[n - 1] = u[n - 1];
        for i in 1..n - 1 {
            next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        e += (next[1] * next[n - 2]).sin();
        u = next;
    }
    u.iter().map(|v| v * v).sum::<f64>() + e
}

#[grad(wrt(u0, k))]
fn heat_binomial(u0: &[f64], k: f64, steps: usize, snapshots: usize) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut e = 0.0;
    #[autodiff::checkpoint(snapshots = snapshots)]
    for _ in 0..steps {
        tick();
        let mut next = vec![0.0; n];
        next[0] = u[0];
        next[n - 1] = u[n - 1];
        for i in 1..n - 1 {
            next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        e += (next[1] * next[n - 2]).sin();
        u = next;
    }
    u.iter().map(|v| v * v).sum::<f64>() + e
}

fn bits(g: &(f64, Vec<f64>, f64)) -> (u64, Vec<u64>, u64) {
    (
        g.0.to_bits(),
        g.1.iter().map(|v| v.to_bits()).collect(),
        g.2.to_bits(),
    )
}

// The counted functions share RUNS: one test runs them all, in turn.
#[test]
fn checkpointed_gradients_equal_the_recorded_one_bit_for_bit() {
    let u0 = [0.0, 1.0, 2.0, 1.0, 0.3, -0.5, 0.8];
    // A count of 0 (`every = steps / 10` of a short run, trial 10 r804) is
    // taken as 1: `_grad` panicked where the function itself ran. (Here,
    // not in a test of its own: `RUNS` counts every thread's iterations.)
    for steps in [0, 1, 7] {
        let want = bits(&heat_grad(&u0, 0.2, steps));
        assert_eq!(bits(&heat_every_grad(&u0, 0.2, steps, steps / 10)), want);
        assert_eq!(bits(&heat_binomial_grad(&u0, 0.2, steps, 0)), want);
        assert_eq!(heat_every(&u0, 0.2, steps, 0), heat(&u0, 0.2, steps));
    }
    for steps in [0, 1, 2, 7, 10, 33, 100] {
        let want = bits(&heat_grad(&u0, 0.2, steps));
        for every in [1, 2, 3, 10, 64, 1000] {
            RUNS.store(0, Ordering::Relaxed);
            let got = heat_every_grad(&u0, 0.2, steps, every);
            assert_eq!(bits(&got), want, "steps = {steps}, every = {every}");
            // The forward sweep runs every iteration once, the reverse
            // each segment but the last again.
            let s = Schedule::every(every, steps);
            let last = if steps == 0 {
                0
            } else {
                steps - (steps - 1) / every * every
            };
            assert_eq!(RUNS.load(Ordering::Relaxed), steps + (steps - last));
            assert_eq!(s.rerecorded(), steps - last);
        }
        for snapshots in [1, 2, 3, 5, 10] {
            RUNS.store(0, Ordering::Relaxed);
            let got = heat_binomial_grad(&u0, 0.2, steps, snapshots);
            assert_eq!(bits(&got), want, "steps = {steps}, snapshots = {snapshots}");
            // Revolve's count: the fewest plain iterations, plus each
            // iteration recorded once.
            assert_eq!(
                RUNS.load(Ordering::Relaxed),
                binomial_advances(snapshots, steps) + steps,
                "steps = {steps}, snapshots = {snapshots}"
            );
        }
    }
}

/// A recurrent cell as a `#[grad]` function, called in a checkpointed
/// loop whose body branches and keeps a scratch array.
#[grad]
fn cell(h: f64, x: f64, w: f64) -> f64 {
    (w * h + x).tanh()
}

#[grad(wrt(xs, w, h0))]
fn rnn(xs: &[f64], w: f64, h0: f64) -> f64 {
    let mut h = h0;
    let mut peak = 0.0;
    let mut hist = [0.0; 3];
    for t in 0..xs.len() {
        let mut scratch = [0.0; 2];
        scratch[0] = cell(h, xs[t], w);
        scratch[1] = scratch[0] * xs[t];
        if scratch[1] > peak {
            peak = scratch[1];
        } else {
            peak = 0.5 * peak + 0.1 * scratch[1];
        }
        hist[t % 3] += scratch[0];
        h = scratch[0];
    }
    h + peak + hist[0] * hist[1] - hist[2]
}

#[grad(wrt(xs, w, h0))]
fn rnn_every(xs: &[f64], w: f64, h0: f64) -> f64 {
    let mut h = h0;
    let mut peak = 0.0;
    let mut hist = [0.0; 3];
    #[checkpoint(every = 4)]
    for t in 0..xs.len() {
        let mut scratch = [0.0; 2];
        scratch[0] = cell(h, xs[t], w);
        scratch[1] = scratch[0] * xs[t];
        if scratch[1] > peak {
            peak = scratch[1];
        } else {
            peak = 0.5 * peak + 0.1 * scratch[1];
        }
        hist[t % 3] += scratch[0];
        h = scratch[0];
    }
    h + peak + hist[0] * hist[1] - hist[2]
}

#[grad(wrt(xs, w, h0))]
fn rnn_binomial(xs: &[f64], w: f64, h0: f64) -> f64 {
    let mut h = h0;
    let mut peak = 0.0;
    let mut hist = [0.0; 3];
    #[checkpoint(snapshots = 3)]
    for t in 0..xs.len() {
        let mut scratch = [0.0; 2];
        scratch[0] = cell(h, xs[t], w);
        scratch[1] = scratch[0] * xs[t];
        if scratch[1] > peak {
            peak = scratch[1];
        } else {
            peak = 0.5 * peak + 0.1 * scratch[1];
        }
        hist[t % 3] += scratch[0];
        h = scratch[0];
    }
    h + peak + hist[0] * hist[1] - hist[2]
}

#[test]
fn a_recurrent_chain_with_calls_branches_and_arrays() {
    for len in [1, 5, 17, 40] {
        let xs: Vec<f64> = (0..len)
            .map(|t| ((t * 7 % 11) as f64 - 5.0) / 4.0)
            .collect();
        for (w, h0) in [(0.8, 0.1), (-1.3, 0.7), (2.1, -0.4)] {
            let want = rnn_grad(&xs, w, h0);
            let every = rnn_every_grad(&xs, w, h0);
            let binomial = rnn_binomial_grad(&xs, w, h0);
            let b = |g: &(f64, Vec<f64>, f64, f64)| {
                (
                    g.0.to_bits(),
                    g.1.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    g.2.to_bits(),
                    g.3.to_bits(),
                )
            };
            assert_eq!(b(&every), b(&want), "len = {len}");
            assert_eq!(b(&binomial), b(&want), "len = {len}");
        }
    }
}

/// The reference texts' case 9: a chain of eight layers y = tanh(w·y + b),
/// checkpointed every two layers, against the layer-by-layer derivative.
#[grad(wrt(w, x))]
fn chain(w: &[f64], x: f64) -> f64 {
    let mut y = x;
    #[checkpoint(every = 2)]
    for l in 0..8 {
        y = (w[l] * y + 0.1).tanh();
    }
    y
}

#[test]
fn the_reference_texts_checkpointed_chain() {
    let w = [0.9, -1.1, 0.7, 1.3, -0.8, 1.0, 0.6, -1.2];
    let x = 0.5;
    let (y, dw, dx) = chain_grad(&w, x);
    // Forward values, then the chain rule backwards by hand.
    let mut ys = vec![x];
    for l in 0..8 {
        let prev = ys[l];
        ys.push((w[l] * prev + 0.1).tanh());
    }
    assert_eq!(y.to_bits(), ys[8].to_bits());
    let mut g = 1.0;
    let mut want = [0.0; 8];
    for l in (0..8).rev() {
        let d = g * (1.0 - ys[l + 1] * ys[l + 1]);
        want[l] = d * ys[l];
        g = d * w[l];
    }
    for l in 0..8 {
        approx::assert_relative_eq!(dw[l], want[l], max_relative = 1e-14);
    }
    approx::assert_relative_eq!(dx, g, max_relative = 1e-14);
}

/// A loop whose unguarded reverse sweep meets 0 · ∞ (the derivative of
/// √x at 0, times a zero adjoint): the gradient runs the forward sweep and
/// the guarded reverse sweep again, as the recorded one does, and both
/// agree with the function without checkpointing to the bit, the sign of
/// a zero included.
#[grad]
fn rooted(x: f64, y: f64) -> f64 {
    let mut s = y;
    #[checkpoint(snapshots = 2)]
    for _ in 0..5 {
        s = s * y + 0.0 * x.sqrt();
    }
    s
}

#[grad]
fn rooted_recorded(x: f64, y: f64) -> f64 {
    let mut s = y;
    for _ in 0..5 {
        s = s * y + 0.0 * x.sqrt();
    }
    s
}

#[test]
fn a_nan_in_the_first_attempt_runs_the_guarded_sweep_again() {
    for (x, y) in [(0.0, 0.5), (1.361, -0.7), (4.0, 1.1)] {
        let (v, dx, dy) = rooted_grad(x, y);
        let (w, ex, ey) = rooted_recorded_grad(x, y);
        assert_eq!(v.to_bits(), w.to_bits());
        assert_eq!(dx.to_bits(), ex.to_bits(), "x = {x}");
        assert_eq!(dy.to_bits(), ey.to_bits(), "x = {x}");
        assert!(!dx.is_nan());
        assert_eq!(dx, 0.0);
        approx::assert_relative_eq!(dy, 6.0 * y.powi(5), max_relative = 1e-14);
    }
}

/// The differential tester's finding: a zero gradient entry came out +0.0
/// checkpointed and −0.0 recorded (the first attempt's sign).
#[grad]
fn overwritten(x1: f64) -> f64 {
    let mut s = (x1 * x1).recip();
    #[checkpoint(every = 2)]
    for _i in 0..4 {
        s = 2.5;
    }
    s
}

#[grad]
fn overwritten_recorded(x1: f64) -> f64 {
    let mut s = (x1 * x1).recip();
    for _i in 0..4 {
        s = 2.5;
    }
    s
}

#[test]
fn a_zero_gradient_keeps_the_sign_it_has_without_checkpointing() {
    for x in [1.361, -0.2, 7.0] {
        let (a, da) = overwritten_grad(x);
        let (b, db) = overwritten_recorded_grad(x);
        assert_eq!((a.to_bits(), da.to_bits()), (b.to_bits(), db.to_bits()));
    }
}

/// The differential tester's second finding: a checkpointed loop that
/// reads an array the function changes after it computed its iterations
/// again, in the reverse sweep, from the array as it was at the end
/// (d/dy came out x, 0.5, against 0). The array is copied at the loop's
/// start and put back before its reverse.
#[grad]
fn read_then_changed(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    let mut v = vec![0.0; 2];
    #[checkpoint(every = 1)]
    for _i in 0..2 {
        s += y * v[0] + (y * v[1]).sin();
    }
    v[0] = x;
    v[1] = x * x;
    s + v[0] * v[1]
}

#[grad]
fn read_then_changed_recorded(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    let mut v = vec![0.0; 2];
    for _i in 0..2 {
        s += y * v[0] + (y * v[1]).sin();
    }
    v[0] = x;
    v[1] = x * x;
    s + v[0] * v[1]
}

#[grad]
fn shift(ss0: &[f64], sk0: f64) -> Vec<f64> {
    let mut out = vec![0.0; ss0.len()];
    for i in 0..ss0.len() {
        out[i] = ss0[i] + sk0;
    }
    out
}

#[grad]
fn replaced_after(x2: f64, xs0: &[f64]) -> f64 {
    let mut v8 = vec![0.0; 4];
    let mut v9: Vec<f64> = vec![0.5; 4];
    #[checkpoint(snapshots = 2)]
    for i in 0..xs0.len() {
        let a = v9[0] * xs0[i];
        v8 = shift(&v8, x2 * a);
    }
    v9 = shift(&v9, 1.0);
    v8[3] + v9[1]
}

#[grad]
fn replaced_after_recorded(x2: f64, xs0: &[f64]) -> f64 {
    let mut v8 = vec![0.0; 4];
    let mut v9: Vec<f64> = vec![0.5; 4];
    for i in 0..xs0.len() {
        let a = v9[0] * xs0[i];
        v8 = shift(&v8, x2 * a);
    }
    v9 = shift(&v9, 1.0);
    v8[3] + v9[1]
}

#[test]
fn arrays_changed_after_the_loop_are_read_as_they_were() {
    for (x, y) in [(0.5, 0.7), (-1.2, 2.0)] {
        let a = read_then_changed_grad(x, y);
        let b = read_then_changed_recorded_grad(x, y);
        assert_eq!(
            (a.0.to_bits(), a.1.to_bits(), a.2.to_bits()),
            (b.0.to_bits(), b.1.to_bits(), b.2.to_bits())
        );
        assert_eq!(a.2, 0.0);
    }
    let xs = [0.1, 0.2, 0.3];
    let (a, da, dxs) = replaced_after_grad(0.5, &xs);
    let (b, db, exs) = replaced_after_recorded_grad(0.5, &xs);
    assert_eq!((a.to_bits(), da.to_bits()), (b.to_bits(), db.to_bits()));
    assert_eq!(dxs, exs);
    // v8[3] = Σ x2 · 0.5 · xs[i]: d/dx2 = 0.5 · 0.6.
    approx::assert_relative_eq!(da, 0.3, max_relative = 1e-15);
}

/// The differential tester's third finding: where the recorded gradient
/// runs guarded at once (a loop records a value of a type the source does
/// not state), the checkpointed one took the unguarded first attempt, and
/// a zero came out −0.0 against +0.0. Both now make the same choice.
const OFFSET: f64 = -0.71;

#[grad]
fn guarded_once(x0: f64, x1: f64) -> f64 {
    let mut s = 0.5;
    #[checkpoint(every = 1)]
    for _i in 0..2 {
        s += x0 * 0.5;
    }
    let mut t = OFFSET;
    for _k in 0..2 {
        t = t * 0.5 + s;
    }
    let v = [x1.abs(), 1.0];
    t + v[1]
}

#[grad]
fn guarded_once_recorded(x0: f64, x1: f64) -> f64 {
    let mut s = 0.5;
    for _i in 0..2 {
        s += x0 * 0.5;
    }
    let mut t = OFFSET;
    for _k in 0..2 {
        t = t * 0.5 + s;
    }
    let v = [x1.abs(), 1.0];
    t + v[1]
}

#[test]
fn the_first_attempt_is_taken_where_the_recorded_gradient_takes_it() {
    for (x0, x1) in [(0.3, -0.8), (1.0, 2.0)] {
        let a = guarded_once_grad(x0, x1);
        let b = guarded_once_recorded_grad(x0, x1);
        assert_eq!(
            (a.0.to_bits(), a.1.to_bits(), a.2.to_bits()),
            (b.0.to_bits(), b.1.to_bits(), b.2.to_bits())
        );
    }
}

// ---- a `Vec` a call returns, replaced in a checkpointed loop ------------

#[grad]
fn layer(w: f64, h: &[f64]) -> Vec<f64> {
    h.iter().map(|x| (w * x + 0.1).tanh()).collect()
}

/// The state a call's `Vec` (`h = layer(w, &h)`), checkpointed every two
/// steps and by snapshots (trial 13 B3: E0382 inside the expansion, the
/// variable moved after the loop that the reverse schedule runs again).
#[grad]
fn deep_every(w: f64, x0: &[f64]) -> f64 {
    let mut h = layer(w, x0);
    #[checkpoint(every = 2)]
    for _ in 0..5 {
        h = layer(w, &h);
    }
    h[0] + 2.0 * h[1]
}

#[grad]
fn deep_snapshots(w: f64, x0: &[f64]) -> f64 {
    let mut h = layer(w, x0);
    #[checkpoint(snapshots = 2)]
    for _ in 0..5 {
        h = layer(w, &h);
    }
    h[0] + 2.0 * h[1]
}

#[grad]
fn deep_recorded(w: f64, x0: &[f64]) -> f64 {
    let mut h = layer(w, x0);
    for _ in 0..5 {
        h = layer(w, &h);
    }
    h[0] + 2.0 * h[1]
}

#[test]
fn a_calls_vec_replaced_in_a_checkpointed_loop() {
    for (w, x0) in [(0.8, [0.5, -1.0]), (-1.3, [2.0, 0.25])] {
        let recorded = deep_recorded_grad(w, &x0);
        assert_eq!(recorded.0, deep_recorded(w, &x0));
        let h = 1e-6;
        let fw = (deep_recorded(w + h, &x0) - deep_recorded(w - h, &x0)) / (2.0 * h);
        assert!((recorded.1 - fw).abs() < 1e-6 * fw.abs().max(1.0));
        assert_eq!(deep_every_grad(w, &x0), recorded);
        assert_eq!(deep_snapshots_grad(w, &x0), recorded);
    }
}

//! Checkpointed loops (issue 26, item 4): what `#[checkpoint(every = K)]`
//! and `#[checkpoint(snapshots = S)]` on a time loop cost in time and save
//! in memory, against the same loop recorded whole.
//!
//! - A 1-D explicit heat equation, n = 1,000 cells, 10,000 steps, the
//!   boundaries held, loss = Σ u² of the final state plus a running
//!   Σ sin(u[1]·u[n−2]) so that the recording is not linear: recorded,
//!   every = 100, snapshots = 10 and 20; the function alone; hand-written
//!   adjoints: every state kept in one `Vec` (allocated by each call, and,
//!   timed only, kept from one call to the next as the generated code's
//!   value stacks are), and one with its own every-100 checkpointing.
//! - The reference texts' chain of eight layers y = tanh(w[l]·y + b):
//!   recorded, every = 2, snapshots = 3.
//! - An RNN of 1,000 steps with a hidden state of 32,
//!   h'[i] = tanh(Σⱼ W[i][j]·h[j] + U[i]·x[t] + b[i]), loss = Σ h:
//!   recorded, every = 32 (≈ √1000, the every-K memory optimum),
//!   snapshots = 10.
//!
//! Before criterion runs, the bench checks that every checkpointed
//! gradient equals the recorded one bit for bit (the hand-written ones to
//! 1e-12), and prints the peak heap bytes of one call of each variant
//! (a counting global allocator, below; each call on a fresh thread, so
//! that no value-stack memory pooled by an earlier call hides its own)
//! and Revolve's predicted loop iterations.

// Users write index loops; so do these functions.
#![allow(clippy::needless_range_loop)]

mod common;

use std::hint::black_box;
use std::time::Duration;

use autodiff::grad;
use autodiff::runtime::checkpoint::{binomial_advances, Schedule};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};

// ------------------------------------------------------------- memory --

#[path = "../../examples/support/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;

/// One call of `f` on a thread of its own: the peak of bytes allocated at
/// once while it runs, above what was allocated before it, and the bytes
/// still held when it has returned (its result, and what the thread's
/// value-stack pool keeps for the next call: `autodiff::runtime::stack`).
/// A fresh thread, because that pool is per thread: a call after another
/// on the same thread takes the blocks the first gave back and allocates
/// nothing for them, and its peak would not show them.
fn peak<R: Send>(f: impl FnOnce() -> R + Send) -> (usize, usize, R) {
    std::thread::scope(|s| {
        s.spawn(|| {
            let base = counting_alloc::start();
            let r = f();
            let peak = counting_alloc::peak_since(base);
            let held = counting_alloc::held_since(base);
            (peak, held, r)
        })
        .join()
        .expect("the measured call panicked")
    })
}

// --------------------------------------------------------------- heat --

const CELLS: usize = 1_000;
const STEPS: usize = 10_000;
const K: f64 = 0.2;

/// The heat equation as a user writes it, once per attribute on the time
/// loop (none, or a checkpoint).
macro_rules! heat {
    ($name:ident $(, $attr:meta)?) => {
        #[grad(wrt(u0, k))]
        fn $name(u0: &[f64], k: f64, steps: usize) -> f64 {
            let n = u0.len();
            let mut u = u0.to_vec();
            let mut e = 0.0;
            $(#[$attr])?
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
    };
}

heat!(heat);
heat!(heat_every_100, checkpoint(every = 100));
heat!(heat_snapshots_10, checkpoint(snapshots = 10));
heat!(heat_snapshots_20, checkpoint(snapshots = 20));

/// One step, `u` into `next`.
fn heat_step(u: &[f64], next: &mut [f64], k: f64) {
    let n = u.len();
    next[0] = u[0];
    next[n - 1] = u[n - 1];
    for i in 1..n - 1 {
        next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    }
}

/// The reverse of one step from state `u`: the adjoint `g` of the state
/// after it into `du`, the adjoint of the state before; returns the step's
/// contribution to ∂/∂k. Needs n ≥ 4.
fn heat_step_adjoint(u: &[f64], g: &[f64], k: f64, du: &mut [f64]) -> f64 {
    let n = u.len();
    let mut dk = 0.0;
    for i in 1..n - 1 {
        dk += g[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    }
    // Cell j feeds the interior cells j − 1, j, j + 1; a boundary cell
    // feeds itself and its one interior neighbour.
    let c = 1.0 - 2.0 * k;
    du[0] = g[0] + k * g[1];
    du[1] = c * g[1] + k * g[2];
    for j in 2..n - 2 {
        du[j] = c * g[j] + k * (g[j - 1] + g[j + 1]);
    }
    du[n - 2] = c * g[n - 2] + k * g[n - 3];
    du[n - 1] = g[n - 1] + k * g[n - 2];
    dk
}

/// The running term's adjoint: sin(next[1]·next[n−2]) into `g`.
fn heat_sin_adjoint(next: &[f64], g: &mut [f64]) {
    let n = next.len();
    let c = (next[1] * next[n - 2]).cos();
    g[1] += c * next[n - 2];
    g[n - 2] += c * next[1];
}

/// The gradient by hand: the forward pass writes every state into one
/// `Vec` of (steps + 1)·n, the reverse pass reads them back.
fn heat_hand(u0: &[f64], k: f64, steps: usize) -> (f64, Vec<f64>, f64) {
    heat_hand_in(&mut Vec::new(), u0, k, steps)
}

/// [`heat_hand`] with the states' `Vec` the caller's, kept from one call
/// to the next (as the generated code keeps its value stacks): no pages
/// to fault in again on each call.
fn heat_hand_in(states: &mut Vec<f64>, u0: &[f64], k: f64, steps: usize) -> (f64, Vec<f64>, f64) {
    let n = u0.len();
    states.resize((steps + 1) * n, 0.0);
    states[..n].copy_from_slice(u0);
    let mut e = 0.0;
    for t in 0..steps {
        let (done, rest) = states.split_at_mut((t + 1) * n);
        let next = &mut rest[..n];
        heat_step(&done[t * n..], next, k);
        e += (next[1] * next[n - 2]).sin();
    }
    let last = &states[steps * n..];
    let loss = last.iter().map(|v| v * v).sum::<f64>() + e;
    let mut g: Vec<f64> = last.iter().map(|v| 2.0 * v).collect();
    let mut du = vec![0.0; n];
    let mut dk = 0.0;
    for t in (0..steps).rev() {
        heat_sin_adjoint(&states[(t + 1) * n..(t + 2) * n], &mut g);
        dk += heat_step_adjoint(&states[t * n..(t + 1) * n], &g, k, &mut du);
        std::mem::swap(&mut g, &mut du);
    }
    (loss, g, dk)
}

/// The gradient by hand with every-`every` checkpointing: the forward pass
/// keeps the state at the start of each segment and the last segment's
/// states; the reverse pass recomputes each earlier segment into the same
/// buffer before reversing it.
fn heat_hand_every(u0: &[f64], k: f64, steps: usize, every: usize) -> (f64, Vec<f64>, f64) {
    let n = u0.len();
    let segments = steps.div_ceil(every);
    let mut starts = vec![0.0; segments * n];
    // Slot j: the segment's state after j steps.
    let mut buf = vec![0.0; (every + 1) * n];
    buf[..n].copy_from_slice(u0);
    let run = |buf: &mut [f64], len: usize, e: &mut f64| {
        for j in 0..len {
            let (done, rest) = buf.split_at_mut((j + 1) * n);
            let next = &mut rest[..n];
            heat_step(&done[j * n..], next, k);
            *e += (next[1] * next[n - 2]).sin();
        }
    };
    let len = |s: usize| every.min(steps - s * every);
    let mut e = 0.0;
    for s in 0..segments {
        starts[s * n..(s + 1) * n].copy_from_slice(&buf[..n]);
        run(&mut buf, len(s), &mut e);
        if s + 1 < segments {
            buf.copy_within(len(s) * n..(len(s) + 1) * n, 0);
        }
    }
    let last = &buf[len(segments - 1) * n..(len(segments - 1) + 1) * n];
    let loss = last.iter().map(|v| v * v).sum::<f64>() + e;
    let mut g: Vec<f64> = last.iter().map(|v| 2.0 * v).collect();
    let mut du = vec![0.0; n];
    let mut dk = 0.0;
    for s in (0..segments).rev() {
        if s + 1 < segments {
            buf[..n].copy_from_slice(&starts[s * n..(s + 1) * n]);
            run(&mut buf, len(s), &mut 0.0);
        }
        for j in (0..len(s)).rev() {
            heat_sin_adjoint(&buf[(j + 1) * n..(j + 2) * n], &mut g);
            dk += heat_step_adjoint(&buf[j * n..(j + 1) * n], &g, k, &mut du);
            std::mem::swap(&mut g, &mut du);
        }
    }
    (loss, g, dk)
}

// -------------------------------------------------------------- chain --

/// The reference texts' chain of eight layers.
macro_rules! chain {
    ($name:ident $(, $attr:meta)?) => {
        #[grad(wrt(w, b, x))]
        fn $name(w: &[f64], b: f64, x: f64) -> f64 {
            let mut y = x;
            $(#[$attr])?
            for l in 0..8 {
                y = (w[l] * y + b).tanh();
            }
            y
        }
    };
}

chain!(chain);
chain!(chain_every_2, checkpoint(every = 2));
chain!(chain_snapshots_3, checkpoint(snapshots = 3));

// ---------------------------------------------------------------- rnn --

const HIDDEN: usize = 32;
const T: usize = 1_000;

/// A recurrent network over `xs`: `w` the hidden-to-hidden weights row by
/// row, `u` the input weights, `b` the biases.
macro_rules! rnn {
    ($name:ident $(, $attr:meta)?) => {
        #[grad(wrt(w, u, b))]
        fn $name(w: &[f64], u: &[f64], b: &[f64], h0: &[f64], xs: &[f64]) -> f64 {
            let m = h0.len();
            let mut h = h0.to_vec();
            $(#[$attr])?
            for t in 0..xs.len() {
                let mut next = vec![0.0; m];
                for i in 0..m {
                    let mut s = u[i] * xs[t] + b[i];
                    for j in 0..m {
                        s += w[i * m + j] * h[j];
                    }
                    next[i] = s.tanh();
                }
                h = next;
            }
            h.iter().sum::<f64>()
        }
    };
}

rnn!(rnn);
rnn!(rnn_every_32, checkpoint(every = 32));
rnn!(rnn_snapshots_10, checkpoint(snapshots = 10));

// ------------------------------------------------------------ checks --

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn heat_bits(g: &(f64, Vec<f64>, f64)) -> Vec<u64> {
    [bits(&[g.0]), bits(&g.1), bits(&[g.2])].concat()
}

/// Bytes in a readable unit.
fn human(bytes: usize) -> String {
    let b = bytes as f64;
    if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{bytes} B")
    }
}

/// A variant's row: its name, peak bytes of one call, bytes held after
/// it, and its checkpointing schedule.
type Row<'a> = (&'a str, usize, usize, Option<Schedule>);

/// One row per variant: its peak bytes, their ratio to the recorded
/// gradient's, what stays held after the call, and the iterations its
/// schedule runs (plain and recorded) over the loop's.
fn table(title: &str, steps: usize, rows: &[Row], recorded: usize) {
    println!("\n### {title}\n");
    println!(
        "| variant | peak heap, bytes | ÷ recorded | held after the call | \
         states stored | loop iterations run | ÷ iterations |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, bytes, held, schedule) in rows {
        let (slots, run, ratio) = match schedule {
            Some(s) => {
                let run = steps + s.rerecorded() + s.recomputed();
                (
                    s.slots().to_string(),
                    run.to_string(),
                    format!("{:.3}", run as f64 / steps as f64),
                )
            }
            None => Default::default(),
        };
        println!(
            "| {name} | {bytes} ({}) | {:.4} | {} | {slots} | {run} | {ratio} |",
            human(*bytes),
            *bytes as f64 / recorded as f64,
            human(*held),
        );
    }
}

/// Revolve's count for a binomial schedule: `binomial_advances(S, n)`
/// plain steps plus n recorded.
fn revolve(steps: usize, snapshots: &[usize]) {
    println!();
    println!("| snapshots S | binomial_advances(S, n) | + n recorded | ÷ n |");
    println!("|---:|---:|---:|---:|");
    for &s in snapshots {
        let a = binomial_advances(s, steps);
        println!(
            "| {s} | {a} | {} | {:.3} |",
            a + steps,
            (a + steps) as f64 / steps as f64
        );
    }
}

struct Heat {
    u0: Vec<f64>,
}

struct Rnn {
    w: Vec<f64>,
    u: Vec<f64>,
    b: Vec<f64>,
    h0: Vec<f64>,
    xs: Vec<f64>,
}

const CHAIN_W: [f64; 8] = [0.9, -1.1, 0.7, 1.3, -0.8, 1.0, 0.6, -1.2];

fn heat_problem() -> Heat {
    let mut rng = common::Rng::new(0x4ea7);
    let u0 = (0..CELLS)
        .map(|i| (i as f64 * 0.01).sin() + 0.1 * rng.uniform())
        .collect();
    Heat { u0 }
}

fn rnn_problem() -> Rnn {
    let mut rng = common::Rng::new(0x2a11);
    let scale = 1.0 / (HIDDEN as f64).sqrt();
    Rnn {
        w: rng.uniform_vec(HIDDEN * HIDDEN, -scale, scale),
        u: rng.uniform_vec(HIDDEN, -1.0, 1.0),
        b: rng.uniform_vec(HIDDEN, -0.1, 0.1),
        h0: rng.uniform_vec(HIDDEN, -0.5, 0.5),
        xs: rng.uniform_vec(T, -1.0, 1.0),
    }
}

/// Checks every variant against the recorded gradient, then prints the
/// memory tables: once, before criterion times anything.
fn check_and_measure() {
    println!("\n## Checkpointed loops: peak heap bytes of one call\n");
    println!(
        "Counted by the bench's global allocator: the peak of bytes allocated at \
         once during one call, on a fresh thread (the returned gradient included)."
    );

    let h = heat_problem();
    let u0 = &h.u0;
    let (f_bytes, f_held, v) = peak(|| heat(u0, K, STEPS));
    let (rec_bytes, rec_held, want) = peak(|| heat_grad(u0, K, STEPS));
    assert_eq!(v.to_bits(), want.0.to_bits());
    let (every_bytes, every_held, every) = peak(|| heat_every_100_grad(u0, K, STEPS));
    assert_eq!(heat_bits(&every), heat_bits(&want), "heat, every = 100");
    let (s10_bytes, s10_held, s10) = peak(|| heat_snapshots_10_grad(u0, K, STEPS));
    assert_eq!(heat_bits(&s10), heat_bits(&want), "heat, snapshots = 10");
    let (s20_bytes, s20_held, s20) = peak(|| heat_snapshots_20_grad(u0, K, STEPS));
    assert_eq!(heat_bits(&s20), heat_bits(&want), "heat, snapshots = 20");
    let (hand_bytes, hand_held, hand) = peak(|| heat_hand(u0, K, STEPS));
    let (hand_every_bytes, hand_every_held, hand_every) =
        peak(|| heat_hand_every(u0, K, STEPS, 100));
    for (what, got) in [
        ("hand-written", &hand),
        ("hand-written every 100", &hand_every),
    ] {
        assert!(
            (got.0 - want.0).abs() <= 1e-12 * want.0.abs(),
            "{what}: value"
        );
        common::assert_close(what, &got.1, &want.1, 1e-12);
        assert!(
            (got.2 - want.2).abs() <= 1e-12 * want.2.abs(),
            "{what}: ∂/∂k"
        );
    }
    table(
        &format!("Heat equation, n = {CELLS}, {STEPS} steps"),
        STEPS,
        &[
            ("function", f_bytes, f_held, None),
            ("recorded (#[grad])", rec_bytes, rec_held, None),
            (
                "every = 100",
                every_bytes,
                every_held,
                Some(Schedule::every(100, STEPS)),
            ),
            (
                "snapshots = 10",
                s10_bytes,
                s10_held,
                Some(Schedule::binomial(10, STEPS)),
            ),
            (
                "snapshots = 20",
                s20_bytes,
                s20_held,
                Some(Schedule::binomial(20, STEPS)),
            ),
            ("hand-written, all states", hand_bytes, hand_held, None),
            (
                "hand-written, every 100",
                hand_every_bytes,
                hand_every_held,
                None,
            ),
        ],
        rec_bytes,
    );
    revolve(STEPS, &[10, 20]);

    let x = 0.5;
    let (cf_bytes, cf_held, cv) = peak(|| chain(&CHAIN_W, 0.1, x));
    let (crec_bytes, crec_held, cwant) = peak(|| chain_grad(&CHAIN_W, 0.1, x));
    assert_eq!(cv.to_bits(), cwant.0.to_bits());
    let cb = |g: &(f64, Vec<f64>, f64, f64)| [bits(&[g.0, g.2, g.3]), bits(&g.1)].concat();
    let (c2_bytes, c2_held, c2) = peak(|| chain_every_2_grad(&CHAIN_W, 0.1, x));
    assert_eq!(cb(&c2), cb(&cwant), "chain, every = 2");
    let (c3_bytes, c3_held, c3) = peak(|| chain_snapshots_3_grad(&CHAIN_W, 0.1, x));
    assert_eq!(cb(&c3), cb(&cwant), "chain, snapshots = 3");
    table(
        "Chain of eight layers",
        8,
        &[
            ("function", cf_bytes, cf_held, None),
            ("recorded (#[grad])", crec_bytes, crec_held, None),
            ("every = 2", c2_bytes, c2_held, Some(Schedule::every(2, 8))),
            (
                "snapshots = 3",
                c3_bytes,
                c3_held,
                Some(Schedule::binomial(3, 8)),
            ),
        ],
        crec_bytes,
    );
    revolve(8, &[3]);

    let r = rnn_problem();
    let args = (&r.w[..], &r.u[..], &r.b[..], &r.h0[..], &r.xs[..]);
    let (w, u, b, h0, xs) = args;
    let (rf_bytes, rf_held, rv) = peak(|| rnn(w, u, b, h0, xs));
    let (rrec_bytes, rrec_held, rwant) = peak(|| rnn_grad(w, u, b, h0, xs));
    assert_eq!(rv.to_bits(), rwant.0.to_bits());
    let rb = |g: &(f64, Vec<f64>, Vec<f64>, Vec<f64>)| {
        [bits(&[g.0]), bits(&g.1), bits(&g.2), bits(&g.3)].concat()
    };
    let (r32_bytes, r32_held, r32) = peak(|| rnn_every_32_grad(w, u, b, h0, xs));
    assert_eq!(rb(&r32), rb(&rwant), "rnn, every = 32");
    let (r10_bytes, r10_held, r10) = peak(|| rnn_snapshots_10_grad(w, u, b, h0, xs));
    assert_eq!(rb(&r10), rb(&rwant), "rnn, snapshots = 10");
    table(
        &format!("RNN, hidden {HIDDEN}, {T} steps"),
        T,
        &[
            ("function", rf_bytes, rf_held, None),
            ("recorded (#[grad])", rrec_bytes, rrec_held, None),
            (
                "every = 32",
                r32_bytes,
                r32_held,
                Some(Schedule::every(32, T)),
            ),
            (
                "snapshots = 10",
                r10_bytes,
                r10_held,
                Some(Schedule::binomial(10, T)),
            ),
        ],
        rrec_bytes,
    );
    revolve(T, &[10]);
    println!();
}

// ------------------------------------------------------------- timing --

fn heat_bench(c: &mut Criterion) {
    check_and_measure();
    let h = heat_problem();
    let mut g = c.benchmark_group(format!("heat n={CELLS} steps={STEPS}"));
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    g.bench_function("function", |bch| {
        bch.iter(|| heat(black_box(&h.u0), K, STEPS))
    });
    g.bench_function("recorded", |bch| {
        bch.iter(|| heat_grad(black_box(&h.u0), K, STEPS))
    });
    g.bench_function("every = 100", |bch| {
        bch.iter(|| heat_every_100_grad(black_box(&h.u0), K, STEPS))
    });
    g.bench_function("snapshots = 10", |bch| {
        bch.iter(|| heat_snapshots_10_grad(black_box(&h.u0), K, STEPS))
    });
    g.bench_function("snapshots = 20", |bch| {
        bch.iter(|| heat_snapshots_20_grad(black_box(&h.u0), K, STEPS))
    });
    g.bench_function("hand-written", |bch| {
        bch.iter(|| heat_hand(black_box(&h.u0), K, STEPS))
    });
    let mut states = Vec::new();
    g.bench_function("hand-written, buffer kept", |bch| {
        bch.iter(|| heat_hand_in(&mut states, black_box(&h.u0), K, STEPS))
    });
    g.bench_function("hand-written every 100", |bch| {
        bch.iter(|| heat_hand_every(black_box(&h.u0), K, STEPS, 100))
    });
    g.finish();
}

fn chain_bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("chain of 8 layers");
    g.sample_size(10);
    let x = 0.5;
    g.bench_function("function", |bch| {
        bch.iter(|| chain(black_box(&CHAIN_W), 0.1, black_box(x)))
    });
    g.bench_function("recorded", |bch| {
        bch.iter(|| chain_grad(black_box(&CHAIN_W), 0.1, black_box(x)))
    });
    g.bench_function("every = 2", |bch| {
        bch.iter(|| chain_every_2_grad(black_box(&CHAIN_W), 0.1, black_box(x)))
    });
    g.bench_function("snapshots = 3", |bch| {
        bch.iter(|| chain_snapshots_3_grad(black_box(&CHAIN_W), 0.1, black_box(x)))
    });
    g.finish();
}

fn rnn_bench(c: &mut Criterion) {
    let r = rnn_problem();
    let mut g = c.benchmark_group(format!("rnn hidden={HIDDEN} steps={T}"));
    g.sample_size(10);
    g.bench_function("function", |bch| {
        bch.iter(|| rnn(black_box(&r.w), &r.u, &r.b, &r.h0, &r.xs))
    });
    g.bench_function("recorded", |bch| {
        bch.iter(|| rnn_grad(black_box(&r.w), &r.u, &r.b, &r.h0, &r.xs))
    });
    g.bench_function("every = 32", |bch| {
        bch.iter(|| rnn_every_32_grad(black_box(&r.w), &r.u, &r.b, &r.h0, &r.xs))
    });
    g.bench_function("snapshots = 10", |bch| {
        bch.iter(|| rnn_snapshots_10_grad(black_box(&r.w), &r.u, &r.b, &r.h0, &r.xs))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = heat_bench, chain_bench, rnn_bench
}
criterion_main!(benches);

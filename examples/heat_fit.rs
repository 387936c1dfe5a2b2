//! Fitting a diffusion coefficient: a 1-D heat equation integrated over
//! 2,000 explicit steps, its final profile compared with measurements, and
//! the coefficient found from the generated gradient (secant steps on
//! d misfit / dk).
//! The time loop is checkpointed (`#[checkpoint(snapshots = 10)]`): the
//! example counts the heap it takes with a counting allocator, against the
//! same loop recorded whole, and checks that both gradients agree.
//!
//! ```text
//! cargo run --release --example heat_fit
//! ```

use autodiff::grad;

/// Cells of the rod, and explicit steps (stable for k < 0.5).
const CELLS: usize = 400;
const STEPS: usize = 2_000;

/// Squared misfit between the profile after `STEPS` steps of diffusion
/// with coefficient `k` and the measured profile, with the state replaced
/// each step and only ten states kept for the reverse sweep.
#[grad(wrt(k))]
fn misfit(u0: &[f64], measured: &[f64], k: f64) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    #[checkpoint(snapshots = 10)]
    for _ in 0..STEPS {
        let mut next = vec![0.0; n];
        for i in 1..n - 1 {
            next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        u = next;
    }
    let mut loss = 0.0;
    for i in 0..n {
        loss += (u[i] - measured[i]).powi(2);
    }
    loss
}

/// The same function, every step recorded.
#[grad(wrt(k))]
fn misfit_recorded(u0: &[f64], measured: &[f64], k: f64) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    for _ in 0..STEPS {
        let mut next = vec![0.0; n];
        for i in 1..n - 1 {
            next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        u = next;
    }
    let mut loss = 0.0;
    for i in 0..n {
        loss += (u[i] - measured[i]).powi(2);
    }
    loss
}

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;

/// `f`'s result and the peak of bytes it had allocated at once.
fn measured<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = counting_alloc::start();
    let out = f();
    (out, counting_alloc::peak_since(base))
}

fn main() {
    // A hot spot in the middle of the rod; the "measurements" are its
    // profile after diffusing with k = 0.3.
    let u0: Vec<f64> = (0..CELLS)
        .map(|i| {
            let x = i as f64 / CELLS as f64 - 0.5;
            (-x * x * 400.0).exp()
        })
        .collect();
    let truth = 0.3;
    let measured_profile = {
        // The simulation the function runs, kept for its profile.
        let mut u = u0.clone();
        for _ in 0..STEPS {
            let mut next = vec![0.0; CELLS];
            for i in 1..CELLS - 1 {
                next[i] = u[i] + truth * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
            }
            u = next;
        }
        u
    };
    assert!(misfit(&u0, &measured_profile, truth) < 1e-24);

    // Memory of one gradient, recorded and checkpointed.
    let k = 0.1;
    let ((_, recorded), recorded_bytes) =
        measured(|| misfit_recorded_grad(&u0, &measured_profile, k));
    let ((_, checkpointed), checkpointed_bytes) =
        measured(|| misfit_grad(&u0, &measured_profile, k));
    assert_eq!(recorded.to_bits(), checkpointed.to_bits());
    println!("one gradient, {CELLS} cells x {STEPS} steps:");
    println!(
        "  every step recorded:   {:>10} bytes at peak",
        recorded_bytes
    );
    println!(
        "  snapshots = 10:        {:>10} bytes at peak",
        checkpointed_bytes
    );
    println!(
        "  the same gradient bit for bit, in 1/{:.0} of the memory",
        recorded_bytes as f64 / checkpointed_bytes as f64
    );

    // The misfit is smooth in k: find where its derivative vanishes by the
    // secant method on the generated gradient.
    let (mut k0, mut k1) = (0.1, 0.2);
    let (_, mut g0) = misfit_grad(&u0, &measured_profile, k0);
    for it in 0..20 {
        let (loss, g1) = misfit_grad(&u0, &measured_profile, k1);
        println!("iteration {it:>2}: k = {k1:.8}, misfit = {loss:.3e}, d/dk = {g1:.3e}");
        if g1.abs() < 1e-12 || g1 == g0 {
            break;
        }
        let next = (k1 - g1 * (k1 - k0) / (g1 - g0)).clamp(0.01, 0.49);
        (k0, g0, k1) = (k1, g1, next);
    }
    let k = k1;
    println!("fitted k = {k:.6} (true {truth})");
    assert!((k - truth).abs() < 1e-3, "k = {k}");
}

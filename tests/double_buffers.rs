//! Local `Vec`s of rows and structs replaced whole each time step, the
//! double buffer of a simulation: `pos = next;`, `prev = pos;`,
//! `std::mem::swap(&mut state, &mut next);`, `state.copy_from_slice(&next);`,
//! `state = next.clone();`. Each pair is split into one float `Vec` per
//! position or field, the statement made part by part. Every gradient
//! against central differences (h = 1e-6, relative 1e-6, absolute 1e-8
//! near zero, `differences`) at points spread over the domain, and every
//! value bit for bit against the function.

// Users write index loops and buffers by hand; so do these tests.
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

use autodiff::grad;

mod differences;
use differences::{assert_close, central};

/// A spring chain in the plane, semi-implicit Euler, positions and
/// velocities in `Vec<[f64; 2]>`, each step into fresh buffers that
/// replace the old ones.
#[grad]
fn chain_fresh(x0: &[f64], k: f64, dt: f64) -> f64 {
    let n = x0.len();
    let mut pos: Vec<[f64; 2]> = Vec::with_capacity(n);
    let mut vel: Vec<[f64; 2]> = Vec::with_capacity(n);
    for i in 0..n {
        pos.push([x0[i], 0.5 * (i as f64)]);
        vel.push([0.0, 0.0]);
    }
    for _step in 0..6 {
        let mut next_pos: Vec<[f64; 2]> = vec![[0.0; 2]; n];
        let mut next_vel: Vec<[f64; 2]> = vec![[0.0; 2]; n];
        for i in 0..n {
            for d in 0..2 {
                let mut f = 0.0;
                if i > 0 {
                    f -= k * (pos[i][d] - pos[i - 1][d]);
                }
                if i + 1 < n {
                    f += k * (pos[i + 1][d] - pos[i][d]);
                }
                next_vel[i][d] = vel[i][d] + dt * f;
                next_pos[i][d] = pos[i][d] + dt * next_vel[i][d];
            }
        }
        pos = next_pos;
        vel = next_vel;
    }
    let mut e = 0.0;
    for i in 0..n {
        e += pos[i][0] * pos[i][0] + 0.5 * pos[i][1] * vel[i][0];
    }
    e
}

/// The same chain with two buffers swapped each step.
#[grad]
fn chain_swapped(x0: &[f64], k: f64, dt: f64) -> f64 {
    let n = x0.len();
    let mut pos: Vec<[f64; 2]> = vec![[0.0; 2]; n];
    let mut next: Vec<[f64; 2]> = vec![[0.0; 2]; n];
    for i in 0..n {
        pos[i] = [x0[i], 0.5 * (i as f64)];
    }
    for _step in 0..6 {
        for i in 0..n {
            let left = if i > 0 { pos[i - 1][0] } else { pos[i][0] };
            let right = if i + 1 < n { pos[i + 1][0] } else { pos[i][0] };
            next[i][0] = pos[i][0] + dt * k * (left - 2.0 * pos[i][0] + right);
            next[i][1] = pos[i][1] * (1.0 - dt * k);
        }
        std::mem::swap(&mut pos, &mut next);
    }
    let mut e = 0.0;
    for p in &pos {
        e += p[0] * p[0] + p[1] * p[0];
    }
    e
}

/// Störmer–Verlet with the previous positions kept: `prev = pos; pos =
/// next;`, each `Vec` of `(f64, f64)`.
#[grad]
fn verlet(x0: &[f64], omega: f64) -> f64 {
    let n = x0.len();
    let dt = 0.05;
    let mut pos: Vec<(f64, f64)> = Vec::new();
    let mut prev: Vec<(f64, f64)> = Vec::new();
    for i in 0..n {
        pos.push((x0[i], -x0[i]));
        prev.push((x0[i] * 0.99, -x0[i] * 1.01));
    }
    for _step in 0..8 {
        let mut next: Vec<(f64, f64)> = Vec::with_capacity(n);
        for i in 0..n {
            let (x, y) = pos[i];
            let ax = -omega * omega * x;
            let ay = -omega * y;
            next.push((
                2.0 * x - prev[i].0 + dt * dt * ax,
                2.0 * y - prev[i].1 + dt * dt * ay,
            ));
        }
        prev = pos;
        pos = next;
    }
    pos.iter().map(|p| p.0 * p.1).sum::<f64>() + prev[0].0
}

#[derive(Clone, Copy, Debug)]
struct Particle {
    x: f64,
    v: f64,
}

/// Particles in a `Vec` of structs, the state copied back with
/// `copy_from_slice` and `clone`.
#[grad]
fn particles(x0: &[f64], drag: f64) -> f64 {
    let n = x0.len();
    let mut state: Vec<Particle> = Vec::new();
    for i in 0..n {
        state.push(Particle { x: x0[i], v: 1.0 });
    }
    let mut next = vec![Particle { x: 0.0, v: 0.0 }; n];
    for step in 0..5 {
        for i in 0..n {
            next[i].v = state[i].v - 0.1 * drag * state[i].v * state[i].v.abs();
            next[i].x = state[i].x + 0.1 * next[i].v;
        }
        if step % 2 == 0 {
            state.copy_from_slice(&next);
        } else {
            state = next.clone();
        }
    }
    let mut s = 0.0;
    for p in &state {
        s += p.x * p.x + p.v;
    }
    s
}

fn check(
    f: impl Fn(&[f64], f64) -> f64,
    grad: impl Fn(&[f64], f64) -> (f64, Vec<f64>, f64),
    points: &[(Vec<f64>, f64)],
) {
    for (x, k) in points {
        let (v, dx, dk) = grad(x, *k);
        assert_eq!(v.to_bits(), f(x, *k).to_bits());
        let mut at = x.clone();
        at.push(*k);
        let want = central(|z| f(&z[..x.len()], z[x.len()]), &at);
        let mut got = dx.clone();
        got.push(dk);
        assert_close(&got, &want);
    }
}

fn points() -> Vec<(Vec<f64>, f64)> {
    vec![
        (vec![0.0, 1.0, 2.0, 1.0], 0.7),
        (vec![0.3, -1.2, 0.8, 2.5, -0.4], 1.9),
        (vec![1.0, -3.0, 0.5], 0.2),
    ]
}

#[test]
fn a_vec_of_rows_replaced_by_fresh_buffers_each_step() {
    let f = |x: &[f64], k: f64| chain_fresh(x, k, 0.05);
    let g = |x: &[f64], k: f64| {
        let (v, dx, dk, _ddt) = chain_fresh_grad(x, k, 0.05);
        (v, dx, dk)
    };
    check(f, g, &points());
    // dt too, at one point.
    let x = [0.3, -1.2, 0.8];
    let (_, _, _, ddt) = chain_fresh_grad(&x, 1.1, 0.05);
    let want = central(|z| chain_fresh(&x, 1.1, z[0]), &[0.05]);
    assert_close(&[ddt], &want);
}

#[test]
fn a_vec_of_rows_swapped_with_its_buffer() {
    let f = |x: &[f64], k: f64| chain_swapped(x, k, 0.05);
    let g = |x: &[f64], k: f64| {
        let (v, dx, dk, _) = chain_swapped_grad(x, k, 0.05);
        (v, dx, dk)
    };
    check(f, g, &points());
}

#[test]
fn a_vec_of_tuples_with_the_previous_step_kept() {
    check(verlet, verlet_grad, &points());
}

#[test]
fn a_vec_of_structs_copied_back_each_step() {
    check(particles, particles_grad, &points());
}

/// The buffer made as a copy of the state (`let mut next: Vec<[f64; 2]> =
/// pos.clone();`), swapped each step, and the previous state kept as a
/// copy first (`let mut prev = pos.clone();`) then handed over.
#[grad]
fn copied_buffers(q: f64) -> f64 {
    let mut pos: Vec<[f64; 2]> = vec![[q, 1.0], [0.5, q]];
    let mut next: Vec<[f64; 2]> = pos.clone();
    for _ in 0..3 {
        for i in 0..2 {
            next[i][0] = pos[i][0] * q + pos[1 - i][1];
            next[i][1] = pos[i][1] - 0.1 * q;
        }
        std::mem::swap(&mut pos, &mut next);
    }
    let mut state = vec![(q, 1.0), (0.5, q)];
    let mut prev = state.clone();
    for _ in 0..3 {
        let mut fresh = vec![(0.0, 0.0); 2];
        for i in 0..2 {
            fresh[i].0 = 2.0 * state[i].0 - prev[i].0 + 0.01 * q;
            fresh[i].1 = state[i].1 * q;
        }
        prev = state;
        state = fresh;
    }
    pos[0][0] * pos[1][1] + next[0][1] + state[0].0 * state[1].1 + prev[1].0
}

#[test]
fn buffers_made_as_copies_of_the_state() {
    for q in [0.3, 0.9, -0.7] {
        let (v, d) = copied_buffers_grad(q);
        assert_eq!(v.to_bits(), copied_buffers(q).to_bits());
        let want = central(|z| copied_buffers(z[0]), &[q]);
        assert_close(&[d], &want);
    }
}

/// Upwind advection on a ring, the new state pushed into a buffer emptied
/// at the start of each step and swapped in (trial 10 r714): the buffer
/// is one of the step's (`desugar/hoisted.rs`).
#[grad]
fn advect_cleared(u0: &[f64], c: f64) -> f64 {
    let n = u0.len();
    let mut cur = u0.to_vec();
    let mut next: Vec<f64> = Vec::with_capacity(n);
    for _ in 0..6 {
        next.clear();
        for i in 0..n {
            let left = if i == 0 { cur[n - 1] } else { cur[i - 1] };
            next.push(cur[i] - c * (cur[i] - left));
        }
        std::mem::swap(&mut cur, &mut next);
    }
    cur.iter()
        .enumerate()
        .map(|(i, v)| v * (i as f64 + 1.0))
        .sum::<f64>()
}

/// The same buffer untyped, in a `while` loop, emptied in an inner loop
/// two loops down from its declaration and copied back (`u = next.clone()`).
#[grad]
fn smoothed_cleared(u0: &[f64], k: f64) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next = Vec::new();
    let mut s = 0.0;
    let mut round = 0;
    while round < 2 {
        for _ in 0..3 {
            next.clear();
            next.push(u[0]);
            for i in 1..n - 1 {
                next.push(u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]));
            }
            next.push(u[n - 1] * k.cos());
            u = next.clone();
        }
        s += u[n / 2] * u[n / 2];
        round += 1;
    }
    s + u.iter().sum::<f64>()
}

#[test]
fn a_vec_emptied_and_refilled_by_push_each_step() {
    check(advect_cleared, advect_cleared_grad, &points());
    check(smoothed_cleared, smoothed_cleared_grad, &points());
}

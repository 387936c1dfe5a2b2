//! Time loops as people write them: a state array replaced each step
//! (`u = next`, `std::mem::swap`, `copy_from_slice`, a `#[grad]` step
//! function's result, an ODE's array state), and `Vec`s built by `push`
//! in loops and branches. Every gradient against central differences
//! (h = 1e-6, relative 1e-6, absolute 1e-8 near zero) at points spread
//! over the domain, and every value bit for bit against the function.

// Users write index loops and swaps by hand; so do these tests.
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

use autodiff::grad;

mod differences;
use approx::assert_relative_eq;
use differences::{assert_close, central};

/// Initial profiles and diffusion numbers spread over the stable range.
fn profiles() -> Vec<(Vec<f64>, f64)> {
    vec![
        (vec![0.0, 1.0, 2.0, 1.0, 0.0], 0.1),
        (vec![0.3, -1.2, 0.8, 2.5, -0.4, 1.1], 0.25),
        (vec![1.0, 1.0, -3.0, 0.5], 0.45),
    ]
}

/// Checks `grad` (value, d/du0, d/dk) of `f` against the function and
/// central differences on every profile.
/// A generated `_grad` of `fn(&[f64], f64) -> f64`.
type HeatGrad = fn(&[f64], f64) -> (f64, Vec<f64>, f64);

fn check_heat(f: fn(&[f64], f64) -> f64, grad: HeatGrad) {
    for (u0, k) in profiles() {
        let (y, du, dk) = grad(&u0, k);
        assert_eq!(y.to_bits(), f(&u0, k).to_bits());
        let mut x = u0.clone();
        x.push(k);
        let n = u0.len();
        let want = central(|v| f(&v[..n], v[n]), &x);
        let mut got = du.clone();
        got.push(dk);
        assert_close(&got, &want);
    }
}

/// An explicit heat-equation step into a fresh vector, `u = next`.
#[grad]
fn heat_assign(u0: &[f64], k: f64) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    for _ in 0..20 {
        let mut next = vec![0.0; n];
        next[0] = u[0];
        next[n - 1] = u[n - 1];
        for i in 1..n - 1 {
            next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        u = next;
    }
    u.iter().map(|v| v * v).sum()
}

#[test]
fn a_state_replaced_by_assignment() {
    check_heat(heat_assign, heat_assign_grad);
}

/// Two buffers swapped each step.
#[grad]
fn heat_swap(u0: &[f64], k: f64) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next = u0.to_vec();
    for _ in 0..20 {
        for i in 1..n - 1 {
            next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        std::mem::swap(&mut u, &mut next);
    }
    u.iter().map(|v| v * v).sum()
}

#[test]
fn a_state_swapped_with_its_buffer() {
    check_heat(heat_swap, heat_swap_grad);
}

/// A hoisted buffer copied back.
#[grad]
fn heat_copy(u0: &[f64], k: f64) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..20 {
        next[0] = u[0];
        next[n - 1] = u[n - 1];
        for i in 1..n - 1 {
            next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        u.copy_from_slice(&next);
    }
    u.iter().map(|v| v * v).sum()
}

#[test]
fn a_state_copied_from_a_buffer() {
    check_heat(heat_copy, heat_copy_grad);
}

/// One step as a `#[grad]` function returning a `Vec`.
#[grad]
fn heat_step(u: &[f64], k: f64) -> Vec<f64> {
    let n = u.len();
    let mut next = vec![0.0; n];
    next[0] = u[0];
    next[n - 1] = u[n - 1];
    for i in 1..n - 1 {
        next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    }
    next
}

#[grad]
fn heat_by_steps(u0: &[f64], k: f64) -> f64 {
    let mut u = u0.to_vec();
    for _ in 0..20 {
        let next = heat_step(&u, k);
        u = next;
    }
    u.iter().map(|v| v * v).sum()
}

#[grad]
fn heat_by_steps_inline(u0: &[f64], k: f64) -> f64 {
    let mut u = u0.to_vec();
    for _ in 0..20 {
        u = heat_step(&u, k);
    }
    u.iter().map(|v| v * v).sum()
}

#[test]
fn a_state_replaced_by_a_step_function() {
    check_heat(heat_by_steps, heat_by_steps_grad);
    check_heat(heat_by_steps_inline, heat_by_steps_inline_grad);
    // The same function as the loop written inline, to rounding.
    for (u0, k) in profiles() {
        let (_, a, ka) = heat_by_steps_grad(&u0, k);
        let (_, b, kb) = heat_assign_grad(&u0, k);
        assert_close(&a, &b);
        assert_relative_eq!(ka, kb, max_relative = 1e-12);
    }
}

/// The right-hand side of x'' = −w² x, as an array.
#[grad]
fn oscillator(s: [f64; 2], w: f64) -> [f64; 2] {
    [s[1], -w * w * s[0]]
}

/// One classical Runge–Kutta step, the stages' arguments built inline.
#[grad]
fn rk4_step(s: [f64; 2], w: f64, dt: f64) -> [f64; 2] {
    let k1 = oscillator(s, w);
    let k2 = oscillator([s[0] + 0.5 * dt * k1[0], s[1] + 0.5 * dt * k1[1]], w);
    let k3 = oscillator([s[0] + 0.5 * dt * k2[0], s[1] + 0.5 * dt * k2[1]], w);
    let k4 = oscillator([s[0] + dt * k3[0], s[1] + dt * k3[1]], w);
    [
        s[0] + dt / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]),
        s[1] + dt / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]),
    ]
}

/// x(1) for x(0) = x0, x'(0) = 0.
#[grad]
fn position_at_one(x0: f64, w: f64) -> f64 {
    let mut state = [x0, 0.0];
    for _ in 0..100 {
        state = rk4_step(state, w, 0.01);
    }
    state[0]
}

#[test]
fn an_ode_state_replaced_by_a_runge_kutta_step() {
    for (x0, w) in [(1.0, 2.0), (-0.5, 0.7), (2.0, 3.3)] {
        let (y, dx0, dw) = position_at_one_grad(x0, w);
        assert_eq!(y.to_bits(), position_at_one(x0, w).to_bits());
        let want = central(|v| position_at_one(v[0], v[1]), &[x0, w]);
        assert_close(&[dx0, dw], &want);
        // The exact solution x0 cos(w t), to RK4's accuracy.
        assert_relative_eq!(dx0, w.cos(), epsilon = 1e-8);
        assert_relative_eq!(dw, -x0 * w.sin(), epsilon = 1e-7);
    }
}

/// A fixed-size state given a new array each step: by name, and as a
/// literal that reads the old state.
#[grad]
fn spring(p: [f64; 2], k: f64) -> f64 {
    let mut s = p;
    for _ in 0..50 {
        let a = -k * s[0];
        let n = [s[0] + 0.01 * s[1], s[1] + 0.01 * a];
        s = n;
    }
    for _ in 0..10 {
        s = [s[1], s[0] * 0.5];
    }
    s[0] * s[0] + s[1]
}

#[test]
fn a_fixed_size_state_given_new_arrays() {
    for (p, k) in [([1.0, 0.0], 4.0), ([-0.3, 2.0], 0.5), ([0.7, -1.1], 9.0)] {
        let (y, dp, dk) = spring_grad(p, k);
        assert_eq!(y.to_bits(), spring(p, k).to_bits());
        let want = central(|v| spring([v[0], v[1]], v[2]), &[p[0], p[1], k]);
        assert_close(&[dp[0], dp[1], dk], &want);
    }
}

/// A `while` loop that stops early, with the state replaced, in a generic
/// float type.
#[grad]
fn relax<T: autodiff::Float>(u0: &[T], k: T) -> T {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut steps = 0;
    while steps < 30 {
        let mut next = vec![T::zero(); n];
        for i in 1..n - 1 {
            next[i] = u[i] + k * (u[i - 1] - u[i] - u[i] + u[i + 1]);
        }
        u = next;
        steps += 1;
        if u[1] < T::from_f64(0.05) {
            break;
        }
    }
    let mut s = T::zero();
    for i in 0..n {
        s += u[i] * u[i];
    }
    s
}

#[test]
fn a_while_loop_that_breaks_with_a_generic_state() {
    for (u0, k) in profiles() {
        let (y, du, dk) = relax_grad(&u0, k);
        assert_eq!(y.to_bits(), relax(&u0, k).to_bits());
        let n = u0.len();
        let mut x = u0.clone();
        x.push(k);
        let want = central(|v| relax(&v[..n], v[n]), &x);
        let mut got = du.clone();
        got.push(dk);
        assert_close(&got, &want);
    }
}

/// Single precision, swapped buffers, against the same function in f64.
#[grad]
fn heat_swap_f32(u0: &[f32], k: f32) -> f32 {
    let mut u = u0.to_vec();
    let mut v = vec![0.0f32; u0.len()];
    for _ in 0..4 {
        for i in 1..u.len() - 1 {
            v[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        std::mem::swap(&mut u, &mut v);
    }
    u.iter().map(|z| z * z).sum()
}

#[grad]
fn heat_swap_f64(u0: &[f64], k: f64) -> f64 {
    let mut u = u0.to_vec();
    let mut v = vec![0.0f64; u0.len()];
    for _ in 0..4 {
        for i in 1..u.len() - 1 {
            v[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        std::mem::swap(&mut u, &mut v);
    }
    u.iter().map(|z| z * z).sum()
}

#[test]
fn single_precision_swaps() {
    let u0 = [0.0f32, 1.0, 2.0, 1.0, 0.5];
    let (y, du, dk) = heat_swap_f32_grad(&u0, 0.1);
    assert_eq!(y.to_bits(), heat_swap_f32(&u0, 0.1).to_bits());
    let wide: Vec<f64> = u0.iter().map(|&z| z as f64).collect();
    let (_, du64, dk64) = heat_swap_f64_grad(&wide, 0.1f32 as f64);
    for (a, b) in du.iter().zip(&du64) {
        assert_relative_eq!(*a as f64, *b, max_relative = 1e-5);
    }
    assert_relative_eq!(dk as f64, dk64, max_relative = 1e-5);
    let mut x = wide.clone();
    x.push(0.1f32 as f64);
    assert_close(&central(|v| heat_swap_f64(&v[..5], v[5]), &x), &{
        let mut g = du64.clone();
        g.push(dk64);
        g
    });
}

/// A time loop inside a loop over episodes, each restarting the state
/// with `fill` and returning early once the state grows too large.
#[grad]
fn episodes(u0: &[f64], k: f64) -> f64 {
    let n = u0.len();
    let mut u = vec![0.0; n];
    let mut total = 0.0;
    for e in 0..3 {
        u.fill(0.0);
        for i in 0..n {
            u[i] = u0[i] * (e as f64 + 1.0);
        }
        for _ in 0..5 {
            let mut next = vec![0.0; n];
            for i in 1..n - 1 {
                next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
            }
            u = next;
        }
        total += u[1] * u[2];
        if total > 1e6 {
            return total;
        }
    }
    total
}

#[test]
fn a_time_loop_in_a_loop_with_an_early_return() {
    for (u0, k) in profiles() {
        let (y, du, dk) = episodes_grad(&u0, k);
        assert_eq!(y.to_bits(), episodes(&u0, k).to_bits());
        let n = u0.len();
        let mut x = u0.clone();
        x.push(k);
        let want = central(|v| episodes(&v[..n], v[n]), &x);
        let mut got = du.clone();
        got.push(dk);
        assert_close(&got, &want);
    }
}

/// A `Vec` declared untyped, filled by `push` in both arms of a branch
/// inside a loop: the residuals of a fit.
#[grad]
fn residuals(x: &[f64], a: f64) -> f64 {
    let mut r = Vec::new();
    for i in 0..x.len() {
        if x[i] > 0.0 {
            r.push(a * x[i] - 1.0);
        } else {
            r.push(x[i] * x[i]);
        }
    }
    r.iter().map(|v| v * v).sum()
}

#[test]
fn pushes_in_branch_arms() {
    // r = [a − 1, x1², 3a − 1] at x = [1, −2, 3]: exact.
    let (y, dx, da) = residuals_grad(&[1.0, -2.0, 3.0], 0.5);
    assert_eq!(y, 16.5);
    assert_eq!(dx, [-0.5, -32.0, 0.5]);
    assert_eq!(da, 2.0);
    for (x, a) in [(vec![0.3, -0.7, 1.9, -2.2], 1.3), (vec![-1.0, 2.0], -0.4)] {
        let (y, dx, da) = residuals_grad(&x, a);
        assert_eq!(y.to_bits(), residuals(&x, a).to_bits());
        let n = x.len();
        let mut p = x.clone();
        p.push(a);
        let mut got = dx.clone();
        got.push(da);
        assert_close(&got, &central(|v| residuals(&v[..n], v[n]), &p));
    }
}

/// A trajectory collected by `push` each step, and a `Vec` declared in a
/// loop's body and filled by an inner loop.
#[grad]
fn trajectory(v0: f64, g: f64) -> f64 {
    let mut xs = Vec::new();
    let mut x = 0.0;
    let mut v = v0;
    for _ in 0..20 {
        v -= g * 0.1;
        x += v * 0.1;
        xs.push(x);
    }
    let mut total = 0.0;
    for k in 0..3 {
        let mut row = Vec::with_capacity(xs.len());
        for i in 0..xs.len() {
            if i % 3 == k {
                row.push(xs[i] * (k as f64 + 1.0));
            }
        }
        for i in 0..row.len() {
            total += row[i] * row[i];
        }
    }
    total / xs.len() as f64
}

#[test]
fn pushes_in_loops() {
    for (v0, g) in [(3.0, 9.8), (-1.0, 1.6), (10.0, 3.7)] {
        let (y, dv0, dg) = trajectory_grad(v0, g);
        assert_eq!(y.to_bits(), trajectory(v0, g).to_bits());
        assert_close(&[dv0, dg], &central(|p| trajectory(p[0], p[1]), &[v0, g]));
    }
}

/// A state assigned a vector of another length: the generated gradient
/// says so, rather than give an adjoint of the wrong length.
#[grad]
fn grows(u0: &[f64]) -> f64 {
    let mut u = u0.to_vec();
    let last = u[1];
    u = vec![0.0; u0.len() + 1];
    u[0] += last;
    u[0]
}

#[test]
#[should_panic(expected = "changes its length from 2 to 3")]
fn a_state_that_changes_its_length_is_refused_at_run_time() {
    let _ = grows_grad(&[1.0, 2.0]);
}

#[test]
fn the_plain_function_of_a_length_change_runs_as_written() {
    assert_eq!(grows(&[1.0, 2.0]), 2.0);
}

/// The state given a collected chain, by a binding and directly.
#[grad]
fn chain_steps(u0: &[f64], k: f64) -> f64 {
    let mut u = u0.to_vec();
    for _ in 0..5 {
        let next: Vec<f64> = u.iter().map(|v| v * k + v.sin()).collect();
        u = next;
    }
    for _ in 0..3 {
        u = u.iter().map(|v| v * k).collect();
    }
    u.iter().sum()
}

/// The state given a copy of a buffer, `u = next.clone()`.
#[grad]
fn cloned_steps(u0: &[f64], k: f64) -> f64 {
    let mut u = u0.to_vec();
    let mut next = u.clone();
    for _ in 0..5 {
        for i in 0..u.len() {
            next[i] = u[i] * k + u[i].cos();
        }
        u = next.clone();
    }
    u.iter().sum()
}

/// A fixed-size state destructured each step, a trajectory pushed.
#[grad]
fn orbit(x0: f64, v0: f64, dt: f64) -> f64 {
    let mut state = [x0, v0];
    let mut traj = Vec::new();
    for _ in 0..10 {
        let [x, v] = state;
        state = [x + dt * v, v - dt * x];
        traj.push(state[0]);
    }
    traj.iter().map(|p| p * p).sum()
}

/// Buffers swapped by a destructuring assignment, on a periodic rod.
#[grad]
fn periodic(u0: &[f64], k: f64) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut v = vec![0.0; n];
    for _ in 0..4 {
        for i in 0..n {
            let left = if i == 0 { u[n - 1] } else { u[i - 1] };
            let right = if i == n - 1 { u[0] } else { u[i + 1] };
            v[i] = u[i] + k * (left - 2.0 * u[i] + right);
        }
        (u, v) = (v, u);
    }
    u[0] * u[1]
}

#[test]
fn states_replaced_by_chains_clones_patterns_and_tuples() {
    for (u0, k) in profiles() {
        let n = u0.len();
        let mut x = u0.clone();
        x.push(k);
        for (f, g) in [
            (
                chain_steps as fn(&[f64], f64) -> f64,
                chain_steps_grad as HeatGrad,
            ),
            (cloned_steps, cloned_steps_grad),
            (periodic, periodic_grad),
        ] {
            let (y, du, dk) = g(&u0, k);
            assert_eq!(y.to_bits(), f(&u0, k).to_bits());
            let mut got = du.clone();
            got.push(dk);
            assert_close(&got, &central(|v| f(&v[..n], v[n]), &x));
        }
    }
    for (x0, v0, dt) in [(1.0, 0.0, 0.1), (-0.4, 2.0, 0.05), (3.0, -1.0, 0.2)] {
        let (y, a, b, c) = orbit_grad(x0, v0, dt);
        assert_eq!(y.to_bits(), orbit(x0, v0, dt).to_bits());
        assert_close(
            &[a, b, c],
            &central(|p| orbit(p[0], p[1], p[2]), &[x0, v0, dt]),
        );
    }
}

/// Buffers swapped by `swap_with_slice`, copied back through full-range
/// slices.
#[grad]
fn sliced_steps(u0: &[f64], k: f64) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next = vec![0.0; n];
    for step in 0..6 {
        for i in 1..n - 1 {
            next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        if step % 2 == 0 {
            u.swap_with_slice(&mut next);
        } else {
            u[..].copy_from_slice(&next[..]);
        }
    }
    u.iter().map(|v| v * v).sum()
}

#[test]
fn states_swapped_with_slices() {
    check_heat(sliced_steps, sliced_steps_grad);
}

/// `std::mem::replace` on a float state: the old value kept, the new one
/// installed (also with its old value dropped, and as `core::mem`).
#[grad]
fn replaced_state(x: f64, k: f64) -> f64 {
    let mut cur = x;
    let mut acc = 0.0;
    for _ in 0..3 {
        let next = cur * k + 1.0;
        let old = std::mem::replace(&mut cur, next);
        acc += old * cur;
    }
    let doubled = acc * 2.0;
    let _ = std::mem::replace(&mut acc, doubled);
    let s = cur.sin();
    let prev = core::mem::replace(&mut cur, s);
    acc + prev * cur
}

#[test]
fn a_float_replaced_with_mem_replace() {
    let f = |p: &[f64]| {
        let (x, k) = (p[0], p[1]);
        let mut cur = x;
        let mut acc = 0.0;
        for _ in 0..3 {
            let next = cur * k + 1.0;
            acc += cur * next;
            cur = next;
        }
        acc * 2.0 + cur * cur.sin()
    };
    for p in [[0.7, 1.3], [-1.1, 0.4], [2.0, -0.9]] {
        let (v, dx, dk) = replaced_state_grad(p[0], p[1]);
        assert_eq!(v, f(&p));
        let fd = central(f, &p);
        assert_relative_eq!(dx, fd[0], max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(dk, fd[1], max_relative = 1e-6, epsilon = 1e-8);
    }
}

/// A struct state another `#[grad]` function made, replaced each step by a
/// method returning the next (`s = s.stepped(dt)`), in a loop and once: a
/// `let mut` of a call's result, whose methods are called on `&s`.
#[derive(Clone, Debug, autodiff::Differentiable)]
struct Osc {
    x: f64,
    v: f64,
}

impl Osc {
    #[grad(wrt(self))]
    fn energy(&self) -> f64 {
        0.5 * self.v * self.v + 0.5 * self.x * self.x
    }

    #[grad(wrt(self, dt))]
    fn stepped(&self, dt: f64) -> Self {
        Osc {
            x: self.x + dt * self.v,
            v: self.v - dt * self.x,
        }
    }
}

#[grad]
fn osc_start(a: f64, b: f64) -> Osc {
    Osc { x: a, v: b }
}

#[grad]
fn oscillate(a: f64, b: f64, dt: f64) -> f64 {
    let mut s = osc_start(a, b);
    s = s.stepped(dt);
    for _ in 0..10 {
        s = s.stepped(dt);
    }
    s.energy()
}

#[test]
fn a_struct_state_from_a_call_replaced_each_step() {
    let f = |p: &[f64]| {
        let (mut x, mut v) = (p[0], p[1]);
        for _ in 0..11 {
            (x, v) = (x + p[2] * v, v - p[2] * x);
        }
        0.5 * v * v + 0.5 * x * x
    };
    for p in [[0.5, 0.1, 0.1], [-0.7, 1.0, 0.05], [1.5, 0.2, 0.2]] {
        let (v, da, db, ddt) = oscillate_grad(p[0], p[1], p[2]);
        assert_relative_eq!(v, f(&p), max_relative = 1e-14);
        let fd = central(f, &p);
        assert_relative_eq!(da, fd[0], max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(db, fd[1], max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(ddt, fd[2], max_relative = 1e-6, epsilon = 1e-8);
    }
}

/// `std::mem::replace` of a float bound without a type from a `const`
/// (`let mut s = C;`), in a loop: found by the differential tester (a
/// generated name in `std::mem` before).
const START: f64 = 0.5;

#[grad]
fn replaced_from_a_const(x: f64) -> f64 {
    let mut s = START;
    for _ in 0..3 {
        let next = s * 0.9 + x;
        let old = std::mem::replace(&mut s, next);
        s += old;
    }
    s
}

#[test]
fn a_float_from_a_const_replaced() {
    // s ← 1.9 s + x three times from 0.5: d/dx = 1 + 1.9 + 1.9².
    let (v, d) = replaced_from_a_const_grad(0.3);
    assert_relative_eq!(v, 5.3825, max_relative = 1e-14);
    assert_relative_eq!(d, 1.0 + 1.9 + 1.9 * 1.9, max_relative = 1e-14);
}

/// A Verlet loop shifting its two positions with `prev =
/// std::mem::replace(&mut cur, next);`, and the same shift onto the
/// replaced variable itself (`cur = replace(&mut cur, ..)` leaves `cur`
/// as it was).
#[grad]
fn verlet_shift(x0: f64, v0: f64) -> f64 {
    let mut prev = x0;
    let mut cur = x0 + v0;
    for _ in 0..6 {
        let next = 2.0 * cur - prev - 0.05 * cur * cur.abs();
        prev = std::mem::replace(&mut cur, next);
    }
    let mut kept = cur;
    kept = std::mem::replace(&mut kept, 100.0 * prev);
    cur - prev + kept
}

#[test]
fn positions_shifted_by_mem_replace() {
    for (x0, v0) in [(0.3, 0.1), (-1.2, 0.4), (2.0, -0.7)] {
        let (v, dx, dv) = verlet_shift_grad(x0, v0);
        assert_eq!(v.to_bits(), verlet_shift(x0, v0).to_bits());
        assert_close(&[dx, dv], &central(|p| verlet_shift(p[0], p[1]), &[x0, v0]));
    }
}

/// Gradient descent steps written with `iter_mut`, in an outer loop: a
/// step through `x.iter_mut().zip(g.iter())` with a gradient collected
/// each iteration, and a decay through `for xi in &mut x`.
#[grad]
fn descent_steps(x0: &[f64], eta: f64) -> f64 {
    let mut x = x0.to_vec();
    for _ in 0..4 {
        let mut g = vec![0.0; x.len()];
        for i in 0..x.len() {
            g[i] = 2.0 * x[i] + x[i].sin();
        }
        for (xi, gi) in x.iter_mut().zip(g.iter()) {
            *xi -= eta * gi;
        }
        for xi in &mut x {
            *xi *= 1.0 - 0.1 * eta;
        }
    }
    x.iter().map(|v| v * v).sum()
}

#[test]
fn elements_written_through_iter_mut_in_an_outer_loop() {
    for (x0, eta) in [
        (vec![1.0, 2.0], 0.1),
        (vec![-0.5, 0.3, 2.2], 0.25),
        (vec![3.0], 0.05),
    ] {
        let (v, dx, deta) = descent_steps_grad(&x0, eta);
        assert_eq!(v.to_bits(), descent_steps(&x0, eta).to_bits());
        let n = x0.len();
        let mut all = x0.clone();
        all.push(eta);
        let mut got = dx.clone();
        got.push(deta);
        assert_close(&got, &central(|p| descent_steps(&p[..n], p[n]), &all));
    }
}

//! A float parameter taken by `&mut`: its entry value is what `_grad`
//! differentiates with respect to, and `_grad` writes its last value back,
//! as the function does. An array writer (`v: &mut [f64]`, returning
//! nothing): the `_vjp` of its new contents. Exact values, and central
//! differences for a chain of writers.

// Users write index loops; so do these tests.
#![allow(clippy::needless_range_loop, clippy::ptr_arg)]

use approx::assert_relative_eq;
use autodiff::{grad, Float};

/// Accumulates into `acc` and returns a reading of it.
#[grad]
fn accumulate(acc: &mut f64, y: f64) -> f64 {
    *acc += y * y;
    let reading = *acc * y;
    *acc *= 0.5;
    reading
}

#[test]
fn a_float_through_mut_is_its_entry_value_and_is_written_back() {
    let mut acc = 2.0;
    let (v, d_acc, dy) = accumulate_grad(&mut acc, 3.0);
    assert_eq!(v, 33.0);
    assert_eq!(d_acc, 3.0);
    assert_eq!(dy, 11.0 + 18.0);
    // As the function leaves it.
    let mut plain = 2.0;
    accumulate(&mut plain, 3.0);
    assert_eq!(acc, plain);
    assert_eq!(acc, 5.5);
}

/// In a loop and a branch, generic.
#[grad]
fn relax<T: Float>(state: &mut T, target: T, steps: usize) -> T {
    let mut err = T::zero();
    for _ in 0..steps {
        let gap = target - *state;
        if gap > T::zero() {
            *state += 0.5 * gap;
        } else {
            *state += 0.25 * gap;
        }
        err += gap * gap;
    }
    err
}

#[test]
fn a_generic_float_through_mut_in_a_loop() {
    let mut s = 0.0f64;
    let (v, ds, dt) = relax_grad(&mut s, 1.0, 3);
    // gaps 1, 0.5, 0.25: err = 1 + 1/4 + 1/16; each gap = (t − s0)/2^k.
    assert_eq!(v, 1.3125);
    assert_eq!(ds, -2.0 * (1.0 + 0.25 + 0.0625));
    assert_eq!(dt, 2.0 * (1.0 + 0.25 + 0.0625));
    assert_eq!(s, 0.875);
}

/// A writer: returns nothing, writes one float through `&mut`. Its
/// `_grad` gives that float's new value and its gradient; callers write
/// `update(&mut s, y)` in differentiated code, in loops too.
#[grad]
fn relax_once(x: &mut f64, target: f64) {
    if target < 0.0 {
        return;
    }
    *x += 0.5 * (target - *x);
}

#[grad]
fn relaxed_square(s0: f64, target: f64) -> f64 {
    let mut s = s0;
    relax_once(&mut s, target);
    for _ in 0..3 {
        relax_once(&mut s, 2.0 * target);
    }
    s * s
}

#[test]
fn a_writer_called_with_mut_from_differentiated_code() {
    let mut x = 1.0;
    let (v, dx, dt) = relax_once_grad(&mut x, 3.0);
    assert_eq!((v, dx, dt), (2.0, 0.5, 0.5));
    assert_eq!(x, 2.0);
    let f = |s0: f64, t: f64| {
        let mut s = s0;
        relax_once(&mut s, t);
        for _ in 0..3 {
            relax_once(&mut s, 2.0 * t);
        }
        s * s
    };
    let (v, ds, dt) = relaxed_square_grad(1.0, 3.0);
    assert_eq!(v, f(1.0, 3.0));
    // s = s0/16 + t/16 + (1 − 1/8)·2t, linear in s0 and t.
    let s = 1.0 / 16.0 + 3.0 / 16.0 + 0.875 * 6.0;
    assert_eq!(v, s * s);
    assert_eq!(ds, 2.0 * s / 16.0);
    assert_eq!(dt, 2.0 * s * (1.0 / 16.0 + 1.75));
}

/// An array writer: returns nothing, changes one float array in place.
#[grad]
fn scale_in_place(v: &mut [f64], k: f64) {
    for i in 0..v.len() {
        v[i] = v[i] * k + v[i].sin();
    }
}

/// A writer of a `Vec`, a periodic smoothing.
#[grad]
fn smooth_in_place(v: &mut Vec<f64>) {
    let n = v.len();
    if n > 1 {
        let first = v[0];
        for i in 0..n - 1 {
            v[i] = 0.5 * (v[i] + v[i + 1]);
        }
        v[n - 1] = 0.5 * (v[n - 1] + first);
    }
}

#[test]
fn an_array_writer_has_the_vjp_of_its_new_contents() {
    // Its _vjp takes the array by shared reference and returns the new
    // contents: v_i k + sin v_i, with d/dv_i = k + cos v_i, d/dk = v_i.
    let (new, dv, dk) = scale_in_place_vjp(&[1.0, 2.0], 0.5, &[1.0, 3.0]);
    let mut v = vec![1.0, 2.0];
    scale_in_place(&mut v, 0.5);
    assert_eq!(new, v);
    assert_relative_eq!(dv[0], 0.5 + 1f64.cos(), max_relative = 1e-15);
    assert_relative_eq!(dv[1], 3.0 * (0.5 + 2f64.cos()), max_relative = 1e-15);
    assert_eq!(dk, 1.0 + 3.0 * 2.0);
    let (new, _) = smooth_in_place_vjp(&[5.0], &[1.0]);
    assert_eq!(new, [5.0]);
}

/// Writers called as written, `scale_in_place(&mut u, k);`, in a loop, on
/// a `Vec` and on a fixed array.
#[grad]
fn relax_by_writers(x: &[f64], k: f64) -> f64 {
    let mut u = x.to_vec();
    for _ in 0..3 {
        scale_in_place(&mut u, k);
        smooth_in_place(&mut u);
    }
    let mut s = [u[0], 2.0 * u[1], 1.0];
    scale_in_place(&mut s, k);
    u.iter().map(|z| z * z).sum::<f64>() + s[0] * s[1] + s[2]
}

#[test]
fn array_writers_called_in_place() {
    for (x, k) in [(vec![1.0, 2.0, -0.5], 0.5), (vec![0.3, -1.1], 1.2)] {
        let (y, dx, dk) = relax_by_writers_grad(&x, k);
        assert_eq!(y.to_bits(), relax_by_writers(&x, k).to_bits());
        let h = 1e-6;
        for i in 0..x.len() {
            let (mut p, mut m) = (x.clone(), x.clone());
            p[i] += h;
            m[i] -= h;
            let fd = (relax_by_writers(&p, k) - relax_by_writers(&m, k)) / (2.0 * h);
            assert_relative_eq!(dx[i], fd, max_relative = 1e-6, epsilon = 1e-8);
        }
        let fd = (relax_by_writers(&x, k + h) - relax_by_writers(&x, k - h)) / (2.0 * h);
        assert_relative_eq!(dk, fd, max_relative = 1e-6);
    }
}

/// A writer of two floats: one step of symplectic Euler for a pendulum,
/// which stops at a wall (a guard clause).
#[grad]
fn pendulum_step(theta: &mut f64, omega: &mut f64, dt: f64) {
    *omega -= theta.sin() * dt;
    if *theta + *omega * dt > 1.5 {
        return;
    }
    *theta += *omega * dt;
}

#[test]
fn a_writer_of_two_floats_has_the_vjp_and_jacobian_of_their_new_values() {
    // Below the wall: omega' = omega - sin(theta) dt, theta' = theta +
    // omega' dt.
    let (theta, omega, dt) = (0.3_f64, 0.2, 0.1);
    let omega1 = omega - theta.sin() * dt;
    let theta1 = theta + omega1 * dt;
    let ((t, o), d_theta, d_omega, d_dt) = pendulum_step_vjp(theta, omega, dt, (1.0, 0.0));
    assert_eq!((t, o), (theta1, omega1));
    assert_relative_eq!(d_theta, 1.0 - theta.cos() * dt * dt, max_relative = 1e-15);
    assert_relative_eq!(d_omega, dt, max_relative = 1e-15);
    assert_relative_eq!(d_dt, omega1 - theta.sin() * dt, max_relative = 1e-15);
    let ((t, o), rows) = pendulum_step_jacobian(theta, omega, dt);
    assert_eq!((t, o), (theta1, omega1));
    assert_relative_eq!(rows[1][0], -theta.cos() * dt, max_relative = 1e-15);
    assert_eq!(rows[1][1], 1.0);
    assert_relative_eq!(rows[1][2], -theta.sin(), max_relative = 1e-15);
    // At the wall only omega moves.
    let ((t, o), rows) = pendulum_step_jacobian(1.4, 2.0, 0.1);
    assert_eq!((t, o), (1.4, 2.0 - 1.4_f64.sin() * 0.1));
    assert_eq!(rows[0], [1.0, 0.0, 0.0]);
    // The function is kept as written.
    let (mut t, mut o) = (theta, omega);
    pendulum_step(&mut t, &mut o, dt);
    assert_eq!((t, o), (theta1, omega1));
}

/// The writer called as written, in a loop that may stop early and in a
/// branch, lending the two floats in either order.
#[grad]
fn swing(theta0: f64, omega0: f64, dt: f64) -> f64 {
    let mut theta = theta0;
    let mut omega = omega0;
    let mut mirror = 0.1 * theta0;
    for k in 0..40 {
        pendulum_step(&mut theta, &mut omega, dt);
        if k % 7 == 3 {
            pendulum_step(&mut mirror, &mut theta, 0.5 * dt);
        }
        if omega < -2.0 {
            break;
        }
    }
    theta * theta + omega + mirror
}

#[test]
fn writers_of_two_floats_called_in_place() {
    for (theta0, omega0, dt) in [(0.3, 0.2, 0.05), (-1.0, 1.5, 0.1), (1.2, -0.4, 0.02)] {
        let (y, d0, d1, d2) = swing_grad(theta0, omega0, dt);
        assert_eq!(y.to_bits(), swing(theta0, omega0, dt).to_bits());
        let h = 1e-6;
        let fd = [
            (swing(theta0 + h, omega0, dt) - swing(theta0 - h, omega0, dt)) / (2.0 * h),
            (swing(theta0, omega0 + h, dt) - swing(theta0, omega0 - h, dt)) / (2.0 * h),
            (swing(theta0, omega0, dt + h) - swing(theta0, omega0, dt - h)) / (2.0 * h),
        ];
        for (g, fd) in [d0, d1, d2].into_iter().zip(fd) {
            assert_relative_eq!(g, fd, max_relative = 1e-6, epsilon = 1e-8);
        }
    }
}

/// Three floats of a generic type, written by a writer that reads them
/// through methods.
#[grad]
fn rotate<T: Float>(x: &mut T, y: &mut T, z: &mut T, angle: T) {
    let (s, c) = (angle.sin(), angle.cos());
    let x0 = *x;
    *x = c * x0 - s * *y;
    *y = s * x0 + c * *y;
    *z = z.abs() * c;
}

#[grad]
fn spin(x0: f32, angle: f32) -> f32 {
    let (mut x, mut y, mut z) = (x0, 1.0, -0.5);
    for _ in 0..3 {
        rotate(&mut x, &mut y, &mut z, angle);
    }
    x * y + z
}

#[test]
fn a_generic_writer_of_three_floats() {
    for (x0, angle) in [(0.5_f32, 0.3_f32), (-1.0, 1.1)] {
        let (y, dx, da) = spin_grad(x0, angle);
        assert_eq!(y.to_bits(), spin(x0, angle).to_bits());
        // Central differences in f64 on the same function.
        let f = |x0: f64, angle: f64| {
            let (mut x, mut y, mut z) = (x0, 1.0, -0.5);
            for _ in 0..3 {
                rotate(&mut x, &mut y, &mut z, angle);
            }
            x * y + z
        };
        let h = 1e-6;
        let (x0, angle) = (f64::from(x0), f64::from(angle));
        let fd_x = (f(x0 + h, angle) - f(x0 - h, angle)) / (2.0 * h);
        let fd_a = (f(x0, angle + h) - f(x0, angle - h)) / (2.0 * h);
        assert_relative_eq!(f64::from(dx), fd_x, max_relative = 1e-4, epsilon = 1e-5);
        assert_relative_eq!(f64::from(da), fd_a, max_relative = 1e-4, epsilon = 1e-5);
    }
}

/// A function that returns a value and writes the float lent to it,
/// called as `let r = accumulate(&mut s, y);` in a loop: `r` is its value
/// and `s` takes its new value, both differentiated.
#[grad]
fn accumulate_or_cap(acc: &mut f64, y: f64) -> f64 {
    *acc += y * y;
    let reading = *acc * y;
    if reading > 100.0 {
        return reading.sqrt();
    }
    *acc *= 0.5;
    reading
}

#[grad]
fn readings(x: f64, y: f64) -> f64 {
    let mut s = x;
    let mut t = 0.0;
    for k in 0..4 {
        let r = accumulate_or_cap(&mut s, y + k as f64);
        t += r * s;
    }
    let last = accumulate(&mut t, 0.5);
    t + s + last
}

#[test]
fn a_function_that_returns_and_writes_called_with_a_lent_variable() {
    let h = 1e-6;
    // Points on both sides of the cap.
    for (x, y) in [(1.0, 2.0), (0.5, -1.0), (3.0, 4.0), (0.1, 0.3)] {
        let (v, dx, dy) = readings_grad(x, y);
        assert_eq!(v.to_bits(), readings(x, y).to_bits());
        let fx = (readings(x + h, y) - readings(x - h, y)) / (2.0 * h);
        let fy = (readings(x, y + h) - readings(x, y - h)) / (2.0 * h);
        assert_relative_eq!(dx, fx, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(dy, fy, max_relative = 1e-6, epsilon = 1e-8);
    }
}

/// The same function called for what it writes only, its value given to
/// `_`: `s` still takes its new value, differentiated. (As a statement,
/// `accumulate(&mut s, y);`, the call is refused at the call, with this to
/// write: `tests/ui/value_dropped_from_writer.rs`.)
#[grad]
fn accumulated_only(x: f64, y: f64) -> f64 {
    let mut s = x;
    for k in 0..3 {
        let _ = accumulate_or_cap(&mut s, y * k as f64);
    }
    s * y
}

#[test]
fn a_function_that_returns_and_writes_its_value_dropped() {
    let h = 1e-6;
    for (x, y) in [(1.0, 2.0), (0.5, -1.0), (3.0, 4.0), (0.1, 0.3)] {
        let (v, dx, dy) = accumulated_only_grad(x, y);
        assert_eq!(v.to_bits(), accumulated_only(x, y).to_bits());
        let fx = (accumulated_only(x + h, y) - accumulated_only(x - h, y)) / (2.0 * h);
        let fy = (accumulated_only(x, y + h) - accumulated_only(x, y - h)) / (2.0 * h);
        assert_relative_eq!(dx, fx, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(dy, fy, max_relative = 1e-6, epsilon = 1e-8);
    }
}

/// A temporary lent to a writer, `&mut 0.0`, its new value dropped.
#[grad]
fn with_scratch_velocity(theta0: f64, dt: f64) -> f64 {
    let mut theta = theta0;
    for _ in 0..5 {
        pendulum_step(&mut theta, &mut 0.0, dt);
    }
    theta
}

#[test]
fn a_temporary_lent_to_a_writer() {
    let h = 1e-6;
    for (t, dt) in [(0.3, 0.1), (-0.8, 0.05)] {
        let (v, d0, ddt) = with_scratch_velocity_grad(t, dt);
        assert_eq!(v, with_scratch_velocity(t, dt));
        let f0 = (with_scratch_velocity(t + h, dt) - with_scratch_velocity(t - h, dt)) / (2.0 * h);
        let fdt = (with_scratch_velocity(t, dt + h) - with_scratch_velocity(t, dt - h)) / (2.0 * h);
        assert_relative_eq!(d0, f0, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(ddt, fdt, max_relative = 1e-6, epsilon = 1e-8);
    }
}

// ---- a call's array result changed in place -------------------------------

#[grad]
fn diff3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] * b[1], a[2] + b[2]]
}

#[grad]
fn len3(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

#[grad]
fn ramp(x: f64, n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n];
    for i in 0..n {
        out[i] = x * (i as f64 + 1.0);
    }
    out
}

#[grad]
fn stretch_all(v: &mut [f64], k: f64) {
    for i in 0..v.len() {
        v[i] *= k;
    }
}

#[grad]
fn generic_diff<T: Float>(a: [T; 2], b: [T; 2]) -> [T; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

/// A typed call result changed element by element and by an array
/// writer, an array and a `Vec`, in a loop too: the variable is a local
/// array filled from the result (refused before, "assign the whole
/// variable"; new-user trial).
#[grad]
fn result_changed_in_place(a: [f64; 3], b: [f64; 3], k: f64) -> f64 {
    let mut d: [f64; 3] = diff3(a, b);
    d[0] += k;
    stretch_all(&mut d, k);
    let mut r: Vec<f64> = ramp(k, 3);
    for i in 0..r.len() {
        r[i] = r[i] * d[i] + a[i];
    }
    stretch_all(&mut r, 0.5);
    len3(d) + r[0] * r[2] + r[1]
}

#[grad]
fn generic_result_changed<T: Float>(a: [T; 2], b: [T; 2], k: T) -> T {
    let mut d: [T; 2] = generic_diff(a, b);
    d[1] *= k;
    d[0] * d[1] + d[1]
}

#[test]
fn a_typed_call_result_changed_in_place() {
    let h = 1e-6;
    for (a, b, k) in [
        ([1.0, 2.0, -0.5], [0.3, -1.1, 0.8], 0.7),
        ([-0.4, 0.9, 1.6], [1.2, 0.5, -0.3], -1.3),
        ([2.2, -0.7, 0.1], [0.0, 1.4, 2.5], 0.2),
    ] {
        let f = |a: [f64; 3], b: [f64; 3], k: f64| result_changed_in_place(a, b, k);
        let (v, da, db, dk) = result_changed_in_place_grad(a, b, k);
        assert_eq!(v, f(a, b, k));
        for i in 0..3 {
            let (mut up, mut down) = (a, a);
            up[i] += h;
            down[i] -= h;
            assert_relative_eq!(
                da[i],
                (f(up, b, k) - f(down, b, k)) / (2.0 * h),
                max_relative = 1e-6,
                epsilon = 1e-8
            );
            let (mut up, mut down) = (b, b);
            up[i] += h;
            down[i] -= h;
            assert_relative_eq!(
                db[i],
                (f(a, up, k) - f(a, down, k)) / (2.0 * h),
                max_relative = 1e-6,
                epsilon = 1e-8
            );
        }
        assert_relative_eq!(
            dk,
            (f(a, b, k + h) - f(a, b, k - h)) / (2.0 * h),
            max_relative = 1e-6,
            epsilon = 1e-8
        );
    }
    // (a0 - b0)(a1 - b1) k + (a1 - b1) k, exactly.
    let (v, da, db, dk) = generic_result_changed_grad([1.5f64, 2.0], [0.5, -1.0], 2.0);
    assert_eq!(v, 1.0 * 6.0 + 6.0);
    assert_eq!((da, db, dk), ([6.0, 4.0], [-6.0, -4.0], 6.0));
}

/// An array writer that pushes to its array: the writer's own `_vjp` is
/// right, but a caller follows the array it lends as one of one length.
#[grad]
fn record(hist: &mut Vec<f64>, x: f64) {
    hist.push(x * x);
}

#[grad]
fn recorded(x0: f64, k: f64) -> f64 {
    let mut hist: Vec<f64> = Vec::new();
    let mut x = x0;
    for _ in 0..3 {
        x = x * k + 0.1;
        record(&mut hist, x);
    }
    hist.iter().sum::<f64>()
}

#[test]
#[should_panic(expected = "`record` changed the length of `hist` from 0 to 1")]
fn a_writer_that_pushes_is_a_panic_that_says_what_to_write() {
    let (v, d_hist, dx) = record_vjp(&[1.0], 3.0, &[0.5, 2.0]);
    assert_eq!((v, d_hist, dx), (vec![1.0, 9.0], vec![0.5], 12.0));
    let _ = recorded_grad(0.5, 0.9);
}

/// An array writer of a fixed array (`&mut [f64; 2]`), plain and generic,
/// called in a loop on a local array. (It was refused at the writer as if
/// it returned a value, and its callers lent it a `Vec` copy: E0308 inside
/// the expansion. The copy is now lent as the writer's own parameter type,
/// `runtime::array::lend`.)
#[grad]
fn kick_pair(s: &mut [f64; 2], k: f64) {
    s[1] -= k * s[0];
    s[0] += s[1];
}

#[grad]
#[allow(clippy::assign_op_pattern)] // as users write it for a `T`
fn kick_pair_generic<T: autodiff::Float>(s: &mut [T; 2], k: T) {
    s[1] = s[1] - k * s[0];
    s[0] = s[0] + s[1];
}

#[grad]
fn orbit_of_kicks(x0: f64, k: f64) -> f64 {
    let mut s = [x0, 0.0];
    for _ in 0..10 {
        kick_pair(&mut s, k);
    }
    let mut u = [s[0], x0];
    kick_pair_generic(&mut u, k);
    s[0] + u[1] * u[0]
}

#[test]
fn a_writer_of_a_fixed_array() {
    let f = |x0: f64, k: f64| {
        let mut s = [x0, 0.0];
        for _ in 0..10 {
            s[1] -= k * s[0];
            s[0] += s[1];
        }
        let mut u = [s[0], x0];
        u[1] -= k * u[0];
        u[0] += u[1];
        s[0] + u[1] * u[0]
    };
    for (x0, k) in [(0.7, 0.3), (-1.2, 0.05), (2.0, -0.4)] {
        let (v, dx, dk) = orbit_of_kicks_grad(x0, k);
        assert_eq!(v, orbit_of_kicks(x0, k));
        assert_relative_eq!(v, f(x0, k), max_relative = 1e-14);
        let h = 1e-6;
        let cx = (f(x0 + h, k) - f(x0 - h, k)) / (2.0 * h);
        let ck = (f(x0, k + h) - f(x0, k - h)) / (2.0 * h);
        assert_relative_eq!(dx, cx, max_relative = 1e-6);
        assert_relative_eq!(dk, ck, max_relative = 1e-6);
    }
    // Its own `_vjp`: the new contents and the gradients, by slices.
    let (new, ds, dk) = kick_pair_vjp(&[1.0, 2.0], 0.5, &[1.0, 0.0]);
    assert_eq!(new, vec![2.5, 1.5]);
    assert_eq!(ds, vec![0.5, 1.0]);
    assert_eq!(dk, -1.0);
}

/// A rotation step in place, whose first line copies the array out of
/// its reference (calls trial r09, refused before: "`s0` holds a value of
/// a type #[grad] does not model").
#[grad]
fn rotate_in_place(s: &mut [f64; 2], dt: f64) {
    let s0 = *s;
    s[0] = s0[0] + dt * s0[1];
    s[1] = s0[1] - dt * s0[0] * s[0];
}

/// The step called in a time loop, and `*r` of an array read by `&`.
#[grad]
fn rotated_energy(start: &[f64; 2], dt: f64) -> f64 {
    let copy = *start;
    let mut s = copy;
    for _ in 0..5 {
        rotate_in_place(&mut s, dt);
    }
    s[0] * s[0] + s[1] * s[1] * copy[1]
}

#[test]
fn an_array_copied_out_of_its_reference() {
    // s' = (a + dt b, b − dt a (a + dt b)), seeded with (u, v).
    let (s, dt, seed) = ([1.0, 0.5], 0.1, [0.7, -1.3]);
    let (new, d_s, d_dt) = rotate_in_place_vjp(&s, dt, &seed);
    let (a, b) = (s[0], s[1]);
    let a1 = a + dt * b;
    assert_eq!(new, [a1, b - dt * a * a1]);
    // ∂s1'/∂a = −dt (a1 + a), ∂s1'/∂b = 1 − dt² a, ∂s1'/∂dt = −a a1 − dt a b
    assert_relative_eq!(
        d_s[0],
        seed[0] + seed[1] * -dt * (a1 + a),
        max_relative = 1e-14
    );
    assert_relative_eq!(
        d_s[1],
        seed[0] * dt + seed[1] * (1.0 - dt * dt * a),
        max_relative = 1e-14
    );
    assert_relative_eq!(
        d_dt,
        seed[0] * b + seed[1] * (-a * a1 - dt * a * b),
        max_relative = 1e-14
    );

    let h = 1e-6;
    for (start, dt) in [([1.0, 0.5], 0.1), ([-0.3, 2.0], 0.25), ([0.8, -0.9], 0.05)] {
        let (v, d_start, d_dt) = rotated_energy_grad(&start, dt);
        assert_eq!(v, rotated_energy(&start, dt));
        for k in 0..2 {
            let (mut p, mut m) = (start, start);
            p[k] += h;
            m[k] -= h;
            let fd = (rotated_energy(&p, dt) - rotated_energy(&m, dt)) / (2.0 * h);
            assert_relative_eq!(d_start[k], fd, max_relative = 1e-6, epsilon = 1e-8);
        }
        let fd = (rotated_energy(&start, dt + h) - rotated_energy(&start, dt - h)) / (2.0 * h);
        assert_relative_eq!(d_dt, fd, max_relative = 1e-6, epsilon = 1e-8);
    }
}

#[grad]
fn scale_all(v: &mut [f64], k: f64) {
    for e in v.iter_mut() {
        *e *= k;
    }
}

#[grad]
fn sum_squares(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>()
}

/// An array writer passing its own array on, to a writer and to a reader
/// (trial 4 r37: code inside the expansion that did not compile, "expected
/// `&mut [f64]`, found `&Vec<f64>`").
#[grad]
fn normalize_twice(v: &mut [f64]) {
    let norm = sum_squares(v).sqrt();
    scale_all(v, 1.0 / norm);
    scale_all(&mut *v, 2.0);
}

#[test]
fn an_array_writer_passes_its_array_on() {
    let v = [3.0, 4.0];
    for seed in [[1.0, 0.0], [0.3, -0.7]] {
        let (out, d_v) = normalize_twice_vjp(&v, &seed);
        let mut plain = v;
        normalize_twice(&mut plain);
        assert_eq!(out, plain.to_vec());
        // out = 2 v / |v|: d out / dv = 2 (I − v vᵀ / |v|²) / |v|.
        let n2: f64 = 25.0;
        for k in 0..2 {
            let want: f64 = (0..2)
                .map(|j| {
                    let delta = if j == k { 1.0 } else { 0.0 };
                    seed[j] * 2.0 * (delta - v[j] * v[k] / n2) / n2.sqrt()
                })
                .sum();
            assert_relative_eq!(d_v[k], want, max_relative = 1e-14, epsilon = 1e-15);
        }
    }
}

// A scalar writer given an element of a local array, `decay(&mut v[i],
// r)`, and elements exchanged by `v.swap(j, j + 1)`, in loops (trial 8
// r312: both refused).
#[grad]
fn decay(x: &mut f64, rate: f64) {
    *x = *x * (1.0 - rate) + 0.01 * rate;
}

#[grad]
fn decayed_norm(ws: &[f64], rate: f64, rounds: usize) -> f64 {
    let mut v = ws.to_vec();
    for _ in 0..rounds {
        for i in 0..v.len() {
            decay(&mut v[i], rate);
        }
    }
    decay(&mut v[0], 2.0 * rate);
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

#[grad]
fn rank_weighted(xs: &[f64], w: f64) -> f64 {
    let mut v = xs.to_vec();
    let n = v.len();
    for i in 0..n {
        for j in 0..n - 1 - i {
            if v[j] > v[j + 1] {
                v.swap(j, j + 1);
            }
        }
    }
    let mut s = 0.0;
    for (r, x) in v.iter().enumerate() {
        s += (1.0 + w * r as f64) * x;
    }
    s
}

#[test]
fn an_elements_writer_and_a_swap() {
    let h = 1e-6;
    for (ws, rate) in [([0.5, -1.0, 2.0], 0.1), ([3.0, 0.25, -0.5], 0.4)] {
        let (v, dw, dr) = decayed_norm_grad(&ws, rate, 3);
        assert_eq!(v, decayed_norm(&ws, rate, 3));
        let fr = (decayed_norm(&ws, rate + h, 3) - decayed_norm(&ws, rate - h, 3)) / (2.0 * h);
        assert_relative_eq!(dr, fr, max_relative = 1e-6);
        for i in 0..3 {
            let mut p = ws;
            p[i] += h;
            let mut m = ws;
            m[i] -= h;
            let fd = (decayed_norm(&p, rate, 3) - decayed_norm(&m, rate, 3)) / (2.0 * h);
            assert_relative_eq!(dw[i], fd, max_relative = 1e-6);
        }
    }
    // Sorted: [-1, 0.3, 0.5, 2], weighted 1, 1.5, 2, 2.5.
    let (v, dx, dw) = rank_weighted_grad(&[0.3, -1.0, 2.0, 0.5], 0.5);
    assert_relative_eq!(v, 5.45, max_relative = 1e-15);
    assert_eq!(dx, vec![1.5, 1.0, 2.5, 2.0]);
    assert_relative_eq!(dw, 7.3, max_relative = 1e-15);
}

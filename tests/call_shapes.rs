//! Calls of every shape go through what the callee's expansion gives its
//! callers (one slot per parameter, `emit/slots.rs`), never through the
//! caller's guess of which arguments the callee differentiates: literals of
//! any type, constant parameters, methods on `self`, on parameters and on
//! constant receivers, structs through a callee's `wrt`, in loops and
//! branches. Exact values where they exist, central differences elsewhere.

use approx::assert_relative_eq;
use autodiff::{grad, Differentiable, Float};

// ---- literal arguments of any type ------------------------------------

#[grad]
fn labelled(x: f64, label: char, name: &str, times: usize, on: bool) -> f64 {
    let k = if on { times as f64 } else { 1.0 };
    let extra = (label as u32 + name.len() as u32) as f64;
    k * x * x + extra
}

#[grad]
fn calls_with_literals(x: f64) -> f64 {
    labelled(x, 'a', "aa", 3, true) + labelled(2.0 * x, 'b', "", 1, false)
}

#[test]
fn literals_of_every_type_are_arguments_like_any_other() {
    // 3x² + 99 + 4x² + 98
    let (v, d) = calls_with_literals_grad(1.5);
    assert_eq!(v, 7.0 * 2.25 + 99.0 + 98.0);
    assert_eq!(d, 14.0 * 1.5);
}

// ---- a parameter the callee leaves constant ----------------------------

#[grad(wrt(x))]
fn scaled(x: f64, k: f64) -> f64 {
    k * x.sin()
}

#[grad]
fn passes_a_constant(x: f64, n: usize) -> f64 {
    // `k` is a literal and a constant of the caller: the callee's
    // `Constant` slot for it is never read.
    let k = n as f64;
    scaled(x, k) + scaled(x, 0.5)
}

#[test]
fn a_constant_parameter_meets_a_constant_argument() {
    let x = 0.7f64;
    let (v, d) = passes_a_constant_grad(x, 3);
    assert_eq!(v, 3.0 * x.sin() + 0.5 * x.sin());
    assert_relative_eq!(d, 3.5 * x.cos(), max_relative = 1e-15);
}

// ---- methods -------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Line {
    w: f64,
    b: f64,
}

impl Line {
    #[grad(wrt(self, x))]
    fn predict(&self, x: f64) -> f64 {
        self.w * x + self.b
    }

    /// Calls `predict` on `self`: the receiver's slot is `predict`'s
    /// gradient for `self`, added into this method's.
    #[grad(wrt(self))]
    fn loss(&self, x: f64, y: f64) -> f64 {
        (self.predict(x) - y).powi(2)
    }

    /// The same in a loop over data, with a branch.
    #[grad(wrt(self))]
    fn total(&self, xs: &[f64], ys: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..xs.len() {
            let r = self.predict(xs[i]) - ys[i];
            if r > 0.0 {
                s += r * r;
            } else {
                s += 2.0 * r * r;
            }
        }
        s
    }
}

#[test]
fn a_method_calling_a_method_on_self() {
    let m = Line { w: 2.0, b: 1.0 };
    let (v, d) = m.loss_grad(3.0, 1.0);
    // r = 2·3 + 1 − 1 = 6
    assert_eq!(v, 36.0);
    assert_eq!(d, Line { w: 36.0, b: 12.0 });
}

#[test]
fn a_method_on_self_in_a_loop_with_a_branch() {
    let m = Line { w: 0.5, b: -1.0 };
    let xs = [1.0, 2.0, 4.0, -3.0];
    let ys = [0.0, 1.0, -1.0, 2.0];
    let (v, d) = m.total_grad(&xs, &ys);
    let (mut want, mut dw, mut db) = (0.0, 0.0, 0.0);
    for (x, y) in xs.iter().zip(&ys) {
        let r = 0.5 * x - 1.0 - y;
        let c = if r > 0.0 { 1.0 } else { 2.0 };
        want += c * r * r;
        dw += 2.0 * c * r * x;
        db += 2.0 * c * r;
    }
    assert_eq!(v, want);
    assert_relative_eq!(d.w, dw, max_relative = 1e-15);
    assert_relative_eq!(d.b, db, max_relative = 1e-15);
}

/// A method on a parameter the caller differentiates.
#[grad(wrt(line, x))]
fn through_a_parameter(line: &Line, x: f64) -> f64 {
    line.predict(x) * x
}

/// A method on a receiver the caller keeps constant: only `x` flows.
#[grad(wrt(x))]
fn through_a_constant_receiver(line: &Line, x: f64) -> f64 {
    line.predict(x).exp()
}

#[test]
fn methods_on_parameters_active_or_constant() {
    let line = Line { w: 3.0, b: -2.0 };
    let (v, d_line, d_x) = through_a_parameter_grad(&line, 2.0);
    // (w x + b) x
    assert_eq!(v, 8.0);
    assert_eq!(d_line, Line { w: 4.0, b: 2.0 });
    assert_eq!(d_x, 2.0 * 3.0 * 2.0 - 2.0);

    let (v, d_x) = through_a_constant_receiver_grad(&line, 0.5);
    let want = (3.0f64 * 0.5 - 2.0).exp();
    assert_eq!(v, want);
    assert_relative_eq!(d_x, 3.0 * want, max_relative = 1e-15);
}

// ---- structs through a callee's `wrt` -------------------------------------

#[grad(wrt(line, x))]
fn residual(line: &Line, x: f64, y: f64) -> f64 {
    line.w * x + line.b - y
}

#[grad(wrt(line))]
fn fit(line: &Line, xs: &[f64], ys: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let r = residual(line, *x, *y);
        s += r * r;
    }
    s
}

#[test]
fn a_struct_through_a_callee_that_differentiates_it() {
    let line = Line { w: 1.5, b: 0.5 };
    let xs = [0.0, 1.0, 2.0];
    let ys = [1.0, 1.0, 4.0];
    let (v, d) = fit_grad(&line, &xs, &ys);
    let (mut want, mut dw, mut db) = (0.0, 0.0, 0.0);
    for (x, y) in xs.iter().zip(&ys) {
        let r = 1.5 * x + 0.5 - y;
        want += r * r;
        dw += 2.0 * r * x;
        db += 2.0 * r;
    }
    assert_eq!(v, want);
    assert_relative_eq!(d.w, dw, max_relative = 1e-15);
    assert_relative_eq!(d.b, db, max_relative = 1e-15);
}

// ---- tuple outputs with constant and non-float parameters -------------------

#[grad(wrt(x, v))]
fn step(x: f64, v: f64, k: f64, steps: usize) -> (f64, f64) {
    let dt = 1.0 / steps as f64;
    (x + dt * v, v - dt * k * x)
}

#[grad]
fn after_steps(x0: f64, v0: f64) -> f64 {
    let (mut x, mut v) = (x0, v0);
    for _ in 0..4 {
        let (x1, v1) = step(x, v, 2.0, 10);
        x = x1;
        v = v1;
    }
    x * v
}

#[test]
fn a_tuple_output_with_constant_and_integer_parameters() {
    let f = |x0: f64, v0: f64| {
        let (mut x, mut v) = (x0, v0);
        for _ in 0..4 {
            let (x1, v1) = (x + 0.1 * v, v - 0.1 * 2.0 * x);
            x = x1;
            v = v1;
        }
        x * v
    };
    let (x0, v0) = (0.3, -1.2);
    let (val, dx, dv) = after_steps_grad(x0, v0);
    assert_eq!(val, f(x0, v0));
    let h = 1e-6;
    assert_relative_eq!(
        dx,
        (f(x0 + h, v0) - f(x0 - h, v0)) / (2.0 * h),
        max_relative = 1e-7
    );
    assert_relative_eq!(
        dv,
        (f(x0, v0 + h) - f(x0, v0 - h)) / (2.0 * h),
        max_relative = 1e-7
    );
}

// ---- generic callees --------------------------------------------------------

#[grad]
fn cube<T: Float>(x: T, n: usize) -> T {
    x * x * x * T::from_f64(n as f64)
}

#[grad]
fn generic_caller<T: Float>(x: T) -> T {
    cube(x, 2) + x
}

#[test]
fn a_generic_callee_with_an_integer_parameter() {
    let (v, d) = generic_caller_grad(2.0f64);
    assert_eq!(v, 18.0);
    assert_eq!(d, 25.0);
    let (v, d) = generic_caller_grad(2.0f32);
    assert_eq!(v, 18.0);
    assert_eq!(d, 25.0);
}

// ---- constant parameters of types the macro cannot see ----------------------

#[derive(Clone, Debug, Differentiable)]
struct Weighted<T> {
    w: T,
}

impl<T: Float> Weighted<T> {
    /// `k` has the impl's type parameter: a constant, whose type the
    /// generated check (that it is not a float alias) may name.
    #[grad]
    fn scaled(&self, x: f64, k: T) -> f64 {
        x * x * k.to_f64() * self.w.to_f64()
    }
}

#[test]
fn a_constant_of_an_impls_type_parameter() {
    let m = Weighted { w: 2.0f32 };
    let (v, d) = m.scaled_grad(3.0, 0.5);
    assert_eq!(v, 9.0);
    assert_eq!(d, 6.0);
}

// ---- callees returning arrays and `Vec`s -------------------------------------

#[grad]
fn sub3(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[grad]
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The area of a triangle: vector helpers returning arrays, read in parts
/// or given their type where they are passed whole.
#[grad]
fn triangle_area(p: [f64; 3], q: [f64; 3], r: [f64; 3]) -> f64 {
    let u: [f64; 3] = sub3(&q, &p);
    let v: [f64; 3] = sub3(&r, &p);
    let n = cross(u, v);
    0.5 * (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt()
}

#[test]
fn helpers_returning_arrays_are_differentiated_through_their_vjp() {
    let (p, q, r) = ([0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 3.0, 0.0]);
    let (area, dp, dq, dr) = triangle_area_grad(p, q, r);
    assert_eq!(area, 3.0);
    // Moving r along z does not change the area to first order; along y
    // it grows it by |pq| / 2.
    assert_eq!(dr, [0.0, 1.0, 0.0]);
    assert_eq!(dq, [1.5, 0.0, 0.0]);
    assert_eq!(dp, [-1.5, -1.0, 0.0]);
}

#[grad]
fn scaled_copy(v: &[f64], k: f64) -> Vec<f64> {
    v.iter().map(|x| x * k).collect()
}

#[grad]
fn sum_of_squares_scaled(v: &[f64], k: f64) -> f64 {
    let w = scaled_copy(v, k);
    w.iter().map(|x| x * x).sum::<f64>() + w[0]
}

#[test]
fn a_helper_returning_a_vec_read_by_an_iterator_chain() {
    let v = [1.0, 2.0, -1.0];
    let (val, dv, dk) = sum_of_squares_scaled_grad(&v, 3.0);
    // k² Σv² + k v0 = 54 + 3
    assert_eq!(val, 57.0);
    assert_eq!(dv, vec![2.0 * 9.0 * 1.0 + 3.0, 2.0 * 9.0 * 2.0, -2.0 * 9.0]);
    assert_eq!(dk, 2.0 * 3.0 * 6.0 + 1.0);
}

/// A damped oscillator's right-hand side, returning the derivative of the
/// state as an array, called four times per RK4 step in a time loop.
#[grad(wrt(x, v, c))]
fn rhs(x: f64, v: f64, k: f64, c: f64) -> [f64; 2] {
    [v, -k * x - c * v]
}

#[grad(wrt(x0, c))]
fn rk4_energy(x0: f64, c: f64, steps: usize) -> f64 {
    let k = 4.0;
    let dt = 0.05;
    let (mut x, mut v) = (x0, 0.0);
    for _ in 0..steps {
        let k1 = rhs(x, v, k, c);
        let k2 = rhs(x + 0.5 * dt * k1[0], v + 0.5 * dt * k1[1], k, c);
        let k3 = rhs(x + 0.5 * dt * k2[0], v + 0.5 * dt * k2[1], k, c);
        let k4 = rhs(x + dt * k3[0], v + dt * k3[1], k, c);
        x += dt / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]);
        v += dt / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]);
    }
    0.5 * v * v + 0.5 * k * x * x
}

#[test]
fn an_array_returning_right_hand_side_in_a_time_loop() {
    let (x0, c, steps) = (1.0, 0.3, 40);
    let (e, dx0, dc) = rk4_energy_grad(x0, c, steps);
    assert_eq!(e, rk4_energy(x0, c, steps));
    let h = 1e-6;
    let fd_x = (rk4_energy(x0 + h, c, steps) - rk4_energy(x0 - h, c, steps)) / (2.0 * h);
    let fd_c = (rk4_energy(x0, c + h, steps) - rk4_energy(x0, c - h, steps)) / (2.0 * h);
    assert_relative_eq!(dx0, fd_x, max_relative = 1e-6);
    assert_relative_eq!(dc, fd_c, max_relative = 1e-6);
}

// ---- a struct a call returned, its method called in a branch arm ---------

#[derive(Clone, Copy, Debug, Differentiable)]
pub struct Charge {
    pub q: f64,
    pub r: f64,
}

impl Charge {
    #[grad(wrt(self))]
    pub fn energy(&self) -> f64 {
        self.q * self.q / self.r
    }
}

#[grad(jvp)]
fn charge(a: f64, b: f64) -> Charge {
    Charge {
        q: a * 3.0,
        r: 1.0 + b * b,
    }
}

/// `p`'s type is stated, not `Charge`'s `Default` (it has none): the
/// arms that do not call `energy` had to make a placeholder of its slot,
/// a `Charge`, with `Default::default()` (E0277 at the attribute; difftest
/// `made_in_arm`, 12 of 500 programs at seed 2024).
#[grad(jvp)]
fn charge_in_arms(a: f64, b: f64) -> f64 {
    let p: Charge = charge(a, b);
    let mut s = a * b;
    if a > 0.5 {
        s += p.energy();
    }
    if b < 0.0 {
        let q: Charge = charge(b, a);
        s += Charge::energy(&q) * 2.0;
    } else if a < 0.0 {
        s -= Charge::energy(&p);
    }
    s
}

#[test]
fn a_call_results_method_in_one_arm() {
    let energy = |a: f64, b: f64| (a * 3.0) * (a * 3.0) / (1.0 + b * b);
    let f = |a: f64, b: f64| {
        let mut s = a * b;
        if a > 0.5 {
            s += energy(a, b);
        }
        if b < 0.0 {
            s += 2.0 * energy(b, a);
        } else if a < 0.0 {
            s -= energy(a, b);
        }
        s
    };
    for (a, b) in [(0.7, 0.3), (0.2, -0.4), (-0.6, 0.5), (1.3, -1.1)] {
        let (v, da, db) = charge_in_arms_grad(a, b);
        assert_eq!(v, f(a, b));
        let h = 1e-6;
        let ca = (f(a + h, b) - f(a - h, b)) / (2.0 * h);
        let cb = (f(a, b + h) - f(a, b - h)) / (2.0 * h);
        assert_relative_eq!(da, ca, max_relative = 1e-7, epsilon = 1e-8);
        assert_relative_eq!(db, cb, max_relative = 1e-7, epsilon = 1e-8);
        let (vj, t) = charge_in_arms_jvp(a, b, 0.3, -1.2);
        assert_eq!(vj, v);
        assert_relative_eq!(
            t,
            0.3 * da - 1.2 * db,
            max_relative = 1e-12,
            epsilon = 1e-12
        );
    }
}

// ---- a call's result in an arm, read by a call nested deeper -----------

#[grad]
fn times(a: f64, b: f64) -> f64 {
    a * b
}

#[grad]
fn product_and_sum(a: f64, b: f64) -> [f64; 2] {
    [a * b, a + b]
}

/// `d` is a call's result in the arm the early return leaves (the rest of
/// the function), passed out of it; a call in a `match` arm inside the loop
/// takes it again in the reverse sweep. Before the fix, that reverse arm
/// read the arm's `Option` wrapper as the float (E0308 inside the
/// expansion; difftest seed 2024, program 329).
#[grad(wrt(x))]
fn outer_arm_result_read_in_a_loop(x: f64, c: f64, n: usize) -> f64 {
    if n > 100 {
        return x;
    }
    let d = times(c, 2.0);
    let mut s = 0.0;
    for k in 0..n {
        match k % 2 {
            0 => s += x,
            _ => {
                let r = product_and_sum(d, x * k as f64);
                s += r[0] + r[1];
            }
        }
    }
    s
}

#[test]
fn a_result_an_arm_passes_out_is_taken_back_by_a_call_nested_deeper() {
    let (x, c) = (0.7_f64, 1.3_f64);
    let d = 2.0 * c;
    // k odd: d·x·k + d + x·k; k even: x.
    let odd = [1.0, 3.0];
    let (v, dx) = outer_arm_result_read_in_a_loop_grad(x, c, 4);
    let want: f64 = 2.0 * x + odd.iter().map(|k| d * x * k + d + x * k).sum::<f64>();
    assert_relative_eq!(v, want, max_relative = 1e-14);
    assert_relative_eq!(
        dx,
        2.0 + odd.iter().map(|k| d * k + k).sum::<f64>(),
        max_relative = 1e-14
    );
    assert_eq!(outer_arm_result_read_in_a_loop_grad(x, c, 200), (x, 1.0));
}

// ---- a tuple from a method of a constant receiver ---------------------

struct Lens {
    f: f64,
}

impl Lens {
    #[grad]
    fn refract(&self, y: f64, u: f64) -> (f64, f64) {
        (y, u - y / self.f)
    }
}

/// `let (y, u) = lens.refract(x, x);` of a `#[grad]` method on a struct
/// the function takes as a constant: bound whole, read by element, as on
/// `self`. (It was refused as a destructuring `let`.)
#[grad]
fn through_lens(x: f64, lens: &Lens) -> f64 {
    let (y, u) = lens.refract(x, 0.5 * x);
    y * u + y
}

#[test]
fn a_constant_receivers_method_returning_a_tuple_is_destructured() {
    let lens = Lens { f: 2.0 };
    for x in [-1.5, 0.25, 3.0] {
        // y = x, u = x/2 − x/2 = 0: x·0 + x; written for f = 4 too below.
        let (v, d) = through_lens_grad(x, &lens);
        assert_eq!(v, through_lens(x, &lens));
        assert_relative_eq!(d, 1.0, max_relative = 1e-15);
    }
    let lens = Lens { f: 4.0 };
    // u = x/2 − x/4 = x/4: y·u + y = x²/4 + x.
    let (v, d) = through_lens_grad(2.0, &lens);
    assert_eq!(v, 3.0);
    assert_relative_eq!(d, 2.0, max_relative = 1e-15);
}

// ---- sub-slices of a local array lent in a loop -----------------------

#[grad]
fn dotp(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Blocks of a local array given to a `#[grad]` function in a loop: read
/// again in the reverse sweep where the array is not written after
/// (`frozen`), and recorded as a copy where it is (`rewritten`), whose
/// values are those of the call's time.
#[grad(wrt(w))]
fn frozen(w: &[f64], n: usize) -> f64 {
    let mut q = vec![0.0; 2 * n];
    for i in 0..2 * n {
        q[i] = w[i] * w[i];
    }
    let mut loss = 0.0;
    for i in 0..2 {
        loss += dotp(&q[i * n..(i + 1) * n], &q[0..n]);
    }
    loss
}

#[grad(wrt(w))]
fn rewritten(w: &[f64], n: usize) -> f64 {
    let mut q = vec![0.0; 2 * n];
    for i in 0..2 * n {
        q[i] = w[i] * w[i];
    }
    let mut loss = 0.0;
    for i in 0..2 {
        loss += dotp(&q[i * n..(i + 1) * n], &q[0..n]);
        q[i] *= w[0];
    }
    loss + q[0]
}

#[test]
fn sub_slices_of_a_local_array_lent_in_a_loop() {
    // q = w², loss = q0² + q1² + q2 q0 + q3 q1.
    let w = [0.1, 0.2, 0.3, 0.4];
    let (v, g) = frozen_grad(&w, 2);
    assert_eq!(v, frozen(&w, 2));
    let q: Vec<f64> = w.iter().map(|x| x * x).collect();
    let dq = [2.0 * q[0] + q[2], 2.0 * q[1] + q[3], q[0], q[1]];
    for k in 0..4 {
        assert_relative_eq!(g[k], dq[k] * 2.0 * w[k], max_relative = 1e-12);
    }
    for w in [[0.1, 0.2, 0.3, 0.4], [-0.7, 1.3, 0.45, -2.1]] {
        let (v, g) = rewritten_grad(&w, 2);
        assert_eq!(v, rewritten(&w, 2));
        let report = autodiff::check_gradient(|w| rewritten(w, 2), &w, &g, 1e-6, 1e-9, 1e-6);
        assert!(report.passed, "{report}");
    }
}

mod structs_kept_by_a_branch {
    use super::*;

    /// No `Default`: what `#[grad]` generates may not need it.
    #[derive(Differentiable, Clone, Copy, Debug)]
    struct Cand {
        x: f64,
        f: f64,
    }

    #[grad]
    fn candidate(x: f64, a: f64) -> Cand {
        Cand {
            x,
            f: (x - a).powi(2),
        }
    }

    /// The best struct so far, kept by `best = c;` in an `if` in a loop
    /// (trial 7 r210b): the other arm passed out `Default::default()` for
    /// the copy, which needed `Cand: Default` (E0277 inside the
    /// expansion).
    #[grad]
    fn grid_search(a: f64, lo: f64) -> f64 {
        let mut best = candidate(lo, a);
        for k in 1..8 {
            let c = candidate(lo + 0.37 * k as f64, a);
            if c.f < best.f {
                best = c;
            }
        }
        best.f + 0.1 * best.x
    }

    #[derive(Differentiable, Clone, Copy, Debug)]
    struct Ball {
        y: f64,
        v: f64,
    }

    impl Ball {
        #[grad(wrt(self))]
        fn fallen(&self, dt: f64) -> Ball {
            Ball {
                y: self.y + self.v * dt,
                v: self.v - 9.81 * dt,
            }
        }

        /// A guard clause, then the struct replaced by a call's and a field
        /// changed after (trial 7 r210: `Ball: Default` needed).
        #[grad(wrt(self))]
        fn tick(&mut self, dt: f64) {
            if self.y < 0.0 {
                self.v = -self.v;
                return;
            }
            *self = self.fallen(dt);
            self.v *= 0.999;
        }
    }

    #[grad]
    fn bounce(y0: f64, v0: f64) -> f64 {
        let mut b = Ball { y: y0, v: v0 };
        for _ in 0..10 {
            b.tick(0.1);
        }
        b.y
    }

    #[test]
    fn a_struct_kept_by_one_arm_needs_no_default() {
        for (a, lo) in [(1.0, 0.1), (-0.5, -2.0), (2.2, 0.3)] {
            // The best candidate, x = lo + 0.37 k, and its gradient:
            // f = (x - a)^2, so d/da = -2 (x - a), d/dlo = 2 (x - a) + 0.1.
            let x = (0..8)
                .map(|k| lo + 0.37 * k as f64)
                .min_by(|p, q| (p - a).powi(2).total_cmp(&(q - a).powi(2)))
                .unwrap();
            let (v, da, dlo) = grid_search_grad(a, lo);
            assert_eq!(v, grid_search(a, lo));
            assert_relative_eq!(v, (x - a).powi(2) + 0.1 * x, max_relative = 1e-12);
            assert_relative_eq!(da, -2.0 * (x - a), max_relative = 1e-12);
            assert_relative_eq!(dlo, 2.0 * (x - a) + 0.1, max_relative = 1e-12);
        }
        // Central differences, h = 1e-6, away from the bounces' kinks.
        for (y0, v0) in [(1.0, 0.0), (2.5, 1.0), (0.7, -0.3)] {
            let (v, dy0, dv0) = bounce_grad(y0, v0);
            assert_eq!(v, bounce(y0, v0));
            let h = 1e-6;
            let cy = (bounce(y0 + h, v0) - bounce(y0 - h, v0)) / (2.0 * h);
            let cv = (bounce(y0, v0 + h) - bounce(y0, v0 - h)) / (2.0 * h);
            assert_relative_eq!(dy0, cy, max_relative = 1e-6, epsilon = 1e-8);
            assert_relative_eq!(dv0, cv, max_relative = 1e-6, epsilon = 1e-8);
        }
    }
}

mod tuple_parts_listed {
    use super::*;

    #[grad]
    fn polar(r: f64, t: f64) -> (f64, f64) {
        (r * t.cos(), r * t.sin())
    }

    #[grad]
    fn unit2(v: [f64; 2]) -> [f64; 2] {
        let n = (v[0] * v[0] + v[1] * v[1]).sqrt();
        [v[0] / n, v[1] / n]
    }

    #[grad]
    fn checked_polar(r: f64, t: f64) -> Option<(f64, f64)> {
        if r < 0.0 {
            return None;
        }
        Some((r * t.cos(), r * t.sin()))
    }

    /// A tuple's elements listed in an array given to a call (trial 7
    /// r202): refused before as a value #[grad] could not follow.
    #[grad]
    fn heading(r: f64, t: f64) -> f64 {
        let (x, y) = polar(r, t);
        let h = unit2([x, y]);
        h[0] + 0.5 * h[1]
    }

    #[grad]
    fn checked_heading(r: f64, t: f64) -> Option<f64> {
        let (x, y) = checked_polar(r, t)?;
        let h = unit2([x, 2.0 * y]);
        Some(h[1])
    }

    #[test]
    fn a_tuples_elements_in_an_array_argument() {
        for (r, t) in [(2.0, 0.5), (0.3, -2.0), (5.0, 3.0)] {
            // cos t + sin t / 2: r drops out.
            let (v, dr, dt) = heading_grad(r, t);
            assert_eq!(v, heading(r, t));
            assert_relative_eq!(v, t.cos() + 0.5 * t.sin(), max_relative = 1e-12);
            assert_relative_eq!(dr, 0.0, epsilon = 1e-12);
            assert_relative_eq!(
                dt,
                -t.sin() + 0.5 * t.cos(),
                max_relative = 1e-12,
                epsilon = 1e-12
            );
            // 2 sin t / sqrt(cos^2 t + 4 sin^2 t).
            let g = |t: f64| 2.0 * t.sin() / (t.cos().powi(2) + 4.0 * t.sin().powi(2)).sqrt();
            let (v, dr, dt) = checked_heading_grad(r, t).unwrap();
            assert_eq!(Some(v), checked_heading(r, t));
            assert_relative_eq!(v, g(t), max_relative = 1e-12);
            assert_relative_eq!(dr, 0.0, epsilon = 1e-12);
            let h = 1e-6;
            assert_relative_eq!(
                dt,
                (g(t + h) - g(t - h)) / (2.0 * h),
                max_relative = 1e-6,
                epsilon = 1e-8
            );
        }
        assert!(checked_heading_grad(-1.0, 0.5).is_none());
    }

    // `[p.x, p.y]` of a call's struct, bound with its type (what the
    // refusal of the bare literal asks for, ui `array_of_call_fields`).
    #[derive(Clone, Copy, autodiff::Differentiable)]
    struct Pair {
        x: f64,
        y: f64,
    }

    #[grad]
    fn pair(a: f64, b: f64) -> Pair {
        Pair { x: a * b, y: a + b }
    }

    #[grad]
    fn norm2(v: [f64; 2]) -> f64 {
        (v[0] * v[0] + v[1] * v[1]).sqrt()
    }

    #[grad]
    fn norm_of_fields(a: f64, b: f64) -> f64 {
        let p = pair(a, b);
        let v: [f64; 2] = [p.x, p.y];
        norm2(v)
    }

    #[grad]
    fn norms_in_a_loop(a: f64) -> f64 {
        let mut s = 0.0;
        let mut c = 1.0;
        for i in 0..3 {
            let p = pair(a, c);
            let v: [f64; 2] = [p.x, 2.0 * p.y];
            s += norm2(v) * (i as f64);
            c = p.x;
        }
        s
    }

    #[test]
    fn a_calls_struct_fields_in_a_typed_array_argument() {
        let h = 1e-6;
        for (a, b) in [(0.7, 1.3), (-2.0, 0.4), (3.0, -1.5)] {
            // sqrt(a²b² + (a + b)²).
            let (v, da, db) = norm_of_fields_grad(a, b);
            let n = (a * a * b * b + (a + b) * (a + b)).sqrt();
            assert_relative_eq!(v, n, max_relative = 1e-12);
            assert_relative_eq!(da, (a * b * b + a + b) / n, max_relative = 1e-12);
            assert_relative_eq!(db, (a * a * b + a + b) / n, max_relative = 1e-12);
            let (v, d) = norms_in_a_loop_grad(a);
            assert_eq!(v, norms_in_a_loop(a));
            let fd = (norms_in_a_loop(a + h) - norms_in_a_loop(a - h)) / (2.0 * h);
            assert_relative_eq!(d, fd, max_relative = 1e-6, epsilon = 1e-6);
        }
    }
}

// ---- a function bound to a name, then called ---------------------------

#[grad]
fn square(x: f64) -> f64 {
    x * x
}

#[grad(jvp)]
fn through_an_alias(a: f64, b: f64) -> f64 {
    let g = square;
    let mut s = g(a);
    for k in 1..3 {
        s += g(a * b + k as f64);
    }
    s
}

#[test]
fn a_function_bound_to_a_local_name_is_called_through_its_gradient() {
    for (a, b) in [(0.7, 1.3), (-2.0, 0.5), (1.5, -0.25)] {
        // a² + (ab + 1)² + (ab + 2)².
        let (v, da, db) = through_an_alias_grad(a, b);
        assert_eq!(v, through_an_alias(a, b));
        let (u1, u2) = (a * b + 1.0, a * b + 2.0);
        assert_relative_eq!(v, a * a + u1 * u1 + u2 * u2, max_relative = 1e-12);
        assert_relative_eq!(da, 2.0 * a + 2.0 * b * (u1 + u2), max_relative = 1e-12);
        assert_relative_eq!(
            db,
            2.0 * a * (u1 + u2),
            max_relative = 1e-12,
            epsilon = 1e-12
        );
        let (_, t) = through_an_alias_jvp(a, b, 1.0, -2.0);
        assert_relative_eq!(t, da - 2.0 * db, max_relative = 1e-12, epsilon = 1e-12);
    }
}

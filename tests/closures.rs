//! Closures bound by `let` and called by name: each call is the closure's
//! body at the call, its captures what they held where it was made.

use approx::assert_relative_eq;
use autodiff::grad;

fn central(f: impl Fn(f64, f64) -> f64, x: f64, y: f64) -> (f64, f64) {
    let h = 1e-6;
    (
        (f(x + h, y) - f(x - h, y)) / (2.0 * h),
        (f(x, y + h) - f(x, y - h)) / (2.0 * h),
    )
}

/// Called on active values, twice; a capture by reference of a variable
/// shadowed after the closure was made; calls inside a loop, on a value
/// the loop carries.
#[grad]
fn uses(x: f64, y: f64) -> f64 {
    let sq = |v: f64| v * v;
    let k = 2.0 * y;
    let scaled = |v| v * k;
    let k = 100.0;
    let mut s = sq(x) + sq(y) + scaled(x) + k * 0.0;
    for i in 0..3 {
        s += scaled(s) * 0.1 + sq(i as f64 * x);
    }
    s
}

/// A closure of two parameters, by `move`, called in a branch.
#[grad]
fn pairs(x: f64, y: f64) -> f64 {
    let dist = move |a: f64, b: f64| ((a - b) * (a - b) + 1.0).sqrt();
    if x > y {
        dist(x, y) * y
    } else {
        dist(y, x) + x
    }
}

#[test]
fn closures_called_by_name_are_differentiated() {
    for (x, y) in [(0.7, -0.4), (-1.2, 0.3), (2.0, 2.5)] {
        for (f, g) in [
            (
                uses as fn(f64, f64) -> f64,
                uses_grad as fn(f64, f64) -> (f64, f64, f64),
            ),
            (pairs, pairs_grad),
        ] {
            let (v, dx, dy) = g(x, y);
            assert_eq!(v, f(x, y));
            let (fx, fy) = central(f, x, y);
            assert!((dx - fx).abs() < 1e-6 * fx.abs().max(1.0), "{dx} vs {fx}");
            assert!((dy - fy).abs() < 1e-6 * fy.abs().max(1.0), "{dy} vs {fy}");
        }
    }
}

/// `if let` over a constant, and `match` arms that update an
/// accumulator: branches like any other.
#[grad]
fn optional_terms(x: f64, y: f64, extra: Option<f64>, kind: u8) -> f64 {
    let mut loss = x * y;
    if let Some(l) = extra {
        loss += l * x;
    } else if kind > 5 {
        loss -= y;
    }
    match kind {
        0 => loss *= 2.0,
        1 | 2 => {
            loss += x.sin();
        }
        _ => {}
    }
    loss
}

#[test]
fn if_let_and_match_arms_update_accumulators() {
    for (extra, kind) in [(Some(2.0), 0u8), (None, 1), (Some(-1.0), 2), (None, 7)] {
        let f = |x: f64, y: f64| optional_terms(x, y, extra, kind);
        let (v, dx, dy) = optional_terms_grad(0.7, -0.4, extra, kind);
        assert_eq!(v, f(0.7, -0.4));
        let (fx, fy) = central(f, 0.7, -0.4);
        assert!((dx - fx).abs() < 1e-8, "{dx} vs {fx}");
        assert!((dy - fy).abs() < 1e-8, "{dy} vs {fy}");
    }
}

// ---- closures taking arrays ---------------------------------------------

#[grad]
fn sub2(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

#[grad]
fn norm2(v: [f64; 2]) -> f64 {
    (v[0] * v[0] + v[1] * v[1]).sqrt()
}

/// A closure taking an array, given arrays by name and as lists, passing
/// it to `#[grad]` calls, reading it by index, and changing its own copy
/// (`mut p`): E0368 inside the expansion, or refused, before (new-user
/// trial).
#[grad]
fn closures_of_arrays(x: f64, y: f64) -> f64 {
    let a = [x, y];
    let c = [0.5 * y, -x];
    let dist = |p: [f64; 2]| norm2(sub2(p, c));
    let along = |p: [f64; 2]| ((p[0] - c[0]).powi(2) + (p[1] * c[1]).powi(2) + 1.0).sqrt();
    let bump = |mut p: [f64; 2]| {
        p[0] += y;
        p[0] * p[1]
    };
    dist(a) * dist([y, 1.0]) + along([1.0, x]) + bump(a) + a[0] + bump([y, a[1]])
}

#[test]
fn closures_taking_arrays() {
    for (x, y) in [(0.3, 0.4), (-1.2, 0.7), (2.0, -0.5), (0.9, 1.6)] {
        let (v, dx, dy) = closures_of_arrays_grad(x, y);
        assert_eq!(v, closures_of_arrays(x, y));
        let (fx, fy) = central(closures_of_arrays, x, y);
        approx::assert_relative_eq!(dx, fx, max_relative = 1e-6, epsilon = 1e-8);
        approx::assert_relative_eq!(dy, fy, max_relative = 1e-6, epsilon = 1e-8);
    }
}

/// A closure bound by `let` in a filtered loop that reads the loop's
/// element through its reference (`*y`): the macro binds the element as
/// the float, and the closure's `let`, kept beside its inlined calls,
/// reads it so. (It was E0614 inside the expansion, "`f64` cannot be
/// dereferenced"; difftest seed 2024.)
#[grad]
fn closure_reads_the_element_by_reference(x0: f64, xs: &[f64]) -> f64 {
    let mut s = x0;
    for (j, y) in xs.iter().enumerate().filter(|(j, _)| *j != 3) {
        s /= (*y) * (*y) + 1.0;
        let c = |v: f64| ((*y) * v).sin();
        s += c(s) * j as f64;
    }
    s
}

#[test]
fn a_let_closure_reads_a_loop_element_through_its_reference() {
    let (v, d, dxs) = closure_reads_the_element_by_reference_grad(0.5, &[1.0, 2.0]);
    // s = x0/2 after the first element, then x0/10 + sin(2·x0/10).
    assert_eq!(v, closure_reads_the_element_by_reference(0.5, &[1.0, 2.0]));
    assert!((v - (0.05 + 0.1_f64.sin())).abs() < 1e-15);
    assert!((d - (0.1 + 0.2 * 0.1_f64.cos())).abs() < 1e-15);
    assert_eq!(dxs.len(), 2);
}

// ---- closures given slices: chains over captures, rows, sub-slices ----

fn check_slice_gradient(f: impl Fn(&[f64]) -> f64, w: &[f64], claimed: &[f64]) {
    let report = autodiff::check_gradient(f, w, claimed, 1e-6, 1e-9, 1e-6);
    assert!(report.passed, "{report}");
}

/// A closure whose body runs a chain over a captured array zipped with
/// its slice parameter, as a linear model's `predict` is written, called
/// on a parameter, on each row of the data (by `for`, by index, inside a
/// chain's closure) and on a local `Vec` lent.
#[grad(wrt(w, b))]
fn predicted(w: &[f64], b: f64, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let predict = |r: &[f64]| b + w.iter().zip(r).map(|(a, c)| a * c).sum::<f64>();
    let norm = |v: &[f64]| v.iter().map(|a| a * a).sum::<f64>().sqrt();
    let mut loss = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let e = predict(x) - y;
        loss += e * e;
    }
    for i in 0..xs.len() {
        loss += 0.5 * (predict(&xs[i]) - ys[i]).abs();
    }
    let doubled: Vec<f64> = w.iter().map(|a| 2.0 * a).collect();
    loss + xs.iter().map(|x| predict(x).tanh()).sum::<f64>() + norm(&doubled) + predict(w)
}

/// Sub-slices given to a closure (its bounds checked as the slice's are),
/// and a closure whose inner closure binds a name of the same spelling.
#[grad(wrt(w))]
fn windows_by_hand(w: &[f64], x: &[f64]) -> f64 {
    let weighted = |r: &[f64], k: f64| r.iter().map(|r| r * k).sum::<f64>();
    let ends = |r: &[f64]| r[0] * r[r.len() - 1];
    let mut s = weighted(&w[0..=1], x[0]) + weighted(&w[1..], x[1]) + weighted(w, 2.0);
    for i in 0..w.len() - 1 {
        s += ends(&w[i..i + 2]) * x[i % 2];
    }
    s
}

#[test]
fn closures_given_rows_sub_slices_and_captured_chains() {
    let xs = vec![
        vec![3.0, -4.0, 0.5],
        vec![0.5, 0.25, 2.0],
        vec![-1.0, 1.5, -0.5],
    ];
    let ys = [1.0, -2.0, 0.3];
    for w in [[1.0, 2.0, -0.5], [-0.3, 0.1, 0.8], [0.05, -1.2, 0.4]] {
        let b = 0.5;
        let (v, dw, db) = predicted_grad(&w, b, &xs, &ys);
        assert_eq!(v, predicted(&w, b, &xs, &ys));
        let claimed: Vec<f64> = [dw, vec![db]].concat();
        let at: Vec<f64> = [w.to_vec(), vec![b]].concat();
        check_slice_gradient(|p| predicted(&p[..3], p[3], &xs, &ys), &at, &claimed);

        let x = [0.7, -1.3];
        let (v, dw) = windows_by_hand_grad(&w, &x);
        assert_eq!(v, windows_by_hand(&w, &x));
        check_slice_gradient(|p| windows_by_hand(p, &x), &w, &dw);
    }
}

#[grad(wrt(w))]
fn past_the_end(w: &[f64]) -> f64 {
    let first = |r: &[f64]| r[0];
    first(&w[1..5])
}

/// `_grad` panics where the function does, with Rust's words.
#[test]
#[should_panic(expected = "range end index 5 out of range for slice of length 3")]
fn a_sub_slice_past_the_end_panics_as_the_function_does() {
    let _ = past_the_end_grad(&[1.0, 2.0, 3.0]);
}

// ---- closures returning a list ------------------------------------------

/// A closure that returns a list, bound by a `let`: the list, read with
/// the call's arguments, is a local array. An RK4 step's right-hand side
/// written as one, and a planar link whose body binds names of its own
/// (one of them also the caller's).
#[grad(jvp)]
fn rk4_closure(x0: f64, v0: f64, k: f64) -> f64 {
    let rhs = |x: f64, v: f64| [v, -k * x - 0.1 * v];
    let dt = 0.1;
    let (mut x, mut v) = (x0, v0);
    for _ in 0..5 {
        let k1 = rhs(x, v);
        let k2 = rhs(x + 0.5 * dt * k1[0], v + 0.5 * dt * k1[1]);
        let k3 = rhs(x + 0.5 * dt * k2[0], v + 0.5 * dt * k2[1]);
        let k4 = rhs(x + dt * k3[0], v + dt * k3[1]);
        x += dt / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]);
        v += dt / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]);
    }
    x * x + v
}

#[grad(jvp)]
fn link_tip(a: f64, b: f64, c: f64) -> f64 {
    let link = |angle: f64, l: f64| -> [f64; 2] {
        let c = angle.cos();
        let s = angle.sin() * c;
        [l * c, l * s]
    };
    let swap = |p: [f64; 2]| vec![p[1], -c * p[0]];
    let d = link(a + b, 1.0 + c);
    let e = swap([d[0], b]);
    d[0] + d[1] * c + e[1] * e[0]
}

#[test]
fn closures_returning_a_list() {
    for (x, y, z) in [(1.0, 2.0, 3.0), (-0.4, 0.9, 0.25), (2.2, -1.3, 1.7)] {
        type Of = fn(f64, f64, f64) -> f64;
        type Grad = fn(f64, f64, f64) -> (f64, f64, f64, f64);
        type Jvp = fn(f64, f64, f64, f64, f64, f64) -> (f64, f64);
        let cases: [(Of, Grad, Jvp); 2] = [
            (rk4_closure, rk4_closure_grad, rk4_closure_jvp),
            (link_tip, link_tip_grad, link_tip_jvp),
        ];
        for (f, g, j) in cases {
            let (v, gx, gy, gz) = g(x, y, z);
            assert_eq!(v, f(x, y, z));
            let (fx, fy) = central(|a, b| f(a, b, z), x, y);
            let h = 1e-6;
            let fz = (f(x, y, z + h) - f(x, y, z - h)) / (2.0 * h);
            for (got, want) in [(gx, fx), (gy, fy), (gz, fz)] {
                assert!(
                    (got - want).abs() <= 1e-6 * (1.0 + want.abs()),
                    "{got} {want}"
                );
            }
            let (_, t) = j(x, y, z, 0.3, -0.5, 0.7);
            let along = 0.3 * gx - 0.5 * gy + 0.7 * gz;
            assert!(
                (t - along).abs() <= 1e-12 * (1.0 + along.abs()),
                "{t} {along}"
            );
        }
    }
}

/// Closures returning a tuple, destructured at the call: a controller's
/// two outputs, `let` statements before the tuple, an element ignored, a
/// `mut` element changed after, an argument computed once.
#[grad]
fn controlled(k: f64, x: f64, ys: &[f64]) -> f64 {
    let ctrl = |e: f64| {
        let s = k * e;
        (s, s * e, -s)
    };
    let polar = |r: f64, t: f64| (r * t.cos(), r * t.sin());
    let mut acc = 0.0;
    for (i, y) in ys.iter().enumerate() {
        let (a, mut b, _) = ctrl(y * x + i as f64);
        b += a;
        let (px, py) = polar(b.abs().sqrt() + 1.0, k);
        acc += px * py + b;
    }
    let (u, v) = polar(x, x * k);
    acc + u * v
}

#[test]
fn closures_returning_a_tuple() {
    for (k, x, ys) in [
        (0.7, 1.3, [0.3, 1.2, -0.4]),
        (-0.45, 0.2, [2.5, -1.1, 0.8]),
        (1.6, -0.9, [0.05, 0.6, 1.9]),
    ] {
        let (v, dk, dx, dys) = controlled_grad(k, x, &ys);
        assert_eq!(v, controlled(k, x, &ys));
        let at = [[k, x].as_slice(), &ys].concat();
        let claimed = [[dk, dx].as_slice(), &dys].concat();
        check_slice_gradient(|p| controlled(p[0], p[1], &p[2..]), &at, &claimed);
    }
}

/// A closure taking a slice and returning an array, given a local array
/// by `&` whose name is its parameter's (trial 5 r93: refused, the
/// reference taken for one made to point elsewhere).
#[grad]
fn slice_to_array_closure(a: f64) -> f64 {
    let grad_at = |w: &[f64]| [2.0 * (w[0] - a), 2.0 * w[1]];
    let w = vec![a * a, 1.0];
    let g = grad_at(&w);
    g[0] * g[1]
}

#[test]
fn a_closure_from_a_slice_to_an_array() {
    // 4 (a² − a)
    for a in [1.5, -0.5, 3.0] {
        let (v, d) = slice_to_array_closure_grad(a);
        assert_eq!(v, slice_to_array_closure(a));
        assert_eq!(d, 4.0 * (2.0 * a - 1.0));
    }
}

/// `move` closures capture what they read where they are made: an array
/// changed after (trial 6 r135: the closure read the array at the call, a
/// wrong value and gradient), in a loop whose closure a chain calls, an
/// array replaced whole, and a parameter of the closure named as a
/// variable after it.
#[grad]
fn move_captures(x: f64, y: f64) -> f64 {
    let mut a = [x, y];
    let g = move |t: f64| a[0] * t;
    a[0] = y;
    let mut s = g(1.0) + a[0];
    let mut w = [x, 1.0];
    for _ in 0..3 {
        let f = move |x: f64| x * w[0] + w[1];
        w[0] = w[0] * 0.5 + 0.1;
        w[1] += w[0];
        s += (1..3).map(|k| f(y * k as f64)).sum::<f64>() * w[1];
        s += f(x);
    }
    let mut b = [x * y, x];
    let h = move || b[0] - b[1];
    b = [y, y];
    s + h() * b[0]
}

#[test]
fn move_closures_capture_arrays_where_they_are_made() {
    for (x, y) in [(2.0, 3.0), (0.3, 0.5), (-1.2, 0.7)] {
        let (v, dx, dy) = move_captures_grad(x, y);
        assert_eq!(v, move_captures(x, y));
        let (cx, cy) = central(move_captures, x, y);
        assert!(
            (dx - cx).abs() <= 1e-6 * (1.0 + cx.abs()),
            "d/dx {dx} against {cx}"
        );
        assert!(
            (dy - cy).abs() <= 1e-6 * (1.0 + cy.abs()),
            "d/dy {dy} against {cy}"
        );
    }
}

/// A `move` closure over a local `Vec` (trial 6 r144) and over an order
/// of indices (r169), its calls inlined: the closure kept beside them
/// moved what they read (E0382 inside the expansion).
#[grad]
#[allow(clippy::useless_vec)]
fn move_over_vecs(x: f64, y: f64) -> f64 {
    let v = vec![x, y];
    let g = move |t: f64| v[0] * t + v[1];
    let order: Vec<usize> = vec![1, 0];
    let w = [x * y, y];
    let pick = move |j: usize| order[j];
    g(2.0) + w[pick(0)]
}

#[test]
fn move_closures_over_vecs() {
    // 2x + y + y
    assert_eq!(move_over_vecs_grad(2.0, 3.0), (10.0, 2.0, 2.0));
}

/// A `move` closure calling a `#[grad]` function and reading a `const`,
/// both named again after it: they stay the function and the constant
/// (only the locals it captures are copied where it is made).
const SCALE: f64 = 1.5;

#[grad]
fn cube(t: f64) -> f64 {
    t * t * t
}

#[grad]
fn move_closure_calling_a_function(x: f64) -> f64 {
    let mut k = x;
    let g = move |t: f64| cube(t) * k * SCALE;
    k += 1.0;
    g(x) + cube(k) * SCALE
}

#[test]
fn a_move_closure_calls_functions_by_their_names() {
    // 1.5 x⁴ + 1.5 (x + 1)³
    let (v, d) = move_closure_calling_a_function_grad(2.0);
    assert_eq!(v, move_closure_calling_a_function(2.0));
    assert_eq!(v, 1.5 * 16.0 + 1.5 * 27.0);
    assert_eq!(d, 1.5 * 4.0 * 8.0 + 1.5 * 3.0 * 9.0);
}

/// Guard clauses in a closure (trial 6 r150): refused before, with a
/// message about the function's own `return`.
#[grad(jvp)]
#[allow(clippy::needless_return)]
fn guarded_closure(x: f64, y: f64) -> f64 {
    let g = |t: f64| {
        if t < 0.0 {
            return 0.1 * t;
        }
        if t > 9.0 {
            let u = t - 9.0;
            return 3.0 + 0.5 * u;
        }
        t.sqrt()
    };
    let h = |t: f64| match t > 1.0 {
        true => return t * t,
        false => t,
    };
    g(x) + g(y) + h(x * y)
}

#[test]
fn closures_with_guard_clauses() {
    let g = |t: f64| {
        if t < 0.0 {
            0.1 * t
        } else if t > 9.0 {
            3.0 + 0.5 * (t - 9.0)
        } else {
            t.sqrt()
        }
    };
    let dg = |t: f64| {
        if t < 0.0 {
            0.1
        } else if t > 9.0 {
            0.5
        } else {
            0.5 / t.sqrt()
        }
    };
    let h = |t: f64| if t > 1.0 { t * t } else { t };
    let dh = |t: f64| if t > 1.0 { 2.0 * t } else { 1.0 };
    for (x, y) in [(4.0, -1.0), (16.0, 0.25), (-2.0, -3.0), (0.5, 1.5)] {
        let (v, dx, dy) = guarded_closure_grad(x, y);
        assert_eq!(v, guarded_closure(x, y));
        assert_relative_eq!(v, g(x) + g(y) + h(x * y), max_relative = 1e-15);
        assert_relative_eq!(dx, dg(x) + dh(x * y) * y, max_relative = 1e-12);
        assert_relative_eq!(dy, dg(y) + dh(x * y) * x, max_relative = 1e-12);
        let (_, t) = guarded_closure_jvp(x, y, 1.0, 0.0);
        assert_relative_eq!(t, dx, max_relative = 1e-12);
    }
}

// ---- closures calling a #[grad] method on a struct taken by `&` ----

/// A driven oscillator's parameters, with a `#[grad]` method.
#[derive(autodiff::Differentiable, Clone)]
struct Drive {
    f0: f64,
    k: f64,
}

impl Drive {
    #[grad(wrt(self, t))]
    fn forcing(&self, t: f64) -> f64 {
        self.f0 * (1.3 * t).sin()
    }

    /// A closure calling a method on `self` (`&self`).
    #[grad(wrt(self, x))]
    fn work(&self, x: f64) -> f64 {
        let h = |t: f64| self.forcing(t) * t;
        h(x) + h(2.0 * x)
    }
}

/// Heun's method with a right-hand side closure that calls a method on a
/// captured `&Drive` (trial 11 B9: taken for a closure that may change
/// `p`, and refused).
#[grad(wrt(p, x0))]
fn driven(p: &Drive, x0: f64) -> f64 {
    let rhs = |t: f64, y: f64| -p.k * y + p.forcing(t);
    let (mut t, mut y) = (0.0, x0);
    let dt = 0.1;
    for _ in 0..5 {
        let k1 = rhs(t, y);
        let k2 = rhs(t + dt, y + dt * k1);
        y += 0.5 * dt * (k1 + k2);
        t += dt;
    }
    y + p.work(y)
}

#[test]
fn closures_calling_a_method_of_a_struct_taken_by_reference() {
    let drive = |z: &[f64]| Drive { f0: z[0], k: z[1] };
    for at in [[0.7, 0.3, 0.4], [-1.2, 0.05, 1.7], [2.0, 1.1, -0.6]] {
        let (v, dp, dx) = driven_grad(&drive(&at), at[2]);
        assert_eq!(v, driven(&drive(&at), at[2]));
        check_slice_gradient(|z| driven(&drive(z), z[2]), &at, &[dp.f0, dp.k, dx]);
    }
}

// ---- closures taking a local struct, and references to one ----

/// A phase-space point built in the function.
#[derive(autodiff::Differentiable, Clone, Copy)]
struct Phase {
    x: f64,
    v: f64,
}

impl Phase {
    #[grad(wrt(self))]
    fn energy(&self) -> f64 {
        0.5 * self.v * self.v + self.x * self.x
    }
}

#[grad(wrt(p))]
fn speed2(p: &Phase) -> f64 {
    p.v * p.v
}

/// Closures whose parameters are structs, given local structs by `&` and
/// by value (trial 12 r1080/r1081: refused, naming the split's `p_x`),
/// their bodies reading fields, calling a method and lending the struct
/// on; one called in a loop, one after a field of its argument changed.
#[grad]
fn struct_closures(x: f64, y: f64) -> f64 {
    let mut p = Phase { x, v: y };
    let q = Phase { x: y, v: x * y };
    let k = 3.0;
    let work = |s: &Phase| s.x * s.v + s.energy() + speed2(s);
    let apart = |a: Phase, b: Phase| (a.x - b.x) * (a.v - b.v);
    let mut total = apart(p, q) + apart(q, p);
    for i in 0..3 {
        let lift = |s: &Phase| s.x.sin() * k + s.v;
        total += lift(&p) * i as f64;
    }
    total += work(&p);
    p.x = 2.0 * y;
    total + work(&p)
}

/// A reference to a local struct, read by field and by method (trial 12
/// r1078: refused as "used otherwise").
#[grad]
fn through_a_reference(x: f64, y: f64) -> f64 {
    let p = Phase { x, v: y };
    let r = &p;
    r.energy() + r.x * speed2(r)
}

/// The same closures given the function's struct parameters, by
/// reference and by value (trial 13 r1126: refused, "`r` holds a struct
/// that #[grad] does not follow").
#[grad(wrt(p, q, k))]
fn closures_given_parameters(p: &Phase, q: Phase, k: f64) -> f64 {
    let work = |s: &Phase| s.x * s.v + s.energy();
    let apart = |a: Phase, b: Phase| (a.x - b.x) * (a.v - b.v);
    (work(p) + apart(*p, q)) * k
}

#[test]
fn closures_taking_struct_parameters() {
    let (p, q) = (Phase { x: 0.7, v: -0.4 }, Phase { x: 1.5, v: 2.0 });
    let (v, dp, dq, dk) = closures_given_parameters_grad(&p, q, 0.5);
    assert_eq!(v, closures_given_parameters(&p, q, 0.5));
    // (x v + ½v² + x² + (x − a)(v − b)) k, (x, v) = p, (a, b) = q.
    let (x, w, a, b) = (p.x, p.v, q.x, q.v);
    assert_relative_eq!(dp.x, (w + 2.0 * x + (w - b)) * 0.5, max_relative = 1e-12);
    assert_relative_eq!(dp.v, (x + w + (x - a)) * 0.5, max_relative = 1e-12);
    assert_relative_eq!(dq.x, -(w - b) * 0.5, max_relative = 1e-12);
    assert_relative_eq!(dq.v, -(x - a) * 0.5, max_relative = 1e-12);
    assert_relative_eq!(dk, v / 0.5, max_relative = 1e-12);
}

#[test]
fn closures_and_references_taking_local_structs() {
    let energy = |x: f64, v: f64| 0.5 * v * v + x * x;
    let closed = |x: f64, y: f64| {
        let apart = 2.0 * (x - y) * (y - x * y);
        let lift = (x.sin() * 3.0 + y) * 3.0;
        let work = |px: f64, pv: f64| px * pv + energy(px, pv) + pv * pv;
        apart + lift + work(x, y) + work(2.0 * y, y)
    };
    for (x, y) in [(0.7, -0.4), (-1.2, 0.3), (2.0, 2.5)] {
        let (v, dx, dy) = struct_closures_grad(x, y);
        assert_eq!(v, struct_closures(x, y));
        assert_relative_eq!(v, closed(x, y), max_relative = 1e-12);
        let (cx, cy) = central(closed, x, y);
        assert_relative_eq!(dx, cx, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(dy, cy, max_relative = 1e-6, epsilon = 1e-8);
        // ½y² + x² + x y²: exact.
        let (v, dx, dy) = through_a_reference_grad(x, y);
        assert_eq!(v, through_a_reference(x, y));
        assert_relative_eq!(dx, 2.0 * x + y * y, max_relative = 1e-12);
        assert_relative_eq!(dy, y + 2.0 * x * y, max_relative = 1e-12);
    }
}

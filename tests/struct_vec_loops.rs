//! Loops over a `Vec` of structs in the shapes simulations write them:
//! over a part of it (`&ps[1..]`), through `enumerate` anywhere among
//! `skip`, `take`, `rev` and `step_by`, through a last `filter`, and over
//! `windows(n)` (springs between neighbours). Each was refused before
//! ("used otherwise", with the error on every loop over the `Vec`).
//! Values exactly as the function's own, gradients against a closed form
//! and central differences (relative 1e-6, step 1e-6), at points spread
//! over both signs.

// A `Vec` of structs, as users write it where the count could change.
#![allow(clippy::useless_vec)]

use approx::assert_relative_eq;
use autodiff::grad;

#[derive(Clone, Debug, autodiff::Differentiable)]
struct Bead {
    x: f64,
    v: f64,
    on: bool,
}

impl Bead {
    #[grad(wrt(self, other))]
    fn spring(&self, other: &Bead) -> f64 {
        let d = other.x - self.x - 1.0;
        0.5 * self.v * d * d
    }
}

const POINTS: [(f64, f64); 4] = [(0.7, 1.3), (2.0, -0.4), (-1.5, 0.8), (1.2, 1.9)];

fn central(f: impl Fn(f64, f64) -> f64, a: f64, b: f64) -> (f64, f64) {
    let h = 1e-6;
    (
        (f(a + h, b) - f(a - h, b)) / (2.0 * h),
        (f(a, b + h) - f(a, b - h)) / (2.0 * h),
    )
}

/// The closed forms below read the beads' fields as arrays.
fn fields(a: f64, b: f64) -> ([f64; 4], [f64; 4], [bool; 4]) {
    (
        [a, b, a * b, a - b],
        [1.0, 2.0, 3.0, -1.0],
        [true, false, true, true],
    )
}

fn check(
    grad: fn(f64, f64) -> (f64, f64, f64),
    plain: fn(f64, f64) -> f64,
    closed: impl Fn(f64, f64) -> f64 + Copy,
) {
    for (a, b) in POINTS {
        let (v, da, db) = grad(a, b);
        assert_eq!(v, plain(a, b));
        assert_relative_eq!(v, closed(a, b), max_relative = 1e-14);
        let (ca, cb) = central(closed, a, b);
        assert_relative_eq!(da, ca, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(db, cb, max_relative = 1e-6, epsilon = 1e-8);
    }
}

#[grad]
fn over_parts(a: f64, b: f64) -> f64 {
    let beads = vec![
        Bead {
            x: a,
            v: 1.0,
            on: true,
        },
        Bead {
            x: b,
            v: 2.0,
            on: false,
        },
        Bead {
            x: a * b,
            v: 3.0,
            on: true,
        },
        Bead {
            x: a - b,
            v: -1.0,
            on: true,
        },
    ];
    let mut s = 0.0;
    for p in &beads[1..] {
        s += p.x * p.v;
    }
    for p in beads[..2].iter() {
        s += p.x * p.x;
    }
    for (i, p) in beads[1..=2].iter().enumerate() {
        s += p.x * (i as f64 + 0.5);
    }
    s
}

#[test]
fn loops_over_a_part_of_a_vec_of_structs() {
    check(over_parts_grad, over_parts, |a, b| {
        let (x, v, _) = fields(a, b);
        x[1] * v[1]
            + x[2] * v[2]
            + x[3] * v[3]
            + x[0] * x[0]
            + x[1] * x[1]
            + 0.5 * x[1]
            + 1.5 * x[2]
    });
}

/// A part out of bounds panics in `_grad` as in the function (`&beads[3..]`
/// of two beads: a loop over `3..2` alone would run no iteration).
#[grad]
fn past_the_end(a: f64, n: usize) -> f64 {
    let beads = vec![
        Bead {
            x: a,
            v: 1.0,
            on: true,
        },
        Bead {
            x: 2.0 * a,
            v: 2.0,
            on: true,
        },
    ];
    let mut s = 0.0;
    for p in &beads[n..] {
        s += p.x * p.v;
    }
    s
}

#[test]
#[should_panic]
fn a_part_past_the_end_panics_in_grad() {
    let _ = past_the_end_grad(1.0, 3);
}

#[test]
fn a_part_from_the_start_is_all_of_it() {
    assert_eq!(past_the_end_grad(1.5, 0), (7.5, 5.0));
    assert_eq!(past_the_end_grad(1.5, 2), (0.0, 0.0));
}

#[grad]
fn counted_anywhere(a: f64, b: f64) -> f64 {
    let mut beads = vec![
        Bead {
            x: a,
            v: 1.0,
            on: true,
        },
        Bead {
            x: b,
            v: 2.0,
            on: false,
        },
        Bead {
            x: a * b,
            v: 3.0,
            on: true,
        },
        Bead {
            x: a - b,
            v: -1.0,
            on: true,
        },
    ];
    let mut s = 0.0;
    // `enumerate` before `skip`: the count is the index.
    for (i, p) in beads.iter().enumerate().skip(1) {
        s += p.x * i as f64;
    }
    // Counted from the end, then narrowed.
    for (i, p) in beads.iter().rev().enumerate().skip(1).take(2) {
        s += p.v * p.x * (i * i) as f64;
    }
    for (i, p) in beads.iter_mut().enumerate().rev() {
        p.x *= (i + 1) as f64;
    }
    // `skip` after `step_by` skips steps.
    for (i, p) in beads.iter().step_by(2).enumerate().skip(1) {
        s += p.x * (i + 2) as f64;
    }
    for p in beads.iter().rev().step_by(2).take(1) {
        s += 10.0 * p.x;
    }
    s + beads[3].x
}

#[test]
fn enumerate_anywhere_among_the_adapters() {
    check(counted_anywhere_grad, counted_anywhere, |a, b| {
        let (mut x, v, _) = fields(a, b);
        let mut s = x[1] + 2.0 * x[2] + 3.0 * x[3];
        // Reversed: indices 3, 2, 1, 0 count 0, 1, 2, 3; skip 1, take 2.
        s += v[2] * x[2] + v[1] * x[1] * 4.0;
        for (i, x) in x.iter_mut().enumerate() {
            *x *= (i + 1) as f64;
        }
        // Steps 0, 2; skip 1: index 2, count 1.
        s += x[2] * 3.0;
        // Reversed steps 3, 1; take 1.
        s += 10.0 * x[3];
        s + x[3]
    });
}

#[grad]
fn filtered(a: f64, b: f64) -> f64 {
    let mut beads = vec![
        Bead {
            x: a,
            v: 1.0,
            on: true,
        },
        Bead {
            x: b,
            v: 2.0,
            on: false,
        },
        Bead {
            x: a * b,
            v: 3.0,
            on: true,
        },
        Bead {
            x: a - b,
            v: -1.0,
            on: true,
        },
    ];
    let mut s = 0.0;
    for p in beads.iter().filter(|p| p.on) {
        s += p.x * p.v;
    }
    for p in beads.iter_mut().filter(|p| p.x > 1.0) {
        p.v *= 2.0;
    }
    for (i, p) in beads.iter().enumerate().filter(|(i, p)| *i > 0 && p.on) {
        s += p.v * p.x * i as f64;
    }
    for (i, p) in beads.iter().enumerate().filter(|&(i, _)| i % 2 == 1) {
        s += p.v * i as f64;
    }
    for p in beads.iter().skip(1).filter(|&p| p.v < 2.5) {
        s += p.x;
    }
    s
}

#[test]
fn loops_through_a_filter() {
    check(filtered_grad, filtered, |a, b| {
        let (x, mut v, on) = fields(a, b);
        let mut s = 0.0;
        for i in 0..4 {
            if on[i] {
                s += x[i] * v[i];
            }
        }
        for i in 0..4 {
            if x[i] > 1.0 {
                v[i] *= 2.0;
            }
        }
        for i in 1..4 {
            if on[i] {
                s += v[i] * x[i] * i as f64;
            }
        }
        s += v[1] + 3.0 * v[3];
        for i in 1..4 {
            if v[i] < 2.5 {
                s += x[i];
            }
        }
        s
    });
}

/// A chain of masses joined by springs, the energy summed over
/// neighbours: written out, through a method, and over three at a time.
#[grad]
fn springs(a: f64, b: f64) -> f64 {
    let beads = vec![
        Bead {
            x: 0.0,
            v: a,
            on: true,
        },
        Bead {
            x: 1.2 * b,
            v: 2.0,
            on: true,
        },
        Bead {
            x: 2.5,
            v: b,
            on: true,
        },
        Bead {
            x: 3.0 + a,
            v: 1.0,
            on: true,
        },
    ];
    let mut e = 0.0;
    for w in beads.windows(2) {
        let d = w[1].x - w[0].x - 1.0;
        e += 0.5 * w[0].v * d * d;
    }
    for w in beads.windows(2) {
        e += w[0].spring(&w[1]);
    }
    for (i, w) in beads.windows(3).enumerate() {
        e += (w[2].x - 2.0 * w[1].x + w[0].x) * (i + w.len()) as f64;
    }
    e
}

#[test]
#[allow(clippy::needless_range_loop)] // indices, as the closed form reads
fn loops_over_windows_of_a_vec_of_structs() {
    check(springs_grad, springs, |a, b| {
        let x = [0.0, 1.2 * b, 2.5, 3.0 + a];
        let k = [a, 2.0, b, 1.0];
        let mut e = 0.0;
        for i in 0..3 {
            let d = x[i + 1] - x[i] - 1.0;
            e += 2.0 * 0.5 * k[i] * d * d;
        }
        for i in 0..2 {
            e += (x[i + 2] - 2.0 * x[i + 1] + x[i]) * (i + 3) as f64;
        }
        e
    });
}

/// A `return` inside a loop through adapters, and `_jvp` of such loops:
/// the loop's bounds were bound in a block around it, where `return` was
/// refused ("`return` before the last statement") and `_jvp` refused the
/// block's variables.
#[grad(jvp)]
fn returns_inside(a: f64, b: f64) -> f64 {
    let beads = vec![
        Bead {
            x: 1.0,
            v: 2.0,
            on: true,
        },
        Bead {
            x: a,
            v: b,
            on: true,
        },
    ];
    let mut s = 0.0;
    for (i, p) in beads.iter().enumerate().skip(1) {
        s += p.x * p.v * i as f64;
        if s > 10.0 {
            return s * 2.0;
        }
    }
    for w in beads.windows(2) {
        s += w[1].x * w[0].v;
    }
    s
}

#[test]
fn a_return_inside_a_loop_through_adapters() {
    let closed = |a: f64, b: f64| {
        if a * b > 10.0 {
            2.0 * a * b
        } else {
            a * b + 2.0 * a
        }
    };
    for (a, b) in [(1.0, 2.0), (4.0, 3.0), (-1.5, 0.5), (2.5, 4.5)] {
        let (v, da, db) = returns_inside_grad(a, b);
        assert_eq!(v, returns_inside(a, b));
        assert_relative_eq!(v, closed(a, b), max_relative = 1e-14);
        let (ca, cb) = central(closed, a, b);
        assert_relative_eq!(da, ca, max_relative = 1e-6);
        assert_relative_eq!(db, cb, max_relative = 1e-6);
        let (vj, t) = returns_inside_jvp(a, b, 1.0, 0.5);
        assert_eq!(vj, v);
        assert_relative_eq!(t, da + 0.5 * db, max_relative = 1e-14);
    }
}

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Cell2 {
    x: f64,
    v: f64,
}

impl Cell2 {
    #[grad(wrt(self, k))]
    fn stepped(&self, k: f64) -> Cell2 {
        Cell2 {
            x: self.x * k,
            v: self.v + k,
        }
    }

    #[grad(wrt(self, k))]
    fn m0(&self, k: f64) -> f64 {
        self.x * k + self.v
    }
}

/// A struct alone in its `Vec` whose field is a float method in path form
/// of a call's result, `f64::ln_1p(c.m0(..) * ..)`, then replaced in a
/// loop: the field's `Vec` shows floats by the path-form method (it was
/// "cannot differentiate through `q_x`: it holds a value of a type #[grad]
/// does not model"; found by the differential tester, seed 77).
#[grad(wrt(a, c))]
fn path_form_field(a: f64, c: &Cell2) -> f64 {
    let mut q = vec![Cell2 {
        x: f64::ln_1p(c.m0(c.x) * c.m0(c.x)),
        v: c.x + a,
    }];
    let mut k = 0;
    while k < 3 && a > 0.1 {
        k += 1;
        q[0] = q[0].stepped(a);
    }
    q[0].x
}

#[test]
fn a_field_given_a_float_method_in_path_form() {
    for (a, x, v) in [(0.5, 0.3, 0.7), (1.3, -0.4, 0.2), (0.05, 0.9, 1.1)] {
        let closed = |a: f64, x: f64, v: f64| {
            let m = x * x + v;
            let n = if a > 0.1 { 3 } else { 0 };
            (m * m).ln_1p() * a.powi(n)
        };
        let c = Cell2 { x, v };
        let (val, da, dc) = path_form_field_grad(a, &c);
        assert_eq!(val, path_form_field(a, &c));
        assert_relative_eq!(val, closed(a, x, v), max_relative = 1e-14);
        let h = 1e-6;
        let ca = (closed(a + h, x, v) - closed(a - h, x, v)) / (2.0 * h);
        let cx = (closed(a, x + h, v) - closed(a, x - h, v)) / (2.0 * h);
        let cv = (closed(a, x, v + h) - closed(a, x, v - h)) / (2.0 * h);
        assert_relative_eq!(da, ca, max_relative = 1e-6, epsilon = 1e-9);
        assert_relative_eq!(dc.x, cx, max_relative = 1e-6, epsilon = 1e-9);
        assert_relative_eq!(dc.v, cv, max_relative = 1e-6, epsilon = 1e-9);
    }
}

/// Beads taken apart by the loop's pattern (`for &Bead { x, v, .. } in
/// &beads`, a field renamed, another left out).
#[grad]
fn by_pattern(a: f64, b: f64) -> f64 {
    let beads = vec![
        Bead {
            x: a,
            v: 1.0,
            on: true,
        },
        Bead {
            x: b,
            v: 2.0,
            on: false,
        },
        Bead {
            x: a * b,
            v: 3.0,
            on: true,
        },
        Bead {
            x: a - b,
            v: -1.0,
            on: true,
        },
    ];
    let mut s = 0.0;
    for &Bead { x, v: speed, .. } in &beads {
        s += x * speed;
    }
    for (i, &Bead { x, on, .. }) in beads.iter().enumerate() {
        if on {
            s += x * x * i as f64;
        }
    }
    s
}

#[test]
fn beads_taken_apart_by_the_loop_pattern() {
    check(by_pattern_grad, by_pattern, |a, b| {
        let (x, v, on) = fields(a, b);
        (0..4)
            .map(|i| x[i] * v[i] + if on[i] { x[i] * x[i] * i as f64 } else { 0.0 })
            .sum()
    });
}

#[derive(Clone, Copy)]
struct Tracer {
    x: f64,
    alive: bool,
}

/// A count of a `Vec` of structs' elements, `ps.iter().filter(..).count()`
/// (trial 4 r13: the `Vec` was left whole, and every loop over it refused
/// with a message about the loop), and a count of a slice's: integers,
/// which carry no derivative.
#[grad]
fn counted(x0: f64, xs: &[f64]) -> f64 {
    let mut ps: Vec<Tracer> = Vec::new();
    for i in 0..3 {
        ps.push(Tracer {
            x: x0 * i as f64,
            alive: i != 1,
        });
    }
    let n = ps.iter().filter(|p| p.alive).count() as f64;
    let positive = xs.iter().filter(|x| **x > 0.0).count() as f64;
    let mut total = 0.0;
    for p in &ps {
        total += p.x;
    }
    for &x in xs {
        total += x * x;
    }
    total * n / positive
}

#[test]
fn counts_carry_no_derivative() {
    let xs = [1.0, -2.0, 3.0];
    let (v, d_x0, d_xs) = counted_grad(1.5, &xs);
    // (3 x0 + Σ x²) · 2 / 2
    assert_eq!(v, counted(1.5, &xs));
    assert_eq!(v, 4.5 + 14.0);
    assert_eq!(d_x0, 3.0);
    assert_eq!(d_xs, vec![2.0, -4.0, 6.0]);
}

/// Struct variables put in the `Vec` by name, `vec![first]` and
/// `beads.push(next)` (trial 4 r21: refused with a message about the
/// loop), beside a literal, a variable changed after its `let` and one
/// pushed in a loop.
#[grad]
fn pushed_by_name(a: f64, b: f64) -> f64 {
    let first = Bead {
        x: a,
        v: 1.0,
        on: true,
    };
    let mut beads = vec![first];
    let mut next = Bead {
        x: b,
        v: 2.0,
        on: false,
    };
    next.x *= a;
    beads.push(next);
    for k in 0..2 {
        let step = Bead {
            x: a - b * k as f64,
            v: 3.0,
            on: true,
        };
        beads.push(step);
    }
    let mut total = 0.0;
    for p in &beads {
        if p.on {
            total += p.x * p.v;
        } else {
            total -= p.x * p.x;
        }
    }
    total
}

#[test]
fn struct_variables_pushed_by_name() {
    // a − (ab)² + 3a + 3(a − b)
    let closed = |a: f64, b: f64| a - (a * b) * (a * b) + 3.0 * a + 3.0 * (a - b);
    check(pushed_by_name_grad, pushed_by_name, closed);
}

// A `Vec` of structs filled by `push` with a flag computed by a
// comparison (`pinned: i == 0`), changed by a writer through `iter_mut`
// (trial 8 r310b: refused, naming the split's `ms_pinned`).
#[derive(autodiff::Differentiable, Clone, Debug)]
struct Mass {
    x: f64,
    pinned: bool,
    id: usize,
}

impl Mass {
    #[grad(wrt(self, f))]
    fn kick(&mut self, f: f64) {
        if self.pinned {
            return;
        }
        self.x += f * (self.id as f64 + 1.0);
    }
}

#[grad]
fn relax(x0: f64, f: f64) -> f64 {
    let mut ms: Vec<Mass> = Vec::new();
    for i in 0..3 {
        ms.push(Mass {
            x: x0 * (i as f64 + 1.0),
            pinned: i == 0 || i > 5,
            id: i * 2,
        });
    }
    for m in ms.iter_mut() {
        m.kick(f);
    }
    ms[0].x + 2.0 * ms[1].x + ms[2].x * ms[2].x
}

#[test]
fn a_flag_pushed_as_a_comparison_stays_a_constant() {
    for (x0, f) in [(1.0, 0.5), (-0.5, 2.0), (0.25, -1.0)] {
        // x0 + 2 (2 x0 + 3 f) + (3 x0 + 5 f)².
        let (v, dx0, df) = relax_grad(x0, f);
        assert_eq!(v, relax(x0, f));
        let u = 3.0 * x0 + 5.0 * f;
        assert_relative_eq!(
            v,
            x0 + 2.0 * (2.0 * x0 + 3.0 * f) + u * u,
            max_relative = 1e-12
        );
        assert_relative_eq!(dx0, 5.0 + 6.0 * u, max_relative = 1e-12);
        assert_relative_eq!(df, 6.0 + 10.0 * u, max_relative = 1e-12);
    }
}

/// A `Vec` of structs zipped with itself shifted, or with a slice, then
/// counted by `enumerate` (trial 12 r1049: refused at the `push` loop,
/// "write its type", though it was written).
#[grad]
fn zipped_and_counted(a: f64, b: f64) -> f64 {
    let ys = [0.5, -1.0, 2.0, 0.25];
    let mut beads: Vec<Bead> = Vec::new();
    for k in 0..4 {
        beads.push(Bead {
            x: a * k as f64 + b,
            v: b - k as f64,
            on: k != 2,
        });
    }
    let mut e = 0.0;
    for (i, (p, q)) in beads.iter().zip(beads.iter().skip(1)).enumerate() {
        e += (q.x - p.x - 1.0).powi(2) * (i as f64 + 1.0);
    }
    for (i, (p, y)) in beads.iter().zip(&ys).enumerate() {
        if p.on {
            e += p.v * y * i as f64;
        }
    }
    for (j, (y, p)) in ys.iter().zip(beads.iter()).enumerate() {
        if j != 1 {
            e -= y * p.x;
        }
    }
    e
}

#[test]
fn pairs_counted_by_enumerate() {
    let ys = [0.5, -1.0, 2.0, 0.25];
    let on = [true, true, false, true];
    let closed = |a: f64, b: f64| {
        let x = |k: usize| a * k as f64 + b;
        let v = |k: usize| b - k as f64;
        let mut e = 0.0;
        for i in 0..3 {
            e += (x(i + 1) - x(i) - 1.0).powi(2) * (i as f64 + 1.0);
        }
        for i in 0..4 {
            if on[i] {
                e += v(i) * ys[i] * i as f64;
            }
            if i != 1 {
                e -= ys[i] * x(i);
            }
        }
        e
    };
    check(zipped_and_counted_grad, zipped_and_counted, closed);
}

// ---- a struct slice parameter walked from a computed index --------------

#[derive(Clone, Copy, Debug, autodiff::Differentiable)]
struct Charge {
    x: f64,
    q: f64,
}

impl Charge {
    #[grad(wrt(self, o))]
    fn coulomb(&self, o: &Charge) -> f64 {
        self.q * o.q / ((self.x - o.x).powi(2) + 0.1).sqrt()
    }
}

/// The pairwise loop physics writes, `for q in &ps[i + 1..]`, each element
/// lent to a method and read by field (trial 13 B7: E0308 inside the
/// expansion, the element read by value where the method takes `&Charge`).
#[grad(wrt(ps))]
fn pairwise(ps: &[Charge], from: usize) -> f64 {
    let mut e = 0.0;
    for (i, p) in ps.iter().enumerate() {
        for q in &ps[i + 1..] {
            e += p.coulomb(q);
        }
    }
    for q in &ps[from..ps.len() - 1] {
        e += q.x * ps[0].q;
    }
    e
}

#[test]
fn pairs_from_a_computed_index_of_a_struct_slice() {
    let ps = [
        Charge { x: 0.0, q: 1.0 },
        Charge { x: 1.0, q: -2.0 },
        Charge { x: 2.5, q: 0.5 },
        Charge { x: -1.5, q: 1.5 },
    ];
    let flat =
        |z: &[f64]| -> Vec<Charge> { z.chunks(2).map(|c| Charge { x: c[0], q: c[1] }).collect() };
    let z: Vec<f64> = ps.iter().flat_map(|c| [c.x, c.q]).collect();
    let (v, d) = pairwise_grad(&ps, 1);
    assert_eq!(v, pairwise(&ps, 1));
    let h = 1e-6;
    for k in 0..z.len() {
        let (mut a, mut b) = (z.clone(), z.clone());
        a[k] += h;
        b[k] -= h;
        let fd = (pairwise(&flat(&a), 1) - pairwise(&flat(&b), 1)) / (2.0 * h);
        let got = if k % 2 == 0 { d[k / 2].x } else { d[k / 2].q };
        assert_relative_eq!(got, fd, max_relative = 1e-6, epsilon = 1e-8);
    }
}

#[test]
#[should_panic(expected = "slice index starts at 5 but ends at 1")]
fn a_computed_index_past_the_end_panics_in_grad() {
    let ps = [Charge { x: 0.0, q: 1.0 }, Charge { x: 1.0, q: -2.0 }];
    let _ = pairwise_grad(&ps, 5);
}

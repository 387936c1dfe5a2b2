//! Branches: `if` / `else if` / `else` as statements and expressions,
//! `match` on inactive values, guard clauses with early `return`. The
//! reverse sweep replays the arm that ran, so an arm that did not run can
//! never put NaN or infinity into a gradient.

#![deny(warnings)]

use approx::assert_relative_eq;
use autodiff::grad;

/// Central difference of `f` at `x`, step 1e-6·max(1, |x|).
fn derivative(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6 * x.abs().max(1.0);
    (f(x + h) - f(x - h)) / (2.0 * h)
}

/// The Huber loss, a classic piecewise function, against its hand-written
/// derivative.
#[grad]
fn huber(r: f64, delta: f64) -> f64 {
    if r.abs() <= delta {
        0.5 * r * r
    } else {
        delta * (r.abs() - 0.5 * delta)
    }
}

#[test]
fn huber_matches_its_hand_written_gradient() {
    for r in [-3.0, -1.0, -0.4, 0.0, 0.3, 0.99, 2.5] {
        let delta = 1.0;
        let (v, d_r, d_delta) = huber_grad(r, delta);
        assert_eq!(v, huber(r, delta));
        let (hand_r, hand_delta) = if r.abs() <= delta {
            (r, 0.0)
        } else {
            (delta * r.signum(), r.abs() - delta)
        };
        assert_eq!((d_r, d_delta), (hand_r, hand_delta), "at r = {r}");
    }
}

/// Assignments in some arms only, an `else if` chain, and an `if` whose
/// value is used.
#[grad]
fn chain(x: f64, y: f64) -> f64 {
    let mut s = x * y;
    if x > 0.0 {
        s += x.sin();
    } else if x < -1.0 {
        s *= 2.0;
    } else {
        s -= y.exp();
    }
    let z = if s > 1.0 { s.ln() } else { s * s };
    z + s
}

#[test]
fn else_if_chains_merge_assignments() {
    for (x, y) in [
        (0.5, 2.0),
        (-2.0, 2.0),
        (-0.5, 2.0),
        (1.5, -0.25),
        (-3.0, 0.1),
    ] {
        let (v, dx, dy) = chain_grad(x, y);
        assert_eq!(v, chain(x, y));
        assert_relative_eq!(dx, derivative(|x| chain(x, y), x), max_relative = 1e-6);
        assert_relative_eq!(dy, derivative(|y| chain(x, y), y), max_relative = 1e-6);
    }
    // At (0.5, 2): s = 1 + sin 0.5, f = ln s + s, df/ds = 1/s + 1.
    let s = 1.0 + 0.5f64.sin();
    let (_, dx, dy) = chain_grad(0.5, 2.0);
    assert_eq!(dx, (2.0 + 0.5f64.cos()) * (1.0 / s + 1.0));
    assert_eq!(dy, 0.5 * (1.0 / s + 1.0));
}

/// `match` on an integer, with or-patterns, a binding with a guard and a
/// wildcard; a guard clause returns early.
#[grad]
fn by_degree(x: f64, n: i32) -> f64 {
    if n < 0 {
        return x.cos();
    }
    let k = match n {
        0 => x,
        1 | 2 => x * x,
        m if m > 10 => x.powi(m),
        _ => x.exp(),
    };
    k * 2.0
}

#[test]
fn match_arms_and_guard_clauses() {
    let x = 1.1f64;
    let cases: [(i32, f64); 6] = [
        (-1, -x.sin()),
        (0, 2.0),
        (1, 4.0 * x),
        (2, 4.0 * x),
        (11, 22.0 * x.powi(10)),
        (5, 2.0 * x.exp()),
    ];
    for (n, expected) in cases {
        let (v, dx) = by_degree_grad(x, n);
        assert_eq!(v, by_degree(x, n));
        assert_relative_eq!(dx, expected, max_relative = 1e-15);
    }
}

/// Several guard clauses in a row.
#[grad]
fn clipped(x: f64, lo: f64, hi: f64) -> f64 {
    if x < lo {
        return lo;
    }
    if x > hi {
        return hi * 1.0;
    }
    x * x
}

#[test]
fn guard_clauses_in_a_row() {
    assert_eq!(clipped_grad(-5.0, -1.0, 2.0), (-1.0, 0.0, 1.0, 0.0));
    assert_eq!(clipped_grad(5.0, -1.0, 2.0), (2.0, 0.0, 0.0, 1.0));
    assert_eq!(clipped_grad(1.5, -1.0, 2.0), (2.25, 3.0, 0.0, 0.0));
}

/// The arm that did not run would give NaN or infinity.
#[grad]
fn safe_log(x: f64) -> f64 {
    if x > 0.0 {
        x.ln()
    } else {
        x
    }
}

#[grad]
fn safe_sqrt(x: f64) -> f64 {
    let r = if x > 0.0 { x.sqrt() } else { 0.0 };
    r + x
}

#[test]
fn untaken_arms_put_no_nan_into_the_gradient() {
    assert_eq!(safe_log_grad(-1.0), (-1.0, 1.0));
    assert_eq!(safe_log_grad(0.0), (0.0, 1.0));
    assert_eq!(safe_log_grad(2.0), (2f64.ln(), 0.5));
    assert_eq!(safe_sqrt_grad(0.0), (0.0, 1.0));
    assert_eq!(safe_sqrt_grad(-4.0), (-4.0, 1.0));
    assert_eq!(safe_sqrt_grad(4.0), (6.0, 1.25));
}

/// A branch on a boolean parameter inside an expression, an arm that
/// panics, and a branch inside a block that binds names of its own.
#[grad]
fn mixed(x: f64, double: bool) -> f64 {
    let y = x * if double { 2.0 } else { 3.0 };
    let checked = if y.is_finite() {
        y
    } else {
        panic!("y overflowed")
    };
    let w = {
        let label = String::from("w");
        let t = if label.len() == 1 {
            checked.sin()
        } else {
            checked.cos()
        };
        t * t
    };
    w + checked
}

#[test]
fn branches_in_expressions_blocks_and_panicking_arms() {
    for (x, double) in [(0.3, true), (0.3, false), (-1.2, true)] {
        let (v, dx) = mixed_grad(x, double);
        assert_eq!(v, mixed(x, double));
        let c = if double { 2.0 } else { 3.0 };
        let y = c * x;
        assert_relative_eq!(
            dx,
            c * (2.0 * y.sin() * y.cos() + 1.0),
            max_relative = 1e-15
        );
    }
}

/// Piecewise functions sampled on both sides of every kink.
#[grad]
fn zigzag(x: f64) -> f64 {
    let m = (x * 2.0).floor() as i64;
    match m.rem_euclid(3) {
        0 => x * x,
        1 => -x + 1.0,
        _ => (x - 1.0).tanh(),
    }
}

#[test]
fn piecewise_against_finite_differences() {
    for k in 0..200 {
        let x = -5.0 + 0.05 * k as f64 + 0.013;
        let (v, dx) = zigzag_grad(x);
        assert_eq!(v, zigzag(x));
        assert_relative_eq!(
            dx,
            derivative(zigzag, x),
            max_relative = 1e-6,
            epsilon = 1e-8
        );
    }
}

// A `match` on an element of a `Copy` enum whose arms read the fields by
// value in a guard, a call and a cast (a rewrite that matched on a
// reference to the place, `match &moves[i]`, broke these: the place is
// matched as `*r`).
#[derive(Clone, Copy)]
#[allow(dead_code)]
enum Move {
    Scale(f64),
    Shift(f64),
    Tag(u8),
}

fn doubled(x: f64) -> f64 {
    x * 2.0
}

// The place `moves[i]` is what this test is about.
#[allow(clippy::needless_range_loop)]
#[grad]
fn moved(x: f64, moves: &[Move]) -> f64 {
    let mut v = x;
    for i in 0..moves.len() {
        v = match moves[i] {
            Move::Scale(c) if c > 0.0 => v * c,
            Move::Scale(c) => v - doubled(c) + (c as i32) as f64,
            Move::Shift(c) => {
                let d: f64 = c;
                v + d
            }
            Move::Tag(_) => v,
        };
    }
    v
}

#[test]
fn a_match_on_an_element_of_a_copy_enum_reads_its_fields_by_value() {
    let moves = [
        Move::Scale(2.0),
        Move::Scale(-1.0),
        Move::Shift(1.0),
        Move::Tag(3),
    ];
    // 2x, then 2x + 2 - 1, then + 1.
    assert_eq!(moved_grad(0.5, &moves), (3.0, 2.0));
    assert_eq!(moved(0.5, &moves), 3.0);
}

// A `match` on a place of a non-`Copy` enum (`ops[i]`, `cfg.kind`, `*op`)
// whose patterns bind `Copy` fields: Rust matches the place without moving
// out of it, and so must the expansion (it bound `let t = ops[i];`, E0508).
#[allow(dead_code)]
enum Step {
    Scale(f64),
    Shift(f64),
    Note(String),
}

struct Schedule {
    steps: Vec<Step>,
    last: Step,
    repeat: usize,
}

#[allow(clippy::needless_range_loop)]
#[grad(jvp)]
fn scheduled(x: f64, plan: &Schedule) -> f64 {
    let mut v = x;
    for i in 0..plan.steps.len() {
        v = match plan.steps[i] {
            Step::Scale(c) if c > 1.0 => v * c,
            Step::Scale(c) => v * c - c,
            Step::Shift(c) => v + c,
            Step::Note(_) => v,
        };
        if let Step::Shift(c) = plan.steps[i] {
            v = v.sin() + c;
        }
    }
    for step in plan.steps.iter() {
        let Step::Scale(c) = *step else { continue };
        v = v * v * c;
    }
    match plan.last {
        Step::Scale(c) => v *= c,
        _ => v += 1.0,
    }
    match plan.repeat {
        n if n > 1 => v * n as f64,
        _ => v,
    }
}

fn scheduled_by_hand(x: f64) -> (f64, f64) {
    // Steps: Scale(2) -> 2x, Shift(0.5) -> then sin(..) + 0.5, Scale(0.5)
    // -> v * 0.5 - 0.5, Note; then v² · 2 and v² · 0.5, then · 3, then · 2.
    let a = 2.0 * x + 0.5;
    let b = a.sin() + 0.5;
    let c = 0.5 * b - 0.5;
    let d = c * c * 2.0;
    let e = d * d * 0.5;
    let value = e * 3.0 * 2.0;
    let db = a.cos() * 2.0;
    let dc = 0.5 * db;
    let dd = 4.0 * c * dc;
    let de = d * dd;
    (value, de * 6.0)
}

#[test]
fn a_match_on_a_place_of_a_non_copy_enum_lends_it() {
    let plan = Schedule {
        steps: vec![
            Step::Scale(2.0),
            Step::Shift(0.5),
            Step::Scale(0.5),
            Step::Note("end".to_string()),
        ],
        last: Step::Scale(3.0),
        repeat: 2,
    };
    for x in [-1.3, -0.2, 0.4, 1.7] {
        let (value, dx) = scheduled_grad(x, &plan);
        let (want, want_dx) = scheduled_by_hand(x);
        assert_relative_eq!(value, want, max_relative = 1e-12);
        assert_relative_eq!(value, scheduled(x, &plan), max_relative = 1e-12);
        assert_relative_eq!(dx, want_dx, max_relative = 1e-12, epsilon = 1e-12);
        let (jv, tangent) = scheduled_jvp(x, &plan, 1.5);
        assert_relative_eq!(jv, value, max_relative = 1e-12);
        assert_relative_eq!(tangent, 1.5 * dx, max_relative = 1e-12, epsilon = 1e-12);
    }
}

// ---- a struct parameter's element read at an index an arm computes ------

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Grid {
    pub f0: f64,
    pub n: usize,
    pub w: Vec<f64>,
}

/// In a loop the reverse sweep records, an arm reads `g.w[k]` at an index
/// it computes itself, the other arm does not (the difftest batch, 53 of
/// 500 programs: "cannot find value `t40`" inside the expansion, the
/// other arm's placeholder reading the index it does not have).
#[autodiff::grad(wrt(x0, g))]
fn arm_index(x0: f64, g: &Grid) -> f64 {
    let mut s = x0;
    for i in 0..3 {
        if (i as f64) < x0 {
            s = s * 0.9
                + (if g.w[i * g.n] > 0.25 {
                    x0.asinh()
                } else {
                    let t: f64 = 2.0 - g.f0;
                    let k = i * g.n + 1;
                    g.w[k] * t
                })
                .atan();
            continue;
        }
        s += x0 * 0.75;
    }
    s
}

#[test]
fn an_arm_reads_a_struct_element_at_an_index_it_computes() {
    let g = Grid {
        f0: 0.5,
        n: 2,
        w: vec![0.1, 0.7, 0.3, -0.4, 0.2, 0.9],
    };
    for x0 in [0.4, 1.6, 2.5] {
        let (v, dx, dg) = arm_index_grad(x0, &g);
        assert_eq!(v, arm_index(x0, &g));
        let h = 1e-6;
        let fx = (arm_index(x0 + h, &g) - arm_index(x0 - h, &g)) / (2.0 * h);
        assert!((dx - fx).abs() < 1e-6 * fx.abs().max(1.0), "{dx} vs {fx}");
        let mut up = g.clone();
        up.f0 += h;
        let mut down = g.clone();
        down.f0 -= h;
        let ff = (arm_index(x0, &up) - arm_index(x0, &down)) / (2.0 * h);
        assert!(
            (dg.f0 - ff).abs() < 1e-6 * ff.abs().max(1.0),
            "{} vs {ff}",
            dg.f0
        );
    }
}

//! Constructs inside the documented subset that the differential tester
//! (`tools/difftest`) found refused, reduced, and now differentiated. Each
//! is checked against an exact gradient or central differences
//! (step 1e-6, tolerance 1e-7 relative and absolute) at points spread over
//! its domain.

#![deny(warnings)]
#![allow(
    clippy::needless_range_loop,
    clippy::useless_vec,
    clippy::never_loop,
    unused_variables,
    unused_assignments
)]

use approx::assert_relative_eq;
use autodiff::{check_gradient, grad};

/// Passes central differences at `points` (each point: x, then the array).
fn check_at(f: impl Fn(&[f64]) -> f64, g: impl Fn(&[f64]) -> Vec<f64>, points: &[&[f64]]) {
    for p in points {
        let r = check_gradient(&f, p, &g(p), 1e-6, 1e-7, 1e-7);
        assert!(r.passed, "at {p:?}: {r:?}");
    }
}

/// A float method on an array element in code kept as written: it cannot
/// change the array (seed 2024, program 16: "it may change the array").
#[grad]
fn element_method_in_a_loop(xs: &[f64; 3], x: f64) -> f64 {
    let mut s = 0.0;
    for (j, &y) in xs.iter().enumerate() {
        let unused: f64 = (xs[j].sin() * xs[j].sin() + 2.0).recip();
        s += y * x + (xs[j].tanh() + 1.5).cos();
    }
    if xs[1].asinh() > -1.33 {
        s += xs[1].asinh();
    }
    s
}

#[test]
fn a_float_method_on_an_element_is_not_a_change_of_the_array() {
    for (xs, x) in [([0.5, -1.0, 2.0], 0.3), ([-2.0, 0.1, 1.0], -1.5)] {
        let (v, dxs, dx) = element_method_in_a_loop_grad(&xs, x);
        assert_eq!(v, element_method_in_a_loop(&xs, x));
        assert_relative_eq!(dx, xs.iter().sum::<f64>(), max_relative = 1e-15);
        for j in 0..3 {
            let mut d = x - (xs[j].tanh() + 1.5).sin() * (1.0 - xs[j].tanh().powi(2));
            if j == 1 && xs[1].asinh() > -1.33 {
                d += 1.0 / (xs[1] * xs[1] + 1.0).sqrt();
            }
            assert_relative_eq!(dxs[j], d, max_relative = 1e-14);
        }
    }
}

/// An array declared first, its elements assigned after the loop's jumps
/// (what an earlier error asked for): still differentiated.
#[grad]
fn array_declared_before_a_loop_that_breaks(xs: &[f64], x0: f64) -> f64 {
    let mut s = 0.5;
    let mut k = 0;
    let mut v = vec![0.0; 3];
    loop {
        k += 1;
        if k > 3 {
            break;
        }
        v[0] = x0 - 2.0;
        v[1] = x0.min(1.0);
        v[2] = s;
        v[1] += x0 * xs[0];
        s *= (v[(k + 2) % 3] * x0).atan();
    }
    s
}

#[grad]
fn array_declared_before_a_loop_that_returns(xs: &[f64], x0: f64) -> f64 {
    let mut s = 0.5;
    let mut v = [0.0; 3];
    for &y in xs {
        if y > 3.0 {
            return x0;
        }
        s += y * x0;
    }
    v[0] = x0;
    v[1] = x0 * x0;
    v[2] = v[1] * s;
    s + v[2] + v[0]
}

#[test]
fn arrays_declared_before_the_loop_and_assigned_after_its_jumps() {
    let points: &[&[f64]] = &[
        &[0.7, 0.5, 1.0],
        &[-1.2, 2.0, -0.5],
        &[2.5, -3.0, 4.0],
        &[0.1, 3.5, 0.2],
    ];
    type F = fn(&[f64], f64) -> f64;
    type G = fn(&[f64], f64) -> (f64, Vec<f64>, f64);
    let pairs: [(F, G); 2] = [
        (
            array_declared_before_a_loop_that_breaks,
            array_declared_before_a_loop_that_breaks_grad,
        ),
        (
            array_declared_before_a_loop_that_returns,
            array_declared_before_a_loop_that_returns_grad,
        ),
    ];
    for (f, grad) in pairs {
        let g = |p: &[f64]| -> Vec<f64> {
            let (_, dxs, dx) = grad(&p[1..], p[0]);
            std::iter::once(dx).chain(dxs).collect()
        };
        check_at(|p| f(&p[1..], p[0]), g, points);
    }
}

/// Arrays declared in a branch arm: after a loop body's
/// `if c { break; }` or a loop that can `return` (both put the rest in a
/// branch), after a guard clause, in `if` and `match` arms, and in an arm
/// inside a loop (seed 2024, programs 29, 78, 4, 34: refused as a
/// "destructuring", a "macro call" or a "match here"). Each arm's array
/// gets its adjoint in the reverse arm.
#[grad]
fn array_after_break(xs: &[f64], x0: f64) -> f64 {
    let mut s = 0.5;
    let mut k = 0;
    loop {
        k += 1;
        if k > 3 {
            break;
        }
        let mut v = vec![x0 - 2.0, x0.min(1.0), s];
        v[1] += x0 * xs[0];
        s *= (v[(k + 2) % 3] * x0).atan();
    }
    s
}

#[grad]
fn array_after_a_loop_that_returns(xs: &[f64], x0: f64) -> f64 {
    let mut s = 0.5;
    for &y in xs {
        if y > 3.0 {
            return x0;
        }
        s += y * x0;
    }
    let mut v: [f64; 3] = [x0, x0 * x0, 1.0];
    v[1] = v[2] * v[0];
    v[2] += match xs.len() {
        0 | 1 => x0,
        _ => (v[1] * xs[1]).sin(),
    };
    s + v[1] + v[0] * v[2]
}

#[grad]
fn array_after_a_guard(xs: &[f64], x0: f64) -> f64 {
    if x0 < -1.0 {
        return x0 * x0;
    }
    let mut v = vec![0.0; xs.len()];
    for i in 0..xs.len() {
        v[i] = (xs[i] * x0).sin();
    }
    let mut s = 0.0;
    for i in 0..xs.len() {
        s += v[i] * v[(i + 1) % xs.len()];
    }
    s
}

#[grad]
fn arrays_in_if_arms(xs: &[f64], x0: f64) -> f64 {
    let mut s = x0;
    if xs[0] > 0.0 {
        let mut w = vec![0.0; xs.len()];
        for i in 0..xs.len() {
            w[i] = xs[i] * x0;
        }
        for i in 0..xs.len() {
            s += w[i] * xs[i];
        }
    } else {
        let w = [x0.sin(), x0.cos()];
        s += w[0] * w[1] * xs[1];
    }
    s
}

#[grad]
fn arrays_in_an_arm_in_a_loop(xs: &[f64], x0: f64) -> f64 {
    let mut s = 0.0;
    for k in 0..4 {
        if k % 2 == 0 {
            let mut v = vec![x0; k + 1];
            v[k] *= xs[0];
            s += v[0] * v[k];
        } else {
            s += x0 * xs[1];
        }
    }
    s
}

#[grad]
fn arrays_in_match_arms(xs: &[f64], x0: f64) -> f64 {
    match xs.len() % 3 {
        0 => {
            let v = [x0, 2.0 * xs[0]];
            v[0] * v[1]
        }
        1 => x0,
        _ => {
            let mut v = vec![x0.exp(); 2];
            v[1] = v[0] * xs[1];
            v[1]
        }
    }
}

#[test]
fn arrays_declared_in_branch_arms() {
    type F = fn(&[f64], f64) -> f64;
    type G = fn(&[f64], f64) -> (f64, Vec<f64>, f64);
    let pairs: [(F, G); 6] = [
        (array_after_break, array_after_break_grad),
        (
            array_after_a_loop_that_returns,
            array_after_a_loop_that_returns_grad,
        ),
        (array_after_a_guard, array_after_a_guard_grad),
        (arrays_in_if_arms, arrays_in_if_arms_grad),
        (arrays_in_an_arm_in_a_loop, arrays_in_an_arm_in_a_loop_grad),
        (arrays_in_match_arms, arrays_in_match_arms_grad),
    ];
    // x0 first, then the array: both signs, both sides of every branch
    // (x0 < -1, xs[0] > 0, an element above 3), and lengths 2 and 3 for
    // the match (no point on a kink of `min`).
    let points: &[&[f64]] = &[
        &[0.7, 0.5, 1.0, 4.0],
        &[-1.3, -1.0, 3.5, 0.25],
        &[-0.4, 2.0, -0.5, 0.0],
        &[2.0, 0.3, 0.9],
        &[-1.6, -0.8, 0.4],
    ];
    for (f, grad) in pairs {
        let g = |p: &[f64]| -> Vec<f64> {
            let (v, dxs, dx) = grad(&p[1..], p[0]);
            assert_eq!(v, f(&p[1..], p[0]));
            std::iter::once(dx).chain(dxs).collect()
        };
        check_at(|p| f(&p[1..], p[0]), g, points);
    }
}

/// A local array whose items include a user `const` or a call's result
/// (types #[grad] does not read): one float item, or the `let`'s type,
/// gives the element type, as rustc requires all items to share it (seed
/// 2024, program 78, refused).
const SCALE: f64 = 0.3;

#[grad]
fn squared(x: f64) -> f64 {
    x * x
}

#[grad]
fn arrays_with_consts_and_calls(x: f64) -> f64 {
    let v: [f64; 2] = [squared(x), squared(2.0 * x)];
    let w = [SCALE, x * SCALE, squared(x)];
    v[0] + v[1] * w[1] + w[2] * w[0]
}

#[test]
fn array_items_of_unstated_type_take_the_others_type() {
    for x in [1.5, -0.5, 2.0] {
        let (v, d) = arrays_with_consts_and_calls_grad(x);
        assert_eq!(v, arrays_with_consts_and_calls(x));
        // x² + 4x²·0.3x + 0.3x²: 2x + 3.6x² + 0.6x.
        assert_relative_eq!(d, 2.6 * x + 3.6 * x * x, max_relative = 1e-14);
    }
}

/// A loop whose only effect on the result is that it can `return` (it
/// assigns nothing declared outside it) was kept as written, and its
/// `return` refused (seed 2024, program 45).
#[grad]
fn loop_that_only_returns(x1: f64, xs: &[f64], x0: f64) -> f64 {
    let s: f64 = 0.3 * x1;
    for &y in xs {
        if y > 2.0 {
            return x0 * y;
        }
        let a;
        if y >= -0.46 {
            a = y * x1;
        } else {
            a = y;
        }
    }
    s
}

#[grad]
fn while_and_loop_that_only_return(xs: &[f64], x0: f64) -> f64 {
    let mut k = 0;
    while k < xs.len() {
        if xs[k] > 2.0 {
            return x0 * xs[k];
        }
        k += 1;
    }
    loop {
        if x0 > 0.0 {
            return x0.sin();
        }
        break;
    }
    x0 * 3.0
}

#[test]
fn loops_that_only_return() {
    assert_eq!(
        loop_that_only_returns_grad(2.0, &[1.0, 3.0], 0.5),
        (1.5, 0.0, vec![0.0, 0.5], 3.0)
    );
    assert_eq!(
        loop_that_only_returns_grad(2.0, &[1.0, -3.0], 0.5),
        (0.6, 0.3, vec![0.0, 0.0], 0.0)
    );
    assert_eq!(
        while_and_loop_that_only_return_grad(&[1.0, 3.0], 0.5),
        (1.5, vec![0.0, 0.5], 3.0)
    );
    assert_eq!(
        while_and_loop_that_only_return_grad(&[1.0, 1.0], 0.5).2,
        0.5f64.cos()
    );
    assert_eq!(
        while_and_loop_that_only_return_grad(&[1.0, 1.0], -0.5).2,
        3.0
    );
}

/// A `#[grad]` call whose arguments are all of a type the source does not
/// state, as another call's result (`helper(helper(x))`): refused as a
/// call to a plain function (seed 101, 17 of 2,000 programs).
#[grad]
fn doubled_sine(x: f64) -> f64 {
    x.sin() * 2.0
}

fn plain_count(n: usize) -> usize {
    n + 1
}

fn three() -> usize {
    3
}

#[grad]
fn nested_calls(x: f64) -> f64 {
    let mut s = 0.0;
    for _ in 0..2 {
        s += doubled_sine(doubled_sine(x));
    }
    // A plain function of a plain function's result stays a plain call.
    s * plain_count(three()) as f64
}

#[test]
fn a_call_of_a_calls_result() {
    for x in [0.3f64, -1.2, 2.5] {
        let (v, d) = nested_calls_grad(x);
        assert_eq!(v, nested_calls(x));
        let inner = 2.0 * x.sin();
        // 4 · (two terms) · ds'(ds(x)) · ds'(x), ds' = 2 cos.
        let expected = 4.0 * 2.0 * (2.0 * inner.cos()) * (2.0 * x.cos());
        assert_relative_eq!(d, expected, max_relative = 1e-14);
    }
}

/// `vec![..]` only reads the names it is given: a loop kept as written
/// (it changes nothing outside) that builds a `vec!` from a constant
/// binding no longer makes that binding "changed" by the loop (seed 101,
/// about 40 of 2,000 programs).
const OFFSET: f64 = -0.48;

#[grad]
fn vec_in_a_loop_kept_as_written(x: f64, xs: [f64; 3]) -> f64 {
    let a = OFFSET;
    let mut s = 0.0;
    for (j, &y) in xs.iter().enumerate() {
        let mut scratch = vec![y, a + y, 1.0];
        scratch[j] += 1.0;
    }
    for i in 0..3 {
        s += (a + x) * xs[i];
    }
    s
}

#[test]
fn a_vec_macro_reads_its_arguments() {
    let xs = [0.5, -1.0, 2.0];
    let (v, dx, dxs) = vec_in_a_loop_kept_as_written_grad(0.7, xs);
    assert_eq!(v, vec_in_a_loop_kept_as_written(0.7, xs));
    assert_eq!(dx, 1.5);
    assert_eq!(dxs, [0.7 + OFFSET; 3]);
}

/// A loop kept as written (it changes nothing outside) that declares its
/// own variable named like a parameter and assigns it: the assignment is
/// to its own variable, not a change of the parameter (seed 101, program
/// 322 and eight more).
#[grad]
fn loop_shadowing_a_parameter(h0: f64, h1: f64) -> f64 {
    let a = h0 * 2.0;
    for _ in 0..3 {
        let mut h0 = (h1 * h1).cos();
        h0 = (a + h0).sin();
        let _ = h0;
    }
    a * h0 + h1
}

#[test]
fn an_opaque_loops_own_variables_are_its_own() {
    let (v, d0, d1) = loop_shadowing_a_parameter_grad(1.5, 0.5);
    assert_eq!(v, loop_shadowing_a_parameter(1.5, 0.5));
    assert_eq!((d0, d1), (2.0 * 2.0 * 1.5, 1.0));
}

// ---- found by the differential tester's struct and method programs --------

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Indexed {
    pub f0: f64,
    pub n: usize,
}

/// A constant local array read at an index computed from a differentiated
/// struct's integer field: the load is not active (its array is not), and
/// its reverse named an adjoint that does not exist (inside the expansion).
#[grad(wrt(p0))]
fn constant_array_at_a_field_index(p0: &Indexed) -> f64 {
    let a0: f64 = 1.0;
    let mut a3 = a0 * p0.f0;
    let v7: [f64; 3] = [0.5, 1.5, 2.5];
    a3 -= v7[p0.n % 3];
    a3
}

#[test]
fn a_constant_array_at_an_index_from_an_integer_field() {
    let p = Indexed { f0: 2.0, n: 4 };
    let (v, d) = constant_array_at_a_field_index_grad(&p);
    assert_eq!(v, 2.0 - 1.5);
    assert_eq!((d.f0, d.n), (1.0, 4));
}

pub struct Samples {
    pub ys: Vec<f64>,
}

/// A loop bounded by a constant struct's `len()` that changes only its own
/// locals is kept as written: the `len()` made `data` look changed by it,
/// and so active.
#[grad(trace)]
fn loop_over_a_constant_fields_len(x: f64, data: &Samples) -> f64 {
    for _ in 0..data.ys.len() {
        let mut local: f64 = 1.0;
        local += x;
        let _ = local;
    }
    x * data.ys[0]
}

#[test]
fn a_loop_over_a_constant_fields_len_changes_nothing_else() {
    let data = Samples { ys: vec![2.5, 0.5] };
    let (v, d) = loop_over_a_constant_fields_len_grad(0.25, &data);
    assert_eq!(v, 0.625);
    assert_eq!(d, 2.5);
}

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Scaled {
    pub f0: f64,
}

impl Scaled {
    #[grad(wrt(self, x))]
    fn times(&self, x: f64) -> f64 {
        self.f0 * x
    }
}

/// Methods on a constant struct parameter: called again on the result of
/// the first call (a value of unstated type), and inside a loop that the
/// call made look like it changed the struct.
#[grad(wrt(x0))]
fn methods_on_a_constant_struct(p0: &Scaled, x0: f64) -> f64 {
    let a8 = p0.times(x0);
    let a9 = p0.times(a8);
    let mut s = p0.f0;
    for _ in 0..2 {
        s *= 0.5;
        let _unused = p0.times(x0);
    }
    let _ = s;
    a9 + p0.f0
}

#[test]
fn methods_on_a_constant_struct_parameter() {
    let p = Scaled { f0: 3.0 };
    let (v, d) = methods_on_a_constant_struct_grad(&p, 2.0);
    assert_eq!(v, 18.0 + 3.0);
    assert_eq!(d, 9.0);
}

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Layered {
    pub f0: f64,
    pub f1: f64,
    pub n: usize,
}

impl Layered {
    #[grad(wrt(self, x))]
    fn affine(&self, x: f64) -> f64 {
        self.f0 * x + self.f1
    }
}

/// A method taking a differentiated struct, called in one arm only: the
/// other arm's placeholder for its slot needed `Default`.
#[grad(wrt(x1, p0))]
fn a_struct_call_in_one_arm(n0: usize, x1: f64, p0: &Layered) -> f64 {
    if n0 > 1 {
        return x1;
    }
    p0.affine(p0.f0 * x1)
}

#[test]
fn a_call_taking_a_struct_in_one_arm_of_a_branch() {
    let p = Layered {
        f0: 2.0,
        f1: 0.5,
        n: 1,
    };
    let (v, dx, dp) = a_struct_call_in_one_arm_grad(0, 3.0, &p);
    assert_eq!(v, 12.5);
    assert_eq!(dx, 4.0);
    assert_eq!((dp.f0, dp.f1), (12.0, 1.0));
    let (v, dx, dp) = a_struct_call_in_one_arm_grad(2, 3.0, &p);
    assert_eq!((v, dx, dp.f0, dp.f1), (3.0, 1.0, 0.0, 0.0));
}

/// Elements of a constant struct's `Vec` at indices computed from a
/// differentiated struct's integer field, as an expression and bound by
/// `let`; a constant struct's float field bound by `let mut` and changed;
/// an integer field in the trace.
#[grad(wrt(p0), trace)]
fn elements_at_field_indices(data: &Samples, p0: &Layered) -> f64 {
    let a9 = 0.5 + data.ys[(p0.n + 2) % 4] * p0.f0;
    let a13 = data.ys[(p0.n + 1) % 2];
    a9 * a13 + (p0.n as f64) * p0.f1
}

#[grad(wrt(xs))]
fn a_constant_field_changed(p0: &Layered, xs: &[f64]) -> f64 {
    let mut s = p0.f1;
    s -= xs.iter().sum::<f64>();
    s * p0.f0
}

#[test]
fn indices_and_fields_of_constant_structs() {
    let p = Layered {
        f0: 2.0,
        f1: 1.0,
        n: 3,
    };
    let data = Samples {
        ys: vec![1.0, 2.0, 3.0, 4.0],
    };
    let (v, d) = elements_at_field_indices_grad(&data, &p);
    assert_eq!(v, 4.5 + 3.0);
    assert_eq!((d.f0, d.f1, d.n), (2.0, 3.0, 3));
    let t = elements_at_field_indices_trace(&data, &p);
    assert_eq!(t.value(), v);
    let (v, d) = a_constant_field_changed_grad(&p, &[1.0, 2.0]);
    assert_eq!(v, -4.0);
    assert_eq!(d, vec![-2.0, -2.0]);
}

impl Layered {
    #[grad(wrt(self))]
    fn picked(&self, k: usize) -> f64 {
        self.f0 * (k as f64) + self.f1
    }
}

/// Arithmetic on a differentiated struct's integer field, passed to a
/// method's `usize` parameter: an integer beside a value of unstated type
/// is an integer (`p.n % 3`), with no derivative; it was differentiated,
/// E0277 `usize: Float` inside the expansion.
#[grad(wrt(p0))]
fn integer_arithmetic_on_a_field(p0: &Layered) -> f64 {
    p0.picked(p0.n % 3) + p0.picked(2 * p0.n + 1)
}

#[test]
fn integer_arithmetic_on_an_integer_field() {
    let p = Layered {
        f0: 2.0,
        f1: 0.5,
        n: 4,
    };
    let (v, d) = integer_arithmetic_on_a_field_grad(&p);
    assert_eq!(v, 2.0 * 1.0 + 0.5 + 2.0 * 9.0 + 0.5);
    assert_eq!((d.f0, d.f1, d.n), (10.0, 2.0, 4));
}

const RESTING: f64 = -0.11;

#[derive(Clone, Copy, Debug, autodiff::Differentiable)]
pub struct Resting {
    pub f0: f64,
}

impl Resting {
    #[grad(wrt(self))]
    fn energy(&self) -> f64 {
        self.f0 * self.f0
    }
}

/// A struct returned built of a bare `const` alone: it was refused ("needs
/// a function returning a struct to end with it built whole"), though it
/// is.
#[grad]
fn at_rest(a: f64, b: f64) -> Resting {
    Resting { f0: RESTING }
}

#[grad]
fn energy_at_rest(x: f64) -> f64 {
    let p = at_rest(x, 2.0 * x);
    p.energy() + x
}

#[test]
fn a_struct_built_of_a_constant_alone_is_returned() {
    let (v, da, db) = at_rest_vjp(0.3, 0.7, Resting { f0: 1.0 });
    assert_eq!(v.f0, RESTING);
    assert_eq!((da, db), (0.0, 0.0));
    for x in [-2.0, 0.5, 3.0] {
        assert_eq!(energy_at_rest_grad(x), (RESTING * RESTING + x, 1.0));
    }
}

#[grad]
fn lent(a: &mut f64, s: &mut f64, k: f64) {
    *a += k;
    *s *= 0.5;
}

/// A float lent to a writer shadowing a call's result of its name: the
/// outer `a` was taken for the lent one and refused ("needs the type of
/// `a`, which is lent by `&mut`").
#[grad]
fn lends_a_shadowing_float(x: f64) -> f64 {
    let a = squared(x);
    let mut s: f64 = 1.0;
    for _ in 0..2 {
        let mut a: f64 = s.tanh();
        lent(&mut a, &mut s, x);
        s += a;
    }
    s + a
}

#[test]
fn a_float_lent_while_shadowing_another() {
    check_at(
        |p| lends_a_shadowing_float(p[0]),
        |p| vec![lends_a_shadowing_float_grad(p[0]).1],
        &[&[-1.5], &[0.5], &[2.0]],
    );
}

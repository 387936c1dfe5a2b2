//! Shapes a new-user trial wrote that failed to compile inside the
//! expansion, each now differentiated: values exactly `f`'s, gradients
//! against central differences (h = 1e-6, relative 1e-6) at points spread
//! over each function's domain.

#![deny(warnings)]
#![allow(
    clippy::needless_range_loop,
    clippy::while_let_on_iterator,
    clippy::ptr_arg
)]

use approx::assert_relative_eq;
use autodiff::grad;

fn central(f: impl Fn(f64, f64) -> f64, a: f64, b: f64) -> (f64, f64) {
    let h = 1e-6;
    (
        (f(a + h, b) - f(a - h, b)) / (2.0 * h),
        (f(a, b + h) - f(a, b - h)) / (2.0 * h),
    )
}

fn check(f: impl Fn(f64, f64) -> f64, g: impl Fn(f64, f64) -> (f64, f64, f64)) {
    for (a, b) in [(0.3, 2.0), (-0.7, 0.45), (1.2, -1.1)] {
        let (v, da, db) = g(a, b);
        assert_eq!(v, f(a, b));
        let (fa, fb) = central(&f, a, b);
        assert_relative_eq!(da, fa, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(db, fb, max_relative = 1e-6, epsilon = 1e-8);
    }
}

pub enum Op {
    Scale(f64),
    Shift(f64),
    Label(String),
}

pub struct Settings {
    pub weights: Vec<f64>,
}

/// Bindings of a pattern that match ergonomics makes references (`c:
/// &f64`), multiplied by active values: a `match` on `&Op`, `if let
/// Some(w) = s.weights.get(i)` on a constant struct's `Vec`, `while let
/// Some(c) = it.next()`.
#[grad(wrt(x, k))]
fn bound_by_reference(x: f64, k: f64, ops: &[Op], s: &Settings) -> f64 {
    let mut acc = x;
    for op in ops {
        match op {
            Op::Scale(c) => acc *= c * k,
            Op::Shift(c) => acc += c,
            Op::Label(_) => {}
        }
    }
    for i in 0..4 {
        if let Some(w) = s.weights.get(i) {
            acc += w * k.powi(i as i32);
        }
    }
    let mut it = s.weights.iter();
    while let Some(c) = it.next() {
        acc += c * x;
    }
    acc
}

#[test]
fn pattern_bindings_that_are_references() {
    let ops = vec![
        Op::Scale(1.5),
        Op::Label("warmup".into()),
        Op::Shift(0.3),
        Op::Scale(-0.5),
    ];
    let s = Settings {
        weights: vec![0.5, -0.25, 0.1],
    };
    check(
        |x, k| bound_by_reference(x, k, &ops, &s),
        |x, k| bound_by_reference_grad(x, k, &ops, &s),
    );
}

/// `std::mem::swap` of two floats in a loop.
#[grad]
fn swapped(a0: f64, b0: f64) -> f64 {
    let mut a = a0;
    let mut b = b0;
    for _ in 0..5 {
        let c = a + 0.5 * b;
        a = b;
        b = c;
        std::mem::swap(&mut a, &mut b);
    }
    a * b
}

#[test]
fn floats_swapped() {
    check(swapped, swapped_grad);
}

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Layer {
    pub w: Vec<f64>,
    pub b: Vec<f64>,
    pub width: usize,
}

impl Layer {
    #[grad(wrt(self, x))]
    pub fn unit(&self, i: usize, x: &[f64]) -> f64 {
        let mut z = self.b[i];
        for j in 0..self.width {
            z += self.w[i * self.width + j] * x[j];
        }
        z.tanh()
    }
}

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Net {
    pub layers: Vec<Layer>,
}

/// `vec![0.0; layer.b.len()]` in a loop over `&net.layers`, and a row
/// of a constant `&[Vec<f64>]` given bare to a method taking `&[f64]`.
#[grad(wrt(a, b))]
fn layers_and_rows(a: f64, b: f64, net: &Net, xs: &[Vec<f64>]) -> f64 {
    let mut h = vec![a, b];
    for layer in &net.layers {
        let mut next = vec![0.0; layer.b.len()];
        for i in 0..layer.b.len() {
            let mut z = layer.b[i];
            for j in 0..layer.width {
                z += layer.w[i * layer.width + j] * h[j];
            }
            next[i] = z.tanh();
        }
        h = next;
    }
    let mut total = h[0] + h[1];
    for x in xs {
        total += net.layers[0].unit(0, x) * a + net.layers[1].unit(1, x) * b;
    }
    total
}

#[test]
fn lengths_of_loop_items_and_rows_given_to_methods() {
    let layer = |s: f64| Layer {
        w: (0..4).map(|i| (s * (i as f64 + 1.0)).sin()).collect(),
        b: vec![0.1, -0.2],
        width: 2,
    };
    let net = Net {
        layers: vec![layer(0.7), layer(1.3)],
    };
    let xs = vec![vec![0.5, -1.0], vec![1.0, 0.3]];
    check(
        |a, b| layers_and_rows(a, b, &net, &xs),
        |a, b| layers_and_rows_grad(a, b, &net, &xs),
    );
}

#[grad]
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Body {
    pub x: f64,
    pub v: f64,
}

impl Body {
    #[grad(wrt(self, dt))]
    pub fn step(&self, dt: f64) -> Self {
        Body {
            x: self.x + dt * self.v,
            v: self.v * 0.9 - dt * self.x,
        }
    }
}

/// A part of a call's result read in place, `cross(a, b)[2]`,
/// `s.step(dt).x` (was refused as a call to a function without a rule).
#[grad]
fn parts_of_calls(x: f64, y: f64) -> f64 {
    let a = [x, y, 1.0];
    let b = [y, 0.5, x * x];
    let s = Body { x, v: y };
    cross(a, b)[2] + (cross(b, a))[0] * x + s.step(0.1).x * s.step(y).v
}

#[test]
fn parts_of_calls_results_read_in_place() {
    check(parts_of_calls, parts_of_calls_grad);
}

/// A tuple `let` of floats and `sin_cos` destructured, in a loop
/// (dead reckoning) and in straight-line code.
#[grad]
fn odometry(step: f64, turn: f64) -> f64 {
    let (mut x, mut y, mut phi) = (0.0, 0.0, 0.0);
    for _ in 0..8 {
        phi += turn;
        let (s, c) = phi.sin_cos();
        x += step * c;
        y += step * s;
    }
    let (mut u, mut psi) = (step, turn);
    let (s, c) = psi.sin_cos();
    u += s * c;
    psi += u;
    x * x + y * y + psi
}

#[test]
fn tuple_lets_with_sin_cos() {
    check(odometry, odometry_grad);
}

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Neuron {
    pub w: f64,
    pub b: f64,
}

impl Neuron {
    #[grad(wrt(self))]
    pub fn both(&self, x: f64) -> (f64, f64) {
        ((self.w * x + self.b).tanh(), (self.b - self.w * x).tanh())
    }

    #[grad(wrt(self))]
    pub fn sym_loss(&self, x: f64) -> f64 {
        let (p, q) = self.both(x);
        (p + q).powi(2) + 0.1 * p
    }
}

/// A method returning a tuple, destructured: on `self` (inside a method)
/// and on a local struct.
#[grad]
fn tuple_methods(w: f64, b: f64) -> f64 {
    let n = Neuron { w, b };
    let (p, q) = n.both(0.7);
    n.sym_loss(0.3) + p * q
}

#[test]
fn a_method_returning_a_tuple_destructured() {
    check(tuple_methods, tuple_methods_grad);
}

#[grad]
fn pair_of(a: f64, b: f64) -> [f64; 2] {
    [a * b, a + b]
}

#[grad]
#[allow(clippy::needless_return)]
fn returned_pair(a: f64, b: f64) -> (f64, f64) {
    let s = a.sin();
    return (s * b, a - b);
}

/// Found by the tester's new generators: an array result destructured
/// (`let [a, b] = g(..)`), a tuple function ending with `return (..);`,
/// and a stack of constants popped (`while let Some(v) = stack.pop()`).
#[grad]
fn destructured_and_popped(x: f64, y: f64) -> f64 {
    let [p, q] = pair_of(x, y);
    let (u, v) = returned_pair(y, x);
    let mut s = p * q + u * v;
    let mut stack: Vec<f64> = vec![0.5, 1.5, -2.0];
    while let Some(c) = stack.pop() {
        s += c * x;
    }
    s
}

#[test]
fn destructured_arrays_returned_tuples_and_popped_stacks() {
    check(destructured_and_popped, destructured_and_popped_grad);
}

/// A `fold` in an `if` condition inside a `while let` body (its
/// accumulator starts from the pattern's binding `y`), and a `let` of a
/// binding match ergonomics makes a reference.
#[grad(wrt(x0))]
fn fold_in_while_let(x0: f64, ys: &[f64], ops: &[Op]) -> f64 {
    let mut s = 0.5;
    let v = [x0, 2.0 * x0];
    let mut it = ys.iter();
    while let Some(&y) = it.next() {
        let mut a = x0;
        if v.iter().fold(y, |acc, &u| acc * 0.9 + u) <= -0.43 {
            s *= 0.5;
        }
        a += (y * x0).sin();
        s += a;
    }
    for op in ops {
        if let Op::Scale(c) = op {
            let k = c;
            s *= k * x0;
        }
    }
    s
}

#[test]
fn folds_and_copies_of_pattern_bindings() {
    let ys = [1.0, 2.0, -3.0];
    let ops = vec![Op::Scale(1.5), Op::Shift(0.3), Op::Scale(-0.5)];
    for x in [0.5, -0.9, 1.7] {
        let (v, d) = fold_in_while_let_grad(x, &ys, &ops);
        assert_eq!(v, fold_in_while_let(x, &ys, &ops));
        let h = 1e-6;
        let fd =
            (fold_in_while_let(x + h, &ys, &ops) - fold_in_while_let(x - h, &ys, &ops)) / (2.0 * h);
        assert_relative_eq!(d, fd, max_relative = 1e-6, epsilon = 1e-8);
    }
}

#[grad]
fn relax(x: &mut f64, target: f64) {
    if target.abs() < 1e-12 {
        return;
    }
    *x += 0.3 * (target - *x);
}

/// A `&mut f64` parameter handed on to a writer as it is, `relax(state,
/// t)` (an implicit reborrow), was refused without a location.
#[grad]
fn relax_all(state: &mut f64, targets: &[f64]) -> f64 {
    for i in 0..targets.len() {
        relax(state, targets[i]);
    }
    *state * *state
}

#[test]
fn a_mut_parameter_handed_on_to_a_writer() {
    let t = [0.5, -1.0, 2.0];
    for s0 in [1.0, -0.4, 2.5] {
        let mut s = s0;
        let (v, ds, dt) = relax_all_grad(&mut s, &t);
        let mut plain = s0;
        assert_eq!(v, relax_all(&mut plain, &t));
        assert_eq!(s, plain);
        let h = 1e-6;
        let (mut a, mut b) = (s0 + h, s0 - h);
        let fd = (relax_all(&mut a, &t) - relax_all(&mut b, &t)) / (2.0 * h);
        assert_relative_eq!(ds, fd, max_relative = 1e-6, epsilon = 1e-8);
        let mut t1 = t;
        t1[1] += h;
        let mut t2 = t;
        t2[1] -= h;
        let (mut a, mut b) = (s0, s0);
        let fd = (relax_all(&mut a, &t1) - relax_all(&mut b, &t2)) / (2.0 * h);
        assert_relative_eq!(dt[1], fd, max_relative = 1e-6, epsilon = 1e-8);
    }
}

#[grad]
fn to_cartesian(r: f64, theta: f64) -> (f64, f64) {
    (r * theta.cos(), r * theta.sin())
}

/// A tuple `let` from an `if` whose arms are calls returning the tuple.
#[grad]
fn tuple_from_call_arms(r: f64, th: f64) -> f64 {
    let (x, y) = if r > 0.5 {
        to_cartesian(r, -th)
    } else {
        to_cartesian(r * 2.0, th)
    };
    x * y + x
}

#[test]
fn a_tuple_from_branches_ending_with_calls() {
    check(tuple_from_call_arms, tuple_from_call_arms_grad);
}

/// From the second trial: a method on a non-`Copy` struct inside a
/// differentiated one (`o.inner.eval(x)`, `o.items[k].eval(x)`), a
/// `String` field compared and measured, and an array parameter changed
/// in the body (`mut v: [f64; 2]`). Exact values.
#[derive(autodiff::Differentiable, Clone, Debug, PartialEq)]
struct Inner {
    a: f64,
}

impl Inner {
    #[grad(wrt(self, x))]
    fn eval(&self, x: f64) -> f64 {
        self.a * x * x
    }
}

#[derive(autodiff::Differentiable, Clone, Debug)]
struct Outer {
    name: String,
    inner: Inner,
    items: Vec<Inner>,
}

#[grad(wrt(o, x))]
fn nested_method(o: &Outer, x: f64) -> f64 {
    let n = &o.name;
    let k = if o.name == "XY" && o.name.starts_with('X') && o.name.as_str() != "Z" {
        2.0
    } else {
        1.0
    };
    o.inner.eval(x) * k + o.items[1].eval(x) * n.len() as f64 + Inner::eval(&o.inner, 0.0)
}

#[grad]
fn array_param_changed(mut v: [f64; 2], k: f64) -> f64 {
    v[0] *= v[1] * k;
    v[0] + v[1]
}

#[test]
fn methods_of_nested_structs_string_fields_and_a_mut_array_parameter() {
    let o = Outer {
        name: "XY".into(),
        inner: Inner { a: 2.0 },
        items: vec![Inner { a: 0.5 }, Inner { a: 3.0 }],
    };
    let (v, d_o, dx) = nested_method_grad(&o, 1.5);
    // 2·a·x² + 2·b·x², a = 2, b = 3 (the name has 2 bytes).
    assert_eq!(v, 2.0 * 2.0 * 2.25 + 2.0 * 3.0 * 2.25);
    assert_eq!(d_o.inner, Inner { a: 2.0 * 2.25 });
    assert_eq!(d_o.items, vec![Inner { a: 0.0 }, Inner { a: 2.0 * 2.25 }]);
    assert_eq!(dx, 2.0 * 2.0 * 2.0 * 1.5 + 2.0 * 3.0 * 2.0 * 1.5);
    assert_eq!(
        array_param_changed_grad([2.0, 3.0], 0.5),
        (6.0, [1.5, 2.0], 6.0)
    );
}

/// An array destructuring assignment, `[p, q] = [q, p];`, as the tuple
/// one: every value first, then each variable.
#[grad]
fn array_swap(x: f64, y: f64) -> f64 {
    let mut p = x;
    let mut q = y * x;
    [p, q] = [q, p + q];
    p * 2.0 + q
}

#[test]
fn an_array_destructuring_assignment() {
    // p = xy, q = x + xy: 2xy + x + xy = 3xy + x.
    assert_eq!(array_swap_grad(1.0, 3.0), (10.0, 10.0, 3.0));
}

/// A method of a struct another call returned, inside one arm of a
/// branch (`seg(t, r).length()`): the other arm had no placeholder of the
/// slot's type (`Seg: Default` was required).
#[derive(autodiff::Differentiable, Clone, Debug)]
struct Seg {
    bx: f64,
    by: f64,
}

impl Seg {
    #[grad(wrt(self))]
    fn length(&self) -> f64 {
        (self.bx * self.bx + self.by * self.by).sqrt()
    }
}

#[grad]
fn seg(t: f64, r: f64) -> Seg {
    Seg {
        bx: r * t.cos(),
        by: r * t.sin(),
    }
}

#[grad]
fn seg_score(t: f64, r: f64) -> f64 {
    if t > 0.0 {
        seg(t, r).length() * t
    } else {
        r
    }
}

#[test]
fn a_call_results_method_in_one_arm() {
    let (v, dt, dr) = seg_score_grad(1.5, 0.3);
    assert_relative_eq!(v, 0.45, max_relative = 1e-15);
    assert_relative_eq!(dt, 0.3, max_relative = 1e-14);
    assert_relative_eq!(dr, 1.5, max_relative = 1e-14);
    assert_eq!(seg_score_grad(-1.0, 0.3), (0.3, 0.0, 1.0));
}

/// An array a call returned, lent to another call inside one arm
/// (`rv0(&mk0(x), x)`): its slot keeps its placeholder in the other arm
/// (found by the differential tester after the previous case's fix).
#[grad]
fn mk0(x: f64) -> [f64; 2] {
    [x * -0.37, x.abs()]
}

#[grad]
fn rv0(s: &[f64], x: f64) -> f64 {
    x * s[0] + s[1]
}

#[grad]
fn lent_in_one_arm(x: f64) -> f64 {
    if x > 0.0 {
        rv0(&mk0(x), x)
    } else {
        x
    }
}

#[test]
fn a_call_result_lent_in_one_arm() {
    let (v, d) = lent_in_one_arm_grad(0.5);
    assert_relative_eq!(v, -0.37 * 0.25 + 0.5, max_relative = 1e-15);
    assert_relative_eq!(d, -0.74 * 0.5 + 1.0, max_relative = 1e-15);
    assert_eq!(lent_in_one_arm_grad(-2.0), (-2.0, 1.0));
}

// ---- a second new-user trial ----------------------------------------------

/// A bare `#[grad]` with a tuple parameter (E0277 inside the expansion:
/// the forward-mode slots took a tuple's tangent along its gradient).
#[grad]
fn paired(x: f64, pair: (f64, f64)) -> f64 {
    pair.1 * x + pair.0 * pair.0
}

#[grad]
fn looked_up(x: f64, table: &[(usize, f64)], key: usize) -> f64 {
    let mut acc = 0.0;
    for &(k, w) in table {
        if k == key {
            acc += w * x;
        }
    }
    acc
}

#[test]
fn tuple_parameters_of_a_bare_grad() {
    let (v, dx, (d0, d1)) = paired_grad(0.5, (3.0, 2.0));
    assert_eq!((v, dx, d0, d1), (10.0, 2.0, 6.0, 0.5));
    let (v, dx, dt) = looked_up_grad(0.5, &[(3, 0.5), (1, 2.0)], 3);
    assert_eq!((v, dx), (0.25, 0.5));
    // The integers of a gradient are the argument's own (constants).
    assert_eq!(dt, vec![(3, 0.5), (1, 0.0)]);
}

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Quote {
    pub bid: f64,
    pub ask: f64,
}

#[grad]
fn make_quote(px: f64, spread: f64) -> Quote {
    Quote {
        bid: px - 0.5 * spread,
        ask: px + 0.5 * spread,
    }
}

#[grad]
fn act(x: &[f64], leaky: bool) -> Vec<f64> {
    let mut h = Vec::new();
    for &z in x {
        h.push(if leaky && z < 0.0 { 0.1 * z } else { z.tanh() });
    }
    h
}

/// A struct (not `Copy`) and a `Vec` that `#[grad]` calls in both arms of
/// an `if` give, read after it (E0382 inside the expansion: the arms'
/// value moved, then read again for its adjoint's shape).
#[grad(wrt(px, spread))]
fn quoted(px: f64, spread: f64, wide: bool) -> f64 {
    let q = if wide {
        make_quote(px, 2.0 * spread)
    } else {
        make_quote(px, spread)
    };
    let x = [px, spread];
    let h = if wide { act(&x, true) } else { act(&x, false) };
    (q.ask - q.bid) * q.ask + h[0] * h[1]
}

#[test]
fn a_struct_and_a_vec_from_calls_in_both_arms() {
    for wide in [true, false] {
        check(|a, b| quoted(a, b, wide), |a, b| quoted_grad(a, b, wide));
    }
}

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Robot {
    pub x: f64,
    pub y: f64,
    pub th: f64,
}

impl Robot {
    #[grad]
    pub fn forward(&mut self, d: f64) {
        self.x += d * self.th.cos();
        self.y += d * self.th.sin();
    }

    #[grad]
    pub fn turn(&mut self, a: f64) {
        self.th += a;
    }
}

#[derive(Clone, Copy)]
pub enum Cmd {
    Fwd(f64),
    Turn(f64),
    Wait,
}

/// A writer called as a `match` arm's value in a loop, `Cmd::Fwd(t) =>
/// r.forward(v * t),` (a parse error inside the expansion), and as an
/// `if`'s arms ending a loop's body, on a local struct and on a copy of a
/// parameter (refused before: "cannot follow `q` through this loop").
#[grad(wrt(v, w))]
fn driven(v: f64, w: f64, cmds: &[Cmd], start: &Robot) -> f64 {
    let mut r = Robot {
        x: 0.0,
        y: 0.0,
        th: 0.0,
    };
    for c in cmds {
        match c {
            Cmd::Fwd(t) => r.forward(v * t),
            Cmd::Turn(t) => r.turn(w * t),
            Cmd::Wait => {}
        }
    }
    let mut q = start.clone();
    for k in 0..3 {
        if k % 2 == 0 {
            q.forward(v)
        } else {
            q.turn(w)
        }
    }
    (r.x - 1.0).powi(2) + (r.y - 2.0).powi(2) + q.x * q.y
}

#[test]
fn writers_whose_value_nothing_reads() {
    let cmds = [
        Cmd::Fwd(1.0),
        Cmd::Turn(0.5),
        Cmd::Wait,
        Cmd::Fwd(2.0),
        Cmd::Turn(-1.0),
        Cmd::Fwd(0.5),
    ];
    let start = Robot {
        x: 0.5,
        y: -0.25,
        th: 0.3,
    };
    check(
        |a, b| driven(a, b, &cmds, &start),
        |a, b| driven_grad(a, b, &cmds, &start),
    );
}

#[derive(Clone, Debug, PartialEq, autodiff::Differentiable)]
pub struct Pose {
    pub x: f64,
    pub th: f64,
}

/// A struct output built in each arm of the body's last `if` (refused
/// before, and so was the refusal's suggestion, the struct bound by a
/// `let` and named last).
#[grad(wrt(p, d))]
fn moved(p: &Pose, d: f64, fwd: bool) -> Pose {
    if fwd {
        Pose {
            x: p.x + d * p.th.cos(),
            th: p.th,
        }
    } else {
        let turn = d * 0.5;
        Pose {
            th: p.th + turn,
            x: p.x - d * p.th.cos(),
        }
    }
}

#[grad(wrt(p, d))]
#[allow(clippy::let_and_return)] // the shape the refusal suggested
fn moved_by(p: &Pose, d: f64, mode: usize) -> Pose {
    let out = match mode {
        0 => Pose {
            x: p.x + d,
            th: p.th,
        },
        1 => Pose {
            x: p.x * d,
            th: p.th - d,
        },
        _ => Pose {
            x: p.x,
            th: (p.th * d).sin(),
        },
    };
    out
}

#[test]
fn a_struct_output_built_in_each_branch() {
    let p = Pose { x: 0.4, th: 0.3 };
    let d = 0.7;
    let h = 1e-6;
    // Each seed picks one field: the gradient of that field of the output.
    let field = |q: &Pose, k: usize| if k == 0 { q.x } else { q.th };
    let seeds = [Pose { x: 1.0, th: 0.0 }, Pose { x: 0.0, th: 1.0 }];
    type F = Box<dyn Fn(&Pose, f64) -> Pose>;
    type G = Box<dyn Fn(&Pose, f64, Pose) -> (Pose, Pose, f64)>;
    let mut cases: Vec<(F, G)> = Vec::new();
    for fwd in [true, false] {
        cases.push((
            Box::new(move |p, d| moved(p, d, fwd)),
            Box::new(move |p, d, s| moved_vjp(p, d, fwd, s)),
        ));
    }
    for mode in 0..3 {
        cases.push((
            Box::new(move |p, d| moved_by(p, d, mode)),
            Box::new(move |p, d, s| moved_by_vjp(p, d, mode, s)),
        ));
    }
    for (f, g) in &cases {
        for (k, seed) in seeds.iter().enumerate() {
            let (value, dp, dd) = g(&p, d, seed.clone());
            assert_eq!(value, f(&p, d));
            let at = |q: Pose, e: f64| field(&f(&q, e), k);
            let fx = (at(
                Pose {
                    x: p.x + h,
                    ..p.clone()
                },
                d,
            ) - at(
                Pose {
                    x: p.x - h,
                    ..p.clone()
                },
                d,
            )) / (2.0 * h);
            let ft = (at(
                Pose {
                    th: p.th + h,
                    ..p.clone()
                },
                d,
            ) - at(
                Pose {
                    th: p.th - h,
                    ..p.clone()
                },
                d,
            )) / (2.0 * h);
            let fd = (at(p.clone(), d + h) - at(p.clone(), d - h)) / (2.0 * h);
            assert_relative_eq!(dp.x, fx, max_relative = 1e-6, epsilon = 1e-8);
            assert_relative_eq!(dp.th, ft, max_relative = 1e-6, epsilon = 1e-8);
            assert_relative_eq!(dd, fd, max_relative = 1e-6, epsilon = 1e-8);
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, autodiff::Differentiable)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

#[grad(wrt(a, b))]
fn add2(a: V2, b: V2) -> V2 {
    V2 {
        x: a.x + b.x,
        y: a.y + b.y,
    }
}

impl V2 {
    #[grad]
    fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }
}

/// `*p` of a struct parameter passed by value (refused before: "rewrite
/// it with float arithmetic"), and a constructor's result with its type
/// written, a field assigned (what the refusal without the type says).
#[grad(wrt(p, q0))]
fn deref_and_constructed(p: &V2, q0: f64) -> f64 {
    let q = V2 { x: q0, y: 1.0 };
    let s = add2(*p, q);
    let mut b: V2 = V2::new(s.x, q0);
    b.y -= 0.1 * b.x;
    s.x * s.y + b.y * b.x
}

#[test]
fn a_dereferenced_struct_parameter_and_a_typed_constructor() {
    check(
        |a, b| deref_and_constructed(&V2 { x: a, y: 2.0 }, b),
        |a, b| {
            let (v, dp, dq) = deref_and_constructed_grad(&V2 { x: a, y: 2.0 }, b);
            (v, dp.x, dq)
        },
    );
}

/// An iterator drained by `while let` over a slice that carries a
/// derivative (refused before: "cannot differentiate through `it`"): the
/// `for` loop it stands for, with `enumerate` and `break` too.
#[grad(wrt(p, xs))]
fn drained(p: f64, xs: &[f64]) -> f64 {
    let mut it = xs.iter();
    let mut s = 0.0;
    while let Some(&v) = it.next() {
        s += v * p;
    }
    let mut pairs = xs.iter().enumerate();
    while let Some((i, x)) = pairs.next() {
        if i > 1 {
            break;
        }
        s += x.sin() * i as f64;
    }
    s
}

#[test]
fn an_iterator_drained_by_while_let() {
    let xs = [0.5, -1.0, 2.0, 0.25];
    for p in [0.3, -1.5] {
        let (v, dp, dxs) = drained_grad(p, &xs);
        assert_eq!(v, drained(p, &xs));
        assert_relative_eq!(dp, xs.iter().sum::<f64>(), max_relative = 1e-14);
        let exact = [p, p + xs[1].cos(), p, p];
        for (d, e) in dxs.iter().zip(exact) {
            assert_relative_eq!(*d, e, max_relative = 1e-14);
        }
    }
}

/// Soft k-means on centres given as `&[[f64; 2]]`: the slice's `len()`,
/// in a `vec!`'s length and a loop bound, and a chain over its rows
/// collected. (`centers.len()` was taken for a method of a struct's:
/// E0599 `__autodiff_grad_method_slots_len` inside the expansion.)
#[grad(wrt(centers))]
fn soft_assign(centers: &[[f64; 2]], p: [f64; 2]) -> f64 {
    let k = centers.len();
    let d: Vec<f64> = centers
        .iter()
        .map(|c| (p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2))
        .collect();
    let mut w = vec![0.0; centers.len()];
    let mut total = 0.0;
    for j in 0..k {
        w[j] = (-d[j]).exp();
        total += w[j];
    }
    let mut s = 0.0;
    for j in 0..k {
        s += w[j] / total * d[j];
    }
    s / k as f64
}

#[test]
fn the_length_of_a_slice_of_rows() {
    let f = |c: &[[f64; 2]], p: [f64; 2]| {
        let d: Vec<f64> = c
            .iter()
            .map(|c| (p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2))
            .collect();
        let w: Vec<f64> = d.iter().map(|d| (-d).exp()).collect();
        let total: f64 = w.iter().sum();
        (0..c.len()).map(|j| w[j] / total * d[j]).sum::<f64>() / c.len() as f64
    };
    let centers = [[0.0, 0.5], [1.5, -0.25], [-1.0, 1.0]];
    for p in [[0.25, 0.5], [1.0, -1.0], [-0.75, 0.3]] {
        let (v, dc) = soft_assign_grad(&centers, p);
        assert_eq!(v, soft_assign(&centers, p));
        assert_relative_eq!(v, f(&centers, p), max_relative = 1e-14);
        let h = 1e-6;
        for j in 0..3 {
            for c in 0..2 {
                let (mut up, mut down) = (centers, centers);
                up[j][c] += h;
                down[j][c] -= h;
                let cd = (f(&up, p) - f(&down, p)) / (2.0 * h);
                assert_relative_eq!(dc[j][c], cd, max_relative = 1e-6, epsilon = 1e-9);
            }
        }
    }
}

/// A local list of indices, the way a mesh or a sorting network is
/// written: pairs and triangles bound by `let`, looped over by value, by
/// reference and through chains.
#[grad(jvp)]
fn local_index_lists(x: &[f64]) -> f64 {
    let pairs = [(0, 1), (1, 2), (2, 3)];
    let tris: Vec<[usize; 3]> = vec![[0, 1, 2], [1, 2, 3]];
    let faces = vec![vec![0, 2], vec![1, 3, 0]];
    let mut s = 0.0;
    for &(i, j) in &pairs {
        s += (x[i] - x[j]).powi(2);
    }
    for (i, j) in pairs {
        s += x[i] * x[j] * 0.5;
    }
    for e in pairs.iter() {
        let (i, j) = *e;
        s += (x[i] + x[j]).sin();
    }
    for t in &tris {
        s += x[t[0]] * x[t[1]] - x[t[2]];
    }
    for (k, t) in tris.iter().enumerate() {
        s += x[t[k]] * k as f64;
    }
    for f in faces {
        s += f.iter().map(|&v| x[v]).sum::<f64>().tanh();
    }
    s + pairs.iter().map(|&(i, j)| x[i] * x[j]).sum::<f64>()
}

#[test]
fn loops_over_local_index_lists() {
    for x in [
        [0.3, -1.2, 0.8, 2.0],
        [1.1, 0.4, -0.6, -0.2],
        [-2.0, 0.05, 1.3, 0.7],
    ] {
        let (v, g) = local_index_lists_grad(&x);
        assert_eq!(v, local_index_lists(&x));
        let report = autodiff::check_gradient(local_index_lists, &x, &g, 1e-6, 1e-9, 1e-6);
        assert!(report.passed, "{report}");
        let dir = [0.1, 0.2, -0.3, 0.4];
        let (_, t) = local_index_lists_jvp(&x, &dir);
        let along: f64 = g.iter().zip(&dir).map(|(a, b)| a * b).sum();
        assert!(
            (t - along).abs() <= 1e-12 * along.abs().max(1.0),
            "{t} {along}"
        );
    }
}

/// `first()` and `last()` of a slice, unwrapped: the elements they read.
#[grad]
fn total_return(prices: &[f64]) -> f64 {
    let first = *prices.first().unwrap();
    let last = *prices.last().unwrap();
    let peak = prices.last().copied().expect("at least one price");
    last / first - 1.0 + 0.5 * peak.ln() + prices.first().unwrap() * 0.01
}

#[test]
fn first_and_last_of_a_slice() {
    for p in [
        vec![100.0, 101.0, 103.0],
        vec![2.5],
        vec![1.0, 0.5, 0.25, 4.0],
    ] {
        let (v, g) = total_return_grad(&p);
        assert_eq!(v, total_return(&p));
        let report = autodiff::check_gradient(total_return, &p, &g, 1e-6, 1e-9, 1e-6);
        assert!(report.passed, "{report}");
    }
    assert!(std::panic::catch_unwind(|| total_return_grad(&[])).is_err());
}

/// A row of a nested array copied into a variable that is replaced whole
/// in the loop (the previous vertex of a polyline), from a fixed array, a
/// slice and a `Vec` of rows.
#[grad]
fn polyline_len(pts: [[f64; 2]; 3]) -> f64 {
    let mut len = 0.0;
    let mut prev = pts[0];
    for i in 1..3 {
        let p = pts[i];
        len += ((p[0] - prev[0]).powi(2) + (p[1] - prev[1]).powi(2)).sqrt();
        prev = p;
    }
    len
}

#[grad]
fn polyline_of_slice(pts: &[[f64; 2]]) -> f64 {
    let mut len = 0.0;
    let mut prev = pts[0];
    for p in &pts[1..] {
        len += ((p[0] - prev[0]).powi(2) + (p[1] - prev[1]).powi(2)).sqrt();
        prev = *p;
    }
    len
}

#[grad]
fn turning(pts: &Vec<[f64; 3]>) -> f64 {
    let mut s = 0.0;
    let mut a: [f64; 3] = pts[0];
    for k in 1..pts.len() {
        let b = pts[k];
        s += a[0] * b[1] - a[1] * b[0] + a[2] * b[2];
        a = b;
    }
    s
}

#[test]
fn rows_copied_then_replaced_whole() {
    let rows2 = |x: &[f64]| -> Vec<[f64; 2]> { x.chunks(2).map(|c| [c[0], c[1]]).collect() };
    let rows3 = |x: &[f64]| -> Vec<[f64; 3]> { x.chunks(3).map(|c| [c[0], c[1], c[2]]).collect() };
    for x in [
        [0.0, 1.0, 2.0, 3.0, 1.0, 5.0],
        [-1.5, 0.2, 0.7, -2.4, 3.1, 0.9],
    ] {
        let fixed = |x: &[f64]| polyline_len([[x[0], x[1]], [x[2], x[3]], [x[4], x[5]]]);
        let (v, g) = polyline_len_grad([[x[0], x[1]], [x[2], x[3]], [x[4], x[5]]]);
        assert_eq!(v, fixed(&x));
        let claimed: Vec<f64> = g.iter().flatten().copied().collect();
        let report = autodiff::check_gradient(fixed, &x, &claimed, 1e-6, 1e-9, 1e-6);
        assert!(report.passed, "{report}");

        let (v, g) = polyline_of_slice_grad(&rows2(&x));
        assert_eq!(v, fixed(&x));
        assert_eq!(g.iter().flatten().copied().collect::<Vec<_>>(), claimed);

        let y = [x.as_slice(), &[0.4, -0.8, 1.3, 2.2, -0.1, 0.6]].concat();
        let (v, g) = turning_grad(&rows3(&y));
        assert_eq!(v, turning(&rows3(&y)));
        let claimed: Vec<f64> = g.iter().flatten().copied().collect();
        let report =
            autodiff::check_gradient(|y| turning(&rows3(y)), &y, &claimed, 1e-6, 1e-9, 1e-6);
        assert!(report.passed, "{report}");
    }
}

/// An array parameter taken apart into variables that change after
/// (`let [mut x, mut y] = start;`), constant and differentiated.
#[grad(wrt(v))]
fn from_start(v: f64, start: [f64; 2]) -> f64 {
    let [mut x, mut y] = start;
    for _ in 0..3 {
        x += v * y;
        y *= v;
    }
    x * y
}

#[grad]
fn from_state(state: [f64; 3], dt: f64) -> f64 {
    let [mut p, mut q, _] = state;
    p += dt * q;
    q -= dt * p;
    p * p + q * state[2]
}

#[test]
fn array_parameters_taken_apart_into_variables() {
    check(
        |v, s| from_start(v, [s, 1.0 - s]),
        |v, s| {
            let (value, dv) = from_start_grad(v, [s, 1.0 - s]);
            let h = 1e-6;
            let ds = (from_start(v, [s + h, 1.0 - s - h]) - from_start(v, [s - h, 1.0 - s + h]))
                / (2.0 * h);
            (value, dv, ds)
        },
    );
    check(
        |a, dt| from_state([a, 0.5, a * a], dt),
        |a, dt| {
            let (value, ds, ddt) = from_state_grad([a, 0.5, a * a], dt);
            (value, ds[0] + ds[2] * 2.0 * a, ddt)
        },
    );
}

// Trial 10: patterns that Rust binds by reference over data the function
// reads (`&[(f64, f64)]`, `&[(usize, f64)]`, `&[Obs]`, `&Stepping`): the
// names are `&f64`s and `&usize`s, which the expansion gave to float
// rules as they were (E0308 "expected `f64`, found `&f64`") or bound by
// value while the body wrote `*i` (E0614).

struct Obs {
    t: f64,
    y: f64,
}

struct Stepping {
    dt: f64,
    damping: f64,
    steps: usize,
}

#[grad(wrt(a, b))]
fn pairs_by_reference(a: f64, b: f64, data: &[(f64, f64)], picks: &[(usize, f64)]) -> f64 {
    let mut s = 0.0;
    for (x, y) in data {
        s += (a * x - y).powi(2);
    }
    for (x, y) in data.iter() {
        s += (b * *x - *y).abs();
    }
    for (i, w) in picks {
        s += w * data[*i].0 * a * b;
    }
    s
}

#[grad(wrt(a, b))]
fn structs_by_reference(a: f64, b: f64, obs: &[Obs], cfg: &Stepping) -> f64 {
    let mut s = 0.0;
    for Obs { t, y } in obs {
        s += (a * t + b - y).powi(2);
    }
    let Stepping { dt, damping, steps } = cfg;
    let (mut x, mut v) = (s, 0.0);
    for _ in 0..*steps {
        v += dt * (-a * x - damping * v);
        x += dt * v;
    }
    x
}

// The same patterns as a closure's parameters (r838, r840): the `let`
// stands in the closure's block, the floats it binds assigned to names
// declared before it.
#[grad(wrt(a, b))]
fn closures_over_pairs(a: f64, b: f64, data: &[(f64, f64)], obs: &[Obs]) -> f64 {
    let l1: f64 = data.iter().map(|(x, y)| (a * x - y).abs()).sum();
    let l2: f64 = obs.iter().map(|Obs { t, y }| (b * t - y).powi(2)).sum();
    let l3 = data
        .iter()
        .map(|&(x, y)| (a * x + b * y).sin())
        .fold(0.0, |s, v| s + v);
    l1 + l2 * a + l3
}

#[test]
fn patterns_bound_by_reference_over_data() {
    let data = [(1.0, 2.1), (2.0, 3.9), (-0.5, 0.2)];
    let picks = [(0, 0.5), (2, 0.25)];
    check(
        |a, b| pairs_by_reference(a, b, &data, &picks),
        |a, b| pairs_by_reference_grad(a, b, &data, &picks),
    );
    let obs = [Obs { t: 1.0, y: 2.1 }, Obs { t: 2.0, y: 3.9 }];
    check(
        |a, b| closures_over_pairs(a, b, &data, &obs),
        |a, b| closures_over_pairs_grad(a, b, &data, &obs),
    );
    let cfg = Stepping {
        dt: 0.05,
        damping: 0.3,
        steps: 20,
    };
    check(
        |a, b| structs_by_reference(a, b, &obs, &cfg),
        |a, b| structs_by_reference_grad(a, b, &obs, &cfg),
    );
}

// `x.clone()` of a float (trial 10 r793): refused as a method without a
// derivative rule; it is the float itself.
#[allow(clippy::clone_on_copy)]
#[grad]
fn cloned_floats(x: f64, y: f64) -> f64 {
    let a = x.clone();
    let b = a * y.clone();
    b + (x * 2.0).clone().sin()
}

#[test]
fn a_floats_clone_is_the_float() {
    check(cloned_floats, cloned_floats_grad);
}

// Array patterns over rows the function differentiates (trial 10
// r834/r835): `for [a, b] in pts` was refused as "this iterator is not
// one of those".
#[grad(wrt(a, b, pts))]
fn rows_by_pattern(a: f64, b: f64, pts: &[[f64; 2]]) -> f64 {
    let mut s = 0.0;
    for [x, y] in pts {
        s += (a * x - y).powi(2) + (b * *y).sin();
    }
    for &[x, y] in pts {
        s += a * b * x * y;
    }
    s
}

#[test]
fn array_patterns_over_rows() {
    let pts = [[1.0, 2.1], [2.0, 3.9], [-0.5, 0.2]];
    check(
        |a, b| rows_by_pattern(a, b, &pts),
        |a, b| {
            let (v, da, db, _) = rows_by_pattern_grad(a, b, &pts);
            (v, da, db)
        },
    );
    // The rows' own gradient: ∂/∂x = 2(ax − y)a + b·y·ab, ∂/∂y = −2(ax − y)
    // + b cos(by) + abx.
    let (a, b) = (0.3, -0.7);
    let (_, _, _, dp) = rows_by_pattern_grad(a, b, &pts);
    for (p, d) in pts.iter().zip(&dp) {
        let (x, y) = (p[0], p[1]);
        let r = a * x - y;
        assert_relative_eq!(d[0], 2.0 * r * a + a * b * y, max_relative = 1e-12);
        assert_relative_eq!(
            d[1],
            -2.0 * r + b * (b * y).cos() + a * b * x,
            max_relative = 1e-12
        );
    }
}

/// A state vector assembled from parts by `extend_from_slice` (trial 10
/// r683), of a parameter, a local array, a sub-slice, and an index list of
/// `usize`s beside it.
#[grad(wrt(a, b))]
fn assembled(a: f64, b: f64, order: &[usize]) -> f64 {
    let pos = [a, a * b];
    let vel = vec![b.sin(), a - b];
    let mut state: Vec<f64> = Vec::with_capacity(4);
    state.extend_from_slice(&pos);
    state.extend_from_slice(&vel[..1]);
    state.extend_from_slice(&vel);
    let mut picks = Vec::new();
    picks.extend_from_slice(order);
    let mut e = 0.0;
    for i in 1..state.len() {
        e += (state[i] - state[i - 1]).powi(2);
    }
    for &k in &picks {
        e += state[k] * k as f64;
    }
    e
}

#[test]
fn a_vec_assembled_by_extend_from_slice() {
    let order = [3, 0, 4];
    check(
        |a, b| assembled(a, b, &order),
        |a, b| assembled_grad(a, b, &order),
    );
}

/// An angle wrapped into [−π, π) by `rem_euclid` (trial 10 r672), in a
/// function with its tangent and Hessian too, and generic.
#[grad(jvp, hessian)]
fn wrapped_error(a: f64, b: f64) -> f64 {
    let pi = std::f64::consts::PI;
    let e = (a * 3.0 - b + pi).rem_euclid(2.0 * pi) - pi;
    let turns = (a * b).div_euclid(0.5);
    e * e + b.rem_euclid(a) * turns
}

#[grad(jvp)]
fn wrapped_generic<T: autodiff::Float>(a: T, b: T) -> T {
    let tau = T::from_f64(std::f64::consts::TAU);
    (a * b).rem_euclid(tau) + a.div_euclid(b) * b
}

#[test]
fn angles_wrapped_by_rem_euclid() {
    check(wrapped_error, wrapped_error_grad);
    check(wrapped_generic, wrapped_generic_grad);
    for (a, b) in [(0.3, 2.0), (-0.7, 0.45), (1.2, -1.1)] {
        let (_, da, db) = wrapped_error_grad(a, b);
        let (_, t) = wrapped_error_jvp(a, b, 0.25, -1.5);
        assert_relative_eq!(t, 0.25 * da - 1.5 * db, max_relative = 1e-12);
        let (_, ga, gb) = wrapped_generic_grad(a, b);
        let (_, tg) = wrapped_generic_jvp(a, b, 0.25, -1.5);
        assert_relative_eq!(tg, 0.25 * ga - 1.5 * gb, max_relative = 1e-12);
        // Second derivatives: the Hessian's rows against differences of
        // the gradient.
        let (_, _, _, h) = wrapped_error_hessian(a, b);
        let e = 1e-6;
        let (_, pa, pb) = wrapped_error_grad(a + e, b);
        let (_, ma, mb) = wrapped_error_grad(a - e, b);
        assert_relative_eq!(
            h[0][0],
            (pa - ma) / (2.0 * e),
            max_relative = 1e-5,
            epsilon = 1e-6
        );
        assert_relative_eq!(
            h[1][0],
            (pb - mb) / (2.0 * e),
            max_relative = 1e-5,
            epsilon = 1e-6
        );
    }
}

/// Table interpolation finding its interval by `binary_search_by` (trial 10
/// r659: refused as if it changed the table), and a median through the
/// sorted list of indices the refusal of `sort_by` on the data suggests.
#[grad]
fn interpolated(a: f64, b: f64) -> f64 {
    let xs = [0.0, 0.5 + 0.1 * a, 1.5, 2.5];
    let ys = [1.0, a * b, b.sin(), 3.0];
    let x = 1.0 + 0.2 * b;
    let i = match xs.binary_search_by(|p| p.partial_cmp(&x).unwrap()) {
        Ok(i) => i.min(xs.len() - 2),
        Err(i) => i.clamp(1, xs.len() - 1) - 1,
    };
    let v = [a * a, b - a, a * b + 1.0, b * 0.5, -a];
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
    let median = v[order[v.len() / 2]];
    ys[i] + (x - xs[i]) / (xs[i + 1] - xs[i]) * (ys[i + 1] - ys[i]) + median
}

#[test]
fn an_interval_by_binary_search_and_a_median_by_sorted_indices() {
    check(interpolated, interpolated_grad);
}

/// The ends of a slice with a default for an empty one (trial 10 r687:
/// refused as "no derivative rule for `last`"): `unwrap_or` after
/// `copied`, `*..unwrap_or(&d)`, `unwrap_or_default()`, on a parameter and
/// on a `Vec` before and after a push.
#[grad]
fn ends_or(xs: &[f64], k: f64) -> f64 {
    let b = xs.last().copied().unwrap_or(0.0);
    let a = *xs.first().unwrap_or(&k);
    let c = xs.first().cloned().unwrap_or_default();
    let mut v: Vec<f64> = Vec::new();
    let e = v.last().copied().unwrap_or(k * 2.0);
    v.push(a * b);
    let f = v.last().copied().unwrap_or(k);
    a * b + c * k + e + f * f
}

#[test]
fn ends_of_a_slice_with_defaults() {
    for xs in [vec![0.3, -1.2, 0.8], vec![1.5], vec![]] {
        check(
            |s, k| ends_or(&[xs.clone(), vec![s]].concat()[1..], k),
            |s, k| {
                let all = [xs.clone(), vec![s]].concat();
                let (v, dx, dk) = ends_or_grad(&all[1..], k);
                // `s` is the last element where `xs` is not empty.
                let ds = match xs.is_empty() {
                    true => 0.0,
                    false => dx[dx.len() - 1],
                };
                (v, ds, dk)
            },
        );
    }
    // Empty: a = k, e = 2k, everything else 0.
    let (v, dx, dk) = ends_or_grad(&[], 0.7);
    assert_eq!((v, dx.len(), dk), (1.4, 0, 2.0));
}

/// Tuple patterns as parameters (trial 10 r693), nested, with `mut`, a
/// `_` beside them, named in `wrt` by one of their names, with a tangent.
#[grad(jvp)]
fn from_pairs((a, mut b): (f64, f64), ((c, _), d): ((f64, f64), f64), _: f64) -> f64 {
    b += c;
    a * b + c * d.sin()
}

#[grad(wrt(b))]
fn one_of_a_pair((a, b): (f64, f64), k: f64) -> f64 {
    a * b * k + b.exp()
}

#[test]
fn tuple_patterns_as_parameters() {
    check(
        |a, b| from_pairs((a, b), ((b * 0.5, a), a - b), 1.0),
        |a, b| {
            let (v, (da, db), ((dc, dunused), dd), dw) =
                from_pairs_grad((a, b), ((b * 0.5, a), a - b), 1.0);
            assert_eq!((dunused, dw), (0.0, 0.0));
            (v, da + dd, db + 0.5 * dc - dd)
        },
    );
    let (v, (da, db)) = one_of_a_pair_grad((0.3, 2.0), 1.5);
    assert_eq!(v, one_of_a_pair((0.3, 2.0), 1.5));
    assert_relative_eq!(da, 2.0 * 1.5, max_relative = 1e-15);
    assert_relative_eq!(db, 0.3 * 1.5 + 2.0_f64.exp(), max_relative = 1e-15);
    let (_, t) = from_pairs_jvp(
        (0.3, 2.0),
        ((0.4, 1.0), -0.6),
        1.0,
        (1.0, -1.0),
        ((0.5, 0.0), 2.0),
        0.0,
    );
    let (_, (da, db), ((dc, _), dd), _) = from_pairs_grad((0.3, 2.0), ((0.4, 1.0), -0.6), 1.0);
    assert_relative_eq!(t, da - db + 0.5 * dc + 2.0 * dd, max_relative = 1e-12);
}

/// A tuple fold and a `max_by` whose closures use the same names (trial
/// 11 r937: the comparison's `a.partial_cmp(b)` was taken for a change of
/// `a`, and the fold's `(a, b)` refused).
#[grad]
fn moments_and_peak(a0: f64, b0: f64) -> f64 {
    let p = [a0, b0, a0 * b0, b0 - a0];
    let (s1, s2) = p
        .iter()
        .copied()
        .fold((0.0, 0.0), |(a, b), x| (a + x, b + x * x));
    let z = p
        .iter()
        .copied()
        .max_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap();
    let w = p.iter().copied().min_by(|a, b| a.total_cmp(b)).unwrap();
    s1 * s2 + z - w
}

#[test]
fn closures_of_two_chains_with_the_same_names() {
    check(moments_and_peak, moments_and_peak_grad);
}

// Type annotations that say what the value says already (trial 12 r1076,
// r1077, r1079, r1121): each was refused, where the untyped spelling
// worked; and a sub-slice whose length nothing reads (an unused variable
// in the expansion before).

#[derive(Clone, Copy, Debug, autodiff::Differentiable)]
struct Typed2 {
    x: f64,
    y: f64,
}

impl Typed2 {
    #[grad(wrt(self))]
    fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

#[grad]
fn squared(x: f64) -> f64 {
    x * x
}

#[grad]
fn annotated(k: f64, x: f64) -> f64 {
    let s: Typed2 = Typed2 { x: k, y: 1.0 };
    let mut m: Typed2 = Typed2 { x: k, y: x };
    m.x += k;
    let t: (f64, f64) = (x * k, x + k);
    let q = [x, k];
    let r: &[f64; 2] = &q;
    let [c, d]: [f64; 2] = [x * k, x - k];
    let v: Vec<f64> = q.to_vec();
    let tail: &[f64] = &v[1..];
    let f: fn(f64) -> f64 = squared;
    s.norm() + m.x * m.y + t.0 * t.1 + r[0] * r[1] + c * d + tail[0] * f(x)
}

#[grad(wrt(x, v))]
fn annotated_literal(x: f64, v: f64) -> Typed2 {
    let p: Typed2 = Typed2 {
        x: x * 2.0,
        y: v * x,
    };
    p
}

#[test]
fn annotations_that_say_what_the_value_says() {
    check(annotated, annotated_grad);
    for (x, v) in [(1.0, 2.0), (-0.5, 0.3)] {
        let (p, dx, dv) = annotated_literal_vjp(x, v, Typed2 { x: 1.0, y: 0.5 });
        assert_eq!((p.x, p.y), (2.0 * x, v * x));
        assert_eq!((dx, dv), (2.0 + 0.5 * v, 0.5 * x));
    }
}

/// A copy of a sub-slice, `let a = xs[1..3].to_vec();`, changed and read
/// (trial 12 r1097: kept as written, then refused).
#[grad]
fn copied_window(xs: &[f64], k: f64) -> f64 {
    let mut a = xs[1..3].to_vec();
    a[0] *= k;
    let b: Vec<f64> = xs[..2].to_owned();
    a[0] * a[1] + b[1] * k
}

#[test]
fn copies_of_sub_slices() {
    for (xs, k) in [([0.3, -0.7, 1.1], 1.5), ([2.0, 0.5, -0.4], -0.3)] {
        let (v, g, gk) = copied_window_grad(&xs, k);
        assert_eq!(v, copied_window(&xs, k));
        assert_eq!(g, vec![0.0, k * xs[2] + k, k * xs[1]]);
        assert_eq!(gk, xs[1] * xs[2] + xs[1]);
    }
}

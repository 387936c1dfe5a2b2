//! `#[grad(jvp)]`: forward mode. Each function's `_jvp` against its
//! `_grad` (the directional derivative of a scalar output is the gradient
//! dotted with the tangents) or its `_jacobian` times the tangents, at
//! points spread over each function's domain and along several
//! directions, to 1e-12 relative; the value exactly `f`'s. The file
//! denies warnings: the expansions are warning-free.

#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

use approx::assert_relative_eq;
use autodiff::grad;

/// The directions tried at every point: axes, and mixed ones.
const DIRECTIONS: [[f64; 3]; 4] = [
    [1.0, 0.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.3, -0.7, 1.1],
    [-2.0, 0.5, 0.25],
];

fn close(a: f64, b: f64) {
    assert_relative_eq!(a, b, max_relative = 1e-12, epsilon = 1e-12);
}

#[grad(jvp)]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}

#[test]
fn a_slice_in_a_loop() {
    let x = [0.5, -1.2, 2.0, 0.3, 1.0];
    for v in [[1.0, 0.0, 0.0, 0.0, 0.0], [0.5, -0.2, 0.1, 2.0, -1.0]] {
        let (value, g) = rosenbrock_grad(&x);
        let (value2, d) = rosenbrock_jvp(&x, &v);
        assert_eq!(value, value2);
        close(d, g.iter().zip(&v).map(|(a, b)| a * b).sum());
    }
}

#[grad(jvp)]
fn helper(a: f64, b: f64) -> f64 {
    (a * b).sin() + a.exp() / (1.0 + b * b)
}

/// Branches, a `while` with a data-dependent trip count, a local array
/// written in a loop and read by an iterator chain, a call to another
/// `#[grad]` function, a `match`, integer casts.
#[grad(jvp)]
fn control_flow(x: f64, y: f64, n: usize) -> f64 {
    let mut v = vec![0.0; n];
    for i in 0..n {
        v[i] = (x * i as f64).cos() * y;
    }
    let mut acc = if x > 0.5 { x.sqrt() } else { y * y + 0.1 };
    let mut k = 0;
    while k < n && acc < 10.0 {
        acc += v[k].abs() + helper(acc, y);
        k += 1;
    }
    let bonus = match n % 3 {
        0 => x.max(y),
        1 => x.hypot(y),
        _ => 2.0,
    };
    acc.tanh() + v.iter().sum::<f64>() + bonus
}

#[test]
fn branches_loops_arrays_and_calls() {
    for (x, y) in [(0.7, -0.4), (0.2, 1.3), (1.9, 0.05), (-0.8, -2.0)] {
        for n in [0, 1, 4, 5] {
            let (value, gx, gy) = control_flow_grad(x, y, n);
            for [dx, dy, _] in DIRECTIONS {
                let (value2, d) = control_flow_jvp(x, y, n, dx, dy);
                assert_eq!(value, value2);
                close(d, gx * dx + gy * dy);
            }
        }
    }
}

/// `loop` with `break` and `continue`, a `Vec` filled by `push`, a
/// fold, a closure.
#[grad(jvp)]
fn pushes_and_jumps(x: f64, y: f64) -> f64 {
    let mut ys: Vec<f64> = Vec::new();
    let mut t = x;
    let mut k = 0;
    loop {
        k += 1;
        if k > 6 {
            break;
        }
        t = 0.5 * t + y.sin();
        if k % 2 == 0 {
            continue;
        }
        ys.push(t * t);
    }
    let sq = |v: f64| v * v;
    ys.iter().fold(sq(y), |acc, &u| acc * 0.9 + u.ln_1p())
}

#[test]
fn pushes_breaks_and_folds() {
    for (x, y) in [(0.7, -0.4), (2.0, 1.3), (-1.5, 0.2)] {
        let (value, gx, gy) = pushes_and_jumps_grad(x, y);
        for [dx, dy, _] in DIRECTIONS {
            let (value2, d) = pushes_and_jumps_jvp(x, y, dx, dy);
            assert_eq!(value, value2);
            close(d, gx * dx + gy * dy);
        }
    }
}

#[derive(Clone, Debug, autodiff::Differentiable)]
struct Params {
    w: Vec<f64>,
    b: f64,
    scale: f64,
}

/// A struct parameter's fields (its tangent is a `Params` too), beside a
/// float and a fixed array; only the parameters in `wrt` take tangents.
#[grad(jvp, wrt(p, x))]
fn predict(p: &Params, x: [f64; 3], k: f64) -> f64 {
    let mut z = p.b;
    for i in 0..3 {
        z += p.w[i] * x[i];
    }
    p.scale * autodiff::sigmoid(z) + k
}

#[test]
fn struct_and_array_parameters() {
    let p = Params {
        w: vec![0.5, -1.0, 0.25],
        b: 0.1,
        scale: 2.0,
    };
    let x = [1.0, 0.5, -2.0];
    let dp = Params {
        w: vec![0.1, 0.2, -0.3],
        b: 1.0,
        scale: -0.5,
    };
    let dx = [0.3, 0.0, -1.0];
    let (value, gp, gx) = predict_grad(&p, x, 7.0);
    let (value2, d) = predict_jvp(&p, x, 7.0, &dp, dx);
    assert_eq!(value, value2);
    let expected = gp.w.iter().zip(&dp.w).map(|(a, b)| a * b).sum::<f64>()
        + gp.b * dp.b
        + gp.scale * dp.scale
        + gx.iter().zip(&dx).map(|(a, b)| a * b).sum::<f64>();
    close(d, expected);
}

/// A vector output: `_jvp` is the Jacobian times the tangents.
#[grad(jvp)]
fn polar(r: f64, theta: f64) -> [f64; 3] {
    [r * theta.cos(), r * theta.sin(), r * r]
}

#[grad(jvp)]
fn pair(x: f64, y: f64) -> (f64, f64) {
    (x * y, x.sin() + y)
}

#[test]
fn vector_outputs_are_the_jacobian_times_the_tangents() {
    for (r, theta) in [(1.0, 0.3), (2.5, -1.2)] {
        let (value, j) = polar_jacobian(r, theta);
        for [dr, dt, _] in DIRECTIONS {
            let (value2, d) = polar_jvp(r, theta, dr, dt);
            assert_eq!(value, value2);
            for i in 0..3 {
                close(d[i], j[i][0] * dr + j[i][1] * dt);
            }
        }
        let (value, j) = pair_jacobian(r, theta);
        let (value2, (d0, d1)) = pair_jvp(r, theta, 0.5, -1.5);
        assert_eq!(value, value2);
        close(d0, j[0][0] * 0.5 - j[0][1] * 1.5);
        close(d1, j[1][0] * 0.5 - j[1][1] * 1.5);
    }
}

/// A generic float type, run at `f32`.
#[grad(jvp)]
fn generic<T: autodiff::Float>(x: T, y: T) -> T {
    (x * y).exp() - y / (x * x + T::from_f64(1.0))
}

#[test]
fn a_generic_function_at_f32() {
    let (value, gx, gy) = generic_grad(0.5_f32, -0.25);
    let (value2, d) = generic_jvp(0.5_f32, -0.25, 1.0, 2.0);
    assert_eq!(value, value2);
    assert_relative_eq!(d, gx + 2.0 * gy, max_relative = 1e-6);
}

/// A value that does not depend on the tangents' parameters has a zero
/// tangent; a parameter left out of `wrt` takes none.
#[grad(jvp, wrt(x))]
fn partly(x: f64, c: f64) -> f64 {
    let unrelated = c * c;
    x * unrelated + c
}

#[test]
fn only_the_active_parameters_take_tangents() {
    let (value, d) = partly_jvp(2.0, 3.0, 1.0);
    assert_eq!(value, 21.0);
    assert_eq!(d, 9.0);
}

#[grad(jvp)]
fn polar2(r: f64, theta: f64) -> [f64; 2] {
    [r * theta.cos(), r * theta.sin()]
}

#[test]
fn the_readme_example() {
    let (xy, d_xy) = polar2_jvp(2.0, 0.0, 0.0, 1.0);
    assert_eq!(xy, [2.0, 0.0]);
    assert_eq!(d_xy, [0.0, 2.0]);
}

/// Every rule's tangent against central differences of the function
/// itself: a chain through each float method and runtime function.
#[grad(jvp)]
fn every_rule(x: f64, y: f64) -> f64 {
    let a = x.sin() * y.cos() + x.tan() - y.tanh() + x.atan() + y.asinh();
    let b = x.exp() + y.exp2() - x.ln() + y.abs().ln_1p() + x.log10() + x.log2();
    let c = x.sqrt() + y.abs().cbrt() + x.powi(3) + x.powf(y) + x.recip();
    let d = x.hypot(y) + y.atan2(x) + x.mul_add(y, 0.5) + x.max(y) + x.min(y);
    let e = autodiff::sigmoid(y) + autodiff::softplus(x) + autodiff::relu(y - x);
    let f = x.sinh() + y.cosh() + (x * 0.5).asin() + (y * 0.25).acos() + x.exp_m1();
    a + b * 0.1 + c - d / (1.0 + e * e) + f - x % 0.45 + (-y)
}

#[test]
fn every_rules_tangent_against_central_differences() {
    let h = 1e-6;
    for (x, y) in [(0.7, -0.4), (1.3, 0.9), (0.4, 1.7)] {
        for [dx, dy, _] in DIRECTIONS {
            let (value, d) = every_rule_jvp(x, y, dx, dy);
            assert_eq!(value, every_rule(x, y));
            let fd = (every_rule(x + h * dx, y + h * dy) - every_rule(x - h * dx, y - h * dy))
                / (2.0 * h);
            assert_relative_eq!(d, fd, max_relative = 1e-6, epsilon = 1e-6);
        }
    }
}

/// The kernels: their tangents from the runtime's `<kernel>_tangent`, on
/// whole arrays, rows of a nested parameter and local arrays.
#[grad(jvp)]
fn kernels(x: &[f64], w: &[Vec<f64>], m: &[f64]) -> f64 {
    let h = autodiff::matvec(m, x, 2);
    let p = autodiff::softmax(&h);
    let mut s = autodiff::dot(&w[0], x) + autodiff::logsumexp(&w[1]);
    s += autodiff::softmax_cross_entropy(&h, 1) + autodiff::dot(&p, &h);
    let c = autodiff::matmul(m, m, 2, 2, 2);
    s + c[1] * c[2]
}

#[test]
fn kernels_tangents_against_the_gradient() {
    let x = [0.3, -1.2];
    let w = vec![vec![0.5, 2.0], vec![-0.7, 0.1]];
    let m = [1.0, -0.5, 0.25, 2.0];
    let (value, gx, gw, gm) = kernels_grad(&x, &w, &m);
    let dx = [0.7, -0.2];
    let dw = vec![vec![0.1, -0.3], vec![1.0, 0.5]];
    let dm = [0.2, 0.0, -1.0, 0.4];
    let (value2, d) = kernels_jvp(&x, &w, &m, &dx, &dw, &dm);
    assert_eq!(value, value2);
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
    let expected = dot(&gx, &dx) + dot(&gw[0], &dw[0]) + dot(&gw[1], &dw[1]) + dot(&gm, &dm);
    close(d, expected);
}

#[derive(Clone, Debug, autodiff::Differentiable)]
struct Body {
    x: f64,
    v: f64,
    w: Vec<f64>,
    steps: usize,
}

impl Body {
    #[grad(wrt(self, k))]
    fn energy(&self, k: f64) -> f64 {
        0.5 * self.v * self.v + k * self.x * self.x + self.w[0] * self.w[1]
    }
}

#[grad(wrt(b))]
fn momentum(b: &Body) -> f64 {
    b.v * (b.steps as f64) + b.w[1]
}

/// Structs given to calls and methods (their gradients taken along their
/// tangents by the inner product the derive implements): a parameter,
/// and a local struct built whole from active values, read by fields.
#[grad(jvp, wrt(p, k))]
fn structs(p: &Body, k: f64) -> f64 {
    let q = Body {
        x: p.x * k,
        v: p.v + k,
        w: vec![k, p.w[0]],
        steps: 3,
    };
    p.energy(k) + q.energy(0.5) + momentum(&q) + momentum(p) + q.x * q.v
}

#[test]
fn structs_in_calls_and_built_whole() {
    let p = Body {
        x: 0.7,
        v: -1.2,
        w: vec![0.5, 2.0],
        steps: 2,
    };
    let dp = Body {
        x: 0.3,
        v: 1.0,
        w: vec![-0.25, 0.5],
        steps: 0,
    };
    for k in [0.4, -1.3] {
        let (value, gp, gk) = structs_grad(&p, k);
        for dk in [0.0, 1.0, -0.6] {
            let (value2, d) = structs_jvp(&p, k, &dp, dk);
            assert_eq!(value, value2);
            let expected =
                gp.x * dp.x + gp.v * dp.v + gp.w[0] * dp.w[0] + gp.w[1] * dp.w[1] + gk * dk;
            close(d, expected);
        }
    }
}

/// A trajectory against three scalar inputs, six outputs: with `jvp`,
/// `_jacobian` takes a `_jvp` per column (forward mode), here checked
/// against the same function's reverse-mode Jacobian and central
/// differences.
#[grad(jvp)]
fn trajectory(v0: f64, k: &[f64; 2]) -> [f64; 6] {
    let mut out = [0.0; 6];
    let mut x = 0.0;
    let mut v = v0;
    for i in 0..6 {
        v -= k[0] * v * 0.1 + k[1];
        x += v * 0.1;
        out[i] = x;
    }
    out
}

#[grad]
fn trajectory_reverse(v0: f64, k: &[f64; 2]) -> [f64; 6] {
    let mut out = [0.0; 6];
    let mut x = 0.0;
    let mut v = v0;
    for i in 0..6 {
        v -= k[0] * v * 0.1 + k[1];
        x += v * 0.1;
        out[i] = x;
    }
    out
}

#[grad(jvp)]
fn spread(t: f64) -> (f64, f64, f64) {
    (t.sin(), t * t, t.exp())
}

#[test]
fn a_jacobian_with_fewer_inputs_than_outputs_in_forward_mode() {
    let k = [0.3, 0.2];
    let (value, j) = trajectory_jacobian(1.5, &k);
    let (value2, jr) = trajectory_reverse_jacobian(1.5, &k);
    assert_eq!(value, value2);
    assert_eq!(value, trajectory(1.5, &k));
    let h = 1e-6;
    for r in 0..6 {
        for c in 0..3 {
            close(j[r][c], jr[r][c]);
        }
        let fd = (trajectory(1.5 + h, &k)[r] - trajectory(1.5 - h, &k)[r]) / (2.0 * h);
        assert_relative_eq!(j[r][0], fd, max_relative = 1e-6, epsilon = 1e-9);
    }
    let (value, j) = spread_jacobian(0.7);
    assert_eq!(value, spread(0.7));
    close(j[0][0], 0.7_f64.cos());
    close(j[1][0], 1.4);
    close(j[2][0], 0.7_f64.exp());
}

#[derive(Clone, Debug, autodiff::Differentiable)]
struct Counted {
    a: f64,
    n: usize,
}

/// An integer field cast to a float: its tangent is zero, whatever the
/// tangent struct's copy of the field holds (a wrong derivative the
/// tester's `jvp` checks found: the copy was cast instead).
#[grad(jvp, wrt(p, x))]
fn counted(p: &Counted, x: f64) -> f64 {
    let mut s = x * (p.n as f64);
    for _ in 0..p.n {
        s = s * x + p.a;
    }
    s
}

#[test]
fn an_integer_fields_cast_has_no_tangent() {
    let p = Counted { a: 0.5, n: 3 };
    let (value, gp, gx) = counted_grad(&p, 0.7);
    for (da, dx) in [(0.0, 1.0), (1.0, 0.0), (0.3, -2.0)] {
        let dp = Counted { a: da, n: 3 };
        let (value2, d) = counted_jvp(&p, 0.7, &dp, dx);
        assert_eq!(value, value2);
        close(d, gp.a * da + gx * dx);
    }
}

#[derive(Clone, Debug, autodiff::Differentiable)]
struct Net {
    layers: Vec<Body>,
}

/// Parts of structs: a layer lent to a function (`&net.layers[k]`), and
/// a method with an integer argument on a local struct built whole.
#[grad(jvp, wrt(net, x))]
fn parts(net: &Net, x: f64) -> f64 {
    let q = Body {
        x,
        v: net.layers[1].v,
        w: vec![x, 2.0],
        steps: 1,
    };
    momentum(&net.layers[0]) * x + q.energy(x) + momentum(&q)
}

#[test]
fn parts_of_structs_lent_to_calls() {
    let body = |s: f64| Body {
        x: s,
        v: -s,
        w: vec![0.5 * s, 2.0],
        steps: 2,
    };
    let net = Net {
        layers: vec![body(0.7), body(-1.1)],
    };
    let dnet = Net {
        layers: vec![body(0.3), body(1.0)],
    };
    let (value, g, gx) = parts_grad(&net, 0.4);
    let (value2, d) = parts_jvp(&net, 0.4, &dnet, 0.5);
    assert_eq!(value, value2);
    let mut expected = gx * 0.5;
    for (gl, dl) in g.layers.iter().zip(&dnet.layers) {
        expected += gl.x * dl.x + gl.v * dl.v + gl.w[0] * dl.w[0] + gl.w[1] * dl.w[1];
    }
    close(d, expected);
}

// ---- calls returning vectors, through the callees' own `_jvp` ----------

#[grad(jvp)]
fn sub3(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[grad(jvp)]
fn to_xy(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

/// A `Vec` output, `k` left constant: the caller's tangent for it is
/// dropped by the callee, never guessed by the caller.
#[grad(jvp, wrt(v))]
fn scaled_by(v: &[f64], k: f64) -> Vec<f64> {
    v.iter().map(|x| x * k).collect()
}

#[derive(Clone, Copy, Debug, autodiff::Differentiable)]
struct Orbit {
    q: f64,
    p: f64,
}

#[grad(jvp, wrt(s, dt))]
fn leapfrog(s: &Orbit, dt: f64) -> Orbit {
    let p = s.p - dt * s.q.sin();
    Orbit { q: s.q + dt * p, p }
}

/// Array, tuple, `Vec` and struct results read in parts, arguments with
/// and without tangents (a constant `k`, a literal).
#[grad(jvp, wrt(r, p, t, w))]
fn vector_callees(r: [f64; 3], p: [f64; 3], t: f64, w: &[f64], k: f64) -> f64 {
    let d = sub3(&r, &p);
    let (x, y) = to_xy(d[0], t);
    let (u, _) = to_xy(d[2], 0.5);
    let s = scaled_by(w, k * 2.0);
    let o = leapfrog(&Orbit { q: d[1], p: y }, 0.1);
    let o2 = leapfrog(&o, t);
    d[1] * x + y * d[2] + s[0] * s[1] * u + o2.q * o.p
}

#[test]
fn calls_returning_vectors_through_their_jvp() {
    let (r, p, w) = ([1.0, 0.5, -0.2], [0.3, 0.1, 0.4], [0.7, -1.3]);
    for (t, k) in [(0.4, 2.0), (-1.1, 0.5), (2.3, -1.0)] {
        let (v, dr, dp, dt, dw) = vector_callees_grad(r, p, t, &w, k);
        for dir in DIRECTIONS {
            let tr = dir;
            let tp = [dir[2], -dir[0], dir[1]];
            let tt = dir[0] - dir[1];
            let tw = [dir[1], dir[2]];
            let (v2, j) = vector_callees_jvp(r, p, t, &w, k, tr, tp, tt, &tw);
            assert_eq!(v, v2);
            let want: f64 = (0..3).map(|i| dr[i] * tr[i] + dp[i] * tp[i]).sum::<f64>()
                + dt * tt
                + dw[0] * tw[0]
                + dw[1] * tw[1];
            close(j, want);
        }
    }
}

// ---- results passed on whole -------------------------------------------

/// No `jvp` here: a float's callee gives its tangent from its gradient.
#[grad]
fn bump(x: f64, y: f64) -> f64 {
    x.sin() * y + y.exp()
}

#[grad(jvp)]
fn gap3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[grad(jvp)]
fn length3(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// Results passed on whole to other calls: an array through its callee's
/// `_jvp`, floats through a callee without `jvp`, nested.
#[grad(jvp)]
fn passed_whole(a: [f64; 3], b: [f64; 3], t: f64) -> f64 {
    let d = gap3(a, b);
    let s = bump(t, length3(d));
    bump(s, t) + length3(gap3(d, a))
}

#[test]
fn results_passed_on_whole() {
    let (a, b) = ([1.0, 2.0, 3.0], [0.5, -0.5, 1.0]);
    for t in [0.3, -0.8, 1.7] {
        let (v, da, db, dt) = passed_whole_grad(a, b, t);
        for dir in DIRECTIONS {
            let tb = [dir[1], dir[2], dir[0]];
            let tt = dir[0] * 0.5 - dir[2];
            let (v2, j) = passed_whole_jvp(a, b, t, dir, tb, tt);
            assert_eq!(v, v2);
            let want: f64 = (0..3).map(|i| da[i] * dir[i] + db[i] * tb[i]).sum::<f64>() + dt * tt;
            close(j, want);
        }
    }
}

// ---- an array a call returned, lent as a slice ----------------------------

#[grad(jvp)]
fn made2(a: f64) -> [f64; 2] {
    [a, a * a]
}

#[grad(jvp)]
fn scaled_vec(s: &[f64], x: f64) -> Vec<f64> {
    let mut v = vec![0.0; s.len()];
    for i in 0..s.len() {
        v[i] = s[i] * x;
    }
    v
}

#[grad]
fn read_lin(s: &[f64], x: f64) -> f64 {
    s[0] * x + s[1]
}

/// `vw(&d, y)` with `d: [f64; 2]` from a call, its tangent lent to a
/// slice parameter whose tangent is a `Vec` (E0277 "`&[f64; 2]:
/// Given<Vec<f64>>`" inside `_jvp`; difftest `passed_whole`, seed 2024).
#[grad(jvp)]
fn array_lent_as_slice(x: f64, y: f64) -> f64 {
    let d = made2(x);
    let w = scaled_vec(&d, y);
    read_lin(&scaled_vec(&d, y), x) + read_lin(&w, y) + made2(read_lin(&d, y))[1]
}

#[test]
fn an_array_result_lent_as_a_slice_under_jvp() {
    for (x, y) in [(0.3, -0.7), (1.2, 0.4), (-0.9, 2.0)] {
        let (v, dx, dy) = array_lent_as_slice_grad(x, y);
        for (tx, ty) in [(1.0, 0.0), (0.0, 1.0), (0.6, -1.3)] {
            let (vj, t) = array_lent_as_slice_jvp(x, y, tx, ty);
            assert_eq!(vj, v);
            close(t, dx * tx + dy * ty);
        }
    }
}

// ---- methods called by their path -----------------------------------------

#[derive(Clone, Debug, autodiff::Differentiable)]
struct Lens {
    f: f64,
    g: f64,
}

impl Lens {
    /// Without `jvp`: its tangent comes from its gradient.
    #[grad(wrt(self, x))]
    fn bend(&self, x: f64) -> f64 {
        self.f * x * x + self.g.sin()
    }

    /// With `jvp`, returning an array: through its own `_jvp` by its path.
    #[grad(wrt(self, x), jvp)]
    fn image(&self, x: f64) -> [f64; 2] {
        [self.f * x, self.g / (1.0 + x * x)]
    }

    /// With `jvp` and a float output: its receiver's tangent after `x`'s
    /// place.
    #[grad(wrt(self, x), jvp)]
    fn focal(&self, x: f64) -> f64 {
        self.f * x.cos() + self.g * self.g
    }

    /// Without a receiver, returning an array.
    #[grad(jvp)]
    fn spread(x: f64) -> [f64; 2] {
        [x.cos(), x * 3.0]
    }
}

/// A `#[grad]` method called by its path, given whole to another call
/// (E0599 on `Lens::__autodiff_jvp_slots_bend` inside `_jvp` before:
/// difftest `method_path`, seed 2024); an associated function and a
/// method with `jvp` returning arrays, called by their paths; a method's
/// own `_jvp` (its receiver refused in forward mode before).
#[grad(jvp, wrt(l, x))]
fn through_lens(l: &Lens, x: f64) -> f64 {
    let a = bump(Lens::bend(l, x), x);
    let s = Lens::spread(l.bend(x));
    let i = Lens::image(l, Lens::focal(l, x));
    let j = l.image(l.focal(x) * x);
    a + l.bend(Lens::bend(l, x)) + s[0] * Lens::spread(Lens::bend(l, x))[1] - s[1] + i[0] * i[1]
        - j[0] * j[1]
}

#[test]
fn methods_called_by_their_path_in_forward_mode() {
    for (f, g, x) in [(0.5, 1.0, 0.3), (-1.2, 0.4, 1.1), (2.0, -0.7, -0.6)] {
        let l = Lens { f, g };
        let (v, dl, dx) = through_lens_grad(&l, x);
        for d in DIRECTIONS {
            let tl = Lens { f: d[0], g: d[1] };
            let (vj, t) = through_lens_jvp(&l, x, &tl, d[2]);
            assert_eq!(vj, v);
            close(t, dl.f * d[0] + dl.g * d[1] + dx * d[2]);
        }
        // A method's own `_jvp`.
        let (v, dl, dx) = l.focal_grad(x);
        let tl = Lens { f: 0.3, g: -1.1 };
        let (vj, t) = l.focal_jvp(x, &tl, 0.7);
        assert_eq!(vj, v);
        close(t, dl.f * 0.3 - dl.g * 1.1 + dx * 0.7);
    }
}

// ---- filtered loops and chains -------------------------------------------

/// `.enumerate().filter(..)` as a loop and as a chain: each filter's
/// bindings are a block of their own that gives its test, which forward
/// mode refused as a block binding what it does not model (difftest
/// `jvp_filter`, seed 2024).
#[grad(jvp, trace)]
fn every_other(xs: &[f64], k: f64) -> f64 {
    let mut s = 0.0;
    for (i, x) in xs.iter().enumerate().filter(|(j, _)| *j % 2 == 0) {
        s += *x * k * i as f64;
    }
    let t = xs
        .iter()
        .enumerate()
        .filter(|(j, x)| *j > 0 && **x > -1.0)
        .map(|(_, x)| x * k)
        .sum::<f64>();
    s * t
}

#[test]
fn filtered_loops_and_chains_in_forward_mode() {
    let xs = [0.5, -2.0, 1.5, 3.0, -0.25];
    for k in [0.7, -1.3] {
        let (v, dx, dk) = every_other_grad(&xs, k);
        let trace = every_other_trace(&xs, k);
        assert_eq!(trace.value(), v);
        let g = trace.gradient();
        assert_eq!(g.last().map(|(_, d)| *d), Some(dk));
        for dir in DIRECTIONS {
            let tx = [dir[0], dir[1], dir[2], -dir[0], 0.5];
            let (vj, t) = every_other_jvp(&xs, k, &tx, dir[2]);
            assert_eq!(vj, v);
            let want: f64 = (0..5).map(|i| dx[i] * tx[i]).sum::<f64>() + dk * dir[2];
            close(t, want);
        }
    }
}

pub struct Cubic {
    pub k: f64,
}

impl Cubic {
    /// A method generic over the float type: its jvp slots name its own
    /// `_jvp` and `_vjp` with `::<T>` (E0283 "cannot infer type" inside
    /// the expansion before).
    #[grad(jvp)]
    pub fn value<T: autodiff::Float>(&self, x: T) -> T {
        x * x * x * T::from(self.k).unwrap()
    }

    /// Without `jvp`, its `_jvp` is a constant that the jvp slots name
    /// without `::<T>` (E0107 inside the expansion when they did: the
    /// difftest's seed 2024, programs 455 and 471).
    #[grad]
    pub fn slope<T: autodiff::Float>(&self, x: T) -> T {
        x * x * T::from(self.k).unwrap()
    }
}

#[test]
fn a_generic_methods_forward_mode() {
    let c = Cubic { k: 0.5 };
    assert_eq!(c.value_jvp(2.0, 1.0), (4.0, 6.0));
    assert_eq!(c.value_jvp(2.0f32, 2.0), (4.0, 12.0));
    assert_eq!(c.slope_grad(2.0), (2.0, 2.0));
}

struct Dense2 {
    w: Vec<f64>,
}

impl Dense2 {
    #[grad(wrt(x), jvp)]
    fn forward(&self, x: &[f64]) -> Vec<f64> {
        vec![self.w[0] * x[0], self.w[1] * x[0]]
    }
}

/// A method returning a `Vec` whose result is lent to the next call of it
/// (`l.forward(&h)`): both through the method's `_jvp`. (The first call
/// went through scalar slots the method does not have, inside the
/// expansion.)
#[grad(wrt(x), jvp)]
fn two_layers(l: &Dense2, x: &[f64]) -> f64 {
    let h = l.forward(x);
    let h2 = l.forward(&h);
    h2[0] * h2[1]
}

#[test]
fn a_methods_vector_result_lent_to_the_next_call() {
    let l = Dense2 { w: vec![0.5, 2.0] };
    // h = [0.5x, 2x], h2 = [0.25x, x]: 0.25x², derivative 0.5x.
    let (v, g) = two_layers_grad(&l, &[3.0]);
    assert_eq!((v, g[0]), (2.25, 1.5));
    assert_eq!(two_layers_jvp(&l, &[3.0], &[2.0]), (2.25, 3.0));
}

// ---- chains over a slice of constant structs --------------------------

#[derive(Clone, Debug)]
struct Position {
    strike: f64,
    qty: f64,
    call: bool,
}

#[grad(wrt(s), jvp)]
fn payoff(p: &Position, s: f64) -> f64 {
    if p.call {
        p.qty * (s - p.strike).max(0.0)
    } else {
        p.qty * (p.strike - s).max(0.0)
    }
}

/// Chains over a book of positions (`map`, `filter` then a `#[grad]`
/// call, `enumerate` into a `fold`): each element is bound by reference
/// inside the chain's block, which `_jvp` runs once and passes the sum
/// out of, with its tangent.
#[grad(wrt(s, vol), jvp)]
fn book_value(book: &[Position], s: f64, vol: f64) -> f64 {
    let a = book
        .iter()
        .map(|p| p.qty * (s - p.strike).max(0.0) * vol)
        .sum::<f64>();
    let b: f64 = book
        .iter()
        .filter(|p| p.call)
        .map(|p| payoff(p, s * vol))
        .sum();
    let c = book
        .iter()
        .enumerate()
        .fold(0.0, |acc, (i, p)| acc + (i as f64) * p.strike * s.sin());
    a + b * b + c
}

#[test]
fn chains_over_constant_structs_in_forward_mode() {
    let book = vec![
        Position {
            strike: 1.0,
            qty: 2.0,
            call: true,
        },
        Position {
            strike: 0.5,
            qty: -1.0,
            call: false,
        },
        Position {
            strike: 0.7,
            qty: 1.5,
            call: true,
        },
    ];
    for (s, vol) in [(1.5, 0.8), (0.6, 1.3), (2.4, 0.35)] {
        let (v, gs, gv) = book_value_grad(&book, s, vol);
        for (ds, dv) in [(1.0, 0.0), (0.0, 1.0), (0.3, -0.7)] {
            let (value, t) = book_value_jvp(&book, s, vol, ds, dv);
            assert_eq!(value, v);
            assert_relative_eq!(t, gs * ds + gv * dv, max_relative = 1e-12, epsilon = 1e-12);
        }
        let h = 1e-6;
        let fd = (book_value(&book, s + h, vol) - book_value(&book, s - h, vol)) / (2.0 * h);
        assert_relative_eq!(gs, fd, max_relative = 1e-6, epsilon = 1e-6);
    }
}

// A struct a `#[grad]` method or operator returns, passed whole to another
// `#[grad]` callee (trial 12 r1012, r1039: rustc's E0277 inside `_jvp`,
// which took the method's result for a float's): through the method's
// jvp slots, whatever it returns. And a float a method without `jvp`
// returns, passed on whole, whose tangent comes from its gradient.

#[derive(Clone, Copy, Debug, autodiff::Differentiable)]
struct P2 {
    x: f64,
    y: f64,
}

#[grad]
impl std::ops::Mul<f64> for P2 {
    type Output = P2;
    #[grad(wrt(self, k), jvp)]
    fn mul(self, k: f64) -> P2 {
        P2 {
            x: self.x * k,
            y: self.y * k,
        }
    }
}

#[grad]
impl std::ops::Add for P2 {
    type Output = P2;
    #[grad(wrt(self, o), jvp)]
    fn add(self, o: P2) -> P2 {
        P2 {
            x: self.x + o.x,
            y: self.y + o.y,
        }
    }
}

impl P2 {
    #[grad(wrt(self, o), jvp)]
    fn dot(self, o: P2) -> f64 {
        self.x * o.x + self.y * o.y
    }

    #[grad(wrt(self, k), jvp)]
    fn scaled(self, k: f64) -> P2 {
        P2 {
            x: self.x * k,
            y: self.y * k.sin(),
        }
    }

    #[grad(wrt(self))]
    fn energy(self) -> f64 {
        0.5 * (self.x * self.x + self.y * self.y)
    }
}

#[grad(wrt(v), jvp)]
fn norm2(v: P2) -> f64 {
    v.x * v.x + v.y * v.y
}

#[grad(jvp)]
fn square(e: f64) -> f64 {
    e * e
}

#[grad(jvp)]
fn method_results_whole(x: f64, k: f64) -> f64 {
    let p = P2 { x, y: 1.0 };
    let v = P2 { x: k, y: k * x };
    let w = v * 0.1;
    let u = v.scaled(x);
    let e = u.energy();
    p.dot(w) + norm2(u) + square(e)
}

#[grad(jvp)]
fn orbit(x0: f64, v0: f64) -> f64 {
    let mut p = P2 { x: x0, y: 0.0 };
    let mut v = P2 { x: 0.0, y: v0 };
    for _ in 0..5 {
        let a = p * (-1.0);
        v = v + a * 0.1;
        p = p + v * 0.1;
    }
    p.x * p.y + v.dot(v)
}

#[test]
fn struct_results_of_methods_method_results_whole_in_forward_mode() {
    let fd = |f: &dyn Fn(f64, f64) -> f64, a: f64, b: f64, ta: f64, tb: f64| {
        let h = 1e-6;
        (f(a + h * ta, b + h * tb) - f(a - h * ta, b - h * tb)) / (2.0 * h)
    };
    for (a, b) in [(0.3, 1.2), (1.5, -0.4), (-0.8, 0.6)] {
        for (ta, tb) in [(1.0, 0.0), (0.0, 1.0), (0.5, -2.0)] {
            let (v, dx, dk) = method_results_whole_grad(a, b);
            let (vj, d) = method_results_whole_jvp(a, b, ta, tb);
            assert_eq!(vj, v);
            assert_relative_eq!(d, ta * dx + tb * dk, max_relative = 1e-12, epsilon = 1e-14);
            let want = fd(&method_results_whole, a, b, ta, tb);
            assert_relative_eq!(d, want, max_relative = 1e-6, epsilon = 1e-8);

            let (v, dx, dv) = orbit_grad(a, b);
            let (vj, d) = orbit_jvp(a, b, ta, tb);
            assert_eq!(vj, v);
            assert_relative_eq!(d, ta * dx + tb * dv, max_relative = 1e-12, epsilon = 1e-14);
            assert_relative_eq!(
                d,
                fd(&orbit, a, b, ta, tb),
                max_relative = 1e-6,
                epsilon = 1e-8
            );
        }
    }
}

// A named lifetime on a slice parameter (trial 12 r1114: E0716 at the
// attribute, the slots' tangent made at the call required to live `'a`).

#[grad(jvp)]
#[allow(clippy::needless_lifetimes)]
fn weighted<'a>(xs: &'a [f64], x: f64) -> f64 {
    xs[0] * x + xs[1] * x * x
}

#[grad(jvp)]
fn calls_weighted(xs: &[f64], x: f64) -> f64 {
    weighted(xs, x.sin()) * x
}

#[test]
fn tangents_of_parameters_with_named_lifetimes() {
    let xs = [1.5, -0.5];
    for x in [0.3, -1.2] {
        let (v, d) = weighted_jvp(&xs, x, &[1.0, 2.0], 0.5);
        assert_eq!(v, weighted(&xs, x));
        assert_relative_eq!(
            d,
            x + 2.0 * x * x + 0.5 * (xs[0] + 2.0 * xs[1] * x),
            max_relative = 1e-14
        );
        let (v, dxs, dx) = calls_weighted_grad(&xs, x);
        let (vj, d) = calls_weighted_jvp(&xs, x, &[1.0, 2.0], 0.5);
        assert_eq!(vj, v);
        assert_relative_eq!(d, dxs[0] + 2.0 * dxs[1] + 0.5 * dx, max_relative = 1e-14);
    }
}

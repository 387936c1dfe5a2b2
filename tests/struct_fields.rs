//! Struct fields of any type: a differentiated struct's integer fields are
//! read as the constants they are (in index arithmetic, loop bounds and
//! casts), and a constant struct's `Vec` and `String` fields are read in
//! place, never moved out of the reference. Exact values where they exist,
//! central differences elsewhere (h = 1e-6, relative tolerance 1e-6).

#![allow(clippy::needless_range_loop)] // written as users index

use approx::assert_relative_eq;
use autodiff::{grad, relu, Differentiable};

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Dense {
    w: Vec<f64>,
    rows: usize,
    cols: usize,
    bias: bool,
    b: f64,
}

/// The 2 × 3 layer the tests below read.
fn layer() -> Dense {
    Dense {
        w: vec![0.5, -1.0, 2.0, 0.3, 0.1, -0.7],
        rows: 2,
        cols: 3,
        bias: true,
        b: 0.25,
    }
}

/// Σ_i tanh(Σ_j w[i·cols + j] x[j] + b): the README's layer shape, its
/// integer fields in the index, the loop bounds and a cast.
#[grad(wrt(l))]
fn layer_sum(l: &Dense, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..l.rows {
        let mut z = 0.0;
        for j in 0..l.cols {
            z += l.w[i * l.cols + j] * x[j];
        }
        if l.bias {
            z += l.b;
        }
        s += z.tanh();
    }
    s / l.rows as f64
}

#[test]
fn integer_and_bool_fields_of_a_differentiated_struct_are_constants() {
    let l = layer();
    let x = [1.0, 2.0, -0.5];
    let (v, d) = layer_sum_grad(&l, &x);
    assert_eq!(v, layer_sum(&l, &x));
    // The constant fields are copied into the gradient.
    assert_eq!((d.rows, d.cols, d.bias), (2, 3, true));
    let h = 1e-6;
    for k in 0..6 {
        let (mut a, mut b) = (l.clone(), l.clone());
        a.w[k] += h;
        b.w[k] -= h;
        let fd = (layer_sum(&a, &x) - layer_sum(&b, &x)) / (2.0 * h);
        assert_relative_eq!(d.w[k], fd, max_relative = 1e-6);
    }
    let (mut a, mut b) = (l.clone(), l.clone());
    a.b += h;
    b.b -= h;
    let fd = (layer_sum(&a, &x) - layer_sum(&b, &x)) / (2.0 * h);
    assert_relative_eq!(d.b, fd, max_relative = 1e-6);
}

struct Data {
    ys: Vec<f64>,
    name: String,
}

/// A constant struct passed by reference: its `Vec` field's `len()` as a
/// loop bound, its elements read by index, its `String`'s length.
#[grad]
fn weighted(w: &[f64], data: &Data) -> f64 {
    let mut total = 0.0;
    for p in 0..data.ys.len() {
        total += w[0] * data.ys[p] * w[1];
    }
    total * data.name.len() as f64
}

#[test]
fn a_constant_structs_fields_are_read_in_place() {
    let data = Data {
        ys: vec![1.0, -2.0, 3.0],
        name: "abcd".to_string(),
    };
    let w = [0.7, -0.4];
    let (v, d) = weighted_grad(&w, &data);
    // 4 · w0 w1 Σ y = 4 · 2 · w0 w1
    assert_eq!(v, weighted(&w, &data));
    assert_relative_eq!(d[0], 8.0 * w[1], max_relative = 1e-15);
    assert_relative_eq!(d[1], 8.0 * w[0], max_relative = 1e-15);
}

#[grad]
fn shifted(x: f64) -> f64 {
    x * x - 1.0
}

/// A runtime function of a callee's result, whose float type only the
/// callee's signature states.
#[grad]
fn relu_of_a_call(x: f64) -> f64 {
    relu(shifted(x)) + relu(shifted(x * 0.5))
}

#[test]
fn a_runtime_function_of_a_callees_result() {
    // x = 1.7: the first relu passes, the second (x/2 = 0.85) is cut.
    let (v, d) = relu_of_a_call_grad(1.7);
    assert_eq!(v, 1.7 * 1.7 - 1.0);
    assert_eq!(d, 2.0 * 1.7);
}

#[derive(Clone, Debug, Differentiable)]
struct Layer {
    w: Vec<f64>,
    b: f64,
}

#[derive(Clone, Debug, Differentiable)]
struct Net {
    layers: Vec<Layer>,
}

/// The usual network loop: each layer of a `Vec` of structs, bound by
/// `for layer in &net.layers`, read in place (never moved out).
#[grad(wrt(net))]
fn forward(net: &Net, x: f64) -> f64 {
    let mut h = x;
    for layer in &net.layers {
        h = (layer.w[0] * h + layer.b).tanh();
    }
    let mut s = 0.0;
    for layer in net.layers.iter() {
        s += layer.b * layer.b;
    }
    h + 0.1 * s
}

#[test]
fn a_vec_of_structs_is_iterated_in_place() {
    let net = Net {
        layers: vec![
            Layer {
                w: vec![0.5],
                b: 0.1,
            },
            Layer {
                w: vec![-1.5],
                b: 0.2,
            },
        ],
    };
    let (v, d) = forward_grad(&net, 0.8);
    assert_eq!(v, forward(&net, 0.8));
    let h = 1e-6;
    for (l, part) in [(0, 'w'), (0, 'b'), (1, 'w'), (1, 'b')] {
        let (mut a, mut b) = (net.clone(), net.clone());
        let (got, pa, pb) = match part {
            'w' => (
                d.layers[l].w[0],
                &mut a.layers[l].w[0],
                &mut b.layers[l].w[0],
            ),
            _ => (d.layers[l].b, &mut a.layers[l].b, &mut b.layers[l].b),
        };
        *pa += h;
        *pb -= h;
        let fd = (forward(&a, 0.8) - forward(&b, 0.8)) / (2.0 * h);
        assert_relative_eq!(got, fd, max_relative = 1e-6);
    }
}

static WEIGHTS: [f64; 3] = [0.5, -1.0, 2.0];

/// A constant struct's `Vec` field and a `static` array, iterated the
/// ways people write it; a filter's closure taking its pair by reference
/// (`|(i, _)| mask[*i]`, rustc's default binding mode).
#[grad]
fn iterated(w: &[f64], data: &Data, mask: &[bool]) -> f64 {
    let mut total = 0.0;
    for &y in &data.ys {
        total += w[0] * y;
    }
    for (k, y) in data.ys.iter().enumerate() {
        total += (k as f64) * w[1] * y;
    }
    for v in WEIGHTS.iter() {
        total += v * w[0] * w[1];
    }
    total
        + w.iter()
            .enumerate()
            .filter(|(i, _)| mask[*i])
            .map(|(_, x)| x * x)
            .sum::<f64>()
}

#[test]
fn fields_statics_and_filters_iterated_in_place() {
    let data = Data {
        ys: vec![1.0, -2.0, 3.0],
        name: String::new(),
    };
    let w = [0.7, -0.4];
    let (v, d) = iterated_grad(&w, &data, &[false, true]);
    assert_eq!(v, iterated(&w, &data, &[false, true]));
    // Σy = 2, Σ k·y = 4, Σ WEIGHTS = 1.5, the mask keeps w1 only.
    assert_relative_eq!(d[0], 2.0 + 1.5 * w[1], max_relative = 1e-15);
    assert_relative_eq!(d[1], 4.0 + 1.5 * w[0] + 2.0 * w[1], max_relative = 1e-15);
}

#[derive(Clone, Debug, Differentiable)]
struct Walk {
    f0: f64,
    #[differentiable(constant)]
    n: usize,
    w: Vec<f64>,
}

impl Walk {
    /// The returned struct's `Vec` field a copy, `self.w.clone()`.
    #[grad(wrt(self, x))]
    fn kept(&self, x: f64) -> Self {
        Walk {
            f0: (self.f0 * 0.5 + x).tanh(),
            n: self.n,
            w: self.w.clone(),
        }
    }

    /// The field a list, `vec![..]`.
    #[grad(wrt(self, x))]
    fn listed(&self, x: f64) -> Self {
        Walk {
            f0: (self.f0 * 0.5 + x).tanh(),
            n: self.n + 1,
            w: vec![self.w[0] * x, self.w[1]],
        }
    }

    /// `to_vec()` and an array.
    #[grad(wrt(self, x))]
    fn copied(&self, x: f64) -> Self {
        let t = Walk {
            f0: self.f0 * x,
            n: self.n,
            w: [self.w[1], self.w[0] * x].to_vec(),
        };
        Walk {
            f0: t.f0,
            n: t.n,
            w: t.w.to_vec(),
        }
    }
}

/// A struct returned with a `Vec` field given as a new array in place
/// (`w: self.w.clone()`, `w: vec![..]`, `w: x.to_vec()`): refused before
/// ("no derivative rule for the method `clone`", "cannot differentiate
/// through the macro call `vec!`"); bound first it worked. Now the field's
/// array is bound by the macro, as `let w = ..;` would be (difftest
/// `struct_values`).
#[grad(wrt(p, x))]
fn walked(p: &Walk, x: f64) -> f64 {
    let a = p.kept(x);
    let b = a.listed(x);
    let c = b.copied(x);
    c.f0 * c.w[0] + c.w[1] * b.f0 + c.n as f64
}

#[test]
fn returned_vec_fields_given_new_arrays_in_place() {
    let h = 1e-6;
    for (p, x) in [
        (
            Walk {
                f0: 0.3,
                n: 2,
                w: vec![0.7, -0.2],
            },
            0.4,
        ),
        (
            Walk {
                f0: -1.1,
                n: 0,
                w: vec![1.5, 0.9],
            },
            -0.8,
        ),
        (
            Walk {
                f0: 2.0,
                n: 5,
                w: vec![-0.3, 0.1],
            },
            1.3,
        ),
    ] {
        let (v, dp, dx) = walked_grad(&p, x);
        assert_eq!(v, walked(&p, x));
        let fd = |q: &Walk, y: f64, r: &Walk, z: f64| (walked(q, y) - walked(r, z)) / (2.0 * h);
        assert_relative_eq!(
            dx,
            fd(&p, x + h, &p, x - h),
            max_relative = 1e-6,
            epsilon = 1e-8
        );
        let mut up = p.clone();
        let mut down = p.clone();
        up.f0 += h;
        down.f0 -= h;
        assert_relative_eq!(
            dp.f0,
            fd(&up, x, &down, x),
            max_relative = 1e-6,
            epsilon = 1e-8
        );
        for k in 0..2 {
            let mut up = p.clone();
            let mut down = p.clone();
            up.w[k] += h;
            down.w[k] -= h;
            assert_relative_eq!(
                dp.w[k],
                fd(&up, x, &down, x),
                max_relative = 1e-6,
                epsilon = 1e-8
            );
        }
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Grid {
    w: [f64; 3],
    n: usize,
    h: f64,
}

/// `x·n + c`, differentiated in `x` only: `n` and `c` are constants.
#[grad(wrt(x), jvp)]
fn offset(x: f64, n: usize, c: f64) -> f64 {
    x * n as f64 + c
}

impl Grid {
    /// The same as a method, `c` left constant.
    #[grad(wrt(self, x), jvp)]
    fn shifted(&self, x: f64, c: f64) -> f64 {
        self.h * x + c
    }
}

/// A `wrt` struct's `usize` field, cast to a float, passed to parameters
/// the callees leave constant: the cast of an integer carries no
/// derivative, so the call is taken (it was refused as "carries a
/// derivative", the difftest's `int_field_elsewhere`).
#[grad(wrt(g, y), jvp)]
fn stepped(g: &Grid, y: f64) -> f64 {
    let k = 2.0;
    let mut s = offset(y, g.n, (g.n as f64) * k);
    for i in 0..3 {
        s += offset(y * g.w[i], i, -(g.n as f64) + 1.0);
        s += g.shifted(y, g.n as f64 / 3.0);
    }
    s
}

#[test]
fn a_cast_integer_field_passed_to_a_constant_parameter() {
    let g = Grid {
        w: [0.5, -1.0, 2.0],
        n: 4,
        h: 0.75,
    };
    for y in [-1.5, 0.25, 2.0] {
        let (v, dg, dy) = stepped_grad(&g, y);
        // Σ_i (y w_i i + 1 − n) + 3 (h y + n/3) + y n + 2n
        let n = 4.0;
        let sum_wi: f64 = (0..3).map(|i| g.w[i] * i as f64).sum();
        let exact = y * sum_wi + 3.0 * (1.0 - n) + 3.0 * (g.h * y + n / 3.0) + y * n + 2.0 * n;
        assert_relative_eq!(v, exact, max_relative = 1e-14);
        assert_relative_eq!(dy, sum_wi + 3.0 * g.h + n, max_relative = 1e-14);
        assert_relative_eq!(dg.h, 3.0 * y, max_relative = 1e-14);
        for i in 0..3 {
            assert_relative_eq!(dg.w[i], y * i as f64, max_relative = 1e-14);
        }
        // Forward mode along (w, h, y) = ((1, 1, 1), 1, 1).
        let t = Grid {
            w: [1.0; 3],
            n: 0,
            h: 1.0,
        };
        let (v2, d) = stepped_jvp(&g, y, &t, 1.0);
        assert_eq!(v2, v);
        assert_relative_eq!(
            d,
            dg.w.iter().sum::<f64>() + dg.h + dy,
            max_relative = 1e-14
        );
    }
}

/// A `match` naming its scrutinee, a `wrt` struct's `usize` field or a
/// float (`m if m > 2 =>`): a copy of it (refused before: "cannot
/// differentiate through the pattern"; the difftest's seed 2024, program
/// 495).
#[grad(wrt(g, x))]
fn named_scrutinee(g: &Grid, x: f64) -> f64 {
    let s = match g.n {
        m if m > 2 => (m as f64) * x * g.h,
        m => x * x + m as f64,
    };
    let t = match x * 2.0 {
        v if v > 0.0 => v * v,
        v => -v,
    };
    s + t
}

#[test]
fn a_match_naming_its_scrutinee() {
    for (n, x) in [(4, 0.5), (1, 0.5), (4, -0.75), (0, -1.5)] {
        let g = Grid {
            w: [0.0; 3],
            n,
            h: 0.75,
        };
        let (v, dg, dx) = named_scrutinee_grad(&g, x);
        assert_eq!(v, named_scrutinee(&g, x));
        let m = n as f64;
        let ds = if n > 2 { m * g.h } else { 2.0 * x };
        let dt = if x > 0.0 { 8.0 * x } else { -2.0 };
        assert_relative_eq!(dx, ds + dt, max_relative = 1e-14);
        let dh = if n > 2 { m * x } else { 0.0 };
        assert_relative_eq!(dg.h, dh, max_relative = 1e-14);
    }
}

/// Integer fields combined with each other before a cast, `(l.rows *
/// l.cols) as f64`, and through locals: the macro cannot tell them from
/// floats (it sees no field's type), so their arithmetic goes through the
/// runtime's rules, which give an integer zero partials. (It failed inside
/// the expansion, "`usize: Float` is not satisfied".)
#[grad(wrt(l), jvp, trace)]
fn mean_weight(l: &Dense) -> f64 {
    let rows = l.rows;
    let cols = l.cols;
    let n = (l.rows * l.cols) as f64;
    let mut s = 0.0;
    for k in 0..rows * cols {
        s += l.w[k];
    }
    s / n + l.b * ((rows + cols) as f64) - (rows - cols % 2) as f64 * l.b + (rows / cols) as f64
}

#[test]
fn integer_fields_combined_before_a_cast_carry_no_derivative() {
    let l = layer();
    // Σw/6 + 5b − 1·b + 0.
    let want = 1.2 / 6.0 + 5.0 * 0.25 - 0.25;
    let (v, d) = mean_weight_grad(&l);
    assert_relative_eq!(v, want, max_relative = 1e-15);
    assert_eq!(v, mean_weight(&l));
    for k in 0..6 {
        assert_relative_eq!(d.w[k], 1.0 / 6.0, max_relative = 1e-15);
    }
    assert_eq!(d.b, 4.0);
    assert_eq!((d.rows, d.cols, d.bias), (2, 3, true));
    // Forward mode along b alone, and the trace's value.
    let mut t = l.clone();
    t.w = vec![0.0; 6];
    t.b = 1.0;
    assert_eq!(mean_weight_jvp(&l, &t), (v, 4.0));
    assert_eq!(mean_weight_trace(&l).value(), v);
}

struct Rows {
    xs: Vec<Vec<f64>>,
    ys: Vec<f64>,
}

#[grad]
fn affine2(w: &[f64], x: &[f64]) -> f64 {
    w[0] * x[0] + w[1] * x[1]
}

/// A constant struct's rows walked by reference (`for x in data.xs.iter()`,
/// `for x in &data.xs`, with `enumerate`), each given on to a `&[f64]`
/// parameter as the reference it is. (The element was passed by value,
/// failing inside the expansion: "expected `&[f64]`, found `Vec<f64>`".)
#[grad(wrt(w))]
fn rows_loss(w: &[f64], data: &Rows) -> f64 {
    let mut loss = 0.0;
    for (i, x) in data.xs.iter().enumerate() {
        let r = affine2(w, x) - data.ys[i];
        loss += r * r;
    }
    for x in &data.xs {
        loss += affine2(w, x) * x.len() as f64 + x[0] * w[0];
    }
    for y in data.ys.iter() {
        loss += w[1] * y;
    }
    // By value through the pattern: a float, given to a method as one.
    for &y in data.ys.iter() {
        loss += w[0].max(y);
    }
    loss
}

#[test]
fn a_constant_structs_rows_are_lent_to_calls() {
    let data = Rows {
        xs: vec![vec![1.0, 2.0], vec![-0.5, 0.3]],
        ys: vec![0.2, -0.1],
    };
    let w = [0.3, -0.7];
    let (v, g) = rows_loss_grad(&w, &data);
    assert_eq!(v, rows_loss(&w, &data));
    // d/dw = Σ 2 r x + 2 x + [x0, 0] + [0, Σ y].
    // w[0] = 0.3 is above both ys: Σ max(w[0], y) adds 2 to d/dw[0].
    let mut want = [2.0, 0.1];
    for (x, y) in data.xs.iter().zip(&data.ys) {
        let r = w[0] * x[0] + w[1] * x[1] - y;
        want[0] += 2.0 * r * x[0] + 2.0 * x[0] + x[0];
        want[1] += 2.0 * r * x[1] + 2.0 * x[1];
    }
    assert_relative_eq!(g[0], want[0], max_relative = 1e-14);
    assert_relative_eq!(g[1], want[1], max_relative = 1e-14);
}

#[grad(wrt(a))]
fn scaled_by(a: f64, k: f64) -> f64 {
    a * k
}

#[grad]
fn squared(t: f64) -> f64 {
    t * t
}

/// An integer field cast to a float and given to a parameter its callee
/// leaves constant, in a call whose result is passed on whole (through
/// the callee's `_vjp`): checked to be an integer, its slot adds nothing.
/// (It was "this argument carries a derivative" at the attribute.)
#[grad(wrt(l, x))]
fn through_vjp_with_a_cast(l: &Dense, x: f64) -> f64 {
    let mut s = 0.0;
    for _ in 0..l.rows {
        s += squared(scaled_by(x, l.cols as f64)) * l.b;
    }
    s
}

#[test]
fn an_integer_fields_cast_given_to_a_constant_parameter_through_vjp() {
    let l = layer();
    // rows · (3x)² · b.
    let (v, d, dx) = through_vjp_with_a_cast_grad(&l, 1.5);
    assert_eq!(v, through_vjp_with_a_cast(&l, 1.5));
    assert_relative_eq!(v, 2.0 * 20.25 * 0.25, max_relative = 1e-15);
    assert_relative_eq!(d.b, 2.0 * 20.25, max_relative = 1e-15);
    assert_relative_eq!(dx, 2.0 * 2.0 * 9.0 * 1.5 * 0.25, max_relative = 1e-15);
    assert_eq!((d.rows, d.cols), (2, 3));
}

#[grad(wrt(v))]
fn weighted_sum(v: &[f64], k: f64) -> f64 {
    (v[0] + 2.0 * v[1]) * k
}

/// The same with an array lent to the callee beside the cast
/// (`weighted_sum(&d, l.rows as f64)`, `&[f64; 2]` given to `&[f64]`).
#[grad(wrt(l, x))]
fn lent_array_beside_a_cast(l: &Dense, x: f64) -> f64 {
    let d = [x, x * x];
    squared(weighted_sum(&d, l.rows as f64)) * l.b
}

#[test]
fn an_array_lent_beside_an_integer_fields_cast_through_vjp() {
    let l = layer();
    // (2(x + 2x²))² b at x = 1.5: u = 2·6 = 12.
    let (v, d, dx) = lent_array_beside_a_cast_grad(&l, 1.5);
    assert_eq!(v, lent_array_beside_a_cast(&l, 1.5));
    assert_relative_eq!(v, 144.0 * 0.25, max_relative = 1e-15);
    assert_relative_eq!(d.b, 144.0, max_relative = 1e-15);
    // d/dx = 2u · 2(1 + 4x) · b = 24 · 14 · 0.25.
    assert_relative_eq!(dx, 24.0 * 14.0 * 0.25, max_relative = 1e-15);
}

// ---- a struct's array field copied into a local array ------------------

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Arm {
    l: f64,
    base: [f64; 2],
    joints: Vec<[f64; 2]>,
}

impl Arm {
    /// A copy of an array field, changed and returned, untyped: the
    /// output's type is the copy's (calls trial r08, refused before with
    /// "assign the whole variable").
    #[grad(wrt(self, x))]
    fn tip(&self, x: f64) -> [f64; 2] {
        let mut p = self.base;
        p[0] += self.l * x.cos();
        p[1] += self.l * x.sin();
        p
    }

    /// A list of the field's elements, untyped, returned.
    #[grad(wrt(self, x))]
    fn tip_listed(&self, x: f64) -> [f64; 2] {
        let mut p = [self.base[0], self.base[1] * x];
        p[0] *= x;
        p
    }

    /// Typed copies of a field and of a row of a field, in a scalar.
    #[grad(wrt(self, x))]
    fn reach(&self, x: f64) -> f64 {
        let mut p: [f64; 2] = self.base;
        let mut q: [f64; 2] = self.joints[1];
        for k in 0..2 {
            p[k] += self.l * x;
            q[k] *= p[k];
        }
        p[0] * p[1] + q[0] - q[1]
    }
}

#[test]
fn an_array_field_copied_changed_and_returned() {
    let arm = Arm {
        l: 1.5,
        base: [0.25, -0.5],
        joints: vec![[1.0, 2.0], [0.5, -1.5]],
    };
    let x = 0.3;
    let seed = [0.7, -1.1];
    let (v, d_arm, d_x) = arm.tip_vjp(x, seed);
    assert_eq!(v, arm.tip(x));
    let (c, s) = (x.cos(), x.sin());
    assert_relative_eq!(d_arm.l, seed[0] * c + seed[1] * s, max_relative = 1e-15);
    assert_eq!(d_arm.base, seed);
    assert_relative_eq!(
        d_x,
        arm.l * (-seed[0] * s + seed[1] * c),
        max_relative = 1e-15
    );

    // (b0 x, b1 x)
    let (v, d_arm, d_x) = arm.tip_listed_vjp(x, seed);
    assert_eq!(v, arm.tip_listed(x));
    assert_eq!(d_arm.base, [seed[0] * x, seed[1] * x]);
    assert_relative_eq!(
        d_x,
        seed[0] * arm.base[0] + seed[1] * arm.base[1],
        max_relative = 1e-15
    );

    let h = 1e-6;
    for x in [0.3, -1.2, 2.0] {
        let (v, d_arm, d_x) = arm.reach_grad(x);
        assert_eq!(v, arm.reach(x));
        let fd = (arm.reach(x + h) - arm.reach(x - h)) / (2.0 * h);
        assert_relative_eq!(d_x, fd, max_relative = 1e-6, epsilon = 1e-8);
        let mut fd_l = arm.clone();
        fd_l.l += h;
        let mut m = arm.clone();
        m.l -= h;
        assert_relative_eq!(
            d_arm.l,
            (fd_l.reach(x) - m.reach(x)) / (2.0 * h),
            max_relative = 1e-6
        );
        for k in 0..2 {
            let (mut p, mut m) = (arm.clone(), arm.clone());
            p.base[k] += h;
            m.base[k] -= h;
            let fd = (p.reach(x) - m.reach(x)) / (2.0 * h);
            assert_relative_eq!(d_arm.base[k], fd, max_relative = 1e-6, epsilon = 1e-8);
            let (mut p, mut m) = (arm.clone(), arm.clone());
            p.joints[1][k] += h;
            m.joints[1][k] -= h;
            let fd = (p.reach(x) - m.reach(x)) / (2.0 * h);
            assert_relative_eq!(d_arm.joints[1][k], fd, max_relative = 1e-6, epsilon = 1e-8);
        }
        assert_eq!(d_arm.joints[0], [0.0, 0.0]);
    }
}

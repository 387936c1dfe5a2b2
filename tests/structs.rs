//! Structs as parameters: `#[derive(Differentiable)]` and `wrt(p)` give a
//! gradient of the struct's own type; nested float arrays are parameters
//! of their own shape; a struct left out of `wrt` is a constant read in
//! loops, branches and calls.

// Written the way users write them.
#![allow(
    clippy::needless_range_loop,
    clippy::ptr_arg,
    clippy::assign_op_pattern
)]

use approx::assert_relative_eq;
use autodiff::{grad, Differentiable};

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Layer {
    pub w: Vec<f64>,
    pub b: [f64; 2],
    /// An integer field: copied into the gradient, never added to.
    pub width: usize,
}

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Model {
    pub scale: f64,
    pub layer: Layer,
    #[differentiable(constant)]
    pub name: String,
}

fn model() -> Model {
    Model {
        scale: 0.5,
        layer: Layer {
            w: vec![0.1, -0.2, 0.3],
            b: [0.01, -0.02],
            width: 3,
        },
        name: "m".to_string(),
    }
}

/// Fields read in a loop that records them, an index into a nested field,
/// and a branch on a field.
#[grad(wrt(m, x))]
fn loss(m: &Model, x: f64) -> f64 {
    let mut s = m.scale * x;
    for i in 0..m.layer.w.len() {
        let w = m.layer.w[i];
        s += w * x * x + m.layer.b[i % 2] * s;
    }
    if m.scale > 0.0 {
        s = s * m.scale;
    }
    s.tanh()
}

/// Central differences of `loss` in every float of the model and in x.
fn loss_fd(m: &Model, x: f64) -> (Model, f64) {
    let h = 1e-6;
    let d = |f: &dyn Fn(f64) -> f64, at: f64| (f(at + h) - f(at - h)) / (2.0 * h);
    let mut g = m.zero_like();
    g.scale = d(
        &|v| {
            let mut q = m.clone();
            q.scale = v;
            loss(&q, x)
        },
        m.scale,
    );
    for i in 0..m.layer.w.len() {
        g.layer.w[i] = d(
            &|v| {
                let mut q = m.clone();
                q.layer.w[i] = v;
                loss(&q, x)
            },
            m.layer.w[i],
        );
    }
    for i in 0..2 {
        g.layer.b[i] = d(
            &|v| {
                let mut q = m.clone();
                q.layer.b[i] = v;
                loss(&q, x)
            },
            m.layer.b[i],
        );
    }
    (g, d(&|v| loss(m, v), x))
}

#[test]
fn a_derived_struct_gets_a_gradient_of_its_own_type() {
    let m = model();
    for x in [-1.3, -0.2, 0.4, 0.9, 2.0] {
        let (v, dm, dx) = loss_grad(&m, x);
        assert_eq!(v, loss(&m, x));
        let (fm, fx) = loss_fd(&m, x);
        assert_relative_eq!(dm.scale, fm.scale, epsilon = 1e-8);
        for i in 0..3 {
            assert_relative_eq!(dm.layer.w[i], fm.layer.w[i], epsilon = 1e-8);
        }
        for i in 0..2 {
            assert_relative_eq!(dm.layer.b[i], fm.layer.b[i], epsilon = 1e-8);
        }
        assert_relative_eq!(dx, fx, epsilon = 1e-8);
        // Every other field is the argument's.
        assert_eq!(dm.layer.width, 3);
        assert_eq!(dm.name, "m");
    }
}

/// By value, and a struct with one field read twice (fan-out).
#[derive(Differentiable, Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[grad(wrt(p))]
fn radius_squared(p: Point) -> f64 {
    p.x * p.x + p.y * p.y
}

#[test]
fn a_struct_by_value_exactly() {
    let (v, d) = radius_squared_grad(Point { x: 3.0, y: -4.0 });
    assert_eq!(v, 25.0);
    assert_eq!(d, Point { x: 6.0, y: -8.0 });
}

/// `wrt(self)` in a method: the gradient is a `Self`.
#[derive(Differentiable, Debug, PartialEq)]
pub struct Spring {
    pub k: f64,
    pub rest: f64,
}

impl Spring {
    #[grad(wrt(self, x))]
    pub fn energy(&self, x: f64) -> f64 {
        let stretch = x - self.rest;
        0.5 * self.k * stretch * stretch
    }
}

#[test]
fn the_gradient_with_respect_to_self_is_a_self() {
    let s = Spring { k: 3.0, rest: 1.0 };
    let (v, ds, dx) = s.energy_grad(3.0);
    assert_eq!(v, 6.0);
    // d/dk = stretch²/2 = 2, d/drest = -k·stretch = -6, d/dx = 6.
    assert_eq!(ds, Spring { k: 2.0, rest: -6.0 });
    assert_eq!(dx, 6.0);
}

/// An optimiser step on a struct is one line: `p.scaled_add(-lr, &grad)`.
#[test]
fn gradient_descent_on_a_struct_converges() {
    let mut p = Point { x: 3.0, y: -4.0 };
    for _ in 0..200 {
        let (_, g) = radius_squared_grad(p);
        p.scaled_add(-0.1, &g);
    }
    assert!(radius_squared(p) < 1e-12, "{p:?}");
}

/// Nested float arrays are parameters of their own shape, active by
/// default: `&[[f64; 3]]`, `Vec<[f64; 2]>`, `[[f64; 2]; 2]`.
#[grad]
fn triangle_area_sum(points: &[[f64; 3]]) -> f64 {
    let mut s = 0.0;
    for p in points {
        s += p[0] * p[1] - p[2];
    }
    s
}

#[grad]
fn pairs_energy(pairs: &Vec<[f64; 2]>, m: [[f64; 2]; 2]) -> f64 {
    let mut e = 0.0;
    for k in 0..pairs.len() {
        let a = pairs[k][0];
        let b = pairs[k][1];
        e += m[0][0] * a * a + m[0][1] * a * b + m[1][0] * b * a + m[1][1] * b * b;
    }
    e
}

#[test]
fn nested_arrays_have_gradients_of_their_shape() {
    let (v, d) = triangle_area_sum_grad(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    assert_eq!(v, 13.0);
    assert_eq!(d, vec![[2.0, 1.0, -1.0], [5.0, 4.0, -1.0]]);
    let pairs = vec![[1.0, 2.0], [-1.0, 0.5]];
    let m = [[2.0, 0.5], [0.25, 1.0]];
    let (v, dp, dm) = pairs_energy_grad(&pairs, m);
    assert_eq!(v, pairs_energy(&pairs, m));
    // d/da = 2 m00 a + (m01 + m10) b, d/db = (m01 + m10) a + 2 m11 b.
    let expect: Vec<[f64; 2]> = pairs
        .iter()
        .map(|[a, b]| [4.0 * a + 0.75 * b, 0.75 * a + 2.0 * b])
        .collect();
    assert_eq!(dp, expect);
    let sum = |f: &dyn Fn(f64, f64) -> f64| pairs.iter().map(|[a, b]| f(*a, *b)).sum::<f64>();
    assert_eq!(
        dm,
        [
            [sum(&|a, _| a * a), sum(&|a, b| a * b)],
            [sum(&|a, b| b * a), sum(&|_, b| b * b)]
        ]
    );
}

/// A struct left out of `wrt` is a constant: its fields work in loops,
/// branches and as call arguments.
pub struct Settings {
    pub w: f64,
    pub steps: usize,
    pub clip: bool,
}

#[grad]
fn scaled(x: f64, k: f64) -> f64 {
    x * k
}

#[grad]
fn with_settings(s: &Settings, x: f64) -> f64 {
    let mut acc = x;
    for _ in 0..s.steps {
        acc = scaled(acc, s.w) + s.w;
        if s.clip && acc > 10.0 {
            acc = 10.0;
        }
    }
    acc
}

#[test]
fn constant_struct_fields_work_everywhere() {
    let s = Settings {
        w: 1.5,
        steps: 3,
        clip: false,
    };
    // acc = ((x w + w) w + w) w + w: d/dx = w³.
    let (v, d) = with_settings_grad(&s, 2.0);
    assert_eq!(v, with_settings(&s, 2.0));
    assert_eq!(d, 1.5f64.powi(3));
    let clipped = Settings { clip: true, ..s };
    let (v, d) = with_settings_grad(&clipped, 2.0);
    assert_eq!(v, 10.0);
    assert_eq!(d, 0.0);
}

/// Calls whose parameters are arrays: the callee's gradient for each comes
/// back through its `_grad`.
#[grad]
fn dot3(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[grad]
fn norm3(a: [f64; 3]) -> f64 {
    dot3(a, a).sqrt()
}

#[grad]
fn weighted_sum(xs: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    for x in xs {
        s += x * w;
    }
    s
}

#[grad]
fn calls_with_slices(x: f64, y: f64) -> f64 {
    let v = vec![x, x * y, y];
    weighted_sum(&v, y) + weighted_sum(&v, 2.0)
}

#[test]
fn calls_with_array_signatures() {
    let (v, d) = norm3_grad([1.0, 2.0, 2.0]);
    assert_eq!(v, 3.0);
    assert_relative_eq!(d[0], 1.0 / 3.0, epsilon = 1e-15);
    assert_relative_eq!(d[1], 2.0 / 3.0, epsilon = 1e-15);
    assert_relative_eq!(d[2], 2.0 / 3.0, epsilon = 1e-15);
    // (x + x y + y)(y + 2): d/dx = (1 + y)(y + 2), d/dy = (x + 1)(y + 2)
    // + (x + x y + y).
    for (x, y) in [(2.0, 3.0), (-1.0, 0.5), (0.25, -2.0)] {
        let (v, dx, dy) = calls_with_slices_grad(x, y);
        assert_eq!(v, calls_with_slices(x, y));
        assert_relative_eq!(dx, (1.0 + y) * (y + 2.0), epsilon = 1e-12);
        assert_relative_eq!(dy, (x + 1.0) * (y + 2.0) + (x + x * y + y), epsilon = 1e-12);
    }
}

/// A differentiated struct passed whole to another `#[grad]` function: the
/// callee's gradient, a value of the struct's type, is added into the
/// caller's through `Differentiable::scaled_add`.
#[derive(Clone, Debug, PartialEq, autodiff::Differentiable)]
struct Unit {
    w: Vec<f64>,
    b: f64,
}

#[grad(wrt(u, x))]
fn unit_out(u: &Unit, x: &[f64]) -> f64 {
    let mut s = u.b;
    for i in 0..x.len() {
        s += u.w[i] * x[i];
    }
    s.tanh()
}

#[grad(wrt(u, x))]
fn unit_loss(u: &Unit, x: &[f64], y: f64) -> f64 {
    (unit_out(u, x) - y).powi(2) + 0.5 * unit_out(u, x)
}

#[grad]
fn row_norm(p: [f64; 3]) -> f64 {
    (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt()
}

#[grad]
fn sum_of_row_norms(points: &[[f64; 3]]) -> f64 {
    let mut s = 0.0;
    for i in 0..points.len() {
        s += row_norm(points[i]);
    }
    s
}

#[test]
fn a_struct_and_a_row_passed_to_calls() {
    let u = Unit {
        w: vec![0.5, -0.25],
        b: 0.1,
    };
    let x = [1.0, 2.0];
    let (v, du, dx) = unit_loss_grad(&u, &x, 0.3);
    assert_eq!(v, unit_loss(&u, &x, 0.3));
    let t = (0.1f64 + 0.5 - 0.5).tanh();
    let dz = (2.0 * (t - 0.3) + 0.5) * (1.0 - t * t);
    assert_relative_eq!(du.b, dz, max_relative = 1e-14);
    for i in 0..2 {
        assert_relative_eq!(du.w[i], dz * x[i], max_relative = 1e-14);
        assert_relative_eq!(dx[i], dz * u.w[i], max_relative = 1e-14);
    }
    let (v, d) = sum_of_row_norms_grad(&[[3.0, 4.0, 0.0], [0.0, 0.0, 2.0]]);
    assert_eq!(v, 7.0);
    let expected = [[0.6, 0.8, 0.0], [0.0, 0.0, 1.0]];
    for i in 0..2 {
        for j in 0..3 {
            assert_relative_eq!(d[i][j], expected[i][j], max_relative = 1e-15);
        }
    }
}

/// A network of layers, each passed by reference to a `#[grad]` function:
/// `&net.layers[k]` is a part of the struct, and its gradient goes into
/// `d_net.layers[k]`.
#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Dense {
    pub w: Vec<f64>,
    pub b: f64,
}

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Net {
    pub layers: Vec<Dense>,
    pub out: Dense,
}

#[grad(wrt(l, x))]
fn dense(l: &Dense, x: &[f64]) -> f64 {
    let mut z = l.b;
    for i in 0..x.len() {
        z += l.w[i] * x[i];
    }
    z.tanh()
}

#[grad(wrt(net, x))]
fn two_layers(net: &Net, x: &[f64]) -> f64 {
    let h0 = dense(&net.layers[0], x);
    let h1 = dense(&net.layers[1], x);
    let hidden: [f64; 2] = [h0, h1];
    dense(&net.out, &hidden)
}

/// The same in a loop over the layers, with the index a loop variable.
#[grad(wrt(net, x))]
fn summed_layers(net: &Net, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..net.layers.len() {
        let h = dense(&net.layers[k], x);
        s += h * h;
    }
    s + net.out.b
}

fn net() -> Net {
    Net {
        layers: vec![
            Dense {
                w: vec![0.3, -0.2, 0.5],
                b: 0.1,
            },
            Dense {
                w: vec![-0.4, 0.6, 0.2],
                b: -0.3,
            },
        ],
        out: Dense {
            w: vec![0.7, -0.9],
            b: 0.05,
        },
    }
}

/// Central differences of `f` in every float of the net (h = 1e-6).
fn net_fd(f: impl Fn(&Net) -> f64, net: &Net) -> Net {
    let h = 1e-6;
    let mut g = net.clone();
    let shifted = |get: &dyn Fn(&mut Net) -> &mut f64, slot: &mut f64| {
        let mut p = net.clone();
        *get(&mut p) += h;
        let up = f(&p);
        *get(&mut p) -= 2.0 * h;
        let down = f(&p);
        *slot = (up - down) / (2.0 * h);
    };
    for k in 0..net.layers.len() {
        for i in 0..net.layers[k].w.len() {
            shifted(
                &move |p: &mut Net| &mut p.layers[k].w[i],
                &mut g.layers[k].w[i],
            );
        }
        shifted(&move |p: &mut Net| &mut p.layers[k].b, &mut g.layers[k].b);
    }
    for i in 0..net.out.w.len() {
        shifted(&move |p: &mut Net| &mut p.out.w[i], &mut g.out.w[i]);
    }
    shifted(&|p: &mut Net| &mut p.out.b, &mut g.out.b);
    g
}

fn assert_net_close(got: &Net, want: &Net) {
    for (a, b) in got.layers.iter().zip(&want.layers) {
        for (x, y) in a.w.iter().zip(&b.w) {
            assert_relative_eq!(x, y, epsilon = 1e-8);
        }
        assert_relative_eq!(a.b, b.b, epsilon = 1e-8);
    }
    for (x, y) in got.out.w.iter().zip(&want.out.w) {
        assert_relative_eq!(x, y, epsilon = 1e-8);
    }
    assert_relative_eq!(got.out.b, want.out.b, epsilon = 1e-8);
}

#[test]
fn a_part_passed_by_reference_gets_its_gradient_in_place() {
    let n = net();
    let x = [0.5, -1.0, 2.0];
    let (v, d_net, d_x) = two_layers_grad(&n, &x);
    assert_eq!(v, two_layers(&n, &x));
    assert_net_close(&d_net, &net_fd(|p| two_layers(p, &x), &n));
    for i in 0..3 {
        let (mut up, mut down) = (x, x);
        up[i] += 1e-6;
        down[i] -= 1e-6;
        let fd = (two_layers(&n, &up) - two_layers(&n, &down)) / 2e-6;
        assert_relative_eq!(d_x[i], fd, epsilon = 1e-8);
    }

    let (v, d_net, _) = summed_layers_grad(&n, &x);
    assert_eq!(v, summed_layers(&n, &x));
    assert_net_close(&d_net, &net_fd(|p| summed_layers(p, &x), &n));
    // The output layer's weights are not read: exactly zero.
    assert_eq!(d_net.out.w, vec![0.0, 0.0]);
    assert_eq!(d_net.out.b, 1.0);
}

/// A float field marked `#[differentiable(constant)]`, read as a float
/// by the methods of its struct.
#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Charge {
    pub x: f64,
    #[differentiable(constant)]
    pub m: f64,
}

impl Charge {
    #[grad(wrt(self), jvp)]
    pub fn energy(&self) -> f64 {
        self.x * self.x / self.m
    }

    #[grad(jvp)]
    pub fn settle(&mut self) {
        self.x /= self.m;
    }
}

#[grad(jvp)]
#[allow(clippy::useless_vec)] // a `Vec` of structs, as users write it
fn settled_energy(x0: f64) -> f64 {
    let mut cs = vec![Charge { x: x0, m: 2.0 }, Charge { x: 1.0, m: 4.0 }];
    cs[0].settle();
    cs[0].settle();
    cs[0].energy() + cs[1].energy() * x0
}

/// The gradient of a constant float field is its copy, never a copy with
/// a derivative added (it was: `energy_grad` gave `m` = 2 − 0.25 = 1.75,
/// and a caller giving the field an active value took that 1.75 for the
/// derivative); its tangent is no tangent at all, whatever the tangent
/// struct holds there.
#[test]
fn a_constant_float_field_is_copied_into_gradients_and_has_no_tangent() {
    let c = Charge { x: 1.5, m: 2.0 };
    let (v, d) = c.energy_grad();
    assert_eq!(v, 1.125);
    assert_eq!(d, Charge { x: 1.5, m: 2.0 }, "d/dx = 2x/m, m copied");
    let (v, t) = c.energy_jvp(&Charge { x: 1.0, m: 5.0 });
    assert_eq!((v, t), (1.125, 1.5));

    // Through writers on elements of a `Vec` of structs: x0/4 after two
    // steps, so f = x0²/32 + x0/4, f' = x0/16 + 1/4.
    for x0 in [0.5, -1.25, 3.0] {
        let (v, d) = settled_energy_grad(x0);
        assert_eq!(v, settled_energy(x0));
        assert_relative_eq!(d, x0 / 16.0 + 0.25, max_relative = 1e-15);
        let (v, t) = settled_energy_jvp(x0, 1.0);
        assert_eq!(v, settled_energy(x0));
        assert_relative_eq!(t, x0 / 16.0 + 0.25, max_relative = 1e-15);
    }
}

#[grad]
fn charge_of(x: f64, m0: f64) -> f64 {
    let c = Charge { x, m: m0 };
    c.energy() + c.m * x
}

/// A value carrying a derivative given to a constant field: read in the
/// same function (`c.m * x`) it is differentiated as any float; through a
/// call (`c.energy()` reads `self.m`) no derivative passes, since the
/// callee's gradient holds a copy there (README, "Structs"). Before, the
/// copy itself was taken for the derivative: d/dm0 came out as m0 − x²/m0²
/// plus the direct term.
#[test]
fn no_derivative_passes_through_a_constant_field_from_one_function_to_another() {
    for (x, m0) in [(1.5, 2.0), (-0.5, 4.0)] {
        let (v, dx, dm0) = charge_of_grad(x, m0);
        assert_eq!(v, charge_of(x, m0));
        assert_relative_eq!(dx, 2.0 * x / m0 + m0, max_relative = 1e-15);
        assert_eq!(dm0, x, "only the direct read: c.m * x");
    }
}

/// A struct output with an array field, built in each arm of a branch
/// from a typed local array (trial 11 B12: the arms' array adjoints were
/// added with `+=`, E0368).
#[derive(Differentiable, Clone)]
struct Delayed {
    x: f64,
    v: f64,
    hist: [f64; 2],
}

#[grad(wrt(s, c))]
fn delayed_rhs(s: &Delayed, c: f64) -> Delayed {
    let a = -c * s.x.sin();
    if s.x > 1.0 {
        let h: [f64; 2] = [s.hist[1], a * s.hist[0]];
        Delayed {
            x: s.v,
            v: a,
            hist: h,
        }
    } else {
        let h: [f64; 2] = [a, a * c];
        Delayed {
            x: s.v * c,
            v: a,
            hist: h,
        }
    }
}

#[test]
fn a_struct_with_an_array_field_from_each_arm() {
    let seed = Delayed {
        x: 1.0,
        v: 2.0,
        hist: [3.0, -4.0],
    };
    let dot = |d: &Delayed| {
        seed.x * d.x + seed.v * d.v + seed.hist[0] * d.hist[0] + seed.hist[1] * d.hist[1]
    };
    let make = |p: &[f64]| Delayed {
        x: p[0],
        v: p[1],
        hist: [p[2], p[3]],
    };
    for p in [[0.5, 0.3, 0.1, 0.2, 0.7], [1.7, -0.4, 0.9, -1.3, 1.2]] {
        let s = make(&p);
        let (v, ds, dc) = delayed_rhs_vjp(&s, p[4], seed.clone());
        let out = delayed_rhs(&s, p[4]);
        assert_eq!((v.x, v.v, v.hist), (out.x, out.v, out.hist));
        let got = [ds.x, ds.v, ds.hist[0], ds.hist[1], dc];
        for (i, g) in got.iter().enumerate() {
            let h = 1e-6;
            let (mut a, mut b) = (p, p);
            a[i] += h;
            b[i] -= h;
            let fd = (dot(&delayed_rhs(&make(&a), a[4])) - dot(&delayed_rhs(&make(&b), b[4])))
                / (2.0 * h);
            assert_relative_eq!(*g, fd, max_relative = 1e-6, epsilon = 1e-8);
        }
    }
}

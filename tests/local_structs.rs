//! Local structs built from active values and read and written through
//! their fields, whether they derive `Differentiable` or not, in
//! straight-line code and as a time loop's state. Exact values where they
//! exist, central differences elsewhere (h = 1e-6, relative 1e-6).

use approx::assert_relative_eq;
use autodiff::grad;

struct Point {
    x: f64,
    y: f64,
}

#[derive(Clone, Copy, autodiff::Differentiable)]
struct State {
    x: f64,
    v: f64,
    steps: usize,
}

#[grad]
fn area_and_more(a: f64, b: f64) -> f64 {
    let p = Point { x: a, y: b };
    let mut q = Point { x: p.y, y: 0.0 };
    q.y = p.x * 2.0;
    q.x += 1.0;
    p.x * p.y + q.x * q.y
}

#[test]
fn a_local_struct_read_and_written_through_its_fields() {
    let (a, b) = (1.5, -0.5);
    let (v, da, db) = area_and_more_grad(a, b);
    // ab + (b + 1)·2a
    assert_eq!(v, a * b + (b + 1.0) * 2.0 * a);
    assert_eq!(da, b + 2.0 * (b + 1.0));
    assert_eq!(db, a + 2.0 * a);
}

/// A damped oscillator whose state is a struct, updated field by field.
#[grad]
fn final_position(x0: f64, c: f64) -> f64 {
    let mut s = State {
        x: x0,
        v: 0.0,
        steps: 0,
    };
    let dt = 0.01;
    for _ in 0..200 {
        let a = -4.0 * s.x - c * s.v;
        s.v += dt * a;
        s.x += dt * s.v;
        s.steps += 1;
    }
    assert_eq!(s.steps, 200);
    s.x
}

#[test]
fn a_struct_as_a_time_loops_state() {
    let (x0, c) = (1.0, 0.5);
    let (v, dx0, dc) = final_position_grad(x0, c);
    assert_eq!(v, final_position(x0, c));
    // Linear in x0.
    assert_relative_eq!(dx0, v / x0, max_relative = 1e-12);
    let h = 1e-6;
    let fd = (final_position(x0, c + h) - final_position(x0, c - h)) / (2.0 * h);
    assert_relative_eq!(dc, fd, max_relative = 1e-6);
}

// Used whole: passed to a call or a method, copied, or the receiver of a
// method of a struct that is not `mut`, the struct is built again from its
// fields there, and the callee's gradient of it goes back to the values
// each field came from.

#[derive(Clone, Copy, Debug, autodiff::Differentiable)]
struct Vec2 {
    x: f64,
    y: f64,
}

impl Vec2 {
    #[grad(wrt(self))]
    fn norm2(&self) -> f64 {
        self.x * self.x + self.y * self.y
    }

    #[grad(wrt(self, other))]
    fn dot(&self, other: &Vec2) -> f64 {
        self.x * other.x + self.y * other.y
    }
}

#[grad(wrt(p))]
fn cross_term(p: &Vec2) -> f64 {
    p.x * p.y
}

#[grad(wrt(p, k))]
fn scaled_sum(p: Vec2, k: f64) -> f64 {
    k * (p.x + p.y)
}

#[grad]
fn built_and_passed(a: f64, b: f64) -> f64 {
    let p = Vec2 { x: a, y: b };
    let q = Vec2 {
        x: b * b,
        y: a.sin(),
    };
    p.norm2() + cross_term(&p) + scaled_sum(q, a) + p.dot(&q)
}

fn built_and_passed_by_hand(a: f64, b: f64) -> (f64, f64, f64) {
    // p = (a, b), q = (b², sin a)
    let (qx, qy) = (b * b, a.sin());
    let v = a * a + b * b + a * b + a * (qx + qy) + a * qx + b * qy;
    let da = 2.0 * a + b + (qx + qy) + a * a.cos() + qx + b * a.cos();
    let db = 2.0 * b + a + a * 2.0 * b + a * 2.0 * b + qy;
    (v, da, db)
}

#[test]
fn a_local_struct_passed_whole_to_calls_and_methods() {
    for (a, b) in [(1.5, -0.5), (-2.0, 0.25), (0.0, 3.0)] {
        let (v, da, db) = built_and_passed_grad(a, b);
        let (ev, eda, edb) = built_and_passed_by_hand(a, b);
        assert_relative_eq!(v, ev, max_relative = 1e-14);
        assert_relative_eq!(da, eda, max_relative = 1e-14);
        assert_relative_eq!(db, edb, max_relative = 1e-14);
    }
}

/// Copies: `let q = p;`, `p.clone()`, `Vec2 { y: .., ..p }`; a `let mut`
/// struct changed through its fields, then copied to call a method.
#[grad]
#[allow(clippy::clone_on_copy)]
fn copies(a: f64, b: f64) -> f64 {
    let mut s = Vec2 { x: a, y: b };
    s.x *= b;
    let q = s;
    let r = s.clone();
    let t = Vec2 { y: a * a, ..q };
    q.norm2() + r.dot(&t) + t.norm2()
}

#[test]
fn copies_of_a_local_struct() {
    for (a, b) in [(1.5, -0.5), (-2.0, 0.25), (0.7, 3.0)] {
        let (v, da, db) = copies_grad(a, b);
        // s = q = r = (ab, b), t = (ab, a²)
        let (x, y, ty) = (a * b, b, a * a);
        assert_relative_eq!(
            v,
            x * x + y * y + x * x + y * ty + x * x + ty * ty,
            max_relative = 1e-14
        );
        // d/da: 3·2x·b + y·2a + 2ty·2a
        assert_relative_eq!(
            da,
            6.0 * x * b + y * 2.0 * a + 4.0 * ty * a,
            max_relative = 1e-14
        );
        // d/db: 3·2x·a + 2y + ty
        assert_relative_eq!(db, 6.0 * x * a + 2.0 * y + ty, max_relative = 1e-14);
    }
}

/// A struct with a field of another type (`usize`, a `Vec`) built from
/// the elements of an array in a loop, and passed whole each iteration.
#[derive(Clone, Debug, autodiff::Differentiable)]
struct Segment {
    a: f64,
    b: f64,
    #[differentiable(constant)]
    id: usize,
    weights: Vec<f64>,
}

#[grad(wrt(s))]
fn segment_energy(s: &Segment) -> f64 {
    let w = s.weights[s.id % s.weights.len()];
    w * (s.b - s.a).powi(2)
}

#[grad]
fn chain_energy(xs: &[f64], ws: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..xs.len() - 1 {
        let seg = Segment {
            a: xs[i],
            b: xs[i + 1].sin(),
            id: i,
            weights: ws.to_vec(),
        };
        total += segment_energy(&seg) + seg.a * seg.b;
    }
    total
}

#[test]
fn a_struct_with_other_fields_passed_whole_in_a_loop() {
    let xs = [0.3, -1.2, 2.0, 0.5];
    let ws = [1.0, 2.0, 0.5];
    let (v, dxs, dws) = chain_energy_grad(&xs, &ws);
    assert_eq!(v, chain_energy(&xs, &ws));
    let h = 1e-6;
    for k in 0..xs.len() {
        let (mut up, mut down) = (xs, xs);
        up[k] += h;
        down[k] -= h;
        let fd = (chain_energy(&up, &ws) - chain_energy(&down, &ws)) / (2.0 * h);
        assert_relative_eq!(dxs[k], fd, max_relative = 1e-6, epsilon = 1e-9);
    }
    for k in 0..ws.len() {
        let (mut up, mut down) = (ws, ws);
        up[k] += h;
        down[k] -= h;
        let fd = (chain_energy(&xs, &up) - chain_energy(&xs, &down)) / (2.0 * h);
        assert_relative_eq!(dws[k], fd, max_relative = 1e-6, epsilon = 1e-9);
    }
}

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

//! `#[grad]` on methods: `self` is a constant whose fields are read as
//! written; `<name>_grad` lands in the same impl block, and methods call
//! each other's gradients.

#![deny(warnings)]
// Receivers written with their type (`self: &Self`), as users write them.
#![allow(clippy::needless_arbitrary_self_type)]

use approx::assert_relative_eq;
use autodiff::grad;

struct Spring {
    stiffness: f64,
    rest: f64,
}

impl Spring {
    /// The energy of the spring stretched to length `x`.
    #[grad]
    fn energy(&self, x: f64) -> f64 {
        0.5 * self.stiffness * (x - self.rest).powi(2)
    }

    /// Two springs in series share the stretch; a method calling another.
    #[grad]
    fn chain_energy(&self, x: f64, y: f64) -> f64 {
        self.energy(x) + self.energy(y - x)
    }

    /// An associated function, and a method calling it through `Self::`.
    #[grad]
    fn potential(x: f64, k: f64) -> f64 {
        0.5 * k * x * x
    }

    #[grad]
    fn scaled_potential(&self, x: f64) -> f64 {
        Self::potential(x, self.stiffness) * 2.0
    }

    /// `&mut self` is fine when the state it changes is not differentiated.
    #[grad]
    fn record(&mut self, x: f64) -> f64 {
        self.rest += 0.0;
        x * self.stiffness
    }
}

#[test]
fn methods_and_calls_between_them() {
    let s = Spring {
        stiffness: 3.0,
        rest: 1.0,
    };
    let (e, de) = s.energy_grad(2.5);
    assert_eq!(e, s.energy(2.5));
    assert_eq!(de, 3.0 * 1.5);
    let (e, dx, dy) = s.chain_energy_grad(2.0, 5.0);
    assert_eq!(e, s.chain_energy(2.0, 5.0));
    // d/dx = k(x − r) − k(y − x − r), d/dy = k(y − x − r).
    assert_relative_eq!(dx, 3.0 * 1.0 - 3.0 * 2.0, max_relative = 1e-15);
    assert_relative_eq!(dy, 3.0 * 2.0, max_relative = 1e-15);
    let mut m = Spring {
        stiffness: 2.0,
        rest: 0.0,
    };
    assert_eq!(m.record_grad(4.0), (8.0, 2.0));
}

/// Methods called by their path (`Model::eval(m, x)`, `V2::scaled(p,
/// k)`) as well as on a receiver: the caller cannot tell a method from an
/// associated function by its path, so every `#[grad]` function has slots
/// of that form, a method's taking its receiver first.
struct Model {
    w: f64,
}

impl Model {
    #[grad]
    fn eval(&self, x: f64) -> f64 {
        self.w * x * x
    }

    #[grad]
    fn pair(&self, x: f64) -> (f64, f64) {
        (self.w * x, x * x)
    }
}

#[derive(Clone, Copy, autodiff::Differentiable)]
struct Pt {
    x: f64,
    y: f64,
}

impl Pt {
    #[grad(wrt(self))]
    fn energy(&self) -> f64 {
        self.x * self.x + self.y
    }

    #[grad(wrt(self, k))]
    fn scaled(self, k: f64) -> [f64; 2] {
        [self.x * k, self.y * k]
    }

    #[grad]
    fn doubled(x: f64, y: f64) -> Pt {
        Pt { x: x * 2.0, y }
    }
}

#[grad]
fn by_path(x: f64, m: &Model) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        let (u, v) = Model::pair(m, x + i as f64);
        s += Model::eval(m, u) * v;
    }
    s + m.eval(x)
}

#[grad]
fn by_path_on_structs(a: f64, b: f64) -> f64 {
    let p = Pt { x: a, y: b };
    let s = Pt::scaled(p, a);
    let q = Pt::doubled(a, b);
    Pt::energy(&p) + p.energy() + s[0] * s[1] + Pt::energy(&q)
}

#[test]
fn methods_called_by_their_path() {
    let m = Model { w: 2.0 };
    let f = |x: f64| {
        let mut s = 0.0;
        for i in 0..3 {
            let t = x + i as f64;
            let u = 2.0 * t;
            s += 2.0 * u * u * t * t;
        }
        s + 2.0 * x * x
    };
    for x in [-1.3, 0.4, 1.5] {
        let (v, d) = by_path_grad(x, &m);
        assert_relative_eq!(v, f(x), max_relative = 1e-14);
        // f = Σ 8 t⁴ + 2x², t = x + i: f' = Σ 32 t³ + 4x.
        let exact: f64 = (0..3).map(|i| 32.0 * (x + i as f64).powi(3)).sum::<f64>() + 4.0 * x;
        assert_relative_eq!(d, exact, max_relative = 1e-13);
    }
    // 2(a² + b) + a³b + (4a² + b).
    let (a, b) = (3.0, 2.0);
    let (v, da, db) = by_path_on_structs_grad(a, b);
    assert_eq!(v, 2.0 * (a * a + b) + a * a * a * b + 4.0 * a * a + b);
    assert_eq!(da, 4.0 * a + 3.0 * a * a * b + 8.0 * a);
    assert_eq!(db, 2.0 + a * a * a + 1.0);
}

/// A `wrt(self)` method taking `self` by value, without other arguments,
/// on a local struct: once taken for a method without `#[grad]`.
#[derive(Clone, Copy, autodiff::Differentiable)]
struct Cplx {
    re: f64,
    im: f64,
}

impl Cplx {
    #[grad(wrt(self))]
    fn modulus_sq(self) -> f64 {
        self.re * self.re + self.im * self.im
    }
}

#[grad]
fn modulus_of_a_local(a: f64, b: f64) -> f64 {
    let z = Cplx { re: a, im: b };
    z.modulus_sq() + Cplx::modulus_sq(z)
}

#[test]
fn a_by_value_method_on_a_local_struct() {
    assert_eq!(modulus_of_a_local_grad(1.0, 2.0), (10.0, 4.0, 8.0));
}

// ---------------------------------------------------------------------
// A struct taken by `&` that a function changes inside (`analysis/
// escapes.rs`; ui `shared_struct_changed`): what stays accepted.

pub struct Counted {
    pub k: f64,
    pub calls: std::cell::Cell<usize>,
}

impl Counted {
    /// Changes `self` with constants only: nothing a caller reads carries
    /// a derivative.
    #[grad(wrt(x))]
    fn scaled(&self, x: f64) -> f64 {
        self.calls.set(self.calls.get() + 1);
        self.k * x
    }
}

/// A method with #[grad] whose value nothing reads, given an active
/// value, on a struct taken by `&`: let through (it has #[grad], which
/// never changes the struct with such values), and run as written.
#[grad(wrt(x))]
fn counted_twice(x: f64, c: &Counted) -> f64 {
    let _unused = c.scaled(x);
    c.scaled(x * x) + c.calls.get() as f64
}

#[test]
fn a_struct_lent_by_reference_changed_with_constants() {
    let c = Counted {
        k: 3.0,
        calls: std::cell::Cell::new(0),
    };
    let (v, d) = counted_twice_grad(0.5, &c);
    // Two calls before `calls` is read: 3 * 0.25 + 2.
    assert_relative_eq!(v, 2.75, max_relative = 1e-15);
    assert_relative_eq!(d, 3.0, max_relative = 1e-15);
    assert_eq!(c.calls.get(), 2);
}

pub struct Bank {
    pub springs: Counted,
    pub w: f64,
}

impl Bank {
    /// `self.springs.scaled(..)`, a method with #[grad] on a part of
    /// `self`, whose value nothing reads, given an active value.
    #[grad(wrt(x))]
    fn weighed(&self, x: f64) -> f64 {
        let _first = self.springs.scaled(x * self.w);
        self.w * self.springs.scaled(x)
    }
}

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Tagged {
    pub a: f64,
    pub tag: String,
}

/// A method of a differentiated struct's `String` field given a constant
/// (`t.tag.starts_with('X')`): it changes nothing that carries a
/// derivative (a struct is not followed through its own values: no change
/// to refuse).
#[grad(wrt(t, x))]
fn tagged(t: &Tagged, x: f64) -> f64 {
    let k = if t.tag.starts_with('X') { 2.0 } else { 1.0 };
    k * t.a * x
}

#[test]
fn methods_with_grad_lent_a_part_of_self() {
    let b = Bank {
        springs: Counted {
            k: 2.0,
            calls: std::cell::Cell::new(0),
        },
        w: 0.5,
    };
    let (v, d_x) = b.weighed_grad(3.0);
    // w * k * x = 0.5 * 2 * 3.
    assert_relative_eq!(v, 3.0, max_relative = 1e-15);
    assert_relative_eq!(d_x, 1.0, max_relative = 1e-15);
    assert_eq!(b.springs.calls.get(), 2);
    let t = Tagged {
        a: 1.5,
        tag: "XY".into(),
    };
    let (v, dt, dx) = tagged_grad(&t, 2.0);
    assert_relative_eq!(v, 6.0, max_relative = 1e-15);
    assert_relative_eq!(dt.a, 4.0, max_relative = 1e-15);
    assert_relative_eq!(dx, 3.0, max_relative = 1e-15);
}

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Wave {
    pub amp: f64,
    pub inner: Scale,
}

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Scale {
    pub k: f64,
}

impl Scale {
    #[grad(wrt(self, x))]
    fn apply(&self, x: f64) -> f64 {
        self.k * x
    }
}

impl Wave {
    #[grad(wrt(self, x))]
    fn at(&self, x: f64) -> f64 {
        self.amp * x.sin()
    }
}

pub struct Samples {
    pub ys: Vec<f64>,
}

/// Methods with #[grad] of a constant struct (`w`, `w.inner`) called in a
/// loop kept as written (it changes only its own `t`) and in one that is
/// differentiated, then the struct read after them: the methods leave it
/// as it was (they have #[grad], which the generated code checks), so the
/// reads after the loop are the struct's own fields. Before, the first
/// loop made `w` look changed with `x`, and `w.amp * x` was refused.
#[grad(wrt(x))]
fn constant_methods_in_loops(x: f64, w: &Wave, data: &Samples) -> f64 {
    for k in 0..data.ys.len() {
        let mut t = 0.0;
        t += w.at(x) * data.ys[k] + w.inner.apply(x);
        let _ = t;
    }
    let mut s = w.amp * x;
    for k in 0..2 {
        let u = w.at(data.ys[k].max(0.5));
        s += u * x + w.inner.apply(x);
    }
    s
}

#[test]
fn methods_with_grad_of_a_constant_struct_in_loops() {
    let w = Wave {
        amp: 2.0,
        inner: Scale { k: 0.5 },
    };
    let data = Samples { ys: vec![1.0, 2.0] };
    let x = 0.3;
    let (v, d) = constant_methods_in_loops_grad(x, &w, &data);
    let u = 2.0 * 1.0_f64.sin() + 2.0 * 2.0_f64.sin();
    assert_relative_eq!(v, 2.0 * x + u * x + 2.0 * 0.5 * x, max_relative = 1e-14);
    assert_relative_eq!(d, 2.0 + u + 1.0, max_relative = 1e-14);
}

/// Methods with #[grad] of a constant struct inside conditions kept as
/// written (`&&`), by path and on the receiver, given an active value:
/// checked to have #[grad], then run as written.
#[grad(wrt(x))]
fn constant_methods_in_conditions(x: f64, w: &Wave) -> f64 {
    let mut s = x;
    let mut k = 0;
    while k < 3 && Wave::at(w, s) < 1.5 {
        s += 0.5 * x;
        k += 1;
    }
    if k > 0 && w.inner.apply(s) > 0.0 {
        s * w.amp
    } else {
        s
    }
}

#[test]
fn methods_with_grad_of_a_constant_struct_in_conditions() {
    let w = Wave {
        amp: 2.0,
        inner: Scale { k: 0.5 },
    };
    // 2 sin(s) < 1.5 while s < 0.848: s = 0.4, 0.6, 0.8, then k = 3 stops.
    let (v, d) = constant_methods_in_conditions_grad(0.4, &w);
    assert_relative_eq!(v, 2.0 * 1.0, max_relative = 1e-14);
    assert_relative_eq!(d, 2.0 * 2.5, max_relative = 1e-14);
}

/// Methods of a struct that borrows its data (`Model<'a>`: an associated
/// constant with an elided lifetime was a deny-level lint there, trial 11
/// r999), a receiver with its type written (`self: &Self`, r961), and
/// `mut self` by value, which the generated functions may leave as it is
/// (no `unused_mut` under `deny(warnings)`).
struct DataModel<'a> {
    xs: &'a [f64],
}

impl<'a> DataModel<'a> {
    #[grad]
    fn loss(&self, w: f64) -> f64 {
        self.xs.iter().map(|x| (w * x - 1.0).powi(2)).sum()
    }
}

impl DataModel<'_> {
    #[grad]
    fn scaled(self: &Self, w: f64) -> f64 {
        self.loss(w) * self.xs.len() as f64
    }
}

#[derive(Clone, Copy, autodiff::Differentiable)]
struct Osc {
    x: f64,
    v: f64,
}

impl Osc {
    #[grad(wrt(self))]
    fn energy(self: &Self) -> f64 {
        self.x * self.x + self.v * self.v
    }

    #[grad(wrt(self, dt))]
    fn advanced(mut self, dt: f64) -> f64 {
        self.v -= self.x * dt;
        self.x += self.v * dt;
        self.energy()
    }
}

#[test]
fn borrowing_structs_written_receivers_and_mut_self() {
    let xs = [0.5, -1.0, 2.0];
    let m = DataModel { xs: &xs };
    let w = 0.7;
    let (v, dw) = m.loss_grad(w);
    assert_eq!(v, m.loss(w));
    let want: f64 = xs.iter().map(|x| 2.0 * (w * x - 1.0) * x).sum();
    assert_relative_eq!(dw, want, max_relative = 1e-14);
    let (v, dw) = m.scaled_grad(w);
    assert_eq!(v, m.scaled(w));
    assert_relative_eq!(dw, 3.0 * want, max_relative = 1e-14);

    let o = Osc { x: 1.0, v: 2.0 };
    let (e, d) = o.energy_grad();
    assert_eq!((e, d.x, d.v), (5.0, 2.0, 4.0));
    // v1 = v − x dt, x1 = x + v1 dt, E = x1² + v1².
    let dt = 0.1;
    let (e, d, ddt) = o.advanced_grad(dt);
    let (v1, x1) = (o.v - o.x * dt, o.x + (o.v - o.x * dt) * dt);
    assert_relative_eq!(e, x1 * x1 + v1 * v1, max_relative = 1e-15);
    // ∂x1/∂x = 1 − dt², ∂x1/∂v = dt, ∂v1/∂x = −dt, ∂v1/∂v = 1.
    assert_relative_eq!(
        d.x,
        2.0 * x1 * (1.0 - dt * dt) - 2.0 * v1 * dt,
        max_relative = 1e-14
    );
    assert_relative_eq!(d.v, 2.0 * x1 * dt + 2.0 * v1, max_relative = 1e-14);
    // ∂v1/∂dt = −x, ∂x1/∂dt = v1 − x dt.
    assert_relative_eq!(
        ddt,
        2.0 * x1 * (v1 - o.x * dt) - 2.0 * v1 * o.x,
        max_relative = 1e-14
    );
}

//! Methods of a trait's implementation: `#[grad]` on the `impl Trait for
//! Type` block and on each method to differentiate. The methods stay the
//! trait's; what `#[grad]` generates beside them (`_grad`, `_vjp`, the
//! slots) is the type's own, so callers differentiate through them as
//! through any method. Exact values; central differences (h = 1e-6,
//! relative 1e-6) for the time loop.

#![deny(warnings)]

use approx::assert_relative_eq;
use autodiff::{grad, Differentiable, Float};

mod physics {
    /// A trait declared in another module, not imported where it is
    /// implemented: the generated code finds its methods all the same.
    pub trait Dynamics {
        fn step(&mut self, dt: f64);
        fn energy(&self) -> f64;
        fn name(&self) -> &'static str;
    }
}

use physics::Dynamics as _;

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Spring {
    pub x: f64,
    pub v: f64,
    pub k: f64,
}

#[grad]
impl physics::Dynamics for Spring {
    /// A struct writer: symplectic Euler, in place.
    #[grad]
    fn step(&mut self, dt: f64) {
        self.v -= self.k * self.x * dt;
        self.x += self.v * dt;
    }

    #[grad(wrt(self))]
    fn energy(&self) -> f64 {
        0.5 * self.v * self.v + 0.5 * self.k * self.x * self.x
    }

    /// Not marked: left as written.
    fn name(&self) -> &'static str {
        "spring"
    }
}

#[grad]
fn simulated(x0: f64, v0: f64, dt: f64) -> f64 {
    let mut s = Spring {
        x: x0,
        v: v0,
        k: 2.0,
    };
    for _ in 0..20 {
        s.step(dt);
    }
    s.energy() + s.x
}

#[test]
fn a_trait_impls_methods_have_their_gradients() {
    let s = Spring {
        x: 1.0,
        v: 0.5,
        k: 2.0,
    };
    assert_eq!(s.name(), "spring");
    let (e, d) = s.energy_grad();
    assert_eq!(e, 1.125);
    assert_eq!(
        d,
        Spring {
            x: 2.0,
            v: 0.5,
            k: 0.5
        }
    );
    // v' = v - k x dt, x' = x + v' dt; seeded on x'.
    let dt = 0.1;
    let (new, d, d_dt) = s.step_vjp(
        dt,
        Spring {
            x: 1.0,
            v: 0.0,
            k: 0.0,
        },
    );
    let mut stepped = s.clone();
    stepped.step(dt);
    assert_eq!(new, stepped);
    assert_relative_eq!(d.x, 1.0 - 2.0 * dt * dt, max_relative = 1e-15);
    assert_relative_eq!(d.v, dt, max_relative = 1e-15);
    assert_relative_eq!(d.k, -dt * dt, max_relative = 1e-15);
    assert_relative_eq!(d_dt, 0.3 - 2.0 * dt, max_relative = 1e-14);
}

fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn callers_differentiate_through_a_trait_impls_methods() {
    for (x0, v0, dt) in [(0.3, 0.2, 0.05), (-1.0, 1.5, 0.1), (2.0, -0.5, 0.02)] {
        let (value, dx, dv, ddt) = simulated_grad(x0, v0, dt);
        assert_eq!(value, simulated(x0, v0, dt));
        let h = [
            central(|a| simulated(a, v0, dt), x0),
            central(|a| simulated(x0, a, dt), v0),
            central(|a| simulated(x0, v0, a), dt),
        ];
        for (g, h) in [dx, dv, ddt].into_iter().zip(h) {
            assert_relative_eq!(g, h, max_relative = 1e-6, epsilon = 1e-9);
        }
    }
}

/// A generic trait, one method calling another on `self`.
pub trait Model<T> {
    fn predict(&self, x: T) -> T;
    fn loss(&self, x: T, y: T) -> T;
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Line {
    pub a: f64,
    pub b: f64,
}

#[grad]
impl Model<f64> for Line {
    #[grad(wrt(self))]
    fn predict(&self, x: f64) -> f64 {
        self.a * x + self.b
    }

    #[grad(wrt(self))]
    fn loss(&self, x: f64, y: f64) -> f64 {
        let r = self.predict(x) - y;
        r * r
    }
}

/// A method generic over the float type, with forward mode.
pub trait Potential {
    fn value<T: Float>(&self, x: T) -> T;
}

pub struct Cubic;

#[grad]
impl Potential for Cubic {
    #[grad(jvp)]
    fn value<T: Float>(&self, x: T) -> T {
        x * x * x
    }
}

#[test]
fn generic_traits_and_methods() {
    let l = Line { a: 2.0, b: 1.0 };
    // r = a x + b - y = 2.
    assert_eq!(l.loss_grad(3.0, 5.0), (4.0, Line { a: 12.0, b: 4.0 }));
    assert_eq!(Cubic.value(2.0), 8.0);
    assert_eq!(Cubic.value_grad(2.0), (8.0, 12.0));
    assert_eq!(Cubic.value_jvp(2.0, 1.0), (8.0, 12.0));
}

//! `#[grad]` on methods: `self` is a constant whose fields are read as
//! written; `<name>_grad` lands in the same impl block, and methods call
//! each other's gradients.

#![deny(warnings)]

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

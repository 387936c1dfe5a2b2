//! Operators of the user's structs (`impl Add for V3`, `impl Mul<f64> for
//! V3`, `impl Neg for V3`): `a + (b - a) * t` is differentiated as the
//! methods it stands for, `a.add(b.sub(a).mul(t))`, each through its
//! `#[grad]` (on the method and on its `impl`). Central differences
//! (step 1e-6, relative 1e-6) at points spread over the domain.

#![deny(warnings)]

use autodiff::{check_gradient, grad, Differentiable};
use std::ops::{Add, Mul, Neg, Sub};

#[derive(Differentiable, Clone, Copy, Debug, PartialEq)]
struct V3 {
    x: f64,
    y: f64,
    z: f64,
}

#[grad]
impl Add for V3 {
    type Output = V3;
    #[grad(wrt(self, o))]
    fn add(self, o: V3) -> V3 {
        V3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

#[grad]
impl Sub for V3 {
    type Output = V3;
    #[grad(wrt(self, o))]
    fn sub(self, o: V3) -> V3 {
        V3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

#[grad]
impl Mul<f64> for V3 {
    type Output = V3;
    #[grad(wrt(self, k))]
    fn mul(self, k: f64) -> V3 {
        V3 {
            x: self.x * k,
            y: self.y * k,
            z: self.z * k,
        }
    }
}

#[grad]
impl Neg for V3 {
    type Output = V3;
    #[grad(wrt(self))]
    fn neg(self) -> V3 {
        V3 {
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }
}

impl V3 {
    #[grad(wrt(self, o))]
    fn dot(self, o: V3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
}

/// The length of the point a fraction `t` along from `a` to `b`.
#[grad(wrt(a, b, t))]
fn lerp_norm(a: V3, b: V3, t: f64) -> f64 {
    let p = a + (b - a) * t;
    (p.x * p.x + p.y * p.y + p.z * p.z).sqrt()
}

/// Negation, an operator's result given to a method, a chain of them in a
/// loop (a spring pulled towards the origin).
#[grad(wrt(a, b))]
fn pulled(a: V3, b: V3) -> f64 {
    let c = -a - b * 2.0;
    let mut s = a.dot(c) + (a - b).dot(b);
    let mut q = a;
    for _ in 0..3 {
        q = q + (b - q) * 0.25;
        s += q.dot(q) * 0.1;
    }
    s
}

fn flat(v: V3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

fn v3(p: &[f64]) -> V3 {
    V3 {
        x: p[0],
        y: p[1],
        z: p[2],
    }
}

#[test]
fn struct_operators_are_their_grad_methods() {
    let points = [
        ([1.0, 0.0, 0.5], [-0.5, 2.0, 1.0], 0.3),
        ([-1.2, 0.7, 2.0], [0.4, -0.3, 0.9], 0.85),
        ([0.05, -2.5, 0.3], [1.5, 1.1, -0.7], -0.4),
    ];
    for (a, b, t) in points {
        let (a, b) = (v3(&a), v3(&b));
        let (v, da, db, dt) = lerp_norm_grad(a, b, t);
        assert_eq!(v, lerp_norm(a, b, t));
        let claimed = [flat(da).to_vec(), flat(db).to_vec(), vec![dt]].concat();
        let at = [flat(a).to_vec(), flat(b).to_vec(), vec![t]].concat();
        let report = check_gradient(
            |p| lerp_norm(v3(&p[0..3]), v3(&p[3..6]), p[6]),
            &at,
            &claimed,
            1e-6,
            1e-9,
            1e-6,
        );
        assert!(report.passed, "{report}");

        let (v, da, db) = pulled_grad(a, b);
        assert_eq!(v, pulled(a, b));
        let claimed = [flat(da), flat(db)].concat();
        let report = check_gradient(
            |p| pulled(v3(&p[0..3]), v3(&p[3..6])),
            &at[..6],
            &claimed,
            1e-6,
            1e-9,
            1e-6,
        );
        assert!(report.passed, "{report}");
    }
}

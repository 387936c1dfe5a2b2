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

    #[grad(wrt(self))]
    fn length(self) -> f64 {
        self.dot(self).sqrt()
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

/// `claimed` against central differences of `f` at `at` (step 1e-6,
/// relative 1e-6).
fn agrees(f: impl FnMut(&[f64]) -> f64, at: &[f64], claimed: &[f64]) {
    let report = check_gradient(f, at, claimed, 1e-6, 1e-9, 1e-6);
    assert!(report.passed, "{report}");
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
        agrees(
            |p| lerp_norm(v3(&p[0..3]), v3(&p[3..6]), p[6]),
            &at,
            &claimed,
        );

        let (v, da, db) = pulled_grad(a, b);
        assert_eq!(v, pulled(a, b));
        let claimed = [flat(da), flat(db)].concat();
        agrees(|p| pulled(v3(&p[0..3]), v3(&p[3..6])), &at[..6], &claimed);
    }
}

/// Elements of a slice of structs (`vs[1] - vs[0]`), a method chain's
/// result then an operator on it (`v + a * 0.5` of `a = v.mul(2.0).sub(b)`),
/// and a loop whose temporary is an operator's struct (`let g = x * 2.0;
/// x = x - g * h;`): each operator's operands are known structs.
#[grad(wrt(vs))]
fn edge_dot(vs: &[V3]) -> f64 {
    let e1 = vs[1] - vs[0];
    let e2 = vs[2] - vs[0];
    e1.dot(e2)
}

#[grad(wrt(v, b))]
fn chained(v: V3, b: V3) -> f64 {
    let a = v.mul(2.0).sub(b);
    let w = v + a * 0.5;
    w.x + w.y * w.z
}

#[grad(wrt(x0, h))]
fn descend(x0: V3, h: f64) -> f64 {
    let mut x = x0;
    for _ in 0..10 {
        let g = x * 2.0;
        x = x - g * h;
    }
    x.x + x.y * x.z
}

#[test]
fn operators_on_elements_method_results_and_loop_temporaries() {
    let points = [
        [0.0, 1.0, 2.0, 1.0, 0.5, 0.0, -1.0, 0.3, 0.2],
        [0.4, -0.2, 1.1, -0.6, 0.9, 0.3, 0.25, 1.4, -0.8],
    ];
    for p in points {
        let vs = vec![v3(&p[0..3]), v3(&p[3..6]), v3(&p[6..9])];
        let (v, g) = edge_dot_grad(&vs);
        assert_eq!(v, edge_dot(&vs));
        let claimed: Vec<f64> = g.iter().flat_map(|v| flat(*v)).collect();
        agrees(
            |q| edge_dot(&[v3(&q[0..3]), v3(&q[3..6]), v3(&q[6..9])]),
            &p,
            &claimed,
        );

        let (a, b) = (v3(&p[0..3]), v3(&p[3..6]));
        let (v, da, db) = chained_grad(a, b);
        assert_eq!(v, chained(a, b));
        let claimed = [flat(da), flat(db)].concat();
        agrees(|q| chained(v3(&q[0..3]), v3(&q[3..6])), &p[..6], &claimed);

        let h = 0.05 + p[8].abs() * 0.1;
        let (v, dx, dh) = descend_grad(a, h);
        assert_eq!(v, descend(a, h));
        let claimed = [flat(dx).to_vec(), vec![dh]].concat();
        let at = [flat(a).to_vec(), vec![h]].concat();
        agrees(|q| descend(v3(&q[0..3]), q[3]), &at, &claimed);
    }
}

/// A ray: its fields are structs, which the source of a function taking
/// a `&Ray` does not show.
#[derive(Differentiable, Clone, Copy, Debug, PartialEq)]
struct Ray {
    o: V3,
    d: V3,
}

/// Operators on fields: the result read by field (`p.x`), its type
/// stated (`let q: V3 = ..`), a method of the user's on an operator's
/// result (`(r.d * 3.0 - r.o).length()`), fields bound first (`let o =
/// r.o;`).
#[grad(wrt(r, c, t))]
fn ray_terms(r: &Ray, c: V3, t: f64) -> f64 {
    let p = r.o + r.d * t;
    let q: V3 = r.o - c;
    let o = r.o;
    let d = r.d;
    let m = -(o + d * 2.0);
    let oc = r.o - c;
    p.x + p.y * p.z + q.dot(r.d) + m.z * oc.dot(oc) + (r.d * 3.0 - r.o).length()
}

/// A local struct built by a literal, replaced in a loop by operators on
/// it (explicit Euler with drag), and one bound again by `let p = p + v;`.
#[grad(wrt(v))]
fn thrown(v: V3) -> f64 {
    let mut pos = V3 {
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };
    let mut vel = v;
    let g = V3 {
        x: 0.0,
        y: 0.0,
        z: -9.8,
    };
    for _ in 0..10 {
        vel = vel + g * 0.1 - vel * 0.01;
        pos = pos + vel * 0.1;
    }
    let start = V3 {
        x: v.z,
        y: 1.0,
        z: v.x * v.y,
    };
    let start = start + v - -pos;
    pos.x * pos.x + pos.y * pos.y + (pos.z - 1.0) * (pos.z - 1.0) + start.x * start.y
}

#[test]
fn operators_on_fields_and_local_structs() {
    let points = [
        [0.3, 0.5, 0.7, -0.2, 0.1, 0.4, 0.1, -0.6, 0.2, 0.5],
        [-1.1, 0.4, 2.0, 0.8, -0.7, 0.3, 1.5, 0.2, -0.9, -1.3],
        [0.05, -2.2, 0.6, 1.4, 0.9, -1.6, -0.4, 1.1, 0.7, 2.4],
    ];
    for p in points {
        let r = Ray {
            o: v3(&p[0..3]),
            d: v3(&p[3..6]),
        };
        let (c, t) = (v3(&p[6..9]), p[9]);
        let (v, dr, dc, dt) = ray_terms_grad(&r, c, t);
        assert_eq!(v, ray_terms(&r, c, t));
        let claimed = [flat(dr.o), flat(dr.d), flat(dc)].concat();
        let claimed = [claimed, vec![dt]].concat();
        agrees(
            |q| {
                let r = Ray {
                    o: v3(&q[0..3]),
                    d: v3(&q[3..6]),
                };
                ray_terms(&r, v3(&q[6..9]), q[9])
            },
            &p,
            &claimed,
        );

        let (v, dv) = thrown_grad(r.d);
        assert_eq!(v, thrown(r.d));
        agrees(|q| thrown(v3(q)), &p[3..6], &flat(dv));
    }
}

/// Operators on dereferenced struct parameters taken by `&` (`*a - *c`,
/// trial 10 r738): refused with "bind the result with its type", which it
/// was.
#[grad(wrt(a, c))]
fn gap(a: &V3, c: &V3, k: f64) -> f64 {
    let d: V3 = *a - *c;
    let e = (*a + *c) * k;
    d.x * d.x + d.y * e.z + d.z * e.x
}

#[test]
fn operators_on_dereferenced_parameters() {
    let points = [
        [0.3, -1.2, 0.8, 1.5, 0.4, -0.6],
        [-2.0, 0.7, 1.1, 0.2, -0.9, 1.3],
    ];
    for p in points {
        let (a, c) = (v3(&p[0..3]), v3(&p[3..6]));
        let (v, da, dc) = gap_grad(&a, &c, 0.7);
        assert_eq!(v, gap(&a, &c, 0.7));
        let claimed = [flat(da), flat(dc)].concat();
        agrees(|q| gap(&v3(&q[0..3]), &v3(&q[3..6]), 0.7), &p, &claimed);
    }
}

/// A ray's parameter from a `#[grad]` call whose `let` states no type
/// (trial 10 r742, r746): `r.d * t` is `V3`'s `mul` of the float `t`.
#[grad(wrt(r))]
fn hit_param(r: &Ray) -> f64 {
    r.o.x * 2.0 - r.d.y * r.o.z
}

#[grad(wrt(r))]
fn along(r: &Ray) -> f64 {
    let t = hit_param(r);
    let p: V3 = r.o + r.d * t;
    let q: V3 = r.o - r.d * (t * 0.5);
    p.dot(r.d) + q.x * p.z
}

/// The pull towards the origin, a struct returned by a `#[grad]` call.
#[grad(wrt(p))]
fn gravity(p: V3, gm: f64) -> V3 {
    let r = p.length();
    p * (-gm / (r * r * r))
}

/// A force from a `#[grad]` call returning a struct, bound without its
/// type and used in operators on the state (trial 10 r747): `vel + f *
/// dt` and `f * dt + vel` are `V3`'s methods, `f` taken for a struct.
#[grad(wrt(x0, v0))]
fn orbit(x0: V3, v0: V3, gm: f64) -> f64 {
    let mut pos = x0;
    let mut vel = v0;
    let dt = 0.05;
    for i in 0..12 {
        let f = gravity(pos, gm);
        if i % 2 == 0 {
            vel = vel + f * dt;
        } else {
            vel = f * dt + vel;
        }
        pos = pos + vel * dt;
    }
    let home = V3 {
        x: 1.0,
        y: 0.0,
        z: 0.0,
    };
    (pos - home).length() + vel.dot(vel)
}

#[test]
fn operators_on_call_results_of_unstated_type() {
    let points = [
        [0.1, 0.2, -3.0, 0.05, -0.02, 1.0],
        [1.3, -0.4, 0.9, -0.7, 0.6, 0.35],
        [-0.8, 1.1, 2.2, 0.4, 0.9, -1.2],
    ];
    for p in points {
        let r = Ray {
            o: v3(&p[0..3]),
            d: v3(&p[3..6]),
        };
        let (v, dr) = along_grad(&r);
        assert_eq!(v, along(&r));
        let claimed = [flat(dr.o), flat(dr.d)].concat();
        let ray = |q: &[f64]| Ray {
            o: v3(&q[0..3]),
            d: v3(&q[3..6]),
        };
        agrees(|q| along(&ray(q)), &p, &claimed);
    }
    let orbits = [
        [1.0, 0.1, 0.0, 0.0, 1.0, 0.1],
        [0.8, -0.3, 0.2, 0.3, 1.2, -0.1],
    ];
    for p in orbits {
        let (v, dx, dv) = orbit_grad(v3(&p[0..3]), v3(&p[3..6]), 1.0);
        assert_eq!(v, orbit(v3(&p[0..3]), v3(&p[3..6]), 1.0));
        let claimed = [flat(dx), flat(dv)].concat();
        agrees(|q| orbit(v3(&q[0..3]), v3(&q[3..6]), 1.0), &p, &claimed);
    }
}

/// A local struct on the right of `*` with a dereferenced parameter on the
/// left (`*a * p`, trial 11 r957: "`p` is used otherwise"), and a
/// quaternion rotation written `*self * v * c`.
#[derive(Differentiable, Clone, Copy)]
struct Quat {
    w: f64,
    x: f64,
    y: f64,
    z: f64,
}
#[grad]
impl Mul for Quat {
    type Output = Quat;
    #[grad(wrt(self, o))]
    fn mul(self, o: Quat) -> Quat {
        Quat {
            w: self.w * o.w - self.x * o.x - self.y * o.y - self.z * o.z,
            x: self.w * o.x + self.x * o.w + self.y * o.z - self.z * o.y,
            y: self.w * o.y - self.x * o.z + self.y * o.w + self.z * o.x,
            z: self.w * o.z + self.x * o.y - self.y * o.x + self.z * o.w,
        }
    }
}
impl Quat {
    #[grad(wrt(self, v))]
    fn rotate(&self, v: Quat) -> Quat {
        let c = Quat {
            w: self.w,
            x: -self.x,
            y: -self.y,
            z: -self.z,
        };
        let r: Quat = *self * v * c;
        r
    }
}
#[grad(wrt(a, t))]
fn quat_terms(a: &Quat, t: f64) -> f64 {
    let p = Quat {
        w: t,
        x: 1.0,
        y: 0.0,
        z: 0.0,
    };
    let r = *a * p;
    let q = a.rotate(p);
    r.x + p.w + q.y * q.z
}

#[test]
fn a_local_struct_on_the_right_of_a_product() {
    let quat = |z: &[f64]| Quat {
        w: z[0],
        x: z[1],
        y: z[2],
        z: z[3],
    };
    for p in [[0.9, 0.1, -0.3, 0.2, 0.4], [-0.2, 0.7, 0.5, -1.1, -1.3]] {
        let (v, da, dt) = quat_terms_grad(&quat(&p), p[4]);
        assert_eq!(v, quat_terms(&quat(&p), p[4]));
        agrees(
            |z| quat_terms(&quat(z), z[4]),
            &p,
            &[da.w, da.x, da.y, da.z, dt],
        );
    }
}

/// `v += p * (-0.1); p += v * 0.1;` on local structs through `#[grad] impl
/// AddAssign` (trial 11 C12, trial 12 r1074: refused with messages that
/// never named `+=`), in reverse and forward mode, with no operator trait
/// imported by the caller.
#[derive(Clone, Copy, Debug, Differentiable)]
struct Phase {
    x: f64,
    y: f64,
}

#[grad]
impl std::ops::AddAssign for Phase {
    #[grad(wrt(self, o), jvp)]
    fn add_assign(&mut self, o: Phase) {
        self.x += o.x;
        self.y += o.y;
    }
}

#[grad]
impl std::ops::SubAssign for Phase {
    #[grad(wrt(self, o), jvp)]
    fn sub_assign(&mut self, o: Phase) {
        self.x -= o.x;
        self.y -= o.y;
    }
}

#[grad]
impl std::ops::Mul<f64> for Phase {
    type Output = Phase;
    #[grad(wrt(self, k), jvp)]
    fn mul(self, k: f64) -> Phase {
        Phase {
            x: self.x * k,
            y: self.y * k,
        }
    }
}

#[grad(jvp)]
fn symplectic(x0: f64, v0: f64) -> f64 {
    let mut p = Phase { x: x0, y: 0.0 };
    let mut v = Phase { x: 0.0, y: v0 };
    for _ in 0..5 {
        v -= p * 0.1;
        p += v * 0.1;
    }
    p.x * p.y + v.x
}

#[test]
fn compound_assignments_through_their_traits() {
    let f = |q: &[f64]| symplectic(q[0], q[1]);
    for x in [[0.3, 1.2], [1.5, -0.4], [-0.7, 0.2]] {
        let (v, a, b) = symplectic_grad(x[0], x[1]);
        assert_eq!(v, f(&x));
        let h = 1e-6;
        let fd = |i: usize| {
            let (mut p, mut m) = (x, x);
            p[i] += h;
            m[i] -= h;
            (f(&p) - f(&m)) / (2.0 * h)
        };
        assert!((a - fd(0)).abs() < 1e-8 && (b - fd(1)).abs() < 1e-8);
        let (vj, d) = symplectic_jvp(x[0], x[1], 1.0, 2.0);
        assert_eq!(vj, v);
        assert!((d - (a + 2.0 * b)).abs() < 1e-12);
    }
}

// ---- operators on copies of a `Vec` of structs' elements ----------------

/// De Casteljau's lerps on copies of a local `Vec`'s elements, written
/// back each step (trial 13 B4: the split wrote the copies out as
/// literals, which the operators did not take for structs: `sub` called
/// as a float's, E0277 inside the expansion). One copy by `Copy`, one by
/// `clone()`, as users write both.
#[grad]
#[allow(clippy::clone_on_copy, clippy::useless_vec)]
fn casteljau(a: f64, t: f64) -> f64 {
    let mut pts = vec![
        V3 {
            x: a,
            y: 1.0,
            z: 0.0,
        },
        V3 {
            x: 2.0,
            y: a * a,
            z: t,
        },
        V3 {
            x: -1.0,
            y: 0.5,
            z: a,
        },
    ];
    for r in 1..3 {
        for i in 0..3 - r {
            let p = pts[i];
            let q = pts[i + 1].clone();
            let c = p + (q - p) * t;
            pts[i] = V3 {
                x: c.x,
                y: c.y,
                z: c.z,
            };
        }
    }
    pts[0].x * pts[0].y + pts[0].z
}

#[test]
fn operators_on_copies_of_a_vecs_elements() {
    for (a, t) in [(0.7, 0.3), (-1.2, 0.8), (2.0, 0.5)] {
        let (v, da, dt) = casteljau_grad(a, t);
        assert_eq!(v, casteljau(a, t));
        let h = 1e-6;
        let fa = (casteljau(a + h, t) - casteljau(a - h, t)) / (2.0 * h);
        let ft = (casteljau(a, t + h) - casteljau(a, t - h)) / (2.0 * h);
        assert!((da - fa).abs() < 1e-6 * fa.abs().max(1.0), "{da} vs {fa}");
        assert!((dt - ft).abs() < 1e-6 * ft.abs().max(1.0), "{dt} vs {ft}");
    }
}

//! ADBench's bundle adjustment: the reprojection error of one observation
//! and its 2 × 15 Jacobian, ported from the reference definition in
//! microsoft/ADBench, `src/cpp/shared/ba.h` (`computeReprojError`,
//! `project`, `rodrigues_rotate_point`, `radial_distort`,
//! `computeZachWeightError`).
//!
//! A camera has 11 parameters: a Rodrigues rotation (3), the centre (3),
//! the focal length, the principal point (2) and two radial distortion
//! coefficients. A point has 3, the weight 1. The workload is ADBench's:
//! the residuals and the Jacobian of every observation of a problem (here
//! 20 cameras, 2,000 points and 10,000 observations drawn with a fixed
//! seed), the weight terms 1 − w² with their derivative −2w.

mod common;

use std::hint::black_box;

use autodiff::grad;
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::SVector;
use num_dual::{jacobian, DualNum, DualSVec64};
use reverse::Gradient;

const CAMERAS: usize = 20;
const POINTS: usize = 2_000;
const OBSERVATIONS: usize = 10_000;

/// The weighted reprojection error of point `x` seen by camera `cam` at
/// feature `feat`, as a user writes it from `computeReprojError`.
#[grad(wrt(cam, x, w))]
fn reproj_error(cam: &[f64; 11], x: &[f64; 3], w: f64, feat: &[f64; 2]) -> [f64; 2] {
    // Xo = X − C.
    let xo0 = x[0] - cam[3];
    let xo1 = x[1] - cam[4];
    let xo2 = x[2] - cam[5];
    // rodrigues_rotate_point.
    let sqtheta = cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2];
    // The small-angle form, replaced when the rotation is not zero.
    let mut xc0 = xo0 + (cam[1] * xo2 - cam[2] * xo1);
    let mut xc1 = xo1 + (cam[2] * xo0 - cam[0] * xo2);
    let mut xc2 = xo2 + (cam[0] * xo1 - cam[1] * xo0);
    if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let costheta = theta.cos();
        let sintheta = theta.sin();
        let theta_inverse = 1.0 / theta;
        let w0 = cam[0] * theta_inverse;
        let w1 = cam[1] * theta_inverse;
        let w2 = cam[2] * theta_inverse;
        let cross0 = w1 * xo2 - w2 * xo1;
        let cross1 = w2 * xo0 - w0 * xo2;
        let cross2 = w0 * xo1 - w1 * xo0;
        let tmp = (w0 * xo0 + w1 * xo1 + w2 * xo2) * (1.0 - costheta);
        xc0 = xo0 * costheta + cross0 * sintheta + w0 * tmp;
        xc1 = xo1 * costheta + cross1 * sintheta + w1 * tmp;
        xc2 = xo2 * costheta + cross2 * sintheta + w2 * tmp;
    }
    // p2e, radial_distort, then focal length and principal point.
    let p0 = xc0 / xc2;
    let p1 = xc1 / xc2;
    let rsq = p0 * p0 + p1 * p1;
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    let u = p0 * l * cam[6] + cam[7];
    let v = p1 * l * cam[6] + cam[8];
    [w * (u - feat[0]), w * (v - feat[1])]
}

/// `computeZachWeightError`.
#[grad]
fn weight_error(w: f64) -> f64 {
    1.0 - w * w
}

/// The same function for the peers: one body for dual numbers and the
/// tape's variables, with constants on the right (`c * -1.0 + 1.0`), the
/// side both take them on. `$nonzero` is the test of the reference's
/// branch, made on the plain values.
macro_rules! reproj_body {
    ($cam:expr, $x:expr, $w:expr, $feat:expr, $nonzero:expr) => {{
        let (cam, x, w, feat) = ($cam, $x, $w, $feat);
        let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
        let xc = if $nonzero {
            let theta = (cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2]).sqrt();
            let (c, s) = (theta.cos(), theta.sin());
            let it = theta.recip();
            let om = [cam[0] * it, cam[1] * it, cam[2] * it];
            let cross = [
                om[1] * xo[2] - om[2] * xo[1],
                om[2] * xo[0] - om[0] * xo[2],
                om[0] * xo[1] - om[1] * xo[0],
            ];
            let tmp = (om[0] * xo[0] + om[1] * xo[1] + om[2] * xo[2]) * (c * -1.0 + 1.0);
            [
                xo[0] * c + cross[0] * s + om[0] * tmp,
                xo[1] * c + cross[1] * s + om[1] * tmp,
                xo[2] * c + cross[2] * s + om[2] * tmp,
            ]
        } else {
            [
                xo[0] + (cam[1] * xo[2] - cam[2] * xo[1]),
                xo[1] + (cam[2] * xo[0] - cam[0] * xo[2]),
                xo[2] + (cam[0] * xo[1] - cam[1] * xo[0]),
            ]
        };
        let p0 = xc[0] / xc[2];
        let p1 = xc[1] / xc[2];
        let rsq = p0 * p0 + p1 * p1;
        let l = cam[9] * rsq + cam[10] * rsq * rsq + 1.0;
        let u = p0 * l * cam[6] + cam[7];
        let v = p1 * l * cam[6] + cam[8];
        [w * (u - feat[0]), w * (v - feat[1])]
    }};
}

type D15 = DualSVec64<15>;

/// Forward mode: all 15 directions at once.
fn reproj_dual(p: SVector<D15, 15>, feat: &[f64; 2]) -> SVector<D15, 2> {
    let cam = &p.as_slice()[..11];
    let x = &p.as_slice()[11..14];
    let nonzero = cam[..3].iter().map(|r| r.re * r.re).sum::<f64>() != 0.0;
    let e = reproj_body!(cam, x, p[14], feat, nonzero);
    SVector::from(e)
}

/// The residuals on the `reverse` tape, then one reverse pass per row.
fn reproj_tape(p: &[f64; 15], feat: &[f64; 2]) -> Vec<Vec<f64>> {
    let tape = reverse::Tape::new();
    let v = tape.add_vars(p);
    let nonzero = p[..3].iter().map(|r| r * r).sum::<f64>() != 0.0;
    let e = reproj_body!(&v[..11], &v[11..14], v[14], feat, nonzero);
    e.iter().map(|e| e.grad().wrt(&v)).collect()
}

/// The Jacobian by hand: the forward computation keeping its
/// intermediates, then the reverse pass written out once and run for each
/// of the two rows. Columns: camera (11), point (3), weight.
fn reproj_hand(
    cam: &[f64; 11],
    x: &[f64; 3],
    w: f64,
    feat: &[f64; 2],
) -> ([f64; 2], [[f64; 15]; 2]) {
    let r = [cam[0], cam[1], cam[2]];
    let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let sq = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    // Forward.
    let (theta, c, s, it) = if sq != 0.0 {
        let theta = sq.sqrt();
        (theta, theta.cos(), theta.sin(), 1.0 / theta)
    } else {
        (0.0, 1.0, 0.0, 0.0)
    };
    let om = [r[0] * it, r[1] * it, r[2] * it];
    let cr = if sq != 0.0 {
        cross(om, xo)
    } else {
        cross(r, xo)
    };
    let dotw = om[0] * xo[0] + om[1] * xo[1] + om[2] * xo[2];
    let tmp = dotw * (1.0 - c);
    let xc: [f64; 3] = std::array::from_fn(|i| {
        if sq != 0.0 {
            xo[i] * c + cr[i] * s + om[i] * tmp
        } else {
            xo[i] + cr[i]
        }
    });
    let p0 = xc[0] / xc[2];
    let p1 = xc[1] / xc[2];
    let rsq = p0 * p0 + p1 * p1;
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    let (d0, d1) = (p0 * l, p1 * l);
    let u = d0 * cam[6] + cam[7];
    let v = d1 * cam[6] + cam[8];
    let err = [w * (u - feat[0]), w * (v - feat[1])];
    // Reverse, for the row seeded by (a0, a1).
    let row = |a0: f64, a1: f64| {
        let mut g = [0.0; 15];
        g[14] = a0 * (u - feat[0]) + a1 * (v - feat[1]);
        let (gu, gv) = (a0 * w, a1 * w);
        g[6] = gu * d0 + gv * d1;
        g[7] = gu;
        g[8] = gv;
        let (gd0, gd1) = (gu * cam[6], gv * cam[6]);
        let gl = gd0 * p0 + gd1 * p1;
        g[9] = gl * rsq;
        g[10] = gl * rsq * rsq;
        let grsq = gl * (cam[9] + 2.0 * cam[10] * rsq);
        let gp0 = gd0 * l + 2.0 * p0 * grsq;
        let gp1 = gd1 * l + 2.0 * p1 * grsq;
        let gxc = [gp0 / xc[2], gp1 / xc[2], -(gp0 * p0 + gp1 * p1) / xc[2]];
        let mut gxo;
        let mut gr;
        if sq != 0.0 {
            gxo = [gxc[0] * c, gxc[1] * c, gxc[2] * c];
            let gc0 = gxc[0] * xo[0] + gxc[1] * xo[1] + gxc[2] * xo[2];
            let gcr = [gxc[0] * s, gxc[1] * s, gxc[2] * s];
            let gs = gxc[0] * cr[0] + gxc[1] * cr[1] + gxc[2] * cr[2];
            let mut gom = [gxc[0] * tmp, gxc[1] * tmp, gxc[2] * tmp];
            let gtmp = gxc[0] * om[0] + gxc[1] * om[1] + gxc[2] * om[2];
            let gdotw = gtmp * (1.0 - c);
            let gc = gc0 - gtmp * dotw;
            for i in 0..3 {
                gom[i] += gdotw * xo[i];
                gxo[i] += gdotw * om[i];
            }
            // cr = ω × xo: ∂/∂ω = xo × gcr, ∂/∂xo = gcr × ω.
            let a = cross(xo, gcr);
            let b = cross(gcr, om);
            for i in 0..3 {
                gom[i] += a[i];
                gxo[i] += b[i];
            }
            gr = [gom[0] * it, gom[1] * it, gom[2] * it];
            let git = gom[0] * r[0] + gom[1] * r[1] + gom[2] * r[2];
            let gtheta = -git * it * it - gc * s + gs * c;
            let gsq = gtheta / (2.0 * theta);
            for i in 0..3 {
                gr[i] += 2.0 * r[i] * gsq;
            }
        } else {
            gxo = gxc;
            let a = cross(xo, gxc);
            let b = cross(gxc, r);
            gr = a;
            for i in 0..3 {
                gxo[i] += b[i];
            }
        }
        g[..3].copy_from_slice(&gr);
        for i in 0..3 {
            g[3 + i] = -gxo[i];
            g[11 + i] = gxo[i];
        }
        g
    };
    (err, [row(1.0, 0.0), row(0.0, 1.0)])
}

/// A problem: cameras looking at points in front of them, with noisy
/// features and weights near 1.
struct Ba {
    cams: Vec<[f64; 11]>,
    points: Vec<[f64; 3]>,
    weights: Vec<f64>,
    obs: Vec<(usize, usize)>,
    feats: Vec<[f64; 2]>,
}

impl Ba {
    fn new() -> Ba {
        let mut rng = common::Rng::new(0xba);
        let cams = (0..CAMERAS)
            .map(|_| {
                let mut c = [0.0; 11];
                for r in &mut c[..3] {
                    *r = 0.1 * rng.normal();
                }
                c[3] = rng.normal();
                c[4] = rng.normal();
                c[5] = -10.0 + rng.normal();
                c[6] = 500.0 + 50.0 * rng.uniform();
                c[7] = rng.normal();
                c[8] = rng.normal();
                c[9] = 0.01 * rng.normal();
                c[10] = 0.001 * rng.normal();
                c
            })
            .collect();
        let points = (0..POINTS)
            .map(|_| [rng.normal(), rng.normal(), 5.0 + rng.normal()])
            .collect();
        let weights = (0..OBSERVATIONS)
            .map(|_| 1.0 + 0.1 * rng.normal())
            .collect();
        let obs = (0..OBSERVATIONS)
            .map(|i| (i % CAMERAS, (i * 7919) % POINTS))
            .collect();
        let feats = (0..OBSERVATIONS)
            .map(|_| [100.0 * rng.normal(), 100.0 * rng.normal()])
            .collect();
        let mut ba = Ba {
            cams,
            points,
            weights,
            obs,
            feats,
        };
        // One camera without rotation: the reference's other branch.
        ba.cams[0][..3].copy_from_slice(&[0.0; 3]);
        ba
    }

    /// Every residual and weight term.
    fn residuals(&self) -> (Vec<[f64; 2]>, Vec<f64>) {
        let r = (0..OBSERVATIONS)
            .map(|i| {
                let (c, p) = self.obs[i];
                reproj_error(
                    &self.cams[c],
                    &self.points[p],
                    self.weights[i],
                    &self.feats[i],
                )
            })
            .collect();
        (r, self.weights.iter().map(|w| weight_error(*w)).collect())
    }

    /// Every Jacobian, each as 2 rows of 15, row-major, then the weight
    /// terms' derivatives: ADBench's sparse Jacobian, block by block.
    fn jacobians(&self, block: impl Fn(usize) -> [[f64; 15]; 2]) -> (Vec<f64>, Vec<f64>) {
        let mut j = Vec::with_capacity(OBSERVATIONS * 30);
        for i in 0..OBSERVATIONS {
            for row in block(i) {
                j.extend_from_slice(&row);
            }
        }
        let dw = self
            .weights
            .iter()
            .map(|w| weight_error_grad(*w).1)
            .collect();
        (j, dw)
    }

    fn args(&self, i: usize) -> (&[f64; 11], &[f64; 3], f64, &[f64; 2]) {
        let (c, p) = self.obs[i];
        (
            &self.cams[c],
            &self.points[p],
            self.weights[i],
            &self.feats[i],
        )
    }

    fn flat(&self, i: usize) -> [f64; 15] {
        let (cam, x, w, _) = self.args(i);
        let mut p = [0.0; 15];
        p[..11].copy_from_slice(cam);
        p[11..14].copy_from_slice(x);
        p[14] = w;
        p
    }
}

/// One row of the generated vector-Jacobian product, as 15 columns.
fn vjp_row(cam: &[f64; 11], x: &[f64; 3], w: f64, feat: &[f64; 2], seed: [f64; 2]) -> [f64; 15] {
    let (_, dc, dx, dw) = reproj_error_vjp(cam, x, w, feat, seed);
    let mut row = [0.0; 15];
    row[..11].copy_from_slice(&dc);
    row[11..14].copy_from_slice(&dx);
    row[14] = dw;
    row
}

fn ba(c: &mut Criterion) {
    let ba = Ba::new();
    let generated = |i: usize| {
        let (cam, x, w, feat) = ba.args(i);
        reproj_error_jacobian(cam, x, w, feat).1
    };
    let vjps = |i: usize| {
        let (cam, x, w, feat) = ba.args(i);
        [
            vjp_row(cam, x, w, feat, [1.0, 0.0]),
            vjp_row(cam, x, w, feat, [0.0, 1.0]),
        ]
    };
    let hand = |i: usize| {
        let (cam, x, w, feat) = ba.args(i);
        reproj_hand(cam, x, w, feat).1
    };
    let dual = |i: usize| {
        let p = SVector::from(ba.flat(i));
        let (_, j) = jacobian(|v| reproj_dual(v, &ba.feats[i]), &p);
        [
            std::array::from_fn(|k| j[(0, k)]),
            std::array::from_fn(|k| j[(1, k)]),
        ]
    };
    let tape = |i: usize| {
        let j = reproj_tape(&ba.flat(i), &ba.feats[i]);
        [
            <[f64; 15]>::try_from(&j[0][..]).unwrap(),
            <[f64; 15]>::try_from(&j[1][..]).unwrap(),
        ]
    };
    let differences = |i: usize| {
        let (_, _, _, feat) = ba.args(i);
        let p = ba.flat(i);
        let row = |k: usize| {
            let f = |q: &[f64]| {
                let cam = q[..11].try_into().unwrap();
                let x = q[11..14].try_into().unwrap();
                reproj_error(cam, x, q[14], feat)[k]
            };
            <[f64; 15]>::try_from(common::central_differences(f, &p)).unwrap()
        };
        [row(0), row(1)]
    };

    // Every method agrees before the race, on every observation.
    let (want, _) = ba.jacobians(hand);
    for (name, got, tol) in [
        ("generated", ba.jacobians(generated).0, 1e-12),
        ("vjps", ba.jacobians(vjps).0, 1e-12),
        ("num-dual", ba.jacobians(dual).0, 1e-12),
        ("reverse (tape)", ba.jacobians(tape).0, 1e-12),
    ] {
        for (o, (a, b)) in got.chunks(30).zip(want.chunks(30)).enumerate() {
            common::assert_close(&format!("{name}, observation {o}"), a, b, tol);
        }
    }
    for (o, (a, b)) in ba
        .jacobians(differences)
        .0
        .chunks(30)
        .zip(want.chunks(30))
        .enumerate()
        .take(200)
    {
        common::assert_close(&format!("central differences, observation {o}"), a, b, 1e-5);
    }
    for i in 0..OBSERVATIONS {
        let (cam, x, w, feat) = ba.args(i);
        let (e, _) = reproj_hand(cam, x, w, feat);
        assert_eq!(e, reproj_error(cam, x, w, feat));
    }

    let mut g = c.benchmark_group(format!("ba {OBSERVATIONS} observations"));
    g.bench_function("function", |b| b.iter(|| black_box(&ba).residuals()));
    g.bench_function("generated (_jacobian)", |b| {
        b.iter(|| black_box(&ba).jacobians(generated))
    });
    g.bench_function("generated (two _vjp)", |b| {
        b.iter(|| black_box(&ba).jacobians(vjps))
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| black_box(&ba).jacobians(hand))
    });
    g.bench_function("num-dual", |b| b.iter(|| black_box(&ba).jacobians(dual)));
    g.bench_function("reverse (tape)", |b| {
        b.iter(|| black_box(&ba).jacobians(tape))
    });
    g.bench_function("central differences", |b| {
        b.iter(|| black_box(&ba).jacobians(differences))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = ba
}
criterion_main!(benches);

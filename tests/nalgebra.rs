//! nalgebra's vectors, matrices and points in `#[grad]` functions: as
//! parameters (by value and by `&`), locals and outputs, with their
//! arithmetic, products, `dot`, `norm`, `normalize`, `cross`, `transpose`
//! and element access. Every generated function's value is the function's
//! own (nalgebra computes it there, the generated code from the entries;
//! relative 1e-14); every gradient, `_vjp`, `_jvp` and Hessian entry is
//! checked against central differences of the function (h = 1e-6,
//! relative and absolute 1e-6), at points spread over the domain.

#![deny(warnings)]
#![allow(clippy::needless_range_loop)] // index loops over matrix entries

use autodiff::{grad, Differentiable, Float};
use nalgebra::{
    Matrix2, Matrix2x3, Matrix3, Point3, RowVector3, SMatrix, SVector, Vector2, Vector3,
};

/// The entries of a nalgebra value, column by column.
fn flat<const R: usize, const C: usize>(m: &nalgebra::SMatrix<f64, R, C>) -> Vec<f64> {
    m.iter().copied().collect()
}

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: {got} vs {want}"
    );
}

/// Central differences of `f` at `x`, one per entry.
fn differences(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|k| {
            let (mut up, mut down) = (x.to_vec(), x.to_vec());
            up[k] += h;
            down[k] -= h;
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

fn points(n: usize) -> Vec<Vec<f64>> {
    (0..4)
        .map(|p| {
            (0..n)
                .map(|k| ((p * 7 + k * 3) % 11) as f64 * 0.37 - 1.6 + 0.05 * p as f64)
                .collect()
        })
        .collect()
}

// ---- vectors in, a float out ---------------------------------------------

/// Arithmetic, `dot`, `norm`, a field, an index and a constructor.
#[grad]
fn energy(v: Vector3<f64>, w: &Vector3<f64>, s: f64) -> f64 {
    let u = v * s - w / 2.0 + Vector3::new(1.0, -0.5, 0.25);
    let n = u.normalize();
    u.dot(w) + v.x * u.norm() + n[2] * w.norm_squared() - (-v).sum()
}

#[test]
fn vector_arithmetic_dot_norm_normalize() {
    for x in points(7) {
        let (v, w) = (
            Vector3::new(x[0], x[1], x[2]),
            Vector3::new(x[3], x[4], x[5]),
        );
        let (value, dv, dw, ds) = energy_grad(v, &w, x[6]);
        close(value, energy(v, &w, x[6]), 1e-14, "value");
        let f = |y: &[f64]| {
            energy(
                Vector3::new(y[0], y[1], y[2]),
                &Vector3::new(y[3], y[4], y[5]),
                y[6],
            )
        };
        let want = differences(f, &x);
        let got: Vec<f64> = [flat(&dv), flat(&dw), vec![ds]].concat();
        for k in 0..7 {
            close(got[k], want[k], 1e-6, &format!("d{k} at {x:?}"));
        }
    }
}

/// A cross product, a point's coordinates, and a difference of points.
#[grad]
fn torque(r: Point3<f64>, f: Vector3<f64>, origin: Point3<f64>) -> f64 {
    let arm = r - origin;
    let t = arm.cross(&f);
    t.norm() + r.coords.dot(&f) * 0.5 + t.z
}

#[test]
fn cross_products_and_points() {
    for x in points(9) {
        let r = Point3::new(x[0], x[1], x[2]);
        let f = Vector3::new(x[3], x[4], x[5]);
        let o = Point3::new(x[6], x[7], x[8]);
        let (value, dr, df, d_o) = torque_grad(r, f, o);
        close(value, torque(r, f, o), 1e-14, "value");
        let g = |y: &[f64]| {
            torque(
                Point3::new(y[0], y[1], y[2]),
                Vector3::new(y[3], y[4], y[5]),
                Point3::new(y[6], y[7], y[8]),
            )
        };
        let want = differences(g, &x);
        let got: Vec<f64> = [flat(&dr.coords), flat(&df), flat(&d_o.coords)].concat();
        for k in 0..9 {
            close(got[k], want[k], 1e-6, &format!("d{k}"));
        }
    }
}

// ---- matrices --------------------------------------------------------------

/// A matrix times a vector and a matrix, a transpose, an entry by
/// `(i, j)`, and the identity: the gradient of a matrix is a matrix, entry
/// (i, j) where the matrix's is.
#[grad]
fn quadratic(m: Matrix2x3<f64>, v: Vector3<f64>, a: &Matrix2<f64>) -> f64 {
    let mv = m * v;
    let g = m * m.transpose() + Matrix2::identity() * 0.5;
    mv.dot(&(a * mv)) + g[(0, 1)] * m[(1, 2)] + (a.transpose() * g).sum()
}

#[test]
fn matrix_products_transposes_and_entries() {
    for x in points(13) {
        let m = Matrix2x3::from_column_slice(&x[0..6]);
        let v = Vector3::new(x[6], x[7], x[8]);
        let a = Matrix2::from_column_slice(&x[9..13]);
        let (value, dm, dv, da) = quadratic_grad(m, v, &a);
        close(value, quadratic(m, v, &a), 1e-13, "value");
        let g = |y: &[f64]| {
            quadratic(
                Matrix2x3::from_column_slice(&y[0..6]),
                Vector3::new(y[6], y[7], y[8]),
                &Matrix2::from_column_slice(&y[9..13]),
            )
        };
        let want = differences(g, &x);
        let got: Vec<f64> = [flat(&dm), flat(&dv), flat(&da)].concat();
        for k in 0..13 {
            close(got[k], want[k], 1e-6, &format!("d{k}"));
        }
        // Entry (1, 2) of the gradient is ∂f/∂m[(1, 2)].
        close(dm[(1, 2)], want[5], 1e-6, "dm[(1, 2)]");
    }
}

// ---- vector outputs: _vjp, _jacobian, _jvp ---------------------------------

/// A rotation and a shift: `_vjp` takes its seed as a `Vector2`.
#[grad(jvp)]
fn moved(m: Matrix2<f64>, v: Vector2<f64>, t: f64) -> Vector2<f64> {
    let mut p = m * v;
    p += Vector2::new(t, t * t);
    p.x *= 2.0;
    -p * 1.5 + m.transpose() * v
}

#[test]
fn vector_output_vjp_jacobian_and_jvp() {
    for x in points(7) {
        let m = Matrix2::from_column_slice(&x[0..4]);
        let v = Vector2::new(x[4], x[5]);
        let t = x[6];
        let seed = Vector2::new(0.7, -1.3);
        let (value, dm, dv, dt) = moved_vjp(m, v, t, seed);
        let kept = moved(m, v, t);
        close(value.x, kept.x, 1e-14, "value x");
        close(value.y, kept.y, 1e-14, "value y");
        let g = |y: &[f64]| {
            moved(
                Matrix2::from_column_slice(&y[0..4]),
                Vector2::new(y[4], y[5]),
                y[6],
            )
            .dot(&seed)
        };
        let want = differences(g, &x);
        let got: Vec<f64> = [flat(&dm), flat(&dv), vec![dt]].concat();
        for k in 0..7 {
            close(got[k], want[k], 1e-6, &format!("vjp d{k}"));
        }
        // The Jacobian's rows are the `_vjp`s of the unit seeds.
        let (_, jac) = moved_jacobian(m, v, t);
        for (row, seed) in [Vector2::new(1.0, 0.0), Vector2::new(0.0, 1.0)]
            .iter()
            .enumerate()
        {
            let (_, dm, dv, dt) = moved_vjp(m, v, t, *seed);
            let flat_row: Vec<f64> = [flat(&dm), flat(&dv), vec![dt]].concat();
            for k in 0..7 {
                close(jac[row][k], flat_row[k], 1e-14, "jacobian");
            }
        }
        // `_jvp` along a direction is J·d, a `Vector2`.
        let (dm_dir, dv_dir, dt_dir) = (
            Matrix2::new(0.3, -0.2, 0.5, 0.1),
            Vector2::new(-0.4, 0.9),
            0.6,
        );
        let (value, tangent) = moved_jvp(m, v, t, dm_dir, dv_dir, dt_dir);
        close(value.y, kept.y, 1e-14, "jvp value");
        let dir: Vec<f64> = [flat(&dm_dir), flat(&dv_dir), vec![dt_dir]].concat();
        for (i, e) in [tangent.x, tangent.y].iter().enumerate() {
            let want: f64 = (0..7).map(|k| jac[i][k] * dir[k]).sum();
            close(*e, want, 1e-12, "jvp");
        }
    }
}

// ---- only in the body -------------------------------------------------------

/// nalgebra only inside: the function keeps its name and signature, so
/// another `#[grad]` function calls it as any other.
#[grad]
fn reach(q1: f64, q2: f64) -> f64 {
    let target = Vector2::<f64>::new(1.2, 0.4);
    let elbow = Vector2::new(q1.cos(), q1.sin());
    let hand = elbow + Vector2::new((q1 + q2).cos(), (q1 + q2).sin()) * 0.8;
    (hand - target).norm_squared()
}

#[grad]
fn reach_twice(q1: f64, q2: f64) -> f64 {
    reach(q1, q2) + 0.5 * reach(q2, q1)
}

#[test]
fn nalgebra_in_the_body_only_and_called() {
    for x in points(2) {
        let (value, d1, d2) = reach_twice_grad(x[0], x[1]);
        close(value, reach_twice(x[0], x[1]), 1e-14, "value");
        let want = differences(|y| reach_twice(y[0], y[1]), &x);
        close(d1, want[0], 1e-6, "d1");
        close(d2, want[1], 1e-6, "d2");
    }
}

// ---- generic: Hessians, f32 ------------------------------------------------

/// `_hessian` and `_hvp` of a function generic over its float type, with
/// its gradient and `H·v` as `SVector`s.
/// nalgebra's `norm` asks `RealField` of the function as written; the
/// float methods of `T` would then be ambiguous between the two traits,
/// so this one uses arithmetic only.
#[grad(hessian)]
fn spring<T: Float + nalgebra::RealField>(p: SVector<T, 3>, k: T) -> T {
    let rest = SVector::<T, 3>::new(1.0, 0.0, 0.5);
    let d = p - rest;
    let xy = p.x * p.y;
    k * d.norm_squared() * 0.5 + xy * xy * 0.25 + d.norm()
}

#[test]
fn hessians_of_nalgebra_values() {
    for x in points(4) {
        let p = SVector::<f64, 3>::new(x[0], x[1], x[2]);
        let (value, dp, dk, h) = spring_hessian(p, x[3]);
        let (v0, dp0, dk0) = spring_grad(p, x[3]);
        assert_eq!((value, dp, dk), (v0, dp0, dk0));
        close(value, spring(p, x[3]), 1e-14, "value");
        for i in 0..4 {
            let di = |y: &[f64]| {
                let (_, dp, dk) = spring_grad(SVector::<f64, 3>::new(y[0], y[1], y[2]), y[3]);
                [flat(&dp), vec![dk]].concat()[i]
            };
            let want = differences(di, &x);
            for j in 0..4 {
                close(h[i][j], want[j], 1e-6, &format!("h[{i}][{j}]"));
            }
        }
        let dir = SVector::<f64, 3>::new(0.2, -0.7, 0.4);
        let (_, _, _, hv_p, hv_k) = spring_hvp(p, x[3], dir, 1.5);
        let full = [flat(&dir), vec![1.5]].concat();
        let hv: Vec<f64> = [flat(&hv_p), vec![hv_k]].concat();
        for i in 0..4 {
            let want: f64 = (0..4).map(|j| h[i][j] * full[j]).sum();
            close(hv[i], want, 1e-12, "hvp");
        }
    }
    let (v32, d32, _) = spring_grad(SVector::<f32, 3>::new(0.5, -0.2, 0.1), 2.0f32);
    assert!(v32.is_finite() && d32.iter().all(|d| d.is_finite()));
}

// ---- gradients as values ---------------------------------------------------

/// A gradient with respect to a `Vector3` is a `Vector3`, summed and
/// stepped with `Differentiable`'s operations (feature `nalgebra`).
#[test]
fn gradients_sum_and_step() {
    let w = Vector3::new(0.3, -0.2, 0.8);
    let mut total = Vector3::zeros();
    for s in [0.5, 1.0, 1.5] {
        let (_, dv, _, _) = energy_grad(Vector3::new(1.0, 2.0, -1.0), &w, s);
        total.accumulate(&dv);
    }
    let mut v = Vector3::new(1.0, 2.0, -1.0);
    let before = energy(v, &w, 1.0);
    let (_, dv, _, _) = energy_grad(v, &w, 1.0);
    v.scaled_add(-1e-3, &dv);
    assert!(energy(v, &w, 1.0) < before);
    assert!(total.iter().all(|d| d.is_finite()));
}

// ---- calls between functions with nalgebra signatures ----------------------

/// Forward kinematics: angles in, the hand's position out.
#[grad]
fn hand(q: &Vector2<f64>) -> Vector2<f64> {
    let elbow = Vector2::new(q.x.cos(), q.x.sin());
    elbow + Vector2::new((q.x + q.y).cos(), (q.x + q.y).sin()) * 0.8
}

#[grad]
fn distance(a: Vector2<f64>, b: &Vector2<f64>) -> f64 {
    (a - b).norm()
}

/// Helpers given and returning nalgebra values: each call goes through the
/// helper's own gradient, its result typed, used in an operation, passed
/// on, or returned.
#[grad]
fn reach_loss(q: Vector2<f64>, target: Vector2<f64>) -> f64 {
    let p: Vector2<f64> = hand(&q);
    let miss = hand(&q) - target;
    distance(p, &target) * 0.5 + miss.norm_squared() + distance(hand(&(q * 2.0)), &p)
}

#[grad]
fn relay(q: Vector2<f64>) -> Vector2<f64> {
    hand(&(q * 0.5))
}

#[test]
fn calls_pass_and_return_nalgebra_values() {
    for x in points(4) {
        let (q, t) = (Vector2::new(x[0], x[1]), Vector2::new(x[2], x[3]));
        let (value, dq, dt) = reach_loss_grad(q, t);
        close(value, reach_loss(q, t), 1e-14, "value");
        let f = |y: &[f64]| reach_loss(Vector2::new(y[0], y[1]), Vector2::new(y[2], y[3]));
        let want = differences(f, &x);
        let got: Vec<f64> = [flat(&dq), flat(&dt)].concat();
        for k in 0..4 {
            close(got[k], want[k], 1e-6, &format!("d{k}"));
        }
        let seed = Vector2::new(0.4, -0.9);
        let (v, dq) = relay_vjp(q, seed);
        close(v.x, relay(q).x, 1e-14, "relay value");
        let g = |y: &[f64]| relay(Vector2::new(y[0], y[1])).dot(&seed);
        let want = differences(g, &x[0..2]);
        close(dq.x, want[0], 1e-6, "relay d0");
        close(dq.y, want[1], 1e-6, "relay d1");
    }
}

// ---- spellings a new user wrote (a trial of 78 functions) ------------------

/// A `mut` parameter changed in place, a tuple `let` of two states, a time
/// loop, a value chosen by an `if`, `vector![..]`, and a product's entry.
#[grad]
fn spellings(mut v: Vector2<f64>, x0: Vector2<f64>, m: &Matrix2<f64>, k: f64) -> f64 {
    v.x *= 0.5;
    v += Vector2::new(k, 0.0);
    let (mut x, mut u) = (x0, v);
    for _ in 0..4 {
        u -= x * (k * 0.1);
        x += u * 0.1;
    }
    let a = *m;
    let flipped = if k > 0.0 { x } else { -x };
    let w = nalgebra::vector![k, 2.0 * k];
    (a * 2.0)[(0, 1)] * flipped.dot(&w) + (a.transpose() * x)[(1, 0)] + u.norm()
}

/// `determinant`, `trace`, `mean`, `add_scalar`, `lerp`, `from`, `origin`
/// and a row vector's fields.
#[grad]
fn more_operations(m: Matrix3<f64>, a: Vector3<f64>, t: f64) -> f64 {
    let b = Vector3::from([t, 1.0, -t]);
    let p = Point3::origin() + a.lerp(&b, 0.3).add_scalar(t);
    let r: RowVector3<f64> = a.transpose();
    m.determinant()
        + m.trace() * a.mean()
        + p.coords.norm()
        + r.y * r.z
        + Matrix2::new(a.x, t, 1.0, a.y).determinant()
}

#[test]
fn what_a_new_user_wrote() {
    for x in points(9) {
        let (v, x0) = (Vector2::new(x[0], x[1]), Vector2::new(x[2], x[3]));
        let m = Matrix2::from_column_slice(&x[4..8]);
        let k = x[8];
        let (value, dv, dx0, dm, dk) = spellings_grad(v, x0, &m, k);
        close(value, spellings(v, x0, &m, k), 1e-13, "value");
        let f = |y: &[f64]| {
            spellings(
                Vector2::new(y[0], y[1]),
                Vector2::new(y[2], y[3]),
                &Matrix2::from_column_slice(&y[4..8]),
                y[8],
            )
        };
        let want = differences(f, &x);
        let got: Vec<f64> = [flat(&dv), flat(&dx0), flat(&dm), vec![dk]].concat();
        for i in 0..9 {
            close(got[i], want[i], 1e-6, &format!("spellings d{i} at {x:?}"));
        }
    }
    for x in points(13) {
        let m = Matrix3::from_column_slice(&x[0..9]);
        let a = Vector3::new(x[9], x[10], x[11]);
        let (value, dm, da, dt) = more_operations_grad(m, a, x[12]);
        close(value, more_operations(m, a, x[12]), 1e-13, "value");
        let f = |y: &[f64]| {
            more_operations(
                Matrix3::from_column_slice(&y[0..9]),
                Vector3::new(y[9], y[10], y[11]),
                y[12],
            )
        };
        let want = differences(f, &x);
        let got: Vec<f64> = [flat(&dm), flat(&da), vec![dt]].concat();
        for i in 0..13 {
            close(got[i], want[i], 1e-6, &format!("more d{i}"));
        }
    }
}

/// Entries and sums where a value stands alone (a `let`, an argument, a
/// returned value): no parentheses rustc would warn about (`deny(warnings)`
/// above).
#[grad]
fn alone(a: Vector3<f64>, b: Vector3<f64>) -> f64 {
    let d = a.dot(&b);
    let x = (a - b).x;
    let n = (a + b).norm();
    let m = Matrix2::new(a.x, a.y, b.x, b.y).determinant();
    let mut s = d;
    s += (a - b).y;
    f64::max(x, n) + s.max((a * 2.0).z) + m
}

#[test]
fn values_standing_alone() {
    let (a, b) = (Vector3::new(0.3, -1.2, 0.7), Vector3::new(1.1, 0.4, -0.2));
    let (value, ..) = alone_grad(a, b);
    close(value, alone(a, b), 1e-14, "value");
}

/// Swizzles, a column and a row, a diagonal matrix, the largest entry and
/// magnitude, the angle between two vectors, `lerp`.
#[grad]
fn picks(m: Matrix3<f64>, a: Vector3<f64>, b: Vector3<f64>, t: f64) -> f64 {
    let d = Matrix3::from_diagonal(&a);
    let c = m.column(1) + (d * b).xzy();
    let r = m.row(2);
    c.dot(&a) * r[0] + a.max() - b.amin() + a.angle(&b) + a.lerp(&b, t).xy().norm()
}

#[test]
fn swizzles_columns_rows_and_reductions() {
    for x in points(16) {
        let m = Matrix3::from_column_slice(&x[0..9]);
        let (a, b) = (
            Vector3::new(x[9], x[10], x[11]),
            Vector3::new(x[12], x[13], x[14]),
        );
        let (value, dm, da, db, dt) = picks_grad(m, a, b, x[15]);
        close(value, picks(m, a, b, x[15]), 1e-13, "value");
        let f = |y: &[f64]| {
            picks(
                Matrix3::from_column_slice(&y[0..9]),
                Vector3::new(y[9], y[10], y[11]),
                Vector3::new(y[12], y[13], y[14]),
                y[15],
            )
        };
        let want = differences(f, &x);
        let got: Vec<f64> = [flat(&dm), flat(&da), flat(&db), vec![dt]].concat();
        for i in 0..16 {
            close(got[i], want[i], 1e-6, &format!("picks d{i} at {x:?}"));
        }
    }
}

/// `nalgebra::distance` of two points, and `normalize_mut` in place.
#[grad]
fn apart(p: Point3<f64>, q: Point3<f64>) -> f64 {
    let mut d = p - q;
    d.normalize_mut();
    nalgebra::distance(&p, &q) + nalgebra::distance_squared(&p, &q) * 0.5 + d.x
}

#[test]
fn distances_and_normalize_in_place() {
    for x in points(6) {
        let (p, q) = (Point3::new(x[0], x[1], x[2]), Point3::new(x[3], x[4], x[5]));
        let (value, dp, dq) = apart_grad(p, q);
        close(value, apart(p, q), 1e-14, "value");
        let f = |y: &[f64]| apart(Point3::new(y[0], y[1], y[2]), Point3::new(y[3], y[4], y[5]));
        let want = differences(f, &x);
        let got: Vec<f64> = [flat(&dp.coords), flat(&dq.coords)].concat();
        for i in 0..6 {
            close(got[i], want[i], 1e-6, &format!("apart d{i}"));
        }
    }
}

// ---- lists of values: point clouds ------------------------------------------

/// A point cloud's spread about a centre: a lent list looped over and
/// indexed, an owned list, the gradient a list of the same values.
#[grad(jvp)]
fn spread(pts: &[Vector3<f64>], c: Vector3<f64>, w: Vec<Vector2<f64>>) -> f64 {
    let mut s = 0.0;
    for p in pts {
        s += (p - c).norm_squared() + distance_to(p, &c);
    }
    for &p in pts.iter() {
        s += p.x * c.y;
    }
    for i in 0..w.len() {
        s += w[i].dot(&w[i]) * pts[i].z + (w[i] - Vector2::new(c.x, c.z)).norm();
    }
    s
}

#[grad]
fn distance_to(a: &Vector3<f64>, b: &Vector3<f64>) -> f64 {
    (a - b).norm()
}

#[test]
fn point_clouds() {
    let pts = vec![
        Vector3::new(1.0, 2.0, 0.5),
        Vector3::new(-0.5, 0.3, 1.2),
        Vector3::new(0.2, -1.1, 0.7),
    ];
    let c = Vector3::new(0.1, 0.4, -0.3);
    let w = vec![Vector2::new(0.3, 0.9), Vector2::new(-1.2, 0.5)];
    let (value, dpts, dc, dw) = spread_grad(&pts, c, w.clone());
    close(value, spread(&pts, c, w.clone()), 1e-14, "value");
    let flat_all = |p: &[Vector3<f64>], c: &Vector3<f64>, w: &[Vector2<f64>]| -> Vec<f64> {
        let mut x: Vec<f64> = p.iter().flat_map(|v| v.iter().copied()).collect();
        x.extend(c.iter());
        x.extend(w.iter().flat_map(|v| v.iter().copied()));
        x
    };
    let x = flat_all(&pts, &c, &w);
    let f = |y: &[f64]| {
        let p: Vec<Vector3<f64>> = (0..3)
            .map(|i| Vector3::from_column_slice(&y[3 * i..3 * i + 3]))
            .collect();
        let w: Vec<Vector2<f64>> = (0..2)
            .map(|i| Vector2::from_column_slice(&y[12 + 2 * i..14 + 2 * i]))
            .collect();
        spread(&p, Vector3::from_column_slice(&y[9..12]), w)
    };
    let want = differences(f, &x);
    let got = flat_all(&dpts, &dc, &dw);
    for i in 0..x.len() {
        close(got[i], want[i], 1e-6, &format!("spread d{i}"));
    }
    // `_jvp` along the gradient itself is its squared length.
    let (_, along) = spread_jvp(&pts, c, w.clone(), &dpts, dc, dw.clone());
    let squared: f64 = got.iter().map(|g| g * g).sum();
    close(along, squared, 1e-12, "jvp");
}

/// A fixed number of values: a tetrahedron's corners, by value and lent,
/// its gradient an array of the same values.
#[grad]
fn tetra(corners: [Point3<f64>; 4], weights: &[Vector2<f64>; 2]) -> f64 {
    let a = corners[1] - corners[0];
    let b = corners[2] - corners[0];
    let c = corners[3] - corners[0];
    let mut s = a.cross(&b).dot(&c) / 6.0;
    for w in weights {
        s += w.norm_squared() * corners[3].x;
    }
    s
}

#[test]
fn fixed_arrays_of_values() {
    let corners = [
        Point3::new(0.1, 0.0, 0.2),
        Point3::new(1.0, 0.3, -0.1),
        Point3::new(0.2, 1.1, 0.4),
        Point3::new(-0.3, 0.5, 1.2),
    ];
    let weights = [Vector2::new(0.4, -0.7), Vector2::new(1.3, 0.2)];
    let (value, dc, dw) = tetra_grad(corners, &weights);
    close(value, tetra(corners, &weights), 1e-14, "value");
    let x: Vec<f64> = corners
        .iter()
        .flat_map(|p| p.coords.iter().copied())
        .chain(weights.iter().flat_map(|w| w.iter().copied()))
        .collect();
    let f = |y: &[f64]| {
        let c: [Point3<f64>; 4] =
            core::array::from_fn(|i| Point3::new(y[3 * i], y[3 * i + 1], y[3 * i + 2]));
        let w: [Vector2<f64>; 2] =
            core::array::from_fn(|i| Vector2::new(y[12 + 2 * i], y[13 + 2 * i]));
        tetra(c, &w)
    };
    let want = differences(f, &x);
    let got: Vec<f64> = dc
        .iter()
        .flat_map(|p| p.coords.iter().copied())
        .chain(dw.iter().flat_map(|w| w.iter().copied()))
        .collect();
    for i in 0..x.len() {
        close(got[i], want[i], 1e-6, &format!("tetra d{i}"));
    }
}

/// `map` with a closure: a small network's layer, `tanh` of an affine map.
#[grad]
fn layer(w: SMatrix<f64, 2, 3>, b: Vector2<f64>, x: Vector3<f64>) -> f64 {
    let h = (w * x + b).map(|z| z.tanh());
    let k = 0.5;
    h.map(|u| u * u * k + u).sum()
}

#[test]
fn map_with_a_closure() {
    for x in points(11) {
        let w = SMatrix::<f64, 2, 3>::from_column_slice(&x[0..6]);
        let (b, v) = (Vector2::new(x[6], x[7]), Vector3::new(x[8], x[9], x[10]));
        let (value, dw, db, dv) = layer_grad(w, b, v);
        close(value, layer(w, b, v), 1e-14, "value");
        let f = |y: &[f64]| {
            layer(
                SMatrix::<f64, 2, 3>::from_column_slice(&y[0..6]),
                Vector2::new(y[6], y[7]),
                Vector3::new(y[8], y[9], y[10]),
            )
        };
        let want = differences(f, &x);
        let got: Vec<f64> = [flat(&dw), flat(&db), flat(&dv)].concat();
        for i in 0..11 {
            close(got[i], want[i], 1e-6, &format!("layer d{i}"));
        }
    }
}

// ---- an associated function beside a free one of the same name -----------

/// Its twin was `__autodiff_na_spin` like the free function's, and the
/// wrappers called the twin's functions by their bare names: inside the
/// `impl` they found the free function's, and `Spin::spin_grad` gave its
/// values silently (tests/regressions.rs has the other generated
/// functions).
#[grad]
fn spin(v: Vector2<f64>) -> f64 {
    v.dot(&v) * 3.0
}

struct Spin;

impl Spin {
    #[grad]
    fn spin(v: Vector2<f64>) -> f64 {
        v.dot(&v)
    }
}

#[test]
fn an_associated_functions_wrappers_call_its_own_twin() {
    for (a, b) in [(1.0, 2.0), (-0.5, 0.25)] {
        let v = Vector2::new(a, b);
        assert_eq!(
            Spin::spin_grad(v),
            (a * a + b * b, Vector2::new(2.0 * a, 2.0 * b))
        );
        assert_eq!(spin_grad(v).0, 3.0 * (a * a + b * b));
    }
}

/// `_hessian` and `_hvp` of a function written for `f64` with a nalgebra
/// parameter (trial 12 r1028: E0425 "cannot find type `T`" at the
/// function, the wrapper having copied its twin's generic types).
#[grad(hessian)]
fn twisted(q: Vector2<f64>, k: f64) -> f64 {
    (q.x * q.y).sin() * k + q.norm_squared() * k * k
}

#[test]
fn hessians_of_an_f64_function_with_nalgebra_values() {
    for x in [[0.7, -0.4, 1.5], [-1.1, 0.3, 0.6]] {
        let q = Vector2::new(x[0], x[1]);
        let (v, g, gk, h) = twisted_hessian(q, x[2]);
        assert_eq!(v, twisted(q, x[2]));
        let (_, g2, gk2) = twisted_grad(q, x[2]);
        assert_eq!((g, gk), (g2, gk2));
        for j in 0..3 {
            let col = |y: &[f64]| {
                let (_, g, gk) = twisted_grad(Vector2::new(y[0], y[1]), y[2]);
                [g.x, g.y, gk][j]
            };
            let want = differences(col, &x);
            for i in 0..3 {
                close(h[i][j], want[i], 1e-6, "hessian");
            }
        }
        let (_, _, _, hq, hk) = twisted_hvp(q, x[2], Vector2::new(1.0, -2.0), 0.5);
        for i in 0..3 {
            let want = h[i][0] - 2.0 * h[i][1] + 0.5 * h[i][2];
            let got = [hq.x, hq.y, hk][i];
            close(got, want, 1e-12, "hvp");
        }
    }
}

//! Local `Vec`s of rows, fixed arrays or tuples (`Vec<[f64; 2]>`,
//! `Vec<(f64, f64)>`), as simulations write them: a trajectory of states
//! pushed each step and read back, particles' positions and velocities
//! changed in place. Every gradient against central differences (h =
//! 1e-6, relative 1e-6, absolute 1e-8 near zero) at points spread over
//! the domain, and every value bit for bit against the function.

// Users write index loops by hand; so do these tests.
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

use approx::assert_relative_eq;
use autodiff::grad;

mod differences;
use differences::{assert_close, central};

/// Predator and prey, each step's state pushed as a row; the rows read
/// back by index, by a loop over references and by a chain.
#[grad]
fn lotka_volterra(a: f64, b: f64) -> f64 {
    let mut x = a;
    let mut y = b;
    let mut traj: Vec<[f64; 2]> = Vec::new();
    for _ in 0..8 {
        let nx = x + 0.1 * (x - x * y);
        let ny = y + 0.1 * (x * y - y);
        x = nx;
        y = ny;
        traj.push([x, y]);
    }
    let mut s = 0.0;
    for i in 0..traj.len() {
        s += traj[i][0] * traj[i][1];
    }
    for p in &traj {
        s += p[0] - p[1] * p[1];
    }
    s + traj.iter().map(|p| p[1].sin()).sum::<f64>() + traj[3][0]
}

#[test]
fn a_trajectory_of_state_arrays() {
    for (a, b) in [(0.5, 1.5), (1.2, 0.3), (2.0, 2.0)] {
        let (v, da, db) = lotka_volterra_grad(a, b);
        assert_eq!(v.to_bits(), lotka_volterra(a, b).to_bits());
        assert_close(&[da, db], &central(|p| lotka_volterra(p[0], p[1]), &[a, b]));
    }
}

/// The state a tuple of locals bound together, its history a `Vec` of
/// tuples without a written type; the tuples read by position.
#[grad]
fn history_of_pairs(a: f64, b: f64) -> f64 {
    let (mut x, mut y) = (a, b);
    let mut hist = Vec::new();
    for _ in 0..5 {
        let nx = x * y.cos();
        y -= 0.1 * x;
        x = nx;
        hist.push((x, y));
    }
    let mut s = 0.0;
    for h in hist.iter() {
        s += h.0 * h.1;
    }
    s + hist[1].0
}

#[test]
fn a_history_of_tuples() {
    for (a, b) in [(0.5, 1.5), (-0.7, 0.2), (1.9, -2.4)] {
        let (v, da, db) = history_of_pairs_grad(a, b);
        assert_eq!(v.to_bits(), history_of_pairs(a, b).to_bits());
        assert_close(
            &[da, db],
            &central(|p| history_of_pairs(p[0], p[1]), &[a, b]),
        );
    }
}

/// A state array bound whole and pushed, into a `Vec` whose type says it
/// holds rows; a row read back whole.
#[grad]
fn rows_pushed_whole(a: f64, b: f64) -> f64 {
    let mut traj: Vec<[f64; 2]> = Vec::new();
    let mut s = [a, b];
    for _ in 0..4 {
        s = [s[0] * s[1], s[1] - 0.1 * s[0]];
        traj.push(s);
    }
    let last = traj[traj.len() - 1];
    last[0] + traj[1][1] * last[1]
}

#[test]
fn rows_pushed_as_bound_arrays() {
    for (a, b) in [(0.5, 1.5), (1.1, -0.4), (-2.0, 0.9)] {
        let (v, da, db) = rows_pushed_whole_grad(a, b);
        assert_eq!(v.to_bits(), rows_pushed_whole(a, b).to_bits());
        assert_close(
            &[da, db],
            &central(|p| rows_pushed_whole(p[0], p[1]), &[a, b]),
        );
    }
}

/// Particles: positions copied from a parameter (`to_vec`), velocities
/// from `vec![[0.0; 2]; n]`, and a list of rows, all changed in place by
/// part each step.
#[grad]
fn particles(p0: &[[f64; 2]], k: f64, dt: f64) -> f64 {
    let mut pos: Vec<[f64; 2]> = p0.to_vec();
    let mut vel = vec![[0.0; 2]; p0.len()];
    let mut anchors = vec![[0.0, 0.0], [1.0, k]];
    for _ in 0..6 {
        for i in 0..pos.len() {
            let a = i % 2;
            vel[i][0] -= dt * k * (pos[i][0] - anchors[a][0]);
            vel[i][1] -= dt * k * (pos[i][1] - anchors[a][1]);
            pos[i][0] += dt * vel[i][0];
            pos[i][1] += dt * vel[i][1];
        }
        anchors[1][1] *= 0.9;
    }
    let mut e = 0.0;
    for (i, p) in pos.iter().enumerate() {
        e += p[0] * p[1] + vel[i][0] * vel[i][0] + vel[i][1] * vel[i][1];
    }
    e
}

#[test]
fn particles_moved_in_place_by_part() {
    let starts: [&[[f64; 2]]; 3] = [
        &[[1.0, 0.0], [0.0, 1.0]],
        &[[0.3, -0.8], [1.5, 0.2], [-1.0, 2.0]],
        &[[2.0, 2.0]],
    ];
    for (p0, k, dt) in [
        (starts[0], 1.0, 0.1),
        (starts[1], 2.5, 0.05),
        (starts[2], 0.4, 0.2),
    ] {
        let (v, dp0, dk, ddt) = particles_grad(p0, k, dt);
        assert_eq!(v.to_bits(), particles(p0, k, dt).to_bits());
        let n = p0.len();
        let mut x: Vec<f64> = p0.iter().flatten().copied().collect();
        x.extend([k, dt]);
        let f = |v: &[f64]| {
            let p: Vec<[f64; 2]> = v[..2 * n].chunks(2).map(|c| [c[0], c[1]]).collect();
            particles(&p, v[2 * n], v[2 * n + 1])
        };
        let mut got: Vec<f64> = dp0.iter().flatten().copied().collect();
        got.extend([dk, ddt]);
        assert_close(&got, &central(f, &x));
    }
}

/// A returned `Vec` declared without a type, given products of names a
/// tuple `let` binds to floats.
#[grad]
fn products(xs: &[f64], pairs: &[(usize, usize)]) -> Vec<f64> {
    let mut out = Vec::new();
    for &(i, j) in pairs {
        let (a, b) = (xs[i], xs[j]);
        out.push(a * b);
    }
    out
}

#[test]
fn pushes_of_names_a_tuple_let_binds() {
    let xs = [0.5, -1.5, 2.0];
    let pairs = [(0, 1), (2, 2), (1, 0)];
    // d(sum_k w_k out_k)/dxs with w = (1, 2, 3).
    let (out, dx) = products_vjp(&xs, &pairs, &[1.0, 2.0, 3.0]);
    assert_eq!(out, products(&xs, &pairs));
    assert_eq!(
        dx,
        vec![
            1.0 * -1.5 + 3.0 * -1.5,
            1.0 * 0.5 + 3.0 * 0.5,
            2.0 * 2.0 * 2.0
        ]
    );
}

/// Positions and velocities changed at a position a loop counts (`pos[i][d]`),
/// through elements lent by `iter_mut`, and read back by position in a
/// loop over references and at an index computed from a value.
#[grad]
fn springs_by_dimension(p0: &[[f64; 2]], v0: &[[f64; 2]], dt: f64) -> f64 {
    let mut pos: Vec<[f64; 2]> = p0.to_vec();
    let mut vel: Vec<[f64; 2]> = v0.to_vec();
    for _ in 0..3 {
        for i in 0..pos.len() {
            for d in 0..2 {
                vel[i][d] -= dt * pos[i][d];
                pos[i][d] += dt * vel[i][d];
            }
        }
        for p in pos.iter_mut() {
            for d in 0..2 {
                p[d] *= 1.0 - 0.1 * dt;
            }
        }
    }
    let mut e = 0.0;
    for p in &pos {
        for d in 0..2 {
            e += p[d] * p[d] * (d as f64 + 1.0);
        }
    }
    e + pos[1][(e > 100.0) as usize] * vel[0][0]
}

#[test]
fn rows_changed_at_positions_a_loop_counts() {
    type Case = ([[f64; 2]; 2], [[f64; 2]; 2], f64);
    let cases: [Case; 3] = [
        ([[1.0, 0.0], [0.0, 1.0]], [[0.5, 0.5], [0.1, 0.2]], 0.1),
        ([[-0.4, 2.2], [1.3, -0.7]], [[0.0, -1.0], [2.0, 0.3]], 0.25),
        ([[3.0, 1.0], [0.2, 0.2]], [[-0.5, 0.8], [0.0, 0.0]], 0.05),
    ];
    for (p0, v0, dt) in cases {
        let (y, dp, dv, ddt) = springs_by_dimension_grad(&p0, &v0, dt);
        assert_eq!(y.to_bits(), springs_by_dimension(&p0, &v0, dt).to_bits());
        let flat = |a: &[f64]| [[a[0], a[1]], [a[2], a[3]]];
        let f = |x: &[f64]| springs_by_dimension(&flat(&x[..4]), &flat(&x[4..8]), x[8]);
        let mut x: Vec<f64> = p0.iter().chain(&v0).flatten().copied().collect();
        x.push(dt);
        let mut got: Vec<f64> = dp.iter().chain(&dv).flatten().copied().collect();
        got.push(ddt);
        assert_close(&got, &central(f, &x));
    }
}

#[test]
#[should_panic(expected = "index out of bounds: the len is 2 but the index is 2")]
fn a_position_out_of_bounds_panics_as_the_array_does() {
    #[grad]
    fn past_the_end(a: f64, d: usize) -> f64 {
        let mut traj: Vec<[f64; 2]> = Vec::new();
        for k in 0..2 {
            traj.push([a, a * k as f64]);
        }
        traj[1][d]
    }
    let _ = past_the_end_grad(1.5, 2);
}

/// A state array pushed by name into a `Vec` without a written type: the
/// array's `let` shows the rows' length.
#[grad]
fn rows_pushed_untyped(a: f64, b: f64) -> f64 {
    let mut traj = Vec::new();
    let mut s = [a, b];
    for _ in 0..4 {
        s = [s[0] * s[1], s[1] - 0.1 * s[0]];
        traj.push(s);
    }
    traj[3][0] + traj[1][1] * traj[2][0]
}

#[test]
fn rows_pushed_by_name_without_a_written_type() {
    for (a, b) in [(0.5, 1.5), (1.1, -0.4), (-2.0, 0.9)] {
        let (v, da, db) = rows_pushed_untyped_grad(a, b);
        assert_eq!(v.to_bits(), rows_pushed_untyped(a, b).to_bits());
        assert_close(
            &[da, db],
            &central(|p| rows_pushed_untyped(p[0], p[1]), &[a, b]),
        );
    }
}

/// Rows taken apart by the loop's pattern: `for &(x, v) in &hist`, `for
/// (i, &[p, q]) in traj.iter().enumerate()`, `for &[p, _] in
/// traj.iter().skip(2)`.
#[grad]
fn energies_by_pattern(a: f64, b: f64) -> f64 {
    let (mut x, mut v) = (a, b);
    let mut hist: Vec<(f64, f64)> = Vec::new();
    let mut traj: Vec<[f64; 2]> = Vec::new();
    for _ in 0..5 {
        v -= 0.1 * x;
        x += 0.1 * v;
        hist.push((x, v));
        traj.push([x * v, x - v]);
    }
    let mut e = 0.0;
    for &(x, v) in &hist {
        e += x * x + v * v * 0.5;
    }
    for (i, &[p, q]) in traj.iter().enumerate() {
        e += p * q * i as f64;
    }
    for &[p, _] in traj.iter().skip(2) {
        e += p.sin();
    }
    e
}

#[test]
fn rows_taken_apart_by_the_loop_pattern() {
    for (a, b) in [(0.7, -0.3), (-1.4, 0.9), (2.2, 1.6)] {
        let (v, da, db) = energies_by_pattern_grad(a, b);
        assert_eq!(v.to_bits(), energies_by_pattern(a, b).to_bits());
        assert_close(
            &[da, db],
            &central(|p| energies_by_pattern(p[0], p[1]), &[a, b]),
        );
    }
}

/// A polyline's nodes pushed into `Vec::with_capacity(xs.len())`, its
/// length and the shoelace area read back by position.
#[grad]
fn polyline(xs: &[f64], ys: &[f64]) -> f64 {
    let mut nodes: Vec<[f64; 2]> = Vec::with_capacity(xs.len());
    for i in 0..xs.len() {
        nodes.push([xs[i], ys[i] * 0.5]);
    }
    let mut length = 0.0;
    for w in nodes.windows(2) {
        length += ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2)).sqrt();
    }
    let mut area = 0.0;
    for i in 0..nodes.len() {
        let j = (i + 1) % nodes.len();
        area += nodes[i][0] * nodes[j][1] - nodes[j][0] * nodes[i][1];
    }
    length + 0.5 * area
}

#[test]
fn nodes_pushed_into_a_vec_with_capacity() {
    for (xs, ys) in [
        (vec![0.0, 1.0, 1.5, 0.2], vec![0.0, 0.1, 2.0, 1.3]),
        (vec![-1.0, 2.0, 0.5], vec![0.7, -0.4, 1.1]),
    ] {
        let (v, dx, dy) = polyline_grad(&xs, &ys);
        assert_eq!(v.to_bits(), polyline(&xs, &ys).to_bits());
        let n = xs.len();
        let all: Vec<f64> = xs.iter().chain(&ys).copied().collect();
        let got: Vec<f64> = dx.iter().chain(&dy).copied().collect();
        assert_close(&got, &central(|p| polyline(&p[..n], &p[n..]), &all));
    }
}

/// Consecutive rows zipped with the same `Vec` shifted, in the three
/// spellings people use, and a row taken apart by a `let` pattern.
#[grad]
fn segments(xs: &[f64], ys: &[f64]) -> f64 {
    let mut pts: Vec<[f64; 2]> = Vec::new();
    for i in 0..xs.len() {
        pts.push([xs[i], ys[i]]);
    }
    let mut len = 0.0;
    for (a, b) in pts.iter().zip(pts.iter().skip(1)) {
        len += ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
    }
    let mut area = 0.0;
    for (a, b) in pts.iter().zip(&pts[1..]) {
        area += a[0] * b[1] - b[0] * a[1];
    }
    let mut skew = 0.0;
    for (&[a0, _], &[_, b1]) in pts.iter().zip(pts[2..].iter()) {
        skew += a0 * b1;
    }
    let [px, py] = pts[1];
    len + 0.5 * area + skew + px * py
}

#[derive(Clone, Copy)]
struct Node {
    x: f64,
    y: f64,
}

/// The same over a `Vec` of structs.
#[grad]
fn node_segments(xs: &[f64], ys: &[f64]) -> f64 {
    let mut ns = Vec::new();
    for i in 0..xs.len() {
        ns.push(Node { x: xs[i], y: ys[i] });
    }
    let mut len = 0.0;
    for (a, b) in ns.iter().zip(ns.iter().skip(1)) {
        len += ((b.x - a.x).powi(2) + (b.y - a.y).powi(2)).sqrt();
    }
    len
}

#[test]
fn consecutive_rows_zipped_with_the_vec_shifted() {
    let points = [
        (vec![0.0, 1.0, 2.5, 3.0], vec![0.0, 0.5, -1.0, 2.0]),
        (vec![-1.2, 0.3, 0.9], vec![2.0, 1.1, -0.4]),
        (
            vec![3.0, 1.0, -2.0, 0.5, 4.0],
            vec![0.1, 0.2, 0.3, -0.9, 1.5],
        ),
    ];
    for (xs, ys) in &points {
        let n = xs.len();
        let at: Vec<f64> = xs.iter().chain(ys).copied().collect();
        let (v, dx, dy) = segments_grad(xs, ys);
        assert_eq!(v.to_bits(), segments(xs, ys).to_bits());
        let want = central(|z| segments(&z[..n], &z[n..]), &at);
        assert_close(&[dx, dy].concat(), &want);
        let (v, dx, dy) = node_segments_grad(xs, ys);
        assert_eq!(v.to_bits(), node_segments(xs, ys).to_bits());
        let want = central(|z| node_segments(&z[..n], &z[n..]), &at);
        assert_close(&[dx, dy].concat(), &want);
    }
}

/// `let [a, b] = [..];` of an array written out: every element evaluated
/// before a name is bound, so `[y, x]` swaps.
#[grad]
fn listed_pattern(x: f64, y: f64) -> f64 {
    let [x, y] = [y, x * y];
    let [a, _, c] = [x * 2.0, y, y.sin()];
    a * c + x
}

#[test]
fn an_array_written_out_taken_apart_by_a_let() {
    for (x, y) in [(0.5, 1.5), (-1.0, 0.25), (2.0, -0.7)] {
        // x' = y, y' = x y: 2 y sin(x y) + y.
        let (v, dx, dy) = listed_pattern_grad(x, y);
        let f = 2.0 * y * (x * y).sin() + y;
        assert_eq!(v.to_bits(), listed_pattern(x, y).to_bits());
        approx::assert_relative_eq!(v, f, max_relative = 1e-15);
        approx::assert_relative_eq!(dx, 2.0 * y * y * (x * y).cos(), max_relative = 1e-14);
        approx::assert_relative_eq!(
            dy,
            2.0 * (x * y).sin() + 2.0 * x * y * (x * y).cos() + 1.0,
            max_relative = 1e-14
        );
    }
}

/// A row read in a `for &row in rows` loop copied into a typed local
/// array and changed (trial 6 r137): refused before as an array whose
/// type the `let` did not state.
#[grad]
fn scaled_rows(rows: &[[f64; 2]], k: f64) -> f64 {
    let mut s = 0.0;
    for &row in rows {
        let mut r: [f64; 2] = row;
        r[0] *= k;
        s += r[0] * r[1];
    }
    s
}

#[test]
fn a_loops_row_copied_into_a_typed_array() {
    let rows = [[1.0, 2.0], [3.0, 4.0], [-0.5, 1.5]];
    for k in [0.5, -2.0] {
        let (v, drows, dk) = scaled_rows_grad(&rows, k);
        assert_eq!(v, scaled_rows(&rows, k));
        let plain: f64 = rows.iter().map(|r| k * r[0] * r[1]).sum();
        assert_relative_eq!(v, plain, max_relative = 1e-15);
        assert_relative_eq!(dk, plain / k, max_relative = 1e-15);
        for (d, r) in drows.iter().zip(&rows) {
            assert_eq!(d[0], k * r[1]);
            assert_eq!(d[1], k * r[0]);
        }
    }
}

/// Constant data given as rows of floats, `pts: &[[f64; 2]]`, walked the
/// ways users walk it (trial 12 r1064: `for [px, py] in pts` was refused
/// as "this iterator is not one of those", where an active `pts` worked).
#[grad(wrt(w), jvp)]
fn fit_rows(w: &[f64], pts: &[[f64; 2]]) -> f64 {
    let mut s = 0.0;
    for [px, py] in pts {
        let r = w[0] * px + w[1] - py;
        s += r * r;
    }
    for &[px, py] in pts.iter() {
        s += w[0] * px * py;
    }
    for p in pts {
        s += (w[1] * p[0]).sin() * p[1];
    }
    for (i, p) in pts.iter().enumerate() {
        s += w[0] * p[1] * i as f64;
    }
    s += pts
        .iter()
        .map(|p| (w[0] * p[0] - p[1]).powi(2))
        .sum::<f64>();
    s / pts.len() as f64
}

#[test]
fn constant_rows_walked_as_written() {
    let pts = [[0.0, 1.0], [1.0, 2.5], [2.0, 2.9]];
    for w in [[0.8, 1.1], [-0.3, 0.4]] {
        let (v, g) = fit_rows_grad(&w, &pts);
        assert_eq!(v, fit_rows(&w, &pts));
        let n = pts.len() as f64;
        let mut want = [0.0; 2];
        for (i, [x, y]) in pts.iter().enumerate() {
            let r = w[0] * x + w[1] - y;
            want[0] += 2.0 * r * x + x * y + y * i as f64 + 2.0 * (w[0] * x - y) * x;
            want[1] += 2.0 * r + (w[1] * x).cos() * x * y;
        }
        for k in 0..2 {
            assert!((g[k] - want[k] / n).abs() < 1e-12, "{g:?} {want:?}");
        }
        let (vj, d) = fit_rows_jvp(&w, &pts, &[1.0, 2.0]);
        assert_eq!(vj, v);
        assert!((d - (g[0] + 2.0 * g[1])).abs() < 1e-12);
    }
}

/// Rows of a differentiated `rows: &[Vec<f64>]` lent to `#[grad]` callees,
/// `sumsq(&rows[0])`, `sumsq(&rows[i])`, `for row in rows { sumsq(row) }`
/// and a callee returning a `Vec` (trial 12 r1085: refused, "follows
/// `&rows[0]` only as a call's argument", which it was).
#[grad(jvp)]
fn row_sumsq(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>()
}

#[grad(jvp)]
fn row_twice(v: &[f64]) -> Vec<f64> {
    v.iter().map(|x| 2.0 * x).collect()
}

#[grad(jvp)]
fn rows_lent(rows: &[Vec<f64>], k: f64) -> f64 {
    let mut s = row_sumsq(&rows[0]) * k;
    for i in 0..rows.len() {
        s += row_sumsq(&rows[i]);
    }
    for row in rows {
        s += row_sumsq(row) * k;
    }
    let t = row_twice(&rows[1]);
    s + t[0] * t[1]
}

#[test]
fn rows_lent_to_grad_callees() {
    for (rows, k) in [
        (vec![vec![1.0, 2.0], vec![0.5, -1.0]], 2.0),
        (vec![vec![-0.3, 0.7], vec![1.5, 0.2]], -0.5),
    ] {
        let (v, g, gk) = rows_lent_grad(&rows, k);
        assert_eq!(v, rows_lent(&rows, k));
        // s = |r0|² (2k + 1) + |r1|² (1 + k) + 4 r1[0] r1[1]
        let (r0, r1) = (&rows[0], &rows[1]);
        let want = [
            [2.0 * r0[0] * (2.0 * k + 1.0), 2.0 * r0[1] * (2.0 * k + 1.0)],
            [
                2.0 * r1[0] * (1.0 + k) + 4.0 * r1[1],
                2.0 * r1[1] * (1.0 + k) + 4.0 * r1[0],
            ],
        ];
        for i in 0..2 {
            for j in 0..2 {
                assert_relative_eq!(g[i][j], want[i][j], max_relative = 1e-14);
            }
        }
        let sq = |r: &Vec<f64>| r[0] * r[0] + r[1] * r[1];
        assert_relative_eq!(gk, 2.0 * sq(r0) + sq(r1), max_relative = 1e-14);
        let (vj, d) = rows_lent_jvp(&rows, k, &[vec![1.0, 0.0], vec![0.0, 1.0]], 0.5);
        assert_eq!(vj, v);
        assert_relative_eq!(d, g[0][0] + g[1][1] + 0.5 * gk, max_relative = 1e-14);
    }
}

//! Vector outputs: `<name>_vjp(args.., seed)` gives the vector-Jacobian
//! product without building the Jacobian; `<name>_jacobian(args..)` gives
//! the Jacobian, a row per output and a column per active input.

#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

use approx::assert_relative_eq;
use autodiff::grad;

/// Case study 4's shape: two outputs of two inputs.
#[grad]
fn pair(x: f64, y: f64) -> (f64, f64) {
    (x * y, x + y.sin())
}

#[test]
fn vjp_of_a_pair_against_its_closed_form() {
    let (x, y) = (1.5, 0.7);
    for (u, v) in [(1.0, 0.0), (0.0, 1.0), (0.3, -2.0)] {
        let (value, dx, dy) = pair_vjp(x, y, (u, v));
        assert_eq!(value, pair(x, y));
        // uᵀJ with J = [[y, x], [1, cos y]].
        assert_relative_eq!(dx, u * y + v, max_relative = 1e-15);
        assert_relative_eq!(dy, u * x + v * y.cos(), max_relative = 1e-15);
    }
    let (value, j) = pair_jacobian(x, y);
    assert_eq!(value, pair(x, y));
    assert_eq!(j, [[y, x], [1.0, y.cos()]]);
}

/// An array output from an array input: a softmax-like map.
#[grad]
fn normalise(xs: &[f64], temperature: f64) -> Vec<f64> {
    let mut out = vec![0.0; xs.len()];
    let mut total = 0.0;
    for i in 0..xs.len() {
        out[i] = (xs[i] / temperature).exp();
        total += out[i];
    }
    for i in 0..xs.len() {
        out[i] /= total;
    }
    out
}

/// A fixed-size output.
#[grad]
fn polar(r: f64, theta: f64) -> [f64; 2] {
    [r * theta.cos(), r * theta.sin()]
}

#[test]
fn jacobians_against_finite_differences() {
    let xs = [0.5, -1.0, 2.0];
    let t = 1.3;
    let (value, j) = normalise_jacobian(&xs, t);
    assert_eq!(value, normalise(&xs, t));
    assert_eq!(j.len(), 3);
    let h = 1e-6;
    for col in 0..4 {
        let bump = |d: f64| {
            let mut p = xs.to_vec();
            let mut tt = t;
            if col < 3 {
                p[col] += d
            } else {
                tt += d
            }
            normalise(&p, tt)
        };
        let (hi, lo) = (bump(h), bump(-h));
        for row in 0..3 {
            let fd = (hi[row] - lo[row]) / (2.0 * h);
            assert_relative_eq!(j[row][col], fd, epsilon = 1e-8, max_relative = 1e-6);
        }
    }
    let (value, j) = polar_jacobian(2.0, 0.4);
    assert_eq!(value, polar(2.0, 0.4));
    assert_relative_eq!(j[0][0], 0.4f64.cos(), max_relative = 1e-15);
    assert_relative_eq!(j[0][1], -2.0 * 0.4f64.sin(), max_relative = 1e-15);
    assert_relative_eq!(j[1][0], 0.4f64.sin(), max_relative = 1e-15);
    assert_relative_eq!(j[1][1], 2.0 * 0.4f64.cos(), max_relative = 1e-15);
    let (_, dr, dtheta) = polar_vjp(2.0, 0.4, [1.0, 1.0]);
    assert_relative_eq!(dr, 0.4f64.cos() + 0.4f64.sin(), max_relative = 1e-15);
    assert_relative_eq!(
        dtheta,
        2.0 * (0.4f64.cos() - 0.4f64.sin()),
        max_relative = 1e-15
    );
}

/// Names the Jacobian's own code could have used: `k`, `value`, `rows`,
/// `row`. With no loop recording values, `_jacobian` runs the forward
/// sweep once and the reverse sweep once per output, in the same body as
/// these names.
#[grad]
fn named_like_locals(k: f64, value: f64) -> [f64; 2] {
    let rows = k * value;
    let row = rows.sin();
    [row, rows + k]
}

#[test]
fn a_jacobian_in_one_forward_sweep_keeps_user_names() {
    let (k, v) = (0.7, -1.3);
    let (value, j) = named_like_locals_jacobian(k, v);
    assert_eq!(value, named_like_locals(k, v));
    let c = (k * v).cos();
    assert_eq!(j, [[c * v, c * k], [v + 1.0, k]]);
    // The same rows as the vector-Jacobian products.
    for (i, seed) in [[1.0, 0.0], [0.0, 1.0]].into_iter().enumerate() {
        let (_, dk, dv) = named_like_locals_vjp(k, v, seed);
        assert_eq!(j[i], [dk, dv]);
    }
}

/// Sizes written as literals give a fixed-size Jacobian, `[[T; n]; m]`,
/// with the columns of each parameter in order: here 3 for `a`, 1 for `w`.
#[grad]
fn weighted(a: &[f64; 3], w: f64) -> [f64; 2] {
    [w * a[0] * a[1], (a[2] * w).exp() + a[0]]
}

/// More outputs than the passes written out one by one: a loop over the
/// outputs fills the same fixed-size rows.
#[grad]
fn spread(x: f64, y: f64) -> [f64; 10] {
    let mut out = [0.0; 10];
    for i in 0..10 {
        let k = i as f64;
        out[i] = (x * k).sin() + y * k * k;
    }
    out
}

/// A loop that records values: `_jacobian` calls `_vjp` per output, into
/// fixed-size rows too.
#[grad]
fn powers(x: &[f64; 2], n: usize) -> [f64; 3] {
    let mut p = 1.0;
    for _ in 0..n {
        p = (p * x[0]).sin() + x[1];
    }
    [p, p * x[0], x[1]]
}

/// A generic function: the same fixed-size rows, in `T`.
#[grad]
fn scaled_pair<T: autodiff::Float>(x: T, y: T) -> [T; 2] {
    [x * y, x - y]
}

/// Larger than 4,096 entries: `Vec<Vec<T>>`, not a matrix on the stack.
#[grad]
fn wide(a: &[f64; 100]) -> [f64; 41] {
    let mut out = [0.0; 41];
    for i in 0..41 {
        out[i] = a[i] * a[i + 1];
    }
    out
}

/// Rows of `_jacobian` against `_vjp` with each unit seed.
fn rows_from_vjp<const M: usize, const N: usize>(
    vjp: impl Fn([f64; M]) -> [f64; N],
) -> [[f64; N]; M] {
    std::array::from_fn(|k| {
        let mut seed = [0.0; M];
        seed[k] = 1.0;
        vjp(seed)
    })
}

/// `[a.., w]` as one row.
fn concat<const N: usize>(a: [f64; N], w: f64) -> Vec<f64> {
    a.iter().copied().chain([w]).collect()
}

#[test]
fn literal_sizes_give_a_fixed_size_jacobian() {
    let a = [0.3, -1.2, 0.8];
    let w = 1.7;
    let (value, j): ([f64; 2], [[f64; 4]; 2]) = weighted_jacobian(&a, w);
    assert_eq!(value, weighted(&a, w));
    let e = (a[2] * w).exp();
    // Exact partials: row 0 = (w a1, w a0, 0, a0 a1), row 1 = (1, 0, w e, a2 e).
    assert_eq!(j[0], [w * a[1], w * a[0], 0.0, a[0] * a[1]]);
    assert_relative_eq!(
        j[1][..],
        [1.0, 0.0, w * e, a[2] * e][..],
        max_relative = 1e-15
    );
    let want = rows_from_vjp(|s| {
        let (_, da, dw) = weighted_vjp(&a, w, s);
        concat(da, dw).try_into().unwrap()
    });
    assert_eq!(j, want, "each row is the vjp with that output's unit seed");

    let (value, j): ([f64; 10], [[f64; 2]; 10]) = spread_jacobian(0.4, -0.9);
    assert_eq!(value, spread(0.4, -0.9));
    for (i, row) in j.iter().enumerate() {
        let k = i as f64;
        assert_relative_eq!(row[0], k * (0.4 * k).cos(), max_relative = 1e-15);
        assert_eq!(row[1], k * k);
    }

    let x = [0.7, 0.2];
    let (value, j): ([f64; 3], [[f64; 2]; 3]) = powers_jacobian(&x, 4);
    assert_eq!(value, powers(&x, 4));
    let want = rows_from_vjp(|s| powers_vjp(&x, 4, s).1);
    assert_eq!(j, want);
    assert_eq!(j[2], [0.0, 1.0]);

    let (value, j): ([f32; 2], [[f32; 2]; 2]) = scaled_pair_jacobian(1.5f32, -2.0);
    assert_eq!(value, [-3.0, 3.5]);
    assert_eq!(j, [[-2.0, 1.5], [1.0, -1.0]]);

    let a: [f64; 100] = std::array::from_fn(|i| (i as f64).sin());
    let (_, j): ([f64; 41], Vec<Vec<f64>>) = wide_jacobian(&a);
    assert_eq!(j.len(), 41);
    assert_eq!(j[5].len(), 100);
    assert_eq!(j[5][6], a[5]);
}

/// A tuple output chosen by branches: a guard clause returning early, an
/// `else if` chain and a `match` at the end, as users write them.
#[grad]
fn clamp_pair(x: f64, y: f64) -> (f64, f64) {
    if x > 2.0 {
        return (x, y * y);
    }
    let z = x * y;
    if z < 0.0 {
        (z, y)
    } else if z > 1.0 {
        (y, z * z)
    } else {
        match z > 0.5 {
            true => (z.exp(), 1.0),
            false => {
                let w = z.sin();
                (w, w * x)
            }
        }
    }
}

/// Tuples bound from an `if`, a `match` and a block, with `mut` and `_`.
#[grad]
fn ordered_product(x: f64, y: f64) -> f64 {
    let (p, q) = clamp_pair(x, y);
    let (lo, mut hi) = if p > q { (q, p) } else { (p, q) };
    hi *= 1.5;
    let (s, _) = match lo < 0.0 {
        true => (lo * lo, x),
        false => (lo.sqrt(), y),
    };
    let (a, b) = {
        let t = hi + s;
        (t, t * y)
    };
    a * b.sin() + s
}

#[test]
fn tuples_from_branches_against_finite_differences() {
    // Points spread over every branch of both functions, none at a tie.
    let points = [
        (3.0, 1.0),
        (1.3, -0.5),
        (1.0, 1.5),
        (0.9, 0.7),
        (0.5, 0.5),
        (-0.4, -2.0),
    ];
    let h = 1e-6;
    for (x, y) in points {
        let (v, dx, dy) = ordered_product_grad(x, y);
        assert_eq!(v.to_bits(), ordered_product(x, y).to_bits());
        let fd_x = (ordered_product(x + h, y) - ordered_product(x - h, y)) / (2.0 * h);
        let fd_y = (ordered_product(x, y + h) - ordered_product(x, y - h)) / (2.0 * h);
        assert_relative_eq!(dx, fd_x, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(dy, fd_y, max_relative = 1e-6, epsilon = 1e-8);
        let (value, rows) = clamp_pair_jacobian(x, y);
        assert_eq!(value, clamp_pair(x, y));
        for (i, row) in rows.iter().enumerate() {
            let out = |x: f64, y: f64| {
                let (a, b) = clamp_pair(x, y);
                [a, b][i]
            };
            let fd = [
                (out(x + h, y) - out(x - h, y)) / (2.0 * h),
                (out(x, y + h) - out(x, y - h)) / (2.0 * h),
            ];
            assert_relative_eq!(row[0], fd[0], max_relative = 1e-6, epsilon = 1e-8);
            assert_relative_eq!(row[1], fd[1], max_relative = 1e-6, epsilon = 1e-8);
        }
    }
}

/// A tuple output read from a slice in a loop that records: its Jacobian
/// has a row per element of the tuple (it called `.len()` on the tuple).
#[grad]
fn product_and_first(xs: &[f64]) -> (f64, f64) {
    let mut s = 1.0;
    for i in 0..xs.len() {
        s *= xs[i].sin();
    }
    (s, xs[0])
}

#[test]
fn jacobian_of_a_tuple_output_over_a_slice() {
    let xs = [0.5, 1.0, 2.0];
    let (value, rows) = product_and_first_jacobian(&xs);
    assert_eq!(value, product_and_first(&xs));
    assert_eq!(rows.len(), 2);
    let p: f64 = xs.iter().map(|x| x.sin()).product();
    for i in 0..3 {
        assert_relative_eq!(
            rows[0][i],
            p / xs[i].sin() * xs[i].cos(),
            max_relative = 1e-14
        );
    }
    assert_eq!(rows[1], vec![1.0, 0.0, 0.0]);
}

/// Typed tuple patterns, `let (a, mut b): (f64, f64) = ..`, from a branch,
/// a literal and a call.
#[grad]
fn typed_pairs(x: f64, y: f64) -> f64 {
    let (a, mut b): (f64, f64) = if x > 0.0 { (x, 1.0) } else { (2.0 * x, y) };
    b *= y;
    let (c, _): (f64, f64) = (a * b, 0.5);
    let (s, t): (f64, f64) = clamp_pair(c, y);
    s + t
}

#[test]
fn typed_tuple_patterns() {
    let h = 1e-6;
    for (x, y) in [(0.31, 0.7), (-0.4, 1.3), (0.9, -0.2)] {
        let (v, dx, dy) = typed_pairs_grad(x, y);
        assert_eq!(v, typed_pairs(x, y));
        let fx = (typed_pairs(x + h, y) - typed_pairs(x - h, y)) / (2.0 * h);
        let fy = (typed_pairs(x, y + h) - typed_pairs(x, y - h)) / (2.0 * h);
        assert_relative_eq!(dx, fx, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(dy, fy, max_relative = 1e-6, epsilon = 1e-8);
    }
}

// A vector output with a differentiated struct among the active
// parameters: `_vjp` gives the struct's gradient as a struct; there is no
// `_jacobian` (a struct's gradient has no columns to flatten).
#[derive(Clone, Copy, Debug, PartialEq, autodiff::Differentiable)]
struct Pose {
    x: f64,
    y: f64,
}

impl Pose {
    #[grad(wrt(self))]
    fn pair(&self) -> (f64, f64) {
        (self.x * self.y, self.x + self.y)
    }
}

#[grad(wrt(p, k))]
fn scaled_pose(p: &Pose, k: f64) -> [f64; 2] {
    [k * p.x, k * p.y * p.y]
}

#[test]
fn vector_outputs_of_struct_parameters() {
    let p = Pose { x: 2.0, y: 3.0 };
    let (v, d) = p.pair_vjp((1.0, 1.0));
    assert_eq!(v, (6.0, 5.0));
    assert_eq!(d, Pose { x: 4.0, y: 3.0 });
    let (v, d, dk) = scaled_pose_vjp(&p, 0.5, [1.0, 2.0]);
    assert_eq!(v, [1.0, 4.5]);
    assert_eq!(
        d,
        Pose {
            x: 0.5,
            y: 2.0 * 0.5 * 2.0 * 3.0
        }
    );
    assert_eq!(dk, 2.0 + 2.0 * 9.0);
}

#[grad]
fn squares_doubled(x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    for i in 0..x.len() {
        y[i] = 2.0 * x[i] * x[i];
    }
    y
}

/// Functions returning an array that end with a `#[grad]` call's result:
/// the call itself, its result named (with the type or without), a
/// method's on a field of `self`. (Refused: "needs a function returning
/// an array to end with a float array .. or its name", and the named
/// form it suggested was refused too; with a method, `out.len()` was
/// taken for the struct's, E0599 inside the expansion.)
#[grad]
fn twice_ending_in_call(x: &[f64]) -> Vec<f64> {
    let h = squares_doubled(x);
    squares_doubled(&h)
}

#[grad]
#[allow(clippy::let_and_return)] // the named form, as users write it
fn twice_named(x: &[f64]) -> Vec<f64> {
    let h = squares_doubled(x);
    let out = squares_doubled(&h);
    out
}

#[grad]
#[allow(clippy::let_and_return)] // the named form, as users write it
fn twice_named_typed(x: &[f64]) -> Vec<f64> {
    let h = squares_doubled(x);
    let out: Vec<f64> = squares_doubled(&h);
    out
}

#[derive(Clone, autodiff::Differentiable)]
struct Scale {
    w: Vec<f64>,
}

impl Scale {
    #[grad(wrt(self, x))]
    fn forward(&self, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; x.len()];
        for i in 0..x.len() {
            y[i] = self.w[i] * x[i].tanh();
        }
        y
    }
}

#[derive(Clone, autodiff::Differentiable)]
struct TwoScales {
    a: Scale,
    b: Scale,
}

impl TwoScales {
    #[grad(wrt(self, x))]
    fn run(&self, x: &[f64]) -> Vec<f64> {
        let h = self.a.forward(x);
        self.b.forward(&h)
    }
}

#[test]
fn functions_returning_an_array_that_end_with_a_call() {
    let x = [0.5, -1.25, 2.0];
    let seed = [1.0, -0.5, 0.25];
    for vjp in [
        twice_ending_in_call_vjp,
        twice_named_vjp,
        twice_named_typed_vjp,
    ] {
        let (y, dx) = vjp(&x, &seed);
        for i in 0..3 {
            // 2 (2 x²)² = 8 x⁴, its derivative 32 x³.
            assert_relative_eq!(y[i], 8.0 * x[i].powi(4), max_relative = 1e-14);
            assert_relative_eq!(dx[i], seed[i] * 32.0 * x[i].powi(3), max_relative = 1e-14);
        }
    }
    let net = TwoScales {
        a: Scale {
            w: vec![1.5, -0.5, 2.0],
        },
        b: Scale {
            w: vec![0.75, 1.25, -1.0],
        },
    };
    let (y, dnet, dx) = net.run_vjp(&x, &seed);
    assert_eq!(y, net.run(&x));
    let f = |net: &TwoScales, x: &[f64]| -> f64 {
        (0..3)
            .map(|i| seed[i] * net.b.w[i] * (net.a.w[i] * x[i].tanh()).tanh())
            .sum()
    };
    let h = 1e-6;
    for i in 0..3 {
        let (mut up, mut down) = (x, x);
        up[i] += h;
        down[i] -= h;
        let c = (f(&net, &up) - f(&net, &down)) / (2.0 * h);
        assert_relative_eq!(dx[i], c, max_relative = 1e-6);
        let (mut up, mut down) = (net.clone(), net.clone());
        up.a.w[i] += h;
        down.a.w[i] -= h;
        let c = (f(&up, &x) - f(&down, &x)) / (2.0 * h);
        assert_relative_eq!(dnet.a.w[i], c, max_relative = 1e-6);
        let (mut up, mut down) = (net.clone(), net.clone());
        up.b.w[i] += h;
        down.b.w[i] -= h;
        let c = (f(&up, &x) - f(&down, &x)) / (2.0 * h);
        assert_relative_eq!(dnet.b.w[i], c, max_relative = 1e-6);
    }
}

#[grad(jvp)]
fn mid_and_gap(a: f64, b: f64) -> (f64, f64) {
    ((a + b) * 0.5, (a - b) * (a - b))
}

/// A vector output made from a tuple-returning helper's parts in a loop
/// (trial 7 r209): `_jacobian` nests a copy of `_vjp`, and both declared
/// the trait answering the parts' (`.0`, `.1`) field kinds, which rustc
/// found ambiguous (E0034) inside the expansion.
#[grad(jvp)]
#[allow(clippy::useless_vec)]
fn mixed(x0: f64, x1: f64) -> Vec<f64> {
    let e = vec![x0, x1, x0 * x1];
    let mut out = Vec::new();
    for k in 0..e.len() {
        let (mid, gap) = mid_and_gap(e[k], x0);
        out.push(mid + 0.1 * gap);
    }
    out
}

#[grad]
fn parts_summed(x0: f64, x1: f64) -> [f64; 2] {
    let mut s = 0.0;
    for k in 0..3 {
        let r = mid_and_gap(x1 * k as f64, x0);
        s += r.0 * r.1;
    }
    [s, x0]
}

#[test]
fn vector_outputs_of_a_tuple_helpers_parts() {
    // d/dx0 and d/dx1 of (e_k + x0) / 2 + 0.1 (e_k - x0)^2, e = (x0, x1, x0 x1).
    let rows = |x0: f64, x1: f64| {
        [
            [1.0, 0.0],
            [0.5 - 0.2 * (x1 - x0), 0.5 + 0.2 * (x1 - x0)],
            [
                0.5 * (x1 + 1.0) + 0.2 * (x0 * x1 - x0) * (x1 - 1.0),
                0.5 * x0 + 0.2 * (x0 * x1 - x0) * x0,
            ],
        ]
    };
    for (x0, x1) in [(0.5, 2.0), (-1.5, 0.25), (3.0, -2.0)] {
        let want = rows(x0, x1);
        let (value, jac) = mixed_jacobian(x0, x1);
        assert_eq!(value, mixed(x0, x1));
        let (_, vjp0, vjp1) = mixed_vjp(x0, x1, &[1.0, -2.0, 0.5]);
        for i in 0..3 {
            for j in 0..2 {
                assert_relative_eq!(jac[i][j], want[i][j], max_relative = 1e-12, epsilon = 1e-12);
            }
        }
        let dot = |j: usize| want[0][j] - 2.0 * want[1][j] + 0.5 * want[2][j];
        assert_relative_eq!(vjp0, dot(0), max_relative = 1e-12, epsilon = 1e-12);
        assert_relative_eq!(vjp1, dot(1), max_relative = 1e-12, epsilon = 1e-12);
        let (_, tangent) = mixed_jvp(x0, x1, 1.0, 0.0);
        for i in 0..3 {
            assert_relative_eq!(
                tangent[i],
                want[i][0],
                max_relative = 1e-12,
                epsilon = 1e-12
            );
        }

        // s = sum_k (k x1 + x0) / 2 (k x1 - x0)^2.
        let (s, jac) = parts_summed_jacobian(x0, x1);
        assert_eq!(s, parts_summed(x0, x1));
        let (mut ds0, mut ds1) = (0.0, 0.0);
        for k in 0..3 {
            let (m, d) = ((k as f64 * x1 + x0) * 0.5, k as f64 * x1 - x0);
            ds0 += 0.5 * d * d - 2.0 * m * d;
            ds1 += k as f64 * (0.5 * d * d + 2.0 * m * d);
        }
        assert_relative_eq!(jac[0][0], ds0, max_relative = 1e-12, epsilon = 1e-12);
        assert_relative_eq!(jac[0][1], ds1, max_relative = 1e-12, epsilon = 1e-12);
        assert_eq!(jac[1], [1.0, 0.0]);
    }
}

//! Loops over float arrays and the iterator reductions Rust users write,
//! differentiated as the index loops they are.

#![deny(warnings)]

use approx::assert_relative_eq;
use autodiff::grad;

#[grad]
fn loops_over_elements(xs: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    for x in xs {
        s += *x * w;
    }
    for &x in xs.iter() {
        s += x.sin();
    }
    for (i, x) in xs.iter().enumerate() {
        s += x * i as f64;
    }
    s
}

#[test]
fn for_over_slices() {
    let xs = [0.5, -1.0, 2.0];
    let (v, dxs, dw) = loops_over_elements_grad(&xs, 3.0);
    assert_eq!(v, loops_over_elements(&xs, 3.0));
    let expected: Vec<f64> = xs
        .iter()
        .enumerate()
        .map(|(i, x)| 3.0 + x.cos() + i as f64)
        .collect();
    assert_eq!(dxs, expected);
    assert_eq!(dw, xs.iter().sum::<f64>());
}

// `&Vec<T>` is a parameter form #[grad] accepts, on purpose here.
#[grad]
#[allow(clippy::ptr_arg)]
fn reductions(xs: &[f64], ys: &Vec<f64>) -> f64 {
    let total: f64 = xs.iter().sum();
    let squares: f64 = xs.iter().map(|v| v * v).sum();
    let inner: f64 = xs.iter().zip(ys).map(|(a, b)| a * b).sum();
    let weighted = xs.iter().fold(0.0, |acc, v| acc * 0.5 + v);
    let largest = ys.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    total + squares + inner + weighted + largest
}

#[test]
fn sums_maps_zips_and_folds() {
    let xs = [0.5, -1.0, 2.0];
    let ys = vec![1.5, 3.0, -2.0];
    #[allow(clippy::ptr_arg)]
    fn check(xs: &[f64], ys: &Vec<f64>) {
        let (v, dx, dy) = reductions_grad(xs, ys);
        assert_relative_eq!(v, reductions(xs, ys), max_relative = 1e-15);
        // weighted = Σ vₖ 0.5^(n−1−k).
        let n = xs.len();
        for k in 0..n {
            let expected = 1.0 + 2.0 * xs[k] + ys[k] + 0.5f64.powi((n - 1 - k) as i32);
            assert_relative_eq!(dx[k], expected, max_relative = 1e-15);
        }
        let argmax = (0..n).fold(0, |m, k| if ys[k] > ys[m] { k } else { m });
        for k in 0..n {
            let expected = xs[k] + if k == argmax { 1.0 } else { 0.0 };
            assert_relative_eq!(dy[k], expected, max_relative = 1e-15);
        }
    }
    check(&xs, &ys);
    check(&[1.0, 2.0], &vec![-1.0, -0.5]);
}

/// Elements changed in place through `iter_mut()` and `&mut xs`, with
/// `enumerate`, `rev` and `skip`, and a method called on the element.
#[grad]
fn in_place(x: &[f64], k: f64) -> f64 {
    let mut v = vec![0.0; x.len()];
    for (i, e) in v.iter_mut().enumerate() {
        *e = x[i] * k;
    }
    for e in &mut v {
        *e = e.sin() * k;
    }
    for e in v.iter_mut().rev().skip(1) {
        *e += 1.0;
    }
    let mut u = x.to_vec();
    for (ui, vi) in u.iter_mut().zip(v.iter()) {
        *ui *= *vi;
    }
    v.iter().sum::<f64>() + u.iter().sum::<f64>()
}

#[test]
fn elements_changed_through_iter_mut() {
    for (x, k) in [(vec![1.0, 2.0, 0.3], 0.5), (vec![-0.7, 1.9], 1.3)] {
        let (y, dx, dk) = in_place_grad(&x, k);
        assert_eq!(y.to_bits(), in_place(&x, k).to_bits());
        let h = 1e-6;
        for i in 0..x.len() {
            let (mut p, mut m) = (x.clone(), x.clone());
            p[i] += h;
            m[i] -= h;
            let fd = (in_place(&p, k) - in_place(&m, k)) / (2.0 * h);
            assert_relative_eq!(dx[i], fd, max_relative = 1e-6, epsilon = 1e-8);
        }
        let fd = (in_place(&x, k + h) - in_place(&x, k - h)) / (2.0 * h);
        assert_relative_eq!(dk, fd, max_relative = 1e-6);
    }
}

/// Horner's rule as users write it: `fold` from an untyped `0.0` whose
/// accumulator calls a method (it failed inside the expansion: the loop
/// left the accumulator's float type to be inferred after `acc.mul_add`).
#[grad]
fn horner(coefs: &[f64], x: f64) -> f64 {
    coefs.iter().rev().fold(0.0, |acc, &c| acc.mul_add(x, c))
}

#[grad]
fn folded_sines(xs: &[f32]) -> f32 {
    xs.iter().fold(0.0, |acc, &c| acc.sin() + c)
}

#[test]
fn fold_from_an_untyped_literal_calls_methods_on_its_accumulator() {
    // 1 + 2x + 3x² at x = 2: 17; d/dx = 2 + 6x; d/dcoefs = [1, x, x²].
    let (y, dc, dx) = horner_grad(&[1.0, 2.0, 3.0], 2.0);
    assert_eq!((y, dc, dx), (17.0, vec![1.0, 2.0, 4.0], 14.0));
    let (y, d) = folded_sines_grad(&[1.0, 2.0]);
    assert_eq!(y, folded_sines(&[1.0, 2.0]));
    // sin(sin(0) + 1) + 2: d/dx0 = cos(1), d/dx1 = 1.
    assert_eq!(d, vec![1.0_f32.cos(), 1.0]);
}

#[derive(Clone, Copy)]
enum Step {
    Double,
    Sine,
    Skip,
}

/// Elements of slices of other types bound by reference, as Rust binds
/// them: `*k`, `match *st`, `(i, j)` patterns giving references, and
/// `&k`, `copied()` giving values (`*k` failed inside the expansion).
#[grad]
fn by_reference(w: &[f64], cols: &[usize], plan: &[Step], edges: &[(usize, usize)]) -> f64 {
    let mut s = 0.0;
    for j in cols.iter() {
        s += w[*j] * w[*j];
    }
    for (i, k) in cols.iter().enumerate() {
        if *k == 2 {
            s += w[i];
        }
    }
    let t: f64 = cols.iter().map(|k| w[*k] * 2.0).sum();
    let u: f64 = cols.iter().copied().map(|k| w[k]).sum();
    for &k in cols {
        s += w[k].sin();
    }
    for (i, j) in edges {
        s += (w[*i] - w[*j]).powi(2);
    }
    for &(i, j) in edges {
        s += w[i] * w[j];
    }
    for st in plan {
        match *st {
            Step::Double => s *= 2.0,
            Step::Sine => s = s.sin(),
            Step::Skip => {}
        }
    }
    s + t + u
}

#[test]
fn elements_of_other_slices_are_references() {
    let w = [1.0, 2.0, 3.0];
    let (cols, plan, edges) = ([2, 0], [Step::Double, Step::Skip], [(0, 1), (1, 2)]);
    let (y, d) = by_reference_grad(&w, &cols, &plan, &edges);
    assert_eq!(y, by_reference(&w, &cols, &plan, &edges));
    // s = 2 (w2² + w0² + w0 + sin w2 + sin w0 + (w0-w1)² + (w1-w2)²
    //        + w0 w1 + w1 w2), t = 2 (w2 + w0), u = w2 + w0.
    let want = [
        2.0 * (2.0 * w[0] + 1.0 + w[0].cos() + 2.0 * (w[0] - w[1]) + w[1]) + 3.0,
        2.0 * (-2.0 * (w[0] - w[1]) + 2.0 * (w[1] - w[2]) + w[0] + w[2]),
        2.0 * (2.0 * w[2] + w[2].cos() - 2.0 * (w[1] - w[2]) + w[1]) + 3.0,
    ];
    for (g, want) in d.iter().zip(want) {
        assert_relative_eq!(*g, want, max_relative = 1e-15);
    }
    // Sine after Double: central differences.
    let plan = [Step::Double, Step::Sine];
    let (_, d) = by_reference_grad(&w, &cols, &plan, &edges);
    for i in 0..3 {
        let h = 1e-6;
        let (mut p, mut m) = (w, w);
        p[i] += h;
        m[i] -= h;
        let fd = (by_reference(&p, &cols, &plan, &edges) - by_reference(&m, &cols, &plan, &edges))
            / (2.0 * h);
        assert_relative_eq!(d[i], fd, max_relative = 1e-6, epsilon = 1e-8);
    }
}

/// `*chain.max_by(..).unwrap()`, `map(f64::exp)` and `let q = *p;` of a
/// fixed-size row: each the value it reads (the first two were refused
/// with a message about closures, the third with one whose rewrite was
/// refused too).
#[grad]
fn derefs_and_function_paths(z: &[f64], pts: &[[f64; 2]]) -> f64 {
    let m = *z.iter().max_by(|a, b| a.total_cmp(b)).unwrap();
    let e: f64 = z.iter().copied().map(f64::exp).sum();
    let mut s = 0.0;
    for p in pts {
        let q = *p;
        s += q[0] * q[1];
    }
    2.0 * m + e + s
}

#[test]
fn derefs_and_function_paths_read_values() {
    let (z, pts) = ([1.0, 3.0, 2.0], [[1.0, 2.0], [3.0, 4.0]]);
    let (y, dz, dp) = derefs_and_function_paths_grad(&z, &pts);
    assert_eq!(y, derefs_and_function_paths(&z, &pts));
    assert_eq!(dz, vec![1.0_f64.exp(), 2.0 + 3.0_f64.exp(), 2.0_f64.exp()]);
    assert_eq!(dp, vec![[2.0, 1.0], [4.0, 3.0]]);
}

/// `fold` with a tuple accumulator, bound by `let (a, b) = ..`: one pass
/// for the moments, and a branching closure for the range.
#[grad]
fn variance(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let (s, s2) = xs
        .iter()
        .fold((0.0, 0.0), |(s, s2), &x| (s + x, s2 + x * x));
    s2 / n - (s / n).powi(2)
}

#[grad]
fn scaled_range(xs: &[f64], w: f64) -> f64 {
    let (lo, hi) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            let y = x * w;
            if y < lo {
                (y, hi.max(y))
            } else {
                (lo, hi.max(y))
            }
        });
    hi - lo
}

#[test]
fn folds_with_tuple_accumulators() {
    let xs = [1.0, 2.0, 4.0];
    let (v, d) = variance_grad(&xs);
    assert_eq!(v, variance(&xs));
    // d var / dx_i = 2 (x_i - mean) / n.
    for i in 0..3 {
        assert_relative_eq!(d[i], 2.0 * (xs[i] - 7.0 / 3.0) / 3.0, max_relative = 1e-14);
    }
    let (r, dx, dw) = scaled_range_grad(&[1.0, -2.0, 4.0], 1.5);
    assert_eq!((r, dx, dw), (9.0, vec![0.0, -1.5, 1.5], 6.0));
}

// Closures destructuring a pair of indices, `|&(i, j)|`, over
// `&[(usize, usize)]` (a spring network's edges), in `map`, `fold` and
// after `copied()`: each name a value the reverse sweep reads.
#[grad]
fn spring_energy(x: &[f64], edges: &[(usize, usize)]) -> f64 {
    edges
        .iter()
        .map(|&(i, j)| (x[i] - x[j]).powi(2))
        .sum::<f64>()
}

#[grad]
fn spring_products(x: &[f64], edges: &[(usize, usize)]) -> f64 {
    edges.iter().fold(0.0, |acc, &(i, j)| acc + x[i] * x[j])
}

#[grad]
fn spring_copied(x: &[f64], edges: &[(usize, usize)]) -> f64 {
    edges
        .iter()
        .copied()
        .map(|(i, _j)| x[i] * x[i])
        .sum::<f64>()
}

#[test]
fn closures_destructuring_index_pairs() {
    let x = [0.5, 1.0, 3.0, -2.0];
    let edges = [(0, 1), (1, 2), (3, 0), (2, 3)];
    let (v, d) = spring_energy_grad(&x, &edges);
    assert_eq!(v, spring_energy(&x, &edges));
    let mut want = [0.0; 4];
    for &(i, j) in &edges {
        want[i] += 2.0 * (x[i] - x[j]);
        want[j] -= 2.0 * (x[i] - x[j]);
    }
    assert_eq!(d, want);
    let (v, d) = spring_products_grad(&x, &edges);
    assert_eq!(v, spring_products(&x, &edges));
    let mut want = [0.0; 4];
    for &(i, j) in &edges {
        want[i] += x[j];
        want[j] += x[i];
    }
    assert_eq!(d, want);
    let (v, d) = spring_copied_grad(&x, &edges);
    assert_eq!(v, spring_copied(&x, &edges));
    let mut want = [0.0; 4];
    for &(i, _) in &edges {
        want[i] += 2.0 * x[i];
    }
    assert_eq!(d, want);
}

/// A filter whose closure names its parameters like the loop's pattern
/// (`|(i, _)| mask[*i]` over `for (i, x)`), and one reading the element
/// through both references (`**x`) beside another condition: the
/// closure's names are its own, the loop's the body's.
#[grad]
fn filter_naming_the_loops_names(xs: &[f64], ws: &[f64], mask: &[bool], lo: f64) -> f64 {
    let mut s = 0.0;
    for (i, x) in xs.iter().enumerate().filter(|(i, _)| mask[*i]) {
        s += x * ws[i] * i as f64;
    }
    let i = 2;
    for (i, x) in xs.iter().enumerate().filter(|(j, x)| **x > lo && *j != i) {
        if i == 3 {
            continue;
        }
        s += x * x * (i + 1) as f64;
    }
    s
}

#[test]
fn a_filters_names_are_its_own() {
    let xs = [0.5, 1.0, 2.0, 3.0, 4.0];
    let ws = [1.0, 2.0, 3.0, 4.0, 5.0];
    let mask = [true, false, true, false, true];
    let (v, dx, dw, dlo) = filter_naming_the_loops_names_grad(&xs, &ws, &mask, 0.8);
    // First loop: i = 0, 2, 4: 0 + 2·3·2 + 4·5·4 = 92. Second: x > 0.8,
    // i ≠ 2, i ≠ 3: i = 1 (1·1·2) and i = 4 (16·5): 82.
    assert_eq!(v, 92.0 + 82.0);
    assert_eq!(dx, vec![0.0, 4.0, 6.0, 0.0, 20.0 + 40.0]);
    assert_eq!(dw, vec![0.0, 0.0, 4.0, 0.0, 16.0]);
    assert_eq!(dlo, 0.0);
}

/// Chains over sub-slices with literal bounds (`&xs[1..]`,
/// `xs[..3].iter().enumerate()`, `xs[1..=2].iter().map(..)`).
#[grad]
fn over_sub_slices(x: f64, xs: &[f64]) -> f64 {
    let mut acc = 0.0;
    for t in &xs[1..] {
        acc += t * x;
    }
    for (i, t) in xs[..3].iter().enumerate() {
        acc += t * i as f64;
    }
    acc + xs[1..].iter().product::<f64>() + xs[1..=2].iter().map(|v| v * v).sum::<f64>()
}

#[test]
fn chains_over_sub_slices() {
    let (v, dx, dxs) = over_sub_slices_grad(0.7, &[0.5, 2.0, -1.5, 3.0]);
    assert_relative_eq!(v, 3.5 * 0.7 - 1.0 - 9.0 + 6.25, max_relative = 1e-14);
    assert_eq!(dx, 3.5);
    let expected = [0.0, 0.7 + 1.0 - 4.5 + 4.0, 0.7 + 2.0 + 6.0 - 3.0, 0.7 - 3.0];
    for (d, e) in dxs.iter().zip(expected) {
        assert_relative_eq!(*d, e, max_relative = 1e-14);
    }
}

mod names_bound_again_in_the_body {
    use super::*;

    pub struct Data {
        pub ys: Vec<f64>,
        pub rows: Vec<Vec<f64>>,
    }

    /// A loop's element read in place (a constant struct's field), its
    /// name bound again in the body: every later use read the element
    /// (difftest seed 777, program 77: value and gradient wrong).
    #[grad]
    #[allow(clippy::while_let_on_iterator)]
    fn rebound(x: f64, data: &Data) -> f64 {
        let mut s = 0.0;
        for &y in data.ys.iter() {
            let y = y * 0.25 + x;
            s += y * y;
        }
        let mut it = data.ys.iter();
        while let Some(&y) = it.next() {
            if y > 0.5 {
                let y = y + x;
                s += y * y;
            } else {
                s += y * x;
            }
            let g = |y: f64| y * x;
            s += g(y) + y;
        }
        s
    }

    /// A window's and a row's names bound again (refused, and an expansion
    /// that did not compile, before).
    #[grad]
    fn rebound_views(x: f64, xs: &[f64], data: &Data) -> f64 {
        let mut s = 0.0;
        for w in xs.windows(2) {
            let w = w[0] * w[1] + x;
            s += w * w;
        }
        for row in data.rows.iter() {
            let row = row[0] + x;
            s += row * row;
        }
        s
    }

    #[test]
    fn a_loop_variable_bound_again_is_the_new_value() {
        let data = Data {
            ys: vec![1.19, 0.3, -2.0],
            rows: vec![vec![1.0, 2.0], vec![-0.5, 3.0]],
        };
        let xs = [1.0, 0.5, 3.0];
        for x in [0.7, -1.3, 2.0] {
            let (v, d) = rebound_grad(x, &data);
            assert_eq!(v, rebound(x, &data));
            let mut want = 0.0;
            for &y in &data.ys {
                want += 2.0 * (0.25 * y + x);
                want += if y > 0.5 { 2.0 * (y + x) } else { y };
                want += y;
            }
            assert_relative_eq!(d, want, max_relative = 1e-12);
            let (v, d, _) = rebound_views_grad(x, &xs, &data);
            assert_eq!(v, rebound_views(x, &xs, &data));
            let want = 2.0 * (0.5 + x) + 2.0 * (1.5 + x) + 2.0 * (1.0 + x) + 2.0 * (-0.5 + x);
            assert_relative_eq!(d, want, max_relative = 1e-12);
        }
    }
}

// Sub-slices with computed bounds as a chain's or a loop's source (trial
// 8 r307a): named first, their bounds computed once.
#[grad]
fn row_dot(w: &[f64], x: &[f64], c: usize) -> f64 {
    let d = x.len();
    w[c * d..(c + 1) * d]
        .iter()
        .zip(x)
        .map(|(a, b)| a * b)
        .sum::<f64>()
}

#[grad]
fn computed_windows(w: &[f64], c: usize) -> f64 {
    let d = 2;
    let mut s = 0.0;
    for &v in &w[c * d..(c + 1) * d] {
        s += v * v;
    }
    for v in w[c..c + d].iter() {
        s += v.sin();
    }
    for k in 0..2 {
        s += w[k..=k + 1]
            .iter()
            .map(|v| v * (k as f64 + 1.0))
            .sum::<f64>();
        s += w[k + 1..].len() as f64;
    }
    s
}

#[test]
fn sub_slices_with_computed_bounds_as_sources() {
    let w = [1.0, 2.0, 3.0, 4.0, -0.5, 0.25];
    let x = [0.5, -1.5];
    for c in 0..3 {
        let (v, dw, dx) = row_dot_grad(&w, &x, c);
        assert_eq!(v, row_dot(&w, &x, c));
        let mut want_w = [0.0; 6];
        want_w[2 * c..2 * c + 2].copy_from_slice(&x);
        assert_eq!(dw, want_w.to_vec());
        assert_eq!(dx, w[2 * c..2 * c + 2].to_vec());
    }
    for c in 0..3 {
        let (v, dw) = computed_windows_grad(&w, c);
        assert_relative_eq!(v, computed_windows(&w, c), max_relative = 1e-15);
        let mut want = [0.0; 6];
        for i in 2 * c..2 * c + 2 {
            want[i] += 2.0 * w[i];
        }
        for i in c..c + 2 {
            want[i] += w[i].cos();
        }
        // k = 0 reads w[0..=1] once, k = 1 reads w[1..=2] twice.
        want[0] += 1.0;
        want[1] += 1.0 + 2.0;
        want[2] += 2.0;
        for (g, e) in dw.iter().zip(want) {
            assert_relative_eq!(*g, e, max_relative = 1e-15);
        }
    }
}

/// `reduce(..).unwrap()` over a chain of values (trial 11 C16, blamed on
/// `iter` before): by a path, `f64::max`, and by closures.
#[grad(jvp)]
fn reduced(xs: &[f64], k: f64) -> f64 {
    let m = xs.iter().copied().reduce(f64::max).unwrap();
    let lo = xs.iter().map(|&x| x * k).reduce(|a, b| a.min(b)).unwrap();
    let s = xs
        .iter()
        .cloned()
        .reduce(|acc, x| acc * 0.5 + x * x)
        .unwrap();
    m * k + lo + s
}

#[test]
fn reductions_by_reduce() {
    for (xs, k) in [([0.3, -1.2, 0.7], 2.0), ([1.5, 0.4, -0.9], 0.1)] {
        let (v, g, dk) = reduced_grad(&xs, k);
        assert_eq!(v, reduced(&xs, k));
        // The largest and the smallest element (k > 0), and ((x0 / 2 + x1²) / 2 + x2²).
        let arg = |better: fn(f64, f64) -> bool| {
            (0..3).fold(0, |b, i| if better(xs[i], xs[b]) { i } else { b })
        };
        let (imax, imin) = (arg(|a, b| a > b), arg(|a, b| a < b));
        let mut want = [0.0; 3];
        want[imax] += k;
        want[imin] += k;
        want[0] += 0.25;
        want[1] += xs[1];
        want[2] += 2.0 * xs[2];
        for i in 0..3 {
            assert_relative_eq!(g[i], want[i], max_relative = 1e-15);
        }
        assert_relative_eq!(dk, xs[imax] + xs[imin], max_relative = 1e-15);
        let (vj, d) = reduced_jvp(&xs, k, &[1.0, 2.0, 3.0], 0.5);
        assert_eq!(vj, v);
        assert_relative_eq!(
            d,
            g[0] + 2.0 * g[1] + 3.0 * g[2] + 0.5 * dk,
            max_relative = 1e-14
        );
    }
}

#[test]
#[should_panic(expected = "called `Option::unwrap()` on a `None` value")]
fn reduce_of_nothing_panics_as_unwrap_does() {
    let _ = reduced_grad(&[], 1.0);
}

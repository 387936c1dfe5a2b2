//! Iterator adapters over float arrays, as users write them: each chain is
//! the index loop it stands for, with the plain function's semantics on
//! short inputs (length 0 and 1) and chunks with a remainder.

#![allow(clippy::all)]

use autodiff::grad;

#[grad]
fn smoothness(xs: &[f64]) -> f64 {
    xs.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum::<f64>()
}

#[grad]
fn chunked(xs: &[f64]) -> f64 {
    // The last chunk is shorter when 3 does not divide the length.
    xs.chunks(3).map(|c| c[0] * c[c.len() - 1]).sum()
}

#[grad]
fn reversed_chunks(xs: &[f64]) -> f64 {
    xs.chunks(2)
        .rev()
        .skip(1)
        .map(|c| c[0] - c[c.len() - 1] * 2.0)
        .sum()
}

#[grad]
fn horner(coefs: &[f64], x: f64) -> f64 {
    coefs.iter().rev().fold(0.0, |acc, &c| acc * x + c)
}

#[grad]
fn zipped_product(xs: &[f64], ys: &[f64]) -> f64 {
    xs.iter().zip(ys).map(|(a, b)| 1.0 + a * b).product()
}

#[grad]
fn weighted_by_position(xs: &[f64]) -> f64 {
    xs.iter().enumerate().map(|(i, v)| v * i as f64).sum()
}

#[grad]
fn positive_part(xs: &[f64], k: f64) -> f64 {
    xs.iter().filter(|&&v| v > 0.0).map(|v| v * k).sum()
}

#[grad]
fn loops(xs: &[f64], ys: &[f64]) -> f64 {
    let mut s = 0.0;
    for (u, &v) in xs.iter().zip(ys) {
        s += u * v;
    }
    for (i, pair) in xs.chunks_exact(2).enumerate() {
        s += pair[0] * pair[1] * (i as f64 + 1.0);
    }
    for &v in xs.iter().rev().skip(1) {
        if v > 10.0 {
            break;
        }
        s = s * 0.5 + v.sin();
    }
    s
}

/// Central differences of `f` in every entry of `xs`.
fn fd(f: impl Fn(&[f64]) -> f64, xs: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..xs.len())
        .map(|k| {
            let (mut p, mut m) = (xs.to_vec(), xs.to_vec());
            p[k] += h;
            m[k] -= h;
            (f(&p) - f(&m)) / (2.0 * h)
        })
        .collect()
}

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 1e-6 * y.abs().max(1.0), "{a:?} vs {b:?}");
    }
}

#[test]
fn adapters_at_every_length() {
    let data = [0.5, -1.0, 2.0, 1.5, -0.3, 0.8, 1.1];
    for n in 0..=data.len() {
        let xs = &data[..n];
        let ys: Vec<f64> = xs.iter().map(|v| 0.3 - v).collect();
        let (v, g) = smoothness_grad(xs);
        assert_eq!(v, smoothness(xs));
        close(&g, &fd(smoothness, xs));
        let (v, g) = chunked_grad(xs);
        assert_eq!(v, chunked(xs));
        close(&g, &fd(chunked, xs));
        let (v, g) = reversed_chunks_grad(xs);
        assert_eq!(v, reversed_chunks(xs));
        close(&g, &fd(reversed_chunks, xs));
        let (v, g, gx) = horner_grad(xs, 0.7);
        assert_eq!(v, horner(xs, 0.7));
        close(&g, &fd(|c| horner(c, 0.7), xs));
        let h = 1e-6;
        close(
            &[gx],
            &[(horner(xs, 0.7 + h) - horner(xs, 0.7 - h)) / (2.0 * h)],
        );
        let (v, gx, gy) = zipped_product_grad(xs, &ys);
        assert_eq!(v, zipped_product(xs, &ys));
        close(&gx, &fd(|x| zipped_product(x, &ys), xs));
        close(&gy, &fd(|y| zipped_product(xs, y), &ys));
        let (v, g) = weighted_by_position_grad(xs);
        assert_eq!(v, weighted_by_position(xs));
        close(&g, &fd(weighted_by_position, xs));
        let (v, g, gk) = positive_part_grad(xs, 1.5);
        assert_eq!(v, positive_part(xs, 1.5));
        close(&g, &fd(|x| positive_part(x, 1.5), xs));
        assert_eq!(gk, xs.iter().filter(|v| **v > 0.0).sum::<f64>());
        let (v, gx, gy) = loops_grad(xs, &ys);
        assert_eq!(v, loops(xs, &ys));
        close(&gx, &fd(|x| loops(x, &ys), xs));
        close(&gy, &fd(|y| loops(xs, y), &ys));
    }
}

#[test]
fn horner_is_exact() {
    // 1 + 2x + 3x² at x = 2: 17, d/dx = 2 + 6x = 14, d/dc = (1, x, x²).
    assert_eq!(
        horner_grad(&[1.0, 2.0, 3.0], 2.0),
        (17.0, vec![1.0, 2.0, 4.0], 14.0)
    );
}

/// Const generics: an array of any length, its gradient of the same.
#[grad]
fn energy<const N: usize>(x: [f64; N]) -> f64 {
    let mut e = 0.0;
    for i in 0..N {
        e += 0.5 * x[i] * x[i];
    }
    e + x.iter().map(|v| v.sin()).sum::<f64>()
}

#[grad]
fn spread<const N: usize>(x: [f64; N], k: f64) -> [f64; N] {
    let mut out = [0.0; N];
    for i in 0..N {
        out[i] = x[i] * k;
    }
    out
}

#[test]
fn const_generic_lengths() {
    let (v, g) = energy_grad([1.0, -2.0, 0.5]);
    assert_eq!(v, energy([1.0, -2.0, 0.5]));
    for (gi, xi) in g.iter().zip([1.0f64, -2.0, 0.5]) {
        assert!((gi - (xi + xi.cos())).abs() < 1e-15);
    }
    let (v, g) = energy_grad([3.0]);
    assert_eq!(v, energy([3.0]));
    assert_eq!(g.len(), 1);
    let (v, j) = spread_jacobian([1.0, 2.0], 3.0);
    assert_eq!(v, [3.0, 6.0]);
    assert_eq!(j, vec![vec![3.0, 0.0, 1.0], vec![0.0, 3.0, 2.0]]);
}

/// Arrays collected from chains, copied with `to_vec`, and a vector
/// output built by `collect`.
#[grad]
fn collected(xs: &[f64], k: f64) -> f64 {
    let scaled: Vec<f64> = xs.iter().map(|v| v * k).collect();
    let copy = xs.to_vec();
    let pairs = scaled
        .iter()
        .zip(&copy)
        .map(|(a, b)| a * b)
        .collect::<Vec<f64>>();
    let mut s = 0.0;
    for i in 0..pairs.len() {
        s += pairs[i].tanh();
    }
    s
}

#[grad]
fn squares(xs: &[f64], k: f64) -> Vec<f64> {
    xs.iter().map(|v| v * v * k).collect()
}

#[test]
fn collected_arrays_and_outputs() {
    let xs = [0.5, -1.0, 2.0];
    let (v, dx, dk) = collected_grad(&xs, 0.7);
    assert_eq!(v, collected(&xs, 0.7));
    close(&dx, &fd(|x| collected(x, 0.7), &xs));
    let h = 1e-6;
    close(
        &[dk],
        &[(collected(&xs, 0.7 + h) - collected(&xs, 0.7 - h)) / (2.0 * h)],
    );
    let (v, j) = squares_jacobian(&xs, 2.0);
    assert_eq!(v, vec![0.5, 2.0, 8.0]);
    assert_eq!(j[1], vec![0.0, -4.0, 0.0, 1.0]);
}

/// Patterns in `for`: a row of a nested array read in place, an inner
/// loop over the row, and a slice of integer pairs destructured.
#[grad]
fn layer_and_edges(w: &[Vec<f64>], x: &[f64], edges: &[(usize, usize)]) -> f64 {
    let mut s = 0.0;
    for (i, row) in w.iter().enumerate() {
        let mut z = 0.1 * i as f64;
        for (j, &wij) in row.iter().enumerate() {
            z += wij * x[j];
        }
        s += z.tanh();
    }
    for (k, &(a, b)) in edges.iter().enumerate() {
        s += (x[a] - x[b]).powi(2) * (k as f64 + 1.0);
    }
    s
}

#[test]
fn rows_and_destructured_elements() {
    let w = vec![vec![0.5, -1.0], vec![2.0, 0.3], vec![-0.4, 0.9]];
    let x = [0.7, -0.2];
    let e = [(0usize, 1usize), (1, 0)];
    let (v, dw, dx) = layer_and_edges_grad(&w, &x, &e);
    assert_eq!(v, layer_and_edges(&w, &x, &e));
    let flat: Vec<f64> = w.iter().flatten().copied().collect();
    let unflat = |f: &[f64]| f.chunks(2).map(|c| c.to_vec()).collect::<Vec<_>>();
    let dw_flat: Vec<f64> = dw.iter().flatten().copied().collect();
    close(
        &dw_flat,
        &fd(|f| layer_and_edges(&unflat(f), &x, &e), &flat),
    );
    close(&dx, &fd(|y| layer_and_edges(&w, y, &e), &x));
}

/// `max_by` / `min_by` with a comparator: the adjoint goes to the element
/// picked; on a tie, `max_by` picks the last of the equal elements and
/// `min_by` the first, as `std` does.
#[grad]
fn spread_of(xs: &[f64], k: f64) -> f64 {
    let hi = xs
        .iter()
        .map(|v| v * k)
        .max_by(|a, b| a.total_cmp(b))
        .unwrap();
    let lo = xs
        .iter()
        .copied()
        .min_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap();
    hi - lo
}

#[test]
fn max_by_and_min_by_pick_the_element_std_picks() {
    let xs = [0.5, -1.0, 2.0, 1.5];
    let (v, dx, dk) = spread_of_grad(&xs, 1.5);
    assert_eq!(v, spread_of(&xs, 1.5));
    assert_eq!(dx, vec![0.0, -1.0, 1.5, 0.0]);
    assert_eq!(dk, 2.0);
    // Ties: the last maximum and the first minimum take the adjoint.
    let (_, dx, _) = spread_of_grad(&[2.0, -1.0, 2.0, -1.0], 1.0);
    assert_eq!(dx, vec![0.0, -1.0, 1.0, 0.0]);
    // An empty slice panics, as unwrap does.
    assert!(std::panic::catch_unwind(|| spread_of_grad(&[], 1.0)).is_err());
    assert!(std::panic::catch_unwind(|| spread_of(&[], 1.0)).is_err());
}

//! Loads in range loops read through a slice taken once before the loop
//! (`autodiff-macro/src/windows.rs`), which removes the bounds check of
//! every iteration. These tests check that the gradients are unchanged and
//! that the code panics where, and only where, the function does.

use approx::assert_relative_eq;
use autodiff::grad;

/// Σ_p softplus(−y_p · Σ_j w_j x_{p·d+j}): the index `p * d + j` is a base
/// that the loop recomputes and the window hoists.
#[grad(wrt(w))]
fn logistic(w: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    let d = w.len();
    let mut total = 0.0;
    for p in 0..ys.len() {
        let mut z = 0.0;
        for j in 0..d {
            z += w[j] * xs[p * d + j];
        }
        total += autodiff::softplus(-ys[p] * z);
    }
    total
}

/// Σ_j x_{k+j} · x_j for j < n: a window from a parameter, and one from 0,
/// over the same array.
#[grad(wrt(x))]
fn lagged(x: &[f64], k: usize, n: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..n {
        s += x[k + j] * x[j];
    }
    s
}

#[test]
fn an_offset_window_gives_the_same_gradient() {
    let (d, n) = (3, 4);
    let w = [0.2, -0.5, 0.9];
    let xs: Vec<f64> = (0..n * d).map(|k| (k as f64 * 0.7).sin()).collect();
    let ys = [1.0, -1.0, 1.0, -1.0];
    let (v, g) = logistic_grad(&w, &xs, &ys);
    assert_eq!(v, logistic(&w, &xs, &ys));
    // By hand: ∂/∂w_j = Σ_p σ(m_p) · (−y_p) · x_{p·d+j}, m_p = −y_p z_p.
    for (j, gj) in g.iter().enumerate() {
        let mut e = 0.0;
        for p in 0..n {
            let z: f64 = (0..d).map(|i| w[i] * xs[p * d + i]).sum();
            let m = -ys[p] * z;
            e += autodiff::sigmoid(m) * -ys[p] * xs[p * d + j];
        }
        assert_relative_eq!(*gj, e, max_relative = 1e-14);
    }
}

#[test]
fn a_lagged_window_gives_the_same_gradient() {
    let x = [0.5, -1.0, 2.0, 0.25, 3.0];
    let (v, g) = lagged_grad(&x, 2, 3);
    assert_eq!(v, 0.5 * 2.0 - 0.25 + 2.0 * 3.0);
    // ∂/∂x_i = x_{i+2} (i < 3) + x_{i−2} (2 ≤ i < 5).
    assert_eq!(g, vec![2.0, 0.25, 3.0 + 0.5, -1.0, 2.0]);
}

#[test]
fn an_empty_range_takes_no_element() {
    // The base is past the end, but no iteration runs: no panic, as in
    // the function.
    let x = [1.0, 2.0];
    assert_eq!(lagged(&x, 10, 0), 0.0);
    let (v, g) = lagged_grad(&x, 10, 0);
    assert_eq!((v, g), (0.0, vec![0.0, 0.0]));
}

#[test]
#[should_panic(expected = "out of range")]
fn a_window_past_the_end_panics_where_the_function_does() {
    // The function panics in its second iteration (x[1 + 2]); the
    // gradient panics before the loop, taking the window.
    let x = [1.0, 2.0, 3.0];
    assert!(std::panic::catch_unwind(|| lagged(&x, 1, 3)).is_err());
    let _ = lagged_grad(&x, 1, 3);
}

/// Σ_points Σ_j (x_{p·d+j} − μ_j)²: the reverse sweep never reads `x`
/// again (the square's pullback reads the difference, recorded), so its
/// loop over points does not bind `p`, and takes no window of `x`.
#[grad(wrt(mu))]
fn centered(mu: &[f64], x: &[f64]) -> f64 {
    let d = mu.len();
    let mut s = 0.0;
    for p in 0..x.len() / d {
        for j in 0..d {
            let c = x[p * d + j] - mu[j];
            s += c * c;
        }
    }
    s
}

#[test]
fn a_load_the_reverse_sweep_does_not_read_takes_no_window_there() {
    let x = [1.0, 2.0, 3.0, 5.0];
    let (v, g) = centered_grad(&[0.5, 1.0], &x);
    assert_eq!(v, 0.25 + 1.0 + 6.25 + 16.0);
    assert_eq!(g, vec![-2.0 * (0.5 + 2.5), -2.0 * (1.0 + 4.0)]);
}

/// GMM's packed lower triangle: `for j in i + 1..d`, a range that does not
/// start at 0, reading `q[l]` at a counter stepped by one and `x[j]` by
/// the index. Both read through windows as long as the range, in the
/// forward loop and (the counter's from its value after the loop) in the
/// reverse one, where the adjoints are added through the same windows.
#[grad(wrt(q, x))]
fn packed(q: &[f64], x: &[f64], d: usize) -> f64 {
    let mut l = 0;
    let mut s = 0.0;
    for i in 0..d {
        for j in i + 1..d {
            s += q[l] * x[j] * x[i];
            l += 1;
        }
    }
    s
}

#[test]
fn windows_from_a_range_start_and_at_a_counter_give_the_same_gradient() {
    for d in [0, 1, 2, 5, 9] {
        let q: Vec<f64> = (0..d * (d.max(1) - 1) / 2)
            .map(|k| (k as f64 * 0.41).sin())
            .collect();
        let x: Vec<f64> = (0..d).map(|k| (k as f64 * 0.77).cos()).collect();
        let (v, dq, dx) = packed_grad(&q, &x, d);
        assert_eq!(v, packed(&q, &x, d));
        let (mut eq, mut ex) = (vec![0.0; q.len()], vec![0.0; d]);
        let mut l = 0;
        for i in 0..d {
            for j in i + 1..d {
                eq[l] = x[j] * x[i];
                ex[j] += q[l] * x[i];
                ex[i] += q[l] * x[j];
                l += 1;
            }
        }
        assert_eq!(dq, eq);
        for (g, e) in dx.iter().zip(&ex) {
            assert_relative_eq!(*g, *e, max_relative = 1e-14);
        }
    }
}

#[test]
fn a_counter_past_the_end_panics_where_the_function_does() {
    // q holds 2 of the 3 entries d = 3 reads: the function panics at its
    // third read, and `_grad` panics too (taking the window before the
    // loop, as with every window: nothing happens in between).
    let (q, x) = ([1.0, 2.0], [1.0, 1.0, 1.0]);
    assert!(std::panic::catch_unwind(|| packed(&q, &x, 3)).is_err());
    assert!(std::panic::catch_unwind(|| packed_grad(&q, &x, 3)).is_err());
    // With d = 2, one read: both run.
    assert_eq!(packed_grad(&q, &x, 2).0, packed(&q, &x, 2));
}

/// A chunk or window iterated directly, `for &v in c` (trial 6 r161,
/// r161b): refused before at `xs.chunks(2)`.
#[grad]
fn chunk_sums(xs: &[f64], a: f64) -> f64 {
    let mut s = 0.0;
    for c in xs.chunks(2) {
        let mut m = 1.0;
        for &v in c {
            m *= v;
        }
        s += m * a;
    }
    for w in xs.windows(3) {
        for v in w {
            s += v * v;
        }
    }
    s
}

#[test]
fn chunks_and_windows_iterated_directly() {
    let xs = [1.0, 0.5, 3.0, 1.5, -2.0];
    let a = 2.0;
    let (v, dxs, da) = chunk_sums_grad(&xs, a);
    assert_eq!(v, chunk_sums(&xs, a));
    // Chunks (1, 0.5), (3, 1.5), (-2): products 0.5, 4.5, -2; windows of
    // three cover x0 once, x1 twice, x2..x2 three times, x3 twice, x4 once.
    let cover = [1.0, 2.0, 3.0, 2.0, 1.0];
    let squares: f64 = xs.iter().zip(cover).map(|(x, c)| c * x * x).sum();
    assert_relative_eq!(v, 3.0 * a + squares, max_relative = 1e-15);
    assert_relative_eq!(da, 3.0, max_relative = 1e-15);
    let want = [0.5 * a, 1.0 * a, 1.5 * a, 3.0 * a, a];
    for i in 0..5 {
        assert_relative_eq!(
            dxs[i],
            want[i] + 2.0 * cover[i] * xs[i],
            max_relative = 1e-15
        );
    }
}

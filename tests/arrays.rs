//! Arrays: parameters `&[T]`, `&Vec<T>`, `[T; N]`, `&[T; N]`, `&[Vec<T>]`
//! with gradients of their shape; local `vec![..]`, `[..; N]`,
//! `Vec::with_capacity` + `push`; reads and writes by computed index.

#![deny(warnings)]
// Index loops are how #[grad] code walks arrays (for now).
#![allow(clippy::needless_range_loop)]

use approx::assert_relative_eq;
use autodiff::grad;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-7 || (a - b).abs() <= 1e-6 * a.abs().max(b.abs())
}

/// Central differences of `f` at `x`, one component at a time.
fn gradient_fd(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let h = 1e-6 * x[i].abs().max(1.0);
            let mut p = x.to_vec();
            p[i] += h;
            let hi = f(&p);
            p[i] -= 2.0 * h;
            (hi - f(&p)) / (2.0 * h)
        })
        .collect()
}

// `&Vec<T>` is a parameter form #[grad] accepts, on purpose here.
#[grad]
#[allow(clippy::ptr_arg)]
fn dot_squared(x: &[f64], y: &Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * y[i];
    }
    s * s
}

#[test]
fn slices_and_vecs_get_vec_gradients() {
    let x = [1.0, 2.0, 3.0];
    let y = vec![0.5, -1.0, 2.0];
    let (v, dx, dy) = dot_squared_grad(&x, &y);
    assert_eq!(v, 20.25);
    assert_eq!(dx, vec![4.5, -9.0, 18.0]);
    assert_eq!(dy, vec![9.0, 18.0, 27.0]);
    let (v, dx, dy) = dot_squared_grad(&[], &vec![]);
    assert_eq!((v, dx, dy), (0.0, vec![], vec![]));
}

#[grad]
fn fixed_arrays(a: [f64; 3], b: &[f64; 3], w: f64) -> f64 {
    let mut z = [0.0; 3];
    for i in 0..3 {
        z[i] = a[i] * w;
        z[i] += b[i].sin();
    }
    z[0] * z[1] + z[2]
}

#[test]
fn fixed_size_arrays_get_fixed_size_gradients() {
    let (a, b, w) = ([0.1, 0.2, 0.3], [1.0, -0.5, 0.25], 2.0);
    let (v, da, db, dw): (f64, [f64; 3], [f64; 3], f64) = fixed_arrays_grad(a, &b, w);
    assert_eq!(v, fixed_arrays(a, &b, w));
    let z: Vec<f64> = (0..3).map(|i| a[i] * w + b[i].sin()).collect();
    assert_eq!(da, [z[1] * w, z[0] * w, w]);
    assert_eq!(db, [z[1] * b[0].cos(), z[0] * b[1].cos(), b[2].cos()]);
    assert_relative_eq!(dw, z[1] * a[0] + z[0] * a[1] + a[2], max_relative = 1e-15);
}

/// A matrix as rows, times a vector, through `tanh`, into a `Vec` built
/// with `push`.
#[grad]
#[allow(clippy::ptr_arg)]
fn rows_times_vector(m: &[Vec<f64>], v: &Vec<f64>) -> f64 {
    let mut o: Vec<f64> = Vec::with_capacity(m.len());
    for i in 0..m.len() {
        let mut acc = 0.0;
        for j in 0..v.len() {
            acc += m[i][j] * v[j];
        }
        o.push(acc.tanh());
    }
    let mut total = 0.0;
    for i in 0..o.len() {
        total += o[i] * o[i];
    }
    total
}

#[test]
fn nested_vectors_get_nested_gradients() {
    let m = vec![vec![0.1, 0.2], vec![0.3, -0.4], vec![1.0, 0.5]];
    let v = vec![0.7, -0.2];
    let (value, dm, dv) = rows_times_vector_grad(&m, &v);
    assert_eq!(value, rows_times_vector(&m, &v));
    let flat: Vec<f64> = m.iter().flatten().copied().collect();
    let fd_m = gradient_fd(
        |x| rows_times_vector(&x.chunks(2).map(<[f64]>::to_vec).collect::<Vec<_>>(), &v),
        &flat,
    );
    let got_m: Vec<f64> = dm.iter().flatten().copied().collect();
    for (a, b) in got_m.iter().zip(&fd_m) {
        assert!(close(*a, *b), "{got_m:?} vs {fd_m:?}");
    }
    let fd_v = gradient_fd(|x| rows_times_vector(&m, &x.to_vec()), &v);
    for (a, b) in dv.iter().zip(&fd_v) {
        assert!(close(*a, *b), "{dv:?} vs {fd_v:?}");
    }
}

/// Case study 5, a linear layer y = W x + b with a row-major flat W, and
/// the loss ½‖y‖², against the hand-written reverse rules
/// dW = ȳ xᵀ, dx = Wᵀ ȳ, db = ȳ.
#[grad]
fn linear_layer(w: &[f64], x: &[f64], b: &[f64]) -> f64 {
    let n = x.len();
    let mut loss = 0.0;
    for i in 0..b.len() {
        let mut y = b[i];
        for j in 0..n {
            y += w[i * n + j] * x[j];
        }
        loss += 0.5 * y * y;
    }
    loss
}

#[test]
fn linear_layer_matches_its_reverse_rules() {
    let (m, n) = (3, 4);
    let w: Vec<f64> = (0..m * n).map(|k| (k as f64 * 0.37).sin()).collect();
    let x: Vec<f64> = (0..n).map(|k| 0.5 - k as f64 * 0.3).collect();
    let b = vec![0.1, -0.2, 0.3];
    let y: Vec<f64> = (0..m)
        .map(|i| b[i] + (0..n).map(|j| w[i * n + j] * x[j]).sum::<f64>())
        .collect();
    let (loss, dw, dx, db) = linear_layer_grad(&w, &x, &b);
    assert_relative_eq!(
        loss,
        y.iter().map(|v| 0.5 * v * v).sum::<f64>(),
        max_relative = 1e-15
    );
    for i in 0..m {
        for j in 0..n {
            assert_relative_eq!(dw[i * n + j], y[i] * x[j], max_relative = 1e-14);
        }
    }
    for j in 0..n {
        let expected: f64 = (0..m).map(|i| w[i * n + j] * y[i]).sum();
        assert_relative_eq!(dx[j], expected, max_relative = 1e-13);
    }
    for (got, want) in db.iter().zip(&y) {
        assert_relative_eq!(got, want, max_relative = 1e-14);
    }
}

/// Case study 6, a ReLU layer: the adjoint passes where the input is
/// positive, and not at exactly 0 (relu'(0) = 0).
#[grad]
fn relu_layer(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += autodiff::relu(x[i]) * (i as f64 + 1.0);
    }
    s
}

#[test]
fn relu_layer_passes_positive_inputs_only() {
    let (v, dx) = relu_layer_grad(&[-1.0, 0.0, 2.0, 3.0]);
    assert_eq!(v, 2.0 * 3.0 + 3.0 * 4.0);
    assert_eq!(dx, vec![0.0, 0.0, 3.0, 4.0]);
}

/// Local arrays from lists of active values, filled with one, written over
/// after being read.
#[grad]
#[allow(clippy::useless_vec)]
fn local_arrays(x: f64, n: usize) -> f64 {
    let v = vec![x, x * x, 3.0];
    let f = vec![x; n];
    let mut z = [0.0, 0.0];
    z[0] = v[1];
    let a = z[0];
    z[0] = a * v[0];
    z[1] = f[n - 1] + f.len() as f64;
    z[0] + a + z[1]
}

#[test]
fn lists_fills_and_overwrites() {
    // z0 = x³, a = x², z1 = x + n: f = x³ + x² + x + n.
    let (v, d) = local_arrays_grad(2.0, 4);
    assert_eq!(v, local_arrays(2.0, 4));
    assert_eq!((v, d), (8.0 + 4.0 + 2.0 + 4.0, 12.0 + 4.0 + 1.0));
}

#[grad]
fn third(x: &[f64]) -> f64 {
    x[2] * 2.0
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn out_of_bounds_panics_like_the_function() {
    let _ = third_grad(&[1.0, 2.0]);
}

#[test]
fn arrays_against_finite_differences() {
    let x = [0.3, -1.2, 2.0, 0.7];
    let (_, dx) = relu_layer_grad(&x);
    for (a, b) in dx.iter().zip(gradient_fd(relu_layer, &x)) {
        assert!(close(*a, b));
    }
}

/// An array declared inside a loop lives one iteration: a fresh adjoint in
/// each reverse iteration, of the length it had.
#[grad]
fn per_sample_hidden(w: &[f64], xs: &[f64], width: usize) -> f64 {
    let mut total = 0.0;
    for p in 0..xs.len() {
        let mut h = vec![0.0; width];
        for j in 0..width {
            h[j] = (w[j] * xs[p]).tanh();
        }
        let mut fixed = [0.0; 2];
        fixed[0] = h[0] * h[width - 1];
        fixed[1] += fixed[0] * xs[p];
        total += fixed[1] + h[0];
    }
    total
}

#[test]
fn arrays_inside_loops() {
    let w = [0.3, -0.8, 1.1];
    let xs = [0.5, -1.5, 2.0, 0.25];
    let (v, dw, dxs) = per_sample_hidden_grad(&w, &xs, 3);
    assert_eq!(v, per_sample_hidden(&w, &xs, 3));
    for (a, b) in dw
        .iter()
        .zip(gradient_fd(|w| per_sample_hidden(w, &xs, 3), &w))
    {
        assert!(close(*a, b), "{dw:?}");
    }
    for (a, b) in dxs
        .iter()
        .zip(gradient_fd(|xs| per_sample_hidden(&w, xs, 3), &xs))
    {
        assert!(close(*a, b), "{dxs:?}");
    }
}

/// Reads of arrays the function never writes are computed again in the
/// reverse sweep instead of recorded, also in nested loops whose index
/// arithmetic uses the outer index.
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
    total / ys.len() as f64
}

#[test]
fn read_only_arrays_are_read_again_not_recorded() {
    let w = [0.3, -0.2, 0.5];
    let xs = [1.0, 2.0, -1.0, 0.5, -0.5, 2.0, -1.5, 1.0, 0.25];
    let ys = [1.0, -1.0, 1.0];
    autodiff::runtime::stack::reset_stats();
    let (v, dw) = logistic_grad(&w, &xs, &ys);
    // Per point: the softplus argument (the product −y·z with y inactive
    // reads only y); nothing per element.
    assert_eq!(autodiff::runtime::stack::stats().pushes, 3);
    assert_eq!(v, logistic(&w, &xs, &ys));
    for (a, b) in dw.iter().zip(gradient_fd(|w| logistic(w, &xs, &ys), &w)) {
        assert!(close(*a, b), "{dw:?}");
    }
}

/// A recurrence through an array: each pass reads `st[i]` before it
/// writes it, so the load takes last pass's value, which depends on `w`.
/// Activity analysis used to reset the array to constant at its
/// definition on every pass of its fixed point, and dropped the load's
/// derivative.
#[grad(wrt(w))]
fn array_recurrence(w: &[f64], x0: &[f64]) -> f64 {
    let n = x0.len();
    let mut st = vec![0.0; 2 * n];
    for i in 0..n {
        st[i] = x0[i];
        st[n + i] = 0.5 * x0[i];
    }
    for _ in 0..3 {
        for i in 0..n {
            let f = (st[i] * w[i]).tanh();
            st[n + i] = st[n + i] * f + w[i];
            st[i] = st[n + i].tanh();
        }
    }
    let mut s = 0.0;
    for i in 0..n {
        s += st[i] * st[n + i];
    }
    s
}

#[test]
fn a_recurrence_through_an_array_against_finite_differences() {
    let x0 = [0.5, -0.2, 0.8];
    for w in [[0.3, -0.7, 0.9], [-1.1, 0.2, 0.05]] {
        let (v, dw) = array_recurrence_grad(&w, &x0);
        assert_eq!(v, array_recurrence(&w, &x0));
        for (a, b) in dw.iter().zip(gradient_fd(|w| array_recurrence(w, &x0), &w)) {
            assert!(close(*a, b), "{dw:?}");
        }
    }
}

/// A `Vec` declared with a length and grown by `push`, in a branch arm
/// (the rest of the body after a guard clause) and in a loop body: its
/// adjoint takes the length the pushes gave it, not the declared one
/// (`_grad` panicked, index out of bounds, where the function did not;
/// difftest seed 2024, program 287).
#[grad]
fn grown_after_guard(xs: &[f64], x: f64, n: usize) -> f64 {
    for i in 0..xs.len() {
        if xs[i] >= 0.9 {
            return x;
        }
    }
    let mut r: Vec<f64> = vec![0.5; n];
    for k in 0..2 {
        r.push(x * x + k as f64);
    }
    r[0] * r[n + 1] + r[n]
}

#[allow(clippy::vec_init_then_push)] // pushed as users push
#[grad]
fn grown_in_loop_body(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        let mut r: Vec<f64> = vec![x; n];
        r.push(x * k as f64);
        let mut e: Vec<f64> = Vec::new();
        e.push(x);
        s += r[n] * e[0] + r.len() as f64;
    }
    s
}

#[test]
fn a_vec_declared_with_a_length_then_grown() {
    let xs = [0.2, -0.4, 0.5];
    for n in [0, 1, 3] {
        for x in [0.7, -1.3, 2.0] {
            let (v, _, d) = grown_after_guard_grad(&xs, x, n);
            assert_eq!(v, grown_after_guard(&xs, x, n));
            // r[0] is 0.5 where n > 0, else x²: 0.5 (x² + 1) + x², or (x² + 1) x² + x².
            let want = if n > 0 {
                2.0 * x * 0.5 + 2.0 * x
            } else {
                4.0 * x * x * x + 2.0 * x + 2.0 * x
            };
            assert!(close(d, want), "n = {n}, x = {x}: {d} against {want}");
            let (v, d) = grown_in_loop_body_grad(x, n);
            assert_eq!(v, grown_in_loop_body(x, n));
            // Σ_k (k x) x = 3 x².
            assert!(close(d, 6.0 * x), "{d}");
        }
    }
    assert_eq!(grown_after_guard_grad(&[1.0], 0.3, 2).0, 0.3);
}

/// `vec![x; n]` grown by a push: the reverse of the fill sums the adjoints
/// of the `n` elements it filled, not of the pushed one. It summed them
/// all, so `d/dx` took the pushed element's adjoint too: a WRONG GRADIENT
/// (3 where it is 0 here), at top level since the push support; found
/// while fixing the panic of the arm's and loop body's copy above.
#[grad]
fn filled_then_pushed(x: f64, y: f64, n: usize) -> f64 {
    let mut r: Vec<f64> = vec![x; n];
    r.push(y * 2.0);
    r[n] * 3.0 + r.len() as f64
}

#[test]
fn a_filled_vec_grown_by_push_gives_its_fill_only_its_own_adjoints() {
    for n in [0, 1, 4] {
        let (v, dx, dy) = filled_then_pushed_grad(0.7, 0.4, n);
        assert_eq!(v, filled_then_pushed(0.7, 0.4, n));
        assert_eq!((dx, dy), (0.0, 6.0), "n = {n}");
    }
}

/// `Vec::from([..])` of a list written out, as `[..].to_vec()` is (trial 4
/// r65: code inside the expansion that did not compile, `Vec::from` taken
/// for a `#[grad]` function).
#[autodiff::grad]
fn from_a_list(a: f64, b: f64) -> f64 {
    let mut v = Vec::from([a, b * a]);
    v[0] += b;
    let w = Vec::from([0.5; 2]);
    v[0] * v[1] + w[1] * a
}

#[test]
fn a_vec_from_a_list_written_out() {
    for (a, b) in [(0.3, 1.0), (-1.5, 2.5)] {
        let (v, d_a, d_b) = from_a_list_grad(a, b);
        // (a + b)·b·a + a/2
        assert_eq!(v, from_a_list(a, b));
        approx::assert_relative_eq!(d_a, b * (2.0 * a + b) + 0.5, max_relative = 1e-14);
        approx::assert_relative_eq!(d_b, a * (a + 2.0 * b), max_relative = 1e-14);
    }
}

//! What a loop records, pinned: the behaviour the generated code's speed
//! relies on (issue 12), each with its gradient checked.
//!
//! - `sin` and `cos` are computed with their derivative from one `sincos`;
//!   inside a loop, the derivative is recorded instead of the input where
//!   the input would be recorded for that pullback alone, and only there.
//! - Loops push through a writer and pop through a reader
//!   (`runtime::stack::{Writer, Reader}`): one entry per iteration, the
//!   stack's memory exactly what the entries need.

// Index loops, as the ported workloads write them.
#![allow(clippy::needless_range_loop)]

use approx::assert_relative_eq;
use autodiff::runtime::stack;
use autodiff::{check_gradient, grad};

/// Σ sin(xᵢ xᵢ₊₁): the product is not cheap to compute again, so it
/// would be recorded for the `sin`'s pullback alone; the derivative
/// `cos(xᵢ xᵢ₊₁)` is recorded instead.
#[grad]
fn ring(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += (x[i] * x[i + 1]).sin();
    }
    s
}

/// The product is read by the `*`'s pullback too: computed again in the
/// reverse iteration (one multiplication, where recording it is a store
/// and a load), it is at hand, so the `cos`'s pullback reads it, and only
/// `cos p` is recorded.
#[grad]
fn ring_times_product(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let p = x[i] * x[i + 1];
        s += p.cos() * p;
    }
    s
}

/// The input is a load, computed again in the reverse iteration: nothing
/// is recorded.
#[grad]
fn sum_of_sines(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &xi in x {
        s += xi.sin();
    }
    s
}

/// A `cos` in an arm, inside a loop, and a `sin` outside any loop.
#[grad]
fn mixed(x: &[f64], a: f64) -> f64 {
    let mut s = a.sin();
    for (i, xi) in x.iter().enumerate() {
        let u = xi * a;
        if i % 2 == 0 {
            s += u.cos();
        } else {
            s -= u * u;
        }
    }
    s
}

/// A `while` loop of a length unknown before it runs: the writer grows the
/// stack as it goes.
#[grad]
fn halvings(x: f64) -> f64 {
    let mut y = x;
    let mut t = 100.0;
    while t > 1.0 {
        y = (y * 0.9).sin() + y;
        t *= 0.5;
    }
    y
}

/// The same over `f32`, through a generic float type.
#[grad]
fn ring_generic<T: autodiff::Float>(x: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        s += (x[i] * x[i + 1]).cos();
    }
    s
}

fn points(n: usize) -> Vec<f64> {
    (0..n).map(|k| (k as f64 * 0.73).sin() * 2.5).collect()
}

#[test]
fn the_derivative_of_sin_is_recorded_instead_of_its_input() {
    let x = points(50);
    stack::reset_stats();
    let (v, dx) = ring_grad(&x);
    let st = stack::stats();
    assert_eq!(v, ring(&x), "the value is the function's, bit for bit");
    // One f64 per iteration: the derivative, not the product as well.
    assert_eq!((st.pushes, st.peak, st.bytes), (49, 49, 49 * 8));
    for (k, g) in dx.iter().enumerate() {
        let mut e = 0.0;
        if k + 1 < x.len() {
            e += (x[k] * x[k + 1]).cos() * x[k + 1];
        }
        if k > 0 {
            e += (x[k - 1] * x[k]).cos() * x[k - 1];
        }
        assert_relative_eq!(*g, e, max_relative = 1e-14);
    }
}

#[test]
fn an_input_recorded_anyway_is_read_instead_of_a_recorded_derivative() {
    let x = points(30);
    stack::reset_stats();
    let (v, dx) = ring_times_product_grad(&x);
    let st = stack::stats();
    assert_eq!(v, ring_times_product(&x));
    // One f64 per iteration: `cos p`, which the product's pullback reads;
    // `p` is computed again, the `cos`'s pullback reads it too, and no
    // derivative is recorded on top.
    assert_eq!((st.pushes, st.bytes), (29, 29 * 8));
    // d/dp (p cos p) = cos p − p sin p.
    let dp = |p: f64| p.cos() - p * p.sin();
    for (k, g) in dx.iter().enumerate() {
        let mut e = 0.0;
        if k + 1 < x.len() {
            e += dp(x[k] * x[k + 1]) * x[k + 1];
        }
        if k > 0 {
            e += dp(x[k - 1] * x[k]) * x[k - 1];
        }
        assert_relative_eq!(*g, e, max_relative = 1e-13);
    }
}

#[test]
fn an_input_computed_again_is_not_recorded_at_all() {
    let x = points(20);
    stack::reset_stats();
    let (v, dx) = sum_of_sines_grad(&x);
    assert_eq!(stack::stats().pushes, 0);
    assert_eq!(v, sum_of_sines(&x));
    for (g, xi) in dx.iter().zip(&x) {
        assert_eq!(*g, xi.cos());
    }
}

#[test]
fn derivatives_computed_with_values_in_arms_and_straight_line_code() {
    for &a in &[-1.7, -0.2, 0.0, 0.9, 2.4] {
        let x = points(9);
        let (v, dx, da) = mixed_grad(&x, a);
        assert_eq!(v, mixed(&x, a));
        let mut eda = a.cos();
        for (i, (g, xi)) in dx.iter().zip(&x).enumerate() {
            let u = xi * a;
            let du = if i % 2 == 0 { -u.sin() } else { -2.0 * u };
            assert_relative_eq!(*g, du * a, max_relative = 1e-14);
            eda += du * xi;
        }
        assert_relative_eq!(da, eda, max_relative = 1e-13, epsilon = 1e-15);
    }
}

#[test]
fn a_while_loop_records_through_a_growing_writer() {
    for &x in &[-2.0, -0.3, 0.5, 1.9] {
        stack::reset_stats();
        let (v, dx) = halvings_grad(x);
        // t: 100, 50, ..., 1.5625 → 7 iterations.
        assert_eq!(stack::stats().pushes, 7);
        assert_eq!(v, halvings(x));
        let (mut y, mut d) = (x, 1.0);
        for _ in 0..7 {
            d *= 0.9 * (y * 0.9).cos() + 1.0;
            y = (y * 0.9).sin() + y;
        }
        assert_relative_eq!(dx, d, max_relative = 1e-14);
    }
}

#[test]
fn generic_code_computes_value_and_derivative_together_in_f32() {
    let x: Vec<f32> = points(12).into_iter().map(|v| v as f32).collect();
    let (v, dx) = ring_generic_grad(&x);
    assert_eq!(v, ring_generic(&x));
    for (k, g) in dx.iter().enumerate() {
        let mut e = 0.0f32;
        if k + 1 < x.len() {
            e -= (x[k] * x[k + 1]).sin() * x[k + 1];
        }
        if k > 0 {
            e -= (x[k - 1] * x[k]).sin() * x[k - 1];
        }
        assert_relative_eq!(*g, e, max_relative = 1e-5);
    }
}

/// GMM's inner product ‖Q (x − μₖ)‖² per component: scratch vectors
/// declared in the component loop, filled, then read many times by the
/// triangular loop. Each is recorded once per component (moved onto the
/// stack), not once per read.
#[grad(wrt(means, icf))]
fn qform(d: usize, k: usize, means: &[f64], icf: &[f64], x: &[f64]) -> f64 {
    let icf_sz = d * (d + 1) / 2;
    let mut total = 0.0;
    for ik in 0..k {
        let mut xc = vec![0.0; d];
        let mut qxc = vec![0.0; d];
        for id in 0..d {
            xc[id] = x[id] - means[ik * d + id];
            qxc[id] = icf[ik * icf_sz + id].exp() * xc[id];
        }
        let mut l = ik * icf_sz + d;
        for i in 0..d {
            for j in i + 1..d {
                qxc[j] += icf[l] * xc[i];
                l += 1;
            }
        }
        let mut sq = 0.0;
        for q in &qxc {
            sq += q * q;
        }
        total += sq.sqrt() * (ik as f64 + 1.0);
    }
    total
}

#[test]
fn a_scratch_vector_read_by_an_inner_loop_is_recorded_once_per_iteration() {
    let (d, k) = (6, 3);
    let icf_sz = d * (d + 1) / 2;
    let means: Vec<f64> = (0..k * d).map(|i| (i as f64 * 0.31).cos()).collect();
    let icf: Vec<f64> = (0..k * icf_sz)
        .map(|i| 0.2 * (i as f64 * 0.57).sin())
        .collect();
    let x: Vec<f64> = (0..d).map(|i| (i as f64 * 1.3).sin() * 1.5).collect();
    stack::reset_stats();
    let (v, dm, di) = qform_grad(d, k, &means, &icf, &x);
    let st = stack::stats();
    assert_eq!(v, qform(d, k, &means, &icf, &x));
    // Per component: the two vectors once, their d elements each copied
    // onto a slab of their own and their lengths in the loop's entry, and
    // two scalars (`qxc.len()`, `√sq`; `ik + 1` is computed again). Nothing per read of
    // `xc` in the triangular loop (15 reads per component at d = 6) or of
    // `qxc` in the sum; the fill loop records the exponential and the
    // element it multiplies, and the `i` loop its counter.
    assert_eq!(
        st.bytes,
        k * (2 * 8 + 2 * 8) + 2 * k * d * 8 + k * d * 16 + k * d * 8
    );
    // The next call makes its scratch vectors in the buffers of this one
    // and its stacks in the same memory: the same results, bit for bit.
    assert_eq!(
        qform_grad(d, k, &means, &icf, &x),
        (v, dm.clone(), di.clone())
    );
    // Against central differences, as `autodiff::check_gradient` takes them.
    let report = check_gradient(|m| qform(d, k, m, &icf, &x), &means, &dm, 1e-6, 1e-8, 1e-7);
    assert!(report.passed, "{report}");
    let report = check_gradient(|c| qform(d, k, &means, c, &x), &icf, &di, 1e-6, 1e-8, 1e-7);
    assert!(report.passed, "{report}");
}

/// `qform` as a careful programmer writes it, its scratch vectors hoisted
/// out of the loops so as not to allocate in them, each iteration
/// overwriting them whole before it reads them: two points, and the
/// buffers hoisted above both loops.
#[grad(wrt(means, icf))]
fn qform_hoisted(d: usize, k: usize, means: &[f64], icf: &[f64], xs: &[f64]) -> f64 {
    let icf_sz = d * (d + 1) / 2;
    let mut xc = vec![0.0; d];
    let mut qxc = vec![0.0; d];
    let mut total = 0.0;
    for p in 0..xs.len() / d {
        for ik in 0..k {
            for id in 0..d {
                xc[id] = xs[p * d + id] - means[ik * d + id];
                qxc[id] = icf[ik * icf_sz + id].exp() * xc[id];
            }
            let mut l = ik * icf_sz + d;
            for i in 0..d {
                for j in i + 1..d {
                    qxc[j] += icf[l] * xc[i];
                    l += 1;
                }
            }
            let mut sq = 0.0;
            for q in &qxc {
                sq += q * q;
            }
            total += sq.sqrt() * (ik as f64 + 1.0);
        }
    }
    total
}

/// The same with the buffers declared where they are used.
#[grad(wrt(means, icf))]
fn qform_in_body(d: usize, k: usize, means: &[f64], icf: &[f64], xs: &[f64]) -> f64 {
    let icf_sz = d * (d + 1) / 2;
    let mut total = 0.0;
    for p in 0..xs.len() / d {
        for ik in 0..k {
            let mut xc = vec![0.0; d];
            let mut qxc = vec![0.0; d];
            for id in 0..d {
                xc[id] = xs[p * d + id] - means[ik * d + id];
                qxc[id] = icf[ik * icf_sz + id].exp() * xc[id];
            }
            let mut l = ik * icf_sz + d;
            for i in 0..d {
                for j in i + 1..d {
                    qxc[j] += icf[l] * xc[i];
                    l += 1;
                }
            }
            let mut sq = 0.0;
            for q in &qxc {
                sq += q * q;
            }
            total += sq.sqrt() * (ik as f64 + 1.0);
        }
    }
    total
}

#[test]
fn hoisted_scratch_vectors_are_recorded_as_the_ones_declared_in_the_loop() {
    let (d, k) = (6, 3);
    let icf_sz = d * (d + 1) / 2;
    let means: Vec<f64> = (0..k * d).map(|i| (i as f64 * 0.31).cos()).collect();
    let icf: Vec<f64> = (0..k * icf_sz)
        .map(|i| 0.2 * (i as f64 * 0.57).sin())
        .collect();
    let xs: Vec<f64> = (0..2 * d).map(|i| (i as f64 * 1.3).sin() * 1.5).collect();
    stack::reset_stats();
    let hoisted = qform_hoisted_grad(d, k, &means, &icf, &xs);
    let st_hoisted = stack::stats();
    stack::reset_stats();
    let in_body = qform_in_body_grad(d, k, &means, &icf, &xs);
    let st_in_body = stack::stats();
    assert_eq!(hoisted.0, qform_hoisted(d, k, &means, &icf, &xs));
    // The same gradient bit for bit, and the same recording: each vector
    // once per component, not each of the triangular loop's reads.
    assert_eq!(hoisted, in_body);
    assert_eq!(
        (st_hoisted.pushes, st_hoisted.bytes),
        (st_in_body.pushes, st_in_body.bytes)
    );
    assert_eq!(
        st_hoisted.bytes,
        2 * (k * (2 * 8 + 2 * 8) + 2 * k * d * 8 + k * d * 16 + k * d * 8)
    );
    let (_, dm, di) = hoisted;
    let report = check_gradient(
        |m| qform_hoisted(d, k, m, &icf, &xs),
        &means,
        &dm,
        1e-6,
        1e-8,
        1e-7,
    );
    assert!(report.passed, "{report}");
    let report = check_gradient(
        |c| qform_hoisted(d, k, &means, c, &xs),
        &icf,
        &di,
        1e-6,
        1e-8,
        1e-7,
    );
    assert!(report.passed, "{report}");
}

/// A buffer whose values cross iterations (read before each iteration
/// overwrites it) is differentiated as written, its reads recorded.
#[grad]
fn carried_buffer(x: &[f64]) -> f64 {
    let mut b = [0.0; 2];
    let mut s = 0.0;
    for i in 0..x.len() {
        s += b[0] * x[i] + b[1];
        for j in 0..2 {
            b[j] = (x[i] * (j as f64 + 1.0)).sin() + s;
        }
    }
    s
}

#[test]
fn a_buffer_carried_across_iterations_keeps_its_values() {
    let x = points(7);
    let (v, dx) = carried_buffer_grad(&x);
    assert_eq!(v, carried_buffer(&x));
    let report = check_gradient(carried_buffer, &x, &dx, 1e-6, 1e-8, 1e-7);
    assert!(report.passed, "{report}");
}

/// `d_w[i]` takes a contribution at every iteration of the inner loop, at
/// an index the inner loop does not change: the reverse loop keeps it in a
/// register (read before, written back after).
#[grad]
fn double_sum(w: &[f64], x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..x.len() {
            s += w[i] * x[j] * x[j];
        }
    }
    s
}

#[test]
fn an_adjoint_element_summed_in_a_register_is_the_same_sum() {
    let w = [0.5, -1.25, 2.0];
    let x: Vec<f64> = points(17);
    let (v, dw, dx) = double_sum_grad(&w, &x, 3);
    assert_eq!(v, double_sum(&w, &x, 3));
    // The register starts from d_w[i] and adds the iterations' terms in
    // the reverse loop's order: the same sum, bit for bit, as adding into
    // memory.
    let mut e = 0.0;
    for xj in x.iter().rev() {
        e += xj * xj;
    }
    assert_eq!(dw, [e, e, e]);
    for (g, xj) in dx.iter().zip(&x) {
        assert_relative_eq!(*g, 2.0 * xj * (0.5 - 1.25 + 2.0), max_relative = 1e-14);
    }
}

#[test]
fn a_register_past_the_end_of_an_array_that_the_loop_never_reads_is_not_written() {
    // The inner loop never runs, so the forward sweep never reads w[1] or
    // w[2]; the reverse sweep must not fail on them either.
    let (v, dw, dx) = double_sum_grad(&[1.0], &[], 3);
    assert_eq!((v, dw, dx), (0.0, vec![0.0], vec![]));
}

#[test]
fn the_element_adjacent_terms_share_is_carried_in_a_register_bit_for_bit() {
    // The reverse loop reads d_x[i] once and stores d_x[i + 1] once per
    // iteration (snapshot `derivative_recorded_with_its_value`); each
    // entry must be the same sum, in the same order, as adding into
    // memory: d_x[k] = (0 + cos(x_k x_{k+1}) x_{k+1}) + cos(x_{k-1} x_k) x_{k-1}.
    for n in [1, 2, 3, 8, 33] {
        let x = points(n);
        let (v, dx) = ring_grad(&x);
        assert_eq!(v, ring(&x));
        for k in 0..n {
            let mut e = 0.0;
            if k + 1 < n {
                e += (x[k] * x[k + 1]).cos() * x[k + 1];
            }
            if k > 0 {
                e += (x[k - 1] * x[k]).cos() * x[k - 1];
            }
            assert_eq!(dx[k].to_bits(), e.to_bits(), "n = {n}, k = {k}");
        }
    }
}

/// `sin` and `cos` of one product: recording both derivatives would take
/// two values where the product takes none (it is computed again, one
/// multiplication), so both pullbacks read the product.
#[grad]
fn sin_and_cos_of_one_product(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let p = x[i] * x[i + 1];
        s += p.sin() + p.cos();
    }
    s
}

#[test]
fn two_derivatives_of_one_product_record_nothing() {
    let x = points(12);
    stack::reset_stats();
    let (v, dx) = sin_and_cos_of_one_product_grad(&x);
    let st = stack::stats();
    assert_eq!(v, sin_and_cos_of_one_product(&x));
    assert_eq!((st.pushes, st.bytes), (0, 0));
    let dp = |p: f64| p.cos() - p.sin();
    for (k, g) in dx.iter().enumerate() {
        let mut e = 0.0;
        if k + 1 < x.len() {
            e += dp(x[k] * x[k + 1]) * x[k + 1];
        }
        if k > 0 {
            e += dp(x[k - 1] * x[k]) * x[k - 1];
        }
        assert_relative_eq!(*g, e, max_relative = 1e-13);
    }
}

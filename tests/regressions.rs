//! Regression tests for silent wrong gradients, one per class found, each
//! against the exact derivative. Where the macro once guessed a type from
//! syntax, these functions are written the way users write them.

// Users write late initialisation and index loops; so do these tests.
#![allow(
    clippy::needless_late_init,
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::useless_vec,
    clippy::vec_init_then_push
)]

use approx::assert_relative_eq;
use autodiff::grad;

/// A struct the gradient does not differentiate: its fields are constants.
pub struct Settings {
    pub w: f64,
    pub n: usize,
}

/// A struct field read inside a loop was recorded on an integer stack
/// (`t as i64`): d/dxs came out as [1, 1] at w = 1.5.
#[grad]
fn field_in_loop(p: &Settings, xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for &x in xs {
        s += p.w * x;
    }
    s
}

#[test]
fn a_struct_field_read_in_a_loop_keeps_its_type() {
    let p = Settings { w: 1.5, n: 2 };
    let (v, d) = field_in_loop_grad(&p, &[1.0, 2.0]);
    assert_eq!(v, 4.5);
    assert_eq!(d, vec![1.5, 1.5]);
}

/// The field recorded in a loop where the pullback reads it (the product
/// of two active factors needs both), and an integer field as a bound.
#[grad]
fn field_recorded(p: &Settings, x: f64) -> f64 {
    let mut s = x;
    for _ in 0..p.n {
        let k = p.w;
        s = s * s * k;
    }
    s
}

#[test]
fn fields_recorded_on_the_stack_keep_their_types() {
    let p = Settings { w: 0.5, n: 2 };
    // s1 = x^2 w, s2 = s1^2 w = x^4 w^3; d/dx = 4 x^3 w^3.
    let x = 1.5;
    let (v, d) = field_recorded_grad(&p, x);
    assert_relative_eq!(v, x.powi(4) * 0.125, max_relative = 1e-15);
    assert_relative_eq!(d, 4.0 * x.powi(3) * 0.125, max_relative = 1e-15);
}

/// A tuple destructured into variables, then updated in a loop: the
/// gradient was 0.
#[grad]
fn tuple_then_loop(k: f64) -> f64 {
    let (mut x, _y) = (1.0, 2.0);
    for _ in 0..3 {
        x *= k;
    }
    x
}

/// `let (a, b) = (b, a);` swaps: both sides are evaluated first.
#[grad]
fn tuple_swap(a: f64, b: f64) -> f64 {
    let (a, b) = (b, a);
    a * 10.0 + b
}

#[test]
fn tuples_destructured_in_a_let_are_followed() {
    assert_eq!(tuple_then_loop_grad(2.0), (8.0, 12.0));
    assert_eq!(tuple_swap_grad(2.0, 3.0), (32.0, 1.0, 10.0));
}

/// `(a, b) = (b, a * 2.0)` in a loop: a destructuring assignment, kept as
/// written, assigned variables the generated code had bound without
/// `mut` (a rustc error in the generated code), and the loop did not
/// carry them.
#[grad]
fn swap_in_a_loop(x: f64, y: f64, n: usize) -> f64 {
    let mut a = x;
    let mut b = y;
    for _ in 0..n {
        (a, b) = (b, a * 2.0);
    }
    a * b
}

/// Nested, with `_`, into a variable declared without a value.
#[grad]
fn nested_destructuring(x: f64, y: f64) -> f64 {
    let mut a = x;
    let b;
    ((a, b), _) = ((a.sin(), x * a), y);
    (a, _) = (a + b, y * y);
    a * b
}

#[test]
fn destructuring_assignments_are_followed() {
    // a·b = 2ⁿ·x·y whatever the number of swaps.
    for n in 0..5 {
        let p = 2f64.powi(n as i32);
        assert_eq!(
            swap_in_a_loop_grad(1.5, 2.0, n),
            (p * 3.0, p * 2.0, p * 1.5)
        );
    }
    // a = sin x + x², b = x², f = (sin x + x²)·x².
    for x in [-1.25, 0.5, 2.0] {
        let (v, dx, dy) = nested_destructuring_grad(x, 3.0);
        let (s, c) = x.sin_cos();
        assert_eq!(v, (s + x * x) * (x * x));
        let exact = (c + 2.0 * x) * x * x + (s + x * x) * 2.0 * x;
        assert!((dx - exact).abs() <= 1e-12 * exact.abs());
        assert_eq!(dy, 0.0);
    }
}

const K: f64 = 0.5;

/// A user `const` as the initial value of an accumulator: d/dx was 0.
#[grad]
fn const_then_loop(x: f64) -> f64 {
    let mut q = K;
    for _ in 0..3 {
        q += x;
    }
    q
}

/// The same in straight-line code (it was refused), and `let h;` whose
/// first assignment is a `const` (refused: "cannot tell the type").
#[grad]
fn const_straight(x: f64) -> f64 {
    let mut q = K;
    q += x;
    let h;
    h = K;
    q * q * h
}

/// An exponent computed from a `const` in a loop: the derivative was 0.
#[grad]
fn const_exponent(x: f64) -> f64 {
    let mut t = x;
    for _ in 0..2 {
        t = t.powf(K.tanh());
    }
    t
}

#[test]
fn user_constants_start_active_variables() {
    assert_eq!(const_then_loop_grad(2.0), (6.5, 3.0));
    // (0.5 + x)^2 * 0.5 at x = 2: value 3.125, derivative (0.5 + x).
    assert_eq!(const_straight_grad(2.0), (3.125, 2.5));
    let p = K.tanh() * K.tanh();
    let (v, d) = const_exponent_grad(2.0);
    assert_relative_eq!(v, 2.0f64.powf(p), max_relative = 1e-15);
    assert_relative_eq!(d, p * 2.0f64.powf(p - 1.0), max_relative = 1e-14);
}

/// `T::zero()` then a loop, in a generic function: the gradient was 0.
#[grad]
fn generic_sum_of_squares<T: autodiff::Float>(xs: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..xs.len() {
        s += xs[i] * xs[i];
    }
    s
}

#[test]
fn a_generic_zero_starts_an_active_accumulator() {
    assert_eq!(
        generic_sum_of_squares_grad(&[1.0f64, 2.0]),
        (5.0, vec![2.0, 4.0])
    );
    assert_eq!(generic_sum_of_squares_grad(&[3.0f32]), (9.0, vec![6.0]));
}

/// A loop whose values overflow to infinity, then a guard clause that
/// returns something else: the loop's reverse ran with a zero adjoint and
/// 0·∞ put NaN into a derivative that is exactly 2.
#[grad]
fn overflow_then_guard(x: f64) -> f64 {
    let mut s = x;
    for _ in 0..20 {
        s = s * s + 1.0;
    }
    if x > 0.0 {
        return x * 2.0;
    }
    s
}

/// The same with exp and a division in straight-line code.
#[grad]
fn overflow_straight(x: f64) -> f64 {
    let s = (x * 1000.0).exp();
    let t = s * s / (1.0 / s);
    if x > 0.0 {
        return x * 2.0;
    }
    t.ln()
}

#[test]
fn values_that_do_not_reach_the_result_put_no_nan_in_the_gradient() {
    assert_eq!(overflow_then_guard_grad(1.0), (2.0, 2.0));
    assert_eq!(overflow_straight_grad(1.0), (2.0, 2.0));
    // On the other side, the infinity reaches the result honestly.
    let (v, d) = overflow_then_guard_grad(-1.0);
    assert_eq!(v, f64::INFINITY);
    assert!(d.is_infinite() || d.is_nan());
}

/// An inner loop that breaks hid the outer loop's `break` (both used one
/// flag): the value and the gradient counted x three times instead of once.
#[grad]
fn nested_breaks(x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        for j in 0..2 {
            s += x;
            if j == 0 {
                break;
            }
        }
        if i == 0 {
            break;
        }
    }
    s
}

/// `return` from a loop nested in a top-level loop.
#[grad]
fn return_from_inner_loop(x: f64) -> f64 {
    let mut s = 0.0;
    for _ in 0..4 {
        s += x * x;
        for _ in 0..3 {
            s = s * 1.5 + x;
            if s > 10.0 {
                return s * 2.0;
            }
        }
    }
    s
}

/// A top-level loop's `return`, its body holding an inner loop that
/// breaks.
#[grad]
fn return_past_inner_break(x: f64) -> f64 {
    let mut s = x;
    for _ in 0..5 {
        for j in 0..4 {
            s = s * 1.1 + x;
            if j == 1 {
                break;
            }
        }
        if s > 6.0 {
            return s * 3.0;
        }
    }
    s
}

/// Two nested `loop`s with integer counters and `break` at the end of an
/// `if` (from Clad's test suite): `_grad` never finished.
#[grad]
fn nested_counted_loops(i: f64, j: f64) -> f64 {
    let mut counter = 3;
    let mut a = 0.0;
    loop {
        let mut counter_again = 3;
        loop {
            a += i * i + j;
            counter_again -= 1;
            a += j;
            if counter_again == 0 {
                break;
            }
        }
        counter -= 1;
        if counter == 0 {
            break;
        }
    }
    a
}

fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn every_loop_has_a_break_flag_of_its_own() {
    assert_eq!(nested_breaks_grad(2.0), (2.0, 1.0));
    assert_eq!(nested_counted_loops_grad(2.0, 3.0), (90.0, 36.0, 18.0));
    // Points on both sides of where each function returns early.
    for x in [0.3, 0.5, 1.0, 1.7, 2.5, 3.1] {
        for (f, g) in [
            (
                return_from_inner_loop as fn(f64) -> f64,
                return_from_inner_loop_grad as fn(f64) -> (f64, f64),
            ),
            (return_past_inner_break, return_past_inner_break_grad),
        ] {
            let (v, d) = g(x);
            assert_eq!(v, f(x));
            let fd = central(f, x);
            assert!(
                (d - fd).abs() <= 1e-6 * fd.abs().max(1.0),
                "x = {x}: {d} vs {fd}"
            );
        }
    }
}

/// `if ys[i]` on a `&[bool]` inside a loop that records: the flag went on
/// an integer stack and failed to compile ("cannot cast `i64` as `bool`").
#[grad]
fn masked_squares(xs: &[f64], ys: &[bool]) -> f64 {
    let mut s = 1.0;
    for i in 0..xs.len() {
        if ys[i] {
            s *= xs[i] * xs[i];
        }
    }
    s
}

#[test]
fn booleans_read_in_a_loop_are_recorded_as_booleans() {
    let (v, d) = masked_squares_grad(&[2.0, 3.0, 5.0], &[true, false, true]);
    assert_eq!(v, 100.0);
    assert_eq!(d, vec![100.0, 0.0, 40.0]);
}

/// A loop body's own `let mut x1`, shadowing a parameter, then updated:
/// the update was taken for the parameter's, which the loop then
/// carried, and d/dx1 came out 0 instead of 1 (found by the differential
/// tester, shrunk).
#[grad]
fn shadowed_in_a_loop(x0: f64, x1: f64) -> f64 {
    let mut k: usize = 0;
    while k < 2 {
        k += 1;
        let mut x1: f64 = 1.0;
        x1 /= 2.0;
        let _ = x1;
    }
    for i in 0..3 {
        if let Some(x0) = Some(i as f64) {
            let mut y = x0;
            y += 1.0;
            let _ = y;
        }
        let f = |x1: f64| x1 * 2.0;
        let _ = f(1.0);
    }
    let x0: f64 = x1 * x0;
    x0
}

#[test]
fn a_name_a_loop_declares_is_its_own() {
    assert_eq!(
        shadowed_in_a_loop_grad(-0.24, 1.313),
        (-0.24 * 1.313, 1.313, -0.24)
    );
}

/// Found by the differential tester and shrunk: each failed to compile
/// inside the generated code.
#[grad]
fn annotated_array_element_method(x: f64) -> f64 {
    // The annotation was dropped: `v[0].tanh()` on an unknown float.
    let mut v: [f64; 3] = [0.0; 3];
    v[1] = x;
    v[0].tanh() + v[1] * x
}

#[grad]
fn closure_given_to_a_call_in_a_loop(x: f64) -> f64 {
    // The closure was bound apart from `fold` and lost its parameter types.
    let mut s = x;
    let mut k: usize = 0;
    loop {
        k += 1;
        if k > 3 {
            break;
        }
        let w = vec![0.5_f64, 1.5];
        let c = w.iter().fold(0.1_f64, |acc, &u| acc + u.sqrt());
        s = s * c;
    }
    s
}

#[grad]
fn inclusive_range_stepped(xs: &[f64], a: f64) -> f64 {
    // `(1..=n).step_by(2).rev()` needs an exact size that an inclusive
    // range of usize does not have.
    let mut s = 1.0;
    for i in (1..=xs.len()).step_by(2) {
        s = s * a + xs[i - 1] * s;
    }
    for k in (0..3i64).rev().step_by(2) {
        s += a * (k as f64);
    }
    s
}

#[test]
fn generated_code_compiles_for_what_the_tester_found() {
    assert_eq!(annotated_array_element_method_grad(0.5), (0.25, 1.0));
    let c = 0.1 + 0.5f64.sqrt() + 1.5f64.sqrt();
    let (v, d) = closure_given_to_a_call_in_a_loop_grad(2.0);
    assert_eq!(v, closure_given_to_a_call_in_a_loop(2.0));
    assert!((d - c.powi(3)).abs() < 1e-12);
    let xs = [0.5, 1.0, 1.5, 2.0, 2.5];
    let (v, dx, da) = inclusive_range_stepped_grad(&xs, 0.7);
    assert_eq!(v, inclusive_range_stepped(&xs, 0.7));
    let h = 1e-6;
    let fa =
        (inclusive_range_stepped(&xs, 0.7 + h) - inclusive_range_stepped(&xs, 0.7 - h)) / (2.0 * h);
    assert!((da - fa).abs() < 1e-7, "{da} vs {fa}");
    for k in 0..5 {
        let (mut p, mut m) = (xs, xs);
        p[k] += h;
        m[k] -= h;
        let f = (inclusive_range_stepped(&p, 0.7) - inclusive_range_stepped(&m, 0.7)) / (2.0 * h);
        assert!((dx[k] - f).abs() < 1e-7, "{k}: {} vs {f}", dx[k]);
    }
}

/// A `let` inside a branch of a loop body whose other branch `break`s:
/// the statements after the branch were moved into it and the branch's
/// `let a` captured the outer `a` they update (found by the differential
/// tester: d/dx came out 0.072 where it is 0.047).
#[grad]
fn let_in_a_branch_before_a_break(x: f64, xs: &[f64]) -> f64 {
    let mut a = x;
    let mut s = 0.0;
    for &y in xs {
        if y < 10.0 {
            let a: f64 = a * 0.25 + y;
            s += a;
        } else {
            break;
        }
        a /= y * y + 2.0;
        a = a * x;
    }
    a + s
}

#[test]
fn a_branch_let_keeps_its_own_scope_when_jumps_are_rewritten() {
    let xs = [0.5, -1.0, 2.0];
    let h = 1e-6;
    for x in [-1.0, 0.3, 1.4] {
        let (v, dx, _) = let_in_a_branch_before_a_break_grad(x, &xs);
        assert_eq!(v, let_in_a_branch_before_a_break(x, &xs));
        let fd = (let_in_a_branch_before_a_break(x + h, &xs)
            - let_in_a_branch_before_a_break(x - h, &xs))
            / (2.0 * h);
        assert!((dx - fd).abs() < 1e-7, "{dx} vs {fd}");
    }
}

/// Assignments into elements of a local `Vec` read back through indices
/// computed in a loop (issue 14's third case, from Clad's tests, which
/// failed to compile with "cannot find value `d_values`"; these spellings
/// of it compile and are exact).
#[grad]
fn values_by_computed_index(x: f64, n: usize) -> f64 {
    let mut values: Vec<f64> = Vec::new();
    for i in 0..n {
        values.push(x * i as f64);
    }
    let mut idx = 0;
    let mut s = 0.0;
    for j in 0..n {
        idx = (idx + j) % n;
        s += values[idx] * values[j];
    }
    values[0] = s;
    s + values[0]
}

#[grad]
fn values_filled_by_while(x: f64) -> f64 {
    let mut values = vec![0.0; 4];
    let mut k = 0;
    while k < 4 {
        values[k] = x * (k as f64);
        k += 1;
    }
    let mut s = 0.0;
    for i in 0..4 {
        let j = (i * 3) % 4;
        s += values[j].sin();
    }
    s
}

#[test]
fn local_vec_elements_read_back_by_computed_index() {
    // values = x (0, 1, 2, 3), read as (0·0 + 1·1 + 3·2 + 2·3) x² = 13 x²;
    // the function returns 2 s = 26 x², its derivative 52 x.
    assert_eq!(values_by_computed_index_grad(1.5, 4), (58.5, 78.0));
    let (v, d) = values_filled_by_while_grad(1.5);
    assert_eq!(v, values_filled_by_while(1.5));
    let expect: f64 = (0..4).map(|k| k as f64 * (1.5 * k as f64).cos()).sum();
    assert!((d - expect).abs() < 1e-14);
}

/// An accumulator of a type the source does not state (a `const`),
/// carried by a loop inside a loop that `break`s: its adjoint was shaped
/// by a value the reverse iteration did not have ("cannot find value
/// `s_2`", found by the differential tester).
#[grad]
fn nested_accumulator_of_unstated_type(xs: &[f64; 3], x: f64) -> f64 {
    let mut s = C_NESTED;
    let mut k: usize = 0;
    loop {
        k += 1;
        if k > 6 {
            break;
        }
        for _ in 0..xs.len() {
            s *= 1.1;
        }
        s /= x;
    }
    s
}

const C_NESTED: f64 = 1.25;

#[test]
fn a_loop_header_of_unstated_type_in_a_nested_loop() {
    let xs = [0.461, 0.182, 0.433];
    let (v, _, d) = nested_accumulator_of_unstated_type_grad(&xs, 1.03);
    assert_eq!(v, nested_accumulator_of_unstated_type(&xs, 1.03));
    // s = C 1.1^18 / x^6: d/dx = -6 s / x.
    assert!((d - (-6.0 * v / 1.03)).abs() < 1e-12 * v.abs());
}

/// A sum over an iterator chain starts at -0.0, as std's `Sum` for floats
/// does: `f_grad`'s value is `f`'s bit for bit, also when every term is
/// -0.0 or there are none (the differential tester, seed 101, found 0.0
/// where `f` gave -0.0).
#[grad]
fn sum_of_negative_zeros(xs: &[f64], k: f64) -> f64 {
    xs.iter().map(|x| -(x * k).abs()).sum::<f64>()
}

#[grad]
fn generic_sum<T: autodiff::Float + std::iter::Sum>(xs: &[T]) -> T {
    xs.iter().map(|&x| x * x).sum::<T>() * T::from_f64(-1.0)
}

#[test]
fn a_sum_keeps_the_sign_of_zero() {
    for xs in [&[0.0, -0.0][..], &[][..], &[-0.0][..]] {
        let (v, dxs, dk) = sum_of_negative_zeros_grad(xs, 2.0);
        assert_eq!(v.to_bits(), sum_of_negative_zeros(xs, 2.0).to_bits());
        assert_eq!(v.to_bits(), (-0.0f64).to_bits());
        assert_eq!(dk, 0.0);
        assert_eq!(dxs.len(), xs.len());
        let (v, _) = generic_sum_grad(xs);
        assert_eq!(v.to_bits(), generic_sum(xs).to_bits());
    }
    let (v, d) = generic_sum_grad(&[1.5f32, -2.0]);
    assert_eq!(v, -6.25);
    assert_eq!(d, vec![-3.0, 4.0]);
}

/// A variable declared with its type and first assigned a literal,
/// `let a: f64; a = -0.79;`, then a float method on it: the generated
/// `let` keeps the type (it was `{float}`, E0689; seed 101, program 1009).
#[grad]
fn deferred_literal(xs: &[f64], x: f64) -> f64 {
    let a: f64;
    a = -0.79;
    let mut s = x * a.asinh();
    for &y in xs {
        let v: Vec<f64> = vec![a.asinh(), y];
        s += v[0] * x + v[1];
    }
    s
}

#[test]
fn a_deferred_let_assigned_a_literal_keeps_its_type() {
    let a = (-0.79f64).asinh();
    let (v, dxs, dx) = deferred_literal_grad(&[1.0, 2.0], 1.5);
    assert_eq!(v, deferred_literal(&[1.0, 2.0], 1.5));
    assert_eq!(dx, 3.0 * a);
    assert_eq!(dxs, vec![1.0, 1.0]);
}

/// A closure bound by `let` and kept as written (never called here)
/// after a variable it reads was renamed: the rebinding block around it
/// made the closure borrow the block's local (E0373). And a closure whose
/// only call is in code kept as written (a loop that changes nothing the
/// result reads): its `let` was dropped as if every call were inlined
/// (E0425). Both found by the differential tester (seed 6).
#[grad]
fn closure_kept_after_a_rename(x: f64, xs: &[f64]) -> f64 {
    let a: f64;
    if x > 0.5 {
        a = x * 2.0;
    } else {
        a = x;
    }
    let _unused = |v: f64| (a * v).sin();
    let c = |v: f64| (v * 2.0).cos();
    for _ in 0..2 {
        let _kept = c(1.5);
    }
    let mut s = x + 1.0;
    for &y in xs {
        s = s * 0.9 + y * c(a);
    }
    s + a
}

#[test]
fn closures_kept_as_written_compile_and_differentiate() {
    for x in [0.25, 1.5] {
        let xs = [0.5, -1.0];
        let (v, dx, dxs) = closure_kept_after_a_rename_grad(x, &xs);
        assert_eq!(v, closure_kept_after_a_rename(x, &xs));
        let h = 1e-6;
        let fd = (closure_kept_after_a_rename(x + h, &xs)
            - closure_kept_after_a_rename(x - h, &xs))
            / (2.0 * h);
        assert_relative_eq!(dx, fd, max_relative = 1e-7);
        // s = (x + 1)·0.81 + 0.9·y0·c(a) + y1·c(a): d/dy1 = cos(2a).
        let a = if x > 0.5 { 2.0 * x } else { x };
        assert_relative_eq!(dxs[1], (2.0 * a).cos(), max_relative = 1e-14);
    }
}

/// An array parameter `[f64; 3]` passed to a callee that takes a slice:
/// the callee's gradient is a `Vec<f64>`, the caller's adjoint an array,
/// added element by element (it was a type mismatch inside the generated
/// code; the differential tester, seed 8, feature helper_array).
#[grad]
fn weighted_by_slice(h: f64, hs: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..hs.len() {
        s += hs[i] * h * (i as f64 + 1.0);
    }
    s
}

#[grad]
fn passes_an_array_as_a_slice(xs: [f64; 3], x: f64) -> f64 {
    let local = vec![x, 2.0 * x];
    weighted_by_slice(x, &xs) + weighted_by_slice(1.5, &local)
}

#[test]
fn an_array_passed_as_a_slice_gets_its_gradient() {
    let xs = [0.5, -1.0, 2.0];
    let (v, dxs, dx) = passes_an_array_as_a_slice_grad(xs, 0.7);
    assert_eq!(v, passes_an_array_as_a_slice(xs, 0.7));
    for (i, d) in dxs.iter().enumerate() {
        assert_relative_eq!(*d, 0.7 * (i as f64 + 1.0), max_relative = 1e-15);
    }
    // Σ xs_i x (i + 1) + 1.5 (x + 2·2x): 0.5 - 2 + 6 + 1.5·5.
    assert_relative_eq!(dx, 4.5 + 7.5, max_relative = 1e-14);
}

/// An array declared in a nested loop's body and read by the outer loop's
/// index: the bounds-check window for the outer loop was taken before the
/// array existed (E0425; the differential tester, seed 101).
#[grad]
fn array_in_a_nested_loop(x1: f64, x2: f64) -> f64 {
    let v0: Vec<f64> = vec![0.1, 0.3];
    let mut s: f64 = 0.0;
    for i in 0..v0.len() {
        let mut k: usize = 0;
        while k < 2 && x2 >= x1 {
            k += 1;
            let v: Vec<f64> = vec![v0[i] * 3.0, v0[i] * x1];
            s = (if i > 5 {
                v[i] * (k as f64)
            } else {
                s.sin() + v[1]
            })
            .atan();
        }
    }
    s
}

#[test]
fn a_nested_loops_array_is_not_windowed_by_the_outer_loop() {
    for (x1, x2) in [(0.5, 1.0), (1.0, 0.5)] {
        let (v, d1, d2) = array_in_a_nested_loop_grad(x1, x2);
        assert_eq!(v, array_in_a_nested_loop(x1, x2));
        let h = 1e-6;
        let fd =
            (array_in_a_nested_loop(x1 + h, x2) - array_in_a_nested_loop(x1 - h, x2)) / (2.0 * h);
        assert_relative_eq!(d1, fd, max_relative = 1e-6, epsilon = 1e-9);
        assert_eq!(d2, 0.0);
    }
}

/// A bounds-check window was taken over the outer range for `w[i]`, read
/// only inside an inner loop and an arm: with `w` shorter than `n` and an
/// empty inner range, `_grad` panicked where the function returns 0.
#[grad]
fn read_only_when_the_inner_loop_runs(w: &[f64], x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..x.len() {
            s += w[i] * x[j];
        }
        if s > 1.0 {
            s += w[i];
        }
    }
    s
}

#[test]
fn no_window_for_a_load_an_iteration_may_not_make() {
    assert_eq!(read_only_when_the_inner_loop_runs(&[1.0], &[], 3), 0.0);
    let (v, dw, dx) = read_only_when_the_inner_loop_runs_grad(&[1.0], &[], 3);
    assert_eq!((v, dw, dx), (0.0, vec![0.0], vec![]));
    let (v, dw, dx) = read_only_when_the_inner_loop_runs_grad(&[0.5, 2.0], &[1.0, 3.0], 2);
    assert_eq!(
        v,
        read_only_when_the_inner_loop_runs(&[0.5, 2.0], &[1.0, 3.0], 2)
    );
    // s = 0.5·4 = 2 > 1 → s = 2.5; then + 2·4 = 10.5 > 1 → + 2.
    assert_eq!(dw, vec![5.0, 5.0]);
    assert_eq!(dx, vec![2.5, 2.5]);
}

/// A `fold` or `map` closure whose body starts with a block (`if .. { }
/// else { } + b`): the desugaring put it in statement position, where it
/// parses as an `if` statement followed by `+ b`, and the macro panicked
/// (found by the property test `never_panics`).
#[grad]
fn fold_with_a_branch_first(xs: &[f64], x: f64) -> f64 {
    let s = xs
        .iter()
        .fold(0.0, |a, b| if x > 0.0 { a * x } else { a } + b);
    let t: f64 = xs
        .iter()
        .map(|b| if x > 1.0 { b * x } else { *b } * 2.0)
        .sum();
    s + t
}

#[test]
fn a_closure_body_that_starts_with_a_block_is_differentiated() {
    let xs = [1.0, 2.0, 3.0];
    for x in [0.5, -0.5, 2.0] {
        let (v, dxs, dx) = fold_with_a_branch_first_grad(&xs, x);
        assert_eq!(v, fold_with_a_branch_first(&xs, x));
        let h = 1e-6;
        let fd = (fold_with_a_branch_first(&xs, x + h) - fold_with_a_branch_first(&xs, x - h))
            / (2.0 * h);
        assert_relative_eq!(dx, fd, max_relative = 1e-6);
        let a = if x > 0.0 { x } else { 1.0 };
        let m = if x > 1.0 { x } else { 1.0 };
        assert_relative_eq!(dxs[0], a * a + 2.0 * m, max_relative = 1e-14);
        assert_relative_eq!(dxs[2], 1.0 + 2.0 * m, max_relative = 1e-14);
    }
}

/// Two windows of `x` with one of `y` between them in the loop's reads
/// (`x[i]`, `y[i]`, `x[i + 1]`): the reverse loop took `x`'s adjoint
/// windows twice, and the expansion did not compile (two borrows of
/// `d_x`).
#[grad]
fn windows_of_one_array_apart(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += x[i] * y[i] * x[i + 1];
    }
    s
}

#[test]
fn an_arrays_windows_apart_in_the_plan_are_taken_once() {
    let (x, y) = ([0.5, -1.5, 2.0, 0.25], [1.0, 3.0, -2.0, 7.0]);
    let (v, dx, dy) = windows_of_one_array_apart_grad(&x, &y);
    assert_eq!(v, windows_of_one_array_apart(&x, &y));
    let mut ex = [0.0; 4];
    let mut ey = [0.0; 4];
    for i in 0..3 {
        ex[i] += y[i] * x[i + 1];
        ex[i + 1] += x[i] * y[i];
        ey[i] += x[i] * x[i + 1];
    }
    for (g, e) in dx.iter().zip(&ex).chain(dy.iter().zip(&ey)) {
        assert_relative_eq!(*g, *e, max_relative = 1e-15);
    }
}

/// `vec![0.0; n]` without a type once took its element type from the
/// return type (`f32` here) while rustc makes it `f64` from the values
/// stored in it: the expansion did not compile. The width is now left to
/// rustc, as in the function itself.
#[grad]
fn f64_scratch_in_an_f32_function(x: &[f64]) -> f32 {
    let mut v = vec![0.0; x.len()];
    for i in 0..x.len() {
        v[i] = x[i] * 2.0;
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += v[i] * v[i];
    }
    s as f32
}

#[test]
fn a_scratch_vector_takes_its_width_from_its_values_not_the_return_type() {
    let (v, d) = f64_scratch_in_an_f32_function_grad(&[1.0, 2.0, -0.5]);
    assert_eq!(v, f64_scratch_in_an_f32_function(&[1.0, 2.0, -0.5]));
    assert_eq!(v, 21.0);
    // s = Σ 4xᵢ², ds/dxᵢ = 8xᵢ.
    assert_eq!(d, vec![8.0, 16.0, -4.0]);
}

/// The other way round: an `f32` array `[0.0; 3]` in an `f64` function,
/// updated with `+=`.
#[grad]
fn f32_array_in_an_f64_function(x: &[f32]) -> f64 {
    let mut v = [0.0; 3];
    for i in 0..3 {
        v[i] += x[i].sin();
        v[i] += 1.0;
    }
    (v[0] * v[1] + v[2]) as f64
}

#[test]
fn a_local_array_takes_its_width_from_its_values_not_the_return_type() {
    let x = [1.0_f32, 2.0, 3.0];
    let (v, d) = f32_array_in_an_f64_function_grad(&x);
    assert_eq!(v, f32_array_in_an_f64_function(&x));
    let s = x.map(f32::sin);
    let c = x.map(f32::cos);
    assert_eq!(d, vec![c[0] * (s[1] + 1.0), (s[0] + 1.0) * c[1], c[2]]);
}

/// A struct whose field is `f32`, read in an `f64` function through a cast:
/// the cast's source has no stated type, and was refused.
#[derive(Clone, autodiff::Differentiable)]
pub struct Narrow {
    pub w: f32,
}

#[grad(wrt(p))]
fn cast_of_a_field(p: &Narrow, x: f64) -> f64 {
    let w = p.w as f64;
    w * w * x
}

#[test]
fn the_cast_of_a_field_of_unstated_width_is_differentiated() {
    let p = Narrow { w: 1.5 };
    let (v, d) = cast_of_a_field_grad(&p, 3.0);
    assert_eq!(v, 6.75);
    assert_eq!(d.w, 9.0);
}

// A `#[grad]` callee returning an array, called with a loop's state that the
// loop then overwrites: its `_vjp` was called, in the reverse sweep, with
// the state as it was at the end (d/dw came out 0.602 against -0.909).
#[grad]
fn oscillator_rhs(s: [f64; 2], w: f64) -> [f64; 2] {
    [s[1], -w * w * s[0]]
}

#[grad]
fn midpoint_step(s: [f64; 2], w: f64, dt: f64) -> [f64; 2] {
    let k1 = oscillator_rhs(s, w);
    let mid = [s[0] + 0.5 * dt * k1[0], s[1] + 0.5 * dt * k1[1]];
    let k2 = oscillator_rhs(mid, w);
    [s[0] + dt * k2[0], s[1] + dt * k2[1]]
}

#[grad]
fn oscillator_position(w: f64) -> f64 {
    let mut state = [1.0, 0.0];
    for _ in 0..100 {
        let next = midpoint_step(state, w, 0.01);
        state[0] = next[0];
        state[1] = next[1];
    }
    state[0]
}

#[test]
fn a_vjp_sees_the_array_as_it_was_at_the_call() {
    for w in [0.5, 2.0, 3.7] {
        let (y, dw) = oscillator_position_grad(w);
        assert_eq!(y, oscillator_position(w));
        let h = 1e-6;
        let fd = (oscillator_position(w + h) - oscillator_position(w - h)) / (2.0 * h);
        assert_relative_eq!(dw, fd, max_relative = 1e-6);
        // Near the exact solution's, d/dw cos(w t) at t = 1, up to the
        // method's error.
        assert_relative_eq!(dw, -w.sin(), epsilon = 1e-2);
    }
}

// A kernel given an array the function writes to afterwards was refused;
// it now reads a copy taken at the call.
#[grad]
fn dot_then_overwrite(x: &[f64]) -> f64 {
    let mut a = vec![0.0; 2];
    a[0] = x[0];
    a[1] = x[1];
    let d = autodiff::dot(&a, &a);
    a[0] = 3.0;
    d + a[0] * x[0]
}

#[grad]
fn dot_in_loop_of_rewritten(x: &[f64]) -> f64 {
    let mut a = vec![0.0; 2];
    let mut s = 0.0;
    for k in 0..3 {
        a[0] = x[0] * (k as f64);
        a[1] = x[1];
        s += autodiff::dot(&a, &a);
    }
    s
}

#[test]
fn a_kernel_sees_the_array_as_it_was_at_the_call() {
    let (y, g) = dot_then_overwrite_grad(&[1.0, 2.0]);
    assert_eq!(y, dot_then_overwrite(&[1.0, 2.0]));
    assert_eq!(g, [5.0, 4.0]);
    // Σ_k (k x0)² + x1²: d/dx0 = 2 x0 (0 + 1 + 4), d/dx1 = 6 x1.
    let (y, g) = dot_in_loop_of_rewritten_grad(&[1.0, 2.0]);
    assert_eq!(y, dot_in_loop_of_rewritten(&[1.0, 2.0]));
    assert_eq!(g, [10.0, 12.0]);
}

// A `_vjp` argument `&idx` of a `Vec<usize>` the function changes after the
// call failed to compile inside the expansion (the reverse sweep borrowed
// `idx` past the change); the call now takes a copy.
#[grad]
fn gather_squares(idx: &[usize], x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; idx.len()];
    for k in 0..idx.len() {
        out[k] = x[idx[k]] * x[idx[k]];
    }
    out
}

#[grad]
fn gather_then_change(x: &[f64]) -> f64 {
    let mut idx = vec![0usize, 1];
    let g = gather_squares(&idx, x);
    idx[0] = 2;
    let h = gather_squares(&idx, x);
    g[0] + g[1] + h[0]
}

#[grad]
fn gather_in_loop(x: &[f64]) -> f64 {
    let mut idx = vec![0usize, 1];
    let mut s = 0.0;
    for _ in 0..2 {
        let g = gather_squares(&idx, x);
        s += g[0] + g[1];
        idx[0] = 2;
    }
    s
}

#[test]
fn a_vjp_borrows_an_index_vector_as_it_was_at_the_call() {
    let x = [1.0, 2.0, 3.0];
    let (y, g) = gather_then_change_grad(&x);
    assert_eq!(y, gather_then_change(&x));
    assert_eq!(g, [2.0, 4.0, 6.0]);
    // x0² + x1², then x2² + x1².
    let (y, g) = gather_in_loop_grad(&x);
    assert_eq!(y, gather_in_loop(&x));
    assert_eq!(g, [2.0, 8.0, 6.0]);
}

// `let idx: Vec<usize> = (0..n).collect();` was taken for a float array and
// failed to compile inside the expansion (expected `usize`, found a float).
#[grad]
fn product_by_indices(x: f64, w: &[f64]) -> f64 {
    let idx: Vec<usize> = (0..w.len()).collect();
    let mut acc = x;
    for k in 0..idx.len() {
        acc = acc * w[idx[k]];
    }
    acc
}

#[test]
fn a_collected_vec_of_indices_stays_a_vec_of_indices() {
    let (y, dx, dw) = product_by_indices_grad(0.3, &[0.5, 2.0, 3.0]);
    assert_eq!(y, product_by_indices(0.3, &[0.5, 2.0, 3.0]));
    assert_eq!(dx, 3.0);
    assert_relative_eq!(dw[0], 1.8, max_relative = 1e-15);
    assert_relative_eq!(dw[1], 0.45, max_relative = 1e-15);
    assert_relative_eq!(dw[2], 0.3, max_relative = 1e-15);
}

// `let mut v = v.to_vec();` (a copy under the parameter's own name) was
// filled from itself, zeros: the value and the gradient came out 0 (want
// 1.5, [0.5, 0.5], 3.0 at v = [1, 2], k = 0.5).
#[grad]
fn scaled_copy(v: &[f64], k: f64) -> f64 {
    let mut v = v.to_vec();
    for i in 0..v.len() {
        v[i] *= k;
    }
    v[0] + v[1]
}

#[grad]
fn mapped_under_the_same_name(v: &[f64], k: f64) -> f64 {
    let v: Vec<f64> = v.iter().map(|x| x * k).collect();
    let v = v.clone();
    let s: f64 = v.iter().sum();
    s * s
}

#[test]
fn a_copy_under_its_source_s_name_reads_the_source() {
    let (y, dv, dk) = scaled_copy_grad(&[1.0, 2.0], 0.5);
    assert_eq!((y, dv, dk), (1.5, vec![0.5, 0.5], 3.0));
    assert_eq!(y, scaled_copy(&[1.0, 2.0], 0.5));
    // s = k (v0 + v1) = 1.5: d(s²)/dv_i = 2 s k, d/dk = 2 s (v0 + v1).
    let (y, dv, dk) = mapped_under_the_same_name_grad(&[1.0, 2.0], 0.5);
    assert_eq!(y, 2.25);
    assert_eq!(dv, [1.5, 1.5]);
    assert_eq!(dk, 9.0);
}

// A `match` pattern binding a name that a parameter also has (`Some(x)`
// beside `x: f64`) was passed out of the arm, for the reverse sweep,
// under that name: it shadowed the parameter after the `match`. The value
// came out 12 (want 13) at x = 3, y = 5, o = Some(2); in a loop, d/dx
// came out 18 (want 36) and d/dy 6 (want 14) at x = 3, y = 2,
// opts = [Some(2), None]. Two sibling `match`es binding one name in a
// loop body recorded both under it (E0416 inside the expansion).
#[grad]
fn option_beside_its_name(x: f64, y: f64, o: Option<f64>) -> f64 {
    let mut s = 1.0;
    let mut t = 0.0;
    match o {
        Some(x) if x > 1.0 => t += x * y,
        Some(x) => t -= x * x * y,
        None => s *= x,
    }
    s * x + t
}

#[grad]
#[allow(clippy::single_match)]
fn options_in_a_loop(x: f64, y: f64, opts: &[Option<f64>], more: &[Option<f64>]) -> f64 {
    let mut s = 1.0;
    let mut t = 0.0;
    for i in 0..opts.len() {
        s *= x;
        match opts[i] {
            Some(x) => t += x * y,
            None => {}
        }
        match more[i] {
            Some(x) => t += (x * y).sin(),
            None => s *= y,
        }
    }
    s + t * x
}

#[test]
fn a_pattern_binding_never_shadows_a_variable_of_the_same_name() {
    // s·x + t: t = 2·5 (x bound to 2 > 1), t = -0.25·5, or s = x.
    for (o, value, dx, dy) in [
        (Some(2.0), 13.0, 1.0, 2.0),
        (Some(0.5), 1.75, 1.0, -0.25),
        (None, 9.0, 6.0, 0.0),
    ] {
        let (v, gx, gy) = option_beside_its_name_grad(3.0, 5.0, o);
        assert_eq!((v, gx, gy), (value, dx, dy));
        assert_eq!(v, option_beside_its_name(3.0, 5.0, o));
    }
    let (opts, more) = ([Some(2.0), None], [None, None]);
    let (v, gx, gy) = options_in_a_loop_grad(3.0, 2.0, &opts, &more);
    // s = x² y², t = 2y: s + t x = 36 + 12.
    assert_eq!(v, 48.0);
    assert_eq!((gx, gy), (2.0 * 3.0 * 4.0 + 4.0, 2.0 * 9.0 * 2.0 + 6.0));
    let (opts, more) = ([Some(2.0), None, Some(1.0)], [None, Some(0.3), Some(1.5)]);
    let (x, y) = (0.7, 1.3);
    let (v, gx, gy) = options_in_a_loop_grad(x, y, &opts, &more);
    assert_eq!(v, options_in_a_loop(x, y, &opts, &more));
    let fx = central(|x| options_in_a_loop(x, y, &opts, &more), x);
    let fy = central(|y| options_in_a_loop(x, y, &opts, &more), y);
    assert_relative_eq!(gx, fx, max_relative = 1e-7);
    assert_relative_eq!(gy, fy, max_relative = 1e-7);
}

// Found by the differential tester once jumps in match arms were
// generated: code kept as written (the length check of `v15 = v18;`)
// bound a renamed local `Vec` to its user name by value, moving it, and
// the expansion failed with E0382 "borrow of moved value". A local `Vec`
// is now lent to such code.
#[grad]
fn vec_read_by_code_kept_as_written(x0: f64, x2: f64) -> f64 {
    let mut a3 = x2.asinh();
    let mut a4 = 0.92;
    let a5 = -0.45;
    let mut k7: usize = 0;
    loop {
        let v8 = [0.0_f64; 2];
        match k7 {
            0 => break,
            2 | 3 => a3 /= v8[k7 % 2] * v8[k7 % 2] + 1.0,
            _ => {
                while x0.tanh() >= 1.49 {
                    a4 += 1.0;
                }
            }
        }
        k7 += 1;
        let mut v15: Vec<f64> = vec![0.0; 3];
        let v16: Vec<f64> = vec![0.0; 3];
        for _i17 in 0..v16.len() {
            let v18: Vec<f64> = vec![0.0; 3];
            match k7 % 2 {
                1 => {}
                0 => continue,
                _ => {
                    let mut k26: usize = 0;
                    loop {
                        k26 += 1;
                        if k26 > 1 {
                            break;
                        }
                        if v16[k7 % 3] + 1.0 < 1.65 && a4 < a5 {
                            a4 *= x0;
                        }
                    }
                }
            }
            v15 = v18;
        }
        a3 += v15[0];
    }
    a3 + a4 * x0
}

#[test]
fn a_vec_read_by_code_kept_as_written_is_lent() {
    let (y, d0, d2) = vec_read_by_code_kept_as_written_grad(1.0, 2.0);
    assert_eq!(y, vec_read_by_code_kept_as_written(1.0, 2.0));
    // asinh(x2) + 0.92 x0.
    assert_eq!(d0, 0.92);
    assert_relative_eq!(d2, 1.0 / 5.0_f64.sqrt(), max_relative = 1e-15);
}

// A whole element of a local `Vec` of structs replaced, `ps[i] =
// ps[i].scaled(k)`, a call's result or a struct written out: the
// assignment was lost from the gradient (value 6, gradient (1, 0) instead
// of (3, 2)). Each field is stored from the new value now.
#[derive(Clone, Copy, Debug, autodiff::Differentiable)]
struct Cell {
    x: f64,
}

impl Cell {
    #[grad(wrt(self, k))]
    fn scaled(&self, k: f64) -> Self {
        Cell { x: self.x * k }
    }
}

#[grad(wrt(c, k))]
fn cell_scaled(c: &Cell, k: f64) -> Cell {
    Cell { x: c.x * k }
}

#[grad]
fn element_by_method(x: f64, k: f64) -> f64 {
    let mut cs = Vec::new();
    cs.push(Cell { x });
    cs.push(Cell { x: x + 1.0 });
    for i in 0..cs.len() {
        cs[i] = cs[i].scaled(k);
    }
    cs[0].x + cs[1].x
}

#[grad]
fn element_by_function(x: f64, k: f64) -> f64 {
    let mut cs = Vec::new();
    cs.push(Cell { x });
    cs[0] = cell_scaled(&cs[0], k);
    cs[0].x
}

#[grad]
fn element_written_out(x: f64, k: f64) -> f64 {
    let mut cs = Vec::new();
    cs.push(Cell { x });
    cs[0] = Cell { x: cs[0].x * k };
    cs[0].x
}

#[test]
fn a_whole_element_of_a_vec_of_structs_replaced() {
    let (x, k) = (2.0, 3.0);
    assert_eq!(element_by_method_grad(x, k), (15.0, 6.0, 5.0));
    assert_eq!(element_by_function_grad(x, k), (6.0, 3.0, 2.0));
    assert_eq!(element_written_out_grad(x, k), (6.0, 3.0, 2.0));
}

/// A vector type with a length method of its own: `p.len()` was taken for
/// `Vec::len`, an integer, and its gradient (and that of every term added
/// to it) was dropped: (6.08, 0, 0) at (3, 2).
#[derive(Clone, Copy, autodiff::Differentiable)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

impl V2 {
    #[grad(wrt(self))]
    pub fn len(&self) -> f64 {
        self.x.hypot(self.y)
    }

    #[grad(wrt(self))]
    pub fn sum(&self) -> f64 {
        self.x + self.y
    }

    /// Named like a float method: taken for `f64::abs`, code that did not
    /// compile.
    #[grad(wrt(self))]
    pub fn abs(&self) -> f64 {
        self.x.abs() + self.y.abs()
    }
}

#[grad]
fn length_of_a_local(a: f64, b: f64) -> f64 {
    let p = V2 { x: a - b, y: a * b };
    p.len() + p.abs()
}

#[grad(wrt(p, k))]
fn length_of_a_parameter(p: V2, k: f64) -> f64 {
    k * p.len()
}

#[test]
fn a_structs_method_named_like_a_std_one_is_the_users() {
    let (a, b) = (3.0_f64, 2.0_f64);
    let (x, y) = (a - b, a * b);
    let r = x.hypot(y);
    let (v, da, db) = length_of_a_local_grad(a, b);
    assert_eq!(v, r + x.abs() + y.abs());
    // d/da: (x + y b)/r + 1 + b; d/db: (−x + y a)/r − 1 + a, with x, y > 0.
    assert_relative_eq!(da, (x + y * b) / r + 1.0 + b, max_relative = 1e-14);
    assert_relative_eq!(db, (-x + y * a) / r - 1.0 + a, max_relative = 1e-14);
    let p = V2 { x: 3.0, y: 4.0 };
    let (v, dp, dk) = length_of_a_parameter_grad(p, 2.0);
    assert_eq!((v, dk), (10.0, 5.0));
    assert_relative_eq!(dp.x, 2.0 * 0.6, max_relative = 1e-15);
    assert_relative_eq!(dp.y, 2.0 * 0.8, max_relative = 1e-15);
}

/// A struct another `#[grad]` call returned, its own `len` called on it:
/// the macro does not see the value's type, read `p.len()` as
/// `Vec::len`, an integer, and dropped its gradient: (9.08, 1, 0) at
/// (3, 2). A `let` that states the type makes it the struct's method; one
/// that does not is a compile error (`tests/ui/len_of_a_struct_call_result.rs`).
#[grad]
fn made(a: f64, b: f64) -> V2 {
    V2 { x: a * b, y: a - b }
}

#[grad]
fn length_of_a_call_result(a: f64, b: f64) -> f64 {
    let p: V2 = made(a, b);
    p.len() + a
}

/// Methods without arguments on other calls' results, the type stated,
/// beside a method named like no float's, once refused as "no derivative
/// rule" (`made(a, b).sum()`).
#[grad]
fn method_of_a_call_result(a: f64, b: f64) -> f64 {
    let p: V2 = made(a, b);
    let q: V2 = made(b, a);
    p.abs() * q.len() + made(a, b).sum()
}

#[test]
fn a_method_of_a_struct_returned_by_a_call_is_the_users() {
    let (a, b) = (3.0_f64, 2.0_f64);
    let (x, y) = (a * b, a - b);
    let r = x.hypot(y);
    let (v, da, db) = length_of_a_call_result_grad(a, b);
    assert_eq!(v, r + a);
    // d/da: (x b + y)/r + 1; d/db: (x a − y)/r.
    assert_relative_eq!(da, (x * b + y) / r + 1.0, max_relative = 1e-14);
    assert_relative_eq!(db, (x * a - y) / r, max_relative = 1e-14);
    // |ab| + |a − b| times hypot(ab, b − a), with ab > 0, a > b.
    let (s, t) = (x + y, x.hypot(b - a));
    let (v, da, db) = method_of_a_call_result_grad(a, b);
    assert_relative_eq!(v, s * t + s, max_relative = 1e-15);
    let (ds_da, ds_db) = (b + 1.0, a - 1.0);
    let (dt_da, dt_db) = ((x * b - (b - a)) / t, (x * a + (b - a)) / t);
    assert_relative_eq!(da, ds_da * t + s * dt_da + ds_da, max_relative = 1e-14);
    assert_relative_eq!(db, ds_db * t + s * dt_db + ds_db, max_relative = 1e-14);
}

// ---- an associated function beside a free one of the same name -----------

/// Free functions, each with the name and signature of an associated
/// function of `Optics` below, and other values. A generated function of
/// an associated function without a receiver called its sibling by its
/// bare name (`_jacobian` its `_vjp` and the function itself, the forward
/// `_jacobian` its `_jvp`, `_trace` its `_trace_into`, `_hvp` and
/// `_hessian` its `_grad`), which inside an `impl` found these: the
/// associated function's `_jacobian`, `_trace` and `_hessian` were the
/// free function's, silently.
#[grad]
fn focus(x: f64, n: usize) -> [f64; 2] {
    let mut y = x;
    for _ in 0..n {
        y = y.sin() * 2.0;
    }
    [y, x]
}

#[grad(jvp)]
fn fan(t: f64) -> [f64; 3] {
    [t, t * 2.0, t.sin()]
}

#[grad(trace)]
fn lens(x: f64) -> f64 {
    x * x * x
}

#[grad(hessian)]
fn curve<T: autodiff::Float>(x: T) -> T {
    x * x * x
}

#[grad(hessian)]
fn bowl(x: f64, y: f64) -> f64 {
    x * x * x + y
}

pub struct Optics;

impl Optics {
    #[grad]
    fn focus(x: f64, n: usize) -> [f64; 2] {
        let mut y = x;
        for _ in 0..n {
            y = y.cos() * 3.0;
        }
        [y, x]
    }

    #[grad(jvp)]
    fn fan(x: f64) -> [f64; 3] {
        [x.cos(), x * 3.0, x]
    }

    #[grad(trace)]
    fn lens(x: f64) -> f64 {
        x * x
    }

    #[grad(hessian)]
    fn curve<T: autodiff::Float>(x: T) -> T {
        x * x
    }

    #[grad(hessian)]
    fn bowl(x: f64, y: f64) -> f64 {
        x * x * y
    }
}

#[test]
fn an_associated_functions_generated_functions_are_its_own() {
    for x in [0.5f64, -1.3, 2.2] {
        // `focus`: recorded (a loop), so its Jacobian is `_vjp` per row.
        let (y1, d1) = (3.0 * x.cos(), -3.0 * x.sin());
        let (y2, d2) = (3.0 * y1.cos(), -3.0 * y1.sin() * d1);
        let (v, j) = Optics::focus_jacobian(x, 2);
        assert_relative_eq!(v[0], y2, max_relative = 1e-14);
        assert_eq!(v[1], x);
        assert_relative_eq!(j[0][0], d2, max_relative = 1e-13);
        assert_eq!(j[1][0], 1.0);
        assert_eq!(focus_jacobian(x, 2).0, focus(x, 2));
        // `fan`: one column, so its Jacobian is `_jvp`'s.
        let (v, j) = Optics::fan_jacobian(x);
        assert_eq!(v, [x.cos(), x * 3.0, x]);
        assert_eq!(j, [[-x.sin()], [3.0], [1.0]]);
        assert_eq!(fan_jacobian(x).1, [[1.0], [2.0], [x.cos()]]);
        // `lens`: its trace's value and gradient.
        let t = Optics::lens_trace(x);
        assert_eq!(t.value(), x * x);
        assert_eq!(t.gradient(), vec![("x".to_string(), 2.0 * x)]);
        assert_eq!(lens_trace(x).value(), x * x * x);
        // `curve` (generic) and `bowl` (written for f64, through its
        // generic twin): their Hessians.
        assert_eq!(Optics::curve_hessian(x), (x * x, 2.0 * x, vec![vec![2.0]]));
        assert_eq!(curve_hessian(x).2, vec![vec![6.0 * x]]);
        let y = 0.75;
        let (v, dx, dy, h) = Optics::bowl_hessian(x, y);
        assert_eq!((v, dx, dy), (x * x * y, 2.0 * x * y, x * x));
        assert_eq!(h, vec![vec![2.0 * y, 2.0 * x], vec![2.0 * x, 0.0]]);
        assert_eq!(bowl_hessian(x, y).3[0][0], 6.0 * x);
    }
}

// ---- a generic method kept as written on a struct lent by `&` ------------

// A generic method with #[grad] called where its value carries no
// derivative (an unused tuple part, a `while` condition), on a struct the
// function takes by `&` and given a value that carries one: the check
// that the method has #[grad] gave its argument as `never()`, whose type
// nothing inferred (E0283 "cannot infer type of the type parameter `T`
// declared on the function `never`", found by the differential tester's
// generic twins under #[grad(hessian)]). The argument is now `like(&x)`,
// of its type.

#[derive(Clone, Debug, autodiff::Differentiable)]
struct Lens {
    gain: f64,
    limit: f64,
}

impl Lens {
    #[grad]
    fn focus<T: autodiff::Float>(&self, x: T) -> T {
        x * T::from_f64(self.gain)
    }
}

#[grad(hessian, wrt(x))]
fn kept_method_part<T: autodiff::Float>(lens: &Lens, x: T, n: usize) -> T {
    let (_unused, kept) = match n {
        0 => (x, x * x),
        _ => (lens.focus(x) / 4.0, x.sin()),
    };
    kept
}

#[grad(hessian, wrt(x))]
fn kept_method_condition<T: autodiff::Float>(lens: &Lens, x: T, n: usize) -> T {
    let mut k = 0;
    while k < n && lens.focus(x.sin() * 2.0) < T::from_f64(-10.0) {
        k += 1;
    }
    let mut acc = x;
    for _ in 0..n {
        if lens.focus(x) > T::from_f64(lens.limit) {
            break;
        }
        acc = acc * x;
    }
    acc
}

#[test]
fn a_generic_method_kept_as_written_on_a_lent_struct_compiles() {
    let lens = Lens {
        gain: 2.5,
        limit: 2.0,
    };
    for x in [-1.113_f64, -0.4, 0.3] {
        let (v, g, h) = kept_method_part_hessian(&lens, x, 1);
        assert_relative_eq!(v, f64::sin(x), epsilon = 1e-15);
        assert_relative_eq!(g, f64::cos(x), epsilon = 1e-15);
        assert_relative_eq!(h[0][0], -f64::sin(x), epsilon = 1e-15);
    }
    // 2.5 x stays below the limit 2 at these points: x⁴.
    for x in [-1.113_f64, -0.4, 0.3] {
        let (v, g, h) = kept_method_condition_hessian(&lens, x, 3);
        assert_relative_eq!(v, x.powi(4), epsilon = 1e-14);
        assert_relative_eq!(g, 4.0 * x.powi(3), epsilon = 1e-14);
        assert_relative_eq!(h[0][0], 12.0 * x * x, epsilon = 1e-13);
    }
    // Past the limit the loop stops at once: x.
    let (v, g, h) = kept_method_condition_hessian(&lens, 1.5, 3);
    assert_eq!((v, g, h[0][0]), (1.5, 1.0, 0.0));
}

/// `let (a, b);` assigned later by a destructuring assignment was kept as
/// written, and the assignment defined neither name: the product read
/// them as constants, and the gradient came out as (0, 0). Each part is
/// now a deferred variable of its own, as `let a; let b;` are.
#[grad]
fn deferred_tuple(v: f64, w: f64) -> f64 {
    let (a, b);
    (a, b) = (v.sin(), w * v);
    a * b
}

#[grad]
fn deferred_array(v: f64, w: f64) -> f64 {
    let [a, b]: [f64; 2];
    [a, b] = [v.sin(), w * v];
    let (c, (d, e));
    (c, (d, e)) = (a + w, (b * b, 2.0));
    c * d / e
}

#[test]
fn a_deferred_tuple_let_assigned_by_destructuring() {
    for (v, w) in [(0.7, -0.3), (-1.2, 2.5), (2.0, 0.5)] {
        let (value, d_v, d_w) = deferred_tuple_grad(v, w);
        assert_relative_eq!(value, v.sin() * w * v, max_relative = 1e-15);
        assert_relative_eq!(d_v, v.cos() * w * v + v.sin() * w, max_relative = 1e-14);
        assert_relative_eq!(d_w, v.sin() * v, max_relative = 1e-14);

        // (sin v + w)·(w v)² / 2
        let (value, d_v, d_w) = deferred_array_grad(v, w);
        let (c, d) = (v.sin() + w, (w * v).powi(2));
        assert_relative_eq!(value, c * d / 2.0, max_relative = 1e-14);
        assert_relative_eq!(
            d_v,
            (v.cos() * d + c * 2.0 * w * w * v) / 2.0,
            max_relative = 1e-13
        );
        assert_relative_eq!(d_w, (d + c * 2.0 * w * v * v) / 2.0, max_relative = 1e-13);
    }
}

pub struct Pairs {
    pub p: (f64, f64),
    pub pairs: Vec<(f64, f64)>,
}

/// `let (mut a, mut b) = d.p;` of a constant struct's tuple, then
/// `(a, b) = (..)`: the names were kept as written and the assignment
/// defined neither, so d/dv and d/dw came out as 0. A tuple read in place
/// is now read element by element (`(d.p.0, d.p.1)`), so is a slice's
/// element, `let (x, y) = d.pairs[i];` (calls trial r04, refused before).
#[grad(wrt(v, w))]
fn tuple_read_in_place(d: &Pairs, v: f64, w: f64) -> f64 {
    let (mut a, mut b) = d.p;
    (a, b) = (a * v, b + w);
    let mut s = a * b;
    for i in 0..d.pairs.len() {
        let (x, y) = d.pairs[i];
        s += x * v - y * w * w;
    }
    s
}

#[grad]
fn least_squares(a: f64, obs: &[(f64, f64)]) -> f64 {
    let mut loss = 0.0;
    for k in 0..obs.len() {
        let (ox, oy) = obs[k];
        loss += (a * ox - oy).powi(2);
    }
    loss
}

#[test]
fn a_tuple_destructured_in_place() {
    let d = Pairs {
        p: (2.0, 3.0),
        pairs: vec![(1.0, 2.0), (0.5, -1.0)],
    };
    for (v, w) in [(0.5, 0.25), (-1.5, 2.0)] {
        // (2v)(3 + w) + Σ (x v − y w²)
        let (value, d_v, d_w) = tuple_read_in_place_grad(&d, v, w);
        assert_relative_eq!(value, tuple_read_in_place(&d, v, w), max_relative = 1e-15);
        assert_relative_eq!(d_v, 2.0 * (3.0 + w) + 1.5, max_relative = 1e-14);
        assert_relative_eq!(d_w, 2.0 * v - 2.0 * w * (2.0 - 1.0), max_relative = 1e-14);
    }
    let obs = [(1.0, 2.0), (3.0, 1.0)];
    let (value, d_a, d_obs) = least_squares_grad(1.5, &obs);
    assert_eq!(value, 12.5);
    assert_eq!(d_a, 20.0);
    assert_eq!(d_obs, vec![(-1.5, 1.0), (10.5, -7.0)]);
}

/// A value kept in a local `Cell` and read back gave a zero derivative
/// through the cell (the statement changing it in place defined nothing);
/// it is now refused (ui value_kept_in_a_cell). A `Cell` of constants,
/// changed in a loop, still compiles and is read as the constant it is.
#[grad]
fn counted_in_a_cell(x: f64) -> f64 {
    let c = std::cell::Cell::new(0.0);
    for _ in 0..3 {
        c.set(c.get() + 1.0);
    }
    x * c.get()
}

#[test]
fn a_cell_of_constants() {
    assert_eq!(counted_in_a_cell_grad(2.0), (6.0, 3.0));
}

/// A compound assignment whose right side changes what its place reads
/// (trial 5 r98, r98b): Rust evaluates the right side of `+=` on floats
/// first, then the place; the lowering read `s` (and `v[i]`'s index)
/// before, and gave `_grad` another value and gradient than the function.
#[grad]
fn right_side_first(x: f64, y: f64) -> f64 {
    let mut s = x;
    s += {
        s = s * y;
        s
    };
    let mut v = vec![x, y];
    let mut i = 0;
    v[i] += {
        i += 1;
        v[i] * 2.0
    };
    s + v[0] + 10.0 * v[1]
}

#[test]
fn a_compound_assignment_evaluates_its_right_side_first() {
    // 2xy + x + 10 · 3y = 2xy + x + 30y (v[1] gets 2y added to y)
    for (x, y) in [(2.0, 3.0), (-1.5, 0.5), (0.25, -4.0)] {
        let (v, dx, dy) = right_side_first_grad(x, y);
        assert_eq!(v, right_side_first(x, y));
        assert_relative_eq!(v, 2.0 * x * y + x + 30.0 * y, max_relative = 1e-15);
        assert_relative_eq!(dx, 2.0 * y + 1.0, max_relative = 1e-15);
        assert_relative_eq!(dy, 2.0 * x + 30.0, max_relative = 1e-15);
    }
}

/// A method of the user's named like a float method (`abs`) or not
/// (`length`) on a part of a differentiated struct whose type a `let`
/// states (`let d: V2 = r.dir;`), on an element of a slice parameter of
/// structs (`vs[0]`, a `for v in vs` loop's, a `let v = vs[i];`, a
/// closure's): the struct's own, through its #[grad] (trial 9 r502–r507:
/// code that did not compile, or "cannot differentiate through this
/// expression"). Without a stated type (`r.dir.abs()`), a compile error
/// at the part (`tests/ui/float_named_method_of_a_part.rs`).
#[derive(Clone, Copy, autodiff::Differentiable)]
pub struct Ray2 {
    pub origin: V2,
    pub dir: V2,
}

#[grad(wrt(r, t))]
fn ray_measure(r: &Ray2, t: f64) -> f64 {
    let d: V2 = r.dir;
    let o: V2 = r.origin;
    d.abs() * t + o.len() * o.sum()
}

/// A struct's own `len` on an element of a slice, a `Vec` or an array of
/// structs was read as a collection's length, an integer: its gradient,
/// and that of every term multiplied by it, silently zero (`vs[1].len()
/// * k`, `for v in vs { s += v.len() * k; }`, `vs.iter().map(|v|
/// v.len()).sum()`: the whole gradient with respect to `vs` was 0). Found
/// while making trial 9's r506 compile.
// `&Vec` is what this test is about.
#[allow(clippy::ptr_arg)]
#[grad(wrt(vs, k))]
fn lengths_of_vec(vs: &Vec<V2>, k: f64) -> f64 {
    let mut s = vs.iter().map(|v| v.len()).sum::<f64>();
    for (i, v) in vs.iter().enumerate() {
        s += v.len() * (i as f64 + k);
    }
    s + vs[1].len() * k
}

#[grad(wrt(vs, k))]
fn lengths_of_array(vs: [V2; 2], k: f64) -> f64 {
    let mut s = 0.0;
    for v in vs {
        s += v.len() * k + v.sum();
    }
    s * vs[0].sum()
}

#[derive(Clone, autodiff::Differentiable)]
pub struct Polygon {
    pub corners: Vec<V2>,
}

/// A field's elements, whose type the macro does not see, with the type
/// stated as the compile error asks (`r.dir.len()` unstated:
/// `tests/ui/len_of_a_struct_part.rs`).
#[grad(wrt(p, k))]
fn lengths_of_a_field(p: &Polygon, k: f64) -> f64 {
    let mut s = 0.0;
    for c in &p.corners {
        let c: V2 = *c;
        s += c.len() * k;
    }
    s
}

#[allow(clippy::needless_range_loop)]
#[grad(wrt(vs, k))]
fn slice_measure(vs: &[V2], k: f64) -> f64 {
    let mut s = 0.0;
    for v in vs {
        s += v.abs() * k + v.len();
    }
    for i in 0..vs.len() {
        let v = vs[i];
        s += v.sum() * v.x;
    }
    s + vs[0].abs() * vs[1].len() + vs.iter().map(|v| v.abs()).sum::<f64>()
}

/// Central differences of `f` at `p`, step 1e-6.
fn central_all(f: impl Fn(&[f64]) -> f64, p: &[f64]) -> Vec<f64> {
    (0..p.len())
        .map(|i| {
            let (mut a, mut b) = (p.to_vec(), p.to_vec());
            a[i] += 1e-6;
            b[i] -= 1e-6;
            (f(&a) - f(&b)) / 2e-6
        })
        .collect()
}

#[test]
fn a_structs_own_len_and_float_named_methods_on_an_element_or_a_stated_part_are_its_own() {
    for (x0, y0, x1, y1, t) in [
        (0.3, -1.2, 2.0, 0.7, 1.5),
        (-2.0, 0.4, -0.6, -1.1, -0.8),
        (1.3, 2.2, 0.9, -3.0, 0.2),
    ] {
        let r = Ray2 {
            origin: V2 { x: x0, y: y0 },
            dir: V2 { x: x1, y: y1 },
        };
        let (v, dr, dt) = ray_measure_grad(&r, t);
        let at = |p: &[f64]| {
            let r = Ray2 {
                origin: V2 { x: p[0], y: p[1] },
                dir: V2 { x: p[2], y: p[3] },
            };
            ray_measure(&r, p[4])
        };
        let p = [x0, y0, x1, y1, t];
        assert_eq!(v, at(&p));
        let got = [dr.origin.x, dr.origin.y, dr.dir.x, dr.dir.y, dt];
        for (g, want) in got.iter().zip(central_all(at, &p)) {
            assert_relative_eq!(*g, want, max_relative = 1e-6, epsilon = 1e-8);
        }

        let vs = [V2 { x: x0, y: y0 }, V2 { x: x1, y: y1 }];
        let (v, dvs, dk) = slice_measure_grad(&vs, t);
        let at = |p: &[f64]| {
            let vs = [V2 { x: p[0], y: p[1] }, V2 { x: p[2], y: p[3] }];
            slice_measure(&vs, p[4])
        };
        assert_eq!(v, at(&p));
        let got = [dvs[0].x, dvs[0].y, dvs[1].x, dvs[1].y, dk];
        for (g, want) in got.iter().zip(central_all(at, &p)) {
            assert_relative_eq!(*g, want, max_relative = 1e-6, epsilon = 1e-8);
        }

        let pair = |p: &[f64]| [V2 { x: p[0], y: p[1] }, V2 { x: p[2], y: p[3] }];
        let (v, dvs, dk) = lengths_of_vec_grad(&pair(&p).to_vec(), t);
        let at = |p: &[f64]| lengths_of_vec(&pair(p).to_vec(), p[4]);
        assert_eq!(v, at(&p));
        let got = [dvs[0].x, dvs[0].y, dvs[1].x, dvs[1].y, dk];
        for (g, want) in got.iter().zip(central_all(at, &p)) {
            assert_relative_eq!(*g, want, max_relative = 1e-6, epsilon = 1e-8);
        }
        let (v, dvs, dk) = lengths_of_array_grad(pair(&p), t);
        let at = |p: &[f64]| lengths_of_array(pair(p), p[4]);
        assert_eq!(v, at(&p));
        let got = [dvs[0].x, dvs[0].y, dvs[1].x, dvs[1].y, dk];
        for (g, want) in got.iter().zip(central_all(at, &p)) {
            assert_relative_eq!(*g, want, max_relative = 1e-6, epsilon = 1e-8);
        }
        let polygon = |p: &[f64]| Polygon {
            corners: pair(p).to_vec(),
        };
        let (v, dp, dk) = lengths_of_a_field_grad(&polygon(&p), t);
        let at = |p: &[f64]| lengths_of_a_field(&polygon(p), p[4]);
        assert_eq!(v, at(&p));
        let c = &dp.corners;
        let got = [c[0].x, c[0].y, c[1].x, c[1].y, dk];
        for (g, want) in got.iter().zip(central_all(at, &p)) {
            assert_relative_eq!(*g, want, max_relative = 1e-6, epsilon = 1e-8);
        }
    }
}

/// Trial 11 r999: `f64::from_bits(x.to_bits())` of an active `x` gave a
/// zero derivative, silently (the bits were taken for an integer, which
/// carries none), and a fast inverse square root's first guess a gradient
/// 6 % off. `to_bits` of an active float is refused now
/// (`tests/ui/bits_of_an_active_float.rs`); of a constant it still works,
/// beside a derivative that does not pass through it.
#[grad(wrt(x))]
fn scaled_by_the_bits_of_a_constant(x: f64, k: f64) -> f64 {
    let b = (k.to_bits() >> 52) % 7;
    let g = f64::from_bits(k.to_bits() ^ 1);
    x * x * b as f64 + g * x
}

#[test]
fn bits_of_a_constant_float_carry_no_derivative_and_need_none() {
    for (x, k) in [(0.3, 2.0), (-1.7, 1e-3), (2.5, -7.25)] {
        let (v, dx) = scaled_by_the_bits_of_a_constant_grad(x, k);
        assert_eq!(v, scaled_by_the_bits_of_a_constant(x, k));
        let b = ((k.to_bits() >> 52) % 7) as f64;
        let g = f64::from_bits(k.to_bits() ^ 1);
        assert_relative_eq!(dx, 2.0 * x * b + g, max_relative = 1e-15);
    }
}

/// Trial 11: a bare `swap(&mut u, &mut w)` of two arrays was taken for
/// `std::mem::swap`, so a function of the user's named `swap` that adds
/// `w` into `u` gave the value and gradient of an exchange, silently. A
/// bare `swap` is refused now (`tests/ui/bare_mem_function.rs`); the
/// user's function called by its path is differentiated as itself, and
/// `std::mem::swap` by its path as an exchange.
#[grad]
fn swap(a: &mut f64, b: &mut f64) {
    let t = *a;
    *a = *b + 1.0;
    *b = 2.0 * t;
}

#[grad]
fn own_swap_by_its_path(x: f64, y: f64) -> f64 {
    let (mut p, mut q) = (x, y * y);
    self::swap(&mut p, &mut q);
    let mut u = vec![p, q];
    let mut w = vec![q * x, p];
    std::mem::swap(&mut u, &mut w);
    p * q + u[0] - w[1]
}

#[test]
fn a_function_named_swap_is_the_users_and_std_mem_swap_exchanges() {
    for (x, y) in [(0.3, 2.0), (-1.1, 0.4)] {
        let (v, dx, dy) = own_swap_by_its_path_grad(x, y);
        assert_eq!(v, own_swap_by_its_path(x, y));
        // p = y² + 1, q = 2x; u = [q x, p], w = [p, q]: p q + q x − q.
        let (p, q) = (y * y + 1.0, 2.0 * x);
        assert_relative_eq!(v, p * q + q * x - q, max_relative = 1e-15);
        assert_relative_eq!(dx, 2.0 * p + 4.0 * x - 2.0, max_relative = 1e-14);
        assert_relative_eq!(dy, 2.0 * y * q, max_relative = 1e-14);
    }
}

// A wrong value and gradient, silently (trial 12): a `macro_rules!`
// fragment reaches #[grad] as an invisible group, `$e * 2.0` of `$e` =
// `3.0 + k` meaning (3 + k) · 2; printed back, rustc read 3 + k · 2, in the
// function kept as written too. And a `$b:block` fragment as a statement,
// on which the macro read nothing and generated nothing, without an error.

macro_rules! scaled_by {
    ($name:ident, $k:ident, $e:expr, $b:block) => {
        #[grad]
        fn $name($k: f64, w: f64) -> f64 {
            $b
            let y = $e * 2.0;
            let z = -$e;
            y * w + z * z + $e.sin() * $e
        }
    };
}

scaled_by!(grouped_fragments, k, 3.0 + k, {
    let _ = 1;
});

struct Spring {
    k: f64,
}

macro_rules! energy_method {
    ($x:ident, $e:expr) => {
        impl Spring {
            #[grad(wrt($x))]
            fn energy(&self, $x: f64) -> f64 {
                $e * $x * self.k
            }
        }
    };
}

energy_method!(x, 0.5 * x + 1.0);

#[test]
fn fragments_of_macro_rules_keep_their_grouping() {
    for (k, w) in [(0.5f64, 2.0), (-1.5, 0.25)] {
        let s = 3.0 + k;
        let want = s * 2.0 * w + s * s + s.sin() * s;
        assert_relative_eq!(grouped_fragments(k, w), want, max_relative = 1e-15);
        let (v, dk, dw) = grouped_fragments_grad(k, w);
        assert_relative_eq!(v, want, max_relative = 1e-15);
        assert_relative_eq!(
            dk,
            2.0 * w + 2.0 * s + s.cos() * s + s.sin(),
            max_relative = 1e-14
        );
        assert_relative_eq!(dw, 2.0 * s, max_relative = 1e-15);
    }
    let sp = Spring { k: 3.0 };
    let (v, dx) = sp.energy_grad(2.0);
    // (0.5 x + 1) · x · k at x = 2, k = 3
    assert_relative_eq!(v, 12.0, max_relative = 1e-15);
    assert_relative_eq!(sp.energy(2.0), 12.0, max_relative = 1e-15);
    assert_relative_eq!(dx, (2.0 * 0.5 * 2.0 + 1.0) * 3.0, max_relative = 1e-15);
}

//! The expansion of `#[grad]` is warning-free and hygienic: this file is
//! compiled with `#![deny(warnings)]` (and is part of the clippy run with
//! `-D warnings`), and each function exercises a different part of the
//! accepted subset. Every test checks that the value of `f_grad` is the
//! value of `f` and that the gradient matches a hand-derived formula.

#![deny(warnings)]

use approx::assert_relative_eq;
use autodiff::grad;

const EPS: f64 = 1e-12;

// `let` with and without a type annotation.
#[grad]
fn lets(x: f64, y: f64) -> f64 {
    let a = x * y;
    let b: f64 = a + x;
    b * 2.0
}

#[test]
fn lets_gradient() {
    let (x, y) = (1.5, -0.75);
    let (v, d_x, d_y) = lets_grad(x, y);
    assert_eq!(v, lets(x, y));
    assert_relative_eq!(d_x, 2.0 * (y + 1.0), epsilon = EPS);
    assert_relative_eq!(d_y, 2.0 * x, epsilon = EPS);
}

// Shadowing, including of a parameter.
#[grad]
fn shadowing(x: f64) -> f64 {
    let y = x * x;
    let y = y + x;
    let x = y * 3.0;
    x - 1.0
}

#[test]
fn shadowing_gradient() {
    let x = 0.8;
    let (v, d_x) = shadowing_grad(x);
    assert_eq!(v, shadowing(x));
    assert_relative_eq!(d_x, 3.0 * (2.0 * x + 1.0), epsilon = EPS);
}

// `let mut` with `+= -= *= /=`, a `mut` parameter reassigned, and a
// `let` declared first and assigned later.
#[grad]
#[allow(clippy::needless_late_init)]
fn compound(mut x: f64, y: f64) -> f64 {
    let mut s = x;
    s += y; // x + y
    s *= x; // x² + xy
    s -= y; // x² + xy - y
    s /= 2.0; // (x² + xy - y) / 2
    x *= 3.0; // 3x
    let later: f64;
    later = s + x;
    later
}

#[test]
fn compound_gradient() {
    let (x, y) = (1.25, 0.5);
    let (v, d_x, d_y) = compound_grad(x, y);
    assert_eq!(v, compound(x, y));
    assert_relative_eq!(v, (x * x + x * y - y) / 2.0 + 3.0 * x, epsilon = EPS);
    assert_relative_eq!(d_x, (2.0 * x + y) / 2.0 + 3.0, epsilon = EPS);
    assert_relative_eq!(d_y, (x - 1.0) / 2.0, epsilon = EPS);
}

// Blocks as expressions (one binding an inactive local of its own) and
// `return x;` as the last statement.
#[grad]
#[allow(clippy::needless_return)]
fn blocks(x: f64, y: f64) -> f64 {
    let a = {
        let t = x * y;
        t + 1.0
    };
    let c = {
        let mut v = vec![1.0, 2.0];
        v.push(3.0);
        x * v[2]
    };
    let b = {
        let sq = a * a;
        sq + c
    };
    return b + x;
}

#[test]
fn blocks_gradient() {
    let (x, y) = (0.6, -1.4);
    let (v, d_x, d_y) = blocks_grad(x, y);
    assert_eq!(v, blocks(x, y));
    let a = x * y + 1.0;
    assert_relative_eq!(d_x, 2.0 * a * y + 3.0 + 1.0, epsilon = EPS);
    assert_relative_eq!(d_y, 2.0 * a * x, epsilon = EPS);
}

// Float literals in every form.
#[grad]
fn literals(x: f64) -> f64 {
    2.0 * x + 3. * x * x + 2e-3 / x - x * 2.0_f64 + 1_f64
}

#[test]
fn literals_gradient() {
    let x = 0.9;
    let (v, d_x) = literals_grad(x);
    assert_eq!(v, literals(x));
    assert_relative_eq!(d_x, 2.0 + 6.0 * x - 2e-3 / (x * x) - 2.0, epsilon = EPS);
}

// Integer and boolean parameters are inactive: no gradient slot; integer
// arithmetic and casts to float.
#[grad]
fn int_params(x: f64, n: i32, k: usize, flip: bool) -> f64 {
    let m = n * 2;
    let sign = if_flip(flip);
    x.powi(m) * k as f64 + x * n as f64 * sign
}

fn if_flip(flip: bool) -> f64 {
    if flip {
        -1.0
    } else {
        1.0
    }
}

#[test]
fn int_params_gradient() {
    let (x, n, k) = (1.1, 2, 3);
    let (v, d_x) = int_params_grad(x, n, k, true);
    assert_eq!(v, int_params(x, n, k, true));
    let (nf, kf) = (n as f64, k as f64);
    assert_relative_eq!(d_x, 2.0 * nf * kf * x.powi(2 * n - 1) - nf, epsilon = EPS);
}

// Constants of the standard library.
#[grad]
fn constants(x: f64) -> f64 {
    x * std::f64::consts::PI + core::f64::consts::E / x + f64::EPSILON
}

#[test]
fn constants_gradient() {
    let x = 1.7;
    let (v, d_x) = constants_grad(x);
    assert_eq!(v, constants(x));
    assert_relative_eq!(
        d_x,
        std::f64::consts::PI - std::f64::consts::E / (x * x),
        epsilon = EPS
    );
}

// Float methods, in method and in path form, and the operators `-x` and `%`.
#[grad]
fn methods(x: f64, y: f64) -> f64 {
    let p = x.powi(3) + x.powf(y) + y.atan2(x) + x.hypot(y);
    let q = x.mul_add(y, 1.0) + x.clamp(-10.0, 10.0) + x.max(y) + x.min(y);
    let r = f64::sin(x) + f64::max(y, 0.0) - x + x % 1.0;
    p + q + r
}

#[test]
fn methods_gradient() {
    let (x, y) = (1.3, 0.7);
    let (v, d_x, d_y) = methods_grad(x, y);
    assert_eq!(v, methods(x, y));
    let r2 = x * x + y * y;
    let h = r2.sqrt();
    let expected_x =
        3.0 * x * x + y * x.powf(y - 1.0) - y / r2 + x / h + y + 1.0 + 1.0 + x.cos() - 1.0 + 1.0;
    let expected_y = x.powf(y) * x.ln() + x / r2 + y / h + x + 1.0 + 1.0;
    assert_relative_eq!(d_x, expected_x, epsilon = EPS);
    assert_relative_eq!(d_y, expected_y, epsilon = EPS);
}

// The runtime's machine-learning functions, by full path and imported.
#[grad]
fn ml(x: f64) -> f64 {
    autodiff::sigmoid(x) + autodiff::relu(x) + autodiff::softplus(x) + autodiff::log_sigmoid(x)
}

use autodiff::sigmoid;

#[grad]
fn ml_imported(x: f64) -> f64 {
    sigmoid(x * 2.0)
}

#[test]
fn ml_gradient() {
    let x = 0.4;
    let (v, d_x) = ml_grad(x);
    assert_eq!(v, ml(x));
    let s = 1.0 / (1.0 + (-x).exp());
    assert_relative_eq!(d_x, s * (1.0 - s) + 1.0 + s + (1.0 - s), epsilon = EPS);

    let (v, d_x) = ml_imported_grad(x);
    assert_eq!(v, ml_imported(x));
    let s2 = 1.0 / (1.0 + (-2.0 * x).exp());
    assert_relative_eq!(d_x, 2.0 * s2 * (1.0 - s2), epsilon = EPS);
}

// Inactive code kept as written: a vector, its length, logging and
// assertions that read active values.
#[grad]
fn inactive(x: f64, y: f64) -> f64 {
    let mut v = vec![1.0, 2.0];
    v.push(4.0);
    let n = v.len();
    let z = x * y;
    println!("z = {z}, twice x = {}", x * 2.0);
    assert!(z.is_finite());
    assert!(n == 3, "n = {n}");
    debug_assert!(x > -1e9, "x = {x:?}");
    z * n as f64 + v[1]
}

#[test]
fn inactive_gradient() {
    let (x, y) = (0.5, 2.5);
    let (v, d_x, d_y) = inactive_grad(x, y);
    assert_eq!(v, inactive(x, y));
    assert_relative_eq!(v, 3.0 * x * y + 2.0, epsilon = EPS);
    assert_relative_eq!(d_x, 3.0 * y, epsilon = EPS);
    assert_relative_eq!(d_y, 3.0 * x, epsilon = EPS);
}

// Hygiene: user locals named like the macro's temporaries (`t0`, `t1`,
// `g0`) and adjoints (`d_x`, `d_y`).
#[grad]
fn hygiene_locals(x: f64, y: f64) -> f64 {
    let t0 = x * y;
    let d_x = t0 + x;
    let d_y = d_x * y;
    let g0 = d_y.exp();
    let t1 = 2.0;
    g0 * t1 + d_x
}

#[test]
fn hygiene_locals_gradient() {
    let (x, y) = (0.3, 0.5);
    let (v, d_x, d_y) = hygiene_locals_grad(x, y);
    assert_eq!(v, hygiene_locals(x, y));
    let g0 = (x * y * y + x * y).exp();
    assert_relative_eq!(d_x, 2.0 * g0 * (y * y + y) + y + 1.0, epsilon = EPS);
    assert_relative_eq!(d_y, 2.0 * g0 * (2.0 * x * y + x) + x, epsilon = EPS);
}

// Hygiene: a parameter named like the adjoint of another one.
#[grad]
fn hygiene_params(x: f64, d_x: f64) -> f64 {
    let t0 = x * d_x;
    let t1 = t0.sin();
    let g0 = t1 + x;
    g0 * t0
}

#[test]
fn hygiene_params_gradient() {
    let (x, d) = (0.7, 1.9);
    let (v, grad_x, grad_d) = hygiene_params_grad(x, d);
    assert_eq!(v, hygiene_params(x, d));
    let u = x * d;
    assert_relative_eq!(
        grad_x,
        (u.cos() * d + 1.0) * u + (u.sin() + x) * d,
        epsilon = EPS
    );
    assert_relative_eq!(grad_d, u.cos() * x * u + (u.sin() + x) * x, epsilon = EPS);
}

// `wrt` restricts the gradient to the named parameters.
#[grad(wrt(y))]
fn wrt_one(x: f64, y: f64) -> f64 {
    x * y.sin()
}

#[grad(wrt(z, x))]
fn wrt_two(x: f64, y: f64, z: f64) -> f64 {
    x * y + y * z + x * z
}

#[test]
fn wrt_gradient() {
    let (x, y, z) = (1.2, 0.4, -0.3);
    let (v, d_y) = wrt_one_grad(x, y);
    assert_eq!(v, wrt_one(x, y));
    assert_relative_eq!(d_y, x * y.cos(), epsilon = EPS);

    // Gradients come in parameter order, whatever the order in `wrt`.
    let (v, d_x, d_z) = wrt_two_grad(x, y, z);
    assert_eq!(v, wrt_two(x, y, z));
    assert_relative_eq!(d_x, y + z, epsilon = EPS);
    assert_relative_eq!(d_z, y + x, epsilon = EPS);
}

// `f32` functions, constants and casts between float widths.
#[grad]
pub fn single(x: f32, y: f32) -> f32 {
    let a = x * y + std::f32::consts::PI;
    a.sin() * 2.0_f32 + (x as f64 * 0.5) as f32
}

#[test]
fn single_gradient() {
    let (x, y) = (0.5_f32, 1.5_f32);
    let (v, d_x, d_y) = single_grad(x, y);
    assert_eq!(v, single(x, y));
    let c = (x * y + std::f32::consts::PI).cos();
    assert_relative_eq!(d_x, 2.0 * c * y + 0.5, epsilon = 1e-5);
    assert_relative_eq!(d_y, 2.0 * c * x, epsilon = 1e-5);
}

/// The output does not depend on `y`, or on anything: the gradients are 0.
#[grad]
fn ignores_y(x: f64, y: f64) -> f64 {
    let _s = y.sin();
    x * 2.0
}

#[grad]
fn constant(_x: f64) -> f64 {
    1.0
}

#[test]
fn parameters_the_output_ignores_get_zero() {
    assert_eq!(ignores_y_grad(3.0, 4.0), (6.0, 2.0, 0.0));
    assert_eq!(constant_grad(3.0), (1.0, 0.0));
}

// A `match` in a checkpointed loop: the arm its branch passes out for the
// reverse sweep goes unread in the schedule's plain runs, without a
// warning (it warned "unused variable: `arm`").
#[grad]
#[allow(clippy::needless_range_loop)]
fn coded_steps(x: f64, codes: &[u8]) -> f64 {
    let mut s = x;
    #[autodiff::checkpoint(every = 2)]
    for i in 0..codes.len() {
        match codes[i] {
            0 => s = s.sin() + x,
            _ => s *= 1.5,
        }
    }
    s
}

#[test]
fn a_match_in_a_checkpointed_loop() {
    let codes = [0, 1, 0, 0, 1];
    let (v, d) = coded_steps_grad(0.7, &codes);
    assert_eq!(v, coded_steps(0.7, &codes));
    let h = 1e-6;
    let fd = (coded_steps(0.7 + h, &codes) - coded_steps(0.7 - h, &codes)) / (2.0 * h);
    assert_relative_eq!(d, fd, max_relative = 1e-7);
}

/// A shadowed parameter beside a closure whose parameter has its name,
/// called in an `if let` arm (trial 5 r112: the closure's `let`, read
/// as the parameter's rebinding, warned "value assigned to `f` is never
/// read").
#[grad]
fn shadowed_beside_a_closure(x: f64, y: f64, k: usize) -> f64 {
    let x = x * 2.0;
    let f = |x: f64| x * y;
    let w = if let Some(x) = Some(k) {
        f(x as f64)
    } else {
        0.0
    };
    w + x
}

#[test]
fn a_shadowed_parameter_beside_a_closure() {
    // k y + 2 x
    let (v, dx, dy) = shadowed_beside_a_closure_grad(1.0, 3.0, 2);
    assert_eq!(v, shadowed_beside_a_closure(1.0, 3.0, 2));
    assert_eq!((v, dx, dy), (8.0, 2.0, 2.0));
}

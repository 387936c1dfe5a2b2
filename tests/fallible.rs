//! Functions returning `Result<T, E>` or `Option<T>`: `_grad` returns
//! `Result<(value, gradients..), E>` (or `Option<..>`), the error passed
//! through untouched, `?` and early `return Err(..)` included. Exact
//! values (to rounding where a square root divides).

use approx::assert_relative_eq;
use autodiff::grad;

#[derive(Debug, PartialEq)]
enum FitError {
    Negative(f64),
    Parse(String),
}

fn parse_weight(s: &str) -> Result<f64, FitError> {
    s.trim().parse().map_err(|_| FitError::Parse(s.to_string()))
}

#[grad]
fn weighted_root(x: f64, y: f64, weight: &str) -> Result<f64, FitError> {
    let w = parse_weight(weight)?;
    if x < 0.0 {
        return Err(FitError::Negative(x));
    }
    let r = x.sqrt();
    Ok(w * r * y)
}

#[test]
fn a_result_passes_its_errors_and_differentiates_its_value() {
    let (v, dx, dy) = weighted_root_grad(4.0, 3.0, "2").unwrap();
    assert_eq!(v, 12.0);
    assert_eq!(dx, 2.0 * 3.0 / (2.0 * 2.0));
    assert_eq!(dy, 4.0);
    assert_eq!(
        weighted_root_grad(-1.0, 3.0, "2"),
        Err(FitError::Negative(-1.0))
    );
    assert_eq!(
        weighted_root_grad(4.0, 3.0, "two"),
        Err(FitError::Parse("two".to_string()))
    );
}

#[grad]
fn scaled_mean(xs: &[f64], k: Option<f64>) -> Option<f64> {
    let k = k?;
    if xs.is_empty() {
        return None;
    }
    let mut s = 0.0;
    for x in xs {
        s += x;
    }
    Some(k * s / xs.len() as f64)
}

#[test]
fn an_option_with_question_marks() {
    let (v, d) = scaled_mean_grad(&[1.0, 2.0, 3.0], Some(3.0)).unwrap();
    assert_eq!(v, 6.0);
    assert_eq!(d, vec![1.0, 1.0, 1.0]);
    assert_eq!(scaled_mean_grad(&[1.0], None), None);
    assert_eq!(scaled_mean_grad(&[], Some(1.0)), None);
}

/// A fallible function of two outputs: `_vjp` and `_jacobian` are
/// fallible too.
#[grad]
fn polar(x: f64, y: f64) -> Result<(f64, f64), String> {
    if x == 0.0 && y == 0.0 {
        return Err("the origin has no angle".to_string());
    }
    let r = (x * x + y * y).sqrt();
    let theta = y.atan2(x);
    Ok((r, theta))
}

#[test]
fn a_fallible_vector_output() {
    let ((r, t), dx, dy) = polar_vjp(3.0, 4.0, (1.0, 0.0)).unwrap();
    assert_eq!((r, t), (5.0, 4f64.atan2(3.0)));
    assert_relative_eq!(dx, 0.6, max_relative = 1e-15);
    assert_relative_eq!(dy, 0.8, max_relative = 1e-15);
    let (_, j) = polar_jacobian(3.0, 4.0).unwrap();
    assert_relative_eq!(j[0][0], 0.6, max_relative = 1e-15);
    assert_relative_eq!(j[0][1], 0.8, max_relative = 1e-15);
    assert_relative_eq!(j[1][0], -4.0 / 25.0, max_relative = 1e-15);
    assert_relative_eq!(j[1][1], 3.0 / 25.0, max_relative = 1e-15);
    assert!(polar_vjp(0.0, 0.0, (1.0, 0.0)).is_err());
    assert!(polar_jacobian(0.0, 0.0).is_err());
}

/// A `#[grad]` function that may fail, called with `?` from another in a
/// loop and in a branch, and with `unwrap`/`expect` from one that cannot
/// fail; an `Option` whose error is a branch's tail (`None`).
#[grad]
fn checked_root(x: f64) -> Result<f64, FitError> {
    if x < 0.0 {
        return Err(FitError::Negative(x));
    }
    Ok(x.sqrt())
}

#[grad]
fn small_exp(x: f64) -> Option<f64> {
    if x > 10.0 {
        None
    } else {
        Some(x.exp())
    }
}

#[grad]
fn roots_in_a_loop(x: f64, y: f64) -> Result<f64, FitError> {
    let mut s = 0.0;
    for k in 0..3 {
        s += checked_root(x + k as f64)? * y;
    }
    let z = if y > 1.0 { checked_root(y)? } else { y };
    Ok(s * z + checked_root(2.0)?)
}

#[grad]
fn exp_through_option(x: f64) -> Option<f64> {
    let v = small_exp(x)?;
    Some(v * x)
}

#[grad]
fn unwrapped(x: f64) -> f64 {
    let a = checked_root(x).unwrap();
    let b = small_exp(x).expect("x is at most 10");
    a * b + checked_root(x * 2.0).expect("x is not negative")
}

#[test]
fn fallible_callees_through_question_marks_and_unwrap() {
    let h = 1e-6;
    for (x, y) in [(2.0, 3.0), (0.5, 0.7)] {
        let (v, dx, dy) = roots_in_a_loop_grad(x, y).unwrap();
        assert_eq!(v, roots_in_a_loop(x, y).unwrap());
        let fx =
            (roots_in_a_loop(x + h, y).unwrap() - roots_in_a_loop(x - h, y).unwrap()) / (2.0 * h);
        let fy =
            (roots_in_a_loop(x, y + h).unwrap() - roots_in_a_loop(x, y - h).unwrap()) / (2.0 * h);
        assert_relative_eq!(dx, fx, max_relative = 1e-6);
        assert_relative_eq!(dy, fy, max_relative = 1e-6);
    }
    assert_eq!(
        roots_in_a_loop_grad(-2.0, 3.0),
        Err(FitError::Negative(-2.0))
    );
    // v = e^x, value x e^x, derivative (1 + x) e^x.
    let e = 1.0_f64.exp();
    assert_eq!(exp_through_option_grad(1.0), Some((e, 2.0 * e)));
    assert_eq!(exp_through_option_grad(11.0), None);
    assert_eq!(small_exp_grad(11.0), None);
    let (v, d) = unwrapped_grad(2.0);
    assert_eq!(v, unwrapped(2.0));
    let fd = (unwrapped(2.0 + h) - unwrapped(2.0 - h)) / (2.0 * h);
    assert_relative_eq!(d, fd, max_relative = 1e-6);
}

#[test]
#[should_panic(expected = "x is at most 10")]
fn unwrap_of_a_failing_callee_panics_in_grad_too() {
    let _ = unwrapped_grad(11.0);
}

/// Errors at the end of branches, in either order, and in `match` arms:
/// each arm that fails leaves the generated function with its error.
#[grad]
fn square_if(x: f64, k: bool) -> Option<f64> {
    if k {
        Some(x * x)
    } else {
        None
    }
}

#[grad]
fn square_or_err(x: f64, k: bool) -> Result<f64, String> {
    if k {
        Ok(x * x)
    } else {
        Err("no".to_string())
    }
}

#[grad]
fn elbow_angle(c: f64, scale: f64) -> Option<f64> {
    match c.abs() <= 1.0 {
        true => Some(c.acos() * scale),
        false => None,
    }
}

#[test]
fn errors_at_the_end_of_branches_in_either_order() {
    assert_eq!(square_if_grad(0.5, true), Some((0.25, 1.0)));
    assert_eq!(square_if_grad(0.5, false), None);
    assert_eq!(square_or_err_grad(0.5, true), Ok((0.25, 1.0)));
    assert_eq!(square_or_err_grad(0.5, false), Err("no".to_string()));
    let (v, dc, ds) = elbow_angle_grad(0.5, 2.0).unwrap();
    assert_eq!(v, elbow_angle(0.5, 2.0).unwrap());
    assert_relative_eq!(dc, -2.0 / 0.75_f64.sqrt(), max_relative = 1e-15);
    assert_eq!(ds, 0.5_f64.acos());
    assert_eq!(elbow_angle_grad(1.5, 2.0), None);
}

fn setting(name: &str) -> Option<f64> {
    (name == "gain").then_some(2.0)
}

/// `unwrap_or` on a call that carries no derivative stays as written.
#[grad]
fn with_setting(x: f64, name: &str) -> f64 {
    let k = setting(name).unwrap_or(1.0);
    k * x
}

#[test]
fn methods_of_an_option_on_a_constant_call() {
    assert_eq!(with_setting_grad(3.0, "gain"), (6.0, 2.0));
    assert_eq!(with_setting_grad(3.0, "other"), (3.0, 1.0));
}

// A fallible callee returning a tuple or an array, taken with `?`,
// `.unwrap()` or `.expect(..)`: differentiated through its `_vjp`, which the
// reverse sweep calls again on the values it succeeded with.

#[grad]
fn polar_checked(r: f64, t: f64) -> Result<(f64, f64), String> {
    if r < 0.0 {
        return Err(format!("negative radius {r}"));
    }
    Ok((r * t.cos(), r * t.sin()))
}

#[grad]
fn rotated(s: &[f64]) -> Option<[f64; 2]> {
    if s.len() < 2 {
        return None;
    }
    Some([s[1], -s[0]])
}

#[grad]
fn polar_product(r: f64, t: f64) -> Result<f64, String> {
    let (x, y) = polar_checked(r, t)?;
    Ok(x * y)
}

#[grad]
fn rotated_twice(a: f64, b: f64) -> Option<f64> {
    let s = [a, b];
    let d = rotated(&s)?;
    let (x, _) = polar_checked(a, b).unwrap();
    let e = rotated(&d).expect("two entries");
    Some(d[0] * d[1] + e[0] * x)
}

#[test]
fn fallible_callees_returning_tuples_and_arrays() {
    for (r, t) in [(2.0, 0.5), (0.5, -1.2), (3.0, 2.0)] {
        let (v, dr, dt) = polar_product_grad(r, t).unwrap();
        assert_eq!(v, polar_product(r, t).unwrap());
        // r² sin(2t) / 2
        assert_relative_eq!(dr, r * (2.0 * t).sin(), max_relative = 1e-14);
        assert_relative_eq!(dt, r * r * (2.0 * t).cos(), max_relative = 1e-14);
    }
    assert_eq!(
        polar_product_grad(-1.0, 0.5),
        Err("negative radius -1".to_string())
    );
    for (a, b) in [(2.0, 0.5), (1.5, -0.25), (0.3, 2.0)] {
        let (v, da, db) = rotated_twice_grad(a, b).unwrap();
        assert_eq!(v, rotated_twice(a, b).unwrap());
        // d = (b, -a), e = (-a, -b), x = a cos b: v = -ab - a·a cos b
        assert_relative_eq!(da, -b - 2.0 * a * b.cos(), max_relative = 1e-14);
        assert_relative_eq!(db, -a + a * a * b.sin(), max_relative = 1e-14);
    }
}

// A fallible `#[grad]` method, taken with `?` in another method and with
// `.unwrap()` / `.expect(..)` in a function.

#[derive(Clone, Copy, Debug, autodiff::Differentiable)]
struct Rooted {
    k: f64,
}

impl Rooted {
    #[grad(wrt(self, x))]
    fn root(&self, x: f64) -> Result<f64, String> {
        if x < 0.0 {
            return Err("negative".to_string());
        }
        Ok((self.k * x).sqrt())
    }

    #[grad(wrt(self, x))]
    fn scaled_root(&self, x: f64) -> Result<f64, String> {
        let r = self.root(x)?;
        Ok(r * x)
    }
}

#[grad(wrt(m, x))]
fn two_roots(m: &Rooted, x: f64) -> f64 {
    m.root(x).unwrap() + m.root(2.0 * x).expect("positive")
}

#[test]
fn fallible_methods() {
    let m = Rooted { k: 2.0 };
    for x in [3.0, 0.5, 8.0] {
        let (v, dm, dx) = m.scaled_root_grad(x).unwrap();
        let r = (m.k * x).sqrt();
        assert_eq!(v, m.scaled_root(x).unwrap());
        assert_relative_eq!(dm.k, x * x / (2.0 * r), max_relative = 1e-14);
        assert_relative_eq!(dx, r + x * m.k / (2.0 * r), max_relative = 1e-14);
        let (v, dm, dx) = two_roots_grad(&m, x);
        assert_eq!(v, two_roots(&m, x));
        let r2 = (2.0 * m.k * x).sqrt();
        assert_relative_eq!(
            dm.k,
            x / (2.0 * r) + 2.0 * x / (2.0 * r2),
            max_relative = 1e-14
        );
        assert_relative_eq!(
            dx,
            m.k / (2.0 * r) + 2.0 * m.k / (2.0 * r2),
            max_relative = 1e-14
        );
    }
    assert_eq!(
        m.scaled_root_grad(-1.0).map(|t| t.0),
        Err("negative".to_string())
    );
}

/// `?` and `.unwrap()` on a method of a constant (`scale.parse()?`),
/// which is no `#[grad]` call: kept as written, its exit with it.
#[grad(wrt(a))]
fn parsed_scale(a: f64, scale: &str, offset: &str) -> Result<f64, std::num::ParseFloatError> {
    let k: f64 = scale.parse()?;
    let b: f64 = offset.parse().unwrap();
    Ok(a * k + b)
}

#[test]
fn a_constant_method_keeps_its_question_mark() {
    assert_eq!(parsed_scale_grad(1.5, "2.5", "1"), Ok((4.75, 2.5)));
    assert!(parsed_scale_grad(1.5, "x", "1").is_err());
}

/// A Newton solver that returns its root from inside the loop and an
/// error after it, and a guard that returns early with the value (trial
/// 5 r100: the error at the end was taken for the value, E0308 inside
/// the expansion).
#[grad]
fn cubic_root(p: f64) -> Result<f64, FitError> {
    let mut t = 1.0;
    for _ in 0..50 {
        let f = t * t * t + p * t - 1.0;
        if f.abs() < 1e-14 {
            return Ok(t);
        }
        t -= f / (3.0 * t * t + p);
    }
    Err(FitError::Negative(p))
}

#[grad]
fn doubled_if_positive(p: f64) -> Option<f64> {
    if p > 0.0 {
        return Some(p * 2.0);
    }
    None
}

#[test]
fn a_value_returned_from_a_loop_with_an_error_after_it() {
    for p in [0.5, 1.0, 3.0] {
        let (t, dp) = cubic_root_grad(p).unwrap();
        assert_eq!(t, cubic_root(p).unwrap());
        // t³ + p t = 1: dt/dp = −t / (3t² + p)
        assert_relative_eq!(dp, -t / (3.0 * t * t + p), max_relative = 1e-12);
    }
    assert_eq!(cubic_root_grad(-3.0), Err(FitError::Negative(-3.0)));
    assert_eq!(doubled_if_positive_grad(1.5), Some((3.0, 2.0)));
    assert_eq!(doubled_if_positive_grad(-1.5), None);
}

/// An `Option` of an array that ends with the failure in one arm and the
/// array in the other (trial 7 r204): refused before as an array output
/// that did not end with an array.
#[grad]
fn unit_or_none(v: [f64; 2]) -> Option<[f64; 2]> {
    let n = (v[0] * v[0] + v[1] * v[1]).sqrt();
    if n == 0.0 {
        None
    } else {
        Some([v[0] / n, v[1] / n])
    }
}

#[test]
fn an_option_of_an_array_ending_in_branches() {
    assert!(unit_or_none_vjp([0.0, 0.0], [1.0, 0.0]).is_none());
    let (value, grad) = unit_or_none_vjp([3.0, 4.0], [1.0, 0.0]).unwrap();
    assert_eq!(Some(value), unit_or_none([3.0, 4.0]));
    assert_relative_eq!(value[0], 0.6, max_relative = 1e-15);
    // d(v0 / n) = (1 / n - v0^2 / n^3, -v0 v1 / n^3).
    assert_relative_eq!(grad[0], 0.2 - 9.0 / 125.0, max_relative = 1e-12);
    assert_relative_eq!(grad[1], -12.0 / 125.0, max_relative = 1e-12);
    let (value, grad) = unit_or_none_vjp([-1.0, 0.0], [0.0, 1.0]).unwrap();
    assert_eq!((value, grad), ([-1.0, 0.0], [0.0, 1.0]));
}

// A callee's failure turned into the caller's, `g(x).ok_or(e)?`,
// `.ok_or_else(|| e)?`, `.map_err(f)?` (trial 11 C4, whose message blamed
// the call), and a part of a fallible call's result read in place,
// `polar(..)?.0`, `.unwrap().1`.

#[grad]
fn maybe_polar(r: f64, t: f64) -> Option<(f64, f64)> {
    if r < 0.0 {
        return None;
    }
    Some((r * t.cos(), r * t.sin()))
}

#[grad]
fn adapted(r: f64, t: f64) -> Result<f64, FitError> {
    let (x, y) = maybe_polar(r, t).ok_or(FitError::Negative(-1.0))?;
    let s = checked_root(r * 2.0).map_err(|e| match e {
        FitError::Negative(v) => FitError::Parse(format!("root of {v}")),
        other => other,
    })?;
    let p = maybe_polar(r, t * 0.5)
        .ok_or_else(|| FitError::Parse("half".into()))?
        .1;
    Ok(x * y + s * p)
}

#[grad]
fn parts_in_place(r: f64, t: f64) -> Option<f64> {
    let a = maybe_polar(r, t)?.0;
    let b = polar_checked(r, t).unwrap().1 * maybe_polar(r, 0.3).expect("r > 0").1;
    Some(a * b + maybe_polar(2.0 * r, t)?.1)
}

#[test]
fn failures_adapted_and_parts_of_fallible_results() {
    for (r, t) in [(2.0, 0.5), (0.5, -1.2), (3.0, 2.0)] {
        let (v, dr, dt) = adapted_grad(r, t).unwrap();
        assert_eq!(v, adapted(r, t).unwrap());
        // r² sin(2t) / 2 + √(2r) r sin(t/2)
        let s = (2.0 * r).sqrt();
        let p = r * (t / 2.0).sin();
        let want_r = r * (2.0 * t).sin() + p / s + s * (t / 2.0).sin();
        let want_t = r * r * (2.0 * t).cos() + s * r * (t / 2.0).cos() / 2.0;
        assert_relative_eq!(dr, want_r, max_relative = 1e-14);
        assert_relative_eq!(dt, want_t, max_relative = 1e-14);

        let (v, dr, dt) = parts_in_place_grad(r, t).unwrap();
        assert_eq!(v, parts_in_place(r, t).unwrap());
        // r cos t · r sin t · r sin 0.3 + 2r sin t
        let k = 0.3f64.sin();
        let (c, sn) = (t.cos(), t.sin());
        assert_relative_eq!(
            dr,
            3.0 * r * r * c * sn * k + 2.0 * sn,
            max_relative = 1e-14
        );
        assert_relative_eq!(
            dt,
            r * r * r * (2.0 * t).cos() * k + 2.0 * r * c,
            max_relative = 1e-14
        );
    }
    assert_eq!(adapted_grad(-1.0, 0.5), Err(FitError::Negative(-1.0)));
    assert_eq!(parts_in_place_grad(-1.0, 0.5), None);
}

// The same adapters on a fallible `#[grad]` method (trial 12 r1008, rustc's
// E0599 inside the expansion before), and `.ok()?` of a `Result` in a
// function returning `Option`.

impl Rooted {
    #[grad(wrt(self))]
    fn maybe_root(&self) -> Option<f64> {
        if self.k < 0.0 {
            return None;
        }
        Some(self.k.sqrt())
    }
}

#[grad]
fn adapted_methods(k: f64, x: f64) -> Result<f64, String> {
    let m = Rooted { k };
    let r = m.maybe_root().ok_or(String::from("negative k"))?;
    let s = m.root(x).map_err(|e| format!("{e} x"))?;
    Ok(r * s)
}

#[grad]
fn ok_of_a_method(k: f64, x: f64) -> Option<f64> {
    let m = Rooted { k };
    Some(m.root(x).ok()? * x)
}

#[test]
fn failures_adapted_on_methods() {
    for (k, x) in [(2.0, 3.0), (0.5, 0.25)] {
        // √k · √(k x) = k √x
        let (v, dk, dx) = adapted_methods_grad(k, x).unwrap();
        assert_relative_eq!(v, k * x.sqrt(), max_relative = 1e-14);
        assert_relative_eq!(dk, x.sqrt(), max_relative = 1e-14);
        assert_relative_eq!(dx, k / (2.0 * x.sqrt()), max_relative = 1e-14);
        // √(k x) · x
        let (v, dk, dx) = ok_of_a_method_grad(k, x).unwrap();
        assert_relative_eq!(v, (k * x).sqrt() * x, max_relative = 1e-14);
        assert_relative_eq!(dk, x * x / (2.0 * (k * x).sqrt()), max_relative = 1e-14);
        assert_relative_eq!(dx, 1.5 * (k * x).sqrt(), max_relative = 1e-14);
    }
    assert_eq!(
        adapted_methods_grad(-1.0, 1.0),
        Err("negative k".to_string())
    );
    assert_eq!(
        adapted_methods_grad(1.0, -1.0),
        Err("negative x".to_string())
    );
    assert_eq!(ok_of_a_method_grad(1.0, -1.0), None);
}

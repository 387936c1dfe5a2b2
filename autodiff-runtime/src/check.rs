//! Checking a claimed gradient against central finite differences.

use core::fmt;

/// The outcome of [`check_gradient`]: whether every component agrees, and
/// the component that agrees worst.
#[derive(Clone, Debug, PartialEq)]
pub struct GradientCheck {
    /// The component closest to failing, or failing worst.
    pub worst_index: usize,
    /// The claimed derivative there.
    pub analytic: f64,
    /// The central difference there.
    pub numeric: f64,
    /// |analytic − numeric| there.
    pub abs_error: f64,
    /// abs_error / max(|analytic|, |numeric|) there (0 when both are 0).
    pub rel_error: f64,
    /// Whether every component is within `abs_tol` or `rel_tol`.
    pub passed: bool,
}

impl fmt::Display for GradientCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "gradient check {}: worst component {} has analytic {:e}, numeric {:e} (abs error {:e}, rel error {:e})",
            if self.passed { "passed" } else { "FAILED" },
            self.worst_index,
            self.analytic,
            self.numeric,
            self.abs_error,
            self.rel_error
        )
    }
}

/// Compares `claimed`, a gradient of `f` at `x`, with central differences
/// `(f(x + h·eᵢ) − f(x − h·eᵢ)) / 2h`, where h = `step`·max(1, |xᵢ|).
///
/// Meant for checking a rule or custom pullback of one's own: `f` is called
/// twice per component, on a copy of `x` with that component moved.
///
/// A component passes when its absolute error |analytic − numeric| is at
/// most `abs_tol` or its relative error (the absolute error over
/// max(|analytic|, |numeric|), 0 when both are 0) at most `rel_tol`. The
/// report names the component whose error is largest for what it may be,
/// min(abs_error/abs_tol, rel_error/rel_tol) (a NaN error counts as
/// largest), and `passed` says whether every component passed. An empty
/// `x` passes, with `worst_index` 0 and zero errors.
///
/// A step of about 1e-6 with tolerances near 1e-6 suits smooth f64
/// functions: the central difference's error is O(h²) from truncation plus
/// O(ε·|f|/h) from rounding. Points closer than h to a kink or a jump give
/// meaningless differences.
///
/// # Panics
///
/// If `x` and `claimed` differ in length.
///
/// # Example
///
/// ```
/// use autodiff_runtime::{check_gradient, trig};
///
/// // f(x, y) = x² y, ∇f = (2xy, x²).
/// let f = |v: &[f64]| v[0] * v[0] * v[1];
/// let report = check_gradient(f, &[3.0, 2.0], &[12.0, 9.0], 1e-6, 1e-6, 1e-6);
/// assert!(report.passed, "{report}");
///
/// let wrong = check_gradient(f, &[3.0, 2.0], &[12.0, 8.0], 1e-6, 1e-6, 1e-6);
/// assert!(!wrong.passed);
/// assert_eq!(wrong.worst_index, 1);
/// println!("{wrong}"); // gradient check FAILED: worst component 1 has ...
///
/// // A pullback checked against its value function: sin'(0.5) = cos(0.5).
/// let x = 0.5;
/// let claimed = trig::sin_pullback(x, trig::sin(x), 1.0);
/// let report = check_gradient(|v| trig::sin(v[0]), &[x], &[claimed], 1e-6, 1e-9, 1e-7);
/// assert!(report.passed, "{report}");
/// ```
pub fn check_gradient<F: FnMut(&[f64]) -> f64>(
    mut f: F,
    x: &[f64],
    claimed: &[f64],
    step: f64,
    abs_tol: f64,
    rel_tol: f64,
) -> GradientCheck {
    assert_eq!(
        x.len(),
        claimed.len(),
        "check_gradient: x has {} components but the claimed gradient {}",
        x.len(),
        claimed.len()
    );
    let mut worst = GradientCheck {
        worst_index: 0,
        analytic: 0.0,
        numeric: 0.0,
        abs_error: 0.0,
        rel_error: 0.0,
        passed: true,
    };
    let mut worst_score = f64::NEG_INFINITY;
    let mut point = x.to_vec();
    for (i, &analytic) in claimed.iter().enumerate() {
        let h = step * x[i].abs().max(1.0);
        point[i] = x[i] + h;
        let hi = f(&point);
        point[i] = x[i] - h;
        let lo = f(&point);
        point[i] = x[i];
        let numeric = (hi - lo) / (2.0 * h);
        let abs_error = (analytic - numeric).abs();
        let scale = analytic.abs().max(numeric.abs());
        let rel_error = if scale == 0.0 { 0.0 } else { abs_error / scale };
        let ok = abs_error <= abs_tol || rel_error <= rel_tol;
        // NaN errors compare false everywhere: count them as failing worst.
        let score = if abs_error.is_nan() {
            f64::INFINITY
        } else {
            ratio(abs_error, abs_tol).min(ratio(rel_error, rel_tol))
        };
        worst.passed &= ok;
        if score > worst_score {
            worst_score = score;
            worst = GradientCheck {
                worst_index: i,
                analytic,
                numeric,
                abs_error,
                rel_error,
                passed: worst.passed,
            };
        }
    }
    worst
}

/// How many times its tolerance an error is: 0 for no error even with a
/// zero tolerance (where 0/0 would be NaN), +∞ for an error above a zero
/// tolerance.
fn ratio(error: f64, tolerance: f64) -> f64 {
    if error == 0.0 {
        0.0
    } else {
        error / tolerance
    }
}

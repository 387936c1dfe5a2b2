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
/// A component passes when its absolute error is at most `abs_tol` or its
/// relative error at most `rel_tol`. The report names the component whose
/// error is largest relative to what it may be (min(abs/abs_tol,
/// rel/rel_tol)). A step of about 1e-6 with tolerances near 1e-6 suits
/// smooth f64 functions; the central difference's error is O(h²) plus
/// rounding O(ε·|f|/h).
///
/// # Panics
///
/// If `x` and `claimed` differ in length.
///
/// ```
/// use autodiff_runtime::check_gradient;
///
/// // f(x, y) = x² y, ∇f = (2xy, x²).
/// let f = |v: &[f64]| v[0] * v[0] * v[1];
/// let report = check_gradient(f, &[3.0, 2.0], &[12.0, 9.0], 1e-6, 1e-6, 1e-6);
/// assert!(report.passed, "{report}");
///
/// let wrong = check_gradient(f, &[3.0, 2.0], &[12.0, 8.0], 1e-6, 1e-6, 1e-6);
/// assert!(!wrong.passed);
/// assert_eq!(wrong.worst_index, 1);
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
            (abs_error / abs_tol).min(rel_error / rel_tol)
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

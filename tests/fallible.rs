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

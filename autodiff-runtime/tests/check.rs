//! `check_gradient` accepts a right gradient, refuses a wrong one and names
//! the component that is off.

use autodiff_runtime::check_gradient;

fn f(v: &[f64]) -> f64 {
    v[0].sin() * v[1] + v[2] * v[2]
}

#[test]
fn right_gradient_passes() {
    let x = [0.3f64, -1.2, 2.0];
    let g = [x[0].cos() * x[1], x[0].sin(), 2.0 * x[2]];
    let r = check_gradient(f, &x, &g, 1e-6, 1e-7, 1e-6);
    assert!(r.passed, "{r}");
    assert!(r.abs_error < 1e-7);
}

#[test]
fn wrong_component_is_reported() {
    let x = [0.3f64, -1.2, 2.0];
    let g = [x[0].cos() * x[1], x[0].sin(), 2.0 * x[2] + 1e-3];
    let r = check_gradient(f, &x, &g, 1e-6, 1e-7, 1e-6);
    assert!(!r.passed);
    assert_eq!(r.worst_index, 2);
    assert!((r.numeric - 4.0).abs() < 1e-6);
    assert!(r.to_string().contains("FAILED"));
}

#[test]
fn nan_gradient_fails() {
    let r = check_gradient(
        |v: &[f64]| v[0] * v[0],
        &[1.0],
        &[f64::NAN],
        1e-6,
        1e-6,
        1e-6,
    );
    assert!(!r.passed);
}

#[test]
fn empty_input_passes() {
    let r = check_gradient(|_: &[f64]| 1.0, &[], &[], 1e-6, 1e-6, 1e-6);
    assert!(r.passed);
    assert_eq!(r.worst_index, 0);
}

#[test]
#[should_panic(expected = "check_gradient")]
fn length_mismatch_panics() {
    check_gradient(|v: &[f64]| v[0], &[1.0, 2.0], &[1.0], 1e-6, 1e-6, 1e-6);
}

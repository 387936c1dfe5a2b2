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

#[test]
fn worst_index_is_the_worst_of_several_failures() {
    // f = x0 + x1 + x2 + x3: every partial is 1. Errors 1e-3, 0.5, 1e-2, 0.
    let sum = |v: &[f64]| v.iter().sum::<f64>();
    let x = [1.0, 2.0, 3.0, 4.0];
    let r = check_gradient(sum, &x, &[1.001, 1.5, 1.01, 1.0], 1e-6, 1e-8, 1e-8);
    assert!(!r.passed);
    assert_eq!(r.worst_index, 1);
    assert_eq!(r.analytic, 1.5);
    assert!((r.abs_error - 0.5).abs() < 1e-6);
    assert!((r.rel_error - 0.5 / 1.5).abs() < 1e-6);
}

#[test]
fn worst_index_is_the_closest_to_failing_when_all_pass() {
    let sum = |v: &[f64]| v.iter().sum::<f64>();
    let r = check_gradient(
        sum,
        &[0.0; 3],
        &[1.0, 1.0 + 1e-4, 1.0 + 1e-5],
        1e-6,
        1e-3,
        1e-3,
    );
    assert!(r.passed, "{r}");
    assert_eq!(r.worst_index, 1);
}

#[test]
fn one_failing_component_fails_the_whole_check() {
    // The failing component comes first, a passing one after it.
    let sum = |v: &[f64]| v.iter().sum::<f64>();
    let r = check_gradient(sum, &[0.0; 2], &[2.0, 1.0], 1e-6, 1e-6, 1e-6);
    assert!(!r.passed);
    assert_eq!(r.worst_index, 0);
}

#[test]
fn either_tolerance_suffices() {
    // Analytic 1000.5 against 1000: 0.5 absolute, 5e-4 relative.
    let f = |v: &[f64]| 1000.0 * v[0];
    let claimed = [1000.5];
    assert!(check_gradient(f, &[1.0], &claimed, 1e-6, 1.0, 0.0).passed);
    assert!(check_gradient(f, &[1.0], &claimed, 1e-6, 0.0, 1e-3).passed);
    assert!(!check_gradient(f, &[1.0], &claimed, 1e-6, 0.1, 1e-4).passed);
}

#[test]
fn zero_error_with_zero_tolerances_passes() {
    // A constant function and a zero gradient: no error at all.
    let r = check_gradient(|_: &[f64]| 3.0, &[1.0, 2.0], &[0.0, 0.0], 1e-6, 0.0, 0.0);
    assert!(r.passed, "{r}");
    assert_eq!((r.abs_error, r.rel_error), (0.0, 0.0));
}

#[test]
fn step_scales_with_the_component() {
    // At x = 1e6 a fixed step of 1e-6 would be lost to rounding; h =
    // step·|x| is not. f = x², f' = 2e6.
    let r = check_gradient(|v: &[f64]| v[0] * v[0], &[1e6], &[2e6], 1e-6, 0.0, 1e-8);
    assert!(r.passed, "{r}");
}

#[test]
fn report_is_one_line() {
    let x = [0.3f64, -1.2, 2.0];
    let g = [x[0].cos() * x[1], x[0].sin(), 0.0];
    let r = check_gradient(f, &x, &g, 1e-6, 1e-7, 1e-6);
    let line = r.to_string();
    assert!(line.starts_with("gradient check FAILED"), "{line}");
    assert!(!line.contains('\n'));
    assert!(line.contains("worst component 2"), "{line}");
}

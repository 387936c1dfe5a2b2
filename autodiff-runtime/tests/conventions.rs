//! The documented conventions at singular points, checked exactly.

use autodiff_runtime::{arith, exp_log, fused, ml, piecewise, power, trig};

#[test]
fn relu_at_zero_and_nan() {
    assert_eq!(ml::relu_pullback(0.0, 0.0, 1.0), 0.0);
    assert_eq!(ml::relu_pullback(-0.0, 0.0, 1.0), 0.0);
    assert_eq!(ml::relu_pullback(1e-300, 1e-300, 1.0), 1.0);
    assert_eq!(ml::relu(-2.0), 0.0);
    assert_eq!(ml::relu(3.0), 3.0);
    assert!(ml::relu(f64::NAN).is_nan());
}

#[test]
fn abs_and_signum() {
    assert_eq!(piecewise::abs_pullback(0.0, 0.0, 1.0), 0.0);
    assert_eq!(piecewise::abs_pullback(-0.0, 0.0, 1.0), 0.0);
    assert_eq!(piecewise::abs_pullback(-2.0, 2.0, 0.5), -0.5);
    assert_eq!(piecewise::abs_pullback(2.0, 2.0, 0.5), 0.5);
    for x in [-1.0f64, 0.0, 2.0] {
        assert_eq!(
            piecewise::signum_pullback(x, piecewise::signum(x), 1.0),
            0.0
        );
    }
}

#[test]
fn rounding_family() {
    for x in [-2.5f64, -1.0, 0.0, 0.5, 3.7] {
        assert_eq!(piecewise::floor_pullback(x, x.floor(), 1.0), 0.0);
        assert_eq!(piecewise::ceil_pullback(x, x.ceil(), 1.0), 0.0);
        assert_eq!(piecewise::round_pullback(x, x.round(), 1.0), 0.0);
        assert_eq!(piecewise::trunc_pullback(x, x.trunc(), 1.0), 0.0);
        assert_eq!(piecewise::fract_pullback(x, x.fract(), 0.25), 0.25);
    }
}

#[test]
fn sqrt_and_cbrt_at_zero() {
    assert_eq!(power::sqrt_pullback(0.0, 0.0, 0.0), 0.0, "0·∞ = 0");
    assert_eq!(power::sqrt_pullback(0.0, 0.0, 1.0), f64::INFINITY);
    assert_eq!(power::sqrt_pullback(4.0, 2.0, 1.0), 0.25);
    assert_eq!(power::cbrt_pullback(0.0, 0.0, 0.0), 0.0);
    assert_eq!(power::cbrt_pullback(0.0, 0.0, 1.0), f64::INFINITY);
    assert_eq!(power::cbrt_pullback(8.0, 2.0, 12.0), 1.0);
}

#[test]
fn powf_at_zero_and_negative_base() {
    // ∂/∂x at x = 0: 0 for e > 1, 1 for e = 1, +∞ for 0 < e < 1.
    assert_eq!(power::powf_pullback(0.0, 2.0, 0.0, 1.0), (0.0, 0.0));
    assert_eq!(power::powf_pullback(0.0, 1.0, 0.0, 1.0), (1.0, 0.0));
    assert_eq!(
        power::powf_pullback(0.0, 0.5, 0.0, 1.0),
        (f64::INFINITY, 0.0)
    );
    assert_eq!(power::powf_pullback(0.0, 0.5, 0.0, 0.0), (0.0, 0.0));
    // ∂/∂e at y = 0 is 0; for x < 0 it is NaN.
    let (dx, de) = power::powf_pullback(-2.0f64, 3.0, -8.0, 1.0);
    assert_eq!(dx, 12.0);
    assert!(de.is_nan());
    assert_eq!(power::powf_pullback(2.0, 0.0, 1.0, 1.0), (0.0, 2f64.ln()));
}

#[test]
fn powi_exponent_zero_and_base_zero() {
    assert_eq!(power::powi_pullback(0.0, 0, 1.0, 1.0), 0.0);
    assert_eq!(power::powi_pullback(5.0, 0, 1.0, 1.0), 0.0);
    assert_eq!(power::powi_pullback(0.0, 1, 0.0, 1.0), 1.0);
    assert_eq!(power::powi_pullback(0.0, 3, 0.0, 1.0), 0.0);
    assert_eq!(power::powi_pullback(2.0, 3, 8.0, 0.5), 6.0);
    assert_eq!(power::powi_pullback(0.0, -1, f64::INFINITY, 0.0), 0.0);
}

#[test]
fn max_min_ties_and_nan() {
    assert_eq!(piecewise::max_pullback(1.0, 1.0, 1.0, 1.0), (0.5, 0.5));
    assert_eq!(piecewise::min_pullback(1.0, 1.0, 1.0, 3.0), (1.5, 1.5));
    assert_eq!(piecewise::max_pullback(2.0, 1.0, 2.0, 1.0), (1.0, 0.0));
    assert_eq!(piecewise::max_pullback(1.0, 2.0, 2.0, 1.0), (0.0, 1.0));
    assert_eq!(piecewise::min_pullback(2.0, 1.0, 1.0, 1.0), (0.0, 1.0));
    // NaN: std returns the other argument, which gets the adjoint.
    let y = f64::NAN.max(3.0);
    assert_eq!(piecewise::max_pullback(f64::NAN, 3.0, y, 1.0), (0.0, 1.0));
    let y = 3.0f64.min(f64::NAN);
    assert_eq!(piecewise::min_pullback(3.0, f64::NAN, y, 1.0), (1.0, 0.0));
}

#[test]
fn clamp_bounds_go_to_x() {
    assert_eq!(
        piecewise::clamp_pullback(0.0, 0.0, 1.0, 0.0, 1.0),
        (1.0, 0.0, 0.0)
    );
    assert_eq!(
        piecewise::clamp_pullback(1.0, 0.0, 1.0, 1.0, 1.0),
        (1.0, 0.0, 0.0)
    );
    assert_eq!(
        piecewise::clamp_pullback(-1.0, 0.0, 1.0, 0.0, 1.0),
        (0.0, 1.0, 0.0)
    );
    assert_eq!(
        piecewise::clamp_pullback(2.0, 0.0, 1.0, 1.0, 1.0),
        (0.0, 0.0, 1.0)
    );
}

#[test]
fn atan2_and_hypot_at_origin() {
    assert_eq!(trig::atan2_pullback(0.0, 0.0, 0.0, 1.0), (0.0, 0.0));
    assert_eq!(trig::hypot_pullback(0.0, 0.0, 0.0, 1.0), (0.0, 0.0));
    assert_eq!(trig::hypot_pullback(3.0, 4.0, 5.0, 10.0), (6.0, 8.0));
    assert_eq!(
        trig::atan2_pullback(1.0, 0.0, std::f64::consts::FRAC_PI_2, 1.0),
        (0.0, -1.0)
    );
}

#[test]
fn division_and_remainder() {
    assert_eq!(arith::div_pullback(1.0, 2.0, 0.5, 1.0), (0.5, -0.25));
    assert_eq!(arith::rem_pullback(7.0, 2.0, 1.0, 1.0), (1.0, -3.0));
    assert_eq!(arith::rem_pullback(-7.0, 2.0, -1.0, 1.0), (1.0, 3.0));
    assert_eq!(arith::recip_pullback(2.0, 0.5, 1.0), -0.25);
    assert_eq!(
        fused::mul_add_pullback(2.0, 3.0, 4.0, 10.0, 2.0),
        (6.0, 4.0, 2.0)
    );
    assert_eq!(
        exp_log::log_pullback(8.0, 2.0, 3.0, 1.0).0,
        1.0 / (8.0 * 2f64.ln())
    );
}

#[test]
fn logistic_family_is_stable_for_large_arguments() {
    for x in [-1000.0f64, -40.0, 0.0, 40.0, 1000.0] {
        for v in [ml::sigmoid(x), ml::softplus(x), ml::log_sigmoid(x)] {
            assert!(v.is_finite(), "value at {x}");
        }
        let s = ml::sigmoid(x);
        for d in [
            ml::sigmoid_pullback(x, s, 1.0),
            ml::softplus_pullback(x, ml::softplus(x), 1.0),
            ml::log_sigmoid_pullback(x, ml::log_sigmoid(x), 1.0),
        ] {
            assert!(d.is_finite(), "derivative at {x}");
        }
    }
    assert_eq!(ml::sigmoid(0.0), 0.5);
    assert_eq!(ml::sigmoid(1000.0), 1.0);
    assert_eq!(ml::sigmoid(-1000.0), 0.0);
    assert_eq!(ml::sigmoid_pullback(0.0, 0.5, 1.0), 0.25);
    assert_eq!(ml::softplus(1000.0), 1000.0);
    assert_eq!(ml::softplus(-1000.0), 0.0);
    assert_eq!(ml::softplus(0.0), 2f64.ln());
    assert_eq!(ml::softplus_pullback(1000.0, 1000.0, 1.0), 1.0);
    assert_eq!(ml::log_sigmoid(-1000.0), -1000.0);
    assert_eq!(ml::log_sigmoid(1000.0), 0.0);
    assert_eq!(ml::log_sigmoid_pullback(-1000.0, -1000.0, 1.0), 1.0);
    // At x = 40, 1 − σ(x) would cancel to 0; σ(−x) does not.
    assert!(ml::log_sigmoid_pullback(40.0, ml::log_sigmoid(40.0), 1.0) > 0.0);
    assert_eq!(
        ml::log_sigmoid_pullback(40.0, 0.0, 1.0),
        (-40f64).exp() / (1.0 + (-40f64).exp())
    );
}

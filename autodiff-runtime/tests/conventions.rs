//! The documented conventions at singular points, and the documented
//! derivative formulas, checked exactly (`assert_eq!`); the numerical
//! stability of the logistic family at ±1000, ±40 and 0.

use approx::assert_relative_eq;
use autodiff_runtime::{arith, exp_log, fused, ml, piecewise, power, trig, Float};

const INF: f64 = f64::INFINITY;
const NAN: f64 = f64::NAN;

#[test]
fn relu_kink_and_nan() {
    assert_eq!(ml::relu_pullback(0.0, 0.0, 1.0), 0.0, "relu'(0) = 0");
    assert_eq!(ml::relu_pullback(-0.0, 0.0, 1.0), 0.0);
    assert_eq!(ml::relu_pullback(1e-300, 1e-300, 0.7), 0.7);
    assert_eq!(ml::relu_pullback(-1e-300, 0.0, 0.7), 0.0);
    assert_eq!(ml::relu(-2.0), 0.0);
    assert_eq!(ml::relu(3.0), 3.0);
    assert_eq!(ml::relu(-0.0_f64).to_bits(), 0.0_f64.to_bits());
    // NaN propagates through the value; relu'(x) = 1 only for x > 0.
    assert!(ml::relu(NAN).is_nan());
    assert!(ml::relu(f32::NAN).is_nan());
    assert_eq!(ml::relu_pullback(NAN, NAN, 1.0), 0.0);
}

#[test]
fn abs_kink_and_signum() {
    assert_eq!(piecewise::abs_pullback(0.0, 0.0, 1.0), 0.0, "abs'(0) = 0");
    assert_eq!(piecewise::abs_pullback(-0.0, 0.0, 1.0), 0.0);
    assert_eq!(piecewise::abs_pullback(-2.0, 2.0, 0.5), -0.5);
    assert_eq!(piecewise::abs_pullback(2.0, 2.0, 0.5), 0.5);
    assert_eq!(piecewise::abs_pullback(-INF, INF, 0.5), -0.5);
    assert!(piecewise::abs_pullback(NAN, NAN, 0.5).is_nan());
    for x in [-1.0, -0.0, 0.0, 2.0, INF] {
        assert_eq!(
            piecewise::signum_pullback(x, piecewise::signum(x), 1.0),
            0.0,
            "signum'({x}) = 0"
        );
    }
}

#[test]
fn rounding_family_has_zero_derivative_and_fract_one() {
    // At jumps (integers, half-integers for round) and between them.
    for x in [-2.5_f64, -1.0, -0.0, 0.0, 0.5, 3.0, 3.7] {
        assert_eq!(piecewise::floor_pullback(x, x.floor(), 1.0), 0.0);
        assert_eq!(piecewise::ceil_pullback(x, x.ceil(), 1.0), 0.0);
        assert_eq!(piecewise::round_pullback(x, x.round(), 1.0), 0.0);
        assert_eq!(piecewise::trunc_pullback(x, x.trunc(), 1.0), 0.0);
        assert_eq!(piecewise::fract_pullback(x, x.fract(), 0.25), 0.25);
    }
}

#[test]
fn infinite_slopes_are_the_limit_and_zero_dy_gives_zero() {
    // sqrt at 0 (and −0, where sqrt returns −0): +∞, but 0·∞ = 0.
    assert_eq!(power::sqrt_pullback(0.0, 0.0, 0.0), 0.0, "0·∞ = 0");
    assert_eq!(power::sqrt_pullback(0.0, 0.0, 1.0), INF);
    assert_eq!(power::sqrt_pullback(-0.0, -0.0, 1.0), INF);
    assert_eq!(power::sqrt_pullback(-0.0, -0.0, 0.0), 0.0);
    assert_eq!(power::sqrt_pullback(4.0, 2.0, 1.0), 0.25);
    // cbrt at 0.
    assert_eq!(power::cbrt_pullback(0.0, 0.0, 0.0), 0.0);
    assert_eq!(power::cbrt_pullback(0.0, 0.0, 1.0), INF);
    assert_eq!(power::cbrt_pullback(-0.0, -0.0, 1.0), INF);
    assert_eq!(power::cbrt_pullback(8.0, 2.0, 12.0), 1.0);
    // asin, acos at ±1 and acosh at 1: finite values, infinite slopes.
    for x in [-1.0_f64, 1.0] {
        assert_eq!(trig::asin_pullback(x, x.asin(), 1.0), INF);
        assert_eq!(trig::asin_pullback(x, x.asin(), 0.0), 0.0);
        assert_eq!(trig::acos_pullback(x, x.acos(), 1.0), -INF);
        assert_eq!(trig::acos_pullback(x, x.acos(), 0.0), 0.0);
    }
    assert_eq!(trig::acosh_pullback(1.0, 0.0, 1.0), INF);
    assert_eq!(trig::acosh_pullback(1.0, 0.0, 0.0), 0.0);
    // The same in f32.
    assert_eq!(power::sqrt_pullback(0.0f32, 0.0, 0.0), 0.0);
    assert_eq!(power::sqrt_pullback(0.0f32, 0.0, 1.0), f32::INFINITY);
}

#[test]
fn powf_at_zero_and_negative_base() {
    // ∂/∂x at x = 0: 0 for e > 1, 1 for e = 1, +∞ for 0 < e < 1; ∂/∂e = 0
    // where y = 0.
    assert_eq!(power::powf_pullback(0.0, 2.0, 0.0, 1.0), (0.0, 0.0));
    assert_eq!(power::powf_pullback(0.0, 1.0, 0.0, 1.0), (1.0, 0.0));
    assert_eq!(power::powf_pullback(0.0, 0.5, 0.0, 1.0), (INF, 0.0));
    assert_eq!(power::powf_pullback(0.0, 0.5, 0.0, 0.0), (0.0, 0.0));
    // e = 0: y = 1 everywhere, ∂/∂x exactly 0 even at x = 0; ∂/∂e at x = 0
    // is −∞ (0ᵉ jumps from 1 to 0), and 0 for dy = 0.
    assert_eq!(power::powf_pullback(0.0, 0.0, 1.0, 1.0), (0.0, -INF));
    assert_eq!(power::powf_pullback(0.0, 0.0, 1.0, 0.0), (0.0, 0.0));
    assert_eq!(power::powf_pullback(2.0, 0.0, 1.0, 1.0), (0.0, 2f64.ln()));
    // x < 0: ∂/∂x at an integer exponent as usual, ∂/∂e NaN (unless dy = 0).
    let (dx, de) = power::powf_pullback(-2.0_f64, 3.0, -8.0, 1.0);
    assert_eq!(dx, 12.0);
    assert!(de.is_nan());
    assert_eq!(power::powf_pullback(-2.0, 3.0, -8.0, 0.0), (0.0, 0.0));
    // Away from the special points: e·x^(e−1) and y·ln x.
    assert_eq!(
        power::powf_pullback(2.0, 3.0, 8.0, 0.5),
        (6.0, 0.5 * (8.0 * 2f64.ln()))
    );
}

#[test]
fn powi_exponent_zero_and_base_zero() {
    assert_eq!(
        power::powi_pullback(0.0, 0, 1.0, 1.0),
        0.0,
        "n = 0 at x = 0"
    );
    assert_eq!(power::powi_pullback(5.0, 0, 1.0, 1.0), 0.0);
    assert_eq!(power::powi_pullback(0.0, 1, 0.0, 1.0), 1.0);
    assert_eq!(power::powi_pullback(0.0, 3, 0.0, 1.0), 0.0);
    assert_eq!(power::powi_pullback(2.0, 3, 8.0, 0.5), 6.0);
    assert_eq!(power::powi_pullback(0.0, -1, INF, 1.0), -INF);
    assert_eq!(power::powi_pullback(0.0, -1, INF, 0.0), 0.0, "0·∞ = 0");
    // n = i32::MIN, where n − 1 overflows: n·x^(n−1) all the same.
    let n = i32::MIN;
    assert_eq!(power::powi_pullback(1.0, n, 1.0, 1.0), f64::from(n));
    assert_eq!(power::powi_pullback(-1.0, n, 1.0, 1.0), -f64::from(n));
    assert_eq!(power::powi_pullback(2.0, n, 0.0, 1.0), -0.0);
}

#[test]
fn max_min_ties_and_nan() {
    // The selected argument gets dy; a tie splits it evenly.
    assert_eq!(piecewise::max_pullback(1.0, 1.0, 1.0, 1.0), (0.5, 0.5));
    assert_eq!(piecewise::min_pullback(1.0, 1.0, 1.0, 3.0), (1.5, 1.5));
    assert_eq!(piecewise::max_pullback(0.0, -0.0, 0.0, 1.0), (0.5, 0.5));
    assert_eq!(piecewise::max_pullback(2.0, 1.0, 2.0, 1.0), (1.0, 0.0));
    assert_eq!(piecewise::max_pullback(1.0, 2.0, 2.0, 1.0), (0.0, 1.0));
    assert_eq!(piecewise::min_pullback(2.0, 1.0, 1.0, 1.0), (0.0, 1.0));
    assert_eq!(piecewise::min_pullback(1.0, 2.0, 1.0, 1.0), (1.0, 0.0));
    // One NaN: std returns the other argument, which gets the adjoint.
    let y = piecewise::max(NAN, 3.0);
    assert_eq!(y, 3.0);
    assert_eq!(piecewise::max_pullback(NAN, 3.0, y, 1.0), (0.0, 1.0));
    let y = piecewise::max(3.0, NAN);
    assert_eq!(piecewise::max_pullback(3.0, NAN, y, 1.0), (1.0, 0.0));
    let y = piecewise::min(3.0, NAN);
    assert_eq!(y, 3.0);
    assert_eq!(piecewise::min_pullback(3.0, NAN, y, 1.0), (1.0, 0.0));
    let y = piecewise::min(NAN, 3.0);
    assert_eq!(piecewise::min_pullback(NAN, 3.0, y, 1.0), (0.0, 1.0));
    // Both NaN: b gets it.
    assert_eq!(piecewise::max_pullback(NAN, NAN, NAN, 1.0), (0.0, 1.0));
}

#[test]
fn clamp_sends_the_adjoint_to_what_it_returned() {
    let c = |x: f64, lo: f64, hi: f64| {
        piecewise::clamp_pullback(x, lo, hi, piecewise::clamp(x, lo, hi), 1.0)
    };
    assert_eq!(c(0.0, 0.0, 1.0), (1.0, 0.0, 0.0), "at lo: x");
    assert_eq!(c(1.0, 0.0, 1.0), (1.0, 0.0, 0.0), "at hi: x");
    assert_eq!(c(0.5, 0.0, 1.0), (1.0, 0.0, 0.0));
    assert_eq!(c(-1.0, 0.0, 1.0), (0.0, 1.0, 0.0), "below: lo");
    assert_eq!(c(2.0, 0.0, 1.0), (0.0, 0.0, 1.0), "above: hi");
    assert_eq!(c(1.0, 1.0, 1.0), (1.0, 0.0, 0.0), "lo = hi = x: x");
    assert_eq!(c(NAN, 0.0, 1.0), (1.0, 0.0, 0.0), "NaN x is returned");
}

#[test]
fn atan2_and_hypot_at_the_origin() {
    for (a, b) in [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0)] {
        let at = trig::atan2(a, b);
        assert_eq!(trig::atan2_pullback(a, b, at, 1.0), (0.0, 0.0));
        let h = trig::hypot(a, b);
        assert_eq!(trig::hypot_pullback(a, b, h, 1.0), (0.0, 0.0));
    }
    // Elsewhere: (x, −y)/r² and (a, b)/h.
    assert_eq!(trig::hypot_pullback(3.0, 4.0, 5.0, 10.0), (6.0, 8.0));
    assert_eq!(
        trig::atan2_pullback(1.0, 0.0, std::f64::consts::FRAC_PI_2, 1.0),
        (0.0, -1.0)
    );
    assert_eq!(
        trig::atan2_pullback(0.0, -2.0, std::f64::consts::PI, 1.0).0,
        -0.5
    );
}

#[test]
fn arithmetic_partials() {
    assert_eq!(arith::add_pullback(1.0, 2.0, 3.0, 0.7), (0.7, 0.7));
    assert_eq!(arith::sub_pullback(1.0, 2.0, -1.0, 0.7), (0.7, -0.7));
    assert_eq!(arith::mul_pullback(2.0, 3.0, 6.0, 0.5), (1.5, 1.0));
    // div: 1/b and −y/b.
    assert_eq!(arith::div_pullback(1.0, 2.0, 0.5, 1.0), (0.5, -0.25));
    // rem: 1 and −trunc(a/b).
    assert_eq!(arith::rem_pullback(7.0, 2.0, 1.0, 1.0), (1.0, -3.0));
    assert_eq!(arith::rem_pullback(-7.0, 2.0, -1.0, 1.0), (1.0, 3.0));
    assert_eq!(arith::rem_pullback(7.0, -2.0, 1.0, 1.0), (1.0, 3.0));
    assert_eq!(arith::neg_pullback(5.0, -5.0, 0.7), -0.7);
    // recip: −y².
    assert_eq!(arith::recip_pullback(2.0, 0.5, 1.0), -0.25);
    assert_eq!(
        fused::mul_add_pullback(2.0, 3.0, 4.0, 10.0, 2.0),
        (6.0, 4.0, 2.0)
    );
}

#[test]
fn logarithm_partials() {
    let (x, b) = (8.0_f64, 2.0_f64);
    let y = exp_log::log(x, b);
    let (dx, db) = exp_log::log_pullback(x, b, y, 1.0);
    assert_eq!(dx, 1.0 / (x * b.ln()));
    assert_eq!(db, -y / (b * b.ln()));
    assert_relative_eq!(db, -x.ln() / (b * b.ln().powi(2)), max_relative = 1e-15);
    assert_eq!(exp_log::ln_pullback(4.0, 4f64.ln(), 1.0), 0.25);
    assert_eq!(exp_log::ln_1p_pullback(3.0, 4f64.ln(), 1.0), 0.25);
    assert_eq!(exp_log::ln_pullback(0.0, -INF, 1.0), INF);
}

/// The derivatives that use the output, exactly as documented.
#[test]
fn derivatives_from_the_output() {
    let x = 0.3_f64;
    let dy = 0.7;
    let y = x.tan();
    assert_eq!(trig::tan_pullback(x, y, dy), dy * (1.0 + y * y));
    let y = x.tanh();
    assert_eq!(trig::tanh_pullback(x, y, dy), dy * (1.0 - y * y));
    let y = x.exp();
    assert_eq!(exp_log::exp_pullback(x, y, dy), dy * y);
    let y = x.exp2();
    assert_eq!(
        exp_log::exp2_pullback(x, y, dy),
        dy * (y * std::f64::consts::LN_2)
    );
    let y = x.exp_m1();
    assert_eq!(exp_log::exp_m1_pullback(x, y, dy), dy * (y + 1.0));
    let y = x.sqrt();
    assert_eq!(power::sqrt_pullback(x, y, dy), dy * (1.0 / (2.0 * y)));
    let y = x.recip();
    assert_eq!(arith::recip_pullback(x, y, dy), -dy * y * y);
    let y = ml::sigmoid(x);
    assert_eq!(ml::sigmoid_pullback(x, y, dy), dy * y * (1.0 - y));
}

/// The derivatives from the input, exactly as documented.
#[test]
fn derivatives_from_the_input() {
    let x = 0.3_f64;
    assert_eq!(trig::sin_pullback(x, 0.0, 1.0), x.cos());
    assert_eq!(trig::cos_pullback(x, 0.0, 1.0), -x.sin());
    assert_eq!(trig::asin_pullback(x, 0.0, 1.0), 1.0 / (1.0 - x * x).sqrt());
    assert_eq!(
        trig::acos_pullback(x, 0.0, 1.0),
        -1.0 / (1.0 - x * x).sqrt()
    );
    assert_eq!(trig::atan_pullback(x, 0.0, 1.0), 1.0 / (1.0 + x * x));
    assert_eq!(trig::sinh_pullback(x, 0.0, 1.0), x.cosh());
    assert_eq!(trig::cosh_pullback(x, 0.0, 1.0), x.sinh());
    assert_eq!(
        trig::asinh_pullback(x, 0.0, 1.0),
        1.0 / (x * x + 1.0).sqrt()
    );
    assert_eq!(trig::atanh_pullback(x, 0.0, 1.0), 1.0 / (1.0 - x * x));
    let x = 1.5_f64;
    assert_eq!(
        trig::acosh_pullback(x, 0.0, 1.0),
        1.0 / (x * x - 1.0).sqrt()
    );
    assert_eq!(
        trig::to_degrees_pullback(x, 0.0, 1.0),
        180.0 / std::f64::consts::PI
    );
    assert_eq!(
        trig::to_radians_pullback(x, 0.0, 1.0),
        std::f64::consts::PI / 180.0
    );
    assert_eq!(
        exp_log::log2_pullback(x, 0.0, 1.0),
        1.0 / (x * std::f64::consts::LN_2)
    );
    assert_eq!(
        exp_log::log10_pullback(x, 0.0, 1.0),
        1.0 / (x * std::f64::consts::LN_10)
    );
}

/// σ, softplus and log σ: finite values and derivatives with the right
/// limits at ±1000, ±40 and 0, in both widths. `tail` is e⁻⁴⁰ ≈ 4.25e-18,
/// the size of the small values at ±40 (σ(−40), softplus(−40), ...).
fn logistic_family_is_stable<T: Float>(max_relative: f64) {
    let t = T::from_f64;
    let close = |got: T, want: f64, what: &str| {
        assert_relative_eq!(got.to_f64(), want, max_relative = max_relative);
        assert!(got.is_finite(), "{what}");
    };
    let tail = (-40f64).exp() / (1.0 + (-40f64).exp());
    let ln2 = 2f64.ln();
    for x in [-1000.0, -40.0, 0.0, 40.0, 1000.0] {
        let x = t(x);
        for (name, v) in [
            ("sigmoid", ml::sigmoid(x)),
            ("softplus", ml::softplus(x)),
            ("log_sigmoid", ml::log_sigmoid(x)),
            (
                "sigmoid'",
                ml::sigmoid_pullback(x, ml::sigmoid(x), T::one()),
            ),
            (
                "softplus'",
                ml::softplus_pullback(x, ml::softplus(x), T::one()),
            ),
            (
                "log_sigmoid'",
                ml::log_sigmoid_pullback(x, ml::log_sigmoid(x), T::one()),
            ),
        ] {
            assert!(v.is_finite(), "{name}({x}) = {v}");
        }
    }
    // σ: 0, e⁻⁴⁰, 1/2, 1 (rounded), 1.
    assert_eq!(ml::sigmoid(t(-1000.0)), T::zero());
    close(ml::sigmoid(t(-40.0)), tail, "σ(−40)");
    assert_eq!(ml::sigmoid(T::zero()), t(0.5));
    assert_eq!(ml::sigmoid(t(40.0)), T::one());
    assert_eq!(ml::sigmoid(t(1000.0)), T::one());
    // σ' = y(1 − y): 0, e⁻⁴⁰, 1/4, and 0 where y rounds to 1 (documented).
    let ds = |x: f64| ml::sigmoid_pullback(t(x), ml::sigmoid(t(x)), T::one());
    assert_eq!(ds(-1000.0), T::zero());
    close(ds(-40.0), tail, "σ'(−40)");
    assert_eq!(ds(0.0), t(0.25));
    assert_eq!(ds(40.0), T::zero());
    assert_eq!(ds(1000.0), T::zero());
    // softplus: 0, e⁻⁴⁰, ln 2, 40, 1000; its derivative σ.
    assert_eq!(ml::softplus(t(-1000.0)), T::zero());
    close(ml::softplus(t(-40.0)), (-40f64).exp(), "softplus(−40)");
    close(ml::softplus(T::zero()), ln2, "softplus(0)");
    assert_eq!(ml::softplus(t(40.0)), t(40.0));
    assert_eq!(ml::softplus(t(1000.0)), t(1000.0));
    let dsp = |x: f64| ml::softplus_pullback(t(x), ml::softplus(t(x)), T::one());
    assert_eq!(dsp(-1000.0), T::zero());
    close(dsp(-40.0), tail, "softplus'(−40)");
    assert_eq!(dsp(0.0), t(0.5));
    assert_eq!(dsp(40.0), T::one());
    assert_eq!(dsp(1000.0), T::one());
    // log σ = −softplus(−x): −1000, −40, −ln 2, −e⁻⁴⁰, 0; its derivative
    // σ(−x), which does not cancel to 0 at 40 (1 − σ(40) would).
    assert_eq!(ml::log_sigmoid(t(-1000.0)), t(-1000.0));
    assert_eq!(ml::log_sigmoid(t(-40.0)), t(-40.0));
    close(ml::log_sigmoid(T::zero()), -ln2, "log σ(0)");
    close(ml::log_sigmoid(t(40.0)), -(-40f64).exp(), "log σ(40)");
    assert_eq!(ml::log_sigmoid(t(1000.0)), T::zero());
    let dls = |x: f64| ml::log_sigmoid_pullback(t(x), ml::log_sigmoid(t(x)), T::one());
    assert_eq!(dls(-1000.0), T::one());
    assert_eq!(dls(-40.0), T::one());
    assert_eq!(dls(0.0), t(0.5));
    close(dls(40.0), tail, "log σ'(40)");
    assert_eq!(dls(1000.0), T::zero());
}

#[test]
fn logistic_family_is_stable_in_f64() {
    logistic_family_is_stable::<f64>(1e-15);
}

#[test]
fn logistic_family_is_stable_in_f32() {
    logistic_family_is_stable::<f32>(1e-6);
}

/// A zero adjoint gives exactly zero partials, however infinite the inputs
/// or the slope: a value that overflowed on a path that does not reach the
/// result (dy = 0) puts no 0·∞ = NaN into a gradient.
#[test]
fn a_zero_adjoint_gives_zero_partials_whatever_the_inputs() {
    assert_eq!(arith::mul_pullback(INF, INF, INF, 0.0), (0.0, 0.0));
    assert_eq!(arith::div_pullback(1.0, 0.0, INF, 0.0), (0.0, 0.0));
    assert_eq!(arith::div_pullback(INF, 1e-300, INF, 0.0), (0.0, 0.0));
    assert_eq!(arith::rem_pullback(INF, 1.0, NAN, 0.0), (0.0, 0.0));
    assert_eq!(arith::recip_pullback(0.0, INF, 0.0), 0.0);
    assert_eq!(exp_log::exp_pullback(1e300, INF, 0.0), 0.0);
    assert_eq!(exp_log::ln_pullback(0.0, -INF, 0.0), 0.0);
    assert_eq!(exp_log::log_pullback(0.0, 1.0, NAN, 0.0), (0.0, 0.0));
    assert_eq!(
        fused::mul_add_pullback(INF, INF, 1.0, INF, 0.0),
        (0.0, 0.0, 0.0)
    );
    assert_eq!(power::sqrt_pullback(0.0, 0.0, 0.0), 0.0);
    assert_eq!(piecewise::abs_pullback(INF, INF, 0.0), 0.0);
    // With a non-zero adjoint the infinity propagates, as the math says.
    assert_eq!(arith::mul_pullback(INF, 2.0, INF, 1.0), (2.0, INF));
    assert_eq!(exp_log::exp_pullback(1e300, INF, 1.0), INF);
}

/// Every row of the table "At singular points" in the crate docs, in its
/// order, bit for bit; and each with dy = 0 gives exactly +0 or -0.
#[test]
fn the_table_of_singular_points() {
    use exp_log::*;
    use piecewise::*;
    use power::*;
    use trig::*;
    let same = |got: f64, want: f64, row: &str| {
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{row}: {got:?}, the table says {want:?}"
        );
    };
    let zero = |got: f64, row: &str| assert_eq!(got, 0.0, "{row} with dy = 0");
    // sqrt, cbrt at ±0.
    for x in [0.0, -0.0] {
        same(sqrt(x), x, "sqrt value");
        same(sqrt_pullback(x, sqrt(x), 1.0), INF, "sqrt'");
        zero(sqrt_pullback(x, sqrt(x), 0.0), "sqrt'");
        same(cbrt(x), x, "cbrt value");
        same(cbrt_pullback(x, cbrt(x), 1.0), INF, "cbrt'");
        zero(cbrt_pullback(x, cbrt(x), 0.0), "cbrt'");
    }
    // ln, log2 at 0.
    same(ln(0.0), -INF, "ln value");
    same(ln_pullback(0.0, -INF, 1.0), INF, "ln'");
    zero(ln_pullback(0.0, -INF, 0.0), "ln'");
    same(log2(0.0), -INF, "log2 value");
    same(log2_pullback(0.0, -INF, 1.0), INF, "log2'");
    zero(log2_pullback(0.0, -INF, 0.0), "log2'");
    // recip and division at 0.
    same(arith::recip(0.0), INF, "recip value");
    same(arith::recip_pullback(0.0, INF, 1.0), -INF, "recip'");
    zero(arith::recip_pullback(0.0, INF, 0.0), "recip'");
    same(arith::div(1.0, 0.0), INF, "div value");
    assert_eq!(arith::div_pullback(1.0, 0.0, INF, 1.0), (INF, -INF));
    let (da, db) = arith::div_pullback(1.0, 0.0, INF, 0.0);
    zero(da, "div'");
    zero(db, "div'");
    // powi.
    for x in [0.0, 5.0, -3.0] {
        same(powi(x, 0), 1.0, "powi n = 0 value");
        same(powi_pullback(x, 0, 1.0, 1.0), 0.0, "powi n = 0");
    }
    same(powi_pullback(0.0, 1, 0.0, 1.0), 1.0, "powi x = 0, n = 1");
    for n in [2, 3, 7] {
        same(powi_pullback(0.0, n, 0.0, 1.0), 0.0, "powi x = 0, n ≥ 2");
    }
    for n in [-1, -2] {
        same(powi(0.0, n), INF, "powi x = 0, n < 0 value");
        same(powi_pullback(0.0, n, INF, 1.0), -INF, "powi x = 0, n < 0");
        zero(powi_pullback(0.0, n, INF, 0.0), "powi x = 0, n < 0");
    }
    // powf at x = 0, and a negative base.
    assert_eq!(powf_pullback(0.0, 2.5, 0.0, 1.0), (0.0, 0.0));
    assert_eq!(powf_pullback(0.0, 1.0, 0.0, 1.0), (1.0, 0.0));
    assert_eq!(powf_pullback(0.0, 0.5, 0.0, 1.0), (INF, 0.0));
    assert_eq!(powf_pullback(0.0, 0.5, 0.0, 0.0), (0.0, 0.0));
    same(powf(0.0, 0.0), 1.0, "powf(0, 0)");
    assert_eq!(powf_pullback(0.0, 0.0, 1.0, 1.0), (0.0, -INF));
    assert_eq!(powf_pullback(0.0, 0.0, 1.0, 0.0), (0.0, 0.0));
    let (dx, de) = powf_pullback(-2.0, 3.0, powf(-2.0, 3.0), 1.0);
    same(dx, 3.0 * 4.0, "powf x < 0");
    assert!(de.is_nan());
    // Kinks and jumps.
    for x in [0.0, -0.0] {
        same(abs(x), 0.0, "abs value");
        same(abs_pullback(x, abs(x), 1.0), 0.0, "abs'");
        same(ml::relu(x), 0.0, "relu value");
        same(ml::relu_pullback(x, ml::relu(x), 1.0), 0.0, "relu'");
    }
    assert!(ml::relu(NAN).is_nan());
    same(ml::relu_pullback(NAN, NAN, 1.0), 0.0, "relu'(NaN)");
    for x in [-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.7] {
        same(signum_pullback(x, signum(x), 1.0), 0.0, "signum'");
        same(floor_pullback(x, floor(x), 1.0), 0.0, "floor'");
        same(ceil_pullback(x, ceil(x), 1.0), 0.0, "ceil'");
        same(round_pullback(x, round(x), 1.0), 0.0, "round'");
        same(trunc_pullback(x, trunc(x), 1.0), 0.0, "trunc'");
        same(fract_pullback(x, fract(x), 1.0), 1.0, "fract'");
    }
    // max, min: ties, one NaN, both NaN.
    for a in [1.5, 0.0, -3.0] {
        same(max(a, a), a, "max tie value");
        assert_eq!(max_pullback(a, a, a, 1.0), (0.5, 0.5));
        same(min(a, a), a, "min tie value");
        assert_eq!(min_pullback(a, a, a, 1.0), (0.5, 0.5));
    }
    same(max(NAN, 3.0), 3.0, "max NaN value");
    assert_eq!(max_pullback(NAN, 3.0, 3.0, 1.0), (0.0, 1.0));
    assert_eq!(max_pullback(3.0, NAN, 3.0, 1.0), (1.0, 0.0));
    same(min(NAN, 3.0), 3.0, "min NaN value");
    assert_eq!(min_pullback(NAN, 3.0, 3.0, 1.0), (0.0, 1.0));
    assert_eq!(min_pullback(3.0, NAN, 3.0, 1.0), (1.0, 0.0));
    assert!(max(NAN, NAN).is_nan() && min(NAN, NAN).is_nan());
    assert_eq!(max_pullback(NAN, NAN, NAN, 1.0), (0.0, 1.0));
    assert_eq!(min_pullback(NAN, NAN, NAN, 1.0), (0.0, 1.0));
    // clamp at its bounds and at NaN.
    for x in [0.0, 1.0] {
        same(clamp(x, 0.0, 1.0), x, "clamp at a bound");
        assert_eq!(clamp_pullback(x, 0.0, 1.0, x, 1.0), (1.0, 0.0, 0.0));
    }
    assert!(clamp(NAN, 0.0, 1.0).is_nan());
    assert_eq!(clamp_pullback(NAN, 0.0, 1.0, NAN, 1.0), (1.0, 0.0, 0.0));
    // atan2 and hypot at the origin.
    for (a, b) in [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0)] {
        same(atan2(a, b), f64::atan2(a, b), "atan2 value");
        assert_eq!(atan2_pullback(a, b, atan2(a, b), 1.0), (0.0, 0.0));
        same(hypot(a, b), 0.0, "hypot value");
        assert_eq!(hypot_pullback(a, b, 0.0, 1.0), (0.0, 0.0));
    }
    // Inverse trigonometric and hyperbolic functions at their ends.
    use std::f64::consts::{FRAC_PI_2, PI};
    for (x, asin_y, acos_y) in [(1.0, FRAC_PI_2, 0.0), (-1.0, -FRAC_PI_2, PI)] {
        same(asin(x), asin_y, "asin value");
        same(asin_pullback(x, asin_y, 1.0), INF, "asin'");
        zero(asin_pullback(x, asin_y, 0.0), "asin'");
        same(acos(x), acos_y, "acos value");
        same(acos_pullback(x, acos_y, 1.0), -INF, "acos'");
        zero(acos_pullback(x, acos_y, 0.0), "acos'");
    }
    same(acosh(1.0), 0.0, "acosh value");
    same(acosh_pullback(1.0, 0.0, 1.0), INF, "acosh'");
    zero(acosh_pullback(1.0, 0.0, 0.0), "acosh'");
    same(atanh(1.0), INF, "atanh value");
    same(atanh_pullback(1.0, INF, 1.0), INF, "atanh'");
    zero(atanh_pullback(1.0, INF, 0.0), "atanh'");
}

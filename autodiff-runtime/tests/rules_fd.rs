//! Every pullback against central finite differences of its own value
//! function, in f64 at points spread over each domain, with an output
//! adjoint dy = 0.7 to check the scaling, and spot checks in f32.
//!
//! Step h = 1e-6·max(1, |x|); tolerance 1e-6 relative or 1e-8 absolute
//! (the central difference's truncation error is O(h²) and its rounding
//! error O(1e-16/h) = 1e-10 relative). Points stay away from kinks.

use autodiff_runtime::{arith, exp_log, fused, ml, piecewise, power, trig};

const DY: f64 = 0.7;

fn grid(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|k| lo + (hi - lo) * (k as f64 + 0.5) / n as f64)
        .collect()
}

fn assert_close(name: &str, at: &[f64], analytic: f64, numeric: f64) {
    let err = (analytic - numeric).abs();
    assert!(
        err <= 1e-8 || err <= 1e-6 * analytic.abs().max(numeric.abs()),
        "{name} at {at:?}: pullback {analytic}, finite differences {numeric}"
    );
}

/// Checks a rule with `n` float arguments: `value(x)` and
/// `pullback(x, y, dy)` returning one partial per argument.
fn check(
    name: &str,
    points: &[Vec<f64>],
    value: impl Fn(&[f64]) -> f64,
    pullback: impl Fn(&[f64], f64, f64) -> Vec<f64>,
) {
    for x in points {
        let y = value(x);
        let partials = pullback(x, y, DY);
        assert_eq!(partials.len(), x.len());
        for i in 0..x.len() {
            let h = 1e-6 * x[i].abs().max(1.0);
            let (mut hi, mut lo) = (x.clone(), x.clone());
            hi[i] += h;
            lo[i] -= h;
            let numeric = DY * (value(&hi) - value(&lo)) / (2.0 * h);
            assert_close(name, x, partials[i], numeric);
        }
    }
}

fn points1(lo: f64, hi: f64) -> Vec<Vec<f64>> {
    grid(lo, hi, 50).into_iter().map(|x| vec![x]).collect()
}

fn points2(a: (f64, f64), b: (f64, f64)) -> Vec<Vec<f64>> {
    let bs = grid(b.0, b.1, 12);
    grid(a.0, a.1, 12)
        .into_iter()
        .flat_map(|x| bs.iter().map(move |&y| vec![x, y]))
        .collect()
}

macro_rules! unary {
    ($($module:ident::$name:ident / $pullback:ident over $lo:expr, $hi:expr;)*) => {
        #[test]
        fn unary_rules() {
            $(check(
                stringify!($name),
                &points1($lo, $hi),
                |x| $module::$name(x[0]),
                |x, y, dy| vec![$module::$pullback(x[0], y, dy)],
            );)*
        }
    };
}

unary! {
    trig::sin / sin_pullback over -10.0, 10.0;
    trig::cos / cos_pullback over -10.0, 10.0;
    trig::tan / tan_pullback over -1.5, 1.5;
    trig::asin / asin_pullback over -0.99, 0.99;
    trig::acos / acos_pullback over -0.99, 0.99;
    trig::atan / atan_pullback over -20.0, 20.0;
    trig::sinh / sinh_pullback over -5.0, 5.0;
    trig::cosh / cosh_pullback over -5.0, 5.0;
    trig::tanh / tanh_pullback over -5.0, 5.0;
    trig::asinh / asinh_pullback over -20.0, 20.0;
    trig::acosh / acosh_pullback over 1.01, 20.0;
    trig::atanh / atanh_pullback over -0.99, 0.99;
    trig::to_degrees / to_degrees_pullback over -10.0, 10.0;
    trig::to_radians / to_radians_pullback over -500.0, 500.0;
    exp_log::exp / exp_pullback over -10.0, 10.0;
    exp_log::exp2 / exp2_pullback over -10.0, 10.0;
    exp_log::exp_m1 / exp_m1_pullback over -5.0, 5.0;
    exp_log::ln / ln_pullback over 0.01, 100.0;
    exp_log::ln_1p / ln_1p_pullback over -0.99, 50.0;
    exp_log::log2 / log2_pullback over 0.01, 100.0;
    exp_log::log10 / log10_pullback over 0.01, 100.0;
    power::sqrt / sqrt_pullback over 0.001, 100.0;
    power::cbrt / cbrt_pullback over -50.0, 50.0;
    arith::recip / recip_pullback over 0.05, 20.0;
    arith::neg / neg_pullback over -10.0, 10.0;
    piecewise::abs / abs_pullback over -10.0, 10.0;
    piecewise::signum / signum_pullback over -10.0, 10.0;
    piecewise::floor / floor_pullback over -9.9, 9.9;
    piecewise::ceil / ceil_pullback over -9.9, 9.9;
    piecewise::round / round_pullback over -9.9, 9.9;
    piecewise::trunc / trunc_pullback over -9.9, 9.9;
    piecewise::fract / fract_pullback over -9.9, 9.9;
    ml::sigmoid / sigmoid_pullback over -30.0, 30.0;
    ml::relu / relu_pullback over -10.0, 10.0;
    ml::softplus / softplus_pullback over -30.0, 30.0;
    ml::log_sigmoid / log_sigmoid_pullback over -30.0, 30.0;
}

#[test]
fn binary_rules() {
    let pair = |(a, b): (f64, f64)| vec![a, b];
    check(
        "add",
        &points2((-5.0, 5.0), (-5.0, 5.0)),
        |x| arith::add(x[0], x[1]),
        |x, y, dy| pair(arith::add_pullback(x[0], x[1], y, dy)),
    );
    check(
        "sub",
        &points2((-5.0, 5.0), (-5.0, 5.0)),
        |x| arith::sub(x[0], x[1]),
        |x, y, dy| pair(arith::sub_pullback(x[0], x[1], y, dy)),
    );
    check(
        "mul",
        &points2((-5.0, 5.0), (-5.0, 5.0)),
        |x| arith::mul(x[0], x[1]),
        |x, y, dy| pair(arith::mul_pullback(x[0], x[1], y, dy)),
    );
    check(
        "div",
        &points2((-5.0, 5.0), (0.2, 5.0)),
        |x| arith::div(x[0], x[1]),
        |x, y, dy| pair(arith::div_pullback(x[0], x[1], y, dy)),
    );
    check(
        "rem",
        &points2((0.1, 9.9), (1.13, 3.41)),
        |x| arith::rem(x[0], x[1]),
        |x, y, dy| pair(arith::rem_pullback(x[0], x[1], y, dy)),
    );
    check(
        "atan2",
        &points2((-4.9, 5.1), (-5.0, 5.0)),
        |x| trig::atan2(x[0], x[1]),
        |x, y, dy| pair(trig::atan2_pullback(x[0], x[1], y, dy)),
    );
    check(
        "hypot",
        &points2((-5.0, 5.0), (-5.0, 5.0)),
        |x| trig::hypot(x[0], x[1]),
        |x, y, dy| pair(trig::hypot_pullback(x[0], x[1], y, dy)),
    );
    check(
        "log",
        &points2((0.1, 10.0), (1.5, 10.0)),
        |x| exp_log::log(x[0], x[1]),
        |x, y, dy| pair(exp_log::log_pullback(x[0], x[1], y, dy)),
    );
    check(
        "powf",
        &points2((0.1, 5.0), (-2.0, 3.0)),
        |x| power::powf(x[0], x[1]),
        |x, y, dy| pair(power::powf_pullback(x[0], x[1], y, dy)),
    );
    check(
        "max",
        &points2((-5.0, 5.0), (-4.9, 5.1)),
        |x| piecewise::max(x[0], x[1]),
        |x, y, dy| pair(piecewise::max_pullback(x[0], x[1], y, dy)),
    );
    check(
        "min",
        &points2((-5.0, 5.0), (-4.9, 5.1)),
        |x| piecewise::min(x[0], x[1]),
        |x, y, dy| pair(piecewise::min_pullback(x[0], x[1], y, dy)),
    );
    for n in [-3, -1, 1, 2, 5] {
        check(
            "powi",
            &points1(0.1, 4.0),
            |x| power::powi(x[0], n),
            |x, y, dy| vec![power::powi_pullback(x[0], n, y, dy)],
        );
    }
}

#[test]
fn ternary_rules() {
    let g = grid(-3.0, 3.0, 6);
    let mut points = Vec::new();
    for &a in &g {
        for &b in &g {
            for &c in &g {
                points.push(vec![a, b, c]);
            }
        }
    }
    let triple = |(a, b, c): (f64, f64, f64)| vec![a, b, c];
    check(
        "mul_add",
        &points,
        |x| fused::mul_add(x[0], x[1], x[2]),
        |x, y, dy| triple(fused::mul_add_pullback(x[0], x[1], x[2], y, dy)),
    );
    // lo < hi, and x at least 0.05 away from both.
    let clamp_points: Vec<Vec<f64>> = grid(-5.0, 5.0, 20)
        .into_iter()
        .flat_map(|x| [vec![x, -2.02, 1.97], vec![x, 0.51, 3.03]])
        .collect();
    check(
        "clamp",
        &clamp_points,
        |x| piecewise::clamp(x[0], x[1], x[2]),
        |x, y, dy| triple(piecewise::clamp_pullback(x[0], x[1], x[2], y, dy)),
    );
}

#[test]
fn f32_spot_checks() {
    let x = 0.75f32;
    let h = 1e-3f32;
    let fd = |f: fn(f32) -> f32| (f(x + h) - f(x - h)) / (2.0 * h);
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-3 * a.abs().max(1.0);
    assert!(close(
        trig::sin_pullback(x, trig::sin(x), 1.0),
        fd(trig::sin)
    ));
    assert!(close(
        exp_log::exp_pullback(x, exp_log::exp(x), 1.0),
        fd(exp_log::exp)
    ));
    assert!(close(
        power::sqrt_pullback(x, power::sqrt(x), 1.0),
        fd(power::sqrt)
    ));
    assert!(close(
        ml::sigmoid_pullback(x, ml::sigmoid(x), 1.0),
        fd(ml::sigmoid)
    ));
    assert!(close(
        trig::tanh_pullback(x, trig::tanh(x), 1.0),
        fd(trig::tanh)
    ));
    let (da, db) = arith::div_pullback(x, 2.0f32, x / 2.0, 1.0);
    assert_eq!((da, db), (0.5, -x / 4.0));
}

#[test]
fn values_equal_the_std_methods() {
    for x in grid(0.05, 0.95, 7) {
        assert_eq!(trig::sin(x).to_bits(), x.sin().to_bits());
        assert_eq!(trig::acos(x).to_bits(), x.acos().to_bits());
        assert_eq!(exp_log::ln_1p(x).to_bits(), x.ln_1p().to_bits());
        assert_eq!(power::cbrt(x).to_bits(), x.cbrt().to_bits());
        assert_eq!(power::powf(x, 1.3).to_bits(), x.powf(1.3).to_bits());
        assert_eq!(trig::hypot(x, 0.3).to_bits(), x.hypot(0.3).to_bits());
        assert_eq!(
            piecewise::clamp(x, 0.2, 0.8).to_bits(),
            x.clamp(0.2, 0.8).to_bits()
        );
        assert_eq!(
            fused::mul_add(x, 0.3, 0.1).to_bits(),
            x.mul_add(0.3, 0.1).to_bits()
        );
    }
}

//! Every primitive, differentiated through `#[grad]`, against central
//! finite differences at points spread over its domain.
//!
//! Step h = 1e-6 · max(1, |x|); a component passes when it is within 1e-6
//! relative or 1e-7 absolute of the central difference, whose truncation
//! error is O(h²·f''') and rounding error O(ε/h) ≈ 1e-10 here. Points stay
//! at least 1e-3 away from kinks, jumps and branch cuts (atan2 avoids its
//! cut at y = 0, x < 0; rem avoids integer ratios).

use autodiff::grad;

/// Central difference of `f` along coordinate `i` at `x`.
fn central(f: &dyn Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    let h = 1e-6 * x[i].abs().max(1.0);
    let mut hi = x.to_vec();
    let mut lo = x.to_vec();
    hi[i] += h;
    lo[i] -= h;
    (f(&hi) - f(&lo)) / (2.0 * h)
}

fn close(analytic: f64, numeric: f64) -> bool {
    let err = (analytic - numeric).abs();
    err <= 1e-7 || err <= 1e-6 * analytic.abs().max(numeric.abs())
}

/// `n` points evenly spread over `[lo, hi]`.
fn grid(lo: f64, hi: f64, n: usize) -> impl Iterator<Item = f64> + Clone {
    (0..n).map(move |k| lo + (hi - lo) * (k as f64 + 0.5) / n as f64)
}

/// A function's value and gradient at a point.
type ValueAndGradient<'a> = &'a dyn Fn(&[f64]) -> (f64, Vec<f64>);

/// Checks a gradient function against finite differences of the plain
/// function at every point, panicking with the worst mismatch.
fn check(
    name: &str,
    points: impl Iterator<Item = Vec<f64>>,
    f: &dyn Fn(&[f64]) -> f64,
    grad: ValueAndGradient,
) {
    let mut count = 0;
    for x in points {
        let (value, g) = grad(&x);
        assert_eq!(
            value.to_bits(),
            f(&x).to_bits(),
            "{name}: the value at {x:?} differs from the function's"
        );
        assert_eq!(g.len(), x.len());
        for (i, &analytic) in g.iter().enumerate() {
            let numeric = central(f, &x, i);
            assert!(
                close(analytic, numeric),
                "{name}: d/dx{i} at {x:?} is {analytic}, finite differences give {numeric}"
            );
        }
        count += 1;
    }
    assert!(count >= 20, "{name}: only {count} points");
}

mod unary {
    use super::grad;
    #[grad]
    pub fn sin(x: f64) -> f64 {
        x.sin()
    }
    #[grad]
    pub fn cos(x: f64) -> f64 {
        x.cos()
    }
    #[grad]
    pub fn tan(x: f64) -> f64 {
        x.tan()
    }
    #[grad]
    pub fn asin(x: f64) -> f64 {
        x.asin()
    }
    #[grad]
    pub fn acos(x: f64) -> f64 {
        x.acos()
    }
    #[grad]
    pub fn atan(x: f64) -> f64 {
        x.atan()
    }
    #[grad]
    pub fn sinh(x: f64) -> f64 {
        x.sinh()
    }
    #[grad]
    pub fn cosh(x: f64) -> f64 {
        x.cosh()
    }
    #[grad]
    pub fn tanh(x: f64) -> f64 {
        x.tanh()
    }
    #[grad]
    pub fn asinh(x: f64) -> f64 {
        x.asinh()
    }
    #[grad]
    pub fn acosh(x: f64) -> f64 {
        x.acosh()
    }
    #[grad]
    pub fn atanh(x: f64) -> f64 {
        x.atanh()
    }
    #[grad]
    pub fn exp(x: f64) -> f64 {
        x.exp()
    }
    #[grad]
    pub fn exp2(x: f64) -> f64 {
        x.exp2()
    }
    #[grad]
    pub fn exp_m1(x: f64) -> f64 {
        x.exp_m1()
    }
    #[grad]
    pub fn ln(x: f64) -> f64 {
        x.ln()
    }
    #[grad]
    pub fn ln_1p(x: f64) -> f64 {
        x.ln_1p()
    }
    #[grad]
    pub fn log2(x: f64) -> f64 {
        x.log2()
    }
    #[grad]
    pub fn log10(x: f64) -> f64 {
        x.log10()
    }
    #[grad]
    pub fn sqrt(x: f64) -> f64 {
        x.sqrt()
    }
    #[grad]
    pub fn cbrt(x: f64) -> f64 {
        x.cbrt()
    }
    #[grad]
    pub fn recip(x: f64) -> f64 {
        x.recip()
    }
    #[grad]
    pub fn abs(x: f64) -> f64 {
        x.abs()
    }
    #[grad]
    pub fn signum(x: f64) -> f64 {
        x.signum()
    }
    #[grad]
    pub fn floor(x: f64) -> f64 {
        x.floor() + x
    }
    #[grad]
    pub fn ceil(x: f64) -> f64 {
        x.ceil() + x
    }
    #[grad]
    pub fn round(x: f64) -> f64 {
        x.round() * x
    }
    #[grad]
    pub fn trunc(x: f64) -> f64 {
        x.trunc() - x
    }
    #[grad]
    pub fn fract(x: f64) -> f64 {
        x.fract()
    }
    #[grad]
    pub fn to_degrees(x: f64) -> f64 {
        x.to_degrees()
    }
    #[grad]
    pub fn to_radians(x: f64) -> f64 {
        x.to_radians()
    }
    #[grad]
    pub fn powi_3(x: f64) -> f64 {
        x.powi(3)
    }
    #[grad]
    pub fn powi_neg2(x: f64) -> f64 {
        x.powi(-2)
    }
    #[grad]
    pub fn powi_0(x: f64) -> f64 {
        x.powi(0) + x
    }
    #[grad]
    pub fn powf_const(x: f64) -> f64 {
        x.powf(2.5)
    }
    #[grad]
    pub fn neg(x: f64) -> f64 {
        -x
    }
    #[grad]
    pub fn sigmoid(x: f64) -> f64 {
        autodiff::sigmoid(x)
    }
    #[grad]
    pub fn relu(x: f64) -> f64 {
        autodiff::relu(x)
    }
    #[grad]
    pub fn softplus(x: f64) -> f64 {
        autodiff::softplus(x)
    }
    #[grad]
    pub fn log_sigmoid(x: f64) -> f64 {
        autodiff::log_sigmoid(x)
    }
    #[grad]
    pub fn rem_const(x: f64) -> f64 {
        x % 2.5
    }
    #[grad]
    pub fn div_by_const(x: f64) -> f64 {
        x / 3.0
    }
    #[grad]
    pub fn const_div(x: f64) -> f64 {
        3.0 / x
    }
    #[grad]
    pub fn f64_path_sin(x: f64) -> f64 {
        f64::sin(x)
    }
    #[grad]
    pub fn f32_roundtrip(x: f64) -> f64 {
        ((x as f32) as f64) * 0.0 + x.sin()
    }
}

mod binary {
    use super::grad;
    #[grad]
    pub fn add(x: f64, y: f64) -> f64 {
        x + y
    }
    #[grad]
    pub fn sub(x: f64, y: f64) -> f64 {
        x - y
    }
    #[grad]
    pub fn mul(x: f64, y: f64) -> f64 {
        x * y
    }
    #[grad]
    pub fn div(x: f64, y: f64) -> f64 {
        x / y
    }
    #[grad]
    pub fn rem(x: f64, y: f64) -> f64 {
        x % y
    }
    #[grad]
    pub fn rem_euclid(x: f64, y: f64) -> f64 {
        x.rem_euclid(y)
    }
    #[grad]
    pub fn rem_euclid_below(x: f64, y: f64) -> f64 {
        x.rem_euclid(-y)
    }
    #[grad]
    pub fn div_euclid(x: f64, y: f64) -> f64 {
        x.div_euclid(y) * y + x
    }
    #[grad]
    pub fn atan2(x: f64, y: f64) -> f64 {
        x.atan2(y)
    }
    #[grad]
    pub fn hypot(x: f64, y: f64) -> f64 {
        x.hypot(y)
    }
    #[grad]
    pub fn log(x: f64, y: f64) -> f64 {
        x.log(y)
    }
    #[grad]
    pub fn powf(x: f64, y: f64) -> f64 {
        x.powf(y)
    }
    #[grad]
    pub fn max(x: f64, y: f64) -> f64 {
        x.max(y)
    }
    #[grad]
    pub fn min(x: f64, y: f64) -> f64 {
        x.min(y)
    }
    #[grad]
    pub fn powi_mixed(x: f64, y: f64) -> f64 {
        x.powi(2) * y
    }
}

mod ternary {
    use super::grad;
    #[grad]
    pub fn mul_add(x: f64, y: f64, z: f64) -> f64 {
        x.mul_add(y, z)
    }
    #[grad]
    pub fn clamp(x: f64, y: f64, z: f64) -> f64 {
        x.clamp(y, z)
    }
}

/// A unary primitive: name, function, its gradient, and the domain sampled.
type Unary = (
    &'static str,
    fn(f64) -> f64,
    fn(f64) -> (f64, f64),
    f64,
    f64,
);

#[rustfmt::skip]
const UNARY: &[Unary] = &[
    ("sin", unary::sin, unary::sin_grad, -10.0, 10.0),
    ("cos", unary::cos, unary::cos_grad, -10.0, 10.0),
    ("tan", unary::tan, unary::tan_grad, -1.5, 1.5),
    ("asin", unary::asin, unary::asin_grad, -0.99, 0.99),
    ("acos", unary::acos, unary::acos_grad, -0.99, 0.99),
    ("atan", unary::atan, unary::atan_grad, -20.0, 20.0),
    ("sinh", unary::sinh, unary::sinh_grad, -5.0, 5.0),
    ("cosh", unary::cosh, unary::cosh_grad, -5.0, 5.0),
    ("tanh", unary::tanh, unary::tanh_grad, -5.0, 5.0),
    ("asinh", unary::asinh, unary::asinh_grad, -20.0, 20.0),
    ("acosh", unary::acosh, unary::acosh_grad, 1.01, 20.0),
    ("atanh", unary::atanh, unary::atanh_grad, -0.99, 0.99),
    ("exp", unary::exp, unary::exp_grad, -10.0, 10.0),
    ("exp2", unary::exp2, unary::exp2_grad, -10.0, 10.0),
    ("exp_m1", unary::exp_m1, unary::exp_m1_grad, -5.0, 5.0),
    ("ln", unary::ln, unary::ln_grad, 0.01, 100.0),
    ("ln_1p", unary::ln_1p, unary::ln_1p_grad, -0.99, 50.0),
    ("log2", unary::log2, unary::log2_grad, 0.01, 100.0),
    ("log10", unary::log10, unary::log10_grad, 0.01, 100.0),
    ("sqrt", unary::sqrt, unary::sqrt_grad, 0.001, 100.0),
    ("cbrt", unary::cbrt, unary::cbrt_grad, -50.0, 50.0),
    ("recip", unary::recip, unary::recip_grad, 0.05, 20.0),
    ("abs", unary::abs, unary::abs_grad, -10.0, 10.0),
    ("signum", unary::signum, unary::signum_grad, -10.0, 10.0),
    ("floor", unary::floor, unary::floor_grad, -9.9, 9.9),
    ("ceil", unary::ceil, unary::ceil_grad, -9.9, 9.9),
    ("round", unary::round, unary::round_grad, -9.9, 9.9),
    ("trunc", unary::trunc, unary::trunc_grad, -9.9, 9.9),
    ("fract", unary::fract, unary::fract_grad, -9.9, 9.9),
    ("to_degrees", unary::to_degrees, unary::to_degrees_grad, -10.0, 10.0),
    ("to_radians", unary::to_radians, unary::to_radians_grad, -500.0, 500.0),
    ("powi_3", unary::powi_3, unary::powi_3_grad, -5.0, 5.0),
    ("powi_neg2", unary::powi_neg2, unary::powi_neg2_grad, 0.1, 5.0),
    ("powi_0", unary::powi_0, unary::powi_0_grad, -5.0, 5.0),
    ("powf_const", unary::powf_const, unary::powf_const_grad, 0.01, 10.0),
    ("neg", unary::neg, unary::neg_grad, -10.0, 10.0),
    ("sigmoid", unary::sigmoid, unary::sigmoid_grad, -30.0, 30.0),
    ("relu", unary::relu, unary::relu_grad, -10.0, 10.0),
    ("softplus", unary::softplus, unary::softplus_grad, -30.0, 30.0),
    ("log_sigmoid", unary::log_sigmoid, unary::log_sigmoid_grad, -30.0, 30.0),
    ("rem_const", unary::rem_const, unary::rem_const_grad, -9.9, 9.9),
    ("div_by_const", unary::div_by_const, unary::div_by_const_grad, -9.0, 9.0),
    ("const_div", unary::const_div, unary::const_div_grad, 0.1, 9.0),
    ("f64_path_sin", unary::f64_path_sin, unary::f64_path_sin_grad, -10.0, 10.0),
    ("f32_roundtrip", unary::f32_roundtrip, unary::f32_roundtrip_grad, -3.0, 3.0),
];

/// A binary primitive: name, function, gradient, and the domain sampled.
type Binary = (
    &'static str,
    fn(f64, f64) -> f64,
    fn(f64, f64) -> (f64, f64, f64),
    (f64, f64),
    (f64, f64),
);

#[rustfmt::skip]
const BINARY: &[Binary] = &[
    ("add", binary::add, binary::add_grad, (-5.0, 5.0), (-5.0, 5.0)),
    ("sub", binary::sub, binary::sub_grad, (-5.0, 5.0), (-5.0, 5.0)),
    ("mul", binary::mul, binary::mul_grad, (-5.0, 5.0), (-5.0, 5.0)),
    ("div", binary::div, binary::div_grad, (-5.0, 5.0), (0.2, 5.0)),
    ("rem", binary::rem, binary::rem_grad, (0.1, 9.9), (1.13, 3.41)),
    ("rem_euclid", binary::rem_euclid, binary::rem_euclid_grad, (-9.7, 9.9), (1.13, 3.41)),
    ("rem_euclid_below", binary::rem_euclid_below, binary::rem_euclid_below_grad, (-9.7, 9.9), (1.13, 3.41)),
    ("div_euclid", binary::div_euclid, binary::div_euclid_grad, (-9.7, 9.9), (1.13, 3.41)),
    ("atan2", binary::atan2, binary::atan2_grad, (-4.9, 5.1), (-5.0, 5.0)),
    ("hypot", binary::hypot, binary::hypot_grad, (-5.0, 5.0), (-5.0, 5.0)),
    ("log", binary::log, binary::log_grad, (0.1, 10.0), (1.5, 10.0)),
    ("powf", binary::powf, binary::powf_grad, (0.1, 5.0), (-2.0, 3.0)),
    ("max", binary::max, binary::max_grad, (-5.0, 5.0), (-4.9, 5.1)),
    ("min", binary::min, binary::min_grad, (-5.0, 5.0), (-4.9, 5.1)),
    ("powi_mixed", binary::powi_mixed, binary::powi_mixed_grad, (-5.0, 5.0), (-5.0, 5.0)),
];

#[test]
fn unary_primitives_match_finite_differences() {
    for &(name, f, grad, lo, hi) in UNARY {
        let points = grid(lo, hi, 60).map(|x| vec![x]);
        check(name, points, &|x| f(x[0]), &|x| {
            let (v, d) = grad(x[0]);
            (v, vec![d])
        });
    }
}

#[test]
fn binary_primitives_match_finite_differences() {
    for &(name, f, grad, (a0, a1), (b0, b1)) in BINARY {
        let points = grid(a0, a1, 9).flat_map(|x| grid(b0, b1, 9).map(move |y| vec![x, y]));
        check(name, points, &|x| f(x[0], x[1]), &|x| {
            let (v, dx, dy) = grad(x[0], x[1]);
            (v, vec![dx, dy])
        });
    }
}

#[test]
fn ternary_primitives_match_finite_differences() {
    type Ternary = fn(f64, f64, f64) -> f64;
    type TernaryGrad = fn(f64, f64, f64) -> (f64, f64, f64, f64);
    type Case = (&'static str, Ternary, TernaryGrad, [(f64, f64); 3]);
    let cases: [Case; 2] = [
        (
            "mul_add",
            ternary::mul_add,
            ternary::mul_add_grad,
            [(-3.0, 3.0), (-3.0, 3.0), (-3.0, 3.0)],
        ),
        (
            "clamp",
            ternary::clamp,
            ternary::clamp_grad,
            [(-5.0, 5.0), (-4.05, -0.05), (0.05, 4.05)],
        ),
    ];
    for (name, f, grad, [a, b, c]) in cases {
        let points = grid(a.0, a.1, 5).flat_map(|x| {
            grid(b.0, b.1, 5).flat_map(move |y| grid(c.0, c.1, 5).map(move |z| vec![x, y, z]))
        });
        check(name, points, &|x| f(x[0], x[1], x[2]), &|x| {
            let (v, dx, dy, dz) = grad(x[0], x[1], x[2]);
            (v, vec![dx, dy, dz])
        });
    }
}

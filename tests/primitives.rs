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

#[test]
fn unary_primitives_match_finite_differences() {
    check(
        "sin",
        grid(-10.0, 10.0, 60).map(|x| vec![x]),
        &|x| unary::sin(x[0]),
        &|x| {
            let (v, d) = unary::sin_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "cos",
        grid(-10.0, 10.0, 60).map(|x| vec![x]),
        &|x| unary::cos(x[0]),
        &|x| {
            let (v, d) = unary::cos_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "tan",
        grid(-1.5, 1.5, 60).map(|x| vec![x]),
        &|x| unary::tan(x[0]),
        &|x| {
            let (v, d) = unary::tan_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "asin",
        grid(-0.99, 0.99, 60).map(|x| vec![x]),
        &|x| unary::asin(x[0]),
        &|x| {
            let (v, d) = unary::asin_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "acos",
        grid(-0.99, 0.99, 60).map(|x| vec![x]),
        &|x| unary::acos(x[0]),
        &|x| {
            let (v, d) = unary::acos_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "atan",
        grid(-20.0, 20.0, 60).map(|x| vec![x]),
        &|x| unary::atan(x[0]),
        &|x| {
            let (v, d) = unary::atan_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "sinh",
        grid(-5.0, 5.0, 60).map(|x| vec![x]),
        &|x| unary::sinh(x[0]),
        &|x| {
            let (v, d) = unary::sinh_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "cosh",
        grid(-5.0, 5.0, 60).map(|x| vec![x]),
        &|x| unary::cosh(x[0]),
        &|x| {
            let (v, d) = unary::cosh_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "tanh",
        grid(-5.0, 5.0, 60).map(|x| vec![x]),
        &|x| unary::tanh(x[0]),
        &|x| {
            let (v, d) = unary::tanh_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "asinh",
        grid(-20.0, 20.0, 60).map(|x| vec![x]),
        &|x| unary::asinh(x[0]),
        &|x| {
            let (v, d) = unary::asinh_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "acosh",
        grid(1.01, 20.0, 60).map(|x| vec![x]),
        &|x| unary::acosh(x[0]),
        &|x| {
            let (v, d) = unary::acosh_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "atanh",
        grid(-0.99, 0.99, 60).map(|x| vec![x]),
        &|x| unary::atanh(x[0]),
        &|x| {
            let (v, d) = unary::atanh_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "exp",
        grid(-10.0, 10.0, 60).map(|x| vec![x]),
        &|x| unary::exp(x[0]),
        &|x| {
            let (v, d) = unary::exp_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "exp2",
        grid(-10.0, 10.0, 60).map(|x| vec![x]),
        &|x| unary::exp2(x[0]),
        &|x| {
            let (v, d) = unary::exp2_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "exp_m1",
        grid(-5.0, 5.0, 60).map(|x| vec![x]),
        &|x| unary::exp_m1(x[0]),
        &|x| {
            let (v, d) = unary::exp_m1_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "ln",
        grid(0.01, 100.0, 60).map(|x| vec![x]),
        &|x| unary::ln(x[0]),
        &|x| {
            let (v, d) = unary::ln_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "ln_1p",
        grid(-0.99, 50.0, 60).map(|x| vec![x]),
        &|x| unary::ln_1p(x[0]),
        &|x| {
            let (v, d) = unary::ln_1p_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "log2",
        grid(0.01, 100.0, 60).map(|x| vec![x]),
        &|x| unary::log2(x[0]),
        &|x| {
            let (v, d) = unary::log2_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "log10",
        grid(0.01, 100.0, 60).map(|x| vec![x]),
        &|x| unary::log10(x[0]),
        &|x| {
            let (v, d) = unary::log10_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "sqrt",
        grid(0.001, 100.0, 60).map(|x| vec![x]),
        &|x| unary::sqrt(x[0]),
        &|x| {
            let (v, d) = unary::sqrt_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "cbrt",
        grid(-50.0, 50.0, 60).map(|x| vec![x]),
        &|x| unary::cbrt(x[0]),
        &|x| {
            let (v, d) = unary::cbrt_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "recip",
        grid(0.05, 20.0, 60).map(|x| vec![x]),
        &|x| unary::recip(x[0]),
        &|x| {
            let (v, d) = unary::recip_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "abs",
        grid(-10.0, 10.0, 60).map(|x| vec![x]),
        &|x| unary::abs(x[0]),
        &|x| {
            let (v, d) = unary::abs_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "signum",
        grid(-10.0, 10.0, 60).map(|x| vec![x]),
        &|x| unary::signum(x[0]),
        &|x| {
            let (v, d) = unary::signum_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "floor",
        grid(-9.9, 9.9, 60).map(|x| vec![x]),
        &|x| unary::floor(x[0]),
        &|x| {
            let (v, d) = unary::floor_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "ceil",
        grid(-9.9, 9.9, 60).map(|x| vec![x]),
        &|x| unary::ceil(x[0]),
        &|x| {
            let (v, d) = unary::ceil_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "round",
        grid(-9.9, 9.9, 60).map(|x| vec![x]),
        &|x| unary::round(x[0]),
        &|x| {
            let (v, d) = unary::round_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "trunc",
        grid(-9.9, 9.9, 60).map(|x| vec![x]),
        &|x| unary::trunc(x[0]),
        &|x| {
            let (v, d) = unary::trunc_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "fract",
        grid(-9.9, 9.9, 60).map(|x| vec![x]),
        &|x| unary::fract(x[0]),
        &|x| {
            let (v, d) = unary::fract_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "to_degrees",
        grid(-10.0, 10.0, 60).map(|x| vec![x]),
        &|x| unary::to_degrees(x[0]),
        &|x| {
            let (v, d) = unary::to_degrees_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "to_radians",
        grid(-500.0, 500.0, 60).map(|x| vec![x]),
        &|x| unary::to_radians(x[0]),
        &|x| {
            let (v, d) = unary::to_radians_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "powi_3",
        grid(-5.0, 5.0, 60).map(|x| vec![x]),
        &|x| unary::powi_3(x[0]),
        &|x| {
            let (v, d) = unary::powi_3_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "powi_neg2",
        grid(0.1, 5.0, 60).map(|x| vec![x]),
        &|x| unary::powi_neg2(x[0]),
        &|x| {
            let (v, d) = unary::powi_neg2_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "powi_0",
        grid(-5.0, 5.0, 60).map(|x| vec![x]),
        &|x| unary::powi_0(x[0]),
        &|x| {
            let (v, d) = unary::powi_0_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "powf_const",
        grid(0.01, 10.0, 60).map(|x| vec![x]),
        &|x| unary::powf_const(x[0]),
        &|x| {
            let (v, d) = unary::powf_const_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "neg",
        grid(-10.0, 10.0, 60).map(|x| vec![x]),
        &|x| unary::neg(x[0]),
        &|x| {
            let (v, d) = unary::neg_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "sigmoid",
        grid(-30.0, 30.0, 60).map(|x| vec![x]),
        &|x| unary::sigmoid(x[0]),
        &|x| {
            let (v, d) = unary::sigmoid_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "relu",
        grid(-10.0, 10.0, 60).map(|x| vec![x]),
        &|x| unary::relu(x[0]),
        &|x| {
            let (v, d) = unary::relu_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "softplus",
        grid(-30.0, 30.0, 60).map(|x| vec![x]),
        &|x| unary::softplus(x[0]),
        &|x| {
            let (v, d) = unary::softplus_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "log_sigmoid",
        grid(-30.0, 30.0, 60).map(|x| vec![x]),
        &|x| unary::log_sigmoid(x[0]),
        &|x| {
            let (v, d) = unary::log_sigmoid_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "rem_const",
        grid(-9.9, 9.9, 60).map(|x| vec![x]),
        &|x| unary::rem_const(x[0]),
        &|x| {
            let (v, d) = unary::rem_const_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "div_by_const",
        grid(-9.0, 9.0, 60).map(|x| vec![x]),
        &|x| unary::div_by_const(x[0]),
        &|x| {
            let (v, d) = unary::div_by_const_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "const_div",
        grid(0.1, 9.0, 60).map(|x| vec![x]),
        &|x| unary::const_div(x[0]),
        &|x| {
            let (v, d) = unary::const_div_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "f64_path_sin",
        grid(-10.0, 10.0, 60).map(|x| vec![x]),
        &|x| unary::f64_path_sin(x[0]),
        &|x| {
            let (v, d) = unary::f64_path_sin_grad(x[0]);
            (v, vec![d])
        },
    );
    check(
        "f32_roundtrip",
        grid(-3.0, 3.0, 60).map(|x| vec![x]),
        &|x| unary::f32_roundtrip(x[0]),
        &|x| {
            let (v, d) = unary::f32_roundtrip_grad(x[0]);
            (v, vec![d])
        },
    );
}

#[test]
fn binary_primitives_match_finite_differences() {
    check(
        "add",
        grid(-5.0, 5.0, 9).flat_map(|x| grid(-5.0, 5.0, 9).map(move |y| vec![x, y])),
        &|x| binary::add(x[0], x[1]),
        &|x| {
            let (v, dx, dy) = binary::add_grad(x[0], x[1]);
            (v, vec![dx, dy])
        },
    );
    check(
        "sub",
        grid(-5.0, 5.0, 9).flat_map(|x| grid(-5.0, 5.0, 9).map(move |y| vec![x, y])),
        &|x| binary::sub(x[0], x[1]),
        &|x| {
            let (v, dx, dy) = binary::sub_grad(x[0], x[1]);
            (v, vec![dx, dy])
        },
    );
    check(
        "mul",
        grid(-5.0, 5.0, 9).flat_map(|x| grid(-5.0, 5.0, 9).map(move |y| vec![x, y])),
        &|x| binary::mul(x[0], x[1]),
        &|x| {
            let (v, dx, dy) = binary::mul_grad(x[0], x[1]);
            (v, vec![dx, dy])
        },
    );
    check(
        "div",
        grid(-5.0, 5.0, 9).flat_map(|x| grid(0.2, 5.0, 9).map(move |y| vec![x, y])),
        &|x| binary::div(x[0], x[1]),
        &|x| {
            let (v, dx, dy) = binary::div_grad(x[0], x[1]);
            (v, vec![dx, dy])
        },
    );
    check(
        "rem",
        grid(0.1, 9.9, 9).flat_map(|x| grid(1.13, 3.41, 9).map(move |y| vec![x, y])),
        &|x| binary::rem(x[0], x[1]),
        &|x| {
            let (v, dx, dy) = binary::rem_grad(x[0], x[1]);
            (v, vec![dx, dy])
        },
    );
    check(
        "atan2",
        grid(-4.9, 5.1, 9).flat_map(|x| grid(-5.0, 5.0, 9).map(move |y| vec![x, y])),
        &|x| binary::atan2(x[0], x[1]),
        &|x| {
            let (v, dx, dy) = binary::atan2_grad(x[0], x[1]);
            (v, vec![dx, dy])
        },
    );
    check(
        "hypot",
        grid(-5.0, 5.0, 9).flat_map(|x| grid(-5.0, 5.0, 9).map(move |y| vec![x, y])),
        &|x| binary::hypot(x[0], x[1]),
        &|x| {
            let (v, dx, dy) = binary::hypot_grad(x[0], x[1]);
            (v, vec![dx, dy])
        },
    );
    check(
        "log",
        grid(0.1, 10.0, 9).flat_map(|x| grid(1.5, 10.0, 9).map(move |y| vec![x, y])),
        &|x| binary::log(x[0], x[1]),
        &|x| {
            let (v, dx, dy) = binary::log_grad(x[0], x[1]);
            (v, vec![dx, dy])
        },
    );
    check(
        "powf",
        grid(0.1, 5.0, 9).flat_map(|x| grid(-2.0, 3.0, 9).map(move |y| vec![x, y])),
        &|x| binary::powf(x[0], x[1]),
        &|x| {
            let (v, dx, dy) = binary::powf_grad(x[0], x[1]);
            (v, vec![dx, dy])
        },
    );
    check(
        "max",
        grid(-5.0, 5.0, 9).flat_map(|x| grid(-4.9, 5.1, 9).map(move |y| vec![x, y])),
        &|x| binary::max(x[0], x[1]),
        &|x| {
            let (v, dx, dy) = binary::max_grad(x[0], x[1]);
            (v, vec![dx, dy])
        },
    );
    check(
        "min",
        grid(-5.0, 5.0, 9).flat_map(|x| grid(-4.9, 5.1, 9).map(move |y| vec![x, y])),
        &|x| binary::min(x[0], x[1]),
        &|x| {
            let (v, dx, dy) = binary::min_grad(x[0], x[1]);
            (v, vec![dx, dy])
        },
    );
    check(
        "powi_mixed",
        grid(-5.0, 5.0, 9).flat_map(|x| grid(-5.0, 5.0, 9).map(move |y| vec![x, y])),
        &|x| binary::powi_mixed(x[0], x[1]),
        &|x| {
            let (v, dx, dy) = binary::powi_mixed_grad(x[0], x[1]);
            (v, vec![dx, dy])
        },
    );
}

#[test]
fn ternary_primitives_match_finite_differences() {
    check(
        "mul_add",
        grid(-3.0, 3.0, 5).flat_map(|x| {
            grid(-3.0, 3.0, 5).flat_map(move |y| grid(-3.0, 3.0, 5).map(move |z| vec![x, y, z]))
        }),
        &|x| ternary::mul_add(x[0], x[1], x[2]),
        &|x| {
            let (v, dx, dy, dz) = ternary::mul_add_grad(x[0], x[1], x[2]);
            (v, vec![dx, dy, dz])
        },
    );
    check(
        "clamp",
        grid(-5.0, 5.0, 5).flat_map(|x| {
            grid(-4.05, -0.05, 5).flat_map(move |y| grid(0.05, 4.05, 5).map(move |z| vec![x, y, z]))
        }),
        &|x| ternary::clamp(x[0], x[1], x[2]),
        &|x| {
            let (v, dx, dy, dz) = ternary::clamp_grad(x[0], x[1], x[2]);
            (v, vec![dx, dy, dz])
        },
    );
}

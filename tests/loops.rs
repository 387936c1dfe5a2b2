//! Loops: `for` over integer ranges (`..`, `..=`, `.rev()`, `.step_by(k)`)
//! and `while`, with variables overwritten every iteration. The forward
//! sweep pushes what the reverse sweep reads and the iteration overwrites;
//! the value stack's own counters show how much.

#![deny(warnings)]

use approx::assert_relative_eq;
use autodiff::grad;
use autodiff::runtime::stack;

/// Central difference of `f` at `x`, step 1e-6·max(1, |x|).
fn derivative(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6 * x.abs().max(1.0);
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-7 || (a - b).abs() <= 1e-6 * a.abs().max(b.abs())
}

/// Every primitive inside a loop: its input and output are values of the
/// iteration, recorded only where its pullback reads them. A wrong record
/// (a value read but not pushed) would give a wrong gradient here.
mod in_loop {
    use super::grad;

    #[grad]
    pub fn sin(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.sin();
        }
        acc
    }

    #[grad]
    pub fn cos(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.cos();
        }
        acc
    }

    #[grad]
    pub fn tan(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.tan();
        }
        acc
    }

    #[grad]
    pub fn asin(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.asin();
        }
        acc
    }

    #[grad]
    pub fn acos(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.acos();
        }
        acc
    }

    #[grad]
    pub fn atan(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.atan();
        }
        acc
    }

    #[grad]
    pub fn sinh(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.sinh();
        }
        acc
    }

    #[grad]
    pub fn cosh(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.cosh();
        }
        acc
    }

    #[grad]
    pub fn tanh(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.tanh();
        }
        acc
    }

    #[grad]
    pub fn asinh(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.asinh();
        }
        acc
    }

    #[grad]
    pub fn acosh(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.acosh();
        }
        acc
    }

    #[grad]
    pub fn atanh(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.atanh();
        }
        acc
    }

    #[grad]
    pub fn exp(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.exp();
        }
        acc
    }

    #[grad]
    pub fn exp2(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.exp2();
        }
        acc
    }

    #[grad]
    pub fn exp_m1(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.exp_m1();
        }
        acc
    }

    #[grad]
    pub fn ln(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.ln();
        }
        acc
    }

    #[grad]
    pub fn ln_1p(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.ln_1p();
        }
        acc
    }

    #[grad]
    pub fn log2(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.log2();
        }
        acc
    }

    #[grad]
    pub fn log10(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.log10();
        }
        acc
    }

    #[grad]
    pub fn sqrt(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.sqrt();
        }
        acc
    }

    #[grad]
    pub fn cbrt(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.cbrt();
        }
        acc
    }

    #[grad]
    pub fn recip(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.recip();
        }
        acc
    }

    #[grad]
    pub fn abs(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.abs();
        }
        acc
    }

    #[grad]
    pub fn signum(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.signum();
        }
        acc
    }

    #[grad]
    pub fn floor(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.floor() + t;
        }
        acc
    }

    #[grad]
    pub fn ceil(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.ceil() + t;
        }
        acc
    }

    #[grad]
    pub fn round(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.round() * t;
        }
        acc
    }

    #[grad]
    pub fn trunc(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.trunc() - t;
        }
        acc
    }

    #[grad]
    pub fn fract(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.fract();
        }
        acc
    }

    #[grad]
    pub fn to_degrees(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.to_degrees();
        }
        acc
    }

    #[grad]
    pub fn to_radians(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.to_radians();
        }
        acc
    }

    #[grad]
    pub fn powi_3(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.powi(3);
        }
        acc
    }

    #[grad]
    pub fn powi_neg2(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.powi(-2);
        }
        acc
    }

    #[grad]
    pub fn powi_0(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.powi(0) + t;
        }
        acc
    }

    #[grad]
    pub fn powf_const(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t.powf(2.5);
        }
        acc
    }

    #[grad]
    pub fn neg(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += -t;
        }
        acc
    }

    #[grad]
    pub fn sigmoid(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += autodiff::sigmoid(t);
        }
        acc
    }

    #[grad]
    pub fn relu(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += autodiff::relu(t);
        }
        acc
    }

    #[grad]
    pub fn softplus(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += autodiff::softplus(t);
        }
        acc
    }

    #[grad]
    pub fn log_sigmoid(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += autodiff::log_sigmoid(t);
        }
        acc
    }

    #[grad]
    pub fn rem_const(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t % 2.5;
        }
        acc
    }

    #[grad]
    pub fn div_by_const(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += t / 3.0;
        }
        acc
    }

    #[grad]
    pub fn const_div(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += 3.0 / t;
        }
        acc
    }

    #[grad]
    pub fn f64_path_sin(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += f64::sin(t);
        }
        acc
    }

    #[grad]
    pub fn f32_roundtrip(x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let t = x + 0.001 * k as f64;
            acc += ((t as f32) as f64) * 0.0 + t.sin();
        }
        acc
    }

    #[grad]
    pub fn add_2(x: f64, y: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let a = x + 0.001 * k as f64;
            let b = y - 0.001 * k as f64;
            acc += a + b;
        }
        acc
    }

    #[grad]
    pub fn sub_2(x: f64, y: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let a = x + 0.001 * k as f64;
            let b = y - 0.001 * k as f64;
            acc += a - b;
        }
        acc
    }

    #[grad]
    pub fn mul_2(x: f64, y: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let a = x + 0.001 * k as f64;
            let b = y - 0.001 * k as f64;
            acc += a * b;
        }
        acc
    }

    #[grad]
    pub fn div_2(x: f64, y: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let a = x + 0.001 * k as f64;
            let b = y - 0.001 * k as f64;
            acc += a / b;
        }
        acc
    }

    #[grad]
    pub fn rem_2(x: f64, y: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let a = x + 0.001 * k as f64;
            let b = y - 0.001 * k as f64;
            acc += a % b;
        }
        acc
    }

    #[grad]
    pub fn atan2_2(x: f64, y: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let a = x + 0.001 * k as f64;
            let b = y - 0.001 * k as f64;
            acc += a.atan2(b);
        }
        acc
    }

    #[grad]
    pub fn hypot_2(x: f64, y: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let a = x + 0.001 * k as f64;
            let b = y - 0.001 * k as f64;
            acc += a.hypot(b);
        }
        acc
    }

    #[grad]
    pub fn log_2(x: f64, y: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let a = x + 0.001 * k as f64;
            let b = y - 0.001 * k as f64;
            acc += a.log(b);
        }
        acc
    }

    #[grad]
    pub fn powf_2(x: f64, y: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let a = x + 0.001 * k as f64;
            let b = y - 0.001 * k as f64;
            acc += a.powf(b);
        }
        acc
    }

    #[grad]
    pub fn max_2(x: f64, y: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let a = x + 0.001 * k as f64;
            let b = y - 0.001 * k as f64;
            acc += a.max(b);
        }
        acc
    }

    #[grad]
    pub fn min_2(x: f64, y: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let a = x + 0.001 * k as f64;
            let b = y - 0.001 * k as f64;
            acc += a.min(b);
        }
        acc
    }

    #[grad]
    pub fn powi_mixed_2(x: f64, y: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..3 {
            let a = x + 0.001 * k as f64;
            let b = y - 0.001 * k as f64;
            acc += a.powi(2) * b;
        }
        acc
    }
}

/// A unary case: name, function, gradient, domain.
type Unary = (
    &'static str,
    fn(f64) -> f64,
    fn(f64) -> (f64, f64),
    f64,
    f64,
);
/// A binary case: name, function, gradient, domains.
type Binary = (
    &'static str,
    fn(f64, f64) -> f64,
    fn(f64, f64) -> (f64, f64, f64),
    (f64, f64),
    (f64, f64),
);

#[test]
fn every_primitive_in_a_loop() {
    let unary: &[Unary] = &[
        ("sin", in_loop::sin, in_loop::sin_grad, -10.0, 9.99),
        ("cos", in_loop::cos, in_loop::cos_grad, -10.0, 9.99),
        ("tan", in_loop::tan, in_loop::tan_grad, -1.5, 1.49),
        ("asin", in_loop::asin, in_loop::asin_grad, -0.99, 0.98),
        ("acos", in_loop::acos, in_loop::acos_grad, -0.99, 0.98),
        ("atan", in_loop::atan, in_loop::atan_grad, -20.0, 19.99),
        ("sinh", in_loop::sinh, in_loop::sinh_grad, -5.0, 4.99),
        ("cosh", in_loop::cosh, in_loop::cosh_grad, -5.0, 4.99),
        ("tanh", in_loop::tanh, in_loop::tanh_grad, -5.0, 4.99),
        ("asinh", in_loop::asinh, in_loop::asinh_grad, -20.0, 19.99),
        ("acosh", in_loop::acosh, in_loop::acosh_grad, 1.01, 19.99),
        ("atanh", in_loop::atanh, in_loop::atanh_grad, -0.99, 0.98),
        ("exp", in_loop::exp, in_loop::exp_grad, -10.0, 9.99),
        ("exp2", in_loop::exp2, in_loop::exp2_grad, -10.0, 9.99),
        ("exp_m1", in_loop::exp_m1, in_loop::exp_m1_grad, -5.0, 4.99),
        ("ln", in_loop::ln, in_loop::ln_grad, 0.01, 99.99),
        ("ln_1p", in_loop::ln_1p, in_loop::ln_1p_grad, -0.99, 49.99),
        ("log2", in_loop::log2, in_loop::log2_grad, 0.01, 99.99),
        ("log10", in_loop::log10, in_loop::log10_grad, 0.01, 99.99),
        ("sqrt", in_loop::sqrt, in_loop::sqrt_grad, 0.001, 99.99),
        ("cbrt", in_loop::cbrt, in_loop::cbrt_grad, -50.0, 49.99),
        ("recip", in_loop::recip, in_loop::recip_grad, 0.05, 19.99),
        ("abs", in_loop::abs, in_loop::abs_grad, -10.0, 9.99),
        ("signum", in_loop::signum, in_loop::signum_grad, -10.0, 9.99),
        ("floor", in_loop::floor, in_loop::floor_grad, -9.9, 9.89),
        ("ceil", in_loop::ceil, in_loop::ceil_grad, -9.9, 9.89),
        ("round", in_loop::round, in_loop::round_grad, -9.9, 9.89),
        ("trunc", in_loop::trunc, in_loop::trunc_grad, -9.9, 9.89),
        ("fract", in_loop::fract, in_loop::fract_grad, -9.9, 9.89),
        (
            "to_degrees",
            in_loop::to_degrees,
            in_loop::to_degrees_grad,
            -10.0,
            9.99,
        ),
        (
            "to_radians",
            in_loop::to_radians,
            in_loop::to_radians_grad,
            -500.0,
            499.99,
        ),
        ("powi_3", in_loop::powi_3, in_loop::powi_3_grad, -5.0, 4.99),
        (
            "powi_neg2",
            in_loop::powi_neg2,
            in_loop::powi_neg2_grad,
            0.1,
            4.99,
        ),
        ("powi_0", in_loop::powi_0, in_loop::powi_0_grad, -5.0, 4.99),
        (
            "powf_const",
            in_loop::powf_const,
            in_loop::powf_const_grad,
            0.01,
            9.99,
        ),
        ("neg", in_loop::neg, in_loop::neg_grad, -10.0, 9.99),
        (
            "sigmoid",
            in_loop::sigmoid,
            in_loop::sigmoid_grad,
            -30.0,
            29.99,
        ),
        ("relu", in_loop::relu, in_loop::relu_grad, -10.0, 9.99),
        (
            "softplus",
            in_loop::softplus,
            in_loop::softplus_grad,
            -30.0,
            29.99,
        ),
        (
            "log_sigmoid",
            in_loop::log_sigmoid,
            in_loop::log_sigmoid_grad,
            -30.0,
            29.99,
        ),
        (
            "rem_const",
            in_loop::rem_const,
            in_loop::rem_const_grad,
            -9.9,
            9.89,
        ),
        (
            "div_by_const",
            in_loop::div_by_const,
            in_loop::div_by_const_grad,
            -9.0,
            8.99,
        ),
        (
            "const_div",
            in_loop::const_div,
            in_loop::const_div_grad,
            0.1,
            8.99,
        ),
        (
            "f64_path_sin",
            in_loop::f64_path_sin,
            in_loop::f64_path_sin_grad,
            -10.0,
            9.99,
        ),
        (
            "f32_roundtrip",
            in_loop::f32_roundtrip,
            in_loop::f32_roundtrip_grad,
            -3.0,
            2.99,
        ),
    ];
    for &(name, f, grad, lo, hi) in unary {
        for k in 0..17 {
            let x = lo + (hi - lo) * (k as f64 + 0.5) / 17.0;
            let (v, d) = grad(x);
            assert_eq!(v, f(x), "{name} at {x}");
            let fd = derivative(f, x);
            assert!(
                close(d, fd),
                "{name} at {x}: {d} vs finite differences {fd}"
            );
        }
    }
    let binary: &[Binary] = &[
        (
            "add",
            in_loop::add_2,
            in_loop::add_2_grad,
            (-5.0, 4.99),
            (-4.99, 5.0),
        ),
        (
            "sub",
            in_loop::sub_2,
            in_loop::sub_2_grad,
            (-5.0, 4.99),
            (-4.99, 5.0),
        ),
        (
            "mul",
            in_loop::mul_2,
            in_loop::mul_2_grad,
            (-5.0, 4.99),
            (-4.99, 5.0),
        ),
        (
            "div",
            in_loop::div_2,
            in_loop::div_2_grad,
            (-5.0, 4.99),
            (0.21000000000000002, 5.0),
        ),
        (
            "rem",
            in_loop::rem_2,
            in_loop::rem_2_grad,
            (0.1, 9.89),
            (1.14, 3.41),
        ),
        (
            "atan2",
            in_loop::atan2_2,
            in_loop::atan2_2_grad,
            (-4.9, 5.09),
            (-4.99, 5.0),
        ),
        (
            "hypot",
            in_loop::hypot_2,
            in_loop::hypot_2_grad,
            (-5.0, 4.99),
            (-4.99, 5.0),
        ),
        (
            "log",
            in_loop::log_2,
            in_loop::log_2_grad,
            (0.1, 9.99),
            (1.51, 10.0),
        ),
        (
            "powf",
            in_loop::powf_2,
            in_loop::powf_2_grad,
            (0.1, 4.99),
            (-1.99, 3.0),
        ),
        (
            "max",
            in_loop::max_2,
            in_loop::max_2_grad,
            (-5.0, 4.99),
            (-4.890000000000001, 5.1),
        ),
        (
            "min",
            in_loop::min_2,
            in_loop::min_2_grad,
            (-5.0, 4.99),
            (-4.890000000000001, 5.1),
        ),
        (
            "powi_mixed",
            in_loop::powi_mixed_2,
            in_loop::powi_mixed_2_grad,
            (-5.0, 4.99),
            (-4.99, 5.0),
        ),
    ];
    for &(name, f, grad, (a0, a1), (b0, b1)) in binary {
        for i in 0..5 {
            for j in 0..5 {
                let x = a0 + (a1 - a0) * (i as f64 + 0.5) / 5.0;
                let y = b0 + (b1 - b0) * (j as f64 + 0.5) / 5.0;
                let (v, dx, dy) = grad(x, y);
                assert_eq!(v, f(x, y), "{name}");
                let (fx, fy) = (derivative(|x| f(x, y), x), derivative(|y| f(x, y), y));
                assert!(
                    close(dx, fx) && close(dy, fy),
                    "{name} at ({x}, {y}): ({dx}, {dy}) vs ({fx}, {fy})"
                );
            }
        }
    }
}

/// x + x² + ... + xⁿ through a running power, and the sum of sines of it.
#[grad]
fn power_sum(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    let mut p = 1.0;
    for _ in 0..n {
        p *= x;
        s += p.sin();
    }
    s
}

#[test]
fn zero_one_and_many_iterations() {
    assert_eq!(power_sum_grad(0.7, 0), (0.0, 0.0));
    assert_eq!(power_sum_grad(0.7, 1), (0.7f64.sin(), 0.7f64.cos()));
    for n in [2, 5, 40] {
        let (v, d) = power_sum_grad(0.7, n);
        assert_eq!(v, power_sum(0.7, n));
        // d/dx Σ sin(xᵏ) = Σ k xᵏ⁻¹ cos(xᵏ).
        let exact: f64 = (1..=n)
            .map(|k| k as f64 * 0.7f64.powi(k as i32 - 1) * 0.7f64.powi(k as i32).cos())
            .sum();
        assert_relative_eq!(d, exact, max_relative = 1e-12);
    }
}

/// A `while` loop whose trip count depends on the data.
#[grad]
fn halving(x: f64) -> f64 {
    let mut s = x;
    let mut k = 0;
    while s > 1.0 {
        s = s / 2.0 + 0.1 * s.sqrt();
        k += 1;
    }
    s * (k as f64 + 1.0)
}

#[test]
fn while_loops_with_data_dependent_trip_counts() {
    for x in [0.5, 1.5, 3.7, 37.0, 1234.5] {
        let (v, d) = halving_grad(x);
        assert_eq!(v, halving(x));
        assert!(close(d, derivative(halving, x)), "at {x}: {d}");
    }
}

/// Range forms: `..=`, `.rev()`, `.step_by(k)`, and the index in the body.
#[grad]
fn ranges(x: f64, n: i32) -> f64 {
    let mut s = 0.0;
    for i in 1..=n {
        s += x.powi(i) / i as f64;
    }
    for i in (0..n).rev() {
        s = s * 0.5 + (x * i as f64).sin();
    }
    for i in (0..10).step_by(3) {
        s += x * i as f64;
    }
    for i in (0..10).step_by(4).rev() {
        s -= (x + i as f64).ln();
    }
    s
}

#[test]
fn inclusive_reversed_and_stepped_ranges() {
    for (x, n) in [(0.3, 4), (1.7, 7), (2.5, 0)] {
        let (v, d) = ranges_grad(x, n);
        assert_eq!(v, ranges(x, n));
        assert!(
            close(d, derivative(|x| ranges(x, n), x)),
            "at {x}, {n}: {d}"
        );
    }
}

/// Nested loops, with a branch inside.
#[grad]
fn nested(x: f64, y: f64) -> f64 {
    let mut acc = 0.0;
    for i in 0..3 {
        let mut inner = x;
        for j in (1..=2).rev() {
            inner = inner * y + (i * j) as f64;
        }
        if inner > 2.0 {
            acc += inner.ln();
        } else {
            acc -= inner;
        }
    }
    acc * x
}

#[test]
fn nested_loops_with_branches() {
    for (x, y) in [(0.6, 1.7), (1.1, 0.4), (-0.3, 2.2)] {
        let (v, dx, dy) = nested_grad(x, y);
        assert_eq!(v, nested(x, y));
        assert!(close(dx, derivative(|x| nested(x, y), x)));
        assert!(close(dy, derivative(|y| nested(x, y), y)));
    }
}

/// The recurrence of case study 8, h_t = tanh(w·h_{t−1} + u·x_t), scored by
/// the last state: backpropagation through time, against a hand-written
/// one.
#[grad]
fn recurrence(w: f64, u: f64, h0: f64) -> f64 {
    let mut h = h0;
    for t in 0..6 {
        let x = (t as f64 * 0.7).sin();
        h = (w * h + u * x).tanh();
    }
    h
}

#[test]
fn backpropagation_through_time() {
    let (w, u, h0) = (0.8, -0.6, 0.3);
    // Forward, keeping every state.
    let mut hs = vec![h0];
    for t in 0..6 {
        let x = (t as f64 * 0.7).sin();
        hs.push((w * hs[t] + u * x).tanh());
    }
    // Backward by hand.
    let (mut dh, mut dw, mut du) = (1.0, 0.0, 0.0);
    for t in (0..6).rev() {
        let x = (t as f64 * 0.7).sin();
        let da = dh * (1.0 - hs[t + 1] * hs[t + 1]);
        dw += da * hs[t];
        du += da * x;
        dh = da * w;
    }
    let (v, gw, gu, gh0) = recurrence_grad(w, u, h0);
    assert_eq!(v, hs[6]);
    assert_relative_eq!(gw, dw, max_relative = 1e-14);
    assert_relative_eq!(gu, du, max_relative = 1e-14);
    assert_relative_eq!(gh0, dh, max_relative = 1e-14);
}

#[grad]
fn scale_repeatedly(x: f64, a: f64, n: usize) -> f64 {
    let mut s = x;
    for _ in 0..n {
        s *= a;
    }
    s
}

#[grad]
fn add_repeatedly(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for _ in 0..n {
        s += x;
    }
    s
}

#[test]
fn memory_grows_with_the_overwritten_values_only() {
    // A million iterations overwriting one scalar that the reverse sweep
    // reads (the multiplication's pullback needs s): a million pushes.
    stack::reset_stats();
    let n = 1_000_000;
    let (v, dx, da) = scale_repeatedly_grad(1.0, 1.0 - 1e-7, n);
    let stats = stack::stats();
    assert_eq!(stats.pushes, n as u64);
    assert_eq!(stats.peak, n);
    assert_relative_eq!(v, (1.0f64 - 1e-7).powi(n as i32), max_relative = 1e-9);
    assert_relative_eq!(dx, v, max_relative = 1e-9);
    assert_relative_eq!(da, n as f64 * v / (1.0 - 1e-7), max_relative = 1e-6);

    // A loop whose iterations leave nothing the reverse sweep reads: no
    // push at all.
    stack::reset_stats();
    assert_eq!(add_repeatedly_grad(0.5, 1000), (500.0, 1000.0));
    assert_eq!(stack::stats().pushes, 0);

    // A product with one active factor: its pullback reads only the other
    // factor, so `z` is not recorded; softplus's input, a product of the
    // weight and the data, is computed again in the reverse iteration (one
    // multiplication), not recorded either.
    stack::reset_stats();
    let ys = [1.0, -1.0, 0.5];
    let (_, dw) = scaled_softplus_grad(0.3, &ys);
    assert_eq!(stack::stats().pushes, 0);
    let expect: f64 = ys
        .iter()
        .map(|y| autodiff::sigmoid(-y * 0.3 * y) * -y * y)
        .sum();
    assert_relative_eq!(dw, expect, max_relative = 1e-14);

    // An array written only before a loop (here by the loop before it)
    // still holds, in the reverse sweep, what the loop read: its loads are
    // read again, not recorded. Only exp's outputs are.
    stack::reset_stats();
    let x = [0.5, -1.0, 2.0];
    let (v, dx) = written_then_read_grad(&x);
    assert_eq!(stack::stats().pushes, 3);
    assert_eq!(v, written_then_read(&x));
    for (g, xi) in dx.iter().zip(x) {
        assert_relative_eq!(*g, xi.exp() * (1.0 + xi), max_relative = 1e-15);
    }

    // Written again after the loop: the loads must be recorded.
    let (v, dx) = overwritten_after_grad(&x);
    assert_eq!(v, written_then_read(&x));
    for (g, xi) in dx.iter().zip(x) {
        assert_relative_eq!(*g, xi.exp() * (1.0 + xi), max_relative = 1e-15);
    }

    // A counter advanced by a constant (`l += 1`), read as an index by the
    // reverse sweep: stepped back from its value after the inner loop, so
    // the inner loop (10 iterations in all) records nothing and each of the
    // 5 outer iterations records that value.
    stack::reset_stats();
    let x: Vec<f64> = (0..12).map(|k| 0.3 * k as f64 - 1.0).collect();
    let (v, dx) = packed_triangle_grad(&x, 5);
    assert_eq!(stack::stats().pushes, 5);
    assert_eq!(v, packed_triangle(&x, 5));
    for (k, g) in dx.iter().enumerate() {
        let e = if k < 10 { x[k].cos() } else { 0.0 };
        assert_relative_eq!(*g, e, max_relative = 1e-15);
    }

    // Code without loops makes no stack; a function with loops makes one
    // per element type it records (here f64 values and the branch's bool).
    stack::reset_stats();
    let _ = straight_grad(0.5);
    assert_eq!(stack::stats().stacks, 0);
    let _ = nested_grad(0.5, 0.5);
    assert_eq!(stack::stats().stacks, 2);
}

/// Σ sin(x[l]) over the pairs i < j < n, `l` counting them: the packed
/// lower triangle of ADBench's GMM.
#[grad]
fn packed_triangle(x: &[f64], n: usize) -> f64 {
    let mut l = 0;
    let mut s = 0.0;
    for i in 0..n {
        for _ in i + 1..n {
            s += x[l].sin();
            l += 1;
        }
    }
    s
}

/// Σ e^{x_i} · x_i, through an array of the exponentials.
#[grad]
fn written_then_read(x: &[f64]) -> f64 {
    let mut e = vec![0.0; x.len()];
    for i in 0..x.len() {
        e[i] = x[i].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += e[i] * x[i];
    }
    s
}

/// The same, with the array cleared after the loop that reads it.
#[grad]
#[allow(clippy::needless_range_loop)]
fn overwritten_after(x: &[f64]) -> f64 {
    let mut e = vec![0.0; x.len()];
    for i in 0..x.len() {
        e[i] = x[i].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += e[i] * x[i];
    }
    for i in 0..x.len() {
        e[i] = 0.0;
    }
    s
}

/// Σ softplus(−y · (w · y)).
#[grad(wrt(w))]
fn scaled_softplus(w: f64, ys: &[f64]) -> f64 {
    let mut total = 0.0;
    for &y in ys {
        let z = w * y;
        total += autodiff::softplus(-y * z);
    }
    total
}

#[grad]
fn straight(x: f64) -> f64 {
    x * x.sin()
}

/// `break` and `continue` at the ends of branches of the body.
#[grad]
fn with_jumps(x: f64, limit: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..100 {
        if i % 3 == 0 {
            continue;
        }
        s += x * i as f64;
        if s > limit {
            break;
        }
        s = s.sin() + s;
    }
    s
}

/// `loop` with `break`.
#[grad]
fn newton_sqrt(a: f64) -> f64 {
    let mut r = a;
    let mut k = 0;
    loop {
        r = 0.5 * (r + a / r);
        k += 1;
        if k == 6 {
            break;
        }
    }
    r
}

/// `while` with `continue` and `break`.
#[grad]
fn while_jumps(x: f64) -> f64 {
    let mut s = x;
    let mut n = 0;
    while n < 20 {
        n += 1;
        if n % 2 == 0 {
            continue;
        } else if s > 50.0 {
            break;
        }
        s *= 1.5;
    }
    s
}

#[test]
fn break_and_continue() {
    for (x, limit) in [(0.3, 5.0), (0.05, 20.0), (1.7, 2.0), (0.01, 3.0)] {
        let (v, dx, dl) = with_jumps_grad(x, limit);
        assert_eq!(v, with_jumps(x, limit));
        assert!(
            close(dx, derivative(|x| with_jumps(x, limit), x)),
            "at {x}: {dx}"
        );
        assert_eq!(dl, 0.0);
    }
    for a in [2.0, 9.0, 0.5] {
        let (v, d) = newton_sqrt_grad(a);
        assert_eq!(v, newton_sqrt(a));
        assert!(close(d, derivative(newton_sqrt, a)), "at {a}: {d}");
        // Six Newton steps from a converge: d/da √a = 1/(2√a).
        assert_relative_eq!(d, 0.5 / a.sqrt(), max_relative = 1e-6);
    }
    for x in [0.5, 3.0, 40.0] {
        let (v, d) = while_jumps_grad(x);
        assert_eq!(v, while_jumps(x));
        assert!(close(d, derivative(while_jumps, x)), "at {x}: {d}");
    }
}

/// `return` from inside loops: the first root of a polynomial found by
/// bisection-like stepping, and a search in nested loops.
#[grad]
fn first_crossing(x: f64) -> f64 {
    let mut t = 0.0;
    for _ in 0..1000 {
        t += 0.01;
        let value = t * t - x;
        if value > 0.0 {
            return t * x;
        }
    }
    -x
}

#[grad]
fn nested_search(x: f64, y: f64) -> f64 {
    let mut acc = 0.0;
    for i in 0..10 {
        for j in 0..10 {
            acc += x * (i * j) as f64 * 0.01;
            if acc > y {
                return acc * y;
            }
        }
    }
    acc
}

#[test]
fn return_from_inside_loops() {
    for x in [0.5, 2.0, 1e9] {
        let (v, d) = first_crossing_grad(x);
        assert_eq!(v, first_crossing(x));
        // The crossing point does not move with x between steps: d/dx (t x) = t.
        let expected = if x > 100.0 { -1.0 } else { v / x };
        assert_eq!(d, expected);
    }
    for (x, y) in [(0.3, 1.0), (0.3, 100.0), (2.0, 0.5)] {
        let (v, dx, dy) = nested_search_grad(x, y);
        assert_eq!(v, nested_search(x, y));
        assert!(
            close(dx, derivative(|x| nested_search(x, y), x)),
            "{x} {y}: {dx}"
        );
        assert!(
            close(dy, derivative(|y| nested_search(x, y), y)),
            "{x} {y}: {dy}"
        );
    }
}

/// A local order of indices collected from a range, reversed, walked by
/// `for &i in &order` and by `enumerate` (trial 5 r87: refused as an
/// iterator #[grad] does not take; with `vec![..]` it worked).
#[grad]
fn in_collected_order(xs: &[f64]) -> f64 {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.reverse();
    let mut t = 0.0;
    for &i in &order {
        t += xs[i] * xs[i];
    }
    for (k, &i) in order.iter().enumerate() {
        t += k as f64 * xs[i];
    }
    t
}

#[test]
fn a_collected_order_of_indices() {
    let xs = [1.0, -2.0, 3.0];
    // Σ x² + (0·x₂ + 1·x₁ + 2·x₀)
    let (v, d) = in_collected_order_grad(&xs);
    assert_eq!(v, in_collected_order(&xs));
    assert_eq!(v, 14.0 + (-2.0) + 2.0);
    assert_eq!(d, vec![2.0 + 2.0, -4.0 + 1.0, 6.0]);
}

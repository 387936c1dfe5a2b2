//! Every value function computes exactly what the std method or operator of
//! the same name computes: bit for bit, in f64 and f32, at ordinary points
//! and at 0, −0, ±∞ and NaN (which checks the NaN behaviour of `max`/`min`
//! and the sign of zero results too). Generated code replaces the user's
//! expression by these functions, so any difference would change the
//! user's program.

use autodiff_runtime::{arith, exp_log, fused, piecewise, power, trig, Float};

/// A rule's value function beside the std expression it must equal.
struct Same<F> {
    name: &'static str,
    ours: F,
    std: F,
}

type Unary<T> = Same<fn(T) -> T>;
type Binary<T> = Same<fn(T, T) -> T>;
type Ternary<T> = Same<fn(T, T, T) -> T>;

/// The same bits, or both NaN (NaN payloads are not part of the contract).
fn identical<T: Float>(a: T, b: T) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_f64().to_bits() == b.to_f64().to_bits()
}

fn points<T: Float>() -> Vec<T> {
    [
        -1000.0, -3.7, -1.0, -0.5, -0.0, 0.0, 0.3, 0.5, 1.0, 2.0, 7.25, 1e10,
    ]
    .into_iter()
    .map(T::from_f64)
    .chain([T::infinity(), T::neg_infinity(), T::nan()])
    .collect()
}

/// The one loop: every rule at every point (pairs and triples of points for
/// more arguments).
fn check_all<T: Float>(unary: &[Unary<T>], binary: &[Binary<T>], ternary: &[Ternary<T>]) {
    let xs = points::<T>();
    let mismatch = |name: &str, at: &[T], ours: T, std: T| {
        assert!(
            identical(ours, std),
            "{name}{at:?} ({}): ours {ours:?}, std {std:?}",
            std::any::type_name::<T>()
        );
    };
    for r in unary {
        for &x in &xs {
            mismatch(r.name, &[x], (r.ours)(x), (r.std)(x));
        }
    }
    for r in binary {
        for &a in &xs {
            for &b in &xs {
                mismatch(r.name, &[a, b], (r.ours)(a, b), (r.std)(a, b));
            }
        }
    }
    for r in ternary {
        for &a in &xs {
            for &b in &xs {
                for &c in &xs {
                    mismatch(r.name, &[a, b, c], (r.ours)(a, b, c), (r.std)(a, b, c));
                }
            }
        }
    }
}

/// `(name, ours, std)` rows for float type `$t`; a row `name` alone means
/// `module::name` against the std method `$t::name`.
macro_rules! table {
    ($t:ty: $($module:ident::$name:ident),* $(,)?) => {
        [$(Same::<fn($t) -> $t> {
            name: stringify!($name),
            ours: $module::$name::<$t>,
            std: <$t>::$name,
        }),*]
    };
}

macro_rules! check_type {
    ($t:ty) => {{
        let unary = table!($t:
            trig::sin, trig::cos, trig::tan, trig::asin, trig::acos, trig::atan,
            trig::sinh, trig::cosh, trig::tanh, trig::asinh, trig::acosh, trig::atanh,
            trig::to_degrees, trig::to_radians,
            exp_log::exp, exp_log::exp2, exp_log::exp_m1, exp_log::ln, exp_log::ln_1p,
            exp_log::log2, exp_log::log10,
            power::sqrt, power::cbrt, arith::recip,
            piecewise::abs, piecewise::signum, piecewise::floor, piecewise::ceil,
            piecewise::round, piecewise::trunc, piecewise::fract,
        );
        // neg, and the rules with non-float arguments at a few fixed ones.
        let more: [Unary<$t>; 8] = [
            Same { name: "neg", ours: arith::neg, std: |x| -x },
            Same { name: "powi(_, -3)", ours: |x| power::powi(x, -3), std: |x| x.powi(-3) },
            Same { name: "powi(_, 0)", ours: |x| power::powi(x, 0), std: |x| x.powi(0) },
            Same { name: "powi(_, 1)", ours: |x| power::powi(x, 1), std: |x| x.powi(1) },
            Same { name: "powi(_, 2)", ours: |x| power::powi(x, 2), std: |x| x.powi(2) },
            Same { name: "powi(_, 7)", ours: |x| power::powi(x, 7), std: |x| x.powi(7) },
            // clamp panics on NaN or crossed bounds, as std does: fixed
            // bounds here, all orderings in the ternary table below.
            Same { name: "clamp(_, -1, 2)", ours: |x| piecewise::clamp(x, -1.0, 2.0), std: |x| x.clamp(-1.0, 2.0) },
            Same { name: "clamp(_, -0, 0)", ours: |x| piecewise::clamp(x, -0.0, 0.0), std: |x| x.clamp(-0.0, 0.0) },
        ];
        let unary: Vec<Unary<$t>> = unary.into_iter().chain(more).collect();
        let binary: [Binary<$t>; 11] = [
            Same { name: "add", ours: arith::add, std: |a, b| a + b },
            Same { name: "sub", ours: arith::sub, std: |a, b| a - b },
            Same { name: "mul", ours: arith::mul, std: |a, b| a * b },
            Same { name: "div", ours: arith::div, std: |a, b| a / b },
            Same { name: "rem", ours: arith::rem, std: |a, b| a % b },
            Same { name: "atan2", ours: trig::atan2, std: <$t>::atan2 },
            Same { name: "hypot", ours: trig::hypot, std: <$t>::hypot },
            Same { name: "log", ours: exp_log::log, std: <$t>::log },
            Same { name: "powf", ours: power::powf, std: <$t>::powf },
            Same { name: "max", ours: piecewise::max, std: <$t>::max },
            Same { name: "min", ours: piecewise::min, std: <$t>::min },
        ];
        let ternary: [Ternary<$t>; 2] = [
            Same { name: "mul_add", ours: fused::mul_add, std: <$t>::mul_add },
            // All orderings of the bounds, where std does not panic.
            Same {
                name: "clamp",
                ours: |x, lo, hi| if lo <= hi { piecewise::clamp(x, lo, hi) } else { 0.0 },
                std: |x, lo, hi| if lo <= hi { x.clamp(lo, hi) } else { 0.0 },
            },
        ];
        check_all(&unary, &binary, &ternary);
    }};
}

#[test]
fn values_equal_std_in_f64() {
    check_type!(f64);
}

#[test]
fn values_equal_std_in_f32() {
    check_type!(f32);
}

#[test]
#[should_panic]
fn clamp_panics_on_crossed_bounds_like_std() {
    piecewise::clamp(0.5_f64, 2.0, 1.0);
}

#[test]
#[should_panic]
fn clamp_panics_on_nan_bound_like_std() {
    piecewise::clamp(0.5_f64, f64::NAN, 1.0);
}

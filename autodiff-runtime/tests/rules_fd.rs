//! Every pullback against central finite differences of its own value
//! function, at grids of points spread over each primitive's domain, in f64
//! (50 points per argument) and in f32 (a coarse grid, f32 tolerances).
//!
//! The output adjoint is dy = 0.7, not 1, so that a pullback that forgets to
//! scale by `dy` fails; and every pullback must give exactly 0 for dy = 0 at
//! these (regular) points.
//!
//! Finite differences: (f(x + h) − f(x − h)) / 2h with h = step·max(1, |x|).
//! f64: step 1e-6; a partial passes within 1e-6 relative or 1e-8 absolute.
//! The truncation error is about h²·|f'''|/6 (1e-12 relative to the scale
//! of f''') and the rounding error about ε·|f|/h ≈ 1e-10·|f|: both far
//! inside the tolerance on the domains below, which stop short of
//! singularities. f32: step 1e-3 (near ε^(1/3), the best central-difference
//! step), within 2e-3 relative or 1e-4 absolute: the rounding error ε·|f|/h
//! is about 1e-4·|f|.
//!
//! Points closer than `MARGIN` to a kink, jump or branch cut are skipped
//! (the `keep` predicates below); MARGIN is above the largest step,
//! 1e-3·10 in f32.

use std::marker::PhantomData;

use autodiff_runtime::{arith, exp_log, fused, ml, piecewise, power, trig, Float};

/// How far grid points stay from kinks, jumps and branch cuts.
const MARGIN: f64 = 0.05;

// Above the largest step taken, with room: f32 at |x| = 10.
const _: () = assert!(MARGIN > 2.0 * F32.step * 10.0);

/// The finite-difference settings for float type `T`.
struct Fd<T> {
    /// Relative step: h = step·max(1, |x|).
    step: f64,
    rel_tol: f64,
    abs_tol: f64,
    /// Grid points per argument.
    points: usize,
    float: PhantomData<T>,
}

const F64: Fd<f64> = Fd {
    step: 1e-6,
    rel_tol: 1e-6,
    abs_tol: 1e-8,
    points: 50,
    float: PhantomData,
};

const F32: Fd<f32> = Fd {
    step: 1e-3,
    rel_tol: 2e-3,
    abs_tol: 1e-4,
    points: 7,
    float: PhantomData,
};

const DY: f64 = 0.7;

/// An argument's interval; the grid takes the midpoints of `points` equal
/// cells, so never the ends.
type Domain = (f64, f64);

/// Keeps every point.
fn anywhere(_: &[f64]) -> bool {
    true
}

fn away_from_integers(x: f64) -> bool {
    (x - x.round()).abs() > MARGIN
}

fn grid(d: Domain, n: usize) -> impl Iterator<Item = f64> + Clone {
    (0..n).map(move |k| d.0 + (d.1 - d.0) * (k as f64 + 0.5) / n as f64)
}

impl<T: Float> Fd<T> {
    /// Checks the partials `analytic` (computed with `DY`) and `at_zero`
    /// (computed with dy = 0) of `f` at `at` against central differences.
    fn compare(&self, rule: &str, f: impl Fn(&[T]) -> T, at: &[T], analytic: &[T], at_zero: &[T]) {
        for (i, (&got, &zero)) in analytic.iter().zip(at_zero).enumerate() {
            let h = T::from_f64(self.step) * at[i].abs().max(T::one());
            let (mut hi, mut lo) = (at.to_vec(), at.to_vec());
            hi[i] = at[i] + h;
            lo[i] = at[i] - h;
            // The step actually taken, after rounding x ± h.
            let width = hi[i] - lo[i];
            let numeric = T::from_f64(DY) * (f(&hi) - f(&lo)) / width;
            let (got, numeric) = (got.to_f64(), numeric.to_f64());
            let err = (got - numeric).abs();
            assert!(
                err <= self.abs_tol || err <= self.rel_tol * got.abs().max(numeric.abs()),
                "{rule} ({}), partial {i} at {at:?}: pullback {got:e}, \
                 finite differences {numeric:e}",
                std::any::type_name::<T>(),
            );
            assert!(
                zero == T::zero(),
                "{rule} ({}), partial {i} at {at:?}: dy = 0 gives {zero:?}",
                std::any::type_name::<T>(),
            );
        }
    }

    /// A rule with one float argument, at the grid points of `x` that
    /// `keep` accepts.
    fn unary(
        &self,
        rule: &str,
        value: impl Fn(T) -> T,
        pullback: impl Fn(T, T, T) -> T,
        x: Domain,
        keep: impl Fn(&[f64]) -> bool,
    ) {
        for a in grid(x, self.points).filter(|&a| keep(&[a])) {
            let a = T::from_f64(a);
            let y = value(a);
            self.compare(
                rule,
                |v| value(v[0]),
                &[a],
                &[pullback(a, y, T::from_f64(DY))],
                &[pullback(a, y, T::zero())],
            );
        }
    }

    /// A rule with two float arguments, on the 2D grid of `a` × `b`.
    fn binary(
        &self,
        rule: &str,
        value: impl Fn(T, T) -> T,
        pullback: impl Fn(T, T, T, T) -> (T, T),
        (a, b): (Domain, Domain),
        keep: impl Fn(&[f64]) -> bool,
    ) {
        let bs = grid(b, self.points);
        for p in grid(a, self.points).flat_map(|a| bs.clone().map(move |b| [a, b])) {
            if !keep(&p) {
                continue;
            }
            let [a, b] = p.map(T::from_f64);
            let y = value(a, b);
            let (da, db) = pullback(a, b, y, T::from_f64(DY));
            let (za, zb) = pullback(a, b, y, T::zero());
            self.compare(rule, |v| value(v[0], v[1]), &[a, b], &[da, db], &[za, zb]);
        }
    }

    /// A rule with three float arguments, on the 3D grid of `a` × `b` × `c`.
    fn ternary(
        &self,
        rule: &str,
        value: impl Fn(T, T, T) -> T,
        pullback: impl Fn(T, T, T, T, T) -> (T, T, T),
        (a, b, c): (Domain, Domain, Domain),
        keep: impl Fn(&[f64]) -> bool,
    ) {
        let (bs, cs) = (grid(b, self.points), grid(c, self.points));
        let points = grid(a, self.points)
            .flat_map(|a| bs.clone().map(move |b| (a, b)))
            .flat_map(|(a, b)| cs.clone().map(move |c| [a, b, c]));
        for p in points {
            if !keep(&p) {
                continue;
            }
            let [a, b, c] = p.map(T::from_f64);
            let y = value(a, b, c);
            let (da, db, dc) = pullback(a, b, c, y, T::from_f64(DY));
            let (za, zb, zc) = pullback(a, b, c, y, T::zero());
            self.compare(
                rule,
                |v| value(v[0], v[1], v[2]),
                &[a, b, c],
                &[da, db, dc],
                &[za, zb, zc],
            );
        }
    }
}

/// Every scalar rule of the crate, in float type `T`.
fn every_rule<T: Float>(fd: &Fd<T>) {
    use arith::*;
    use exp_log::*;
    use fused::*;
    use ml::*;
    use piecewise::*;
    use power::*;
    use trig::*;

    let any = anywhere;
    let off_zero = |v: &[f64]| v[0].abs() > MARGIN;
    let off_integers = |v: &[f64]| away_from_integers(v[0]);
    // round jumps at the half-integers.
    let off_halves = |v: &[f64]| away_from_integers(v[0] + 0.5);

    // Unary rules. Domains stop MARGIN or more short of singularities
    // (tan at ±π/2, asin/acos/atanh at ±1, acosh at 1, logarithms at 0).
    fd.unary("sin", sin, sin_pullback, (-10.0, 10.0), any);
    fd.unary("cos", cos, cos_pullback, (-10.0, 10.0), any);
    fd.unary("tan", tan, tan_pullback, (-1.5, 1.5), any);
    fd.unary("asin", asin, asin_pullback, (-0.95, 0.95), any);
    fd.unary("acos", acos, acos_pullback, (-0.95, 0.95), any);
    fd.unary("atan", atan, atan_pullback, (-20.0, 20.0), any);
    fd.unary("sinh", sinh, sinh_pullback, (-5.0, 5.0), any);
    fd.unary("cosh", cosh, cosh_pullback, (-5.0, 5.0), any);
    fd.unary("tanh", tanh, tanh_pullback, (-5.0, 5.0), any);
    fd.unary("asinh", asinh, asinh_pullback, (-20.0, 20.0), any);
    fd.unary("acosh", acosh, acosh_pullback, (1.05, 20.0), any);
    fd.unary("atanh", atanh, atanh_pullback, (-0.95, 0.95), any);
    fd.unary(
        "to_degrees",
        to_degrees,
        to_degrees_pullback,
        (-10.0, 10.0),
        any,
    );
    fd.unary(
        "to_radians",
        to_radians,
        to_radians_pullback,
        (-500.0, 500.0),
        any,
    );
    fd.unary("exp", exp, exp_pullback, (-10.0, 10.0), any);
    fd.unary("exp2", exp2, exp2_pullback, (-10.0, 10.0), any);
    fd.unary("exp_m1", exp_m1, exp_m1_pullback, (-5.0, 5.0), any);
    fd.unary("ln", ln, ln_pullback, (0.05, 100.0), any);
    fd.unary("ln_1p", ln_1p, ln_1p_pullback, (-0.95, 50.0), any);
    fd.unary("log2", log2, log2_pullback, (0.05, 100.0), any);
    fd.unary("log10", log10, log10_pullback, (0.05, 100.0), any);
    fd.unary("sqrt", sqrt, sqrt_pullback, (0.05, 100.0), any);
    fd.unary("cbrt", cbrt, cbrt_pullback, (-50.0, 50.0), off_zero);
    fd.unary("neg", neg, neg_pullback, (-10.0, 10.0), any);
    fd.unary("recip", recip, recip_pullback, (-20.0, 20.0), off_zero);
    fd.unary("abs", abs, abs_pullback, (-10.0, 10.0), off_zero);
    fd.unary("signum", signum, signum_pullback, (-10.0, 10.0), off_zero);
    fd.unary("floor", floor, floor_pullback, (-10.0, 10.0), off_integers);
    fd.unary("ceil", ceil, ceil_pullback, (-10.0, 10.0), off_integers);
    fd.unary("trunc", trunc, trunc_pullback, (-10.0, 10.0), off_integers);
    fd.unary("fract", fract, fract_pullback, (-10.0, 10.0), off_integers);
    fd.unary("round", round, round_pullback, (-10.0, 10.0), off_halves);
    fd.unary("sigmoid", sigmoid, sigmoid_pullback, (-40.0, 40.0), any);
    fd.unary("relu", relu, relu_pullback, (-10.0, 10.0), off_zero);
    fd.unary("softplus", softplus, softplus_pullback, (-40.0, 40.0), any);
    fd.unary(
        "log_sigmoid",
        log_sigmoid,
        log_sigmoid_pullback,
        (-40.0, 40.0),
        any,
    );
    for n in [-3, -1, 0, 1, 2, 5] {
        fd.unary(
            &format!("powi(x, {n})"),
            |x| powi(x, n),
            |x, y, dy| powi_pullback(x, n, y, dy),
            (-4.0, 4.0),
            off_zero,
        );
    }

    // Binary rules.
    let plane = ((-5.0, 5.0), (-5.0, 5.0));
    let second_off_zero = |v: &[f64]| v[1].abs() > 0.2;
    fd.binary("add", add, add_pullback, plane, any);
    fd.binary("sub", sub, sub_pullback, plane, any);
    fd.binary("mul", mul, mul_pullback, plane, any);
    fd.binary("div", div, div_pullback, plane, second_off_zero);
    // a % b jumps where a/b is an integer.
    fd.binary(
        "rem",
        rem,
        rem_pullback,
        ((-10.0, 10.0), (-4.0, 4.0)),
        |v| v[1].abs() > 0.5 && away_from_integers(v[0] / v[1]),
    );
    // atan2 jumps by 2π across the negative x axis (y = 0, x < 0).
    fd.binary("atan2", atan2, atan2_pullback, plane, |v| {
        v[0].abs() > MARGIN || v[1] > 0.0
    });
    fd.binary("hypot", hypot, hypot_pullback, plane, |v| {
        v[0].hypot(v[1]) > MARGIN
    });
    // ∂/∂base grows like 1/ln² base near base 1.
    fd.binary(
        "log",
        log,
        log_pullback,
        ((0.05, 20.0), (0.05, 10.0)),
        |v| (v[1] - 1.0).abs() > 0.1,
    );
    fd.binary("powf", powf, powf_pullback, ((0.05, 5.0), (-3.0, 3.0)), any);
    fd.binary("max", max, max_pullback, plane, |v| {
        (v[0] - v[1]).abs() > MARGIN
    });
    fd.binary("min", min, min_pullback, plane, |v| {
        (v[0] - v[1]).abs() > MARGIN
    });

    // Ternary rules.
    let cube = ((-5.0, 5.0), (-5.0, 5.0), (-5.0, 5.0));
    fd.ternary("mul_add", mul_add, mul_add_pullback, cube, any);
    // clamp needs lo ≤ hi; x stays off both bounds.
    fd.ternary("clamp", clamp, clamp_pullback, cube, |v| {
        v[1] + MARGIN < v[2] && (v[0] - v[1]).abs() > MARGIN && (v[0] - v[2]).abs() > MARGIN
    });
}

#[test]
fn f64_rules_match_finite_differences() {
    every_rule(&F64);
}

#[test]
fn f32_rules_match_finite_differences() {
    every_rule(&F32);
}

/// The grid and its filters do what the tolerances above assume.
#[test]
fn grids_stay_off_the_ends_and_kinks() {
    let g: Vec<f64> = grid((0.0, 1.0), 4).collect();
    assert_eq!(g, [0.125, 0.375, 0.625, 0.875]);
    assert!(!away_from_integers(2.01) && away_from_integers(2.5));
}

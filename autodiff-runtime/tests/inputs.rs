//! Each pullback reads only the inputs it declares, so code generated for
//! loops may record only those: the macro's rules table
//! (`autodiff-macro/src/rules.rs`, column `uses`) says, per rule, which
//! arguments and whether the output `y` the pullback reads, and passes
//! placeholders for the others. Here every input marked `-` is replaced by
//! NaN, and the pullback must return the same bits.
//!
//! The masks below are one character per argument, then one for `y`: `u`
//! read, `-` not, `x` (two-argument rules) read only for the other
//! argument's partial: blinded, it leaves its own partial's bits unchanged. `masks_match_the_macro_table` checks them against the
//! macro's table when the workspace has it.

use autodiff_runtime::{arith, exp_log, fused, ml, piecewise, power, trig};

const DY: f64 = 0.7;

type Pullback = Box<dyn Fn(&[f64]) -> Vec<f64>>;

/// One rule: its mask, its inputs (float arguments then y; for `powi` the
/// integer exponent is fixed inside the closure and its mask character
/// skipped) and its pullback on those inputs.
struct Reads {
    rule: &'static str,
    mask: &'static str,
    inputs: Vec<f64>,
    pullback: Pullback,
}

fn unary(
    rule: &'static str,
    mask: &'static str,
    value: fn(f64) -> f64,
    pullback: impl Fn(f64, f64, f64) -> f64 + 'static,
    x: f64,
) -> Reads {
    Reads {
        rule,
        mask,
        inputs: vec![x, value(x)],
        pullback: Box::new(move |v| vec![pullback(v[0], v[1], DY)]),
    }
}

fn binary(
    rule: &'static str,
    mask: &'static str,
    value: fn(f64, f64) -> f64,
    pullback: impl Fn(f64, f64, f64, f64) -> (f64, f64) + 'static,
    (a, b): (f64, f64),
) -> Reads {
    Reads {
        rule,
        mask,
        inputs: vec![a, b, value(a, b)],
        pullback: Box::new(move |v| {
            let (da, db) = pullback(v[0], v[1], v[2], DY);
            vec![da, db]
        }),
    }
}

fn ternary(
    rule: &'static str,
    mask: &'static str,
    value: fn(f64, f64, f64) -> f64,
    pullback: impl Fn(f64, f64, f64, f64, f64) -> (f64, f64, f64) + 'static,
    (a, b, c): (f64, f64, f64),
) -> Reads {
    Reads {
        rule,
        mask,
        inputs: vec![a, b, c, value(a, b, c)],
        pullback: Box::new(move |v| {
            let (da, db, dc) = pullback(v[0], v[1], v[2], v[3], DY);
            vec![da, db, dc]
        }),
    }
}

fn every_rule() -> Vec<Reads> {
    use arith::*;
    use exp_log::*;
    use fused::*;
    use ml::*;
    use piecewise::*;
    use power::*;
    use trig::*;
    let x = 0.3;
    let big = 1.7;
    let mut rules = vec![
        unary("sin", "u-", sin, sin_pullback, x),
        unary("cos", "u-", cos, cos_pullback, x),
        unary("tan", "-u", tan, tan_pullback, x),
        unary("asin", "u-", asin, asin_pullback, x),
        unary("acos", "u-", acos, acos_pullback, x),
        unary("atan", "u-", atan, atan_pullback, x),
        unary("sinh", "u-", sinh, sinh_pullback, x),
        unary("cosh", "u-", cosh, cosh_pullback, x),
        unary("tanh", "-u", tanh, tanh_pullback, x),
        unary("asinh", "u-", asinh, asinh_pullback, x),
        unary("acosh", "u-", acosh, acosh_pullback, big),
        unary("atanh", "u-", atanh, atanh_pullback, x),
        unary("to_degrees", "--", to_degrees, to_degrees_pullback, x),
        unary("to_radians", "--", to_radians, to_radians_pullback, x),
        unary("exp", "-u", exp, exp_pullback, x),
        unary("exp2", "-u", exp2, exp2_pullback, x),
        unary("exp_m1", "-u", exp_m1, exp_m1_pullback, x),
        unary("ln", "u-", ln, ln_pullback, x),
        unary("ln_1p", "u-", ln_1p, ln_1p_pullback, x),
        unary("log2", "u-", log2, log2_pullback, x),
        unary("log10", "u-", log10, log10_pullback, x),
        unary("sqrt", "-u", sqrt, sqrt_pullback, x),
        unary("cbrt", "-u", cbrt, cbrt_pullback, x),
        unary("recip", "-u", recip, recip_pullback, x),
        unary("neg", "--", neg, neg_pullback, x),
        unary("abs", "u-", abs, abs_pullback, -x),
        unary("signum", "--", signum, signum_pullback, x),
        unary("floor", "--", floor, floor_pullback, big),
        unary("ceil", "--", ceil, ceil_pullback, big),
        unary("round", "--", round, round_pullback, big),
        unary("trunc", "--", trunc, trunc_pullback, big),
        unary("fract", "--", fract, fract_pullback, big),
        unary("sigmoid", "-u", sigmoid, sigmoid_pullback, x),
        unary("relu", "u-", relu, relu_pullback, x),
        unary("softplus", "u-", softplus, softplus_pullback, x),
        unary("log_sigmoid", "u-", log_sigmoid, log_sigmoid_pullback, x),
        binary("add", "---", add, add_pullback, (x, big)),
        binary("sub", "---", sub, sub_pullback, (x, big)),
        binary("mul", "xx-", mul, mul_pullback, (x, big)),
        binary("div", "-uu", div, div_pullback, (x, big)),
        binary("rem", "uu-", rem, rem_pullback, (big, x)),
        binary("atan2", "uu-", atan2, atan2_pullback, (x, big)),
        binary("hypot", "uuu", hypot, hypot_pullback, (x, big)),
        binary("log", "uuu", log, log_pullback, (x, big)),
        binary("powf", "uuu", powf, powf_pullback, (x, big)),
        binary("max", "uuu", max, max_pullback, (x, big)),
        binary("min", "uuu", min, min_pullback, (x, big)),
        ternary("clamp", "uuu-", clamp, clamp_pullback, (x, -1.0, big)),
        ternary("clamp", "uuu-", clamp, clamp_pullback, (-2.0, -1.0, big)),
        ternary("mul_add", "uu--", mul_add, mul_add_pullback, (x, big, -1.0)),
    ];
    // powi: mask "uu-" is (x, n, y); n is always available.
    for n in [-2, 0, 1, 3] {
        rules.push(Reads {
            rule: "powi",
            mask: "u-",
            inputs: vec![big, big.powi(n)],
            pullback: Box::new(move |v| vec![powi_pullback(v[0], n, v[1], DY)]),
        });
    }
    rules
}

#[test]
fn pullbacks_ignore_what_they_do_not_read() {
    for r in every_rule() {
        assert_eq!(r.mask.len(), r.inputs.len(), "{}", r.rule);
        let blinded: Vec<f64> = r
            .inputs
            .iter()
            .zip(r.mask.chars())
            .map(|(&v, m)| if m == '-' { f64::NAN } else { v })
            .collect();
        let want = (r.pullback)(&r.inputs);
        let got = (r.pullback)(&blinded);
        assert!(
            want.iter().all(|v| v.is_finite()),
            "{}: choose inputs in the domain",
            r.rule
        );
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&got),
            bits(&want),
            "{} reads an input its mask {} marks unread",
            r.rule,
            r.mask
        );
        for (i, m) in r.mask.chars().enumerate() {
            if m != 'x' {
                continue;
            }
            let mut blinded = r.inputs.clone();
            blinded[i] = f64::NAN;
            let got = (r.pullback)(&blinded);
            // Its own partial does not read it; the other one does.
            assert_eq!(
                got[i].to_bits(),
                want[i].to_bits(),
                "{}: the partial of argument {i} reads it, though marked x",
                r.rule
            );
            assert!(
                got[1 - i].is_nan(),
                "{}: argument {i} is never read",
                r.rule
            );
        }
    }
}

/// The masks here equal the `uses` column of the macro's rules table, when
/// this crate sits in the autodiff workspace (skipped otherwise).
#[test]
fn masks_match_the_macro_table() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../autodiff-macro/src/rules.rs"
    );
    let Ok(table) = std::fs::read_to_string(path) else {
        eprintln!("no {path}: skipped");
        return;
    };
    for r in every_rule() {
        let at = table
            .find(&format!("\"{}\" in \"", r.rule))
            .unwrap_or_else(|| panic!("{} is not in the macro's table", r.rule));
        let rest = &table[at..];
        let start = rest.find("uses \"").expect("a uses column") + "uses \"".len();
        let theirs = &rest[start..start + rest[start..].find('"').unwrap()];
        // powi's integer argument is not in our mask.
        let ours = if r.rule == "powi" {
            format!("{}u{}", &r.mask[..1], &r.mask[1..])
        } else {
            r.mask.to_string()
        };
        assert_eq!(theirs, ours, "mask of {}", r.rule);
    }
}

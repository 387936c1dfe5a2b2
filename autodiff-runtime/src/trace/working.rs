//! The working of each entry, as a textbook writes it: the entry's
//! arithmetic on the actual numbers (`t1 = x1 - x2 = 1 - 2 = -1`) and each
//! local derivative's rule with its value (`∂t4/∂t3 = -sin(t3) = -sin(3) =
//! -0.14112`).
//!
//! The rules are written here once, as text, one per primitive the
//! runtime differentiates, beside the modules that compute them (`arith`,
//! `trig`, `exp_log`, `power`, `piecewise`, `fused`, `ml`); a node's
//! [`operands`](super::Node::operands) fill them in.

use super::display::{format_number, DEFAULT_DECIMALS};
use super::{Node, NodeId, Trace};

/// An entry's working (see [`Trace::working`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "render", derive(serde::Serialize))]
pub struct Working {
    /// The entry in mathematical notation, operands by name: `t1 - x2`,
    /// `cos(t3)`, `t1^2`.
    pub formula: String,
    /// The same with each operand's value: `1 - 2`, `cos(3)`, `(-1)^2`.
    pub arithmetic: String,
    /// One per input of the node, in its order: the local derivative's
    /// rule.
    pub partials: Vec<PartialWorking>,
}

/// The rule of one local derivative `∂node/∂input` (see [`Working`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "render", derive(serde::Serialize))]
pub struct PartialWorking {
    /// The rule, operands by name: `-sin(t3)`, `2 · t1`, `1`.
    pub formula: String,
    /// The rule with the operands' values: `-sin(3)`, `2 · (-1)`, `1`.
    pub arithmetic: String,
}

/// A rule as text: the value, then the partial with respect to each
/// operand, `{k}` standing for operand `k`.
struct RuleText {
    value: &'static str,
    partials: &'static [&'static str],
}

/// The text of the rule `op` (the name generated code gives
/// [`Tape::node`](super::Tape::node)).
fn rule_text(op: &str) -> Option<RuleText> {
    let r = |value, partials| Some(RuleText { value, partials });
    match op {
        "add" => r("{0} + {1}", &["1", "1"]),
        "sub" => r("{0} - {1}", &["1", "-1"]),
        "mul" => r("{0} · {1}", &["{1}", "{0}"]),
        "div" => r("{0} / {1}", &["1 / {1}", "-{0} / {1}²"]),
        "rem" => r("{0} % {1}", &["1", "-trunc({0} / {1})"]),
        "neg" => r("-{0}", &["-1"]),
        "sin" => r("sin({0})", &["cos({0})"]),
        "cos" => r("cos({0})", &["-sin({0})"]),
        "tan" => r("tan({0})", &["1 + tan({0})²"]),
        "asin" => r("asin({0})", &["1 / sqrt(1 - {0}²)"]),
        "acos" => r("acos({0})", &["-1 / sqrt(1 - {0}²)"]),
        "atan" => r("atan({0})", &["1 / (1 + {0}²)"]),
        "atan2" => r(
            "atan2({0}, {1})",
            &["{1} / ({0}² + {1}²)", "-{0} / ({0}² + {1}²)"],
        ),
        "sinh" => r("sinh({0})", &["cosh({0})"]),
        "cosh" => r("cosh({0})", &["sinh({0})"]),
        "tanh" => r("tanh({0})", &["1 - tanh({0})²"]),
        "asinh" => r("asinh({0})", &["1 / sqrt({0}² + 1)"]),
        "acosh" => r("acosh({0})", &["1 / sqrt({0}² - 1)"]),
        "atanh" => r("atanh({0})", &["1 / (1 - {0}²)"]),
        "hypot" => r(
            "hypot({0}, {1})",
            &["{0} / hypot({0}, {1})", "{1} / hypot({0}, {1})"],
        ),
        "to_degrees" => r("{0} · 180/π", &["180/π"]),
        "to_radians" => r("{0} · π/180", &["π/180"]),
        "exp" => r("exp({0})", &["exp({0})"]),
        "exp2" => r("2^{0}", &["ln(2) · 2^{0}"]),
        "exp_m1" => r("exp({0}) - 1", &["exp({0})"]),
        "ln" => r("ln({0})", &["1 / {0}"]),
        "ln_1p" => r("ln(1 + {0})", &["1 / (1 + {0})"]),
        "log" => r(
            "ln({0}) / ln({1})",
            &["1 / ({0} · ln({1}))", "-ln({0}) / ({1} · ln({1})²)"],
        ),
        "log2" => r("log2({0})", &["1 / ({0} · ln(2))"]),
        "log10" => r("log10({0})", &["1 / ({0} · ln(10))"]),
        "sqrt" => r("sqrt({0})", &["1 / (2 · sqrt({0}))"]),
        "cbrt" => r("cbrt({0})", &["1 / (3 · cbrt({0})²)"]),
        // The exponent's partial is written by `powi_partial`.
        "powi" => r("{0}^{1}", &[""]),
        "powf" => r("{0}^{1}", &["{1} · {0}^({1} - 1)", "{0}^{1} · ln({0})"]),
        "recip" => r("1 / {0}", &["-1 / {0}²"]),
        "abs" => r("|{0}|", &["sign({0}) (0 at 0)"]),
        "signum" => r("sign({0})", &["0"]),
        "floor" => r("floor({0})", &["0"]),
        "ceil" => r("ceil({0})", &["0"]),
        "round" => r("round({0})", &["0"]),
        "trunc" => r("trunc({0})", &["0"]),
        "fract" => r("fract({0})", &["1"]),
        "max" => r(
            "max({0}, {1})",
            &[
                "1 if {0} > {1}, else 0 (½ each on a tie)",
                "1 if {1} > {0}, else 0 (½ each on a tie)",
            ],
        ),
        "min" => r(
            "min({0}, {1})",
            &[
                "1 if {0} < {1}, else 0 (½ each on a tie)",
                "1 if {1} < {0}, else 0 (½ each on a tie)",
            ],
        ),
        "rem_euclid" => r(
            "{0} mod {1} (in [0, |{1}|))",
            &["1", "-div_euclid({0}, {1})"],
        ),
        "div_euclid" => r("⌊{0} / {1}⌋ (Euclidean)", &["0", "0"]),
        "clamp" => r(
            "clamp({0}, {1}, {2})",
            &[
                "1 if {1} ≤ {0} ≤ {2}, else 0",
                "1 if {0} < {1}, else 0",
                "1 if {0} > {2}, else 0",
            ],
        ),
        "mul_add" => r("{0} · {1} + {2}", &["{1}", "{0}", "1"]),
        "sigmoid" => r("σ({0})", &["σ({0}) · (1 - σ({0}))"]),
        "relu" => r("max({0}, 0)", &["1 if {0} > 0, else 0"]),
        "softplus" => r("ln(1 + exp({0}))", &["σ({0})"]),
        "log_sigmoid" => r("ln(σ({0}))", &["1 - σ({0})"]),
        _ => None,
    }
}

/// `∂(a^n)/∂a = n · a^(n − 1)`, with the constant exponent worked out.
fn powi_partial(n: f64) -> String {
    if n == 0.0 {
        return "0".to_owned();
    }
    if n == 1.0 {
        return "1".to_owned();
    }
    if n == 2.0 {
        return "2 · {0}".to_owned();
    }
    let less = format_number(n - 1.0, DEFAULT_DECIMALS);
    let less = if n - 1.0 < 0.0 {
        format!("({less})")
    } else {
        less
    };
    format!("{} · {{0}}^{less}", format_number(n, DEFAULT_DECIMALS))
}

/// `template` with `{k}` replaced by `operands[k]`; an operand that
/// starts with `-` or holds a space is parenthesised, except where it is
/// all of a function's argument (`sin(-1)`, `max(-1, 2)`).
fn fill(template: &str, operands: &[String]) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        let Ok(k) = rest[open + 1..close].parse::<usize>() else {
            out.push_str(&rest[..=open]);
            rest = &rest[open + 1..];
            continue;
        };
        out.push_str(&rest[..open]);
        let text = operands.get(k).map_or("?", String::as_str);
        let after = rest[close + 1..].chars().next();
        let whole_argument =
            (out.ends_with('(') || out.ends_with(", ")) && matches!(after, Some(')' | ','));
        // A sign at the very start reads as one too (`-1.5 + 0.5`), but
        // not below a power (`(-1)^2`).
        let leading = out.is_empty() && !matches!(after, Some('^' | '²'));
        let bracketed = text.starts_with('(') && text.ends_with(')');
        let plain = leading || bracketed || !(text.starts_with('-') || text.contains(' '));
        if plain || whole_argument {
            out.push_str(text);
        } else {
            out.push('(');
            out.push_str(text);
            out.push(')');
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

impl Trace {
    /// The working of the node `id`: its rule as a formula and with the
    /// numbers, and each local derivative's rule. `None` for an input, a
    /// constant, a call of another function, an element read, or a node
    /// whose [`operands`](Node::operands) were not recorded.
    ///
    /// For the reference text's `t4 = cos(t3)` at t3 = 3: the formula
    /// `cos(t3)`, the arithmetic `cos(3)`, and the one partial
    /// `-sin(t3)`, `-sin(3)`.
    pub fn working(&self, id: NodeId) -> Option<Working> {
        let node = self.nodes.get(id.0)?;
        if node.operands.is_empty() {
            return None;
        }
        let rule = rule_text(&node.op)?;
        if rule.partials.len() != node.operands.len() && node.op != "powi" {
            return None;
        }
        let (names, values) = self.operand_texts(node);
        let mut partials = vec![None; node.inputs.len()];
        for (k, operand) in node.operands.iter().enumerate() {
            let Some(input) = operand.input else {
                continue;
            };
            let template = match node.op.as_str() {
                "powi" => powi_partial(node.operands.get(1).map_or(f64::NAN, |o| o.value)),
                _ => rule.partials[k].to_owned(),
            };
            partials[input] = Some(PartialWorking {
                formula: fill(&template, &names),
                arithmetic: fill(&template, &values),
            });
        }
        Some(Working {
            formula: fill(rule.value, &names),
            arithmetic: fill(rule.value, &values),
            partials: partials.into_iter().collect::<Option<Vec<_>>>()?,
        })
    }

    /// Each operand by name (an input by its node's label) and by value.
    fn operand_texts(&self, node: &Node) -> (Vec<String>, Vec<String>) {
        node.operands
            .iter()
            .map(|o| {
                let name = match o.input.and_then(|k| node.inputs.get(k)) {
                    Some(input) => self.node(*input).label.clone(),
                    None => o.text.clone(),
                };
                (name, format_number(o.value, DEFAULT_DECIMALS))
            })
            .unzip()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Tape;
    use crate::{arith, power, trig};

    /// The reference text's walk-through, recorded as generated code
    /// records it.
    fn reference() -> Trace {
        let (x1, x2) = (1.0_f64, 2.0_f64);
        let mut tape = Tape::new("f");
        let n_x1 = tape.input("x1", x1);
        let n_x2 = tape.input("x2", x2);
        let t1 = x1 - x2;
        let d = arith::sub_pullback(x1, x2, t1, 1.0);
        let n_t1 = tape.node("t1", "sub", "x1 - x2", &[n_x1, n_x2], &[d.0, d.1], t1);
        tape.operands(n_t1, &[("x1", x1, true), ("x2", x2, true)]);
        let t2 = t1.powi(2);
        let d = power::powi_pullback(t1, 2, t2, 1.0);
        let n_t2 = tape.node("t2", "powi", "t1.powi(2)", &[n_t1], &[d], t2);
        tape.operands(n_t2, &[("t1", t1, true), ("2", 2.0, false)]);
        let t3 = x1 + x2;
        let d = arith::add_pullback(x1, x2, t3, 1.0);
        let n_t3 = tape.node("t3", "add", "x1 + x2", &[n_x1, n_x2], &[d.0, d.1], t3);
        tape.operands(n_t3, &[("x1", x1, true), ("x2", x2, true)]);
        let t4 = t3.cos();
        let d = trig::cos_pullback(t3, t4, 1.0);
        let n_t4 = tape.node("t4", "cos", "t3.cos()", &[n_t3], &[d], t4);
        tape.operands(n_t4, &[("t3", t3, true)]);
        let y = t2 + t4;
        let d = arith::add_pullback(t2, t4, y, 1.0);
        let n_y = tape.node("y", "add", "t2 + t4", &[n_t2, n_t4], &[d.0, d.1], y);
        tape.operands(n_y, &[("t2", t2, true), ("t4", t4, true)]);
        tape.finish(n_y)
    }

    fn partial(formula: &str, arithmetic: &str) -> PartialWorking {
        PartialWorking {
            formula: formula.into(),
            arithmetic: arithmetic.into(),
        }
    }

    #[test]
    fn the_reference_texts_entries_show_their_working() {
        let t = reference();
        let w = |label: &str| t.working(t.find(label).unwrap().id).unwrap();
        assert_eq!(
            w("t1"),
            Working {
                formula: "x1 - x2".into(),
                arithmetic: "1 - 2".into(),
                partials: vec![partial("1", "1"), partial("-1", "-1")],
            }
        );
        let t2 = w("t2");
        assert_eq!(
            (t2.formula.as_str(), t2.arithmetic.as_str()),
            ("t1^2", "(-1)^2")
        );
        assert_eq!(t2.partials, vec![partial("2 · t1", "2 · (-1)")]);
        let t4 = w("t4");
        assert_eq!(
            (t4.formula.as_str(), t4.arithmetic.as_str()),
            ("cos(t3)", "cos(3)")
        );
        assert_eq!(t4.partials, vec![partial("-sin(t3)", "-sin(3)")]);
        assert_eq!(w("y").arithmetic, "1 + (-0.98999)");
        assert_eq!(fill("{0} + {1}", &["-1".into(), "-2".into()]), "-1 + (-2)");
        assert_eq!(fill("{0}^{1}", &["-1".into(), "2".into()]), "(-1)^2");
        assert_eq!(
            fill("max({0}, {1})", &["-1".into(), "-2".into()]),
            "max(-1, -2)"
        );
        assert_eq!(fill("-{0}", &["-1".into()]), "-(-1)");
        // Inputs have none.
        assert_eq!(t.working(t.find("x1").unwrap().id), None);
    }

    #[test]
    fn a_constant_operand_is_written_as_the_entry_writes_it() {
        let w = 0.5_f64;
        let mut tape = Tape::new("g");
        let n_w = tape.input("w", w);
        let t = w * 1.5;
        let d = arith::mul_pullback(w, 1.5, t, 1.0);
        let n_t = tape.node("t1", "mul", "w * 1.5", &[n_w], &[d.0], t);
        tape.operands(n_t, &[("w", w, true), ("1.5", 1.5, false)]);
        let trace = tape.finish(n_t);
        let work = trace.working(n_t).unwrap();
        assert_eq!(work.formula, "w · 1.5");
        assert_eq!(work.arithmetic, "0.5 · 1.5");
        assert_eq!(work.partials, vec![partial("1.5", "1.5")]);
    }

    #[test]
    fn operands_that_do_not_match_the_inputs_are_ignored() {
        let mut tape = Tape::new("g");
        let n_x = tape.input("x", 1.0);
        let n = tape.node("t1", "sin", "x.sin()", &[n_x], &[1f64.cos()], 1f64.sin());
        tape.operands(n, &[("x", 1.0, false)]);
        let trace = tape.finish(n);
        assert!(trace.node(n).operands.is_empty());
        assert_eq!(trace.working(n), None);
    }

    #[test]
    fn every_rule_has_one_partial_per_operand() {
        for op in [
            "add",
            "sub",
            "mul",
            "div",
            "rem",
            "neg",
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "atan2",
            "sinh",
            "cosh",
            "tanh",
            "asinh",
            "acosh",
            "atanh",
            "hypot",
            "to_degrees",
            "to_radians",
            "exp",
            "exp2",
            "exp_m1",
            "ln",
            "ln_1p",
            "log",
            "log2",
            "log10",
            "sqrt",
            "cbrt",
            "powf",
            "recip",
            "abs",
            "signum",
            "floor",
            "ceil",
            "round",
            "trunc",
            "fract",
            "max",
            "min",
            "clamp",
            "rem_euclid",
            "div_euclid",
            "mul_add",
            "sigmoid",
            "relu",
            "softplus",
            "log_sigmoid",
        ] {
            let rule = rule_text(op).unwrap_or_else(|| panic!("{op}"));
            let operands = (0..3)
                .filter(|k| rule.value.contains(&format!("{{{k}}}")))
                .count();
            assert_eq!(rule.partials.len(), operands, "{op}");
        }
        assert_eq!(powi_partial(3.0), "3 · {0}^2");
        assert_eq!(powi_partial(-1.0), "-1 · {0}^(-2)");
    }
}

//! The rules table: which runtime rule differentiates which operator,
//! method or function. The math is in `autodiff-runtime`; a row here only
//! names it. A rule `name` in module `m` is called as
//! `::autodiff::runtime::m::name(args)` for its value and
//! `::autodiff::runtime::m::name_pullback(args, y, dy)` for its pullback,
//! which returns one adjoint contribution per float argument (a tuple when
//! there are several).

use crate::ir::{BinOp, UnOp};

/// The kind of one argument of a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// Differentiated.
    Float,
    /// An `i32` exponent and the like: passed to the pullback, not
    /// differentiated.
    Int,
}

/// A primitive with a pullback in the runtime.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    pub name: &'static str,
    pub module: &'static str,
    pub args: &'static [Arg],
}

const F: Arg = Arg::Float;
const I: Arg = Arg::Int;

macro_rules! rules {
    ($($name:literal in $module:literal ($($arg:ident),*)),* $(,)?) => {
        &[$(Rule { name: $name, module: $module, args: &[$($arg),*] }),*]
    };
}

/// Float methods, receiver first. Each is also accepted in path form
/// (`f64::sin(x)`).
pub const METHODS: &[Rule] = rules![
    "sin" in "trig" (F), "cos" in "trig" (F), "tan" in "trig" (F),
    "asin" in "trig" (F), "acos" in "trig" (F), "atan" in "trig" (F),
    "atan2" in "trig" (F, F),
    "sinh" in "trig" (F), "cosh" in "trig" (F), "tanh" in "trig" (F),
    "asinh" in "trig" (F), "acosh" in "trig" (F), "atanh" in "trig" (F),
    "hypot" in "trig" (F, F),
    "to_degrees" in "trig" (F), "to_radians" in "trig" (F),
    "exp" in "exp_log" (F), "exp2" in "exp_log" (F), "exp_m1" in "exp_log" (F),
    "ln" in "exp_log" (F), "ln_1p" in "exp_log" (F), "log" in "exp_log" (F, F),
    "log2" in "exp_log" (F), "log10" in "exp_log" (F),
    "sqrt" in "power" (F), "cbrt" in "power" (F),
    "powi" in "power" (F, I), "powf" in "power" (F, F),
    "recip" in "arith" (F),
    "abs" in "piecewise" (F), "signum" in "piecewise" (F),
    "max" in "piecewise" (F, F), "min" in "piecewise" (F, F),
    "clamp" in "piecewise" (F, F, F),
    "floor" in "piecewise" (F), "ceil" in "piecewise" (F), "round" in "piecewise" (F),
    "trunc" in "piecewise" (F), "fract" in "piecewise" (F),
    "mul_add" in "fused" (F, F, F),
];

/// Free functions of the runtime, callable as `sigmoid(x)` or
/// `autodiff::sigmoid(x)`.
pub const FUNCTIONS: &[Rule] = rules![
    "sigmoid" in "ml" (F), "relu" in "ml" (F), "softplus" in "ml" (F), "log_sigmoid" in "ml" (F),
];

const OPERATORS: &[Rule] = rules![
    "add" in "arith" (F, F), "sub" in "arith" (F, F), "mul" in "arith" (F, F),
    "div" in "arith" (F, F), "rem" in "arith" (F, F), "neg" in "arith" (F),
];

fn find(table: &'static [Rule], name: &str) -> Option<&'static Rule> {
    table.iter().find(|r| r.name == name)
}

pub fn method(name: &str) -> Option<&'static Rule> {
    find(METHODS, name)
}

pub fn function(name: &str) -> Option<&'static Rule> {
    find(FUNCTIONS, name)
}

pub fn binary(op: BinOp) -> Option<&'static Rule> {
    let name = match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::Div => "div",
        BinOp::Rem => "rem",
        BinOp::Other(_) => return None,
    };
    find(OPERATORS, name)
}

pub fn unary(op: UnOp) -> Option<&'static Rule> {
    match op {
        UnOp::Neg => find(OPERATORS, "neg"),
        UnOp::Not => None,
    }
}

/// Float methods whose result carries no derivative, with the kind of
/// value they return: they may read active values freely.
pub fn inactive_method(name: &str) -> Option<InactiveResult> {
    Some(match name {
        "is_nan" | "is_infinite" | "is_finite" | "is_normal" | "is_subnormal"
        | "is_sign_positive" | "is_sign_negative" => InactiveResult::Bool,
        "to_bits" | "len" | "count_ones" | "leading_zeros" | "trailing_zeros" => {
            InactiveResult::Int
        }
        _ => return None,
    })
}

pub enum InactiveResult {
    Bool,
    Int,
}

/// The names a user can ask for in an error message.
pub fn method_names() -> String {
    METHODS.iter().map(|r| r.name).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_has_one_row() {
        for (i, r) in METHODS.iter().enumerate() {
            assert!(
                METHODS[i + 1..].iter().all(|s| s.name != r.name),
                "{} twice",
                r.name
            );
            assert_eq!(r.args[0], Arg::Float, "{}: the receiver is a float", r.name);
        }
    }

    fn float_args(rule: &Rule) -> usize {
        rule.args.iter().filter(|a| **a == Arg::Float).count()
    }

    #[test]
    fn operators_and_functions_resolve() {
        assert_eq!(binary(BinOp::Mul).unwrap().module, "arith");
        assert!(binary(BinOp::Other("<")).is_none());
        assert_eq!(float_args(unary(UnOp::Neg).unwrap()), 1);
        assert_eq!(float_args(method("powi").unwrap()), 1);
        assert_eq!(float_args(method("clamp").unwrap()), 3);
        assert_eq!(function("sigmoid").unwrap().module, "ml");
    }
}

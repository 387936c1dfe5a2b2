//! Functions the learner types: a small parser of Rust-like expressions
//! (written here: the language is a dozen rules, and its errors must point
//! at a character of the input, which a general parser crate would make
//! harder, not easier), and an evaluator that records each entry on the
//! runtime's [`Tape`] exactly as `#[grad(trace)]`-generated code does:
//! the same names (`t1`, `t2`, .. in the order recorded, the arms of a
//! branch from the same number, an unnamed output `y`), the same entry
//! text (`t1.powi(2)`), the value computed by the same float operation and
//! each local derivative by the runtime's own pullback at dy = 1. So a
//! typed function's trace equals the `_trace` of the same function
//! compiled with `#[grad(trace)]`, bit for bit (`tests/walkthrough_typed.rs`
//! checks it on the built-ins).
//!
//! The language: `let name = expr;` statements, then an expression; `+ -
//! * / %`, unary `-`, `^` for a power (`x^2` is `x.powi(2)`, `x^1.5` is
//! `x.powf(1.5)`), parentheses, calls `sin(x)`, `f64::sin(x)` or methods
//! `x.sin()`, `x.powi(2)`, `x.max(y)`, and `if a > b { .. } else { .. }`
//! (`<`, `<=`, `>`, `>=`, `==`, `!=`). Every name not bound by a `let` is
//! an input, in the order of first use. No loops: the built-ins with one
//! (`line_fit`, `chain`) are Rust compiled by `#[grad(trace)]` only.

use autodiff::runtime::trace::{Frame, NodeId, Tape, Trace};
use autodiff::runtime::{arith, exp_log, fused, ml, piecewise, power, trig};
use autodiff::Float;
use std::cmp::Ordering;

/// The longest source accepted, in characters.
pub const MAX_SOURCE: usize = 2000;
/// The most inputs a typed function may have.
pub const MAX_INPUTS: usize = 8;
/// The most entries a typed function may record.
pub const MAX_NODES: usize = 300;

/// A parse error: where (a character offset into the source, and how
/// many characters), and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The offending character's offset, counted in characters.
    pub at: usize,
    /// How many characters the error covers (at least 1).
    pub len: usize,
    /// What is wrong and what to write instead.
    pub message: String,
}

/// A parsed function.
#[derive(Clone, Debug)]
pub struct Typed {
    /// The source as typed.
    pub source: String,
    /// The inputs, in the order of first use.
    pub params: Vec<String>,
    body: Block,
}

#[derive(Clone, Debug)]
struct Block {
    lets: Vec<(String, Expr)>,
    value: Expr,
}

#[derive(Clone, Debug)]
enum Expr {
    /// A literal, as written.
    Num(String, f64),
    Name(String),
    Neg(Box<Expr>),
    /// `+ - * / %` and `^`.
    Bin(char, Box<Expr>, Box<Expr>),
    /// A function or method: its name and its arguments, receiver first.
    Call(&'static Function, Vec<Expr>),
    If(Box<Cond>, Box<Block>, Box<Block>),
}

#[derive(Clone, Debug)]
struct Cond {
    op: &'static str,
    a: Expr,
    b: Expr,
}

/// A float function the language knows: its name and how many
/// arguments it takes, receiver included.
#[derive(Debug, PartialEq, Eq)]
struct Function {
    name: &'static str,
    arity: usize,
    /// Written as a function (`sigmoid(x)`), not a method.
    free: bool,
}

macro_rules! functions {
    ($($name:literal $arity:literal $free:literal),* $(,)?) => {
        &[$(Function { name: $name, arity: $arity, free: $free }),*]
    };
}

const FUNCTIONS: &[Function] = functions![
    "sin" 1 false, "cos" 1 false, "tan" 1 false, "asin" 1 false, "acos" 1 false,
    "atan" 1 false, "sinh" 1 false, "cosh" 1 false, "tanh" 1 false, "asinh" 1 false,
    "acosh" 1 false, "atanh" 1 false, "exp" 1 false, "exp2" 1 false, "exp_m1" 1 false,
    "ln" 1 false, "ln_1p" 1 false, "log2" 1 false, "log10" 1 false, "sqrt" 1 false,
    "cbrt" 1 false, "recip" 1 false, "abs" 1 false, "signum" 1 false, "floor" 1 false,
    "ceil" 1 false, "round" 1 false, "trunc" 1 false, "fract" 1 false,
    "to_degrees" 1 false, "to_radians" 1 false,
    "atan2" 2 false, "hypot" 2 false, "log" 2 false, "powf" 2 false, "powi" 2 false,
    "max" 2 false, "min" 2 false, "mul_add" 3 false, "clamp" 3 false,
    "sigmoid" 1 true, "relu" 1 true, "softplus" 1 true, "log_sigmoid" 1 true,
];

fn function(name: &str) -> Option<&'static Function> {
    FUNCTIONS.iter().find(|f| f.name == name)
}

// ---------------------------------------------------------------- lexer

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(String),
    Ident(String),
    Sym(&'static str),
    End,
}

const SYMBOLS: &[&str] = &[
    "::", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "^", "(", ")", ",", ".", ";", "=", "{",
    "}", "<", ">", ":",
];

fn lex(chars: &[char]) -> Result<Vec<(Tok, usize, usize)>, ParseError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '_') {
                i += 1;
            }
            // A fraction, unless the dot starts a method (`2.0.sqrt()`
            // has one; `2.sqrt()` is refused below as Rust refuses it).
            if i + 1 < chars.len() && chars[i] == '.' && chars[i + 1].is_ascii_digit() {
                i += 1;
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '_') {
                    i += 1;
                }
            } else if i < chars.len()
                && chars[i] == '.'
                && !chars
                    .get(i + 1)
                    .is_some_and(|c| c.is_alphabetic() || *c == '_')
            {
                i += 1;
            }
            if i < chars.len() && matches!(chars[i], 'e' | 'E') {
                let mut j = i + 1;
                if j < chars.len() && matches!(chars[j], '+' | '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text: String = chars[start..i].iter().collect();
            out.push((Tok::Num(text), start, i - start));
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((
                Tok::Ident(chars[start..i].iter().collect()),
                start,
                i - start,
            ));
            continue;
        }
        let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
        match SYMBOLS.iter().find(|s| rest.starts_with(**s)) {
            Some(s) => {
                i += s.chars().count();
                out.push((Tok::Sym(s), start, i - start));
            }
            None => {
                return Err(ParseError {
                    at: start,
                    len: 1,
                    message: format!("unexpected character {c:?}: write numbers, names, + - * / % ^, ( ), calls such as sin(x) or x.sin(), let and if"),
                })
            }
        }
    }
    out.push((Tok::End, chars.len(), 1));
    Ok(out)
}

// --------------------------------------------------------------- parser

struct Parser {
    toks: Vec<(Tok, usize, usize)>,
    pos: usize,
    params: Vec<String>,
    /// The names bound by `let` so far, innermost last.
    bound: Vec<String>,
}

type Parsed<T> = Result<T, ParseError>;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }

    fn at(&self) -> (usize, usize) {
        let (_, at, len) = &self.toks[self.pos];
        (*at, *len)
    }

    fn error<T>(&self, message: impl Into<String>) -> Parsed<T> {
        let (at, len) = self.at();
        Err(ParseError {
            at,
            len,
            message: message.into(),
        })
    }

    fn sym(&mut self, s: &str) -> bool {
        if *self.peek() == Tok::Sym(leak(s)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str, what: &str) -> Parsed<()> {
        if self.sym(s) {
            Ok(())
        } else {
            self.error(format!("expected `{s}` {what}"))
        }
    }

    fn keyword(&mut self, k: &str) -> bool {
        if matches!(self.peek(), Tok::Ident(i) if i == k) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn ident(&mut self, what: &str) -> Parsed<String> {
        match self.peek().clone() {
            Tok::Ident(name) if !is_keyword(&name) => {
                self.pos += 1;
                Ok(name)
            }
            _ => self.error(format!("expected a name {what}")),
        }
    }

    /// `let`s, then an expression, up to `end` (`}` or the end).
    fn block(&mut self, end: &Tok) -> Parsed<Block> {
        let depth = self.bound.len();
        let mut lets = Vec::new();
        while self.keyword("let") {
            self.keyword("mut");
            let (at, len) = self.at();
            let name = self.ident("after `let`")?;
            self.check_name(&name, at, len)?;
            if self.sym(":") {
                self.ident("for the type (f64)")?;
            }
            self.expect("=", "after the name")?;
            let value = self.expr()?;
            self.expect(";", "after the `let`'s value")?;
            self.bound.push(name.clone());
            lets.push((name, value));
        }
        let value = self.expr()?;
        if self.peek() != end {
            let want = if *end == Tok::End {
                "the end of the function"
            } else {
                "`}`"
            };
            return self.error(format!(
                "expected {want}: the last line is the function's value; end the lines before it with `;`"
            ));
        }
        self.bound.truncate(depth);
        Ok(Block { lets, value })
    }

    fn check_name(&self, name: &str, at: usize, len: usize) -> Parsed<()> {
        let numbered = name.len() > 1
            && name.starts_with('t')
            && name[1..].chars().all(|c| c.is_ascii_digit());
        let message = if numbered {
            format!("`{name}` is how the trace numbers its temporaries: choose another name")
        } else if function(name).is_some() {
            format!("`{name}` is a function: choose another name")
        } else {
            return Ok(());
        };
        Err(ParseError { at, len, message })
    }

    fn expr(&mut self) -> Parsed<Expr> {
        if self.keyword("if") {
            return self.if_expr();
        }
        self.additive()
    }

    fn if_expr(&mut self) -> Parsed<Expr> {
        let a = self.additive()?;
        let op = match self.peek() {
            Tok::Sym(s @ ("<" | "<=" | ">" | ">=" | "==" | "!=")) => *s,
            _ => return self.error("expected a comparison (<, <=, >, >=, ==, !=) after `if`"),
        };
        self.pos += 1;
        let b = self.additive()?;
        self.expect("{", "to open the `if`'s arm")?;
        let then = self.block(&Tok::Sym("}"))?;
        self.expect("}", "to close the arm")?;
        if !self.keyword("else") {
            return self.error("an `if` needs an `else`: both arms give the value");
        }
        let otherwise = if self.keyword("if") {
            Block {
                lets: Vec::new(),
                value: self.if_expr()?,
            }
        } else {
            self.expect("{", "to open the `else` arm")?;
            let b = self.block(&Tok::Sym("}"))?;
            self.expect("}", "to close the arm")?;
            b
        };
        Ok(Expr::If(
            Box::new(Cond { op, a, b }),
            Box::new(then),
            Box::new(otherwise),
        ))
    }

    fn additive(&mut self) -> Parsed<Expr> {
        let mut e = self.multiplicative()?;
        loop {
            let op = if self.sym("+") {
                '+'
            } else if self.sym("-") {
                '-'
            } else {
                return Ok(e);
            };
            let b = self.multiplicative()?;
            e = Expr::Bin(op, Box::new(e), Box::new(b));
        }
    }

    fn multiplicative(&mut self) -> Parsed<Expr> {
        let mut e = self.unary()?;
        loop {
            let op = if self.sym("*") {
                '*'
            } else if self.sym("/") {
                '/'
            } else if self.sym("%") {
                '%'
            } else {
                return Ok(e);
            };
            let b = self.unary()?;
            e = Expr::Bin(op, Box::new(e), Box::new(b));
        }
    }

    fn unary(&mut self) -> Parsed<Expr> {
        if self.sym("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        let base = self.postfix()?;
        if self.sym("^") {
            // Right-associative, and above unary minus: -x^2 is -(x^2).
            let exponent = self.unary()?;
            return Ok(Expr::Bin('^', Box::new(base), Box::new(exponent)));
        }
        Ok(base)
    }

    fn postfix(&mut self) -> Parsed<Expr> {
        let mut e = self.primary()?;
        while self.sym(".") {
            let (at, len) = self.at();
            let name = self.ident("of a method after `.`")?;
            let f = self.known(&name, at, len)?;
            self.expect("(", &format!("after `.{name}`"))?;
            let mut args = vec![e];
            args.extend(self.args()?);
            e = self.call(f, args, at, len)?;
        }
        Ok(e)
    }

    fn known(&self, name: &str, at: usize, len: usize) -> Parsed<&'static Function> {
        function(name).ok_or_else(|| ParseError {
            at,
            len,
            message: format!(
                "unknown function `{name}`; the functions are {}",
                FUNCTIONS
                    .iter()
                    .map(|f| f.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
    }

    fn call(&self, f: &'static Function, args: Vec<Expr>, at: usize, len: usize) -> Parsed<Expr> {
        if args.len() != f.arity {
            return Err(ParseError {
                at,
                len,
                message: format!(
                    "`{}` takes {} argument{} ({} given)",
                    f.name,
                    f.arity,
                    if f.arity == 1 { "" } else { "s" },
                    args.len()
                ),
            });
        }
        if f.name == "powi" && !matches!(args[1], Expr::Num(ref t, _) if is_integer(t)) {
            return Err(ParseError {
                at,
                len,
                message: "`powi` takes an integer literal (`x.powi(3)`); write `powf` for any other exponent".into(),
            });
        }
        Ok(Expr::Call(f, args))
    }

    /// The arguments after `(`, and the `)`.
    fn args(&mut self) -> Parsed<Vec<Expr>> {
        let mut args = Vec::new();
        if self.sym(")") {
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            if self.sym(")") {
                return Ok(args);
            }
            if *self.peek() == Tok::End {
                return self.error("expected `)` to close the call's parenthesis");
            }
            self.expect(",", "between arguments, or `)`")?;
        }
    }

    fn primary(&mut self) -> Parsed<Expr> {
        let (at, len) = self.at();
        match self.peek().clone() {
            Tok::Num(text) => {
                self.pos += 1;
                let Ok(value) = text.replace('_', "").parse::<f64>() else {
                    return Err(ParseError {
                        at,
                        len,
                        message: format!("{text} is not a number"),
                    });
                };
                if !value.is_finite() {
                    return Err(ParseError {
                        at,
                        len,
                        message: format!("{text} is not a finite number"),
                    });
                }
                Ok(Expr::Num(text, value))
            }
            Tok::Sym("(") => {
                self.pos += 1;
                let e = self.expr()?;
                self.expect(")", "to close the parenthesis")?;
                Ok(e)
            }
            Tok::Ident(k) if k == "if" => {
                self.pos += 1;
                self.if_expr()
            }
            Tok::Ident(mut name) if !is_keyword(&name) => {
                self.pos += 1;
                // `f64::sin(x)`: the path's last segment names the function.
                let (mut at, mut len) = (at, len);
                while self.sym("::") {
                    (at, len) = self.at();
                    name = self.ident("after `::`")?;
                }
                if self.sym("(") {
                    let f = self.known(&name, at, len)?;
                    let args = self.args()?;
                    return self.call(f, args, at, len);
                }
                if function(&name).is_some() {
                    return Err(ParseError {
                        at,
                        len,
                        message: format!("`{name}` is a function: call it, `{name}(x)`"),
                    });
                }
                if !self.bound.contains(&name) && !self.params.contains(&name) {
                    self.check_name(&name, at, len)?;
                    if self.params.len() == MAX_INPUTS {
                        return Err(ParseError {
                            at,
                            len,
                            message: format!("at most {MAX_INPUTS} inputs"),
                        });
                    }
                    self.params.push(name.clone());
                }
                Ok(Expr::Name(name))
            }
            Tok::End => self.error("the function ends too soon: an expression is missing"),
            _ => self.error("expected a number, a name, a call or `(`"),
        }
    }
}

fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "let" | "mut" | "if" | "else" | "fn" | "for" | "while" | "loop" | "return"
    )
}

fn is_integer(text: &str) -> bool {
    text.chars().all(|c| c.is_ascii_digit() || c == '_')
}

/// The symbol table's own `&'static str` for `s`.
fn leak(s: &str) -> &'static str {
    SYMBOLS.iter().find(|t| **t == s).copied().unwrap_or("")
}

/// Parses a typed function.
pub fn parse(source: &str) -> Result<Typed, ParseError> {
    let chars: Vec<char> = source.chars().collect();
    if chars.len() > MAX_SOURCE {
        return Err(ParseError {
            at: MAX_SOURCE,
            len: 1,
            message: format!("at most {MAX_SOURCE} characters"),
        });
    }
    let toks = lex(&chars)?;
    if let Some((Tok::Ident(k), at, len)) = toks.iter().find(
        |(t, _, _)| matches!(t, Tok::Ident(k) if matches!(k.as_str(), "fn" | "for" | "while" | "loop" | "return")),
    ) {
        return Err(ParseError {
            at: *at,
            len: *len,
            message: format!("`{k}` is not in this language: type the function's body (lets, then its value), without loops"),
        });
    }
    let mut p = Parser {
        toks,
        pos: 0,
        params: Vec::new(),
        bound: Vec::new(),
    };
    let body = p.block(&Tok::End)?;
    if p.params.is_empty() {
        return Err(ParseError {
            at: 0,
            len: chars.len().max(1),
            message: "the function has no input: use a name such as x1".into(),
        });
    }
    Ok(Typed {
        source: source.to_owned(),
        params: p.params,
        body,
    })
}

// ----------------------------------------------------------- evaluation

/// The value of `f` at `args` (receiver first), computed as generated
/// code computes it: the float's own method, or the runtime's function.
fn apply<T: Float>(f: &Function, a: &[T]) -> Result<T, String> {
    Ok(match f.name {
        "sin" => a[0].sin(),
        "cos" => a[0].cos(),
        "tan" => a[0].tan(),
        "asin" => a[0].asin(),
        "acos" => a[0].acos(),
        "atan" => a[0].atan(),
        "sinh" => a[0].sinh(),
        "cosh" => a[0].cosh(),
        "tanh" => a[0].tanh(),
        "asinh" => a[0].asinh(),
        "acosh" => a[0].acosh(),
        "atanh" => a[0].atanh(),
        "exp" => a[0].exp(),
        "exp2" => a[0].exp2(),
        "exp_m1" => a[0].exp_m1(),
        "ln" => a[0].ln(),
        "ln_1p" => a[0].ln_1p(),
        "log2" => a[0].log2(),
        "log10" => a[0].log10(),
        "sqrt" => a[0].sqrt(),
        "cbrt" => a[0].cbrt(),
        "recip" => a[0].recip(),
        "abs" => a[0].abs(),
        "signum" => a[0].signum(),
        "floor" => a[0].floor(),
        "ceil" => a[0].ceil(),
        "round" => a[0].round(),
        "trunc" => a[0].trunc(),
        "fract" => a[0].fract(),
        "to_degrees" => a[0].to_degrees(),
        "to_radians" => a[0].to_radians(),
        "atan2" => a[0].atan2(a[1]),
        "hypot" => a[0].hypot(a[1]),
        "log" => a[0].log(a[1]),
        "powf" => a[0].powf(a[1]),
        "powi" => a[0].powi(exponent(a[1].to_f64())),
        "max" => a[0].max(a[1]),
        "min" => a[0].min(a[1]),
        "mul_add" => a[0].mul_add(a[1], a[2]),
        "clamp" => {
            if !matches!(
                a[1].partial_cmp(&a[2]),
                Some(Ordering::Less | Ordering::Equal)
            ) {
                return Err(format!(
                    "clamp needs its lower bound at most its upper one, not {} and {}",
                    a[1].to_f64(),
                    a[2].to_f64()
                ));
            }
            piecewise::clamp(a[0], a[1], a[2])
        }
        "sigmoid" => ml::sigmoid(a[0]),
        "relu" => ml::relu(a[0]),
        "softplus" => ml::softplus(a[0]),
        "log_sigmoid" => ml::log_sigmoid(a[0]),
        other => return Err(format!("no rule for {other}")),
    })
}

fn exponent(n: f64) -> i32 {
    n as i32
}

/// `∂f/∂args[k]` for each argument, by the runtime's pullback at dy = 1.
fn partials(f: &Function, a: &[f64], y: f64) -> Vec<f64> {
    let one = 1.0;
    match f.name {
        "sin" => vec![trig::sin_pullback(a[0], y, one)],
        "cos" => vec![trig::cos_pullback(a[0], y, one)],
        "tan" => vec![trig::tan_pullback(a[0], y, one)],
        "asin" => vec![trig::asin_pullback(a[0], y, one)],
        "acos" => vec![trig::acos_pullback(a[0], y, one)],
        "atan" => vec![trig::atan_pullback(a[0], y, one)],
        "sinh" => vec![trig::sinh_pullback(a[0], y, one)],
        "cosh" => vec![trig::cosh_pullback(a[0], y, one)],
        "tanh" => vec![trig::tanh_pullback(a[0], y, one)],
        "asinh" => vec![trig::asinh_pullback(a[0], y, one)],
        "acosh" => vec![trig::acosh_pullback(a[0], y, one)],
        "atanh" => vec![trig::atanh_pullback(a[0], y, one)],
        "to_degrees" => vec![trig::to_degrees_pullback(a[0], y, one)],
        "to_radians" => vec![trig::to_radians_pullback(a[0], y, one)],
        "exp" => vec![exp_log::exp_pullback(a[0], y, one)],
        "exp2" => vec![exp_log::exp2_pullback(a[0], y, one)],
        "exp_m1" => vec![exp_log::exp_m1_pullback(a[0], y, one)],
        "ln" => vec![exp_log::ln_pullback(a[0], y, one)],
        "ln_1p" => vec![exp_log::ln_1p_pullback(a[0], y, one)],
        "log2" => vec![exp_log::log2_pullback(a[0], y, one)],
        "log10" => vec![exp_log::log10_pullback(a[0], y, one)],
        "sqrt" => vec![power::sqrt_pullback(a[0], y, one)],
        "cbrt" => vec![power::cbrt_pullback(a[0], y, one)],
        "recip" => vec![arith::recip_pullback(a[0], y, one)],
        "abs" => vec![piecewise::abs_pullback(a[0], y, one)],
        "signum" => vec![piecewise::signum_pullback(a[0], y, one)],
        "floor" => vec![piecewise::floor_pullback(a[0], y, one)],
        "ceil" => vec![piecewise::ceil_pullback(a[0], y, one)],
        "round" => vec![piecewise::round_pullback(a[0], y, one)],
        "trunc" => vec![piecewise::trunc_pullback(a[0], y, one)],
        "fract" => vec![piecewise::fract_pullback(a[0], y, one)],
        "sigmoid" => vec![ml::sigmoid_pullback(a[0], y, one)],
        "relu" => vec![ml::relu_pullback(a[0], y, one)],
        "softplus" => vec![ml::softplus_pullback(a[0], y, one)],
        "log_sigmoid" => vec![ml::log_sigmoid_pullback(a[0], y, one)],
        "powi" => vec![power::powi_pullback(a[0], exponent(a[1]), y, one), 0.0],
        _ => {
            let (p, q) = match f.name {
                "atan2" => trig::atan2_pullback(a[0], a[1], y, one),
                "hypot" => trig::hypot_pullback(a[0], a[1], y, one),
                "log" => exp_log::log_pullback(a[0], a[1], y, one),
                "powf" => power::powf_pullback(a[0], a[1], y, one),
                "max" => piecewise::max_pullback(a[0], a[1], y, one),
                "min" => piecewise::min_pullback(a[0], a[1], y, one),
                "mul_add" => {
                    let (p, q, r) = fused::mul_add_pullback(a[0], a[1], a[2], y, one);
                    return vec![p, q, r];
                }
                "clamp" => {
                    let (p, q, r) = piecewise::clamp_pullback(a[0], a[1], a[2], y, one);
                    return vec![p, q, r];
                }
                _ => (f64::NAN, f64::NAN),
            };
            vec![p, q]
        }
    }
}

/// A value while tracing: an entry on the tape, or a constant.
#[derive(Clone, Debug)]
enum Val {
    Node {
        id: NodeId,
        name: String,
        value: f64,
    },
    Const {
        text: String,
        value: f64,
    },
}

impl Val {
    fn value(&self) -> f64 {
        match self {
            Val::Node { value, .. } | Val::Const { value, .. } => *value,
        }
    }

    fn text(&self) -> &str {
        match self {
            Val::Node { name, .. } => name,
            Val::Const { text, .. } => text,
        }
    }
}

/// The tracer: the tape, the names in scope, and the numbering.
struct Tracer {
    tape: Tape,
    scope: Vec<(String, Val)>,
    next: usize,
    entries: usize,
}

type Traced<T> = Result<T, String>;

impl Tracer {
    fn lookup(&self, name: &str) -> Traced<Val> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| format!("{name} is not defined"))
    }

    /// One entry: the runtime rule `rule`, written `expr`, of the
    /// operands `args`, its value `y` and its partials (one per operand).
    fn record(
        &mut self,
        name: Option<String>,
        rule: &str,
        expr: String,
        args: &[Val],
        parts: &[f64],
        y: f64,
    ) -> Traced<Val> {
        self.entries += 1;
        if self.entries > MAX_NODES {
            return Err(format!(
                "the function records more than {MAX_NODES} entries"
            ));
        }
        let name = name.unwrap_or_else(|| {
            self.next += 1;
            format!("t{}", self.next - 1)
        });
        let mut inputs = Vec::new();
        let mut ps = Vec::new();
        for (a, p) in args.iter().zip(parts) {
            if let Val::Node { id, .. } = a {
                inputs.push(*id);
                ps.push(*p);
            }
        }
        let id = self.tape.node(&name, rule, &expr, &inputs, &ps, y);
        let operands: Vec<(&str, f64, bool)> = args
            .iter()
            .map(|a| (a.text(), a.value(), matches!(a, Val::Node { .. })))
            .collect();
        self.tape.operands(id, &operands);
        Ok(Val::Node { id, name, value: y })
    }

    fn block(&mut self, b: &Block) -> Traced<Val> {
        let depth = self.scope.len();
        self.lets(&b.lets)?;
        let v = self.expr(&b.value, None)?;
        self.scope.truncate(depth);
        Ok(v)
    }

    /// `let name = e;`: the entry `e` makes is named `name` (a second
    /// `let` of one name is the tape's `name′`); what it reads unchanged
    /// (another name, a constant, an `if`'s arm) is read under `name` from
    /// here on, as the trace of generated code names it.
    fn lets(&mut self, lets: &[(String, Expr)]) -> Traced<()> {
        for (name, e) in lets {
            let shown = name.clone();
            let v = match self.expr(e, Some(shown.clone()))? {
                Val::Node { id, value, .. } => Val::Node {
                    id,
                    name: shown,
                    value,
                },
                Val::Const { value, .. } => Val::Const { text: shown, value },
            };
            self.scope.push((name.clone(), v));
        }
        Ok(())
    }

    /// `e`, its entry named `name` where a `let` binds it.
    fn expr(&mut self, e: &Expr, name: Option<String>) -> Traced<Val> {
        match e {
            Expr::Num(text, value) => Ok(Val::Const {
                text: text.clone(),
                value: *value,
            }),
            Expr::Name(n) => self.lookup(n),
            Expr::Neg(a) => {
                let a = self.expr(a, None)?;
                let y = -a.value();
                if let Val::Const { text, .. } = &a {
                    return Ok(Val::Const {
                        text: format!("-{text}"),
                        value: y,
                    });
                }
                let p = arith::neg_pullback(a.value(), y, 1.0);
                self.record(name, "neg", format!("-{}", a.text()), &[a], &[p], y)
            }
            Expr::Bin('^', a, b) => {
                let f = match &**b {
                    Expr::Num(t, _) if is_integer(t) => function("powi"),
                    _ => function("powf"),
                };
                let f = f.ok_or("no power")?;
                self.call(f, &[(**a).clone(), (**b).clone()], name)
            }
            Expr::Bin(op, a, b) => {
                let a = self.expr(a, None)?;
                let b = self.expr(b, None)?;
                let (x, z) = (a.value(), b.value());
                let (rule, y, p) = match op {
                    '+' => ("add", x + z, arith::add_pullback(x, z, x + z, 1.0)),
                    '-' => ("sub", x - z, arith::sub_pullback(x, z, x - z, 1.0)),
                    '*' => ("mul", x * z, arith::mul_pullback(x, z, x * z, 1.0)),
                    '/' => ("div", x / z, arith::div_pullback(x, z, x / z, 1.0)),
                    _ => ("rem", x % z, arith::rem_pullback(x, z, x % z, 1.0)),
                };
                let expr = format!("{} {op} {}", a.text(), b.text());
                if let (Val::Const { .. }, Val::Const { .. }) = (&a, &b) {
                    return Ok(Val::Const {
                        text: format!("({expr})"),
                        value: y,
                    });
                }
                self.record(name, rule, expr, &[a, b], &[p.0, p.1], y)
            }
            Expr::Call(f, args) => self.call(f, args, name),
            Expr::If(cond, then, otherwise) => {
                let a = self.expr(&cond.a, None)?;
                let b = self.expr(&cond.b, None)?;
                let holds = compare(cond.op, a.value(), b.value());
                let label = format!("if {} {} {}", a.text(), cond.op, b.text());
                // Both arms count from the same number, as the macro
                // numbers them: the one that does not run is counted on a
                // copy of the tape.
                let first = self.next;
                let mut other = Tracer {
                    tape: self.tape.clone(),
                    scope: self.scope.clone(),
                    next: first,
                    entries: 0,
                };
                // Its errors are those of an arm that does not run.
                let _ = other.block(if holds { otherwise } else { then });
                let arm = if holds { "then" } else { "else" };
                self.tape.enter(Frame::arm(&label, arm));
                let v = self.block(if holds { then } else { otherwise })?;
                let v = match v {
                    Val::Const { text, value } => {
                        let id = self.tape.node(&text, "const", &text, &[], &[0.0; 0], value);
                        Val::Node {
                            id,
                            name: text,
                            value,
                        }
                    }
                    node => node,
                };
                self.tape.leave();
                self.next = self.next.max(other.next);
                Ok(v)
            }
        }
    }

    fn call(&mut self, f: &'static Function, args: &[Expr], name: Option<String>) -> Traced<Val> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a, None)?);
        }
        let xs: Vec<f64> = vals.iter().map(Val::value).collect();
        let y = apply(f, &xs)?;
        let expr = match f.free {
            true => format!(
                "{}({})",
                f.name,
                vals.iter().map(Val::text).collect::<Vec<_>>().join(", ")
            ),
            false => format!(
                "{}.{}({})",
                vals[0].text(),
                f.name,
                vals[1..]
                    .iter()
                    .map(Val::text)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        if vals.iter().all(|v| matches!(v, Val::Const { .. })) {
            return Ok(Val::Const {
                text: expr,
                value: y,
            });
        }
        let ps = partials(f, &xs, y);
        self.record(name, f.name, expr, &vals, &ps, y)
    }
}

impl Typed {
    /// The trace at `point` (one value per [`params`](Typed::params)),
    /// recorded under the function name `function`, or why it cannot be.
    pub fn trace(&self, function: &str, point: &[f64]) -> Result<Trace, String> {
        if point.len() != self.params.len() {
            return Err(format!(
                "{} values for {} inputs",
                point.len(),
                self.params.len()
            ));
        }
        let mut t = Tracer {
            tape: Tape::new(function),
            scope: Vec::new(),
            next: 1,
            entries: 0,
        };
        for (p, v) in self.params.iter().zip(point) {
            let id = t.tape.input(p, *v);
            t.scope.push((
                p.clone(),
                Val::Node {
                    id,
                    name: p.clone(),
                    value: *v,
                },
            ));
        }
        // An unnamed output is `y`, where no name of the function is.
        let output_y = !matches!(self.body.value, Expr::If(..))
            && !self.params.iter().any(|p| p == "y")
            && !self.body.lets.iter().any(|(n, _)| n == "y")
            && !self
                .source
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == "y");
        let depth = t.scope.len();
        t.lets(&self.body.lets)?;
        let name = output_y.then(|| "y".to_owned());
        let v = t.expr(&self.body.value, name)?;
        t.scope.truncate(depth);
        let out = match v {
            Val::Node { id, .. } => id,
            Val::Const { text, value } => t.tape.node(&text, "const", &text, &[], &[0.0; 0], value),
        };
        Ok(t.tape.finish(out))
    }

    /// The value at `point`, at any float type: `f64` for the central
    /// differences, dual numbers for the Hessian.
    pub fn value<T: Float>(&self, point: &[T]) -> Result<T, String> {
        let mut scope: Vec<(&str, T)> = self
            .params
            .iter()
            .map(String::as_str)
            .zip(point.iter().copied())
            .collect();
        value_of_block(&self.body, &mut scope)
    }

    /// The Hessian at `point`, exactly: the function evaluated at
    /// second-order dual numbers (the runtime's `Dual<Dual<f64>>`), one
    /// evaluation per pair of inputs.
    pub fn hessian(&self, point: &[f64]) -> Result<Vec<Vec<f64>>, String> {
        use autodiff::runtime::dual::Dual;
        type D2 = Dual<Dual<f64>>;
        let n = point.len();
        let mut h = vec![vec![0.0; n]; n];
        // The lower triangle is the upper one's mirror.
        #[allow(clippy::needless_range_loop)]
        for j in 0..n {
            for k in j..n {
                let x: Vec<D2> = (0..n)
                    .map(|i| {
                        let (a, b) = (f64::from(u8::from(i == j)), f64::from(u8::from(i == k)));
                        Dual::new(Dual::new(point[i], a), Dual::new(b, 0.0))
                    })
                    .collect();
                let v = self.value(&x)?;
                h[j][k] = v.eps.eps;
                h[k][j] = v.eps.eps;
            }
        }
        Ok(h)
    }
}

/// Whether `x op z` holds.
fn compare(op: &str, x: f64, z: f64) -> bool {
    match op {
        "<" => x < z,
        "<=" => x <= z,
        ">" => x > z,
        ">=" => x >= z,
        "==" => x == z,
        _ => x != z,
    }
}

fn value_of_block<'a, T: Float>(b: &'a Block, scope: &mut Vec<(&'a str, T)>) -> Result<T, String> {
    let depth = scope.len();
    for (name, e) in &b.lets {
        let v = value_of(e, scope)?;
        scope.push((name, v));
    }
    let v = value_of(&b.value, scope);
    scope.truncate(depth);
    v
}

fn value_of<'a, T: Float>(e: &'a Expr, scope: &mut Vec<(&'a str, T)>) -> Result<T, String> {
    Ok(match e {
        Expr::Num(_, v) => T::from_f64(*v),
        Expr::Name(n) => scope
            .iter()
            .rev()
            .find(|(k, _)| k == n)
            .map(|(_, v)| *v)
            .ok_or_else(|| format!("{n} is not defined"))?,
        Expr::Neg(a) => -value_of(a, scope)?,
        Expr::Bin(op, a, b) => {
            let (x, z) = (value_of(a, scope)?, value_of(b, scope)?);
            match op {
                '+' => x + z,
                '-' => x - z,
                '*' => x * z,
                '/' => x / z,
                '%' => x % z,
                _ => match &**b {
                    Expr::Num(t, v) if is_integer(t) => x.powi(exponent(*v)),
                    _ => x.powf(z),
                },
            }
        }
        Expr::Call(f, args) => {
            let mut xs = Vec::with_capacity(args.len());
            for a in args {
                xs.push(value_of(a, scope)?);
            }
            apply(f, &xs)?
        }
        Expr::If(c, then, otherwise) => {
            let (x, z) = (value_of(&c.a, scope)?, value_of(&c.b, scope)?);
            // On the values: a dual number's tangent takes no part.
            let holds = compare(c.op, x.to_f64(), z.to_f64());
            value_of_block(if holds { then } else { otherwise }, scope)?
        }
    })
}

//! Rendering a [`Program`]: the plain functions under `#[grad]`, their twin
//! over the dual number `D` (the same body, literal by literal), and the
//! wrappers the harness calls.

use crate::ast::*;
use std::collections::HashSet;
use std::fmt::Write;

mod generic;
pub use generic::{gen_code, hessian_module};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The function as a user writes it, under `#[grad]`.
    Plain,
    /// The twin over `crate::dual::D` (and, in programs under
    /// `#[grad(hessian)]`, the same text over the second-order
    /// `crate::hyper::D`).
    Dual,
    /// The generic twin `f_gen<T: autodiff::Float ..>` of a program under
    /// `#[grad(hessian)]` (src/hessian.rs, src/render/generic.rs): every
    /// `f64` a `T`, each function named `<name>_gen`.
    Gen,
}

struct R {
    mode: Mode,
    /// Closure parameters bound by `|v|`: used as `(*v)`.
    deref: Vec<String>,
    /// Inside an expression whose type rustc cannot infer: literals get
    /// the `_f64` suffix.
    suffix: usize,
    /// Parameters iterated as `for &x in xs` (references to arrays).
    ref_params: HashSet<String>,
    /// Every array parameter (all references in the twin).
    array_params: HashSet<String>,
    /// Writes the `#[checkpoint(..)]` attributes (the plain function; not
    /// its copy without them, `f_nockpt`, nor the twin).
    ckpt: bool,
    /// What the function returns: a fallible one's `return e;` is
    /// `return Ok(e);`.
    ret: Ret,
    /// Floats taken by `&mut` (a writer's): read as `(*a)`, written as
    /// `*a = ..`.
    muts: Vec<String>,
    /// References bound by `let r = &x;` (`float_ref`), read as `(*r)` in
    /// the twins (the function reads `r` as Rust reads a `&f64`).
    refs: Vec<String>,
    /// Results of `make` bound by `let p: P1 = ..` (`made_struct`).
    made: Vec<String>,
    /// The struct a struct writer changes, `self` or its `sp: &mut P0`
    /// (`struct_writer`): a reference, lent on as it is.
    lent: Option<String>,
    /// Local structs held in a `Vec` of structs (`struct_vec_locals`):
    /// the name and the element's index, `q` used as `q[k]`.
    held: Vec<(String, u64)>,
    /// What only the generic twin needs ([`Mode::Gen`]).
    gen: generic::GenState,
}

const IND: &str = "    ";

/// The shortest decimal that reads back as `v` (`{:?}`), spelled as asked.
fn lit_text(v: f64, style: LitStyle, force_suffix: bool) -> String {
    let a = v.abs();
    let dbg = format!("{a:?}");
    let s = if force_suffix {
        format!("{dbg}_f64")
    } else {
        match style {
            LitStyle::Plain => dbg,
            LitStyle::Suffix => format!("{dbg}_f64"),
            LitStyle::Dot => {
                if a.fract() == 0.0 && a < 1e15 {
                    format!("{}.", a as u64)
                } else {
                    dbg
                }
            }
            LitStyle::Exp => exp_text(&dbg).unwrap_or(dbg),
        }
    };
    if v.is_sign_negative() {
        format!("(-{s})")
    } else {
        s
    }
}

/// `0.37` as `37e-2`, `2.0` as `2e0`; `None` when it would not read back
/// as the same value.
fn exp_text(dbg: &str) -> Option<String> {
    if dbg.contains('e') {
        return Some(dbg.to_string());
    }
    let (int, frac) = dbg.split_once('.')?;
    let frac = frac.trim_end_matches('0');
    let digits = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let s = format!("{digits}e-{}", frac.len());
    let s = if frac.is_empty() {
        format!("{digits}e0")
    } else {
        s
    };
    (s.parse::<f64>().ok()? == dbg.parse::<f64>().ok()?).then_some(s)
}

fn cmp_text(c: Cmp) -> &'static str {
    match c {
        Cmp::Lt => "<",
        Cmp::Le => "<=",
        Cmp::Gt => ">",
        Cmp::Ge => ">=",
        Cmp::Eq => "==",
        Cmp::Ne => "!=",
    }
}

fn aop_text(op: AOp) -> &'static str {
    match op {
        AOp::Set => "=",
        AOp::Add => "+=",
        AOp::Sub => "-=",
        AOp::Mul => "*=",
        AOp::Div => "/=",
    }
}

fn un_name(u: Un) -> &'static str {
    match u {
        Un::Sin => "sin",
        Un::Cos => "cos",
        Un::Tan => "tan",
        Un::Tanh => "tanh",
        Un::Atan => "atan",
        Un::Asinh => "asinh",
        Un::Exp => "exp",
        Un::Ln => "ln",
        Un::Ln1p => "ln_1p",
        Un::Sqrt => "sqrt",
        Un::Cbrt => "cbrt",
        Un::Recip => "recip",
        Un::Abs => "abs",
        Un::Powi(_) => "powi",
    }
}

fn bi_name(b: Bi) -> &'static str {
    match b {
        Bi::Powf => "powf",
        Bi::Max => "max",
        Bi::Min => "min",
        Bi::Hypot => "hypot",
        Bi::Atan2 => "atan2",
    }
}

fn ml_name(m: Ml) -> &'static str {
    match m {
        Ml::Sigmoid => "sigmoid",
        Ml::Softplus => "softplus",
        Ml::Relu => "relu",
    }
}

pub fn iexpr(e: &IExpr) -> String {
    match e {
        IExpr::Lit(n) => n.to_string(),
        IExpr::Var(v) => v.clone(),
        IExpr::Len(a) => format!("{a}.len()"),
        IExpr::Add(a, b) => format!("{} + {}", iexpr(a), iexpr(b)),
        IExpr::Mul(a, b) => format!("{} * {}", iexpr_atom(a), iexpr_atom(b)),
        IExpr::Rem(a, m) => match **a {
            IExpr::Add(..) | IExpr::Mul(..) => format!("({}) % {m}", iexpr(a)),
            _ => format!("{} % {m}", iexpr(a)),
        },
    }
}

/// `a..b` (`a..=b`), `(a..b).step_by(k).rev()`: a `for` loop's range.
fn range_text(range: &Range) -> String {
    let base = format!(
        "{}..{}{}",
        iexpr_atom(&range.lo),
        if range.inclusive { "=" } else { "" },
        iexpr_atom(&range.hi)
    );
    let mut r = base.clone();
    if range.step.is_some() || range.rev {
        r = format!("({base})");
        if let Some(k) = range.step {
            r += &format!(".step_by({k})");
        }
        if range.rev {
            r += ".rev()";
        }
    }
    r
}

/// A range as the receiver of an iterator chain: in parentheses.
fn range_chain_text(range: &Range) -> String {
    let r = range_text(range);
    if r.starts_with('(') {
        r
    } else {
        format!("({r})")
    }
}

/// The type of the enum parameter of `enum_match`.
pub const ENUM_TY: &str = "Mode0";

fn iexpr_atom(e: &IExpr) -> String {
    match e {
        IExpr::Lit(_) | IExpr::Var(_) | IExpr::Len(_) => iexpr(e),
        _ => format!("({})", iexpr(e)),
    }
}

impl R {
    fn new(mode: Mode, ref_params: HashSet<String>, array_params: HashSet<String>) -> R {
        R {
            mode,
            deref: Vec::new(),
            suffix: 0,
            ref_params,
            array_params,
            ckpt: mode == Mode::Plain,
            ret: Ret::Float,
            muts: Vec::new(),
            refs: Vec::new(),
            made: Vec::new(),
            lent: None,
            held: Vec::new(),
            gen: generic::GenState::default(),
        }
    }

    /// `Ok(e)` / `Some(e)` in a fallible function, else `e`.
    fn wrap_ok(&self, e: String) -> String {
        match self.ret {
            Ret::Result => format!("Ok({e})"),
            Ret::Option => format!("Some({e})"),
            Ret::Float | Ret::Unit | Ret::Struct | Ret::Array(_) | Ret::Tuple(_) | Ret::Made => e,
        }
    }

    /// `P0 { f0: a, .., n: i, w: v }` (`P0D { .. }` in the twin): every
    /// field named.
    fn struct_lit(&mut self, l: &StructLit) -> String {
        let mut fields: Vec<String> = Vec::new();
        for (k, e) in l.floats.iter().enumerate() {
            let e = self.expr(e);
            fields.push(format!("f{k}: {e}"));
        }
        if let Some((n, w)) = &l.grid {
            fields.push(format!("n: {}", iexpr(n)));
            let w = match w {
                VecInit::ToVec(a) => format!("{a}.to_vec()"),
                VecInit::Var(a) => a.clone(),
                VecInit::Clone(a) => format!("{a}.clone()"),
                VecInit::List(items) => {
                    let items: Vec<String> = items.iter().map(|e| self.expr(e)).collect();
                    format!("vec![{}]", items.join(", "))
                }
                VecInit::Fill(e, len) => {
                    let e = self.expr(e);
                    format!("vec![{e}; {len}]")
                }
            };
            fields.push(format!("w: {w}"));
        }
        format!("{} {{ {} }}", self.local_struct_ty(), fields.join(", "))
    }

    /// Where the local struct `q` is: `q` itself, or `q[k]` where it is
    /// held in a `Vec` (`struct_vec_locals`). Every other name as it is.
    fn place(&self, q: &str) -> String {
        match self.held.iter().find(|(n, _)| n == q) {
            Some((_, k)) => format!("{q}[{k}]"),
            None => q.to_string(),
        }
    }

    /// The type of the local structs (`struct_values`): the struct
    /// parameter `p0`'s, `P0` (its twin `P0D`); in `make` (`made_struct`)
    /// the one it returns, `P1` (`P1D`).
    fn local_struct_ty(&self) -> String {
        if self.ret == Ret::Made {
            made_name(self.mode)
        } else {
            struct_name("p0", self.mode)
        }
    }

    /// `f` (`f_dual` in the twin): the name a call of `f` uses.
    fn callee(&self, f: &str) -> String {
        match self.mode {
            Mode::Plain => f.to_string(),
            Mode::Dual => format!("{f}_dual"),
            Mode::Gen => format!("{f}_gen"),
        }
    }

    fn plain(&self) -> bool {
        self.mode == Mode::Plain
    }

    /// Code as a user writes it: the function or its generic twin (not
    /// the dual-number twin).
    fn user(&self) -> bool {
        self.mode != Mode::Dual
    }

    fn lit(&self, v: f64, style: LitStyle) -> String {
        match self.mode {
            Mode::Plain => lit_text(v, style, self.suffix > 0),
            Mode::Dual => format!("D::c({v:?})"),
            Mode::Gen => self.gen_lit(v, style),
        }
    }

    /// `e` where an operand goes: in parentheses unless atomic.
    fn atom(&mut self, e: &Expr) -> String {
        let s = self.expr(e);
        match e {
            Expr::Var(_)
            | Expr::Const(_)
            | Expr::IntCast(_)
            | Expr::Index(..)
            | Expr::Call(..)
            | Expr::TryCall(..)
            | Expr::Method(..)
            | Expr::Assoc(..)
            | Expr::ResultMethod { .. }
            | Expr::Sum(_)
            | Expr::MapSum { .. }
            | Expr::ZipSum { .. }
            | Expr::Fold { .. }
            | Expr::RangeSum { .. }
            | Expr::RangeFold { .. }
            | Expr::Un(..)
            | Expr::Bi(..)
            | Expr::MulAdd(..)
            | Expr::Ml(..) => s,
            Expr::Lit(..) if self.user() && (s.starts_with('(') || !s.starts_with('-')) => s,
            Expr::Lit(..) if !self.user() => s,
            _ => format!("({s})"),
        }
    }

    /// The receiver of a method call: typed, and never a bare literal.
    fn recv(&mut self, e: &Expr) -> String {
        let untyped = self.plain() && !is_typed(e);
        if untyped {
            self.suffix += 1;
        }
        let s = self.atom(e);
        if untyped {
            self.suffix -= 1;
        }
        match e {
            Expr::Lit(..) if self.user() && !s.starts_with('(') => format!("({s})"),
            _ => s,
        }
    }

    /// An expression whose type only its own tokens can give.
    fn typed_expr(&mut self, e: &Expr) -> String {
        let untyped = self.plain() && !is_typed(e);
        if untyped {
            self.suffix += 1;
        }
        let s = self.expr(e);
        if untyped {
            self.suffix -= 1;
        }
        s
    }

    fn float_ty(&self) -> &'static str {
        match self.mode {
            Mode::Plain => "f64",
            Mode::Dual => "D",
            Mode::Gen => "T",
        }
    }

    pub fn expr(&mut self, e: &Expr) -> String {
        match e {
            Expr::CallClosure(c, a) => {
                let a = self.typed_expr(a);
                format!("{c}({a})")
            }
            // The generic twin's structs are constants of `f64`s.
            Expr::Field(p, k) if self.mode == Mode::Gen => {
                format!("T::from_f64({}.f{k})", self.place(p))
            }
            Expr::Field(p, k) => format!("{}.f{k}", self.place(p)),
            Expr::Lit(v, style) => self.lit(*v, *style),
            Expr::Var(v) => {
                let text = if self
                    .deref
                    .iter()
                    .chain(&self.muts)
                    .chain(&self.refs)
                    .any(|d| d == v)
                {
                    format!("(*{v})")
                } else {
                    v.clone()
                };
                if self.mode == Mode::Gen && self.name_kind(v) == Some(generic::Name::F64) {
                    format!("T::from_f64({text})")
                } else {
                    text
                }
            }
            Expr::Const(c) => match self.mode {
                Mode::Plain => c.clone(),
                Mode::Dual => format!("D::c({c})"),
                Mode::Gen => format!("T::from_f64({c})"),
            },
            Expr::IntCast(i) => match self.mode {
                Mode::Plain => format!("({} as f64)", iexpr_atom(i)),
                Mode::Dual => format!("D::c({} as f64)", iexpr_atom(i)),
                Mode::Gen => format!("T::from_f64({} as f64)", iexpr_atom(i)),
            },
            Expr::Neg(a) => format!("-{}", self.atom(a)),
            Expr::Bin(op, a, b) => {
                let o = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    BinOp::Mul => "*",
                    BinOp::Div => "/",
                };
                format!("{} {o} {}", self.atom(a), self.atom(b))
            }
            Expr::Un(u, a, path) => {
                let name = un_name(*u);
                let arg = match u {
                    Un::Powi(k) => format!(", {k}"),
                    _ => String::new(),
                };
                if *path && self.gen_path_form() {
                    let inner = self.expr(a);
                    format!("{}::{name}({inner}{arg})", self.float_ty())
                } else {
                    let r = self.recv(a);
                    let arg = arg.trim_start_matches(", ").to_string();
                    format!("{r}.{name}({arg})")
                }
            }
            Expr::Bi(b, x, y, path) => {
                let name = bi_name(*b);
                if *path && self.gen_path_form() {
                    let (x, y) = (self.expr(x), self.expr(y));
                    format!("{}::{name}({x}, {y})", self.float_ty())
                } else {
                    let r = self.recv(x);
                    let y = self.expr(y);
                    format!("{r}.{name}({y})")
                }
            }
            Expr::MulAdd(a, b, c) => {
                let r = self.recv(a);
                let (b, c) = (self.expr(b), self.expr(c));
                format!("{r}.mul_add({b}, {c})")
            }
            Expr::Ml(m, a) => {
                let inner = self.typed_expr(a);
                if self.user() {
                    format!("autodiff::{}({inner})", ml_name(*m))
                } else {
                    // `crate::dual::` or `crate::hyper::`, as the module
                    // imports them.
                    format!("{}({inner})", ml_name(*m))
                }
            }
            // An element of a constant struct's `Vec<f64>` field.
            Expr::Index(a, i) if self.mode == Mode::Gen && a.contains('.') => {
                format!("T::from_f64({a}[{}])", iexpr(i))
            }
            Expr::Index(a, i) => format!("{a}[{}]", iexpr(i)),
            Expr::If(c, a, b) => {
                let mut s = format!("if {} {} else ", self.cond(c), self.inline_block(a));
                if b.stmts.is_empty() {
                    if let Expr::If(..) = b.tail {
                        s += &self.expr(&b.tail);
                        return s;
                    }
                }
                s += &self.inline_block(b);
                s
            }
            Expr::Match(i, arms, d) => {
                let mut s = format!("match {} {{ ", iexpr(i));
                for (pats, e) in arms {
                    let p: Vec<String> = pats.iter().map(|p| p.to_string()).collect();
                    let _ = write!(s, "{} => {}, ", p.join(" | "), self.expr(e));
                }
                let _ = write!(s, "_ => {} }}", self.expr(d));
                s
            }
            Expr::Call(f, a) => {
                let (lets, args) = self.call_arg_list(f, a);
                let f = self.callee_of(f, a);
                generic::in_block(lets, format!("{f}({args})"))
            }
            Expr::TryCall(f, a, how) => {
                let (lets, args) = self.call_arg_list(f, a);
                let f = self.callee_of(f, a);
                let call = match how {
                    Try::Unwrap => format!("{f}({args}).unwrap()"),
                    Try::Expect(m) => format!("{f}({args}).expect({m:?})"),
                    Try::Question => format!("{f}({args})?"),
                };
                generic::in_block(lets, call)
            }
            Expr::Method(recv, m, a, path) => {
                let (lets, args) = self.call_arg_list(m, a);
                let m = self.callee_of(m, a);
                let recv = self.place(recv);
                let call = if *path && self.user() {
                    self.path_call(&recv, &m, args)
                } else {
                    format!("{recv}.{m}({args})")
                };
                generic::in_block(lets, call)
            }
            // The twins' helper is a free function.
            Expr::Assoc(ty, f, a) => {
                let (lets, args) = self.call_arg_list(f, a);
                let f = self.callee_of(f, a);
                let call = if self.plain() {
                    format!("{ty}::{f}({args})")
                } else {
                    format!("{f}({args})")
                };
                generic::in_block(lets, call)
            }
            Expr::ResultMethod { func, args, method } => {
                let (lets, args) = self.call_arg_list(func, args);
                let (f, m) = (self.callee(func), self.callee(method));
                generic::in_block(lets, format!("{f}({args}).{m}()"))
            }
            // A constant struct's `Vec<f64>` field, summed as `f64`s.
            Expr::Sum(a) if self.mode == Mode::Gen && a.contains('.') => {
                format!("T::from_f64({a}.iter().sum::<f64>())")
            }
            Expr::Sum(a) => format!("{a}.iter().sum::<{}>()", self.float_ty()),
            Expr::MapSum {
                arr,
                var,
                by_ref,
                body,
            } => {
                let body = self.f64_elements(arr, &[var], |r| r.closure_body(var, *by_ref, body));
                let pat = if *by_ref {
                    format!("&{var}")
                } else {
                    var.clone()
                };
                format!(
                    "{arr}.iter().map(|{pat}| {body}).sum::<{}>()",
                    self.float_ty()
                )
            }
            Expr::ZipSum { a, b, va, vb, body } => {
                let body =
                    self.f64_elements(a, &[va], |r| r.f64_elements(b, &[vb], |r| r.expr(body)));
                format!(
                    "{a}.iter().zip({b}.iter()).map(|(&{va}, &{vb})| {body}).sum::<{}>()",
                    self.float_ty()
                )
            }
            Expr::Fold {
                arr,
                init,
                acc,
                var,
                by_ref,
                body,
            } => {
                let init = self.typed_expr(init);
                let body = self.f64_elements(arr, &[var], |r| r.closure_body(var, *by_ref, body));
                let pat = if *by_ref {
                    format!("&{var}")
                } else {
                    var.clone()
                };
                format!("{arr}.iter().fold({init}, |{acc}, {pat}| {body})")
            }
            Expr::Block(b) => self.inline_block(b),
            Expr::RangeSum {
                range,
                var,
                filter,
                body,
            } => {
                let r = range_chain_text(range);
                let body = self.expr(body);
                let filter = match filter {
                    Some((m, k)) => format!(".filter(|{var}| {var} % {m} == {k})"),
                    None => String::new(),
                };
                format!(
                    "{r}{filter}.map(|{var}| {body}).sum::<{}>()",
                    self.float_ty()
                )
            }
            Expr::RangeFold {
                range,
                init,
                acc,
                var,
                body,
            } => {
                let r = range_chain_text(range);
                let init = self.typed_expr(init);
                let body = self.expr(body);
                format!("{r}.fold({init}, |{acc}, {var}| {body})")
            }
        }
    }

    /// `Ty::m(recv, args)` of a method called by its path (`method_path`):
    /// `P0::m0(p0, x)` of a parameter (a reference), `P0::m0(&q, x)` of a
    /// local struct or of what `make` returned (`P1::energy(&p)`),
    /// `Self::m0(self, x)` in a method.
    fn path_call(&self, recv: &str, m: &str, args: String) -> String {
        let (ty, recv) = if recv == "self" {
            ("Self".to_string(), recv.to_string())
        } else if self.made.iter().any(|p| p == recv) {
            (made_name(self.mode), format!("&{recv}"))
        } else if recv == "p0" || self.lent.as_deref() == Some(recv) {
            (struct_name("p0", self.mode), recv.to_string())
        } else {
            (self.local_struct_ty(), format!("&{recv}"))
        };
        if args.is_empty() {
            format!("{ty}::{m}({recv})")
        } else {
            format!("{ty}::{m}({recv}, {args})")
        }
    }

    /// A call's arguments, comma-separated.
    fn args(&mut self, args: &[Arg]) -> String {
        let args: Vec<String> = args.iter().map(|a| self.arg(a)).collect();
        args.join(", ")
    }

    /// One argument of a call.
    fn arg(&mut self, a: &Arg) -> String {
        match a {
            Arg::F(e) => self.expr(e),
            Arg::I(i) => iexpr(i),
            Arg::B(b) => b.to_string(),
            Arg::S(q) => format!("&{}", self.place(q)),
            // A result passed on whole: by value or by reference as the
            // parameter takes it; the twin's array parameters are all
            // `&[D]`.
            Arg::W { by_ref, value } => {
                let v = match value {
                    Whole::Var(n) => n.clone(),
                    Whole::Call(f, args) => {
                        let (lets, args) = self.call_arg_list(f, args);
                        generic::in_block(lets, format!("{}({args})", self.callee(f)))
                    }
                };
                if *by_ref || !self.user() {
                    format!("&{v}")
                } else {
                    v
                }
            }
            Arg::A(arr) => {
                // A reference to the array, as the slice parameter takes.
                let by_ref = if self.user() {
                    self.ref_params.contains(arr)
                } else {
                    self.array_params.contains(arr)
                };
                if by_ref {
                    arr.clone()
                } else {
                    format!("&{arr}")
                }
            }
        }
    }

    /// The arguments of a call of the function `f`, and the `let`s to
    /// write before the call: none but in the generic twin, where a float
    /// argument whose type `#[grad]` cannot see, given to a function
    /// returning a float, is bound by a typed `let` first
    /// ([`R::gen_hoisted_args`]).
    fn call_arg_list(&mut self, f: &str, args: &[Arg]) -> (Vec<String>, String) {
        if self.mode == Mode::Gen {
            return self.gen_hoisted_args(f, args);
        }
        (Vec::new(), self.args(args))
    }

    fn closure_body(&mut self, var: &str, by_ref: bool, body: &Expr) -> String {
        if !by_ref {
            self.deref.push(var.to_string());
        }
        let s = self.expr(body);
        if !by_ref {
            self.deref.pop();
        }
        s
    }

    fn inline_block(&mut self, b: &Block) -> String {
        let mut lines = Vec::new();
        let tail = self.stmts_then(&b.stmts, 0, &mut lines, |r| r.expr(&b.tail));
        if lines.is_empty() {
            format!("{{ {tail} }}")
        } else {
            let body: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
            format!("{{ {} {tail} }}", body.join(" "))
        }
    }

    pub fn cond(&mut self, c: &Cond) -> String {
        match c {
            Cond::F(op, a, b) => format!("{} {} {}", self.atom(a), cmp_text(*op), self.atom(b)),
            Cond::I(op, a, b) => format!("{} {} {}", iexpr(a), cmp_text(*op), iexpr(b)),
            Cond::B(b, not) => format!("{}{b}", if *not { "!" } else { "" }),
            Cond::And(a, b) => {
                let a = self.cond_in(a, true);
                let b = self.cond_in(b, true);
                format!("{a} && {b}")
            }
            Cond::Or(a, b) => {
                let a = self.cond_in(a, false);
                let b = self.cond_in(b, false);
                format!("{a} || {b}")
            }
        }
    }

    fn cond_in(&mut self, c: &Cond, in_and: bool) -> String {
        let s = self.cond(c);
        match c {
            Cond::Or(..) if in_and => format!("({s})"),
            Cond::And(..) if !in_and => format!("({s})"),
            _ => s,
        }
    }

    fn stmts(&mut self, ss: &[Stmt], depth: usize, out: &mut Vec<String>) {
        self.stmts_then(ss, depth, out, |_| ());
    }

    /// The statements `ss`, then `then` (the tail of their block) in their
    /// scope: the names they bind are forgotten after it (the generic
    /// twin's [`generic::Name`]s).
    fn stmts_then<X>(
        &mut self,
        ss: &[Stmt],
        depth: usize,
        out: &mut Vec<String>,
        then: impl FnOnce(&mut R) -> X,
    ) -> X {
        let scope = self.gen.names.len();
        for s in ss {
            self.stmt(s, depth, out);
        }
        let x = then(self);
        self.gen.names.truncate(scope);
        x
    }

    /// An arm `pat => ..` of a `match` statement: a lone jump or
    /// assignment after the arrow (`0 => break,`, `1 => s += x,`), else a
    /// block.
    fn arm(&mut self, pat: &str, body: &[Stmt], d: usize, out: &mut Vec<String>) {
        let single = match body {
            [] => Some("{}".to_string()),
            [Stmt::Break] => Some("break,".to_string()),
            [Stmt::Continue] => Some("continue,".to_string()),
            [Stmt::Return(e)] => {
                let e = self.expr(e);
                Some(format!("return {},", self.wrap_ok(e)))
            }
            [Stmt::Assign { name, op, value }] if !self.muts.contains(name) => {
                let e = self.expr(value);
                Some(format!("{name} {} {e},", aop_text(*op)))
            }
            _ => None,
        };
        match single {
            Some(s) => Self::line(d, out, format!("{pat} => {s}")),
            None => {
                Self::line(d, out, format!("{pat} => {{"));
                self.stmts(body, d + 1, out);
                Self::line(d, out, "}".to_string());
            }
        }
    }

    /// `(a, b)` of a tuple's arm, each element typed (a literal alone
    /// gets `_f64`: its variable's methods need a type).
    fn tuple_text(&mut self, a: &TupleArm) -> String {
        let items: Vec<String> = a.items.iter().map(|e| self.typed_expr(e)).collect();
        format!("({})", items.join(", "))
    }

    /// A tuple's arm as lines: its `let`s, then the tuple.
    fn tuple_arm_lines(&mut self, a: &TupleArm, d: usize, out: &mut Vec<String>) {
        let t = self.stmts_then(&a.stmts, d, out, |r| r.tuple_text(a));
        Self::line(d, out, t);
    }

    /// `pat => (a, b),`, or `pat => { let t = ..; (a, b) }`.
    fn tuple_match_arm(&mut self, pat: &str, a: &TupleArm, d: usize, out: &mut Vec<String>) {
        if a.stmts.is_empty() {
            let t = self.tuple_text(a);
            Self::line(d, out, format!("{pat} => {t},"));
        } else {
            Self::line(d, out, format!("{pat} => {{"));
            self.tuple_arm_lines(a, d + 1, out);
            Self::line(d, out, "}".to_string());
        }
    }

    /// `for (i, x) in arr.iter().enumerate().filter(|(i, _)| ..) { .. }`
    /// (`filter_names`), the body reading `*x`; in the dual-number twin
    /// `for (i, &x) in arr.iter().enumerate() { if !(..) { continue; } ..
    /// }`.
    #[allow(clippy::too_many_arguments)]
    fn filtered_loop(
        &mut self,
        i: &str,
        var: &String,
        arr: &str,
        f: &Filter,
        body: &[Stmt],
        d: usize,
        out: &mut Vec<String>,
    ) {
        let user = self.user();
        let (star, stars) = if user { ("*", "**") } else { ("", "") };
        let mut tests = Vec::new();
        if let Some((m, op, k)) = f.index {
            let lhs = match m {
                Some(m) => format!("{star}{i} % {m}"),
                None => format!("{star}{i}"),
            };
            tests.push(format!("{lhs} {} {k}", cmp_text(op)));
        }
        if let Some((op, v)) = &f.element {
            let v = self.atom(v);
            let test = format!("{stars}{var} {} {v}", cmp_text(*op));
            if f.element_first {
                tests.insert(0, test);
            } else {
                tests.push(test);
            }
        }
        let cond = tests.join(" && ");
        if user {
            let x = if f.element.is_some() {
                var.as_str()
            } else {
                "_"
            };
            Self::line(
                d,
                out,
                format!(
                    "for ({i}, {var}) in {arr}.iter().enumerate().filter(|({i}, {x})| {cond}) {{"
                ),
            );
            self.deref.push(var.clone());
            self.f64_elements(arr, &[var], |r| r.stmts(body, d + 1, out));
            self.deref.pop();
        } else {
            Self::line(
                d,
                out,
                format!("for ({i}, &{var}) in {arr}.iter().enumerate() {{"),
            );
            Self::line(d + 1, out, format!("if !({cond}) {{"));
            Self::line(d + 2, out, "continue;".to_string());
            Self::line(d + 1, out, "}".to_string());
            self.f64_elements(arr, &[var], |r| r.stmts(body, d + 1, out));
        }
        Self::line(d, out, "}".to_string());
    }

    /// A loop over the `Vec` of structs holding the local struct `q`
    /// (`struct_vec_loops`), the body after `let x = p.fk;` of its element
    /// `p` (in every twin: the `Vec` holds each twin's structs).
    #[allow(clippy::too_many_arguments)]
    fn held_loop(
        &mut self,
        idx: &Option<String>,
        var: &str,
        q: &str,
        how: &Held,
        k: u64,
        body: &[Stmt],
        d: usize,
        out: &mut Vec<String>,
    ) {
        let p = format!("{var}_el");
        let i = idx.as_deref().unwrap_or("_");
        let head = match how {
            Held::From(lo) => format!("for {p} in &{q}[{lo}..] {{"),
            Held::To(hi) => format!("for {p} in {q}[..{hi}].iter() {{"),
            Held::EnumSkip(n) => format!("for ({i}, {p}) in {q}.iter().enumerate().skip({n}) {{"),
            Held::RevEnumTake(n) => {
                format!("for ({i}, {p}) in {q}.iter().rev().enumerate().take({n}) {{")
            }
            Held::Filter(f, op, v) => {
                let v = self.lit(*v, LitStyle::Plain);
                let field = self.expr(&Expr::Field(p.clone(), *f));
                let op = cmp_text(*op);
                format!("for {p} in {q}.iter().filter(|{p}| {field} {op} {v}) {{")
            }
            Held::Windows => format!("for {p} in {q}.windows(2) {{"),
        };
        Self::line(d, out, head);
        let value = match how {
            Held::Windows => {
                let (a, b) = (format!("{p}[1]"), format!("{p}[0]"));
                let a = self.expr(&Expr::Field(a, k));
                let b = self.expr(&Expr::Field(b, k));
                format!("{a} - {b}")
            }
            _ => self.expr(&Expr::Field(p.clone(), k)),
        };
        Self::line(d + 1, out, format!("let {var} = {value};"));
        self.stmts(body, d + 1, out);
        Self::line(d, out, "}".to_string());
    }

    fn line(depth: usize, out: &mut Vec<String>, s: String) {
        out.push(format!("{}{s}", IND.repeat(depth)));
    }

    fn stmt(&mut self, s: &Stmt, d: usize, out: &mut Vec<String>) {
        let ty = self.float_ty();
        match s {
            Stmt::Let {
                name,
                mutable,
                typed,
                init,
            } => {
                let m = if *mutable { "mut " } else { "" };
                let e = self.expr(init);
                let annot = self.float_annot(name, *typed || !is_typed(init), *typed);
                Self::line(d, out, format!("let {m}{name}{annot} = {e};"));
            }
            Stmt::Deferred { name, init, typed } => {
                let untyped = match init {
                    DeferredInit::Direct(e) => !is_typed(e),
                    DeferredInit::Branch(_, a, b) => !is_typed(&a.tail) && !is_typed(&b.tail),
                };
                let annot = self.float_annot(name, untyped || *typed, *typed);
                Self::line(d, out, format!("let {name}{annot};"));
                match init {
                    DeferredInit::Direct(e) => {
                        let e = self.expr(e);
                        Self::line(d, out, format!("{name} = {e};"));
                    }
                    DeferredInit::Branch(c, a, b) => {
                        let c = self.cond(c);
                        Self::line(d, out, format!("if {c} {{"));
                        let t = self.stmts_then(&a.stmts, d + 1, out, |r| r.expr(&a.tail));
                        Self::line(d + 1, out, format!("{name} = {t};"));
                        Self::line(d, out, "} else {".to_string());
                        let t = self.stmts_then(&b.stmts, d + 1, out, |r| r.expr(&b.tail));
                        Self::line(d + 1, out, format!("{name} = {t};"));
                        Self::line(d, out, "}".to_string());
                    }
                }
            }
            Stmt::Assign { name, op, value } => {
                let e = self.expr(value);
                let star = if self.muts.contains(name) { "*" } else { "" };
                Self::line(d, out, format!("{star}{name} {} {e};", aop_text(*op)));
            }
            Stmt::LetClosure { name, param, body } => {
                let body = self.expr(body);
                Self::line(d, out, format!("let {name} = |{param}: {ty}| {body};"));
            }
            Stmt::LetArr { name, typed, init } => {
                let n = init.len();
                let text = match init {
                    ArrInit::Fill { len, vec } => {
                        let zero = match self.mode {
                            Mode::Plain if *typed => "0.0".to_string(),
                            Mode::Plain => "0.0_f64".to_string(),
                            Mode::Dual => "D::c(0.0)".to_string(),
                            Mode::Gen => self.gen_zero(*vec),
                        };
                        self.bind(name, generic::Name::Typed);
                        let annot = if !self.plain() || *typed {
                            if *vec {
                                format!(": Vec<{ty}>")
                            } else {
                                format!(": [{ty}; {len}]")
                            }
                        } else {
                            String::new()
                        };
                        if *vec {
                            format!("let mut {name}{annot} = vec![{zero}; {len}];")
                        } else {
                            format!("let mut {name}{annot} = [{zero}; {len}];")
                        }
                    }
                    ArrInit::List { items, vec } => {
                        let all_untyped = items.iter().all(|e| !is_typed(e));
                        let annot = if !self.plain() || *typed {
                            if *vec {
                                format!(": Vec<{ty}>")
                            } else {
                                format!(": [{ty}; {n}]")
                            }
                        } else {
                            String::new()
                        };
                        let force = self.plain() && !*typed && all_untyped;
                        if force {
                            self.suffix += 1;
                        }
                        self.bind(name, generic::Name::Typed);
                        let items: Vec<String> =
                            self.in_vec(*vec, |r| items.iter().map(|e| r.expr(e)).collect());
                        if force {
                            self.suffix -= 1;
                        }
                        if *vec {
                            format!("let mut {name}{annot} = vec![{}];", items.join(", "))
                        } else {
                            format!("let mut {name}{annot} = [{}];", items.join(", "))
                        }
                    }
                };
                Self::line(d, out, text);
            }
            Stmt::Store {
                arr,
                idx,
                op,
                value,
            } => {
                let e = self.expr(value);
                let text = if self.plain() || *op == AOp::Set {
                    format!("{arr}[{}] {} {e};", iexpr(idx), aop_text(*op))
                } else if self.mode == Mode::Gen {
                    // `T`'s `+=` is a trait's method, as `D`'s: a right
                    // side reading the array is bound first, as a user
                    // writes it.
                    match self.gen_bind_reading(arr, e) {
                        (Some(bind), e) => {
                            Self::line(d, out, bind);
                            format!("{arr}[{}] {} {e};", iexpr(idx), aop_text(*op))
                        }
                        (None, e) => format!("{arr}[{}] {} {e};", iexpr(idx), aop_text(*op)),
                    }
                } else {
                    // `D`'s `+=` is a method call: borrowing the element
                    // before evaluating a right side that reads the array
                    // would not compile. f64's evaluates the right side first.
                    format!(
                        "{{ let r = {e}; {arr}[{}] {} r; }}",
                        iexpr(idx),
                        aop_text(*op)
                    )
                };
                Self::line(d, out, text);
            }
            Stmt::ArrAssign { dst, src } => {
                let text = match src {
                    ArrSrc::Move(n) => format!("{dst} = {n};"),
                    ArrSrc::Swap(n) => format!("std::mem::swap(&mut {dst}, &mut {n});"),
                    ArrSrc::Copy(n) => format!("{dst}.copy_from_slice(&{n});"),
                    ArrSrc::Fill(e) => {
                        let e = self.expr(e);
                        format!("{dst}.fill({e});")
                    }
                    ArrSrc::List { items, vec } => {
                        let items: Vec<String> =
                            self.in_vec(*vec, |r| items.iter().map(|e| r.expr(e)).collect());
                        if *vec {
                            format!("{dst} = vec![{}];", items.join(", "))
                        } else {
                            format!("{dst} = [{}];", items.join(", "))
                        }
                    }
                    ArrSrc::Call(f, args) => {
                        let (lets, args) = self.call_arg_list(f, args);
                        for l in lets {
                            Self::line(d, out, l);
                        }
                        format!("{dst} = {}({args});", self.callee(f))
                    }
                };
                Self::line(d, out, text);
            }
            Stmt::LetVec { name, typed } => {
                let annot = if self.mode == Mode::Dual || *typed {
                    self.bind(name, generic::Name::Typed);
                    format!(": Vec<{ty}>")
                } else {
                    self.bind(name, generic::Name::Untyped);
                    String::new()
                };
                Self::line(d, out, format!("let mut {name}{annot} = Vec::new();"));
            }
            Stmt::Push { arr, value } => {
                let e = self.expr(value);
                Self::line(d, out, format!("{arr}.push({e});"));
            }
            Stmt::If { cond, then, els } => {
                let c = self.cond(cond);
                Self::line(d, out, format!("if {c} {{"));
                self.stmts(then, d + 1, out);
                let mut els = els.as_ref();
                loop {
                    match els {
                        None => {
                            Self::line(d, out, "}".to_string());
                            break;
                        }
                        Some(e) => {
                            if let [Stmt::If {
                                cond,
                                then,
                                els: inner,
                            }] = e.as_slice()
                            {
                                let c = self.cond(cond);
                                Self::line(d, out, format!("}} else if {c} {{"));
                                self.stmts(then, d + 1, out);
                                els = inner.as_ref();
                            } else {
                                Self::line(d, out, "} else {".to_string());
                                self.stmts(e, d + 1, out);
                                Self::line(d, out, "}".to_string());
                                break;
                            }
                        }
                    }
                }
            }
            Stmt::Break => Self::line(d, out, "break;".to_string()),
            Stmt::Continue => Self::line(d, out, "continue;".to_string()),
            Stmt::Return(e) => {
                let e = self.expr(e);
                let e = self.wrap_ok(e);
                Self::line(d, out, format!("return {e};"));
            }
            Stmt::ReturnVoid => Self::line(d, out, "return;".to_string()),
            Stmt::ReturnErr(m) => {
                let text = match self.ret {
                    Ret::Option => "return None;".to_string(),
                    _ => format!("return Err({m:?}.to_string());"),
                };
                Self::line(d, out, text);
            }
            Stmt::WriterCall { name, lent, args } => {
                let mut all: Vec<String> = lent.iter().map(|v| format!("&mut {v}")).collect();
                let (lets, args) = self.call_arg_list(name, args);
                for l in lets {
                    Self::line(d, out, l);
                }
                if !args.is_empty() {
                    all.push(args);
                }
                let f = self.callee(name);
                Self::line(d, out, format!("{f}({});", all.join(", ")));
            }
            Stmt::Match {
                scrut,
                arms,
                default,
            } => {
                Self::line(d, out, format!("match {} {{", iexpr(scrut)));
                for (pat, body) in arms {
                    let p = match pat {
                        MatchPat::Lits(l) => l
                            .iter()
                            .map(|k| k.to_string())
                            .collect::<Vec<_>>()
                            .join(" | "),
                        MatchPat::Guard { bind, op, k } => {
                            format!("{bind} if {bind} {} {k}", cmp_text(*op))
                        }
                    };
                    self.arm(&p, body, d + 1, out);
                }
                self.arm("_", default, d + 1, out);
                Self::line(d, out, "}".to_string());
            }
            Stmt::LetTuple { names, init } => {
                for n in names {
                    self.bind(n, generic::Name::Untyped);
                }
                let annot = if self.user() {
                    String::new()
                } else {
                    format!(": ({})", vec!["D"; names.len()].join(", "))
                };
                let head = format!("let ({}){annot} = ", names.join(", "));
                match init {
                    TupleInit::Block(a) => {
                        Self::line(d, out, format!("{head}{{"));
                        self.tuple_arm_lines(a, d + 1, out);
                        Self::line(d, out, "};".to_string());
                    }
                    TupleInit::If(c, a, b) => {
                        let c = self.cond(c);
                        Self::line(d, out, format!("{head}if {c} {{"));
                        self.tuple_arm_lines(a, d + 1, out);
                        Self::line(d, out, "} else {".to_string());
                        self.tuple_arm_lines(b, d + 1, out);
                        Self::line(d, out, "};".to_string());
                    }
                    TupleInit::Match(i, arms, def) => {
                        Self::line(d, out, format!("{head}match {} {{", iexpr(i)));
                        for (pats, a) in arms {
                            let p: Vec<String> = pats.iter().map(|k| k.to_string()).collect();
                            self.tuple_match_arm(&p.join(" | "), a, d + 1, out);
                        }
                        self.tuple_match_arm("_", def, d + 1, out);
                        Self::line(d, out, "};".to_string());
                    }
                }
            }
            Stmt::LetStruct {
                name,
                mutable,
                init,
                held,
            } => {
                let m = if *mutable { "mut " } else { "" };
                let e = match init {
                    StructInit::Lit(l) => self.struct_lit(l),
                    // A held struct is not used again after its move: a
                    // copy is the same.
                    StructInit::Move(q) if self.place(q) != *q => {
                        format!("{}.clone()", self.place(q))
                    }
                    StructInit::Move(q) => q.clone(),
                    StructInit::Clone(q) => format!("{}.clone()", self.place(q)),
                    StructInit::Update(given, q) => {
                        let q = self.place(q);
                        let mut fields = Vec::new();
                        for (k, e) in given {
                            let e = self.expr(e);
                            fields.push(format!("f{k}: {e}"));
                        }
                        format!(
                            "{} {{ {}, ..{q} }}",
                            self.local_struct_ty(),
                            fields.join(", ")
                        )
                    }
                };
                let e = match (held, init) {
                    (Some(k), StructInit::Lit(l)) => {
                        self.held.push((name.clone(), *k));
                        // The elements before it: constant structs.
                        let mut items: Vec<String> = (0..*k)
                            .map(|j| {
                                let floats = (0..l.floats.len())
                                    .map(|f| {
                                        Expr::Lit(
                                            0.25 + 0.5 * (j + f as u64) as f64,
                                            LitStyle::Plain,
                                        )
                                    })
                                    .collect();
                                self.struct_lit(&StructLit { floats, grid: None })
                            })
                            .collect();
                        items.push(e);
                        format!("vec![{}]", items.join(", "))
                    }
                    _ => e,
                };
                Self::line(d, out, format!("let {m}{name} = {e};"));
            }
            Stmt::FieldAssign {
                name,
                field,
                op,
                value,
            } => {
                let e = self.expr(value);
                let name = self.place(name);
                let text = if self.plain() || *op == AOp::Set {
                    format!("{name}.f{field} {} {e};", aop_text(*op))
                } else {
                    // As a store's: the right side first, then `D`'s `+=`.
                    format!("{{ let r = {e}; {name}.f{field} {} r; }}", aop_text(*op))
                };
                Self::line(d, out, text);
            }
            Stmt::StructStep { name, method, args } => {
                let args = self.args(args);
                let m = self.callee(method);
                let name = self.place(name);
                Self::line(d, out, format!("{name} = {name}.{m}({args});"));
            }
            Stmt::For {
                var,
                range,
                body,
                ckpt,
            } => {
                if let (Some(c), true) = (ckpt, self.ckpt) {
                    let what = if c.every { "every" } else { "snapshots" };
                    Self::line(
                        d,
                        out,
                        format!("#[checkpoint({what} = {})]", iexpr(&c.count)),
                    );
                }
                let r = range_text(range);
                Self::line(d, out, format!("for {var} in {r} {{"));
                self.stmts(body, d + 1, out);
                Self::line(d, out, "}".to_string());
            }
            Stmt::ForEach {
                idx,
                var,
                arr,
                body,
                held: Some((how, k)),
                ..
            } => self.held_loop(idx, var, arr, how, *k, body, d, out),
            Stmt::ForEach {
                idx: Some(i),
                var,
                arr,
                body,
                filter: Some(f),
                ..
            } => self.filtered_loop(i, var, arr, f, body, d, out),
            Stmt::ForEach {
                idx,
                var,
                arr,
                body,
                ..
            } => {
                let head = match idx {
                    Some(i) => format!("for ({i}, &{var}) in {arr}.iter().enumerate() {{"),
                    None => {
                        if self.user() && self.ref_params.contains(arr) {
                            format!("for &{var} in {arr} {{")
                        } else {
                            format!("for &{var} in {arr}.iter() {{")
                        }
                    }
                };
                Self::line(d, out, head);
                self.f64_elements(arr, &[var], |r| r.stmts(body, d + 1, out));
                Self::line(d, out, "}".to_string());
            }
            Stmt::While {
                counter,
                limit,
                cond,
                body,
            } => {
                Self::line(d, out, format!("let mut {counter}: usize = 0;"));
                let c = match cond {
                    Some(c) => format!(" && {}", self.cond_in(c, true)),
                    None => String::new(),
                };
                Self::line(d, out, format!("while {counter} < {limit}{c} {{"));
                Self::line(d + 1, out, format!("{counter} += 1;"));
                self.stmts(body, d + 1, out);
                Self::line(d, out, "}".to_string());
            }
            Stmt::Loop {
                counter,
                limit,
                body,
            } => {
                Self::line(d, out, format!("let mut {counter}: usize = 0;"));
                Self::line(d, out, "loop {".to_string());
                Self::line(d + 1, out, format!("{counter} += 1;"));
                Self::line(d + 1, out, format!("if {counter} > {limit} {{"));
                Self::line(d + 2, out, "break;".to_string());
                Self::line(d + 1, out, "}".to_string());
                self.stmts(body, d + 1, out);
                Self::line(d, out, "}".to_string());
            }
            Stmt::LetCall { pat, func, args } => {
                let (lets, args) = self.call_arg_list(func, args);
                for l in lets {
                    Self::line(d, out, l);
                }
                let f = self.callee(func);
                let pat = match pat {
                    // Passed on whole: the generic twin states its type
                    // (README: `#[grad(hessian)]` refuses a call given a
                    // value whose type it does not see).
                    CallPat::Passed(n) if self.mode == Mode::Gen => {
                        self.bind(n, generic::Name::Typed);
                        format!("{n}: {}", self.gen_ret(func))
                    }
                    CallPat::Whole(n) | CallPat::Passed(n) => {
                        self.bind(n, generic::Name::Untyped);
                        n.clone()
                    }
                    CallPat::Array(ns) => format!("[{}]", ns.join(", ")),
                    CallPat::Tuple(ns) => format!("({})", ns.join(", ")),
                    // The type stated, as `made_struct` asks.
                    CallPat::Made(n) => {
                        self.made.push(n.clone());
                        format!("{n}: {}", made_name(self.mode))
                    }
                };
                Self::line(d, out, format!("let {pat} = {f}({args});"));
            }
            Stmt::LetLoop {
                name,
                typed,
                counter,
                limit,
                body,
                exit,
                label,
            } => {
                let annot = self.float_annot(name, *typed || !is_typed(exit), *typed);
                let label = label
                    .as_ref()
                    .map(|l| format!("'{l}: "))
                    .unwrap_or_default();
                Self::line(d, out, format!("let mut {counter}: usize = 0;"));
                Self::line(d, out, format!("let {name}{annot} = {label}loop {{"));
                Self::line(d + 1, out, format!("{counter} += 1;"));
                let e = self.stmts_then(body, d + 1, out, |r| r.expr(exit));
                Self::line(d + 1, out, format!("if {counter} > {limit} {{"));
                Self::line(d + 2, out, format!("break {e};"));
                Self::line(d + 1, out, "}".to_string());
                Self::line(d, out, "};".to_string());
            }
            Stmt::BreakValue(e) => {
                let e = self.expr(e);
                Self::line(d, out, format!("break {e};"));
            }
            Stmt::BreakValueTo(l, e) => {
                let e = self.expr(e);
                Self::line(d, out, format!("break '{l} {e};"));
            }
            Stmt::Labeled { label, body } => {
                let mut lines = Vec::new();
                self.stmt(body, d, &mut lines);
                let head = lines
                    .iter()
                    .position(|l| {
                        let t = l.trim_start();
                        t.starts_with("for ") || t.starts_with("while ") || t.starts_with("loop ")
                    })
                    .expect("a labeled loop");
                let t = lines[head].trim_start().to_string();
                lines[head] = format!("{}'{label}: {t}", IND.repeat(d));
                out.extend(lines);
            }
            Stmt::BreakTo(l) => Self::line(d, out, format!("break '{l};")),
            Stmt::ContinueTo(l) => Self::line(d, out, format!("continue '{l};")),
            Stmt::EnumMatch { name, scrut, arms } => {
                let head = match name {
                    Some((n, written)) => {
                        let typed = *written
                            || !arms.iter().any(|a| a.value.as_ref().is_some_and(is_typed));
                        let annot = self.float_annot(n, typed, *written);
                        format!("let {n}{annot} = match {scrut} {{")
                    }
                    None => format!("match {scrut} {{"),
                };
                Self::line(d, out, head);
                for a in arms {
                    let pat = match &a.pat {
                        EnumPat::A => format!("{ENUM_TY}::A"),
                        EnumPat::B => format!("{ENUM_TY}::B"),
                        EnumPat::C(c) => format!("{ENUM_TY}::C({c})"),
                        EnumPat::Wild => "_".to_string(),
                    };
                    // The twin reads the payload as a constant dual number,
                    // the generic twin as `T::from_f64(c)` where it reads it.
                    let rebind = match (&a.pat, self.mode) {
                        (EnumPat::C(c), Mode::Dual) => Some(format!("let {c} = D::c({c});")),
                        _ => None,
                    };
                    let depth = self.gen.names.len();
                    if let EnumPat::C(c) = &a.pat {
                        self.bind(c, generic::Name::F64);
                    }
                    match (&a.value, &rebind, a.stmts.is_empty()) {
                        (Some(v), None, true) => {
                            let v = self.expr(v);
                            Self::line(d + 1, out, format!("{pat} => {v},"));
                        }
                        _ => {
                            Self::line(d + 1, out, format!("{pat} => {{"));
                            if let Some(r) = rebind {
                                Self::line(d + 2, out, r);
                            }
                            let v = self.stmts_then(&a.stmts, d + 2, out, |r| {
                                a.value.as_ref().map(|v| r.expr(v))
                            });
                            if let Some(v) = v {
                                Self::line(d + 2, out, v);
                            }
                            Self::line(d + 1, out, "}".to_string());
                        }
                    }
                    self.gen.names.truncate(depth);
                }
                let end = if name.is_some() { "};" } else { "}" };
                Self::line(d, out, end.to_string());
            }
            Stmt::WhileLet { var, src, body } => {
                match src {
                    WhileSrc::Pop { stack, items } => {
                        let items: Vec<String> = items.iter().map(|v| v.to_string()).collect();
                        Self::line(
                            d,
                            out,
                            format!("let mut {stack}: Vec<usize> = vec![{}];", items.join(", ")),
                        );
                        Self::line(d, out, format!("while let Some({var}) = {stack}.pop() {{"));
                    }
                    WhileSrc::Iter { it, arr } => {
                        Self::line(d, out, format!("let mut {it} = {arr}.iter();"));
                        Self::line(d, out, format!("while let Some(&{var}) = {it}.next() {{"));
                    }
                }
                let body_text = match src {
                    WhileSrc::Iter { arr, .. } => {
                        let arr = arr.clone();
                        self.f64_elements(&arr, &[var], |r| {
                            let mut lines = Vec::new();
                            r.stmts(body, d + 1, &mut lines);
                            lines
                        })
                    }
                    WhileSrc::Pop { .. } => {
                        let mut lines = Vec::new();
                        self.stmts(body, d + 1, &mut lines);
                        lines
                    }
                };
                out.extend(body_text);
                Self::line(d, out, "}".to_string());
            }
            Stmt::LetRef { name, target } => {
                if !self.plain() {
                    self.refs.push(name.clone());
                }
                self.bind(name, generic::Name::Untyped);
                Self::line(d, out, format!("let {name} = &{target};"));
            }
            Stmt::Replace { old, target, src } => {
                let old = match old {
                    Some(o) => {
                        self.bind(o, generic::Name::Untyped);
                        o.as_str()
                    }
                    None => "_",
                };
                Self::line(
                    d,
                    out,
                    format!("let {old} = std::mem::replace(&mut {target}, {src});"),
                );
            }
            Stmt::StructWrite {
                target,
                writer,
                args,
                method,
                path,
            } => {
                // The struct a writer changes is a `&mut` already.
                let target = &self.place(target);
                let lent = if self.lent.as_deref() == Some(target) {
                    target.clone()
                } else {
                    format!("&mut {target}")
                };
                let (lets, args) = self.call_arg_list(writer, args);
                for l in lets {
                    Self::line(d, out, l);
                }
                let f = self.callee(writer);
                let rest = if args.is_empty() {
                    String::new()
                } else {
                    format!(", {args}")
                };
                let text = match (*method, *path && self.user()) {
                    (true, false) => format!("{target}.{f}({args});"),
                    (true, true) => {
                        let ty = if target == "self" {
                            "Self".to_string()
                        } else {
                            struct_name("p0", self.mode)
                        };
                        format!("{ty}::{f}({lent}{rest});")
                    }
                    (false, _) => format!("{f}({lent}{rest});"),
                };
                Self::line(d, out, text);
            }
            Stmt::StructReplace { target, lit } => {
                let lit = self.struct_lit(lit);
                Self::line(d, out, format!("*{target} = {lit};"));
            }
            Stmt::VecFieldAssign { target, src } => {
                Self::line(d, out, format!("{target}.w = {src};"));
            }
        }
    }
}

fn param_ty(p: &Param, mode: Mode) -> String {
    match (&p.kind, mode) {
        (PKind::Scalar | PKind::ConstScalar, Mode::Plain) => "f64".into(),
        (PKind::Scalar | PKind::ConstScalar, Mode::Dual) => "D".into(),
        (PKind::Scalar | PKind::ConstScalar, Mode::Gen) => "T".into(),
        (PKind::MutScalar, Mode::Plain) => "&mut f64".into(),
        (PKind::MutScalar, Mode::Dual) => "&mut D".into(),
        (PKind::MutScalar, Mode::Gen) => "&mut T".into(),
        (PKind::Int { .. }, _) => "usize".into(),
        (PKind::Bool, _) => "bool".into(),
        (PKind::Struct { .. } | PKind::Data { .. }, _) => {
            format!("&{}", struct_name(&p.name, mode))
        }
        (PKind::Receiver, _) => "&Self".into(),
        (PKind::MutReceiver, _) => "&mut Self".into(),
        (PKind::MutStruct, _) => format!("&mut {}", struct_name("p0", mode)),
        (PKind::Enum { .. }, _) => ENUM_TY.into(),
        (PKind::Slice { .. }, Mode::Dual) => "&[D]".into(),
        (PKind::Slice { len, style }, Mode::Plain | Mode::Gen) => {
            let t = if mode == Mode::Gen { "T" } else { "f64" };
            match style {
                SliceStyle::Slice => format!("&[{t}]"),
                SliceStyle::Array => format!("[{t}; {len}]"),
                SliceStyle::ArrayRef => format!("&[{t}; {len}]"),
                SliceStyle::VecRef => format!("&Vec<{t}>"),
            }
        }
    }
}

/// `fn name(..) -> f64 { .. }` (or the twin `name_dual`), one line a
/// statement, without attributes; a method takes `&self`; the step
/// function returns `Vec<f64>`.
pub fn func(f: &Func, mode: Mode) -> String {
    func_as(f, mode, &f.name, true)
}

/// Whether a function has a `#[checkpoint(..)]` loop.
pub fn checkpointed(f: &Func) -> bool {
    fn any(ss: &[Stmt]) -> bool {
        ss.iter().any(|s| match s {
            Stmt::For { ckpt: Some(_), .. } => true,
            Stmt::For { body, .. }
            | Stmt::ForEach { body, .. }
            | Stmt::While { body, .. }
            | Stmt::Loop { body, .. } => any(body),
            Stmt::If { then, els, .. } => any(then) || els.as_ref().is_some_and(|e| any(e)),
            _ => false,
        })
    }
    any(&f.body.stmts)
}

/// The name of the copy of a checkpointed `f` without its attributes.
pub fn nockpt_name(f: &Func) -> String {
    format!("{}_nockpt", f.name)
}

/// [`func`] named `name` (its twin `name_dual`), with its
/// `#[checkpoint(..)]` attributes if `ckpt`.
fn func_as(f: &Func, mode: Mode, name: &str, ckpt: bool) -> String {
    let mut r = renderer(f, mode);
    r.ckpt &= ckpt;
    func_text(f, r, name)
}

/// The renderer of `f`'s body in `mode`: its array parameters, what it
/// returns, its floats taken by `&mut`.
fn renderer(f: &Func, mode: Mode) -> R {
    let refs: HashSet<String> = f
        .params
        .iter()
        .filter(|p| {
            matches!(
                p.kind,
                PKind::Slice {
                    style: SliceStyle::Slice | SliceStyle::ArrayRef | SliceStyle::VecRef,
                    ..
                }
            )
        })
        .map(|p| p.name.clone())
        .collect();
    let arrays: HashSet<String> = f
        .params
        .iter()
        .filter(|p| matches!(p.kind, PKind::Slice { .. }))
        .map(|p| p.name.clone())
        .collect();
    let mut r = R::new(mode, refs, arrays);
    r.ret = f.ret;
    r.muts = f
        .params
        .iter()
        .filter(|p| p.kind == PKind::MutScalar)
        .map(|p| p.name.clone())
        .collect();
    r.lent = f.params.iter().find_map(|p| match p.kind {
        PKind::MutReceiver => Some("self".to_string()),
        PKind::MutStruct => Some(p.name.clone()),
        _ => None,
    });
    r
}

/// `f` rendered by `r` under the name `name` (`<name>_dual` in the twin,
/// `<name>_gen<T: ..>` in the generic twin).
fn func_text(f: &Func, mut r: R, name: &str) -> String {
    let mode = r.mode;
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| match p.kind {
            PKind::Receiver => "&self".to_string(),
            PKind::MutReceiver => "&mut self".to_string(),
            PKind::Slice {
                style: SliceStyle::VecRef,
                ..
            } if r.gen.main && !r.gen.style.vec_param => format!("{}: &[T]", p.name),
            _ => format!("{}: {}", p.name, param_ty(p, mode)),
        })
        .collect();
    let (name, ty) = match mode {
        Mode::Plain => (name.to_string(), "f64"),
        Mode::Dual => (format!("{name}_dual"), "D"),
        Mode::Gen => (format!("{name}_gen<{}>", generic::BOUNDS), "T"),
    };
    let ret = match (&f.ret_arr, f.ret) {
        (Some(_), _) => format!(" -> Vec<{ty}>"),
        (None, Ret::Float) => format!(" -> {ty}"),
        (None, Ret::Result) => format!(" -> Result<{ty}, String>"),
        (None, Ret::Option) => format!(" -> Option<{ty}>"),
        (None, Ret::Unit) => String::new(),
        (None, Ret::Struct) => " -> Self".to_string(),
        (None, Ret::Array(n)) => format!(" -> [{ty}; {n}]"),
        (None, Ret::Tuple(n)) => format!(" -> ({})", vec![ty; n as usize].join(", ")),
        (None, Ret::Made) => format!(" -> {}", made_name(mode)),
    };
    let mut out = vec![format!("pub fn {name}({}){ret} {{", params.join(", "))];
    let mut body = Vec::new();
    let tail = r.stmts_then(&f.body.stmts, 1, &mut body, |r| {
        (f.ret != Ret::Unit).then(|| match (&f.ret_arr, &f.ret_struct) {
            (Some(a), _) => a.clone(),
            (None, Some(l)) => r.struct_lit(l),
            (None, None) if matches!(f.ret, Ret::Array(_) | Ret::Tuple(_)) => {
                let items: Vec<String> = f.ret_items.iter().map(|e| r.typed_expr(e)).collect();
                match f.ret {
                    Ret::Array(_) => format!("[{}]", items.join(", ")),
                    _ => format!("({})", items.join(", ")),
                }
            }
            (None, None) => {
                let t = r.expr(&f.body.tail);
                r.wrap_ok(t)
            }
        })
    });
    out.extend(body);
    if let Some(tail) = tail {
        if f.explicit_return {
            out.push(format!("{IND}return {tail};"));
        } else {
            out.push(format!("{IND}{tail}"));
        }
    }
    out.push("}".to_string());
    out.join("\n")
}

/// The options of a function's `#[grad(..)]`: `wrt(..)` naming the
/// parameters it differentiates (floats, arrays, a struct, `self`) where
/// a bare `#[grad]` would not (a struct or `self` is differentiated only
/// when `wrt` names it, and a float left out of it is a constant), then
/// `trace` if asked.
pub fn options(f: &Func, trace: bool) -> Vec<String> {
    let mut opts = Vec::new();
    let explicit = f.params.iter().any(|q| {
        matches!(
            q.kind,
            PKind::Receiver
                | PKind::ConstScalar
                | PKind::Enum { .. }
                | PKind::Struct { fixed: None, .. }
        )
    });
    if explicit {
        let wrt: Vec<&str> = f
            .params
            .iter()
            .filter(|q| q.kind.active())
            .map(|q| q.name.as_str())
            .collect();
        opts.push(format!("wrt({})", wrt.join(", ")));
    }
    if trace {
        // A traced function nests the traces of the `#[grad]` functions it
        // calls, so they need `trace` too: every function of a program is
        // traced or none.
        opts.push("trace".to_string());
    }
    opts
}

/// `attr` (`#[grad]`, `#[autodiff::grad]`, `#[cfg_attr(.., autodiff::grad)]`)
/// with `opts` given to its last `grad`: `#[grad(wrt(x), trace)]`.
pub fn attr_with(attr: &str, opts: &[String]) -> String {
    match attr.rfind("grad") {
        Some(i) if !opts.is_empty() => {
            let end = i + "grad".len();
            format!("{}({}){}", &attr[..end], opts.join(", "), &attr[end..])
        }
        _ => attr.to_string(),
    }
}

/// The user-visible part: consts, structs, the methods, helper and main
/// function, each function under `attr` (e.g. `#[autodiff::grad]`) with
/// its [`options`] (`trace` where [`crate::trace::traced`]).
pub fn user_code(p: &Program, attr: &str) -> String {
    let traced = crate::trace::traced(p);
    user_code_with(
        p,
        &|f: &Func| attr_with(attr, &with_jvp(p, f, options(f, traced))),
        false,
    )
}

/// `opts` and `jvp` if `f` is the main function of `p` (or its copy
/// `f_nockpt`) under [`crate::jvp::checked`], or a function of
/// `passed_whole` returning an array or a `Vec` there: `f_jvp` calls the
/// other `#[grad]` functions returning a float through their `_vjp`, but
/// one returning a vector through its own `_jvp` (src/jvp.rs), as it does
/// `make`, which returns a struct (`made_struct`).
fn with_jvp(p: &Program, f: &Func, mut opts: Vec<String>) -> Vec<String> {
    let vector_whole = || {
        p.wholes
            .iter()
            .any(|g| g.name == f.name && (g.ret_arr.is_some() || matches!(g.ret, Ret::Array(_))))
    };
    // `make` returns a struct (`made_struct`): called through its `_jvp`.
    let made = || p.made.as_ref().is_some_and(|m| m.make.name == f.name);
    if crate::jvp::checked(p) && (f.name == p.main.name || vector_whole() || made()) {
        opts.push("jvp".to_string());
    }
    opts
}

/// [`user_code`] with each function under `attr(f)`; with `plain_copy`
/// (the generated crate, whose feature `plain` builds it without
/// `#[grad]`), a checkpointed `f` is written without its attributes under
/// `plain` (rustc knows no `#[checkpoint]`, and an attribute on an
/// expression is unstable).
fn user_code_with(p: &Program, attr: &dyn Fn(&Func) -> String, plain_copy: bool) -> String {
    let mut s = consts(p);
    s.push_str(&structs(p, Mode::Plain, attr));
    for h in p.free_callees() {
        if owned(p, h) {
            continue;
        }
        let _ = writeln!(s, "{}\n{}\n", attr(h), func(h, Mode::Plain));
    }
    if plain_copy && checkpointed(&p.main) {
        let _ = writeln!(
            s,
            "#[cfg(feature = \"plain\")]\n{}\n\n#[cfg(not(feature = \"plain\"))]",
            func_as(&p.main, Mode::Plain, &p.main.name, false)
        );
    }
    let _ = writeln!(s, "{}\n{}", attr(&p.main), func(&p.main, Mode::Plain));
    if checkpointed(&p.main) {
        // The reference: the same function without `#[checkpoint(..)]`,
        // whose gradient the checkpointed one must equal bit for bit.
        let name = nockpt_name(&p.main);
        let _ = writeln!(
            s,
            "\n{}\n{}",
            attr(&p.main),
            func_as(&p.main, Mode::Plain, &name, false)
        );
    }
    s
}

/// Whether `h` is the helper of `p` written in an `impl`
/// ([`Program::helper_owner`]), not as a free function.
fn owned(p: &Program, h: &Func) -> bool {
    p.helper_owner.is_some() && p.helper.as_ref().is_some_and(|g| g.name == h.name)
}

/// The program's `const`s.
fn consts(p: &Program) -> String {
    let mut s = String::new();
    for (name, v) in &p.consts {
        let _ = writeln!(
            s,
            "const {name}: f64 = {};",
            lit_text(*v, LitStyle::Plain, false)
                .trim_start_matches('(')
                .trim_end_matches(')')
        );
    }
    if !p.consts.is_empty() {
        s.push('\n');
    }
    s
}

/// The struct types of the main function's parameters (the one deriving
/// `Differentiable` with its `impl` of the methods, each under `attr(m)`),
/// or their twins (`attr` unused).
/// With [`Mode::Gen`], the function's types without their methods (the
/// generic twin's crate, where the structs are constants).
fn structs(p: &Program, mode: Mode, attr: &dyn Fn(&Func) -> String) -> String {
    let mut s = String::new();
    // The enum of `enum_match`, one type for the function and its twin.
    if mode != Mode::Dual
        && p.main
            .params
            .iter()
            .any(|q| matches!(q.kind, PKind::Enum { .. }))
    {
        let _ = writeln!(
            s,
            "#[derive(Clone, Copy, Debug)]\npub enum {ENUM_TY} {{ A, B, C(f64) }}\n"
        );
    }
    // The helper written in an `impl` (`assoc_fn`), of the function's.
    let owned = p.helper.as_ref().filter(|_| mode == Mode::Plain);
    let owned = |ty: &str| owned.filter(|_| p.helper_owner.as_deref() == Some(ty));
    for q in p.main.params.iter() {
        let derive = match q.kind {
            PKind::Struct { .. } if mode != Mode::Dual => {
                "#[derive(Clone, Debug, autodiff::Differentiable)]\n"
            }
            // Cloned as the plain one is (`q.clone()`, `struct_values`).
            PKind::Struct { .. } => "#[derive(Clone)]\n",
            PKind::Data { .. } => "",
            _ => continue,
        };
        let _ = writeln!(s, "{derive}{}\n", struct_def(q, mode));
        if matches!(q.kind, PKind::Struct { .. }) && mode != Mode::Gen {
            let name = struct_name(&q.name, mode);
            // The struct writers that are methods (`struct_writer`) beside
            // the others.
            let writers = p.struct_writers.iter().filter(|w| w.is_method());
            let fns: Vec<&Func> = p
                .methods
                .iter()
                .chain(writers)
                .chain(owned(&name))
                .collect();
            s.push_str(&impl_block(&name, &fns, mode, attr));
        }
    }
    if let Some(h) = owned(UNIT_TY) {
        let _ = writeln!(s, "pub struct {UNIT_TY};\n");
        s.push_str(&impl_block(UNIT_TY, &[h], mode, attr));
    }
    if mode != Mode::Gen {
        s.push_str(&made_struct(p, mode, attr));
    }
    s
}

/// `P1` of `made_struct` (`Copy`, as a struct of floats is) and the `impl`
/// of its methods, or nothing.
fn made_struct(p: &Program, mode: Mode, attr: &dyn Fn(&Func) -> String) -> String {
    let Some(m) = &p.made else {
        return String::new();
    };
    let (derive, ty) = match mode {
        Mode::Dual => ("#[derive(Clone, Copy)]", "D"),
        Mode::Plain | Mode::Gen => (
            "#[derive(Clone, Copy, Debug, autodiff::Differentiable)]",
            "f64",
        ),
    };
    let fs: Vec<String> = (0..m.fields).map(|k| format!("pub f{k}: {ty}")).collect();
    let name = made_name(mode);
    let methods: Vec<&Func> = m.methods.iter().collect();
    format!(
        "{derive}\npub struct {name} {{ {} }}\n\n{}",
        fs.join(", "),
        impl_block(&name, &methods, mode, attr)
    )
}

/// `impl ty { .. }` of `fns` (each under `attr(f)` in the function), or
/// nothing without any.
fn impl_block(ty: &str, fns: &[&Func], mode: Mode, attr: &dyn Fn(&Func) -> String) -> String {
    if fns.is_empty() {
        return String::new();
    }
    let mut s = format!("impl {ty} {{\n");
    for (k, m) in fns.iter().enumerate() {
        if k > 0 {
            s.push('\n');
        }
        if mode == Mode::Plain {
            let _ = writeln!(s, "{}", indent(&attr(m)));
        }
        let _ = writeln!(s, "{}", indent(&func(m, mode)));
    }
    s.push_str("}\n\n");
    s
}

/// The struct type of `made_struct` in `mode`: `P1` (its twin `P1D`).
fn made_name(mode: Mode) -> String {
    match mode {
        Mode::Plain | Mode::Gen => MADE_TY.to_string(),
        Mode::Dual => format!("{MADE_TY}D"),
    }
}

/// Every line one level deeper.
fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("{IND}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The struct type of the struct parameter `param`: `P0` (`Data0`), its
/// twin `P0D` (`Data0D`).
fn struct_name(param: &str, mode: Mode) -> String {
    match mode {
        // The generic twin's structs are the function's, constants.
        Mode::Plain | Mode::Gen => struct_ty(param),
        Mode::Dual => format!("{}D", struct_ty(param)),
    }
}

/// `pub struct P0 { pub f0: f64, .., pub n: usize, pub w: Vec<f64> }` or
/// `pub struct Data0 { pub ys: Vec<f64> }`, or its twin of dual numbers.
fn struct_def(p: &Param, mode: Mode) -> String {
    let ty = if mode == Mode::Dual { "D" } else { "f64" };
    let fs: Vec<String> = match &p.kind {
        PKind::Struct { fields, grid, .. } => {
            let mut fs: Vec<String> = (0..*fields).map(|k| format!("pub f{k}: {ty}")).collect();
            if grid.is_some() {
                fs.push("pub n: usize".to_string());
                fs.push(format!("pub w: Vec<{ty}>"));
            }
            fs
        }
        PKind::Data { .. } => vec![format!("pub ys: Vec<{ty}>")],
        _ => Vec::new(),
    };
    format!(
        "pub struct {} {{ {} }}",
        struct_name(&p.name, mode),
        fs.join(", ")
    )
}

/// `&P0 { f0: a, .., n: 2, w: vec![..] }` or `&Data0 { ys: vec![..] }`
/// from the values of its floats in order (the fields, then `w`).
fn struct_literal(p: &Param, mode: Mode, values: &[String]) -> String {
    let inits: Vec<String> = match &p.kind {
        PKind::Struct { fields, grid, .. } => {
            let f = *fields as usize;
            let mut inits: Vec<String> = values[..f]
                .iter()
                .enumerate()
                .map(|(k, v)| format!("f{k}: {v}"))
                .collect();
            if let Some(g) = grid {
                inits.push(format!("n: {}", g.n));
                inits.push(format!("w: vec![{}]", values[f..].join(", ")));
            }
            inits
        }
        PKind::Data { .. } => vec![format!("ys: vec![{}]", values.join(", "))],
        _ => Vec::new(),
    };
    format!("&{} {{ {} }}", struct_name(&p.name, mode), inits.join(", "))
}

/// The fixed values of a constant struct, as literals of `mode`.
fn constants(values: &[f64], mode: Mode) -> Vec<String> {
    values
        .iter()
        .map(|v| match mode {
            Mode::Plain | Mode::Gen => format!("{v:?}"),
            Mode::Dual => format!("D::c({v:?})"),
        })
        .collect()
}

fn bits_list(xs: &[f64]) -> String {
    let v: Vec<String> = xs
        .iter()
        .map(|x| format!("0x{:016x}", x.to_bits()))
        .collect();
    format!("&[{}]", v.join(", "))
}

/// The argument list of a call of `f` from the flattened inputs `x` and
/// the integers `n`; a constant struct from its fixed values.
fn call_args(f: &Func, mode: Mode) -> String {
    arg_list(f, mode, "x")
        .into_iter()
        .map(|(_, a)| a)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The tangent arguments of `f_jvp` from the flattened tangents `t` (the
/// layout of `x`): one per active parameter, of its type.
fn tangent_args(f: &Func) -> String {
    arg_list(f, Mode::Plain, "t")
        .into_iter()
        .filter(|(active, _)| *active)
        .map(|(_, a)| a)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The arguments of a call of `f` from the flattened floats `x` (named
/// `x`) and integers `n`, each with whether its parameter is active.
fn arg_list(f: &Func, mode: Mode, x: &str) -> Vec<(bool, String)> {
    let mut args = Vec::new();
    let (mut o, mut j) = (0usize, 0usize);
    // One argument per parameter (the main function takes no
    // parameter without one).
    for p in &f.params {
        match &p.kind {
            PKind::Scalar => {
                args.push(format!("{x}[{o}]"));
                o += 1;
            }
            PKind::Int { .. } => {
                args.push(format!("n[{j}]"));
                j += 1;
            }
            PKind::Slice { len, style } => {
                let len = *len as usize;
                let sl = format!("{x}[{o}..{}]", o + len);
                args.push(match (mode, style) {
                    (Mode::Dual, _) | (Mode::Plain | Mode::Gen, SliceStyle::Slice) => {
                        format!("&{sl}")
                    }
                    (Mode::Plain | Mode::Gen, SliceStyle::Array) => {
                        format!("<[f64; {len}]>::try_from(&{sl}).unwrap()")
                    }
                    (Mode::Plain | Mode::Gen, SliceStyle::ArrayRef) => {
                        format!("&<[f64; {len}]>::try_from(&{sl}).unwrap()")
                    }
                    (Mode::Plain | Mode::Gen, SliceStyle::VecRef) => format!("&{sl}.to_vec()"),
                });
                o += len;
            }
            PKind::Struct { fixed: None, .. } => {
                let w = p.kind.width();
                let values: Vec<String> = (o..o + w).map(|i| format!("{x}[{i}]")).collect();
                args.push(struct_literal(p, mode, &values));
                o += w;
            }
            PKind::Struct {
                fixed: Some(values),
                ..
            }
            | PKind::Data { ys: values } => {
                args.push(struct_literal(p, mode, &constants(values, mode)));
            }
            PKind::Enum { payload } => {
                args.push(format!(
                    "match n[{j}] {{ 0 => {ENUM_TY}::A, 1 => {ENUM_TY}::B, _ => {ENUM_TY}::C({payload:?}) }}"
                ));
                j += 1;
            }
            PKind::ConstScalar
            | PKind::MutScalar
            | PKind::Bool
            | PKind::Receiver
            | PKind::MutReceiver
            | PKind::MutStruct => {
                unreachable!("the main function takes no {:?}", p.kind)
            }
        }
    }
    let actives: Vec<bool> = f.params.iter().map(|p| p.kind.active()).collect();
    actives.into_iter().zip(args).collect()
}

/// The attribute of a function of the generated crate, with the options
/// `opts`, and `trace` if `traced` unless the crate's feature `notrace` is
/// on (the same crate without `trace`, to tell whether a compile error is
/// `_trace`'s own).
fn module_attr(opts: &[String], traced: bool) -> String {
    if !traced {
        return attr_with(
            "#[cfg_attr(not(feature = \"plain\"), autodiff::grad)]",
            opts,
        );
    }
    let mut with_trace = opts.to_vec();
    with_trace.push("trace".to_string());
    format!(
        "{}\n{}",
        attr_with(
            "#[cfg_attr(all(not(feature = \"plain\"), not(feature = \"notrace\")), autodiff::grad)]",
            &with_trace
        ),
        attr_with(
            "#[cfg_attr(all(not(feature = \"plain\"), feature = \"notrace\"), autodiff::grad)]",
            opts
        )
    )
}

/// The twin of `p` over `D` ([`Mode::Dual`]): its structs and their
/// methods, its functions, `f`'s last.
fn twin(p: &Program) -> String {
    let mut s = structs(p, Mode::Dual, &|_: &Func| String::new());
    for h in p.free_callees().chain(std::iter::once(&p.main)) {
        let _ = writeln!(s, "{}\n", func(h, Mode::Dual));
    }
    s
}

/// A module of the generated crate: the program under
/// `#[cfg_attr(not(feature = "plain"), autodiff::grad)]` (its functions
/// under `autodiff::grad(trace)` where [`crate::trace::traced`], unless the
/// crate's feature `notrace` is on: `module_attr`), its twin, the
/// wrappers and `PROG`. Returns the text and the first line (1-based)
/// after the user-visible part: an error from there on is the tester's.
pub fn module(p: &Program, title: &str) -> (String, usize) {
    let mut s = String::new();
    let _ = writeln!(s, "// {title}");
    s.push_str("#![allow(warnings)]\nuse crate::dual::{relu, sigmoid, softplus, D};\n\n");
    let traced = crate::trace::traced(p);
    s.push_str(&user_code_with(
        p,
        &|f: &Func| module_attr(&with_jvp(p, f, options(f, false)), traced),
        true,
    ));
    let twin_line = s.lines().count() + 1;
    s.push_str("\n// ---- the twin over dual numbers, and the harness's wrappers\n");
    s.push_str(&twin(p));
    let m = &p.main;
    // A fallible `f` is unwrapped where it succeeds: `errors` (below)
    // tells the harness where it fails, before it calls these.
    let unwrap = if m.ret.fallible() { ".unwrap()" } else { "" };
    let _ = writeln!(
        s,
        "fn plain(x: &[f64], n: &[usize]) -> f64 {{\n{IND}{}({}){unwrap}\n}}\n",
        m.name,
        call_args(m, Mode::Plain)
    );
    let _ = writeln!(
        s,
        "fn dual(x: &[D], n: &[usize]) -> D {{\n{IND}{}_dual({}){unwrap}\n}}\n",
        m.name,
        call_args(m, Mode::Dual)
    );
    if m.ret.fallible() {
        // f's error, and f_grad's, where they fail (`None` where they
        // succeed); an `Option`'s is "None".
        let (ok, err, e) = match m.ret {
            Ret::Option => ("Some(_)", "None", "\"None\".to_string()"),
            _ => ("Ok(_)", "Err(e)", "e"),
        };
        let _ = writeln!(
            s,
            "fn error(x: &[f64], n: &[usize]) -> Option<String> {{\n{IND}match {}({}) {{ {ok} => None, {err} => Some({e}) }}\n}}\n",
            m.name,
            call_args(m, Mode::Plain)
        );
        let _ = writeln!(
            s,
            "#[cfg(not(feature = \"plain\"))]\nfn grad_error(x: &[f64], n: &[usize]) -> Option<String> {{\n{IND}match {}_grad({}) {{ {ok} => None, {err} => Some({e}) }}\n}}\n",
            m.name,
            call_args(m, Mode::Plain)
        );
        s.push_str("#[cfg(feature = \"plain\")]\nfn grad_error(_: &[f64], _: &[usize]) -> Option<String> {\n    unreachable!()\n}\n\n");
    }
    // One gradient per differentiated parameter, in order.
    let mut pushes = String::new();
    let mut k = 1;
    for p in &m.params {
        match &p.kind {
            PKind::Scalar => {
                let _ = writeln!(pushes, "{IND}g.push(r.{k});");
                k += 1;
            }
            PKind::Slice { .. } => {
                let _ = writeln!(pushes, "{IND}g.extend_from_slice(&r.{k});");
                k += 1;
            }
            PKind::Struct {
                fields,
                grid,
                fixed: None,
            } => {
                for f in 0..*fields {
                    let _ = writeln!(pushes, "{IND}g.push(r.{k}.f{f});");
                }
                if grid.is_some() {
                    let _ = writeln!(pushes, "{IND}g.extend_from_slice(&r.{k}.w);");
                }
                k += 1;
            }
            _ => {}
        }
    }
    let ckpt = checkpointed(m);
    let wrappers: &[(&str, String)] = if ckpt {
        &[("grad", m.name.clone()), ("grad_nockpt", nockpt_name(m))]
    } else {
        &[("grad", m.name.clone())]
    };
    for (wrapper, f) in wrappers {
        // A fallible `f_grad` where `f` succeeds: it must succeed too.
        let call = format!("{f}_grad({})", call_args(m, Mode::Plain));
        let call = match m.ret {
            Ret::Result => format!(
                "match {call} {{ Ok(r) => r, Err(e) => panic!(\"{f}_grad returned Err({{e:?}}) where {f} returned Ok\") }}"
            ),
            Ret::Option => format!(
                "match {call} {{ Some(r) => r, None => panic!(\"{f}_grad returned None where {f} returned Some\") }}"
            ),
            Ret::Float | Ret::Unit | Ret::Struct | Ret::Array(_) | Ret::Tuple(_) | Ret::Made => call,
        };
        let _ = writeln!(
            s,
            "#[cfg(not(feature = \"plain\"))]\nfn {wrapper}(x: &[f64], n: &[usize]) -> (f64, Vec<f64>) {{\n{IND}let r = {call};\n{IND}let mut g: Vec<f64> = Vec::new();\n{pushes}{IND}(r.0, g)\n}}\n"
        );
        let _ = writeln!(s, "#[cfg(feature = \"plain\")]\nfn {wrapper}(_: &[f64], _: &[usize]) -> (f64, Vec<f64>) {{\n    unreachable!()\n}}\n");
    }
    if traced {
        // The trace's value and its gradient as `Trace::gradient` gives it:
        // one entry per input node, by name.
        let _ = writeln!(
            s,
            "#[cfg(not(any(feature = \"plain\", feature = \"notrace\")))]\nfn trace(x: &[f64], n: &[usize]) -> (f64, Vec<(String, f64)>) {{\n{IND}let t = {}_trace({});\n{IND}(t.value(), t.gradient())\n}}\n",
            m.name,
            call_args(m, Mode::Plain)
        );
        s.push_str("#[cfg(any(feature = \"plain\", feature = \"notrace\"))]\nfn trace(_: &[f64], _: &[usize]) -> (f64, Vec<(String, f64)>) {\n    unreachable!()\n}\n\n");
    }
    let jvp = crate::jvp::checked(p);
    if jvp {
        // `f_jvp` along the flattened tangents `t` (the layout of `x`).
        let _ = writeln!(
            s,
            "#[cfg(not(feature = \"plain\"))]\nfn jvp(x: &[f64], n: &[usize], t: &[f64]) -> (f64, f64) {{\n{IND}{}_jvp({}, {})\n}}\n",
            m.name,
            call_args(m, Mode::Plain),
            tangent_args(m)
        );
        s.push_str("#[cfg(feature = \"plain\")]\nfn jvp(_: &[f64], _: &[usize], _: &[f64]) -> (f64, f64) {\n    unreachable!()\n}\n\n");
    }
    let jvp_dirs: Vec<String> = (0..p.points.len())
        .map(|i| {
            let ds: Vec<String> = if jvp {
                crate::jvp::directions(p, i)
                    .iter()
                    .map(|d| bits_list(d))
                    .collect()
            } else {
                Vec::new()
            };
            format!("&[{}]", ds.join(", "))
        })
        .collect();
    let points: Vec<String> = p
        .points
        .iter()
        .map(|pt| {
            let ints: Vec<String> = pt.ints.iter().map(|i| i.to_string()).collect();
            format!("({}, &[{}])", bits_list(&pt.floats), ints.join(", "))
        })
        .collect();
    let labels: Vec<String> = m.input_labels().iter().map(|l| format!("{l:?}")).collect();
    let _ = writeln!(
        s,
        "pub const PROG: crate::harness::Prog = crate::harness::Prog {{\n{IND}n_in: {},\n{IND}plain,\n{IND}grad,\n{IND}grad_nockpt: {},\n{IND}nockpt_zero_sign: {},\n{IND}trace: {},\n{IND}jvp: {},\n{IND}jvp_dirs: &[{}],\n{IND}hessian: {},\n{IND}errors: {},\n{IND}dual,\n{IND}points: &[{}],\n{IND}dir: {},\n{IND}labels: &[{}],\n}};",
        m.n_inputs(),
        if ckpt { "Some(grad_nockpt)" } else { "None" },
        p.ckpt_zero_sign,
        if traced { "Some(trace)" } else { "None" },
        if jvp { "Some(jvp)" } else { "None" },
        jvp_dirs.join(", "),
        p.hessian,
        if m.ret.fallible() {
            "Some((error, grad_error))"
        } else {
            "None"
        },
        points.join(", "),
        bits_list(&p.dir),
        labels.join(", ")
    );
    (s, twin_line)
}

/// A self-contained reproducer: the program under `#[autodiff::grad]` and
/// a `main` printing `f`, `f_grad` and, where traced, `f_trace`'s value
/// and gradient at test point `point`.
pub fn reproducer(p: &Program, point: usize, header: &str) -> String {
    let mut s = String::new();
    for l in header.lines() {
        let _ = writeln!(s, "// {l}");
    }
    s.push_str(&user_code(p, "#[autodiff::grad]"));
    let m = &p.main;
    let pt = &p.points[point.min(p.points.len() - 1)];
    if p.hessian {
        s.push_str("\n// The generic twin under #[grad(hessian)] (the tester's src/hessian.rs).\n");
        s.push_str(&generic::gen_code(p, "#[autodiff::grad]", ""));
    }
    let args: Vec<String> = literal_args(m, &pt.floats, &pt.ints)
        .into_iter()
        .map(|(_, a)| a)
        .collect();
    let args = args.join(", ");
    let trace = if crate::trace::traced(p) {
        format!(
            "{IND}let t = {}_trace({args});\n{IND}println!(\"f_trace: value = {{:?}}, gradient = {{:?}}\", t.value(), t.gradient());\n",
            m.name
        )
    } else {
        String::new()
    };
    let mut jvp = String::new();
    if crate::jvp::checked(p) {
        // `f_jvp` along the harness's directions at this point (the
        // tangent must be f_grad's gradient dotted with `t`, flattened).
        let point = point.min(p.points.len() - 1);
        for t in crate::jvp::directions(p, point) {
            let tangents: Vec<String> = literal_args(m, &t, &pt.ints)
                .into_iter()
                .filter(|(active, _)| *active)
                .map(|(_, a)| a)
                .collect();
            let _ = writeln!(
                jvp,
                "{IND}println!(\"f_jvp along t = {t:?}: {{:?}}\", {}_jvp({args}, {}));",
                m.name,
                tangents.join(", ")
            );
        }
    }
    let nockpt = if checkpointed(m) {
        let n = nockpt_name(m);
        format!("{IND}println!(\"{n}_grad = {{:?}}\", {n}_grad({args}));\n")
    } else {
        String::new()
    };
    let hessian = if p.hessian {
        generic::reproducer_calls(p, point)
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "\nfn main() {{\n{IND}println!(\"f      = {{:?}}\", {}({args}));\n{IND}println!(\"f_grad = {{:?}}\", {}_grad({args}));\n{nockpt}{trace}{jvp}{hessian}}}",
        m.name, m.name
    );
    s
}

/// The arguments of a call of the main function `m` written as literals,
/// from the floats `floats` (in the inputs' layout) and the integers
/// `ints`, each with whether its parameter is active.
fn literal_args(m: &Func, floats: &[f64], ints: &[u64]) -> Vec<(bool, String)> {
    let pt = Point {
        floats: floats.to_vec(),
        ints: ints.to_vec(),
    };
    let mut args = Vec::new();
    let (mut o, mut j) = (0, 0);
    for prm in &m.params {
        match &prm.kind {
            PKind::Scalar => {
                args.push(format!("{:?}", pt.floats[o]));
                o += 1;
            }
            PKind::Int { .. } => {
                args.push(pt.ints[j].to_string());
                j += 1;
            }
            PKind::Slice { len, style } => {
                let xs: Vec<String> = pt.floats[o..o + *len as usize]
                    .iter()
                    .map(|v| format!("{v:?}"))
                    .collect();
                let xs = xs.join(", ");
                args.push(match style {
                    SliceStyle::Slice | SliceStyle::ArrayRef => format!("&[{xs}]"),
                    SliceStyle::Array => format!("[{xs}]"),
                    SliceStyle::VecRef => format!("&vec![{xs}]"),
                });
                o += *len as usize;
            }
            PKind::Struct { fixed: None, .. } => {
                let w = prm.kind.width();
                let values = constants(&pt.floats[o..o + w], Mode::Plain);
                args.push(struct_literal(prm, Mode::Plain, &values));
                o += w;
            }
            PKind::Struct {
                fixed: Some(values),
                ..
            }
            | PKind::Data { ys: values } => {
                args.push(struct_literal(
                    prm,
                    Mode::Plain,
                    &constants(values, Mode::Plain),
                ));
            }
            PKind::Enum { payload } => {
                args.push(match pt.ints[j] {
                    0 => format!("{ENUM_TY}::A"),
                    1 => format!("{ENUM_TY}::B"),
                    _ => format!("{ENUM_TY}::C({payload:?})"),
                });
                j += 1;
            }
            PKind::ConstScalar
            | PKind::MutScalar
            | PKind::Bool
            | PKind::Receiver
            | PKind::MutReceiver
            | PKind::MutStruct => {}
        }
    }
    m.params
        .iter()
        .filter(|q| {
            !matches!(
                q.kind,
                PKind::ConstScalar
                    | PKind::MutScalar
                    | PKind::Bool
                    | PKind::Receiver
                    | PKind::MutReceiver
                    | PKind::MutStruct
            )
        })
        .map(|q| q.kind.active())
        .zip(args)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_spellings_read_back() {
        for v in [0.37, 2.0, 1e-5, 0.125, 3.5, 100.0] {
            for style in [
                LitStyle::Plain,
                LitStyle::Dot,
                LitStyle::Exp,
                LitStyle::Suffix,
            ] {
                let t = lit_text(v, style, false);
                let t = t.trim_end_matches("_f64").trim_end_matches('.');
                assert_eq!(t.parse::<f64>().unwrap(), v, "{t}");
            }
        }
        assert_eq!(exp_text("0.37").unwrap(), "37e-2");
        assert_eq!(exp_text("2.0").unwrap(), "2e0");
        assert_eq!(lit_text(-0.5, LitStyle::Plain, false), "(-0.5)");
    }
}

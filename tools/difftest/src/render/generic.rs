//! The generic twin of a program under `#[grad(hessian)]`
//! ([`crate::hessian`]): every function of the program written again over
//! a float type `T`, `<name>_gen<T: autodiff::Float + Sum ..>`, `f`'s
//! under `#[grad(hessian)]` and the others under `#[grad]`, and the twin
//! of the bodies over the second-order oracle `crate::hyper::D`.
//!
//! The generic twin is the program as a user writes it generically (README,
//! "Generic floats"): `f64` becomes `T` (parameters, annotations, closures'
//! parameters, `sum::<T>()`), float literals stay as written (`#[grad]`
//! reads them as `T`; an `_f64` suffix is dropped, since a suffixed literal
//! stays an `f64`), and what is an `f64` whatever the float type is
//! converted where it is read: a `const` (`T::from_f64(C0)`), an integer
//! cast (`T::from_f64(i as f64)`), a field or an element of a constant
//! struct (`T::from_f64(p0.f1)`, `T::from_f64(data0.ys[k])`, in methods
//! `T::from_f64(self.f0)`), an enum's payload and an element of a constant
//! array read by `while let`. The structs stay the function's (of
//! `f64`s): in the twin they are constants (a differentiated struct keeps
//! a program out, src/hessian.rs), and a method's twin takes `&self`
//! constant (`#[grad]` without `wrt(self)`). A parameter left out of
//! `wrt` stays out of it; a method whose only floats are such constants
//! differentiates them (a bare `#[grad]`: `wrt()` is refused, and its
//! callers give it constants).
//!
//! Where README says a generic function needs something written, the twin
//! writes it:
//!
//! - a float argument whose type `#[grad]` does not see (a call's result,
//!   a variable bound without a type, a part of a call's array) given to a
//!   `#[grad]` function returning a float is bound first by a typed `let`
//!   (README: `#[grad(hessian)]` refuses "a call passing a float whose
//!   type `#[grad]` does not see to another function's `_grad` .. write
//!   `let s: T = ..;` first"): `h_gen(h_gen(x))` is `({ let hq0: T = h_gen(x);
//!   h_gen(hq0) })`, an array or a `Vec` passed on whole likewise (`let
//!   hq1: [T; 2] = tf0_gen(..);`), and a result bound to be passed on
//!   whole (`passed_whole`) has its type written (`let d: [T; 2] =
//!   mk0_gen(x, y);`);
//! - a local array has its type written (`let mut v: Vec<T> = ..`: README
//!   asks for it where the items are constants or calls);
//! - `v[i] += e` where `e` reads `v` binds `e` first (`T`'s `+=` is a
//!   trait's method: rustc refuses the borrow otherwise, in any generic
//!   code).
//!
//! Two constructs are written as a user would only with their feature on
//! (on by default; findings of this check, fixed): literals inside
//! `vec![..]` (`hessian_vec_literal`, otherwise `vec![T::zero(); n]` and
//! `T::from_f64(2.0)` there) and float methods in path form, `T::sin(x)`
//! (`hessian_path_form`, otherwise `x.sin()`).

use super::*;
use std::collections::HashMap;

/// The bounds of the generic twin's float type: `Sum` for `.sum::<T>()`
/// (README: "with `T: Sum` among its bounds"), `Sum<&T>` for
/// `xs.iter().sum::<T>()`.
pub(super) const BOUNDS: &str =
    "T: autodiff::Float + std::iter::Sum + for<'a> std::iter::Sum<&'a T>";

/// What the renderer of the generic twin keeps track of.
#[derive(Default)]
pub(super) struct GenState {
    /// The float variables and arrays in scope, innermost last, each with
    /// what it is ([`Name`]); [`R::stmts`] drops those a statement list
    /// bound when it ends.
    pub(super) names: Vec<(String, Name)>,
    /// Per `#[grad]` function of the program, its twin's return type and
    /// whether it returns one float (a call `#[grad(hessian)]` chains
    /// through `_grad`, whose arguments' types it must see).
    pub(super) rets: HashMap<String, (String, bool)>,
    /// Bindings `hqN` written so far in this function.
    pub(super) hoisted: usize,
    /// Inside the items of a `vec![..]`.
    pub(super) in_vec: usize,
    pub(super) style: GenStyle,
    /// Rendering `f_gen` (under `#[grad(hessian)]`).
    pub(super) main: bool,
}

/// What a name of the generic twin holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Name {
    /// A float or an array whose type the source states (a parameter, a
    /// typed `let`, a local array): given as it is to a `#[grad]` function
    /// returning a float, where any other float is bound by a typed `let`
    /// first.
    Typed,
    /// A float whose type the source leaves to inference.
    Untyped,
    /// An `f64` (an enum's payload, an element of a constant struct's
    /// array), read as `T::from_f64(v)`.
    F64,
}

/// `call` after the `lets` that bind some of its arguments: `({ let hq0: T
/// = ..; call })`, or `call` alone.
pub(super) fn in_block(lets: Vec<String>, call: String) -> String {
    if lets.is_empty() {
        call
    } else {
        format!("({{ {} {call} }})", lets.join(" "))
    }
}

/// Whether the code `text` reads the array `arr` (`arr[..]`, `arr.iter()`,
/// `&arr`).
fn reads(text: &str, arr: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(arr).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + arr.len()..].chars().next();
        // `v4[..]`, `v4.iter()`, or lent whole: `helper(.., &v4)`.
        let lent = before == Some('&') && !after.is_some_and(ident);
        !before.is_some_and(ident) && (matches!(after, Some('[') | Some('.')) || lent)
    })
}

impl R {
    /// A float literal of the generic twin: as written, without an `_f64`
    /// suffix; inside `vec![..]` `T::from_f64(..)` unless
    /// [`GenStyle::vec_literals`].
    pub(super) fn gen_lit(&self, v: f64, style: LitStyle) -> String {
        let style = match style {
            LitStyle::Suffix => LitStyle::Plain,
            s => s,
        };
        let text = lit_text(v, style, false);
        if self.gen.in_vec > 0 && !self.gen.style.vec_literals {
            format!("T::from_f64({text})")
        } else {
            text
        }
    }

    /// Whether a float method written in path form is rendered so
    /// (`f64::sin(x)`, `D::sin(x)`, in the generic twin `T::sin(x)` with
    /// [`GenStyle::path_form`] only).
    pub(super) fn gen_path_form(&self) -> bool {
        self.mode != Mode::Gen || self.gen.style.path_form
    }

    /// The element of a zero-filled array of the generic twin (`vec![0.0;
    /// n]` with [`GenStyle::vec_literals`], else `vec![T::zero(); n]`;
    /// `[0.0; n]`).
    pub(super) fn gen_zero(&self, vec: bool) -> String {
        if vec && !self.gen.style.vec_literals {
            "T::zero()".to_string()
        } else {
            "0.0".to_string()
        }
    }

    /// `f(self)` inside the items of a `vec![..]` (if `vec`).
    pub(super) fn in_vec<X>(&mut self, vec: bool, f: impl FnOnce(&mut R) -> X) -> X {
        self.gen.in_vec += usize::from(vec);
        let x = f(self);
        self.gen.in_vec -= usize::from(vec);
        x
    }

    /// `f(self)` with `vars`, the elements of the array `arr`, read as
    /// `T::from_f64(v)` in the generic twin when `arr` is a constant
    /// struct's `Vec<f64>` (`data0.ys`, `p0.w`, `self.w`).
    pub(super) fn f64_elements<X>(
        &mut self,
        arr: &str,
        vars: &[&String],
        f: impl FnOnce(&mut R) -> X,
    ) -> X {
        let depth = self.gen.names.len();
        let kind = if arr.contains('.') {
            Name::F64
        } else {
            Name::Untyped
        };
        for v in vars {
            self.bind(v, kind);
        }
        let x = f(self);
        self.gen.names.truncate(depth);
        x
    }

    /// `name` bound, in the current scope, to what `kind` says.
    pub(super) fn bind(&mut self, name: &str, kind: Name) {
        self.gen.names.push((name.to_string(), kind));
    }

    /// What `name` holds in the generic twin, where it is read.
    pub(super) fn name_kind(&self, name: &str) -> Option<Name> {
        self.gen
            .names
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, k)| *k)
    }

    /// The type annotation of a float `let` of `name`: the function's if
    /// `plain_wants` (written, or needed by rustc), always the dual
    /// twin's, the generic twin's where the source writes it (`written`;
    /// recorded as a typed variable).
    pub(super) fn float_annot(&mut self, name: &str, plain_wants: bool, written: bool) -> String {
        let annotate = match self.mode {
            Mode::Plain => plain_wants,
            Mode::Dual => true,
            Mode::Gen => written,
        };
        if annotate {
            self.bind(name, Name::Typed);
            format!(": {}", self.float_ty())
        } else {
            self.bind(name, Name::Untyped);
            String::new()
        }
    }

    /// The name a call of `f` with `args` uses: [`R::callee`], and in the
    /// generic twin `f_gen::<T>` where no argument carries a float (a
    /// method given integers, `p0.m1_gen::<T>(3)`: nothing else would type
    /// it where its value goes unused, as a user writes it).
    pub(super) fn callee_of(&self, f: &str, args: &[Arg]) -> String {
        let name = self.callee(f);
        if self.mode == Mode::Gen && args.iter().all(|a| matches!(a, Arg::I(_) | Arg::B(_))) {
            format!("{name}::<T>")
        } else {
            name
        }
    }

    /// The generic twin's return type of the `#[grad]` function `f`.
    pub(super) fn gen_ret(&self, f: &str) -> String {
        self.gen
            .rets
            .get(f)
            .map_or_else(|| "T".to_string(), |r| r.0.clone())
    }

    fn fresh_hoisted(&mut self) -> String {
        self.gen.hoisted += 1;
        format!("hq{}", self.gen.hoisted - 1)
    }

    /// Whether `#[grad]` sees that `e` is a `T` (README, "Types the source
    /// does not state"), as far as the generic twin needs: a literal, a
    /// typed variable, a conversion `T::from_f64(..)`, an element of a
    /// typed array, arithmetic of those and a float method of one.
    fn seen(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(..) | Expr::Const(_) | Expr::IntCast(_) | Expr::Field(..) => true,
            Expr::Var(v) => matches!(self.name_kind(v), Some(Name::Typed | Name::F64)),
            Expr::Index(a, _) => a.contains('.') || self.name_kind(a) == Some(Name::Typed),
            Expr::Neg(a) => self.seen(a),
            Expr::Bin(_, a, b) => self.seen(a) && self.seen(b),
            Expr::Un(_, a, _) | Expr::Bi(_, a, _, _) | Expr::MulAdd(a, _, _) => self.seen(a),
            _ => false,
        }
    }

    /// The arguments of a call of `f` in the generic twin, and the typed
    /// `let`s binding those whose type `#[grad]` would not see, where `f`
    /// returns a float (module doc).
    pub(super) fn gen_hoisted_args(&mut self, f: &str, args: &[Arg]) -> (Vec<String>, String) {
        let chained = self.gen.rets.get(f).is_some_and(|r| r.1);
        // Floats all literals, beside integers or `bool`s only: nothing
        // but the call's context types the callee's `T`
        // (`hessian_literal_args`).
        let untyped = !self.gen.style.literal_args
            && args.iter().any(|a| matches!(a, Arg::F(_)))
            && args.iter().any(|a| matches!(a, Arg::I(_) | Arg::B(_)))
            && args.iter().all(|a| match a {
                Arg::F(e) => !is_typed(e),
                Arg::I(_) | Arg::B(_) => true,
                Arg::A(_) | Arg::S(_) | Arg::W { .. } => false,
            });
        let mut lets = Vec::new();
        let mut out = Vec::new();
        for a in args {
            match a {
                Arg::F(e) if untyped => {
                    // Literals only: an `f64` as the function writes it
                    // (`(2.5_f64).max(1.25)`), converted.
                    let mut plain = R::new(Mode::Plain, HashSet::new(), HashSet::new());
                    let value = plain.typed_expr(e);
                    out.push(format!("T::from_f64({value})"));
                }
                Arg::F(e) if chained && !self.seen(e) => {
                    let value = self.expr(e);
                    let n = self.fresh_hoisted();
                    lets.push(format!("let {n}: T = {value};"));
                    out.push(n);
                }
                Arg::W {
                    by_ref,
                    value: Whole::Call(g, g_args),
                } if chained => {
                    let (inner, g_args) = self.gen_hoisted_args(g, g_args);
                    let call = in_block(inner, format!("{}({g_args})", self.callee(g)));
                    let n = self.fresh_hoisted();
                    lets.push(format!("let {n}: {} = {call};", self.gen_ret(g)));
                    out.push(if *by_ref { format!("&{n}") } else { n });
                }
                _ => out.push(self.arg(a)),
            }
        }
        (lets, out.join(", "))
    }

    /// `arr[i] op= e` of the generic twin: `e` bound first (`let hqN: T =
    /// e;`, returned with the name to use) if it reads `arr`.
    pub(super) fn gen_bind_reading(&mut self, arr: &str, e: String) -> (Option<String>, String) {
        if reads(&e, arr) {
            let n = self.fresh_hoisted();
            (Some(format!("let {n}: T = {e};")), n)
        } else {
            (None, e)
        }
    }
}

/// What each `#[grad]` function of `p` returns, as its generic twin's type,
/// and whether that is one float.
fn returns(p: &Program) -> HashMap<String, (String, bool)> {
    p.functions()
        .map(|f| {
            let ret = match (&f.ret_arr, f.ret) {
                (Some(_), _) => ("Vec<T>".to_string(), false),
                (None, Ret::Float) => ("T".to_string(), true),
                (None, Ret::Result) => ("Result<T, String>".to_string(), true),
                (None, Ret::Option) => ("Option<T>".to_string(), true),
                (None, Ret::Unit) => ("()".to_string(), false),
                (None, Ret::Struct) => ("Self".to_string(), false),
                (None, Ret::Array(n)) => (format!("[T; {n}]"), false),
                (None, Ret::Tuple(n)) => (format!("({})", vec!["T"; n as usize].join(", ")), false),
                (None, Ret::Made) => (MADE_TY.to_string(), false),
            };
            (f.name.clone(), ret)
        })
        .collect()
}

/// The generic twin of `f`, a function of `p`: `<name>_gen<T: ..>`.
fn gen_func(p: &Program, f: &Func) -> String {
    let mut r = renderer(f, Mode::Gen);
    // `#[grad(hessian)]` takes checkpointed loops (README): kept.
    r.ckpt = true;
    r.gen.rets = returns(p);
    r.gen.style = p.gen_style;
    r.gen.main = f.name == p.main.name;
    r.gen.names = f
        .params
        .iter()
        .filter(|q| {
            matches!(
                q.kind,
                PKind::Scalar | PKind::ConstScalar | PKind::MutScalar | PKind::Slice { .. }
            )
        })
        .map(|q| (q.name.clone(), Name::Typed))
        .collect();
    func_text(f, r, &f.name)
}

/// The options of the generic twin of `f`: `hessian` on `f`'s, and
/// `wrt(..)` naming its differentiated floats where the plain function's
/// options name them (a float left out of `wrt`, an enum), without `self`
/// (the twin's receiver is a constant); a function whose only floats are
/// left out differentiates them (a bare `#[grad]`).
fn gen_options(f: &Func, main: bool) -> Vec<String> {
    let mut opts = Vec::new();
    if main {
        opts.push("hessian".to_string());
    }
    let active: Vec<&str> = f
        .params
        .iter()
        .filter(|q| {
            matches!(
                q.kind,
                PKind::Scalar | PKind::MutScalar | PKind::Slice { .. }
            )
        })
        .map(|q| q.name.as_str())
        .collect();
    let explicit = f
        .params
        .iter()
        .any(|q| matches!(q.kind, PKind::ConstScalar | PKind::Enum { .. }));
    if explicit && !active.is_empty() {
        opts.push(format!("wrt({})", active.join(", ")));
    }
    opts
}

/// The struct parameter of `p`'s `f` that `f` differentiates (`p0: &P0`
/// in `wrt`), its name and layout.
fn active_struct(p: &Program) -> Option<(&str, u64, Option<Grid>)> {
    p.main.params.iter().find_map(|q| match q.kind {
        PKind::Struct {
            fields,
            grid,
            fixed: None,
        } => Some((q.name.as_str(), fields, grid)),
        _ => None,
    })
}

/// The parameters standing for a differentiated struct `s` in the twin
/// (README, "Second order": "a struct's floats as parameters of their
/// own"): `s_f0: T, .., s_n: usize, s_w: &[T]`.
fn flat_params(s: &str, fields: u64, grid: Option<Grid>) -> Vec<Param> {
    let mut out: Vec<Param> = (0..fields)
        .map(|k| Param {
            name: format!("{s}_f{k}"),
            kind: PKind::Scalar,
        })
        .collect();
    if let Some(g) = grid {
        out.push(Param {
            name: format!("{s}_n"),
            kind: PKind::Int { max: g.n },
        });
        out.push(Param {
            name: format!("{s}_w"),
            kind: PKind::Slice {
                len: g.len(),
                style: SliceStyle::Slice,
            },
        });
    }
    out
}

/// `f` reading the struct `s` (`p0`, `self`) through the parameters of
/// [`flat_params`]: `s.f1` is `s_f1`, `s.w[k]` `s_w[k]`, `s.n` `s_n`, and
/// a method called on `s`, `s.m0(a)`, the function `m0(s_f0, .., s_n,
/// s_w, a)`.
fn flatten(f: &mut Func, s: &str, fields: u64, grid: Option<Grid>) {
    let w = format!("{s}.w");
    let (flat_w, flat_n, n) = (format!("{s}_w"), format!("{s}_n"), format!("{s}.n"));
    let rename = |a: &mut String| {
        if *a == w {
            a.clone_from(&flat_w);
        }
    };
    let args: Vec<Arg> = flat_params(s, fields, grid)
        .into_iter()
        .map(|q| match q.kind {
            PKind::Int { .. } => Arg::I(IExpr::Var(q.name)),
            PKind::Slice { .. } => Arg::A(q.name),
            _ => Arg::F(Expr::Var(q.name)),
        })
        .collect();
    let mut fe = |e: &mut Expr| match e {
        Expr::Field(q, k) if q == s => *e = Expr::Var(format!("{s}_f{k}")),
        Expr::Index(a, _)
        | Expr::Sum(a)
        | Expr::MapSum { arr: a, .. }
        | Expr::Fold { arr: a, .. } => rename(a),
        Expr::ZipSum { a, b, .. } => {
            rename(a);
            rename(b);
        }
        Expr::Method(q, m, a, _) if q == s => {
            let all = args.iter().cloned().chain(a.iter().cloned()).collect();
            *e = Expr::Call(m.clone(), all);
        }
        _ => {}
    };
    fn ints(i: &mut IExpr, n: &str, flat_n: &str, w: &str, flat_w: &str) {
        match i {
            IExpr::Var(v) if v == n => *v = flat_n.to_string(),
            IExpr::Len(a) if a == w => *a = flat_w.to_string(),
            IExpr::Add(a, b) | IExpr::Mul(a, b) => {
                ints(a, n, flat_n, w, flat_w);
                ints(b, n, flat_n, w, flat_w);
            }
            IExpr::Rem(a, _) => ints(a, n, flat_n, w, flat_w),
            _ => {}
        }
    }
    let mut fi = |i: &mut IExpr| ints(i, &n, &flat_n, &w, &flat_w);
    map_block(&mut f.body, &mut fe, &mut fi);
}

/// The functions of the generic twin of `p` that a differentiated struct
/// changes (none without one): `f` taking the struct's floats as
/// parameters of their own, and each method a function taking its
/// receiver's so.
fn flattened(p: &Program) -> Option<(Func, Vec<Func>)> {
    let (s, fields, grid) = active_struct(p)?;
    let mut main = p.main.clone();
    main.params = main
        .params
        .iter()
        .flat_map(|q| {
            if q.name == s {
                flat_params(s, fields, grid)
            } else {
                vec![q.clone()]
            }
        })
        .collect();
    flatten(&mut main, s, fields, grid);
    let methods = p
        .methods
        .iter()
        .map(|m| {
            let mut m = m.clone();
            m.params = flat_params("self", fields, grid)
                .into_iter()
                .chain(
                    m.params
                        .iter()
                        .filter(|q| q.kind != PKind::Receiver)
                        .cloned(),
                )
                .collect();
            flatten(&mut m, "self", fields, grid);
            m
        })
        .collect();
    Some((main, methods))
}

/// `f`'s twin's parameters, as `f_gen` takes them: `f`'s, a differentiated
/// struct's floats as parameters of their own.
fn twin_main(p: &Program) -> Func {
    flattened(p).map_or_else(|| p.main.clone(), |(m, _)| m)
}

/// The arguments of `f_gen` from those of `f` (`args`, one per parameter
/// of `f`, each with whether it is differentiated): a differentiated
/// struct's literal replaced by its floats (`float(o)`, the input at
/// offset `o`), its `n` and its `w` (`slice(o, len)`).
fn twin_args(
    p: &Program,
    args: Vec<(bool, String)>,
    float: &dyn Fn(usize) -> String,
    slice: &dyn Fn(usize, usize) -> String,
) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut o = 0;
    for (q, a) in p.main.params.iter().zip(args) {
        match q.kind {
            PKind::Struct {
                fields,
                grid,
                fixed: None,
            } => {
                let f = fields as usize;
                out.extend((0..f).map(|k| (true, float(o + k))));
                if let Some(g) = grid {
                    out.push((false, g.n.to_string()));
                    out.push((true, slice(o + f, g.len() as usize)));
                }
            }
            _ => out.push(a),
        }
        o += q.kind.width();
    }
    out
}

/// [`twin_args`] from the flattened inputs named `x`.
fn twin_args_of(p: &Program, x: &str) -> Vec<(bool, String)> {
    twin_args(
        p,
        arg_list(&p.main, Mode::Plain, x),
        &|o| format!("{x}[{o}]"),
        &|o, len| format!("&{x}[{o}..{}]", o + len),
    )
}

/// The generic twin of every function of `p` (`p.hessian`), each under
/// `attr` with its options (`#[autodiff::grad(hessian)]`), and `cfg` (an
/// attribute line or nothing) before each; the methods in an `impl` of
/// their struct, or, where `f` differentiates the struct, functions
/// taking its fields.
pub fn gen_code(p: &Program, attr: &str, cfg: &str) -> String {
    let mut s = String::new();
    let head = |f: &Func, main: bool| {
        let a = attr_with(attr, &gen_options(f, main));
        if cfg.is_empty() {
            a
        } else {
            format!("{cfg}\n{a}")
        }
    };
    let flat = flattened(p);
    if let Some((_, methods)) = &flat {
        for m in methods {
            let _ = writeln!(s, "{}\n{}\n", head(m, false), gen_func(p, m));
        }
    } else if !p.methods.is_empty() {
        if let Some(q) = p.main.struct_param() {
            let _ = writeln!(s, "impl {} {{", struct_name(&q.name, Mode::Gen));
            for (k, m) in p.methods.iter().enumerate() {
                if k > 0 {
                    s.push('\n');
                }
                let _ = writeln!(s, "{}", indent(&head(m, false)));
                let _ = writeln!(s, "{}", indent(&gen_func(p, m)));
            }
            s.push_str("}\n\n");
        }
    }
    for f in p.free_callees() {
        let _ = writeln!(s, "{}\n{}\n", head(f, false), gen_func(p, f));
    }
    let main = flat.map_or_else(|| p.main.clone(), |(m, _)| m);
    let _ = writeln!(s, "{}\n{}", head(&main, true), gen_func(p, &main));
    s
}

/// The twin of `p`'s bodies over the second-order oracle
/// (`templates/hyper.rs`), in a module of its own: the text of the
/// dual-number twin, its `D` and `sigmoid`, `softplus`, `relu` imported
/// from `crate::hyper`; and `hyper(x, n)`, the main function's twin called
/// as `dual` calls it.
fn hyper_module(p: &Program) -> String {
    let mut s = String::from(
        "mod hyper_twin {\n    use super::*;\n    use crate::hyper::{relu, sigmoid, softplus, D};\n\n",
    );
    let mut body = twin(p);
    let m = &p.main;
    let unwrap = if m.ret.fallible() { ".unwrap()" } else { "" };
    let _ = writeln!(
        body,
        "pub fn hyper(x: &[D], n: &[usize]) -> D {{\n{IND}{}_dual({}){unwrap}\n}}",
        m.name,
        call_args(m, Mode::Dual)
    );
    s.push_str(&indent(&body));
    s.push_str("\n}\n\n");
    s
}

/// The wrappers the harness calls: `hessian(x, n)` (`f_gen_hessian`: its
/// value, its gradient flattened as `x`, its matrix) and `hvp(x, n, v)`
/// (`f_gen_hvp` along `v` flattened as `x`: its value, gradient and H·v,
/// flattened).
fn wrappers(p: &Program) -> String {
    let m = &twin_main(p);
    let mut k = 1;
    let (mut grads, mut hvs) = (String::new(), String::new());
    let actives = m.params.iter().filter(|q| q.kind.active()).count();
    for q in &m.params {
        let push = |into: &mut String, var: &str, at: usize| {
            let _ = match q.kind {
                PKind::Scalar => writeln!(into, "{IND}{var}.push(r.{at});"),
                _ => writeln!(into, "{IND}{var}.extend_from_slice(&r.{at});"),
            };
        };
        if matches!(q.kind, PKind::Scalar | PKind::Slice { .. }) {
            push(&mut grads, "g", k);
            push(&mut hvs, "hv", k + actives);
            k += 1;
        }
    }
    let args: Vec<String> = twin_args_of(p, "x").into_iter().map(|(_, a)| a).collect();
    let args = args.join(", ");
    let dirs = twin_args_of(p, "v")
        .into_iter()
        .filter(|(active, _)| *active)
        .map(|(_, a)| a)
        .collect::<Vec<_>>()
        .join(", ");
    let f = &m.name;
    format!(
        "fn hessian(x: &[f64], n: &[usize]) -> (f64, Vec<f64>, Vec<Vec<f64>>) {{\n{IND}let r = {f}_gen_hessian({args});\n{IND}let mut g: Vec<f64> = Vec::new();\n{grads}{IND}(r.0, g, r.{k})\n}}\n\n\
         fn hvp(x: &[f64], n: &[usize], v: &[f64]) -> (f64, Vec<f64>, Vec<f64>) {{\n{IND}let r = {f}_gen_hvp({args}, {dirs});\n{IND}let mut g: Vec<f64> = Vec::new();\n{IND}let mut hv: Vec<f64> = Vec::new();\n{grads}{hvs}{IND}(r.0, g, hv)\n}}\n\n"
    )
}

/// A module of the generated crate's second package (`hessian/`, beside
/// the programs' crate, built at once): the program's types (`const`s,
/// structs without their methods, the enum), its generic twin, the twins
/// of its bodies over `D` (the first-order oracle, for the tolerance's
/// scales and the trace of decisions) and over the hyper-dual numbers,
/// the wrappers and `PROG_H`.
pub fn hessian_module(p: &Program, title: &str) -> String {
    let mut s = format!(
        "// {title}: its generic twin under #[grad(hessian)] and the oracles (src/hessian.rs)\n#![allow(warnings)]\nuse crate::dual::{{relu, sigmoid, softplus, D}};\n\n"
    );
    s.push_str(&consts(p));
    s.push_str(&structs(p, Mode::Gen, &|_: &Func| String::new()));
    s.push_str(&gen_code(p, "#[autodiff::grad]", ""));
    s.push_str("\n// ---- the twins over dual and hyper-dual numbers, the harness's wrappers\n");
    s.push_str(&twin(p));
    let m = &p.main;
    let unwrap = if m.ret.fallible() { ".unwrap()" } else { "" };
    let _ = writeln!(
        s,
        "fn dual(x: &[D], n: &[usize]) -> D {{\n{IND}{}_dual({}){unwrap}\n}}\n",
        m.name,
        call_args(m, Mode::Dual)
    );
    s.push_str(&wrappers(p));
    s.push_str(&hyper_module(p));
    let dirs: Vec<String> = (0..p.points.len())
        .map(|i| {
            let ds: Vec<String> = crate::hessian::directions(p, i)
                .iter()
                .map(|d| bits_list(d))
                .collect();
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
        "pub const PROG_H: crate::harness::ProgH = crate::harness::ProgH {{\n{IND}n_in: {},\n{IND}dual,\n{IND}hyper: hyper_twin::hyper,\n{IND}hessian,\n{IND}hvp,\n{IND}points: &[{}],\n{IND}hvp_dirs: &[{}],\n{IND}labels: &[{}],\n}};",
        m.n_inputs(),
        points.join(", "),
        dirs.join(", "),
        labels.join(", ")
    );
    s
}

/// Calls of `f_gen_hessian` and of `f_gen_hvp` along the harness's
/// directions at the point of `args` (`floats`, `ints`), for a
/// reproducer's `main`.
pub fn reproducer_calls(p: &Program, point: usize) -> String {
    let m = &p.main;
    let pt = &p.points[point.min(p.points.len() - 1)];
    let literal = |xs: &[f64]| {
        twin_args(
            p,
            literal_args(m, xs, &pt.ints),
            &|o| format!("{:?}", xs[o]),
            &|o, len| {
                let items: Vec<String> = xs[o..o + len].iter().map(|v| format!("{v:?}")).collect();
                format!("&[{}]", items.join(", "))
            },
        )
    };
    let args: Vec<String> = literal(&pt.floats).into_iter().map(|(_, a)| a).collect();
    let args = args.join(", ");
    let mut s = format!(
        "{IND}println!(\"f_gen_hessian = {{:?}}\", {}_gen_hessian({args}));\n",
        m.name
    );
    for v in crate::hessian::directions(p, point.min(p.points.len() - 1)) {
        let dirs: Vec<String> = literal(&v)
            .into_iter()
            .filter(|(active, _)| *active)
            .map(|(_, a)| a)
            .collect();
        let _ = writeln!(
            s,
            "{IND}println!(\"f_gen_hvp along v = {v:?}: {{:?}}\", {}_gen_hvp({args}, {}));",
            m.name,
            dirs.join(", ")
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generic_twin_has_no_f64_but_conversions() {
        let all = crate::features::Features::all();
        let mut twins = 0;
        for seed in 0..200 {
            let p = crate::gen::generate(seed, &all);
            if !p.hessian {
                continue;
            }
            twins += 1;
            let code = gen_code(&p, "#[grad]", "");
            assert!(code.contains("#[grad(hessian"), "seed {seed}:\n{code}");
            // What stays an `f64`: a conversion's operand, an integer's
            // cast, a constant array summed before its conversion.
            let rest = code
                .replace("from_f64(", "")
                .replace(" as f64", "")
                .replace("sum::<f64>()", "");
            assert!(!rest.contains("f64"), "seed {seed}:\n{code}");
        }
        assert!(twins > 80, "{twins} twins in 200 programs");
    }

    #[test]
    fn reads_finds_the_array_not_a_longer_name() {
        assert!(reads("v4[i3] * x", "v4"));
        assert!(reads("(v4.iter().sum::<T>())", "v4"));
        assert!(!reads("v41[0] + av4[1]", "v4"));
        assert!(!reads("v4 + x", "v4"));
        assert!(reads("helper_gen(a, &v4)", "v4"));
        assert!(!reads("helper_gen(a, &v41)", "v4"));
    }
}

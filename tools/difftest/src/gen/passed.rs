//! Feature `passed_whole`: second `#[grad]` functions whose results `f`
//! binds by `let` without a type and only ever passes on whole to other
//! calls, or passes on without a name, nested in a call's arguments. The
//! caller cannot see whether such a result is a float, an array or a
//! `Vec`: #[grad] sends the call through its callee's `_vjp`, which every
//! `#[grad]` function has.
//!
//! A program has one of three sets of functions, all of floats and arrays
//! of one length `N` (2 or 3), each left out where `f` does not call it
//! (arrays and `Vec`s only where `f` calls a method, which keeps `trace`
//! off anyway):
//!
//! - floats only: `hf0(fx0: f64, ..) -> f64`, whose result is passed on
//!   to `hf0` again, `let t = hf0(x, y); .. hf0(t, z)`, `hf0(hf0(x, y),
//!   z)`, and to the other callees' float parameters (`helper(t, ..)`,
//!   `p0.m0(t)`, `g1(t, ..)`); these programs stay under `trace` and `jvp`;
//! - arrays: `mk0(mx0: f64, ..) -> [f64; N]`, `tf0(ta0: [f64; N], tx0:
//!   f64) -> [f64; N]`, `rd0(ra0: [f64; N], rx0: f64) -> f64` (or `ra0:
//!   &[f64; N]`, given `&d`), maybe `hf0`: `let d = mk0(x, y); let e =
//!   tf0(d, z); .. rd0(e, x) ..`, `rd0(tf0(mk0(x, y), z), w)`;
//! - `Vec`s: `vw0(ws0: &[f64], wx0: f64) -> Vec<f64>` (as long as its
//!   slice), `rv0(rs0: &[f64], rx0: f64) -> f64`, `mk0`, maybe `hf0`: `let
//!   w = vw0(&d, x); .. rv0(&w, y) ..`, `rv0(&vw0(&mk0(x, y), z), w)`,
//!   and arrays of the caller's, `vw0(&xs0, x)`.
//!
//! Where `f` binds such a result (anywhere a statement goes: loops and
//! branch arms too), the same statement list goes on with a call passing it
//! on (maybe through `tf0` or `vw0` first) whose float result reaches `f`'s
//! value (the tail reads it, or it is added into an accumulator); later
//! calls anywhere in an expression (`s += rd0(d, s) * x;` in a loop) may
//! pass it again. A program with an array or a `Vec` passed on whole is
//! generated without `#[grad(trace)]`, which does not trace vector outputs
//! (README, "Not traced yet"; src/trace.rs), but under `#[grad(jvp)]`:
//! `f_jvp` passes such a result on through the callee's own `_jvp`, so
//! `mk0`, `tf0` and `vw0` get `jvp` too (src/render.rs `with_jvp`,
//! src/jvp.rs).
//!
//! Three sub-features, each once a #[grad] finding (fixed in the macro:
//! tests/results_passed_on.rs
//! `in_a_fold_start_a_tuple_arm_and_a_loop_after_a_guard`) and on since:
//! an array or a `Vec` passed on whole in a fold's initial value
//! (`passed_whole_in_fold`); an array passed on whole by value in an arm
//! of a tuple from branches (`passed_whole_in_tuple`); a result bound in a
//! branch arm (a `while let`'s body too), given in a loop with a
//! `continue` to a call through its `_vjp` (`passed_whole_in_arm`). Each
//! can be switched off (`--features-off`) to tell a new failure there from
//! one elsewhere.
//!
//! Two more, found once this feature went under `jvp` and fixed in the
//! macro (452c5f5), are on too: a result bound outside a loop passed on
//! inside it to a call whose value is dead (`passed_whole_into_loop`:
//! without it, only results bound in the same loop body are passed on in
//! a loop); under `jvp`, an array lent as a slice to a vector function's
//! `_jvp` (`jvp_array_lent_as_slice`, src/jvp.rs).

use super::*;

/// What a function of `passed_whole` returns, and so what a variable bound
/// to its result is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    Float,
    /// `[f64; N]`
    Array(u64),
    /// `Vec<f64>` of `N` floats.
    Vec(u64),
}

impl Shape {
    /// Whether an array parameter of `style` and length `len` takes a
    /// value of this shape (by reference for all but `[f64; N]`).
    fn fits(self, style: SliceStyle, len: u64) -> bool {
        match self {
            Shape::Float => false,
            Shape::Array(n) => n == len && style != SliceStyle::VecRef,
            Shape::Vec(n) => n == len && style == SliceStyle::Slice,
        }
    }
}

/// The shape of what `f` (a function of `passed_whole`) returns.
fn shape_of(f: &Func) -> Shape {
    let len = f.params.iter().find_map(|p| match p.kind {
        PKind::Slice { len, .. } => Some(len),
        _ => None,
    });
    match (f.ret, &f.ret_arr) {
        (Ret::Array(n), _) => Shape::Array(n),
        (_, Some(_)) => Shape::Vec(len.unwrap_or(0)),
        _ => Shape::Float,
    }
}

/// Whether `text` calls `name`: `name(` after a character that is not
/// part of an identifier.
fn calls(text: &str, name: &str) -> bool {
    let pat = format!("{name}(");
    text.match_indices(&pat).any(|(i, _)| {
        !text[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The functions of `wholes` that `main` calls.
pub(super) fn called(main: &Func, wholes: Vec<Func>) -> Vec<Func> {
    let text = crate::render::func(main, crate::render::Mode::Plain);
    wholes
        .into_iter()
        .filter(|g| calls(&text, &g.name))
        .collect()
}

impl G<'_> {
    /// The functions of one of the three sets; `f` may call them from
    /// then on. Arrays and `Vec`s (not traced) only where
    /// `trace` is off anyway (`untraced`: `f` calls a method), so that as
    /// many programs as before are traced.
    pub(super) fn whole_funcs(&mut self, untraced: bool) -> Vec<Func> {
        let n = if self.rng.chance(0.6) { 2 } else { 3 };
        let w = if untraced { [2, 5, 3] } else { [1, 0, 0] };
        let mut out = Vec::new();
        match self.rng.weighted(&w) {
            0 => out.push(self.float_fn()),
            1 => {
                out.push(self.make_fn(n));
                let style = if self.rng.chance(0.3) {
                    SliceStyle::ArrayRef
                } else {
                    SliceStyle::Array
                };
                out.push(self.reduce_fn("rd0", "ra0", n, style));
                if self.rng.chance(0.7) {
                    out.push(self.map_fn(n));
                }
                if self.rng.chance(0.4) {
                    out.push(self.float_fn());
                }
            }
            _ => {
                out.push(self.make_fn(n));
                out.push(self.vec_fn(n));
                out.push(self.reduce_fn("rv0", "rs0", n, SliceStyle::Slice));
                if self.rng.chance(0.3) {
                    out.push(self.float_fn());
                }
            }
        }
        self.wholes = out
            .iter()
            .map(|f| (f.name.clone(), f.params.clone(), shape_of(f)))
            .collect();
        out
    }

    /// `name(px0: f64, ..)` (one or two floats) and `extra` first, its body
    /// any helper's, returning `ret` (or, with `vec_len`, a `Vec` filled
    /// from its first parameter, a slice of that length).
    fn whole_fn(
        &mut self,
        name: &str,
        prefix: &str,
        extra: Option<Param>,
        ret: Ret,
        vec_len: Option<u64>,
    ) -> Func {
        let floats = if extra.is_some() {
            1
        } else {
            self.rng.range(1, 2)
        };
        let params: Vec<Param> = extra
            .into_iter()
            .chain((0..floats).map(|k| Param {
                name: format!("{prefix}x{k}"),
                kind: PKind::Scalar,
            }))
            .collect();
        self.in_helper = true;
        self.ret = ret;
        self.step_len = vec_len;
        let budget = self.rng.range(0, 2);
        let f = self.func(name, params, budget);
        self.step_len = None;
        self.ret = Ret::Float;
        self.in_helper = false;
        f
    }

    /// `hf0(fx0: f64, ..) -> f64`.
    fn float_fn(&mut self) -> Func {
        self.whole_fn("hf0", "f", None, Ret::Float, None)
    }

    /// `mk0(mx0: f64, ..) -> [f64; n]`.
    fn make_fn(&mut self, n: u64) -> Func {
        self.whole_fn("mk0", "m", None, Ret::Array(n), None)
    }

    /// `tf0(ta0: [f64; n], tx0: f64) -> [f64; n]`, element `k` of its
    /// result `ta0[k] * c + squash(..)`: bounded however deep the nesting.
    fn map_fn(&mut self, n: u64) -> Func {
        let a = Param {
            name: "ta0".to_string(),
            kind: PKind::Slice {
                len: n,
                style: SliceStyle::Array,
            },
        };
        let mut f = self.whole_fn("tf0", "t", Some(a), Ret::Array(n), None);
        let items = std::mem::take(&mut f.ret_items);
        for (k, e) in items.into_iter().enumerate() {
            let c = Expr::Lit(*self.rng.pick(&[0.5, 0.9, -0.75]), LitStyle::Plain);
            let old = Expr::Bin(
                BinOp::Mul,
                Self::b(Expr::Index("ta0".to_string(), IExpr::Lit(k as u64))),
                Self::b(c),
            );
            let e = self.squash(e);
            f.ret_items
                .push(Expr::Bin(BinOp::Add, Self::b(old), Self::b(e)));
        }
        f
    }

    /// `vw0(ws0: &[f64], wx0: f64) -> Vec<f64>`, as long as `ws0`.
    fn vec_fn(&mut self, n: u64) -> Func {
        let a = Param {
            name: "ws0".to_string(),
            kind: PKind::Slice {
                len: n,
                style: SliceStyle::Slice,
            },
        };
        self.whole_fn("vw0", "w", Some(a), Ret::Float, Some(n))
    }

    /// `name(arr: <style>, rx0: f64) -> f64`, its value reading every
    /// element of `arr`.
    fn reduce_fn(&mut self, name: &str, arr: &str, n: u64, style: SliceStyle) -> Func {
        let a = Param {
            name: arr.to_string(),
            kind: PKind::Slice { len: n, style },
        };
        let mut f = self.whole_fn(name, "r", Some(a), Ret::Float, None);
        let mut tail = std::mem::replace(&mut f.body.tail, Expr::Lit(0.0, LitStyle::Plain));
        for k in 0..n {
            let mut t = Expr::Index(arr.to_string(), IExpr::Lit(k));
            if self.rng.chance(0.5) {
                t = Expr::Bin(BinOp::Mul, Self::b(t), Self::b(self.lit()));
            }
            tail = Expr::Bin(BinOp::Add, Self::b(tail), Self::b(t));
        }
        f.body.tail = tail;
        f
    }

    // ------------------------------------------------------------ calls

    /// The visible variables bound to be passed on whole whose shape
    /// `keep` keeps.
    /// Without `passed_whole_into_loop`, only those bound inside the
    /// innermost loop around (or outside every loop, out of one).
    pub(super) fn whole_vars(&self, keep: impl Fn(Shape) -> bool) -> Vec<(String, Shape)> {
        let into_loop = self.has("passed_whole_into_loop");
        let here = |n: &str| {
            self.whole_loops
                .iter()
                .rev()
                .find(|(m, _)| m == n)
                .is_some_and(|(_, l)| *l == self.loops)
        };
        self.frames
            .iter()
            .flat_map(|f| f.wholes.iter())
            .filter(|(n, s)| keep(*s) && (into_loop || here(n)))
            .cloned()
            .collect()
    }

    /// The functions of `passed_whole` whose shape `keep` keeps.
    fn whole_fns(&self, keep: impl Fn(Shape) -> bool) -> Vec<(String, Vec<Param>, Shape)> {
        self.wholes
            .iter()
            .filter(|(_, _, s)| keep(*s))
            .cloned()
            .collect()
    }

    /// A float variable bound to be passed on whole, for a float parameter
    /// of any callee (`call_args`), sometimes.
    pub(super) fn float_whole_arg(&mut self) -> Option<Expr> {
        if self.closure > 0 || self.in_helper {
            return None;
        }
        let vars = self.whole_vars(|s| s == Shape::Float);
        if vars.is_empty() || !self.rng.chance(0.25) {
            return None;
        }
        Some(Expr::Var(self.rng.pick(&vars).0.clone()))
    }

    /// Arguments for `params` of a function of `passed_whole`, `forced`
    /// (the index of a parameter and its argument) given: floats (a
    /// variable or a call passed on whole sometimes), arrays passed on
    /// whole (a variable, or a call nested while `depth` lasts), or a
    /// caller's array for a slice; `None` if some array has no value.
    fn whole_args(
        &mut self,
        params: &[Param],
        depth: u32,
        forced: Option<(usize, Arg)>,
    ) -> Option<Vec<Arg>> {
        let mut args = Vec::new();
        for (i, p) in params.iter().enumerate() {
            if let Some((k, a)) = &forced {
                if *k == i {
                    args.push(a.clone());
                    continue;
                }
            }
            let arg = match p.kind {
                PKind::Scalar => {
                    let vars = self.whole_vars(|s| s == Shape::Float);
                    if !vars.is_empty() && self.rng.chance(0.3) {
                        Arg::F(Expr::Var(self.rng.pick(&vars).0.clone()))
                    } else if depth > 0 && self.rng.chance(0.15) {
                        match self.whole_call(depth - 1) {
                            Some(e) => Arg::F(e),
                            None => Arg::F(self.expr(depth)),
                        }
                    } else {
                        self.in_call += 1;
                        let e = self.expr(depth);
                        self.in_call -= 1;
                        Arg::F(e)
                    }
                }
                PKind::Slice { len, style } => self.array_arg(len, style, depth)?,
                _ => unreachable!("the functions of `passed_whole` take floats and arrays"),
            };
            args.push(arg);
        }
        Some(args)
    }

    /// A value for an array parameter of `style` and length `len`: a
    /// variable passed on whole, a call of `mk0`, `tf0` or `vw0` nested
    /// (while `depth` lasts), or, for a slice, an array of the caller's.
    fn array_arg(&mut self, len: u64, style: SliceStyle, depth: u32) -> Option<Arg> {
        let by_ref = style != SliceStyle::Array;
        let vars = self.whole_vars(|s| s.fits(style, len));
        let own: Vec<String> = if style == SliceStyle::Slice {
            self.arrs_where(|_, k| matches!(k, ArrKind::Param | ArrKind::Local))
                .into_iter()
                .filter(|(_, l)| *l == len)
                .map(|(a, _)| a)
                .collect()
        } else {
            Vec::new()
        };
        if !own.is_empty() && self.rng.chance(0.15) {
            return Some(Arg::A(self.rng.pick(&own).clone()));
        }
        // Nothing passed on whole in a fold's initial value without
        // `passed_whole_in_fold`, nothing by value in an arm of a tuple from
        // branches without `passed_whole_in_tuple` (once #[grad] findings,
        // fixed: see the module's docs).
        let fold = self.in_fold_init > 0 && !self.has("passed_whole_in_fold");
        let tuple = self.in_tuple_arm > 0 && !by_ref && !self.has("passed_whole_in_tuple");
        if fold || tuple {
            return own.first().map(|a| Arg::A(a.clone()));
        }
        if !vars.is_empty() && (depth == 0 || self.rng.chance(0.6)) {
            let v = self.rng.pick(&vars).0.clone();
            return Some(Arg::W {
                by_ref,
                value: Whole::Var(v),
            });
        }
        if depth > 0 {
            let mut fns = self.whole_fns(|s| s.fits(style, len));
            // Each in turn, in a random order, until one has arguments.
            while !fns.is_empty() {
                let (f, params, _) = fns.remove(self.rng.below(fns.len()));
                if let Some(args) = self.whole_args(&params, depth - 1, None) {
                    return Some(Arg::W {
                        by_ref,
                        value: Whole::Call(f, args),
                    });
                }
            }
        }
        if !own.is_empty() {
            return Some(Arg::A(self.rng.pick(&own).clone()));
        }
        None
    }

    /// A call of a function of `passed_whole` returning a float (`hf0`,
    /// `rd0`, `rv0`), its arguments [`Self::whole_args`]; `None` if none
    /// has arguments here.
    pub(super) fn whole_call(&mut self, depth: u32) -> Option<Expr> {
        let mut fns = self.whole_fns(|s| s == Shape::Float);
        while !fns.is_empty() {
            let (f, params, _) = fns.remove(self.rng.below(fns.len()));
            if let Some(args) = self.whole_args(&params, depth, None) {
                return Some(Expr::Call(f, args));
            }
        }
        None
    }

    /// A float call passing `name` (of `shape`) on whole: a float to a
    /// float parameter; an array or a `Vec` to an array parameter, maybe
    /// through `tf0` or `vw0` first (`rd0(tf0(d, x), y)`, `rv0(&vw0(&d,
    /// x), y)`).
    fn pass_on(&mut self, name: &str, shape: Shape, depth: u32) -> Option<Expr> {
        if shape == Shape::Float {
            let mut fns = self.whole_fns(|s| s == Shape::Float);
            while !fns.is_empty() {
                let (f, params, _) = fns.remove(self.rng.below(fns.len()));
                let slots: Vec<usize> = (0..params.len())
                    .filter(|&i| params[i].kind == PKind::Scalar)
                    .collect();
                let slot = *self.rng.pick(&slots);
                let forced = (slot, Arg::F(Expr::Var(name.to_string())));
                if let Some(args) = self.whole_args(&params, depth, Some(forced)) {
                    return Some(Expr::Call(f, args));
                }
            }
            return None;
        }
        let (mut value, mut shape) = (Whole::Var(name.to_string()), shape);
        for _ in 0..2 {
            if !self.rng.chance(0.35) {
                break;
            }
            let through: Vec<(String, Vec<Param>, Shape)> = self
                .whole_fns(|s| s != Shape::Float)
                .into_iter()
                .filter(|(_, ps, _)| {
                    matches!(ps[0].kind, PKind::Slice { len, style } if shape.fits(style, len))
                })
                .collect();
            if through.is_empty() {
                break;
            }
            let (f, params, to) = self.rng.pick(&through).clone();
            let PKind::Slice { style, .. } = params[0].kind else {
                break;
            };
            let arg = Arg::W {
                by_ref: style != SliceStyle::Array,
                value,
            };
            let args = self.whole_args(&params, depth.min(1), Some((0, arg.clone())))?;
            value = Whole::Call(f, args);
            shape = to;
        }
        let mut fns = self.whole_fns(|s| s == Shape::Float);
        while !fns.is_empty() {
            let (f, params, _) = fns.remove(self.rng.below(fns.len()));
            let slot = params.iter().position(
                |p| matches!(p.kind, PKind::Slice { len, style } if shape.fits(style, len)),
            );
            let Some(slot) = slot else {
                continue;
            };
            let PKind::Slice { style, .. } = params[slot].kind else {
                continue;
            };
            let arg = Arg::W {
                by_ref: style != SliceStyle::Array,
                value: value.clone(),
            };
            if let Some(args) = self.whole_args(&params, depth, Some((slot, arg))) {
                return Some(Expr::Call(f, args));
            }
        }
        None
    }

    /// Whether the code being generated may bind results to pass on whole
    /// (`passed_whole`): in `f`, where what the calls passing them give can
    /// reach its value (the body's top level, or an accumulator).
    pub(super) fn wholes_here(&self, ctx: Ctx) -> bool {
        !self.wholes.is_empty()
            && !self.in_helper
            && self.closure == 0
            && (ctx.top || !self.mutables().is_empty())
    }

    /// `let d = g(..);` (one or two, of any function of `passed_whole`, a
    /// later one maybe passing on an earlier one), then calls passing each
    /// on whole whose float values reach `f`'s: `let a = rd0(d, x) + ..;`
    /// read by the tail at the top level, `s += rd0(d, x) * e;` elsewhere
    /// (squashed in a loop).
    pub(super) fn let_passed(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let mut fresh: Vec<(String, Shape)> = Vec::new();
        // Nothing bound in a branch arm without `passed_whole_in_arm` (a
        // #[grad] finding: passed_whole_bound_in_arm_vjp_in_loop.rs): the
        // calls passing values on are nested there.
        // (The body of a `while let` is a `match` arm.)
        let in_arm = self.arms > 0 || self.returned || self.in_while_let > 0;
        let bind = !in_arm || self.has("passed_whole_in_arm");
        let fns = if bind {
            self.wholes.clone()
        } else {
            Vec::new()
        };
        for _ in 0..if bind { self.rng.range(1, 2) } else { 0 } {
            let (f, params, shape) = self.rng.pick(&fns).clone();
            let Some(args) = self.whole_args(&params, 1, None) else {
                continue;
            };
            // Those it passes on are used.
            fresh.retain(|(n, _)| !args_mention(&args, n));
            let name = self.fresh("d");
            out.push(Stmt::LetCall {
                pat: CallPat::Passed(name.clone()),
                func: f,
                args,
            });
            self.frame().wholes.push((name.clone(), shape));
            self.whole_loops.push((name.clone(), self.loops));
            if shape == Shape::Float {
                // A float whose type #[grad] cannot see (a method of a
                // constant receiver given it: `const_receiver_opaque_arg`).
                self.opaque.retain(|n| *n != name);
                self.opaque.push(name.clone());
            }
            fresh.push((name, shape));
        }
        // Sometimes one passed on twice.
        if let Some(extra) =
            (!fresh.is_empty() && self.rng.chance(0.3)).then(|| self.rng.pick(&fresh).clone())
        {
            fresh.push(extra);
        }
        let mut value: Option<Expr> = if bind { None } else { self.whole_call(1) };
        let mut passed: Vec<String> = Vec::new();
        for (name, shape) in &fresh {
            let Some(mut e) = self.pass_on(name, *shape, 1) else {
                continue;
            };
            passed.push(name.clone());
            if self.rng.chance(0.3) {
                e = Expr::Bin(BinOp::Mul, Self::b(e), Self::b(self.lit()));
            }
            value = Some(match value {
                None => e,
                Some(v) => {
                    let op = *self.rng.pick(&[BinOp::Add, BinOp::Add, BinOp::Sub]);
                    Expr::Bin(op, Self::b(v), Self::b(e))
                }
            });
        }
        // A binding no call passes on (none could here): dropped.
        for (name, _) in &fresh {
            if !passed.contains(name) {
                out.retain(
                    |s| !matches!(s, Stmt::LetCall { pat: CallPat::Passed(n), .. } if n == name),
                );
                self.frame().wholes.retain(|(n, _)| n != name);
            }
        }
        let Some(mut value) = value else {
            return;
        };
        if ctx.loops > 0 {
            value = self.squash(value);
        }
        if ctx.top {
            let name = self.fresh("a");
            let typed = self.annotate(&name, &value);
            out.push(Stmt::Let {
                name: name.clone(),
                mutable: false,
                typed,
                init: value,
            });
            self.declare_float(&name, false);
            self.locals.push(name.clone());
            self.must_reach.push(name);
        } else if let Some(s) = self.accumulate(value) {
            out.push(s);
        }
    }
}

/// Whether `args` read the variable `name` (in a float's expression, or
/// passed on whole, in nested calls too).
fn args_mention(args: &[Arg], name: &str) -> bool {
    args.iter().any(|a| match a {
        Arg::F(e) => {
            let mut found = false;
            visit_vars(e, &mut |v| found |= v == name);
            found
        }
        Arg::W { value, .. } => match value {
            Whole::Var(v) => v == name,
            Whole::Call(_, args) => args_mention(args, name),
        },
        Arg::I(_) | Arg::B(_) | Arg::A(_) | Arg::S(_) => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::Features;
    use crate::render;

    /// Statements of a body anywhere (loops, branch arms), with whether
    /// they sit in a loop or an arm.
    fn walk(ss: &[Stmt], nested: bool, f: &mut impl FnMut(&Stmt, bool)) {
        for s in ss {
            f(s, nested);
            match s {
                Stmt::For { body, .. }
                | Stmt::ForEach { body, .. }
                | Stmt::While { body, .. }
                | Stmt::WhileLet { body, .. }
                | Stmt::LetLoop { body, .. }
                | Stmt::Loop { body, .. } => walk(body, true, f),
                Stmt::Labeled { body, .. } => walk(std::slice::from_ref(&**body), true, f),
                Stmt::If { .. } | Stmt::Match { .. } | Stmt::EnumMatch { .. } => {
                    for b in branches(s) {
                        walk(b, true, f);
                    }
                }
                _ => {}
            }
        }
    }

    /// Every variable bound to be passed on whole is only ever an
    /// argument: the rendered body names it only right after `(`, `, `
    /// or `&` of a call, and at its `let`.
    fn only_passed(text: &str, name: &str) -> bool {
        text.match_indices(name).all(|(i, _)| {
            let id = |c: char| c.is_ascii_alphanumeric() || c == '_';
            let after = text[i + name.len()..].chars().next();
            if text[..i].chars().next_back().is_some_and(id) || after.is_some_and(id) {
                return true;
            }
            let before = &text[..i];
            let at_let = before.ends_with("let ");
            let as_arg = before.ends_with('(') || before.ends_with(", ") || before.ends_with('&');
            let ends_arg = matches!(after, Some(')') | Some(','));
            at_let || (as_arg && ends_arg)
        })
    }

    /// The calls of `p`'s main function and the bindings of results to pass
    /// on whole: callee, arguments, the name bound (if any).
    fn calls_in(p: &Program) -> Vec<(String, Vec<Arg>, Option<String>)> {
        fn nested(args: &[Arg], out: &mut Vec<(String, Vec<Arg>, Option<String>)>) {
            for a in args {
                if let Arg::W {
                    value: Whole::Call(f, inner),
                    ..
                } = a
                {
                    out.push((f.clone(), inner.clone(), None));
                    nested(inner, out);
                }
            }
        }
        let mut out = Vec::new();
        let mut body = p.main.body.clone();
        for s in &mut body.stmts {
            walk(std::slice::from_ref(s), false, &mut |s, _| {
                if let Stmt::LetCall { pat, func, args } = s {
                    let name = match pat {
                        CallPat::Passed(n) => Some(n.clone()),
                        _ => None,
                    };
                    out.push((func.clone(), args.clone(), name));
                    nested(args, &mut out);
                }
            });
        }
        map_block(
            &mut body,
            &mut |e: &mut Expr| match e {
                Expr::Call(f, args)
                | Expr::Method(_, f, args, _)
                | Expr::Assoc(_, f, args)
                | Expr::ResultMethod { func: f, args, .. } => {
                    out.push((f.clone(), args.clone(), None));
                    nested(args, &mut out);
                }
                _ => {}
            },
            &mut |_: &mut IExpr| {},
        );
        out
    }

    #[test]
    fn results_are_only_passed_on_whole() {
        let all = Features::all();
        // Bindings in a loop or an arm; an array passed by value, by
        // reference; a `Vec` bound; a float bound and passed on; a call of
        // `mk0`, `tf0` or `vw0` nested in an argument; a float call nested
        // in one; a bound float given to the helper, a method or `g1`; a
        // program passing floats on whole under `trace` and `jvp`.
        let mut seen = [0usize; 9];
        let mut programs = 0;
        for seed in 0..1500 {
            let p = generate(seed, &all);
            if p.wholes.is_empty() {
                continue;
            }
            programs += 1;
            crate::check::validate(&p).unwrap();
            let text = render::func(&p.main, render::Mode::Plain);
            for g in &p.wholes {
                assert!(
                    calls(&text, &g.name),
                    "seed {seed}: `{}` not called",
                    g.name
                );
            }
            let shape = |f: &str| p.wholes.iter().find(|g| g.name == f).map(shape_of);
            let mut names: Vec<(String, bool, Shape)> = Vec::new();
            walk(&p.main.body.stmts, false, &mut |s, nested| {
                if let Stmt::LetCall {
                    pat: CallPat::Passed(n),
                    func,
                    ..
                } = s
                {
                    names.push((
                        n.clone(),
                        nested,
                        shape(func).expect("a function of passed_whole"),
                    ));
                }
            });
            let calls = calls_in(&p);
            for (n, nested, sh) in &names {
                assert!(only_passed(&text, n), "seed {seed}: `{n}` read\n{text}");
                // Passed on, to some call.
                let passed = calls.iter().any(|(_, args, _)| {
                    args.iter().any(|a| match a {
                        Arg::F(Expr::Var(v)) => v == n,
                        Arg::W {
                            value: Whole::Var(v),
                            ..
                        } => v == n,
                        _ => false,
                    })
                });
                assert!(passed, "seed {seed}: `{n}` never passed on\n{text}");
                seen[0] += usize::from(*nested);
                seen[3] += usize::from(matches!(sh, Shape::Vec(_)));
                seen[4] += usize::from(*sh == Shape::Float);
            }
            let floats: Vec<&String> = names
                .iter()
                .filter(|(_, _, s)| *s == Shape::Float)
                .map(|(n, ..)| n)
                .collect();
            for (f, args, _) in &calls {
                for a in args {
                    match a {
                        Arg::W {
                            by_ref,
                            value: Whole::Var(_),
                        } => seen[1 + usize::from(*by_ref)] += 1,
                        Arg::W {
                            value: Whole::Call(..),
                            ..
                        } => seen[5] += 1,
                        Arg::F(Expr::Call(g, _)) if shape(g) == Some(Shape::Float) => seen[6] += 1,
                        Arg::F(Expr::Var(v)) if shape(f).is_none() && floats.contains(&v) => {
                            seen[7] += 1
                        }
                        _ => {}
                    }
                }
            }
            seen[8] += usize::from(p.trace && p.jvp && !floats.is_empty());
        }
        assert!(programs > 250, "{programs} of 1500 programs");
        assert!(seen.iter().all(|&n| n >= 10), "{seen:?}");
    }

    /// Whether `e` passes an array or a `Vec` on whole in the initial
    /// value of a fold.
    fn whole_in_fold_init(e: &Expr) -> bool {
        let mut found = false;
        visit_exprs(e, &mut |x| {
            if let Expr::Fold { init, .. } | Expr::RangeFold { init, .. } = x {
                visit_exprs(init, &mut |y| {
                    if let Expr::Call(_, args) | Expr::Method(_, _, args, _) = y {
                        found |= args.iter().any(|a| matches!(a, Arg::W { .. }));
                    }
                });
            }
        });
        found
    }

    /// Without `passed_whole_in_fold`, no array or
    /// `Vec` is passed on whole in a fold's initial value.
    #[test]
    fn without_passed_whole_in_fold_none_in_a_fold() {
        let off = Features::without(&["passed_whole_in_fold"]).unwrap();
        let mut with_it = 0;
        for seed in 0..1500 {
            for (f, on) in [(&off, false), (&Features::all(), true)] {
                let p = generate(seed, f);
                let mut body = p.main.body.clone();
                let mut found = false;
                map_block(
                    &mut body,
                    &mut |e: &mut Expr| found |= whole_in_fold_init(e),
                    &mut |_: &mut IExpr| {},
                );
                if on {
                    with_it += usize::from(found);
                } else {
                    assert!(!found, "seed {seed}");
                }
            }
        }
        assert!(with_it > 0, "none with the feature on");
    }

    /// Without `passed_whole_in_tuple`, no array is
    /// passed on whole by value in an arm of a tuple from branches.
    #[test]
    fn without_passed_whole_in_tuple_none_by_value_in_a_tuple_arm() {
        fn by_value(e: &Expr) -> bool {
            let mut found = false;
            visit_exprs(e, &mut |x| {
                if let Expr::Call(_, args) = x {
                    found |= args
                        .iter()
                        .any(|a| matches!(a, Arg::W { by_ref: false, .. }));
                }
            });
            found
        }
        let off = Features::without(&["passed_whole_in_tuple"]).unwrap();
        let mut with_it = 0;
        for seed in 0..1500 {
            for (f, on) in [(&off, false), (&Features::all(), true)] {
                let p = generate(seed, f);
                let mut found = false;
                walk(&p.main.body.stmts, false, &mut |s, _| {
                    if let Stmt::LetTuple { init, .. } = s {
                        for arm in init.arms() {
                            found |= arm.items.iter().any(by_value);
                            for s in &arm.stmts {
                                if let Stmt::Let { init, .. } = s {
                                    found |= by_value(init);
                                }
                            }
                        }
                    }
                });
                if on {
                    with_it += usize::from(found);
                } else {
                    assert!(!found, "seed {seed}");
                }
            }
        }
        assert!(with_it > 0, "none with the feature on");
    }

    /// The results bound to be passed on whole in a branch arm of `ss` (an
    /// `if` or `match` arm, after a `return` or a jump of the loop around;
    /// `arm` if `ss` is one).
    fn bound_in_arms(ss: &[Stmt], arm: bool, out: &mut Vec<String>) {
        let mut arm = arm;
        for s in ss {
            match s {
                Stmt::LetCall {
                    pat: CallPat::Passed(n),
                    ..
                } if arm => out.push(n.clone()),
                Stmt::For { body, .. }
                | Stmt::ForEach { body, .. }
                | Stmt::While { body, .. }
                | Stmt::LetLoop { body, .. } => bound_in_arms(body, arm, out),
                // After `if k > N { break; }`; a `match` arm.
                Stmt::Loop { body, .. } | Stmt::WhileLet { body, .. } => {
                    bound_in_arms(body, true, out)
                }
                Stmt::Labeled { body, .. } => {
                    bound_in_arms(std::slice::from_ref(&**body), arm, out)
                }
                Stmt::If { .. } | Stmt::Match { .. } | Stmt::EnumMatch { .. } => {
                    for b in branches(s) {
                        bound_in_arms(b, true, out);
                    }
                }
                _ => {}
            }
            let one = std::slice::from_ref(s);
            arm |= has_return(one) || has_own_jump(one);
        }
    }

    /// Without `passed_whole_in_arm`, no result to
    /// pass on whole is bound in a branch arm.
    #[test]
    fn without_passed_whole_in_arm_none_bound_in_an_arm() {
        let off = Features::without(&["passed_whole_in_arm"]).unwrap();
        let mut with_it = 0;
        for seed in 0..1500 {
            for (f, on) in [(&off, false), (&Features::all(), true)] {
                let p = generate(seed, f);
                let mut found = Vec::new();
                bound_in_arms(&p.main.body.stmts, false, &mut found);
                if on {
                    with_it += usize::from(!found.is_empty());
                } else {
                    assert!(
                        found.is_empty(),
                        "seed {seed}: {found:?}\n{}",
                        render::func(&p.main, render::Mode::Plain)
                    );
                }
            }
        }
        assert!(with_it > 0, "none with the feature on");
    }

    /// Arrays and `Vec`s passed on whole keep `trace` off (vector outputs
    /// are not traced) but not `jvp`: those of them that nothing else keeps
    /// out of it (a writer, a call returning a tuple, ..) are under it.
    #[test]
    fn vectors_passed_on_whole_keep_trace_off_not_jvp() {
        let all = Features::all();
        let (mut vectors, mut under_jvp) = (0, 0);
        for seed in 0..1000 {
            let p = generate(seed, &all);
            if crate::features::passes_vectors_whole(&p) {
                vectors += 1;
                under_jvp += usize::from(p.jvp);
                assert!(!p.trace, "seed {seed}");
                assert!(crate::trace::refused(&p).is_some());
                assert_eq!(p.jvp, crate::jvp::refused(&p).is_none(), "seed {seed}");
            }
        }
        assert!(under_jvp >= 10, "{under_jvp} of {vectors} under jvp");
        let off = Features::without(&["passed_whole"]).unwrap();
        for seed in 0..200 {
            assert!(generate(seed, &off).wholes.is_empty());
        }
    }
}

//! Feature `struct_writer`: functions and methods that return nothing and
//! change one struct of the program's type `P0` through `&mut` (README, "A
//! *struct writer*"), under a bare `#[grad]` (the struct is differentiated
//! by default), and their calls as statements.
//!
//! The writers, one to three, each calling only those before it:
//!
//! - methods `fn drift0(&mut self, dk0: f64[, dk1: f64][, nk0: usize])` in
//!   the `impl` of `P0` beside its other methods;
//! - free functions `fn kick0(sp: &mut P0, kk0: f64[, ..])`.
//!
//! A writer's body: maybe a `let` of a float, then, in a random order,
//! writes of whole fields (`self.f0 op= e` with `=`, `+=`, `-=`, `*=`,
//! `/=`, each bounded however often the writer runs, as an assignment in
//! a loop is), maybe one in an `if`/`else`, maybe a `for` loop of writes
//! (to a literal, `self.n` or the `usize` parameter), maybe a call of an
//! earlier writer on the struct (`self.drift0(e);`, `kick0(self, e);`,
//! `sp.drift0(e);`, `kick0(sp, e);`, `Self::drift0(self, e);` with
//! `method_path`), maybe the struct replaced whole (`*self = P0 { f0:
//! carry(self.f0), .. };`, in an `if` too; with a grid, `n: self.n` and a
//! `w` filled before it, as `st0`'s), and with a grid maybe `self.w = v;`
//! of a `Vec` filled from `self.w` right before. Its expressions read the
//! struct's fields, `self.w[k]`, `self.n`, and the struct whole through
//! `m0` (`self.m0(x)`; by its path, `Self::m0(self, x)`, only with
//! `struct_writer_path_read`: a finding, see KNOWN_FAILING).
//!
//! `f` (and `hp0`, where the program has it) holds structs for them: a
//! `let mut q = P0 { f0: e, .. };` of active values, or a copy of the
//! differentiated struct parameter, `let mut q = p0.clone();` (`hp.clone()`
//! in `hp0`), then calls the writers on it, right there or in a time loop
//! (`for .. { q.drift0(e); kick0(&mut q, e); .. }`, checkpointed too at
//! the top level of `f`), and anywhere a statement goes later (loops,
//! branch arms), on any `let mut` local struct of `P0` in scope (those of
//! `struct_values` too). Its fields are read as any local struct's (`q.f0
//! * x`, the tail). An argument of a writer lent the struct by `&mut`
//! (`kick0(&mut q, e)`, `P0::drift0(&mut q, e)`) does not read it (rustc:
//! borrowed for the call); on the receiver (`q.drift0(q.f0 * e)`) it may:
//! in a writer, of a copy of a parameter, and of a struct built whole with
//! `struct_writer_arg_reads_receiver` (a finding, KNOWN_FAILING).
//!
//! Not generated, as the README refuses it: a part of a field changed in
//! place (`self.w[i] = ..`) or lent (`&mut self.f0`).

use super::*;

/// A struct writer `f` may call.
#[derive(Clone, Debug)]
pub(super) struct Sig {
    pub name: String,
    /// A method (`&mut self`), else a free function (`sp: &mut P0`).
    pub method: bool,
    /// Its parameters after the struct.
    pub params: Vec<Param>,
}

impl G<'_> {
    /// The struct writers of `P0` (its layout in `self.layout`), each
    /// calling those before it and `m0` of `methods` (if any) on the
    /// struct it changes.
    pub(super) fn struct_writer_funcs(&mut self, methods: &[Func]) -> Vec<Func> {
        let m0: Vec<(String, Vec<Param>)> = methods
            .iter()
            .filter(|m| m.name == "m0" && m.ret == Ret::Float)
            .map(|m| (m.name.clone(), m.params[1..].to_vec()))
            .collect();
        let (mut drifts, mut kicks) = (0, 0);
        let mut out = Vec::new();
        for _ in 0..self.rng.range(1, 3) {
            let method = self.rng.chance(0.55);
            let (name, lent, prefix) = if method {
                drifts += 1;
                (
                    format!("drift{}", drifts - 1),
                    Param {
                        name: "self".to_string(),
                        kind: PKind::MutReceiver,
                    },
                    "dk",
                )
            } else {
                kicks += 1;
                (
                    format!("kick{}", kicks - 1),
                    Param {
                        name: "sp".to_string(),
                        kind: PKind::MutStruct,
                    },
                    "kk",
                )
            };
            let mut params = vec![lent.clone()];
            for k in 0..self.rng.range(1, 2) {
                params.push(Param {
                    name: format!("{prefix}{k}"),
                    kind: PKind::Scalar,
                });
            }
            if self.rng.chance(0.3) {
                let max = self.rng.range(1, 3) as u64;
                params.push(Param {
                    name: "nk0".to_string(),
                    kind: PKind::Int { max },
                });
            }
            self.method_calls = m0
                .iter()
                .map(|(m, ps)| (lent.name.clone(), m.clone(), ps.clone()))
                .collect();
            self.sw_lent = Some(lent.name.clone());
            self.in_helper = true;
            self.ret = Ret::Unit;
            let f = self.func(&name, params.clone(), 0);
            self.ret = Ret::Float;
            self.in_helper = false;
            self.sw_lent = None;
            self.method_calls.clear();
            self.sw_sigs.push(Sig {
                name,
                method,
                params: params[1..].to_vec(),
            });
            out.push(f);
        }
        out
    }

    /// The body of the struct writer being generated (its parameters
    /// declared; the struct it changes is [`G::sw_lent`]).
    pub(super) fn struct_writer_body(&mut self) -> Vec<Stmt> {
        let lent = self.sw_lent.clone().expect("a struct writer");
        let (fields, grid) = self.layout.expect("the struct type");
        let mut out = Vec::new();
        if self.rng.chance(0.4) {
            let name = self.fresh("t");
            let init = self.expr(2);
            let typed = self.annotate(&name, &init);
            out.push(Stmt::Let {
                name: name.clone(),
                mutable: false,
                typed,
                init,
            });
            self.declare_float(&name, false);
        }
        // Groups of statements, in a random order.
        let mut groups: Vec<Vec<Stmt>> = Vec::new();
        let mut order: Vec<u64> = (0..fields).collect();
        for i in (1..order.len()).rev() {
            let j = self.rng.below(i + 1);
            order.swap(i, j);
        }
        for (n, &k) in order.iter().enumerate() {
            if self.rng.chance(0.7) || (groups.is_empty() && n + 1 == order.len()) {
                groups.push(vec![self.sw_write(&lent, k)]);
            }
        }
        if self.has("if_stmt") && self.rng.chance(0.35) {
            let cond = self.cond(2);
            self.arms += 1;
            let k = self.rng.below(fields as usize) as u64;
            let then = vec![self.sw_write(&lent, k)];
            let els = if self.rng.chance(0.6) {
                let k = self.rng.below(fields as usize) as u64;
                Some(vec![self.sw_write(&lent, k)])
            } else {
                None
            };
            self.arms -= 1;
            groups.push(vec![Stmt::If { cond, then, els }]);
        }
        if self.has("for_range") && self.rng.chance(0.3) {
            groups.push(vec![self.sw_loop(&lent, fields)]);
        }
        if !self.sw_sigs.is_empty() && self.rng.chance(0.55) {
            let mut g = Vec::new();
            if self.has("if_stmt") && self.rng.chance(0.3) {
                let cond = self.cond(1);
                self.arms += 1;
                let mut then = Vec::new();
                self.sw_call(&lent, &mut then);
                self.arms -= 1;
                if !then.is_empty() {
                    g.push(Stmt::If {
                        cond,
                        then,
                        els: None,
                    });
                }
            } else {
                self.sw_call(&lent, &mut g);
            }
            groups.push(g);
        }
        if self.rng.chance(0.25) {
            let mut g = Vec::new();
            let lit = self.sw_lit(&lent, fields, grid, &mut g);
            let replace = Stmt::StructReplace {
                target: lent.clone(),
                lit,
            };
            if self.has("if_stmt") && self.rng.chance(0.5) {
                let cond = self.cond(1);
                g.push(Stmt::If {
                    cond,
                    then: vec![replace],
                    els: None,
                });
            } else {
                g.push(replace);
            }
            groups.push(g);
        }
        if let Some(g) = grid.filter(|_| self.rng.chance(0.35)) {
            let mut stmts = Vec::new();
            let v = self.sw_vec(&lent, g.len(), &mut stmts);
            stmts.push(Stmt::VecFieldAssign {
                target: lent.clone(),
                src: v,
            });
            groups.push(stmts);
        }
        for i in (1..groups.len()).rev() {
            let j = self.rng.below(i + 1);
            groups.swap(i, j);
        }
        out.extend(groups.into_iter().flatten());
        out
    }

    /// `lent.fK op= e`, bounded however often the writer runs: `=` of a
    /// function of the old value with a factor below 1 ([`G::carry`]),
    /// `+=`/`-=` of a squashed value, `*=` by a factor below 1 or a
    /// squashed value, `/=` by at least 1.
    fn sw_write(&mut self, lent: &str, k: u64) -> Stmt {
        let old = Expr::Field(lent.to_string(), k);
        let mut ops = vec![AOp::Set];
        if self.has("compound_assign") {
            ops.extend([AOp::Add, AOp::Add, AOp::Sub, AOp::Mul]);
            if self.has("division") {
                ops.push(AOp::Div);
            }
        }
        let op = *self.rng.pick(&ops);
        let value = match op {
            AOp::Set => self.carry(old),
            AOp::Add | AOp::Sub => {
                let e = self.expr(2);
                self.squash(e)
            }
            AOp::Mul => {
                if self.rng.chance(0.5) {
                    Expr::Lit(*self.rng.pick(&[0.5, 0.9, 0.75]), LitStyle::Plain)
                } else {
                    let e = self.expr(1);
                    self.squash(e)
                }
            }
            AOp::Div => {
                let e = self.expr(1);
                let c = *self.rng.pick(&[1.0, 1.5, 2.0]);
                Expr::Bin(
                    BinOp::Add,
                    Self::b(Expr::Bin(BinOp::Mul, Self::b(e.clone()), Self::b(e))),
                    Self::b(Expr::Lit(c, LitStyle::Plain)),
                )
            }
        };
        Stmt::FieldAssign {
            name: lent.to_string(),
            field: k,
            op,
            value,
        }
    }

    /// `for i in 0..hi { writes }` in a writer, `hi` a literal, `self.n`
    /// or the writer's `usize` parameter.
    fn sw_loop(&mut self, lent: &str, fields: u64) -> Stmt {
        let mut his: Vec<(IExpr, u64)> = vec![{
            let n = self.rng.range(1, 3) as u64;
            (IExpr::Lit(n), n)
        }];
        for (n, max) in self.ints() {
            if n == format!("{lent}.n") || n == "nk0" {
                his.push((IExpr::Var(n), max));
            }
        }
        let (hi, max) = self.rng.pick(&his).clone();
        self.push();
        self.loops += 1;
        let i = self.fresh("i");
        self.frame().ints.push((i.clone(), max.saturating_sub(1)));
        let mut body = Vec::new();
        for _ in 0..self.rng.range(1, 2) {
            let k = self.rng.below(fields as usize) as u64;
            body.push(self.sw_write(lent, k));
        }
        self.loops -= 1;
        self.pop();
        Stmt::For {
            var: i,
            range: Self::upto(hi),
            body,
            ckpt: None,
        }
    }

    /// The struct a writer replaces `lent` with: each float field a bounded
    /// function of the old one; with a grid, `n: lent.n` and a new `w`
    /// filled before it (into `stmts`).
    fn sw_lit(
        &mut self,
        lent: &str,
        fields: u64,
        grid: Option<Grid>,
        stmts: &mut Vec<Stmt>,
    ) -> StructLit {
        let grid = grid.map(|g| {
            let w = self.sw_vec(lent, g.len(), stmts);
            (IExpr::Var(format!("{lent}.n")), VecInit::Var(w))
        });
        let floats = (0..fields)
            .map(|k| self.carry(Expr::Field(lent.to_string(), k)))
            .collect();
        StructLit { floats, grid }
    }

    /// `let mut v = vec![0.0; len]; for i in 0..lent.w.len() { v[i] =
    /// carry(lent.w[i]); }` (or one store per element): a new `w`.
    fn sw_vec(&mut self, lent: &str, len: u64, stmts: &mut Vec<Stmt>) -> String {
        let out = self.fresh("v");
        let typed = !self.has("untyped_array") || self.rng.chance(0.5);
        stmts.push(Stmt::LetArr {
            name: out.clone(),
            typed,
            init: ArrInit::Fill { len, vec: true },
        });
        let src = format!("{lent}.w");
        let old = |i: IExpr| Expr::Index(src.clone(), i);
        if !self.has("for_range") {
            for k in 0..len {
                let value = self.carry(old(IExpr::Lit(k)));
                stmts.push(Stmt::Store {
                    arr: out.clone(),
                    idx: IExpr::Lit(k),
                    op: AOp::Set,
                    value,
                });
            }
            return out;
        }
        self.push();
        self.loops += 1;
        let i = self.fresh("i");
        self.frame().ints.push((i.clone(), len - 1));
        let value = self.carry(old(IExpr::Var(i.clone())));
        self.loops -= 1;
        self.pop();
        stmts.push(Stmt::For {
            var: i.clone(),
            range: Self::upto(IExpr::Len(src.clone())),
            body: vec![Stmt::Store {
                arr: out.clone(),
                idx: IExpr::Var(i),
                op: AOp::Set,
                value,
            }],
            ckpt: None,
        });
        out
    }

    /// A call of a struct writer in scope on `target` (a `let mut` local
    /// struct, or the struct the writer being generated changes): on its
    /// receiver or by its path for a method, `kick0(&mut q, e)` for a free
    /// function; an argument of a call lending `target` by `&mut` does
    /// not read it.
    pub(super) fn sw_call(&mut self, target: &str, out: &mut Vec<Stmt>) {
        if self.sw_sigs.is_empty() {
            return;
        }
        let sig = self.rng.pick(&self.sw_sigs).clone();
        let path = sig.method && self.method_path();
        // Lent by `&mut` as an argument, the struct is borrowed for the
        // call: no argument reads it. On the receiver they may, but for a
        // local struct built whole only with
        // `struct_writer_arg_reads_receiver` (a finding: KNOWN_FAILING).
        let from_param = self
            .local_structs()
            .iter()
            .any(|l| l.name == target && l.from_param);
        let held = self
            .local_structs()
            .iter()
            .any(|l| l.name == target && l.held.is_some());
        let reads_ok = sig.method
            && !path
            && !held
            && (self.sw_lent.as_deref() == Some(target)
                || from_param
                || self.has("struct_writer_arg_reads_receiver"));
        let mut args = None;
        for _ in 0..4 {
            let Some(cand) = self.call_args(&sig.params, 2) else {
                return;
            };
            if reads_ok
                || !cand
                    .iter()
                    .any(|a| crate::check::arg_reads_struct(a, target))
            {
                args = Some(cand);
                break;
            }
        }
        let args = match args {
            Some(a) => a,
            None => sig
                .params
                .iter()
                .map(|p| match p.kind {
                    PKind::Int { max } => {
                        Arg::I(IExpr::Lit(self.rng.range(0, max as usize) as u64))
                    }
                    _ => Arg::F(self.lit()),
                })
                .collect(),
        };
        if !self.sw_called.contains(&sig.name) {
            self.sw_called.push(sig.name.clone());
        }
        out.push(Stmt::StructWrite {
            target: target.to_string(),
            writer: sig.name,
            args,
            method: sig.method,
            path,
        });
    }

    /// Whether the code being generated may hold structs for the writers
    /// and call them: `f` (and `hp0`) of a program with struct writers,
    /// outside closures, not a writer itself.
    pub(super) fn sw_here(&self) -> bool {
        self.sw_in && self.closure == 0 && self.sw_lent.is_none() && !self.sw_sigs.is_empty()
    }

    /// Whether a local struct for the writers may be declared here: one
    /// with `n` and `w` where an array may be (its `w` becomes one).
    fn sw_decl_ok(&self, ctx: Ctx) -> bool {
        self.sw_here()
            && (self.layout.is_some_and(|(_, g)| g.is_none())
                || ((ctx.top || ctx.loop_top) && self.in_while_let == 0))
    }

    /// The `let mut` local structs a writer may be called on here: a copy
    /// of a parameter in a loop only in one at the top level of the body,
    /// without `struct_writer_param_copy_nested_loop` (a finding:
    /// KNOWN_FAILING).
    fn sw_targets(&self) -> Vec<String> {
        let copies_ok = self.param_copies_change_here();
        self.local_structs()
            .into_iter()
            .filter(|l| l.mutable && l.whole && (copies_ok || !l.from_param))
            .map(|l| l.name)
            .collect()
    }

    /// Whether a copy of a parameter (`let mut q = p0.clone();`) may be
    /// changed here, by a writer or through a field: outside loops; in a
    /// loop, at the top level of the body without
    /// `struct_writer_param_copy_nested_loop`, after at most one of its
    /// jumps (or `if` arms) without `struct_writer_param_copy_loop_jumps`
    /// (findings: KNOWN_FAILING).
    pub(super) fn param_copies_change_here(&self) -> bool {
        self.loops == 0
            || ((self.loops == 1 && self.top_loop
                || self.has("struct_writer_param_copy_nested_loop"))
                && (self.arms <= self.loop_arms + 1
                    || self.has("struct_writer_param_copy_loop_jumps")))
    }

    /// The statement weight of [`G::sw_stmt`].
    pub(super) fn sw_weight(&self, ctx: Ctx) -> u32 {
        if !self.sw_here() {
            0
        } else if !self.sw_targets().is_empty() {
            6
        } else if self.sw_decl_ok(ctx) {
            if self.sw_called.is_empty() {
                10
            } else {
                3
            }
        } else {
            0
        }
    }

    /// A writer called on a `let mut` local struct in scope, or a new one
    /// declared for them and changed right away (or by a time loop).
    pub(super) fn sw_stmt(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let targets = self.sw_targets();
        if !targets.is_empty() && (!self.sw_decl_ok(ctx) || self.rng.chance(0.65)) {
            let q = self.rng.pick(&targets).clone();
            self.sw_call(&q, out);
            if !ctx.top && self.rng.chance(0.6) {
                self.sw_read(&q, out);
            }
            return;
        }
        if self.sw_decl_ok(ctx) {
            self.sw_let(ctx, out);
        }
    }

    /// `s += q.fK * e` into a `let mut` float: what a writer did to `q`
    /// reaches the value from here.
    fn sw_read(&mut self, q: &str, out: &mut Vec<Stmt>) {
        let (fields, _) = self.layout.expect("the struct type");
        let k = self.rng.below(fields as usize) as u64;
        out.extend(self.accumulate(Expr::Field(q.to_string(), k)));
    }

    /// `let mut q = P0 { .. };` or `let mut q = p0.clone();`, then the
    /// writers on it: one or two calls, or a loop whose body starts with
    /// them ([`G::planned_writes`]).
    fn sw_let(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let (fields, grid) = self.layout.expect("the struct type");
        let sources: Vec<String> = self
            .structs
            .iter()
            .filter(|(n, _, active)| *active && n != "self")
            .map(|(n, ..)| n.clone())
            .collect();
        // A copy of a parameter where the loops its writers may be called
        // in are at the top level of the body (without
        // `struct_writer_param_copy_nested_loop`, as [`G::sw_targets`]).
        let copy_ok =
            (ctx.top && !self.returned) || self.has("struct_writer_param_copy_nested_loop");
        let init = if copy_ok && !sources.is_empty() && self.rng.chance(0.5) {
            StructInit::Clone(self.rng.pick(&sources).clone())
        } else {
            StructInit::Lit(self.struct_lit(fields, grid))
        };
        let name = self.fresh("q");
        self.declare_struct_local(&name, true, init, out);
        let loops_ok = if self.in_helper {
            ctx.loops == 0 && ctx.ifs == 0 && self.has("for_range")
        } else if ctx.loops == 0 {
            ctx.ifs == 0 || self.has("loop_in_if")
        } else {
            self.has("nested_loops") && ctx.loops < 2
        };
        if loops_ok && self.rng.chance(0.55) {
            self.sw_plan = Some(name.clone());
            self.loop_stmt(ctx, out);
            self.sw_plan = None;
        } else {
            for _ in 0..self.rng.range(1, 2) {
                self.sw_call(&name, out);
            }
        }
        if !ctx.top {
            self.sw_read(&name, out);
        }
    }

    /// The writers' calls a loop body of [`G::sw_let`] starts with: one or
    /// two on its struct.
    pub(super) fn planned_writes(&mut self, body: &mut Vec<Stmt>) {
        if let Some(q) = self.sw_plan.take() {
            for _ in 0..self.rng.range(1, 2) {
                self.sw_call(&q, body);
            }
        }
    }
}

/// The struct writers `roots` call, and those they call, at any depth
/// (the writers `f` and `hp0` do not reach are left out).
pub(super) fn reached(roots: &[&Func], writers: &[Func]) -> Vec<String> {
    fn calls(ss: &[Stmt], out: &mut Vec<String>) {
        for s in ss {
            match s {
                Stmt::StructWrite { writer, .. } if !out.contains(writer) => {
                    out.push(writer.clone());
                }
                Stmt::For { body, .. }
                | Stmt::ForEach { body, .. }
                | Stmt::While { body, .. }
                | Stmt::WhileLet { body, .. }
                | Stmt::LetLoop { body, .. }
                | Stmt::Loop { body, .. } => calls(body, out),
                Stmt::Labeled { body, .. } => calls(std::slice::from_ref(&**body), out),
                Stmt::If { .. } | Stmt::Match { .. } | Stmt::EnumMatch { .. } => {
                    for b in branches(s) {
                        calls(b, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for f in roots {
        calls(&f.body.stmts, &mut out);
    }
    let mut k = 0;
    while k < out.len() {
        if let Some(w) = writers.iter().find(|w| w.name == out[k]) {
            calls(&w.body.stmts, &mut out);
        }
        k += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render;

    /// The shapes of `struct_writer` show up, in valid programs, none of
    /// them under `trace`, `jvp` or `hessian`; without the feature there
    /// are none.
    #[test]
    fn struct_writers_are_written_and_called_in_every_shape() {
        let all = Features::all();
        let pats = [
            "(&mut self, dk0: f64",
            "(sp: &mut P0, kk0: f64",
            "= p0.clone();",
            "= hp.clone();",
            "kick0(&mut q",
            "P0::drift0(&mut q",
            "*self = P0 {",
            "*sp = P0 {",
            "self.w = v",
            "sp.w = v",
            "Self::drift0(self",
            "kick0(self, ",
            "kick0(sp, ",
            "sp.drift0(",
            "self.m0(",
            "sp.m0(",
        ];
        let mut seen = [0usize; 16];
        let (mut programs, mut in_loop, mut ckpt) = (0, 0, 0);
        for seed in 0..1500 {
            let p = generate(seed, &all);
            if p.struct_writers.is_empty() {
                continue;
            }
            programs += 1;
            crate::check::validate(&p).unwrap();
            assert!(!p.trace && !p.jvp && !p.hessian, "seed {seed}");
            let text = render::user_code(&p, "#[grad]");
            for (k, pat) in pats.iter().enumerate() {
                seen[k] += usize::from(text.contains(pat));
            }
            // A writer called in a loop of `f`, a checkpointed one too.
            fn calls(ss: &[Stmt]) -> bool {
                ss.iter().any(|s| match s {
                    Stmt::StructWrite { .. } => true,
                    Stmt::If { .. } | Stmt::Match { .. } => {
                        branches(s).into_iter().any(|b| calls(b))
                    }
                    _ => false,
                })
            }
            for s in &p.main.body.stmts {
                if let Stmt::For { body, .. }
                | Stmt::While { body, .. }
                | Stmt::Loop { body, .. }
                | Stmt::ForEach { body, .. } = s
                {
                    let hit = calls(body);
                    in_loop += usize::from(hit);
                    ckpt += usize::from(hit && matches!(s, Stmt::For { ckpt: Some(_), .. }));
                }
            }
            for w in &p.struct_writers {
                assert!(w.is_struct_writer() && w.ret == Ret::Unit);
            }
        }
        assert!(programs >= 100, "{programs} programs with struct writers");
        assert!(seen.iter().all(|&n| n >= 3), "{seen:?}");
        assert!(
            in_loop >= 20 && ckpt >= 2,
            "{in_loop} loops, {ckpt} checkpointed"
        );
        let off = Features::without(&["struct_writer"]).unwrap();
        for seed in 0..300 {
            assert!(generate(seed, &off).struct_writers.is_empty());
        }
    }

    /// Without `struct_writer_path_read`, a writer reads its struct only on
    /// its receiver.
    #[test]
    fn a_writer_reads_its_struct_by_path_only_with_its_feature() {
        let off = Features::without(&["struct_writer_path_read"]).unwrap();
        for seed in 0..1500 {
            let p = generate(seed, &off);
            if p.struct_writers.is_empty() {
                continue;
            }
            crate::check::validate(&p).unwrap();
            for w in &p.struct_writers {
                let text = render::func(w, render::Mode::Plain);
                assert!(
                    !text.contains("Self::m0(self") && !text.contains("P0::m0(sp"),
                    "seed {seed}: a writer reads its struct by a method's path\n{text}"
                );
            }
        }
    }
}

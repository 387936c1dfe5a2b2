//! Feature `struct_values`: local structs of the struct parameter's type
//! `P0` (which derives `Differentiable`) in `f`, built whole from active
//! values with every field named, `let q = P0 { f0: e, .., n: i, w: v };`
//! (`w` being `xs.to_vec()`, `p0.w.clone()`, `vec![a, b]` or `vec![e;
//! len]`, exactly as long as the grid), and used whole:
//!
//! - the receiver of `P0`'s `#[grad(wrt(self, x))]` methods, `q.m0(e)`;
//! - given by reference to `hp0(hp: &P0, h0: f64, ..)` under
//!   `#[grad(wrt(hp, h0, ..))]`, `hp0(&q, e)`;
//! - copied, `let r = q;` (in the block that declares `q`), `let r =
//!   q.clone();`, `let r = P0 { f1: e, ..q };`, the copy used as any;
//! - `let mut` and changed through a field, `q.f1 += e;`, a method called
//!   on it, in loops and branch arms too;
//! - replaced whole by a method returning `Self`, `st0(&self, x: f64) ->
//!   Self` under `#[grad(wrt(self, x))]` (its `w`, with a grid, a new
//!   `Vec` filled from `self.w` before it), as a loop's time step, `q =
//!   q.st0(e);`, also in branch arms; its fields read afterwards (the tail
//!   reads the fields of the structs in scope at the end of the body).
//!
//! Its fields are read like a struct parameter's, `q.f0`, `q.w[k]`.
//!
//! What the generator leaves out: what the README refuses (a struct used
//! inside a macro, `vec![.., hp0(&q, e)]`; used whole after `&&` or `||`,
//! which the refusal lists), and shapes #[grad] gets wrong, each a finding
//! with its smallest program in the session's
//! `difftest_findings/struct_values_*.rs`, to allow again once fixed:
//!
//! - a `w` of values whose type #[grad] cannot see: an item shows a float,
//!   `e * (1 as f64)` (`opaque_vec_field`);
//! - `w: self.w.clone()` or `vec![..]` written in the struct a method
//!   returns (`return_vec_field_inline`): `st0` binds its `w` first.
//!
//! Generated again since #[grad] was fixed for them (their findings kept
//! as regressions): a method of a `let mut` struct with `n` and `w` where
//! a branch arm is around (`mut_method_after_match_jump`), `q = q.st0(e)`
//! with `e` reading `q` (`step_arg_reads_struct`), for a type with `n` and
//! `w` a copy in a branch arm or after a `return` (`grid_copy_in_arm`) and
//! a use whole in a loop bound by a `let` never read
//! (`grid_dead_whole_use_in_loop`), a use whole in a tuple's `if` arm
//! inside a branch arm (`whole_use_in_tuple_if`) and in a `return`'s value
//! two branch arms deep in a loop (`return_in_nested_arm`).

use super::*;

/// A local struct of the function being generated, in scope.
#[derive(Clone, Debug)]
pub(super) struct Local {
    pub name: String,
    pub mutable: bool,
    /// Nothing moved out of it (`..q` of a type with a `Vec`): it may be
    /// used whole.
    pub whole: bool,
    /// A copy of a struct parameter, `let mut q = p0.clone();`
    /// (`struct_writer`), or a copy of one.
    pub from_param: bool,
    /// Held as an element of a `Vec` (`struct_vec_locals`): `q[k]`, a
    /// place behind `IndexMut`, so a writer's argument may not read it
    /// (`q[1].drift0(q[1].f0)` is E0502, as two-phase borrows do not
    /// reach through an index). The index: the `Vec` holds `k + 1`
    /// structs.
    pub held: Option<u64>,
}

impl G<'_> {
    /// Whether the code being generated may use local structs: `f`, when
    /// the program has them.
    pub(super) fn sv_here(&self) -> bool {
        self.sv && !self.in_helper && self.closure == 0
    }

    /// Whether the code being generated may read the fields of local
    /// structs: `f` with `struct_values`, and the functions holding
    /// structs for the struct writers (`struct_writer`: `f`, `hp0`).
    pub(super) fn locals_here(&self) -> bool {
        self.sv_here() || self.sw_here()
    }

    /// The grid of the struct type, if it has `n` and `w`.
    fn sv_grid(&self) -> Option<Grid> {
        self.layout.and_then(|(_, g)| g)
    }

    /// The local structs in scope.
    pub(super) fn local_structs(&self) -> Vec<Local> {
        self.frames
            .iter()
            .flat_map(|f| f.structs.iter().cloned())
            .collect()
    }

    /// The whole local structs in scope, given to `hp0` and copied.
    fn whole_structs(&self) -> Vec<Local> {
        self.local_structs()
            .into_iter()
            .filter(|l| l.whole)
            .collect()
    }

    /// Whether an expression here may use a local struct whole: in `f`,
    /// not inside `vec![..]` (refused inside a macro, README,
    /// [`G::no_whole_use`]), nor after `&&` or `||` (refused there:
    /// struct_values_whole_use_in_and_or.rs).
    pub(super) fn whole_use_here(&self) -> bool {
        self.sv_here() && self.no_whole_use == 0 && self.in_logic == 0
    }

    /// Local structs a method may be called on anywhere in an expression
    /// (`let mut` ones too): the whole ones.
    pub(super) fn local_receivers(&self) -> Vec<String> {
        if !self.whole_use_here() {
            return Vec::new();
        }
        let copies_ok = self.param_copy_methods_here();
        self.whole_structs()
            .into_iter()
            .filter(|l| copies_ok || !l.from_param)
            .map(|l| l.name)
            .collect()
    }

    /// Whether a copy of a parameter (`struct_writer`'s `let mut q =
    /// p0.clone();`, or a copy of it) may be used whole here, a method
    /// called on it or copied: outside loops, without
    /// `struct_writer_param_copy_whole_in_loop` (a finding: KNOWN_FAILING).
    fn param_copy_methods_here(&self) -> bool {
        self.loops == 0 || self.has("struct_writer_param_copy_whole_in_loop")
    }

    /// Whether `e` reads a `let mut` local struct (a field, a method
    /// called on it, `&q` given to a call): a value that changes.
    pub(super) fn reads_mutable_struct(&self, e: &Expr) -> bool {
        let muts: Vec<String> = self
            .local_structs()
            .into_iter()
            .filter(|l| l.mutable)
            .map(|l| l.name)
            .collect();
        if muts.is_empty() {
            return false;
        }
        let mut found = false;
        visit_exprs(e, &mut |x| match x {
            Expr::Field(q, _) | Expr::Method(q, ..) => found |= muts.contains(q),
            Expr::Call(_, args) => {
                found |= args
                    .iter()
                    .any(|a| matches!(a, Arg::S(q) if muts.contains(q)))
            }
            _ => {}
        });
        found
    }

    // ------------------------------------------------------------ callees

    /// `hp0(hp: &P0, h0: f64, ..)` under `#[grad(wrt(hp, h0, ..))]`: a
    /// function of the struct's fields (its grid's too) and one or two
    /// floats.
    pub(super) fn struct_fn_func(&mut self) -> Func {
        let (fields, grid) = self.layout.expect("the struct type");
        let mut params = vec![Param {
            name: STRUCT_FN_PARAM.to_string(),
            kind: PKind::Struct {
                fields,
                grid,
                fixed: None,
            },
        }];
        for k in 0..self.rng.range(1, 2) {
            params.push(Param {
                name: format!("h{k}"),
                kind: PKind::Scalar,
            });
        }
        self.in_helper = true;
        let budget = self.rng.range(0, 2);
        let f = self.func("hp0", params.clone(), budget);
        self.in_helper = false;
        self.struct_fn = Some(("hp0".to_string(), params[1..].to_vec()));
        f
    }

    /// `st0(&self, x: f64) -> Self` under `#[grad(wrt(self, x))]`: a few
    /// statements, then `P0 { f0: .., f1: .. }`, each field a bounded
    /// function of the old one ([`Self::step_lit`]). Only for a type of
    /// floats (module doc).
    pub(super) fn step_method_func(&mut self) -> Func {
        let params = vec![
            Param {
                name: "self".to_string(),
                kind: PKind::Receiver,
            },
            Param {
                name: "x".to_string(),
                kind: PKind::Scalar,
            },
        ];
        self.in_helper = true;
        self.ret = Ret::Struct;
        let budget = self.rng.range(0, 2);
        let f = self.func("st0", params.clone(), budget);
        self.ret = Ret::Float;
        self.in_helper = false;
        self.step_method = Some(("st0".to_string(), params[1..].to_vec()));
        f
    }

    /// The struct `st0` returns: each float field a bounded function of
    /// its old value, however often the step runs; with a grid, `n:
    /// self.n` and a new `w` of the old one's elements, filled before it
    /// ([`Self::step_w`]).
    pub(super) fn step_lit(&mut self, stmts: &mut Vec<Stmt>) -> StructLit {
        let (fields, grid) = self.layout.expect("the struct type");
        let grid = grid.map(|g| {
            let w = self.step_w(g.len(), stmts);
            (IExpr::Var("self.n".to_string()), VecInit::Var(w))
        });
        let floats = (0..fields)
            .map(|k| self.carry(Expr::Field("self".to_string(), k)))
            .collect();
        StructLit { floats, grid }
    }

    /// `let mut v = vec![0.0; len]; for i in 0..self.w.len() { v[i] =
    /// carry(self.w[i]); }`: `st0`'s new `w`, bound before the struct
    /// (written in it, `self.w.clone()` or `vec![..]` is refused, a
    /// finding: struct_values_return_vec_field_inline.rs).
    fn step_w(&mut self, len: u64, stmts: &mut Vec<Stmt>) -> String {
        let out = self.fresh("v");
        let typed = !self.has("untyped_array") || self.rng.chance(0.5);
        stmts.push(Stmt::LetArr {
            name: out.clone(),
            typed,
            init: ArrInit::Fill { len, vec: true },
        });
        let old = |i: IExpr| Expr::Index("self.w".to_string(), i);
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
            range: Self::upto(IExpr::Len("self.w".to_string())),
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

    // ------------------------------------------------------------ statements

    /// Whether a local struct may be declared here: in `f`; one with `n`
    /// and `w` where an array may be (its `w` becomes one).
    pub(super) fn struct_decl_ok(&self, ctx: Ctx) -> bool {
        self.sv_here() && (self.sv_grid().is_none() || ctx.top || ctx.loop_top)
    }

    /// Whether `q = q.st0(e)` may go here: in `f`, with `st0`.
    fn step_ok(&self) -> bool {
        self.step_method.is_some() && self.sv_here()
    }

    /// The structs a copy may be made of here: whole ones in scope (in a
    /// branch arm too, since #[grad] keeps a copy's `w` there:
    /// struct_values_grid_copy_in_arm.rs).
    fn copy_sources(&self) -> Vec<Local> {
        if !self.sv_here() {
            return Vec::new();
        }
        let copies_ok = self.param_copy_methods_here();
        self.whole_structs()
            .into_iter()
            .filter(|l| copies_ok || !l.from_param)
            .collect()
    }

    /// Whether `q` is declared in this block: it may be moved here (not
    /// again by a later iteration of a loop around, nor maybe moved after
    /// a branch).
    fn declared_here(&self, q: &str) -> bool {
        self.frames
            .last()
            .is_some_and(|f| f.structs.iter().any(|l| l.name == q))
    }

    /// `let [mut] q = P0 { .. };`, a `let mut` one maybe stepped by a loop
    /// right after, `for .. { q = q.st0(e); .. }`, then often used whole.
    pub(super) fn let_struct(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let (fields, grid) = self.layout.expect("the struct type");
        let name = self.fresh("q");
        // Mostly `let mut` where `st0` steps it.
        let odds = if self.step_method.is_some() { 0.7 } else { 0.5 };
        let mutable = self.has("let_mut") && self.rng.chance(odds);
        let init = StructInit::Lit(self.struct_lit(fields, grid));
        self.declare_struct_local(&name, mutable, init, out);
        // A time loop stepping it.
        let loops_ok = if ctx.loops == 0 {
            ctx.ifs == 0 || self.has("loop_in_if")
        } else {
            self.has("nested_loops") && ctx.loops < 2
        };
        // A loop over the `Vec` holding it (drawn from the stream of the
        // features added with it).
        let held = self.held_vecs().iter().any(|(q, _)| *q == name);
        if held && loops_ok && self.has("struct_vec_loops") && self.more.chance(0.8) {
            self.held_next = true;
            self.loop_stmt(ctx, out);
            self.held_next = false;
        }
        if mutable && self.step_ok() && loops_ok && self.rng.chance(0.6) {
            self.struct_step = Some(name.clone());
            self.loop_stmt(ctx, out);
            self.struct_step = None;
            if !ctx.top {
                let k = self.rng.below(fields as usize) as u64;
                out.extend(self.accumulate(Expr::Field(name.clone(), k)));
            }
        }
        if self.rng.chance(0.8) {
            self.whole_use(&name, ctx, out, true);
        }
    }

    /// `let [mut] name = init;` in this block.
    pub(super) fn declare_struct_local(
        &mut self,
        name: &str,
        mutable: bool,
        init: StructInit,
        out: &mut Vec<Stmt>,
    ) {
        // A copy of a parameter, or of such a copy.
        let from_param = match &init {
            StructInit::Clone(q) | StructInit::Move(q) | StructInit::Update(_, q) => {
                self.structs.iter().any(|(n, ..)| n == q)
                    || self
                        .local_structs()
                        .iter()
                        .any(|l| l.name == *q && l.from_param)
            }
            StructInit::Lit(_) => false,
        };
        // Held in a `Vec` of structs: one built by a literal, of a type
        // without a grid (a `Vec` of structs splits into a float array
        // per field, README).
        let held = (matches!(init, StructInit::Lit(_))
            && self.sv_grid().is_none()
            && self.has("struct_vec_locals")
            && self.rng.chance(0.4))
        .then(|| self.rng.below(2) as u64);
        // Alone in its `Vec` (no constant struct before it), each field's
        // `Vec` takes its float type from this struct's value for it: one
        // whose type #[grad] does not see (a call's result) is shown a
        // float (README: bind such a value with its type first).
        let init = match (held, init) {
            (Some(0), StructInit::Lit(mut l)) => {
                for e in l.floats.iter_mut() {
                    if !self.anchored(e) && !matches!(e, Expr::Lit(..)) {
                        *e = Self::float_shown(e.clone());
                    }
                }
                StructInit::Lit(l)
            }
            (_, init) => init,
        };
        out.push(Stmt::LetStruct {
            name: name.to_string(),
            mutable,
            init,
            held,
        });
        self.frame().structs.push(Local {
            name: name.to_string(),
            mutable,
            whole: true,
            from_param,
            held,
        });
        if let Some(g) = self.sv_grid() {
            self.frame()
                .arrs
                .push((format!("{name}.w"), g.len(), ArrKind::StructW));
        }
    }

    /// Whether `q` may be copied here ([`Self::copy_sources`]).
    fn copyable(&self, q: &str) -> bool {
        self.copy_sources().iter().any(|l| l.name == q)
    }

    /// A use of the local struct `q` whole, in a statement of its own: a
    /// method called on it, `hp0(&q, e)`, or, with `copies`, a copy of it
    /// (itself maybe used whole then).
    fn whole_use(&mut self, q: &str, ctx: Ctx, out: &mut Vec<Stmt>, copies: bool) {
        if !self.whole_structs().iter().any(|l| l.name == q) {
            return;
        }
        if !self.sv_here() {
            return;
        }
        let mut kinds = Vec::new();
        let copy = self
            .local_structs()
            .iter()
            .any(|l| l.name == q && l.from_param);
        if !self.sv_methods.is_empty() && (!copy || self.param_copy_methods_here()) {
            kinds.extend([0, 0]);
        }
        if self.struct_fn.is_some() {
            kinds.extend([1, 1]);
        }
        if copies && self.copyable(q) {
            kinds.extend([2, 2]);
        }
        if kinds.is_empty() {
            return;
        }
        match *self.rng.pick(&kinds) {
            0 => {
                let call = self.method_on(q);
                self.use_whole(call, ctx, out);
            }
            1 => {
                let call = self.struct_fn_call_on(q, 2);
                self.use_whole(call, ctx, out);
            }
            _ => self.copy_struct(q, ctx, out),
        }
    }

    /// `let r = q;` (`q` of this block), `let r = q.clone();` or `let r =
    /// P0 { f1: e, ..q };` (`q` of this block where its `w` moves), `r`
    /// maybe used whole then.
    fn copy_struct(&mut self, src: &str, ctx: Ctx, out: &mut Vec<Stmt>) {
        let (fields, grid) = self.layout.expect("the struct type");
        let kinds: &[u8] = if self.declared_here(src) {
            &[0, 1, 2]
        } else if grid.is_none() {
            &[1, 2]
        } else {
            &[1]
        };
        let init = match *self.rng.pick(kinds) {
            0 => {
                // Moved: gone from this block.
                let fr = self.frame();
                fr.structs.retain(|l| l.name != src);
                let w = format!("{src}.w");
                fr.arrs.retain(|(a, ..)| *a != w);
                StructInit::Move(src.to_string())
            }
            1 => StructInit::Clone(src.to_string()),
            _ => {
                let mut given = Vec::new();
                for k in 0..fields {
                    if (given.is_empty() && k + 1 == fields) || self.rng.chance(0.5) {
                        given.push((k, self.expr(2)));
                    }
                }
                if grid.is_some() {
                    // Its `w` moved out: its floats are left.
                    let fr = self.frame();
                    let w = format!("{src}.w");
                    fr.arrs.retain(|(a, ..)| *a != w);
                    for l in fr.structs.iter_mut().filter(|l| l.name == src) {
                        l.whole = false;
                    }
                }
                StructInit::Update(given, src.to_string())
            }
        };
        let name = self.fresh("q");
        let mutable = self.has("let_mut") && self.rng.chance(0.3);
        self.declare_struct_local(&name, mutable, init, out);
        if self.rng.chance(0.7) {
            self.whole_use(&name, ctx, out, false);
        }
    }

    /// `P0 { f0: e, .., n: i, w: v }`, its `w` exactly as long as the grid.
    pub(super) fn struct_lit(&mut self, fields: u64, grid: Option<Grid>) -> StructLit {
        let floats = (0..fields).map(|_| self.expr(2)).collect();
        let grid = grid.map(|g| {
            let p0n = "p0.n".to_string();
            let n = if self.ints().iter().any(|(v, _)| *v == p0n) && self.rng.chance(0.5) {
                IExpr::Var(p0n)
            } else {
                IExpr::Lit(g.n)
            };
            let len = g.len();
            // Its items inside `vec![..]`: no local struct used whole
            // there (README: refused inside a macro).
            self.no_whole_use += 1;
            let to_vec: Vec<String> = self
                .arrs_where(|_, k| matches!(k, ArrKind::Param | ArrKind::Local))
                .into_iter()
                .filter(|(_, l)| *l == len)
                .map(|(a, _)| a)
                .collect();
            let cloned: Vec<String> = self
                .arrs_where(|_, k| matches!(k, ArrKind::Field { .. } | ArrKind::StructW))
                .into_iter()
                .filter(|(a, l)| *l == len && a.ends_with(".w"))
                .map(|(a, _)| a)
                .collect();
            let mut kinds = vec![2, 3];
            if !to_vec.is_empty() {
                kinds.extend([0, 0, 0, 0]);
            }
            if !cloned.is_empty() {
                kinds.push(1);
            }
            let w = match *self.rng.pick(&kinds) {
                0 => VecInit::ToVec(self.rng.pick(&to_vec).clone()),
                1 => VecInit::Clone(self.rng.pick(&cloned).clone()),
                2 if len <= 4 => {
                    let mut items: Vec<Expr> = (0..len).map(|_| self.expr(1)).collect();
                    self.in_items = true;
                    if !items.iter().any(|e| self.anchored(e)) {
                        items[0] = Self::float_shown(items[0].clone());
                    }
                    self.in_items = false;
                    VecInit::List(items)
                }
                _ => {
                    let e = self.expr(1);
                    let e = if self.anchored(&e) {
                        e
                    } else {
                        Self::float_shown(e)
                    };
                    VecInit::Fill(Box::new(e), len)
                }
            };
            self.no_whole_use -= 1;
            (n, w)
        });
        StructLit { floats, grid }
    }

    /// `e * (1 as f64)`: `e` with a float #[grad] sees. The `w` of a
    /// struct built whole becomes an array of its own (`let q_w = vec![..];`)
    /// whose type #[grad] must see in its items, and no type can be
    /// written for it (a finding: struct_values_opaque_vec_field.rs).
    fn float_shown(e: Expr) -> Expr {
        Expr::Bin(
            BinOp::Mul,
            Self::b(e),
            Self::b(Expr::IntCast(IExpr::Lit(1))),
        )
    }

    /// A statement using a local struct in scope: a field changed, a step
    /// `q = q.st0(e)`, a method called on it or `hp0(&q, e)` into a
    /// variable, a copy; nothing if none fits.
    pub(super) fn struct_stmt(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let structs = self.whole_structs();
        // A copy of a parameter (`struct_writer`) changed by its fields or
        // stepped only with `struct_writer_param_copy_fields` (a finding:
        // KNOWN_FAILING), and where its writers may change it.
        let copies_ok =
            self.has("struct_writer_param_copy_fields") && self.param_copies_change_here();
        let muts: Vec<Local> = structs
            .iter()
            .filter(|l| l.mutable && (copies_ok || !l.from_param))
            .cloned()
            .collect();
        let sources = self.copy_sources();
        let mut kinds = Vec::new();
        if !muts.is_empty() {
            kinds.extend([0, 0, 0]);
            if self.step_ok() {
                kinds.extend([1, 1]);
            }
        }
        if !structs.is_empty() {
            kinds.extend([2, 2]);
        }
        if !sources.is_empty() {
            kinds.push(3);
        }
        if kinds.is_empty() {
            return;
        }
        match *self.rng.pick(&kinds) {
            0 => {
                let q = self.rng.pick(&muts).name.clone();
                self.field_assign(&q, ctx, out);
            }
            1 => {
                let q = self.rng.pick(&muts).name.clone();
                self.struct_step(&q, ctx, out);
            }
            2 => {
                let q = self.rng.pick(&structs).name.clone();
                self.whole_use(&q, ctx, out, false);
            }
            _ => {
                let q = self.rng.pick(&sources).name.clone();
                self.copy_struct(&q, ctx, out);
            }
        }
    }

    /// The value of a `return` in a loop body: any expression (a local
    /// struct used whole two branch arms deep too, since #[grad] was fixed
    /// for it: struct_values_return_in_nested_arm.rs).
    pub(super) fn return_value(&mut self) -> Expr {
        self.expr(2)
    }

    /// `q.f1 op= e`, bounded however often it runs.
    fn field_assign(&mut self, q: &str, ctx: Ctx, out: &mut Vec<Stmt>) {
        let (fields, _) = self.layout.expect("the struct type");
        let field = self.rng.below(fields as usize) as u64;
        let mut ops = vec![AOp::Set];
        if self.has("compound_assign") {
            ops.extend([AOp::Add, AOp::Add, AOp::Sub, AOp::Mul]);
            if self.has("division") {
                ops.push(AOp::Div);
            }
        }
        let op = *self.rng.pick(&ops);
        let value = self.update_value(Expr::Field(q.to_string(), field), op, ctx);
        out.push(Stmt::FieldAssign {
            name: q.to_string(),
            field,
            op,
            value,
        });
    }

    /// `q = q.st0(e);`, `e` maybe reading `q` (since #[grad] was fixed for
    /// it: struct_values_step_arg_reads_struct.rs); in a loop body that
    /// declares `q`, its field read right after (it goes at the end of the
    /// iteration).
    fn struct_step(&mut self, q: &str, ctx: Ctx, out: &mut Vec<Stmt>) {
        let Some((method, params)) = self.step_method.clone() else {
            return;
        };
        let Some(args) = self.call_args(&params, 2) else {
            return;
        };
        self.sv_stepped = true;
        out.push(Stmt::StructStep {
            name: q.to_string(),
            method,
            args,
        });
        let here = self
            .frames
            .last()
            .is_some_and(|f| f.structs.iter().any(|l| l.name == q));
        if here && ctx.loops > 0 {
            let (fields, _) = self.layout.expect("the struct type");
            let k = self.rng.below(fields as usize) as u64;
            out.extend(self.accumulate(Expr::Field(q.to_string(), k)));
        }
    }

    /// The step of a loop body that [`Self::let_struct`] planned, at its
    /// start where no branch arm is around (not in a `loop`, whose body
    /// follows its `if k > N { break; }`).
    pub(super) fn planned_step(&mut self, ctx: Ctx, body: &mut Vec<Stmt>) {
        if let Some(q) = self.struct_step.take() {
            if self.step_ok() {
                self.struct_step(&q, ctx, body);
            }
        }
    }

    /// `q.m0(e)` of a float method of `P0`.
    fn method_on(&mut self, q: &str) -> Expr {
        let (name, params) = self.rng.pick(&self.sv_methods).clone();
        match self.call_args(&params, 2) {
            Some(args) => {
                let path = self.method_path();
                Expr::Method(q.to_string(), name, args, path)
            }
            None => self.leaf(),
        }
    }

    /// `hp0(&q, e, ..)`.
    fn struct_fn_call_on(&mut self, q: &str, depth: u32) -> Expr {
        let (name, params) = self.struct_fn.clone().expect("the struct function");
        let Some(rest) = self.call_args(&params, depth) else {
            return self.leaf();
        };
        self.sv_fn_called = true;
        let mut args = vec![Arg::S(q.to_string())];
        args.extend(rest);
        Expr::Call(name, args)
    }

    /// `hp0(&q, e, ..)` of a whole local struct in scope, in an expression.
    pub(super) fn struct_fn_call(&mut self, depth: u32) -> Expr {
        let structs = self.whole_structs();
        if structs.is_empty() {
            return self.leaf();
        }
        let q = self.rng.pick(&structs).name.clone();
        self.struct_fn_call_on(&q, depth)
    }

    /// `let a = e;` (read by the tail at the top level) or `s += e * c`
    /// into a `let mut` float, bounded where it reads what changes.
    fn use_value(&mut self, e: Expr, ctx: Ctx, out: &mut Vec<Stmt>) {
        if !self.mutables().is_empty() && self.rng.chance(0.5) {
            if let Some(s) = self.accumulate(e.clone()) {
                out.push(s);
                return;
            }
        }
        self.bind_value(e, ctx, out);
    }

    /// A use whole of a local struct, `call`, in a statement: `let a =
    /// call;` (in a loop never read too, since #[grad] was fixed for it:
    /// struct_values_grid_dead_whole_use_in_loop.rs) or `s += call * e;`.
    fn use_whole(&mut self, call: Expr, ctx: Ctx, out: &mut Vec<Stmt>) {
        self.use_value(call, ctx, out);
    }

    /// `let a = e;`, read by the tail at the top level.
    fn bind_value(&mut self, e: Expr, ctx: Ctx, out: &mut Vec<Stmt>) {
        let name = self.fresh("a");
        let typed = self.annotate(&name, &e);
        out.push(Stmt::Let {
            name: name.clone(),
            mutable: false,
            typed,
            init: e,
        });
        self.declare_float(&name, false);
        if ctx.top {
            self.locals.push(name);
        }
    }

    /// The fields of the local structs in scope at the end of the body,
    /// for the tail (at most three).
    pub(super) fn struct_reads(&mut self) -> Vec<Expr> {
        let (fields, _) = match self.layout {
            Some(l) if self.locals_here() => l,
            _ => return Vec::new(),
        };
        let structs = self.local_structs();
        let keep = structs.len().saturating_sub(3);
        structs[keep..]
            .iter()
            .map(|l| {
                let k = self.rng.below(fields as usize) as u64;
                Expr::Field(l.name.clone(), k)
            })
            .collect()
    }
}

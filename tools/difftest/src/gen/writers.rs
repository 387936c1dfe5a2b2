//! Feature `float_writer`: a writer of several floats of one type, `fn
//! w0(wm0: &mut f64, wm1: &mut f64, wk0: f64) { *wm0 += ..; *wm1 = ..; }`
//! under `#[grad]`, and its calls from `f` as statements, `w0(&mut x, &mut
//! y, e);`, lending `let mut` floats of `f` in any order, anywhere a
//! statement goes (loops and branch arms too).
//!
//! The writer's body: maybe a `let`, then a write of each float it takes
//! (`=`, `+=`, `-=`, `*=`, `/=`, bounded however often it runs, as an
//! assignment in a loop is), maybe one more write, or two in the arms of an
//! `if`, and maybe a guard clause `if c { [*a = ..;] return; }` among them
//! at the top level of the body, as the README allows (a `return;`
//! elsewhere is refused).

use super::*;

/// Loop context for the writer's updates: they must stay bounded however
/// often the writer runs.
const IN_LOOP: Ctx = Ctx {
    loops: 1,
    top: false,
    loop_top: false,
    loops_at_top: false,
    ifs: 0,
};

impl G<'_> {
    /// The writer `w0`: two (or three) floats by `&mut`, then one or two
    /// floats by value.
    pub(super) fn writer_func(&mut self) -> Func {
        let n = if self.rng.chance(0.3) { 3 } else { 2 };
        let mut params: Vec<Param> = (0..n)
            .map(|k| Param {
                name: format!("wm{k}"),
                kind: PKind::MutScalar,
            })
            .collect();
        for k in 0..self.rng.range(1, 2) {
            params.push(Param {
                name: format!("wk{k}"),
                kind: PKind::Scalar,
            });
        }
        self.in_helper = true;
        self.ret = Ret::Unit;
        let f = self.func("w0", params.clone(), 0);
        self.ret = Ret::Float;
        self.in_helper = false;
        self.writer = Some(("w0".to_string(), params));
        f
    }

    /// The writer's body (its parameters declared, `wm..` mutable).
    pub(super) fn writer_body(&mut self) -> Vec<Stmt> {
        let targets = self.mutables();
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
        let mut writes: Vec<Stmt> = Vec::new();
        let mut order = targets.clone();
        for i in (1..order.len()).rev() {
            let j = self.rng.below(i + 1);
            order.swap(i, j);
        }
        for t in &order {
            writes.push(self.write(t));
        }
        if self.rng.chance(0.3) {
            let t = self.rng.pick(&targets).clone();
            writes.push(self.write(&t));
        }
        if self.has("if_stmt") && self.rng.chance(0.3) {
            let cond = self.cond(2);
            self.arms += 1;
            let a = self.rng.pick(&targets).clone();
            let then = vec![self.write(&a)];
            let els = if self.rng.chance(0.6) {
                let b = self.rng.pick(&targets).clone();
                Some(vec![self.write(&b)])
            } else {
                None
            };
            self.arms -= 1;
            let at = self.rng.range(0, writes.len());
            writes.insert(at, Stmt::If { cond, then, els });
        }
        if self.rng.chance(0.4) {
            // `if c { [*a = ..;] return; }` among the writes.
            let cond = self.cond(2);
            self.arms += 1;
            let mut then = Vec::new();
            if self.rng.chance(0.3) {
                let t = self.rng.pick(&targets).clone();
                then.push(self.write(&t));
            }
            then.push(Stmt::ReturnVoid);
            self.arms -= 1;
            let at = self.rng.range(0, writes.len());
            writes.insert(
                at,
                Stmt::If {
                    cond,
                    then,
                    els: None,
                },
            );
        }
        out.extend(writes);
        out
    }

    /// `*t op= e`, bounded however often it runs.
    fn write(&mut self, t: &str) -> Stmt {
        let mut ops = vec![AOp::Set];
        if self.has("compound_assign") {
            ops.extend([AOp::Add, AOp::Sub, AOp::Mul]);
            if self.has("division") {
                ops.push(AOp::Div);
            }
        }
        let op = *self.rng.pick(&ops);
        let value = self.update_value(Expr::Var(t.to_string()), op, IN_LOOP);
        Stmt::Assign {
            name: t.to_string(),
            op,
            value,
        }
    }

    /// The number of floats the writer takes by `&mut`.
    fn writer_lends(&self) -> usize {
        self.writer.as_ref().map_or(0, |(_, ps)| {
            ps.iter().filter(|p| p.kind == PKind::MutScalar).count()
        })
    }

    /// The `let mut` floats that may be lent to the writer: those declared
    /// with their type written. (#[grad] refuses to lend one whose type
    /// the source does not state, `let mut a = p0.f0;`, although it
    /// differentiates its assignments: a finding, not generated.)
    fn lendable(&self) -> Vec<String> {
        self.mutables()
            .into_iter()
            .filter(|n| self.written(n))
            .filter(|n| self.has("writer_lends_shadowing") || self.written_everywhere(n))
            .collect()
    }

    /// Whether every declaration of the float `name` in scope, shadowed
    /// ones too, has its type written. (#[grad] refuses to lend a typed
    /// `let mut a: f64` that shadows an untyped `let a = h(x);`, blaming
    /// the outer one: a finding, KNOWN_FAILING `writer_lends_shadowing`.)
    fn written_everywhere(&self, name: &str) -> bool {
        self.frames
            .iter()
            .filter(|f| f.floats.iter().any(|(n, _)| n == name))
            .all(|f| f.written.iter().any(|n| n == name))
    }

    /// Whether the visible declaration of the float `name` has its type
    /// written.
    fn written(&self, name: &str) -> bool {
        self.frames
            .iter()
            .rev()
            .find(|f| f.floats.iter().any(|(n, _)| n == name))
            .is_some_and(|f| f.written.iter().any(|n| n == name))
    }

    /// Whether a call of the writer may go here: in `f`, with enough
    /// `let mut` floats in scope (or at the top level of the body, where
    /// the missing ones are declared).
    pub(super) fn writer_callable(&self, ctx: Ctx) -> bool {
        self.writer.is_some()
            && !self.in_helper
            && self.closure == 0
            && (ctx.top || self.lendable().len() >= self.writer_lends())
    }

    /// Before a loop of `f`, often, enough typed `let mut` floats for the
    /// writer to be called in its body: `let mut s: f64 = v;`.
    pub(super) fn lend_ahead(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        if self.writer.is_none() || self.in_helper || !self.rng.chance(0.6) {
            return;
        }
        let n = self.writer_lends();
        while self.lendable().len() < n {
            let name = self.fresh("s");
            let init = if self.rng.chance(0.5) {
                self.lit()
            } else {
                self.leaf()
            };
            self.frame().written.push(name.clone());
            out.push(Stmt::Let {
                name: name.clone(),
                mutable: true,
                typed: true,
                init,
            });
            self.declare_float(&name, true);
            if ctx.top {
                self.locals.push(name);
            }
        }
    }

    /// `w0(&mut x, &mut y, e);`: distinct `let mut` floats in a random
    /// order (declared here if there are too few), arguments that do not
    /// read them (they are borrowed for the call).
    pub(super) fn writer_call(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let Some((name, params)) = self.writer.clone() else {
            return;
        };
        let n = self.writer_lends();
        let mut pool = self.lendable();
        while pool.len() < n {
            if !ctx.top {
                return;
            }
            let v = self.fresh("a");
            let init = self.expr(2);
            self.frame().written.push(v.clone());
            out.push(Stmt::Let {
                name: v.clone(),
                mutable: true,
                typed: true,
                init,
            });
            self.declare_float(&v, true);
            self.locals.push(v.clone());
            pool.push(v);
        }
        let mut lent = Vec::new();
        for _ in 0..n {
            let k = self.rng.below(pool.len());
            lent.push(pool.remove(k));
        }
        let mut args = Vec::new();
        for p in &params[n..] {
            debug_assert_eq!(p.kind, PKind::Scalar);
            let mut e = None;
            for _ in 0..4 {
                self.in_call += 1;
                let cand = self.expr(2);
                self.in_call -= 1;
                if !lent.iter().any(|l| mentions_var(&cand, l)) {
                    e = Some(cand);
                    break;
                }
            }
            let e = e.unwrap_or_else(|| self.lit());
            args.push(Arg::F(e));
        }
        self.writer_called = true;
        out.push(Stmt::WriterCall { name, lent, args });
    }
}

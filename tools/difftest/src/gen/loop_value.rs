//! Feature `loop_value`: a `loop` whose value a `let` binds, `let mut k:
//! usize = 0; let r = loop { k += 1; ..; if c { [s = ..;] break e; } ..; if
//! k > N { break e2; } };`, its break values active expressions (reading
//! the variables the body changes too), `r` read afterwards (by the tail,
//! or added into a mutable variable where the loop is not at the top level
//! of the body). The body is any loop's statements; its own jumps are
//! `break e;` only (a `break;` without a value is not Rust there, and a
//! `continue` would skip the exit at the end of the body: a hang). Some
//! are labelled, `let r = 'scan: loop { .. }`, and hold a `for` loop that
//! leaves them with a value, `for j in .. { ..; if c { break 'scan e; }
//! .. }`.

use super::*;

impl G<'_> {
    /// `let r = loop { .. };` with its counter before it.
    pub(super) fn let_loop(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        self.ensure_accumulator(ctx, out);
        let counter = self.fresh("k");
        let limit = self.rng.range(1, 5) as u64;
        // A `return` inside (in the body or a loop in it) only where the
        // value loop is not in another loop: #[grad] refuses one in a value
        // loop nested in a loop ("`return` inside a loop .. in a loop at the
        // top level of the body"; the README's "not yet" for a loop not at
        // the top level).
        let inner = Ctx {
            loops: ctx.loops + 1,
            top: false,
            loop_top: true,
            loops_at_top: ctx.loops_at_top && ctx.ifs == 0 && ctx.loops == 0,
            ifs: 0,
        };
        self.push();
        self.loops += 1;
        // The body runs with `k` up to `N + 1` (the last time before the
        // exit's check).
        self.frame().ints.push((counter.clone(), limit + 1));
        let n = self.rng.range(1, 3);
        let at = self.rng.range(0, n);
        let label = self.rng.chance(0.35).then(|| self.fresh("scan"));
        let inner_at = self.rng.range(0, n);
        let arms = self.arms;
        let mut body = Vec::new();
        let mut values = Vec::new();
        for k in 0..=n {
            if k == at {
                let (s, e) = self.break_value_if(inner);
                body.push(s);
                values.push(e);
                self.arms += 1;
            }
            if let (true, Some(l)) = (k == inner_at, &label) {
                let (s, e) = self.loop_breaking_to(inner, l);
                body.push(s);
                values.push(e);
            }
            if k == n {
                break;
            }
            if !self.mutables().is_empty() && self.rng.chance(0.5) {
                self.assign(inner, &mut body);
            } else {
                self.stmt(inner, &mut body);
            }
        }
        let exit = self.expr(2);
        self.arms = arms;
        self.loops -= 1;
        self.pop();
        let name = self.fresh("r");
        let probe = values
            .iter()
            .chain(std::iter::once(&exit))
            .find(|e| self.anchored(e))
            .unwrap_or(&exit)
            .clone();
        let typed = self.annotate(&name, &probe);
        out.push(Stmt::LetLoop {
            name: name.clone(),
            typed,
            counter,
            limit,
            body,
            exit,
            label,
        });
        self.declare_float(&name, false);
        self.use_later(ctx, &name, out);
    }

    /// `for j in .. { [..;] if c { [s = ..;] break 'label e; } s += ..; }`
    /// inside the value loop labelled `label`, and `e`.
    fn loop_breaking_to(&mut self, ctx: Ctx, label: &str) -> (Stmt, Expr) {
        let ctx2 = Ctx {
            loops: ctx.loops + 1,
            top: false,
            loop_top: true,
            ifs: 0,
            ..ctx
        };
        self.push();
        self.loops += 1;
        let j = self.fresh("i");
        let (range, max) = self.range();
        self.frame().ints.push((j.clone(), max));
        let mut body = Vec::new();
        if !self.mutables().is_empty() && self.rng.chance(0.5) {
            self.assign(ctx2, &mut body);
        }
        let mut value = None;
        body.push(self.guarded_jump(ctx2, |g| {
            let e = g.expr(2);
            value = Some(e.clone());
            Stmt::BreakValueTo(label.to_string(), e)
        }));
        let e = value.expect("guarded_jump makes the jump");
        let read = match self.rng.chance(0.5) {
            true => Expr::IntCast(IExpr::Var(j.clone())),
            false => self.leaf(),
        };
        body.extend(self.accumulate(read));
        self.loops -= 1;
        self.pop();
        (
            Stmt::For {
                var: j,
                range,
                body,
                ckpt: None,
            },
            e,
        )
    }

    /// `if c { [s = ..;] break e; }`, and `e`.
    fn break_value_if(&mut self, ctx: Ctx) -> (Stmt, Expr) {
        let mut value = None;
        let s = self.guarded_jump(ctx, |g| {
            let e = g.expr(2);
            value = Some(e.clone());
            Stmt::BreakValue(e)
        });
        (s, value.expect("guarded_jump makes the jump"))
    }
}

//! Feature `labels`: two `for` loops over ranges, the outer one labeled,
//! `'outer: for i in .. { ..; for j in .. { ..; if c { [s = ..;] break
//! 'outer; } ..; s += e; } .. }` (or `continue 'outer;`), the jump at a
//! random place among the inner body's statements, which change float
//! accumulators declared before the loops.

use super::*;

impl G<'_> {
    /// The labeled loop and the loop inside it.
    pub(super) fn labeled_loops(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        self.ensure_accumulator(ctx, out);
        let label = self.fresh("outer");
        let ctx1 = Ctx {
            loops: ctx.loops + 1,
            top: false,
            loop_top: true,
            loops_at_top: ctx.loops_at_top && ctx.ifs == 0,
            ifs: 0,
        };
        let ctx2 = Ctx {
            loops: ctx.loops + 2,
            ..ctx1
        };
        let arms = self.arms;
        self.push();
        self.loops += 1;
        let i = self.fresh("i");
        let (range, max) = self.range();
        self.frame().ints.push((i.clone(), max));
        let mut outer = Vec::new();
        if self.rng.chance(0.4) {
            self.assign(ctx1, &mut outer);
        }
        self.push();
        self.loops += 1;
        let j = self.fresh("i");
        let (range2, max2) = self.range();
        self.frame().ints.push((j.clone(), max2));
        let n = self.rng.range(1, 2);
        let at = self.rng.range(0, n);
        let mut inner = Vec::new();
        for k in 0..=n {
            if k == at {
                let cont = self.rng.chance(0.4);
                inner.push(self.label_jump(ctx2, &label, cont));
                self.arms += 1;
            }
            if k == n {
                break;
            }
            if !self.mutables().is_empty() && self.rng.chance(0.6) {
                self.assign(ctx2, &mut inner);
            } else {
                self.stmt(ctx2, &mut inner);
            }
        }
        let read = if self.rng.chance(0.5) {
            Expr::IntCast(IExpr::Var(j.clone()))
        } else {
            self.leaf()
        };
        inner.extend(self.accumulate(read));
        self.loops -= 1;
        self.pop();
        self.arms = arms;
        outer.push(Stmt::For {
            var: j,
            range: range2,
            body: inner,
            ckpt: None,
        });
        if self.rng.chance(0.3) {
            self.arms += 1;
            self.assign(ctx1, &mut outer);
            self.arms = arms;
        }
        self.loops -= 1;
        self.pop();
        out.push(Stmt::Labeled {
            label,
            body: Box::new(Stmt::For {
                var: i,
                range,
                body: outer,
                ckpt: None,
            }),
        });
    }

    /// `if c { [s = ..;] break 'label; }` (`continue 'label;` if `cont`).
    fn label_jump(&mut self, ctx: Ctx, label: &str, cont: bool) -> Stmt {
        self.guarded_jump(ctx, |_| match cont {
            true => Stmt::ContinueTo(label.to_string()),
            false => Stmt::BreakTo(label.to_string()),
        })
    }

    /// `if c { [s = ..;] jump }`, the jump made by `jump` after the
    /// assignment (a `break e;`'s value may read what it assigned).
    pub(super) fn guarded_jump(&mut self, ctx: Ctx, jump: impl FnOnce(&mut Self) -> Stmt) -> Stmt {
        let cond = self.cond(1);
        let bctx = Ctx {
            loop_top: false,
            ifs: ctx.ifs + 1,
            ..ctx
        };
        self.arms += 1;
        let mut then = Vec::new();
        if self.rng.chance(0.3) {
            self.push();
            self.assign(bctx, &mut then);
            self.pop();
        }
        then.push(jump(self));
        self.arms -= 1;
        Stmt::If {
            cond,
            then,
            els: None,
        }
    }
}

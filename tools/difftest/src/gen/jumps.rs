//! Feature `jump_in_match`: a `match` on an integer as a statement of a
//! loop body (`for`, `while`, `loop`), arms ending with a jump, `0 =>
//! break,`, `1 => continue,`, `3 => return e,` (in a loop at the top level
//! of the body, where `return_in_loop` allows a `return`), or a block
//! ending with one, arms of statements, a guarded binding `m if m > 2 => {
//! s += ..; }`, and `_ => { .. }`; more statements follow it in the body.

use super::*;

impl G<'_> {
    /// The `match` among a loop body's statements (`ctx` the body's), its
    /// jumps of the kinds allowed here; `None` without an integer to
    /// match on.
    pub(super) fn jump_match(
        &mut self,
        ctx: Ctx,
        brk: bool,
        cont: bool,
        ret: bool,
    ) -> Option<Stmt> {
        let ints = self.value_ints();
        if ints.is_empty() {
            return None;
        }
        let (v, max) = self.rng.pick(&ints).clone();
        let (scrut, max) = if self.rng.chance(0.5) {
            let m = *self.rng.pick(&[2, 3, 4]);
            let inner = if self.rng.chance(0.5) {
                IExpr::Var(v)
            } else {
                IExpr::Add(Box::new(IExpr::Var(v)), Box::new(IExpr::Lit(1)))
            };
            (IExpr::Rem(Box::new(inner), m), m - 1)
        } else {
            (IExpr::Var(v), max)
        };
        let mut jumps = Vec::new();
        if brk {
            jumps.push(0u8);
        }
        if cont {
            jumps.push(1);
        }
        if ret {
            jumps.push(2);
        }
        let bctx = Ctx {
            loop_top: false,
            ifs: ctx.ifs + 1,
            ..ctx
        };
        let mut vals: Vec<u64> = (0..=max.min(4)).collect();
        let mut arms = Vec::new();
        self.arms += 1;
        for a in 0..self.rng.range(1, 3) {
            if vals.is_empty() {
                break;
            }
            let pats = self.arm_patterns(&mut vals);
            // The first arm jumps, the others may.
            let body = if a == 0 || self.rng.chance(0.4) {
                let kind = *self.rng.pick(&jumps);
                self.jump_arm(bctx, kind)
            } else {
                self.branch(bctx)
            };
            arms.push((MatchPat::Lits(pats), body));
        }
        if self.rng.chance(0.35) {
            // `m if m > k => { .. }`, `m` the scrutinee's value.
            let bind = self.fresh("m");
            let k = self.rng.range(0, max as usize) as u64;
            let op = *self.rng.pick(&[Cmp::Gt, Cmp::Ge, Cmp::Lt]);
            self.push();
            self.frame().ints.push((bind.clone(), max));
            let body = if self.rng.chance(0.3) {
                let kind = *self.rng.pick(&jumps);
                self.jump_arm(bctx, kind)
            } else {
                self.branch(bctx)
            };
            self.pop();
            let at = self.rng.range(0, arms.len());
            arms.insert(at, (MatchPat::Guard { bind, op, k }, body));
        }
        let default = if self.rng.chance(0.3) {
            Vec::new()
        } else {
            self.branch(bctx)
        };
        self.arms -= 1;
        let stmt = Stmt::Match {
            scrut,
            arms,
            default,
        };
        self.returned |= has_return(std::slice::from_ref(&stmt));
        Some(stmt)
    }

    /// An arm ending with a jump (`kind` as in [`Self::jump_if`]), maybe
    /// after an assignment.
    fn jump_arm(&mut self, bctx: Ctx, kind: u8) -> Vec<Stmt> {
        let mut body = Vec::new();
        if self.rng.chance(0.3) {
            self.push();
            self.assign(bctx, &mut body);
            self.pop();
        }
        body.push(match kind {
            0 => Stmt::Break,
            1 => Stmt::Continue,
            _ => Stmt::Return(self.return_value()),
        });
        body
    }
}

//! Feature `tuple_from_branches`: two (or three) new floats bound from
//! the arms of a branch, `let (a, b) = if c { (e1, e2) } else { (e3, e4)
//! };`, from a `match` on an integer whose arms end with tuples (one of
//! them a block with a `let` before its tuple), or from a block, `let (a,
//! b) = { let t = ..; (t, e) };`; read later like any other float.

use super::*;

impl G<'_> {
    /// `let (a, b) = <if, match or block>;`
    pub(super) fn let_tuple(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let n = if self.rng.chance(0.2) { 3 } else { 2 };
        let ints = self.value_ints();
        let mut kinds = vec![0, 0, 2];
        if !ints.is_empty() {
            kinds.extend([1, 1]);
        }
        let init = match *self.rng.pick(&kinds) {
            0 => {
                let c = self.cond(2);
                self.arms += 1;
                let (la, lb) = (self.rng.chance(0.3), self.rng.chance(0.3));
                let a = self.tuple_arm(n, la);
                let b = self.tuple_arm(n, lb);
                self.arms -= 1;
                TupleInit::If(c, a, b)
            }
            1 => {
                let (v, max) = self.rng.pick(&ints).clone();
                let (scrut, max) = if self.rng.chance(0.3) {
                    (IExpr::Rem(Box::new(IExpr::Var(v)), 3), 2)
                } else {
                    (IExpr::Var(v), max)
                };
                let mut vals: Vec<u64> = (0..=max.min(4)).collect();
                let count = self.rng.range(1, 3);
                // The arm with a `let` before its tuple (the last is `_`).
                let with_let = self.rng.range(0, count);
                let mut arms = Vec::new();
                self.arms += 1;
                for k in 0..count {
                    if vals.is_empty() {
                        break;
                    }
                    let pats = self.arm_patterns(&mut vals);
                    let arm = self.tuple_arm(n, k == with_let);
                    arms.push((pats, arm));
                }
                let def = self.tuple_arm(n, with_let >= arms.len());
                self.arms -= 1;
                TupleInit::Match(scrut, arms, def)
            }
            _ => TupleInit::Block(self.tuple_arm(n, true)),
        };
        let mut init = init;
        let names: Vec<String> = (0..n).map(|_| self.fresh("a")).collect();
        // A name whose type #[grad] sees in no arm (each a constant or a
        // call): opaque, as an untyped `let` of one would be; or, without
        // `untyped_opaque_let`, one arm's element times `(1 as f64)`.
        let mut opaque = vec![false; n];
        for (k, o) in opaque.iter_mut().enumerate() {
            if init.arms().iter().any(|a| self.anchored(&a.items[k])) {
                continue;
            }
            if self.has("untyped_opaque_let") {
                *o = true;
            } else {
                let first = &mut init.arms_mut()[0].items[k];
                let e = std::mem::replace(first, Expr::Lit(0.0, LitStyle::Plain));
                *first = Expr::Bin(
                    BinOp::Mul,
                    Self::b(e),
                    Self::b(Expr::IntCast(IExpr::Lit(1))),
                );
            }
        }
        out.push(Stmt::LetTuple {
            names: names.clone(),
            init,
        });
        for (name, o) in names.into_iter().zip(opaque) {
            self.opaque.retain(|x| *x != name);
            if o {
                self.opaque.push(name.clone());
            }
            self.declare_float(&name, false);
            if ctx.top {
                self.locals.push(name);
            }
        }
    }

    /// `(e1, e2)`, or `{ let t = ..; (t, e) }` with `with_let`.
    fn tuple_arm(&mut self, n: usize, with_let: bool) -> TupleArm {
        self.push();
        self.in_tuple_arm += 1;
        let mut stmts = Vec::new();
        let mut t = None;
        if with_let {
            let name = self.fresh("t");
            let init = self.expr(2);
            let typed = self.annotate(&name, &init);
            stmts.push(Stmt::Let {
                name: name.clone(),
                mutable: false,
                typed,
                init,
            });
            self.declare_float(&name, false);
            t = Some(name);
        }
        let mut items: Vec<Expr> = (0..n).map(|_| self.expr(2)).collect();
        if let Some(t) = t {
            if !items.iter().any(|e| mentions_var(e, &t)) {
                let k = self.rng.below(n);
                items[k] = Expr::Var(t);
            }
        }
        self.in_tuple_arm -= 1;
        self.pop();
        TupleArm { stmts, items }
    }
}

//! Feature `enum_match`: a constant parameter `mode0: Mode0` of
//! `#[derive(Clone, Copy, Debug)] enum Mode0 { A, B, C(f64) }`, left out
//! of `wrt` (each test point picks a variant, `C` with a fixed payload),
//! matched in `f` anywhere a statement goes (loops and branch arms too):
//!
//! - as a statement, `match mode0 { Mode0::A => { s += ..; } Mode0::C(c)
//!   => { s = s * 0.5 + c * e; } _ => { .. } }`, its arms any branch's
//!   statements, the `C(c)` arm adding its payload (a constant float) in;
//! - as a value, `let a = match mode0 { Mode0::A => e1, Mode0::B => e2,
//!   Mode0::C(c) => e3 * c };`, an arm maybe with an assignment before
//!   its value.
//!
//! Its arms are all three variants, or some and `_`.

use super::*;

impl G<'_> {
    /// `match mode0 { .. }`, or `let a = match mode0 { .. };`.
    pub(super) fn enum_match(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let Some(scrut) = self.enum_param.clone() else {
            return;
        };
        let value = self.rng.chance(0.4);
        if !value {
            self.ensure_accumulator(ctx, out);
        }
        let c = self.fresh("c");
        let mut pats = match self.rng.below(4) {
            0 => vec![EnumPat::A, EnumPat::B, EnumPat::C(c)],
            1 => vec![EnumPat::A, EnumPat::C(c), EnumPat::Wild],
            2 => vec![EnumPat::C(c), EnumPat::Wild],
            _ => vec![EnumPat::B, EnumPat::Wild],
        };
        // The variants in any order, `_` last.
        let named = pats.len() - usize::from(pats.last() == Some(&EnumPat::Wild));
        for i in (1..named).rev() {
            let j = self.rng.below(i + 1);
            pats.swap(i, j);
        }
        let bctx = Ctx {
            top: false,
            loop_top: false,
            ifs: ctx.ifs + 1,
            ..ctx
        };
        self.arms += 1;
        let mut arms = Vec::new();
        for pat in pats {
            self.push();
            let payload = match &pat {
                EnumPat::C(c) => {
                    self.declare_float(c, false);
                    Some(Expr::Var(c.clone()))
                }
                _ => None,
            };
            let arm = if value {
                let mut stmts = Vec::new();
                if !self.mutables().is_empty() && self.rng.chance(0.3) {
                    self.assign(bctx, &mut stmts);
                }
                let mut v = self.expr(2);
                if let Some(p) = payload {
                    if !mentions_var(
                        &v,
                        match &pat {
                            EnumPat::C(c) => c,
                            _ => unreachable!(),
                        },
                    ) {
                        v = Expr::Bin(BinOp::Mul, Self::b(v), Self::b(p));
                    }
                }
                EnumArm {
                    pat,
                    stmts,
                    value: Some(v),
                }
            } else {
                // A branch's statements, in the arm's scope (with the
                // payload): the payload's accumulation sees what they shadow.
                let mut stmts = Vec::new();
                for _ in 0..self.rng.range(1, 2) {
                    if !self.mutables().is_empty() && self.rng.chance(0.6) {
                        self.assign(bctx, &mut stmts);
                    } else {
                        self.stmt(bctx, &mut stmts);
                    }
                }
                if let Some(p) = payload {
                    stmts.extend(self.accumulate(p));
                }
                EnumArm {
                    pat,
                    stmts,
                    value: None,
                }
            };
            self.pop();
            arms.push(arm);
        }
        self.arms -= 1;
        let name = if value {
            let name = self.fresh("a");
            let probe = arms
                .iter()
                .filter_map(|a| a.value.as_ref())
                .find(|e| self.anchored(e))
                .or(arms[0].value.as_ref())
                .cloned()
                .expect("a value");
            let typed = self.annotate(&name, &probe);
            Some((name, typed))
        } else {
            None
        };
        out.push(Stmt::EnumMatch {
            name: name.clone(),
            scrut,
            arms,
        });
        if let Some((n, _)) = name {
            self.declare_float(&n, false);
            self.use_later(ctx, &n, out);
        }
    }
}

//! Feature `while_let`: `while let` loops, over a local stack of integers,
//! `let mut stack0: Vec<usize> = vec![k, ..]; while let Some(v) =
//! stack0.pop() { .. }` (`v` an index, a cast), or over a constant array
//! (`data0.ys`, the `w` of a constant `p0`) through its iterator, `let mut
//! it0 = data0.ys.iter(); while let Some(&y) = it0.next() { .. }`; the
//! body any loop's (its jumps too), then the element added into a float
//! accumulator declared before, times an active value.
//!
//! What the generator leaves out: an array changed or declared in the body
//! (refused: "does not support changing `v` inside this loop yet: write it
//! as a `for`, `while` or `loop`"; `while let` is not among the README's
//! loops); a stack of
//! floats, `Vec<f64>` (a rustc
//! error in the code #[grad] generates at the top level of the body, a
//! finding: while_let_pop_float_stack.rs; refused in a loop, `pop` not
//! among the changes of an array the README lists), and an iterator over
//! an active array (refused, as the README says: it holds active values in
//! a type #[grad] does not model).

use super::*;

impl G<'_> {
    /// The stack or iterator, then the loop.
    pub(super) fn while_let(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        self.ensure_accumulator(ctx, out);
        let arrs = self.constant_arrs();
        let max = self.rng.range(1, 3) as u64;
        let src = if !arrs.is_empty() && self.rng.chance(0.6) {
            let (arr, _) = self.rng.pick(&arrs).clone();
            WhileSrc::Iter {
                it: self.fresh("it"),
                arr,
            }
        } else {
            let items = (0..self.rng.range(2, 4))
                .map(|_| self.rng.range(0, max as usize) as u64)
                .collect();
            WhileSrc::Pop {
                stack: self.fresh("stack"),
                items,
            }
        };
        let inner = Ctx {
            loops: ctx.loops + 1,
            top: false,
            loop_top: true,
            loops_at_top: ctx.loops_at_top && ctx.ifs == 0,
            ifs: 0,
        };
        self.push();
        self.loops += 1;
        let read = match &src {
            WhileSrc::Iter { arr, .. } => {
                let var = self.fresh("y");
                self.declare_float(&var, false);
                self.frozen.push(arr.clone());
                (var.clone(), Expr::Var(var))
            }
            WhileSrc::Pop { .. } => {
                let var = self.fresh("j");
                self.frame().ints.push((var.clone(), max));
                (var.clone(), Expr::IntCast(IExpr::Var(var)))
            }
        };
        let (var, read) = read;
        // No array changed in the body: the arrays in scope frozen, none
        // declared (`in_while_let`).
        let frozen = self.frozen.len();
        let arrs: Vec<String> = self
            .arrs_where(|_, k| matches!(k, ArrKind::Local | ArrKind::Pushed))
            .into_iter()
            .map(|(a, _)| a)
            .collect();
        self.frozen.extend(arrs);
        self.in_while_let += 1;
        let mut body = self.loop_body(inner);
        self.frozen.truncate(frozen);
        // Still the body (`made_struct` counts it as an arm).
        body.extend(self.accumulate_after(read, &body));
        self.in_while_let -= 1;
        if matches!(src, WhileSrc::Iter { .. }) {
            self.frozen.pop();
        }
        self.loops -= 1;
        self.pop();
        out.push(Stmt::WhileLet { var, src, body });
    }
}

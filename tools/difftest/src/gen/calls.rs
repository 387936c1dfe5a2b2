//! Feature `array_call`: second `#[grad]` functions returning several
//! floats, `g1(g1x0: f64, ..) -> [f64; N]` (N 2 or 3) and maybe `g2(..) ->
//! (f64, f64)`, their body any helper's, their result the array (tuple)
//! of the body's tail and other expressions; called from `f` with active
//! arguments anywhere a statement goes (loops and branch arms too), the
//! result bound by `let`:
//!
//! - whole, `let d = g1(..);`, then read by index, `d[k]` (right below
//!   it, `let t = d[0] * e + d[1];`, often);
//! - destructured, `let (a, b) = g2(..);`, the names floats like any
//!   other (their type one #[grad] cannot see).
//!
//! What the generator leaves out, #[grad] findings in the session's
//! `difftest_findings/`: an array destructured, `let [a, b] = g1(..);`
//! (refused: array_call_destructure_array.rs); a `return (a, b);` ending
//! a function returning a tuple (refused:
//! array_call_tuple_explicit_return.rs; for an array the README excludes
//! it), so no `explicit_return` there.

use super::*;

impl G<'_> {
    /// `g1` returning an array, and maybe `g2` returning a tuple; `f` may
    /// call them from then on.
    pub(super) fn multi_funcs(&mut self) -> Vec<Func> {
        let n = if self.rng.chance(0.6) { 2 } else { 3 };
        let mut out = vec![self.multi_func("g1", Ret::Array(n))];
        if self.rng.chance(0.5) {
            out.push(self.multi_func("g2", Ret::Tuple(2)));
        }
        self.multis = out
            .iter()
            .map(|f| (f.name.clone(), f.params.clone(), f.ret))
            .collect();
        out
    }

    /// One of them: one to three floats, a short body.
    fn multi_func(&mut self, name: &str, ret: Ret) -> Func {
        let params: Vec<Param> = (0..self.rng.range(1, 3))
            .map(|k| Param {
                name: format!("{name}x{k}"),
                kind: PKind::Scalar,
            })
            .collect();
        self.in_helper = true;
        self.ret = ret;
        let budget = self.rng.range(0, 2);
        let f = self.func(name, params, budget);
        self.ret = Ret::Float;
        self.in_helper = false;
        f
    }

    /// The `n` floats such a function returns: `tail` (which reads the
    /// body's variables) at a random place, other expressions elsewhere.
    pub(super) fn multi_items(&mut self, tail: Expr, n: u64) -> Vec<Expr> {
        let mut items = vec![tail];
        for _ in 1..n {
            items.push(self.expr(2));
        }
        let k = self.rng.below(n as usize);
        items.swap(0, k);
        items
    }

    /// `let d = g1(..);` (then maybe `let t = d[i] * e + d[j];`), `let [a,
    /// b] = g1(..);` or `let (a, b) = g2(..);`.
    pub(super) fn let_call(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let (func, params, ret) = self.rng.pick(&self.multis).clone();
        let Some(args) = self.call_args(&params, 2) else {
            return;
        };
        if !self.multi_called.contains(&func) {
            self.multi_called.push(func.clone());
        }
        let (n, array) = match ret {
            Ret::Array(n) => (n, true),
            Ret::Tuple(n) => (n, false),
            _ => unreachable!("a function returning several floats"),
        };
        if array {
            let d = self.fresh("d");
            out.push(Stmt::LetCall {
                pat: CallPat::Whole(d.clone()),
                func,
                args,
            });
            self.frame().arrs.push((d.clone(), n, ArrKind::Returned));
            if self.rng.chance(0.7) {
                let i = self.rng.below(n as usize) as u64;
                let j = self.rng.below(n as usize) as u64;
                let e = self.expr(1);
                let init = Expr::Bin(
                    BinOp::Add,
                    Self::b(Expr::Bin(
                        BinOp::Mul,
                        Self::b(Expr::Index(d.clone(), IExpr::Lit(i))),
                        Self::b(e),
                    )),
                    Self::b(Expr::Index(d, IExpr::Lit(j))),
                );
                self.bind_used(ctx, init, out);
            }
            return;
        }
        let names: Vec<String> = (0..n).map(|_| self.fresh("a")).collect();
        out.push(Stmt::LetCall {
            pat: if array {
                CallPat::Array(names.clone())
            } else {
                CallPat::Tuple(names.clone())
            },
            func,
            args,
        });
        for name in &names {
            // Its type is the call's: one #[grad] cannot see.
            self.opaque.retain(|x| x != name);
            self.opaque.push(name.clone());
            self.declare_float(name, false);
        }
        for name in &names {
            self.use_later(ctx, name, out);
        }
    }

    /// `let a = init;` of a fresh float `a` (its type written where the
    /// generator states it), made to reach the result ([`Self::use_later`]).
    pub(super) fn bind_used(&mut self, ctx: Ctx, init: Expr, out: &mut Vec<Stmt>) {
        let name = self.fresh("a");
        let typed = self.annotate(&name, &init);
        out.push(Stmt::Let {
            name: name.clone(),
            mutable: false,
            typed,
            init,
        });
        self.declare_float(&name, false);
        self.use_later(ctx, &name, out);
    }

    /// Makes sure the new float `name` reaches the result: the tail reads
    /// it at the top level of the body, elsewhere it is added into a
    /// mutable variable right away (if there is one).
    pub(super) fn use_later(&mut self, ctx: Ctx, name: &str, out: &mut Vec<Stmt>) {
        if ctx.top {
            self.locals.push(name.to_string());
        } else if let Some(s) = self.accumulate(Expr::Var(name.to_string())) {
            out.push(s);
        }
    }
}

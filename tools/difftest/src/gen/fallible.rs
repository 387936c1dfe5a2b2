//! Feature `fallible_call`: a fallible function `fn g0(gx0: f64, ..) ->
//! Result<f64, String>` (or `Option<f64>`) under `#[grad]`, with a guard
//! clause `if c { return Err(..); }` (`return None;`) before or after its
//! computation, called from `f` as `g0(..).unwrap()` or `.expect("..")`,
//! and as `g0(..)?` where `f` returns the same `Result<f64, String>` (or
//! `Option<f64>`).
//!
//! A call that unwraps must never see the error: then the guard's
//! condition is false for every finite value (`e * e + 1.0 < 0.5`, or an
//! integer argument above the largest one any call passes). Where every
//! call is a `?` (the function "may fail"), the condition is any (a float
//! comparison, an integer argument at least k), true at some test points:
//! there the harness checks that `f_grad` fails with `f`'s error.

use super::*;

/// The fallible function, as its callers see it.
#[derive(Clone)]
pub(crate) struct Callee {
    pub name: String,
    pub params: Vec<Param>,
    /// `Ret::Result` or `Ret::Option`.
    pub ret: Ret,
    /// Its guard may be true at the test points: called with `?` only.
    pub may_fail: bool,
}

impl G<'_> {
    /// The fallible function `g0`, and what `f` returns: `g0`'s type where
    /// `f` calls it with `?`, else `f64`.
    pub(super) fn fallible_func(&mut self) -> (Func, Ret) {
        let ret = if self.rng.chance(0.6) {
            Ret::Result
        } else {
            Ret::Option
        };
        let main_ret = if self.rng.chance(0.6) {
            ret
        } else {
            Ret::Float
        };
        let may_fail = main_ret != Ret::Float && self.rng.chance(0.6);
        let mut params: Vec<Param> = (0..self.rng.range(1, 2))
            .map(|k| Param {
                name: format!("gx{k}"),
                kind: PKind::Scalar,
            })
            .collect();
        if self.rng.chance(0.4) {
            let max = self.rng.range(1, 3) as u64;
            params.push(Param {
                name: "ng0".to_string(),
                kind: PKind::Int { max },
            });
        }
        let callee = Callee {
            name: "g0".to_string(),
            params: params.clone(),
            ret,
            may_fail,
        };
        // Generated knowing what it is (for its guard clause).
        self.fallible = Some(callee.clone());
        self.in_helper = true;
        self.ret = ret;
        let budget = self.rng.range(1, 3);
        let f = self.func("g0", params, budget);
        self.ret = Ret::Float;
        self.in_helper = false;
        (f, main_ret)
    }

    /// Whether the function being generated is the fallible one.
    pub(super) fn fails_here(&self) -> bool {
        self.in_helper && self.ret.fallible() && self.fallible.is_some()
    }

    /// `if c { return Err("g0: .."); }`: `c` false for every finite value
    /// unless the function may fail.
    pub(super) fn fail_guard(&mut self) -> Stmt {
        let callee = self.fallible.clone().expect("the fallible function");
        let ints = self.ints();
        let cond = if callee.may_fail {
            match ints.first() {
                Some((n, max)) if self.rng.chance(0.4) => {
                    let k = self.rng.range(1, *max as usize) as u64;
                    Cond::I(Cmp::Ge, IExpr::Var(n.clone()), IExpr::Lit(k))
                }
                _ => self.cond(1),
            }
        } else {
            match ints.first() {
                // Every call passes at most `max`.
                Some((n, max)) if self.rng.chance(0.4) => {
                    Cond::I(Cmp::Gt, IExpr::Var(n.clone()), IExpr::Lit(*max))
                }
                _ => {
                    // e * e + c < c / 2: false, even for infinities and NaN.
                    let c = *self.rng.pick(&[0.5, 1.0, 2.0]);
                    let e = self.expr(1);
                    let pos = Expr::Bin(
                        BinOp::Add,
                        Self::b(Expr::Bin(BinOp::Mul, Self::b(e.clone()), Self::b(e))),
                        Self::b(Expr::Lit(c, LitStyle::Plain)),
                    );
                    Cond::F(Cmp::Lt, pos, Expr::Lit(c / 2.0, LitStyle::Plain))
                }
            }
        };
        let what = if callee.may_fail {
            "out of its domain"
        } else {
            "unreachable"
        };
        let msg = format!("{}: {what}", callee.name);
        Stmt::If {
            cond,
            then: vec![Stmt::ReturnErr(msg)],
            els: None,
        }
    }

    /// `g0(..)?` where the function returns `g0`'s type (always if `g0`
    /// may fail), else `g0(..).unwrap()` or `.expect("..")`.
    pub(super) fn try_call(&mut self, depth: u32) -> Expr {
        let callee = self.fallible.clone().expect("the fallible function");
        let Some(args) = self.call_args(&callee.params, depth) else {
            return self.leaf();
        };
        let question = self.ret == callee.ret;
        let how = if question && (callee.may_fail || self.rng.chance(0.7)) {
            Try::Question
        } else if callee.may_fail {
            // No call that unwraps an error the test points may see.
            return self.leaf();
        } else if self.rng.chance(0.5) {
            Try::Unwrap
        } else {
            Try::Expect(format!("{} succeeds at finite values", callee.name))
        };
        self.fallible_called = true;
        Expr::TryCall(callee.name, args, how)
    }
}

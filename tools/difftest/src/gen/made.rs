//! Feature `made_struct`: a struct another `#[grad]` call returns, its
//! methods called on the result. The program has
//!
//! - `P1 { f0: f64, .. }` (one to three floats) deriving `Differentiable`;
//! - `make(ma0: f64, ..) -> P1` under `#[grad]`, its body any helper's,
//!   every field one of the body's results (one of them its tail, which
//!   reads the body's variables);
//! - one or two methods of `P1` without arguments, under
//!   `#[grad(wrt(self))]`, named like no float method and no method of
//!   `std` (`energy`, `norm2`, ..: a name the macro could take for one is
//!   README's other case), their bodies any method's, reading `self`'s
//!   fields.
//!
//! `f` calls them anywhere a float goes (loops, branch arms, calls'
//! arguments): on a result bound by a `let` that states the type, `let p:
//! P1 = make(a, b);` (read right below it, `let a = p.energy() * e;`, and
//! anywhere after: `p.energy()`, or `P1::energy(&p)` with `method_path`),
//! and directly on the call, `make(a, b).norm2()`.
//!
//! Not traced (`#[grad(trace)]` refuses a method call) and without a
//! generic twin (a struct among a `#[grad]` function's differentiated
//! parameters is refused by `#[grad(hessian)]`); under `jvp`, `make` gets
//! `jvp` too (a call returning a struct goes through the callee's `_jvp`).

use super::*;

/// The names of `P1`'s methods: none a float method's or a `std` trait's.
const METHOD_NAMES: &[&str] = &["energy", "norm2", "spread", "potential"];

/// What `f` may call of `made_struct`.
#[derive(Clone, Debug)]
pub(super) struct Sig {
    /// `P1`'s number of float fields.
    pub fields: u64,
    /// `make`'s parameters.
    pub params: Vec<Param>,
    /// The methods' names.
    pub methods: Vec<String>,
}

impl G<'_> {
    /// `P1`, `make` and the methods; `f` may call them from then on.
    pub(super) fn made_funcs(&mut self) -> Made {
        let fields = self.rng.range(1, 3) as u64;
        let mut names: Vec<String> = METHOD_NAMES.iter().map(|n| n.to_string()).collect();
        for i in (1..names.len()).rev() {
            let j = self.rng.below(i + 1);
            names.swap(i, j);
        }
        names.truncate(self.rng.range(1, 2));
        let params: Vec<Param> = (0..self.rng.range(1, 3))
            .map(|k| Param {
                name: format!("ma{k}"),
                kind: PKind::Scalar,
            })
            .collect();
        // `func` reads the number of fields from here for `make`'s literal.
        self.made = Some(Sig {
            fields,
            params: params.clone(),
            methods: names.clone(),
        });
        self.in_helper = true;
        self.ret = Ret::Made;
        let budget = self.rng.range(0, 2);
        let make = self.func(MADE_FN, params, budget);
        self.ret = Ret::Float;
        // The methods' `self` is a `P1`.
        let layout = self.layout.replace((fields, None));
        let methods = names.iter().map(|n| self.made_method(n, fields)).collect();
        self.layout = layout;
        self.in_helper = false;
        Made {
            fields,
            make,
            methods,
        }
    }

    /// `name(&self) -> f64` of `P1`, reading a field of `self` at least.
    fn made_method(&mut self, name: &str, fields: u64) -> Func {
        let recv = Param {
            name: "self".to_string(),
            kind: PKind::Receiver,
        };
        let budget = self.rng.range(0, 2);
        let mut m = self.func(name, vec![recv], budget);
        let mut reads = false;
        let mut b = m.body.clone();
        map_block(
            &mut b,
            &mut |e: &mut Expr| reads |= matches!(e, Expr::Field(s, _) if s == "self"),
            &mut |_: &mut IExpr| {},
        );
        if !reads {
            let k = self.rng.below(fields as usize) as u64;
            let tail = std::mem::replace(&mut m.body.tail, Expr::Lit(0.0, LitStyle::Plain));
            m.body.tail = Expr::Bin(
                BinOp::Add,
                Self::b(tail),
                Self::b(Expr::Field("self".to_string(), k)),
            );
        }
        m
    }

    /// The fields of the `P1` that `make`'s body builds: its tail (which
    /// reads the body's variables) and other expressions.
    pub(super) fn made_items(&mut self, tail: Expr) -> Vec<Expr> {
        let n = self.made.as_ref().map_or(1, |m| m.fields);
        let mut items = self.multi_items(tail, n);
        // `P1 { f0: C0 }`, the only field a bare user `const`, is refused
        // (a finding: KNOWN_FAILING `made_const_field`): `C0 * 1.0` then.
        if let [Expr::Const(c)] = &items[..] {
            if !self.has("made_const_field") {
                let c = Expr::Const(c.clone());
                items[0] = Expr::Bin(
                    BinOp::Mul,
                    Self::b(c),
                    Self::b(Expr::Lit(1.0, LitStyle::Plain)),
                );
            }
        }
        items
    }

    /// Whether the code being generated may call `make` and `P1`'s
    /// methods: `f`'s, outside closures.
    pub(super) fn made_here(&self) -> bool {
        self.made.is_some() && !self.in_helper && self.closure == 0
    }

    /// The results of `make` bound in scope, `let p: P1 = make(..);`, whose
    /// methods may be called here: bound in the same branch arm (or outside
    /// any) without `made_in_arm` (one bound outside an arm and read in it
    /// needs `P1: Default`, a finding:
    /// struct_result_method_in_arm_needs_default.rs).
    pub(super) fn made_locals(&self) -> Vec<String> {
        let anywhere = self.has("made_in_arm");
        let here = (self.made_arms(), self.returned);
        self.frames
            .iter()
            .flat_map(|f| f.made.iter())
            .filter(|(_, arms, returned)| anywhere || (*arms, *returned) == here)
            .map(|(p, ..)| p.clone())
            .collect()
    }

    /// The branch arms around the code being generated as `made_in_arm`
    /// counts them: [`G::arms`], and the bodies of `while let` loops and of
    /// filtered `for` loops (a `match` arm and the rest of the body after
    /// `if !c { continue; }`, as #[grad] desugars them).
    fn made_arms(&self) -> usize {
        self.arms + self.in_while_let + self.filtered.len()
    }

    /// `let p: P1 = make(..);`, then `let a = p.energy() [* e];` read
    /// later.
    pub(super) fn let_made(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let sig = self.made.clone().expect("made_struct");
        let Some(args) = self.call_args(&sig.params, 2) else {
            return;
        };
        let p = self.fresh("pt");
        out.push(Stmt::LetCall {
            pat: CallPat::Made(p.clone()),
            func: MADE_FN.to_string(),
            args,
        });
        self.made_called = true;
        let (arms, returned) = (self.made_arms(), self.returned);
        self.frame().made.push((p.clone(), arms, returned));
        let mut init = self.made_method_of(&p);
        if self.rng.chance(0.4) {
            init = Expr::Bin(BinOp::Mul, Self::b(init), Self::b(self.expr(1)));
        }
        self.bind_used(ctx, init, out);
    }

    /// `p.energy()` (or `P1::energy(&p)`) of the result `p`; in a branch
    /// arm on its receiver only, without `made_in_arm` (by its path there
    /// it needs `P1: Default`, as above).
    fn made_method_of(&mut self, p: &str) -> Expr {
        let sig = self.made.clone().expect("made_struct");
        let m = self.rng.pick(&sig.methods).clone();
        let in_arm = self.made_arms() > 0 || self.returned;
        let path = self.method_path() && (!in_arm || self.has("made_in_arm"));
        Expr::Method(p.to_string(), m, Vec::new(), path)
    }

    /// A method of a result bound in scope, or of a call of `make` right
    /// there, `make(a, b).norm2()`.
    pub(super) fn made_use(&mut self, depth: u32) -> Expr {
        let locals = self.made_locals();
        if !locals.is_empty() && self.rng.chance(0.5) {
            let p = self.rng.pick(&locals).clone();
            return self.made_method_of(&p);
        }
        let sig = self.made.clone().expect("made_struct");
        let Some(args) = self.call_args(&sig.params, depth) else {
            return self.leaf();
        };
        self.made_called = true;
        let method = self.rng.pick(&sig.methods).clone();
        Expr::ResultMethod {
            func: MADE_FN.to_string(),
            args,
            method,
        }
    }
}

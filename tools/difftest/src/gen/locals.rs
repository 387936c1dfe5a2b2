//! Features `float_ref` and `mem_replace`: local floats used through a
//! reference and replaced through `&mut`, as users write them.
//!
//! - `float_ref`: `let r = &x;` of an immutable float in scope (a
//!   parameter, a `let`, a loop's element), in `f`; `r` is then read as
//!   the float where Rust reads a `&f64` so: an operand of `+ - *` beside
//!   a float (`r * y`, `e - r`) and the receiver of a float method
//!   (`r.sin()`), never given to a function or compared. The twins read
//!   it as `*r`.
//! - `mem_replace`: in a loop body of `f`, `let next = ..;` (a bounded
//!   function of `cur`) then `let old = std::mem::replace(&mut cur,
//!   next);` of a `let mut` float `cur`, `old` added into an accumulator
//!   right after (`s += old * e`); sometimes `let _ = ..` instead.

use super::*;

impl G<'_> {
    /// The references bound by `let r = &x;` in scope, that may be read.
    pub(super) fn float_refs(&self) -> Vec<String> {
        self.frames
            .iter()
            .flat_map(|f| f.refs.iter())
            .map(|(r, _)| r.clone())
            .filter(|r| !self.dead_refs.contains(r))
            .collect()
    }

    /// Whether `name` is a `&f64` (a reference of `float_ref`, the element
    /// of a filtered loop): neither borrowed nor compared as a float.
    pub(super) fn is_ref(&self, name: &str) -> bool {
        let refs = self.frames.iter().flat_map(|f| f.refs.iter());
        refs.map(|(r, _)| r)
            .chain(&self.filtered)
            .any(|r| r == name)
    }

    /// `let name = ..;` shadowing a float in scope, about to be generated:
    /// without `ref_shadowed`, the references borrowing the float are read
    /// no more, its initializer included (a finding:
    /// float_ref_target_shadowed.rs).
    pub(super) fn shadowing(&mut self, name: &str) {
        if self.has("ref_shadowed") {
            return;
        }
        let borrowing: Vec<String> = self
            .frames
            .iter()
            .flat_map(|f| f.refs.iter())
            .filter(|(_, target)| target == name)
            .map(|(r, _)| r.clone())
            .collect();
        self.dead_refs.extend(borrowing);
    }

    /// The floats `let r = &x;` may borrow here: immutable ones, not
    /// references, in `f` outside closures, where the program has them;
    /// without `ref_opaque` not one whose type #[grad] cannot see (a
    /// finding: float_ref_of_untyped_call_result.rs).
    pub(super) fn ref_targets(&self) -> Vec<String> {
        if !self.refs_ok || self.in_helper || self.closure > 0 {
            return Vec::new();
        }
        let opaque_ok = self.has("ref_opaque");
        self.floats()
            .into_iter()
            .filter(|(n, mutable)| !mutable && !self.is_ref(n))
            .filter(|(n, _)| opaque_ok || !self.opaque.contains(n))
            .map(|(n, _)| n)
            .collect()
    }

    /// `let r = &x;`.
    pub(super) fn let_ref(&mut self, out: &mut Vec<Stmt>) {
        let targets = self.ref_targets();
        let target = self.rng.pick(&targets).clone();
        let name = self.fresh("r");
        if self.opaque.contains(&target) {
            self.opaque.push(name.clone());
        }
        out.push(Stmt::LetRef {
            name: name.clone(),
            target: target.clone(),
        });
        self.frame().refs.push((name, target));
    }

    /// A reference in scope read as its float: `r op e`, `e op r` or a
    /// bounded float method of it, `r.sin()`.
    pub(super) fn ref_use(&mut self, depth: u32) -> Expr {
        let refs = self.float_refs();
        let r = Expr::Var(self.rng.pick(&refs).clone());
        if self.has("trig") && self.rng.chance(0.35) {
            let u = *self.rng.pick(&[Un::Sin, Un::Cos, Un::Tanh, Un::Atan]);
            return Expr::Un(u, Self::b(r), false);
        }
        let op = *self.rng.pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul]);
        let e = self.expr(depth);
        if self.rng.chance(0.5) {
            Expr::Bin(op, Self::b(r), Self::b(e))
        } else {
            Expr::Bin(op, Self::b(e), Self::b(r))
        }
    }

    /// The floats `std::mem::replace` may replace here: `let mut` ones, in
    /// a loop body of `f` outside closures, where the program has it; not
    /// one whose type #[grad] cannot see without `replace_opaque` (a
    /// finding, mem_replace_of_const_initialised.rs, fixed in f519593).
    pub(super) fn replace_targets(&self, ctx: Ctx) -> Vec<String> {
        if !self.replace_ok || self.in_helper || self.closure > 0 || ctx.loops == 0 {
            return Vec::new();
        }
        let opaque_ok = self.has("replace_opaque");
        self.mutables()
            .into_iter()
            .filter(|n| opaque_ok || !self.opaque.contains(n))
            .collect()
    }

    /// `let next = ..; let old = std::mem::replace(&mut cur, next);`, then
    /// `s += old * e` (or `let _ = std::mem::replace(..);`).
    pub(super) fn replace(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let targets = self.replace_targets(ctx);
        let target = self.rng.pick(&targets).clone();
        let value = self.bounded_update(Expr::Var(target.clone()), ctx);
        let next = self.fresh("a");
        let typed = self.annotate(&next, &value);
        out.push(Stmt::Let {
            name: next.clone(),
            mutable: false,
            typed,
            init: value,
        });
        self.declare_float(&next, false);
        let old = self.rng.chance(0.85).then(|| self.fresh("a"));
        out.push(Stmt::Replace {
            old: old.clone(),
            target,
            src: next,
        });
        if let Some(old) = old {
            self.declare_float(&old, false);
            out.extend(self.accumulate(Expr::Var(old)));
        }
    }
}

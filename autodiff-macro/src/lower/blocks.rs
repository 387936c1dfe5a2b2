//! Statement sequences and their tails: a function's body, a block, an
//! arm, each lowered statement by statement up to its value.

use super::*;

impl Lowerer {
    /// Lowers the function body; returns the returned operand.
    /// `needs_tail`: whether to report a body without a returned value
    /// (not when the return type is already refused).
    pub(super) fn lower_body(
        &mut self,
        block: &syn::Block,
        out: &mut Vec<Inst>,
        needs_tail: bool,
    ) -> Option<Operand> {
        let errors_before = self.errors.is_some();
        let ret = self.stmts(&block.stmts, out, Mode::Tail);
        // A tail that failed to lower has reported why already.
        let failed_here = !errors_before && self.errors.is_some();
        if ret.is_none() && needs_tail && !failed_here {
            error(self, block, "#[grad] needs the body to end with the returned value (a final expression or `return <value>;`)");
        }
        ret.map(|l| l.operand)
    }

    /// Lowers statements; in [`Mode::Value`] and [`Mode::Tail`], returns
    /// the value they end with.
    pub(super) fn stmts(
        &mut self,
        stmts: &[syn::Stmt],
        out: &mut Vec<Inst>,
        mode: Mode,
    ) -> Option<Lowered> {
        let n = stmts.len();
        for (i, stmt) in stmts.iter().enumerate() {
            let last = i + 1 == n;
            if mode == Mode::Tail && !last && !self.exits(stmt) {
                if let Some(guard) = guard_clause(stmt, &stmts[i + 1..]) {
                    return self.expr_in(&guard, out, Mode::Tail);
                }
                if let Some(rewritten) = self.returning_loop(stmt, &stmts[i + 1..]) {
                    return self.stmts(&rewritten, out, Mode::Tail);
                }
            }
            // `let p = r.o + r.d * t; p.x`: operators of structs whose
            // fields' types the source does not show (`lower/operators.rs`).
            if let Some(rewritten) = self.struct_let(stmt, &stmts[i + 1..]) {
                let mut rest = vec![rewritten];
                rest.extend(stmts[i + 1..].iter().cloned());
                return self.stmts(&rest, out, mode);
            }
            if let Some(rewritten) = self.loop_value(stmt, last && mode != Mode::Unit) {
                let mut rest = rewritten;
                rest.extend(stmts[i + 1..].iter().cloned());
                return self.stmts(&rest, out, mode);
            }
            // A fallible function's error, `return Err(e)` at the end (of
            // the rest after a loop that returns, `lower/loops.rs
            // returning_loop`): it leaves, no value.
            let exit = matches!(stmt, syn::Stmt::Expr(e, _) if self.fallible && crate::desugar::fallible::is_exit(e));
            match stmt {
                syn::Stmt::Expr(syn::Expr::Return(r), _) if last && mode == Mode::Tail && !exit => {
                    return match &r.expr {
                        Some(e) => self.expr_in(e, out, Mode::Tail),
                        None => {
                            error(self, r, "#[grad] needs the function to return a float: write `return <value>`");
                            None
                        }
                    };
                }
                syn::Stmt::Expr(e, None) if last && mode != Mode::Unit && !exit => {
                    return self.expr_in(e, out, mode)
                }
                // The last call of a block whose value is dropped (an arm
                // of a branch that is a statement, `println!(..)` after a
                // loop): a statement, so that nothing emitted after it in
                // the arm reads as its arguments (the arm's outputs, `(b_pos,
                // ..)`).
                syn::Stmt::Expr(
                    e @ (syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Macro(_)),
                    None,
                ) if last && mode == Mode::Unit => self.expr_stmt(e, true, out),
                _ => self.stmt(stmt, out),
            }
        }
        None
    }

    /// Whether `stmt` leaves a fallible function with its error (`if bad {
    /// return Err(e); }`, a loop that may): kept as written, never turned
    /// into a branch or a loop that returns a value.
    fn exits(&self, stmt: &syn::Stmt) -> bool {
        struct Find(bool);
        impl<'a> syn::visit::Visit<'a> for Find {
            fn visit_expr(&mut self, e: &'a syn::Expr) {
                if crate::desugar::fallible::is_exit(e) {
                    self.0 = true;
                }
                if !matches!(e, syn::Expr::Closure(_)) {
                    syn::visit::visit_expr(self, e);
                }
            }
        }
        if !self.fallible {
            return false;
        }
        let mut f = Find(false);
        syn::visit::Visit::visit_stmt(&mut f, stmt);
        f.0
    }

    /// An expression in a context: branches and blocks pass the context on
    /// to their arms; elsewhere, [`Self::expr`].
    pub(super) fn expr_in(
        &mut self,
        e: &syn::Expr,
        out: &mut Vec<Inst>,
        mode: Mode,
    ) -> Option<Lowered> {
        match e {
            syn::Expr::If(x) if !matches!(*x.cond, syn::Expr::Let(_)) => {
                self.lower_if(x, out, mode)
            }
            syn::Expr::If(x) if crate::desugar::if_let::as_match(x).is_some() => {
                let m = crate::desugar::if_let::as_match(x)?;
                self.lower_match(&m, out, mode)
            }
            syn::Expr::Match(m) => self.lower_match(m, out, mode),
            syn::Expr::Block(b) if b.label.is_none() => self.block(&b.block, out, mode),
            syn::Expr::Paren(p) => self.expr_in(&p.expr, out, mode),
            syn::Expr::Return(r) if mode == Mode::Tail => match &r.expr {
                Some(v) => self.expr_in(v, out, mode),
                None => {
                    error(
                        self,
                        r,
                        "#[grad] needs the function to return a float: write `return <value>`",
                    );
                    None
                }
            },
            _ if mode == Mode::Unit => {
                self.expr_stmt(e, true, out);
                None
            }
            _ => self.expr(e, out),
        }
    }

    /// A block: its statements in a scope of their own; returns its value.
    pub(super) fn block(
        &mut self,
        block: &syn::Block,
        out: &mut Vec<Inst>,
        mode: Mode,
    ) -> Option<Lowered> {
        self.scopes.push(HashMap::new());
        let mut insts = Vec::new();
        let errors_before = self.errors.is_some();
        let result = self.stmts(&block.stmts, &mut insts, mode);
        self.scopes.pop();
        out.push(Inst::Scope(Block { insts }));
        let failed_here = !errors_before && self.errors.is_some();
        if mode != Mode::Unit && result.is_none() && !failed_here {
            error(
                self,
                block,
                "this block has no value: end it with the expression it stands for",
            );
        }
        result
    }
}

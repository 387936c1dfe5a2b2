//! Branches: `if`/`else` and `match` as regions whose arms end in merges.

use super::*;

/// Whether an arm ends by panicking (`panic!`, `unreachable!`, `todo!`,
/// `unimplemented!`).
pub(super) fn arm_panics(src: &ArmSrc) -> bool {
    fn is_panic(mac: &syn::Macro) -> bool {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        matches!(
            name.as_str(),
            "panic" | "unreachable" | "todo" | "unimplemented"
        )
    }
    fn stmt_panics(stmt: Option<&syn::Stmt>) -> bool {
        match stmt {
            Some(syn::Stmt::Macro(m)) => is_panic(&m.mac),
            Some(syn::Stmt::Expr(e, _)) => expr_panics(e),
            _ => false,
        }
    }
    fn expr_panics(e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Macro(m) => is_panic(&m.mac),
            // A fallible function's error, `return None` or `return
            // Err(e)`, leaves it: the arm has no value either.
            syn::Expr::Return(_) => crate::desugar::fallible::is_exit(e),
            syn::Expr::Block(b) if b.label.is_none() => stmt_panics(b.block.stmts.last()),
            _ => false,
        }
    }
    match src {
        ArmSrc::Block(b) => stmt_panics(b.stmts.last()),
        ArmSrc::Expr(e) => expr_panics(e),
        ArmSrc::Empty => false,
    }
}

impl Lowerer {
    /// `if` / `else if` / `else`.
    pub(super) fn lower_if(
        &mut self,
        e: &syn::ExprIf,
        out: &mut Vec<Inst>,
        mode: Mode,
    ) -> Option<Lowered> {
        let cond = self.expr(&e.cond, out)?;
        let else_arm = match &e.else_branch {
            Some((_, x)) => ArmSrc::Expr(x),
            None => ArmSrc::Empty,
        };
        let arms = vec![(None, ArmSrc::Block(&e.then_branch)), (None, else_arm)];
        self.branch(Selector::If(cond.operand), None, arms, mode, e, out)
    }

    /// `match` on values the macro models or keeps as written.
    pub(super) fn lower_match(
        &mut self,
        m: &syn::ExprMatch,
        out: &mut Vec<Inst>,
        mode: Mode,
    ) -> Option<Lowered> {
        // A place of a value the macro does not model (`ops[i]` of a
        // slice of enums, `cfg.kind`, `*op`) is lent to the `match`, never
        // moved out of its owner: Rust matches the place itself.
        let lent = self.lent_scrutinee(&m.expr);
        let scrutinee = match lent {
            Some(place) => self.opaque(&syn::parse_quote!(&#place), out)?,
            None => self.expr(&m.expr, out)?,
        };
        let mut reads = Reads::default();
        let mut patterns = Vec::new();
        for arm in &m.arms {
            let guard = arm.guard.as_ref().map(|(_, g)| (**g).clone());
            if let Some(g) = &guard {
                self.check_opaque(g);
                for read in self.reads_of_expr(g).0 {
                    if !reads.0.iter().any(|(n, _)| *n == read.0) {
                        reads.0.push(read);
                    }
                }
            }
            // A name for the whole scrutinee, which the arm reads as a
            // copy (`pattern_bindings`): `_` where no guard reads it. (A
            // lent place's name is bound by its pattern, as written.)
            let pat = match (&arm.pat, &guard) {
                _ if lent.is_some() => arm.pat.clone(),
                (syn::Pat::Ident(p), None) if copied_name(p) => syn::parse_quote!(_),
                (syn::Pat::Ident(p), Some(g))
                    if copied_name(p) && !crate::desugar::internal::mentions(g, &p.ident) =>
                {
                    syn::parse_quote!(_)
                }
                (pat, _) => pat.clone(),
            };
            patterns.push((pat, guard));
        }
        let selector = Selector::Match {
            scrutinee: scrutinee.operand.clone(),
            patterns,
            reads,
            lent: lent.is_some(),
        };
        let arms = m
            .arms
            .iter()
            .map(|arm| (Some(&arm.pat), ArmSrc::Expr(&arm.body)))
            .collect();
        self.branch(selector, scrutinee.operand.value(), arms, mode, m, out)
    }

    /// The place a `match` reads in place (by reference): a field or an
    /// element of a value the macro does not model, or `*r` of a name the
    /// macro holds as written (a loop's `op` over `ops.iter()`), not a
    /// float's.
    fn lent_scrutinee<'e>(&self, e: &'e syn::Expr) -> Option<&'e syn::Expr> {
        match e {
            syn::Expr::Paren(p) => self.lent_scrutinee(&p.expr),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                let syn::Expr::Path(p) = &*u.expr else {
                    return None;
                };
                let name = p.path.get_ident()?.to_string();
                (self.lookup(&name).is_some() && !self.followed_by_value(&name)).then_some(e)
            }
            _ => self.unmodelled_place(e).then_some(e),
        }
    }

    /// Lowers the arms of a branch, each from the bindings as they were
    /// before it, then merges what the arms left different.
    pub(super) fn branch(
        &mut self,
        selector: Selector,
        scrutinee: Option<ValueId>,
        srcs: Vec<(Option<&syn::Pat>, ArmSrc)>,
        mode: Mode,
        whole: &impl ToTokens,
        out: &mut Vec<Inst>,
    ) -> Option<Lowered> {
        let lent = matches!(selector, Selector::Match { lent: true, .. });
        let before = self.scopes.clone();
        let mut arms = Vec::new();
        let mut results = Vec::new();
        let mut afters = Vec::new();
        let mut diverging = Vec::new();
        let mut empty = Vec::new();
        for (pat, src) in srcs {
            self.scopes.push(HashMap::new());
            // An array declared in an arm lives as long as the arm, with an
            // adjoint of its own in the reverse arm.
            self.array_scopes.push(self.scopes.len());
            let mut insts = Vec::new();
            if let Some(pat) = pat {
                self.pattern_bindings(pat, scrutinee, lent, &mut insts);
            }
            empty.push(matches!(src, ArmSrc::Empty));
            // An arm that panics has no value: its statements run as such.
            let panics = arm_panics(&src);
            let arm_mode = if panics { Mode::Unit } else { mode };
            let result = match src {
                ArmSrc::Block(b) => self.stmts(&b.stmts, &mut insts, arm_mode),
                ArmSrc::Expr(syn::Expr::Block(b)) if b.label.is_none() => {
                    self.stmts(&b.block.stmts, &mut insts, arm_mode)
                }
                ArmSrc::Expr(e) => self.expr_in(e, &mut insts, arm_mode),
                ArmSrc::Empty => None,
            };
            diverging.push(panics);
            self.array_scopes.pop();
            self.scopes.pop();
            afters.push(std::mem::replace(&mut self.scopes, before.clone()));
            results.push(result);
            arms.push(Block { insts });
        }
        let live: Vec<usize> = (0..arms.len()).filter(|i| !diverging[*i]).collect();
        let span = syn::spanned::Spanned::span(&whole.to_token_stream());

        // Variables the arms left different.
        let mut merges = Vec::new();
        for (level, scope) in before.iter().enumerate() {
            let mut names: Vec<&String> = scope.keys().collect();
            names.sort();
            for name in names {
                let per_arm: Vec<Binding> = afters.iter().map(|a| a[level][name].clone()).collect();
                let unchanged = per_arm.iter().all(|b| same_binding(b, &scope[name]));
                if unchanged {
                    continue;
                }
                let values: Option<Vec<ValueId>> = live
                    .iter()
                    .map(|i| match per_arm[*i] {
                        Binding::Value(v) => Some(v),
                        Binding::Uninit(_) => None,
                    })
                    .collect();
                let Some(values) = values.filter(|v| !v.is_empty()) else {
                    // Assigned on some paths only: unassigned after the branch.
                    let ty = match &scope[name] {
                        Binding::Uninit(t) => t.clone(),
                        Binding::Value(v) => self.values[v.0].ty.clone(),
                    };
                    self.scopes[level].insert(name.clone(), Binding::Uninit(ty));
                    continue;
                };
                let ty = values
                    .iter()
                    .skip(1)
                    .fold(self.values[values[0].0].ty.clone(), |t, v| {
                        merged(&t, &self.values[v.0].ty)
                    });
                let opaque = values
                    .iter()
                    .any(|v| self.values[v.0].kind == ValueKind::Opaque);
                let kind = if opaque {
                    ValueKind::Opaque
                } else {
                    ValueKind::Def
                };
                let operands: Vec<Operand> = per_arm
                    .iter()
                    .map(|b| match b {
                        Binding::Value(v) => Operand::Value(*v),
                        // A diverging arm's operand is never used.
                        Binding::Uninit(_) => Operand::Value(values[0]),
                    })
                    .collect();
                let name_span = self.values[values[0].0].span;
                let dst = self.new_value(Some(name.clone()), ty, kind, name_span);
                self.merged_call_results(dst, &operands);
                merges.push(Merge {
                    dst,
                    arms: operands,
                });
                self.scopes[level].insert(name.clone(), Binding::Value(dst));
            }
        }

        // The branch's own value.
        let mut value = None;
        if mode != Mode::Unit {
            let mut operands = Vec::new();
            let mut ty: Option<Ty> = None;
            for (i, r) in results.iter().enumerate() {
                match r {
                    Some(l) => {
                        ty = Some(ty.map_or(l.ty.clone(), |t| join(&t, &l.ty)));
                        operands.push(l.operand.clone());
                    }
                    None if diverging[i] => {
                        operands.push(Operand::Const(Box::new(syn::parse_quote!(0.0))))
                    }
                    None => {
                        if self.errors.is_none() {
                            let msg = if empty[i] {
                                "this `if` has no `else`, so it has no value: add an `else` with the value it stands for"
                            } else {
                                "this arm has no value: end it with the expression it stands for"
                            };
                            error(self, whole.to_token_stream(), msg);
                        }
                        return None;
                    }
                }
            }
            let ty = ty.unwrap_or(Ty::Unknown);
            let dst = self.new_value(None, ty.clone(), ValueKind::Def, span);
            self.merged_call_results(dst, &operands);
            merges.push(Merge {
                dst,
                arms: operands,
            });
            value = Some(Lowered {
                operand: Operand::Value(dst),
                ty,
            });
        }
        let arm_index = matches!(selector, Selector::Match { .. })
            .then(|| self.new_value(Some("arm".to_string()), Ty::Int, ValueKind::Def, span));
        out.push(Inst::Branch(Box::new(Branch {
            selector,
            arms,
            merges,
            diverging,
            arm_index,
        })));
        value
    }

    /// The names a pattern binds, each a new opaque value.
    pub(super) fn opaque_bindings(&mut self, pat: &syn::Pat) -> (Vec<syn::Ident>, Vec<ValueId>) {
        let mut names = Vec::new();
        collect_pat_idents(pat, &mut names);
        let defs = names
            .iter()
            .map(|n| {
                self.new_value(
                    Some(n.to_string()),
                    Ty::Unknown,
                    ValueKind::Opaque,
                    n.span(),
                )
            })
            .collect();
        (names, defs)
    }

    /// The names a `match` pattern binds: values kept as written, read from
    /// the scrutinee, and refused by activity analysis if the scrutinee is
    /// active and they reach the result. A `lent` scrutinee is a
    /// reference to the place matched (`Selector::Match`).
    pub(super) fn pattern_bindings(
        &mut self,
        pat: &syn::Pat,
        scrutinee: Option<ValueId>,
        lent: bool,
        out: &mut Vec<Inst>,
    ) {
        // `m if m < 0 =>`, a name for the scrutinee itself: a copy of it,
        // through which a derivative passes as through a `let` (none
        // where it is an integer, a struct's `usize` field: its cast's
        // adjoint is nothing, `runtime::float::add_cast`).
        if let (syn::Pat::Ident(p), Some(v)) = (pat, scrutinee) {
            if copied_name(p) && !lent {
                let ty = self.values[v.0].ty.clone();
                if ty.is_float() || ty == Ty::Unknown || ty == Ty::Int {
                    let dst = self.new_value(
                        Some(p.ident.to_string()),
                        ty,
                        ValueKind::Def,
                        p.ident.span(),
                    );
                    // Where only the guard reads it, unused in the arm.
                    let written = Written {
                        ty: None,
                        attrs: vec![syn::parse_quote!(#[allow(unused_variables)])],
                    };
                    out.push(Inst::Def {
                        dst,
                        op: Op::Copy(Operand::Value(v)),
                        written: Some(Box::new(written)),
                        span: p.ident.span(),
                    });
                    self.bind(p.ident.to_string(), Binding::Value(dst));
                    return;
                }
            }
        }
        let (names, defs) = self.opaque_bindings(pat);
        if names.is_empty() {
            return;
        }
        self.pattern_bound.extend(defs.iter().copied());
        let reads = Reads(scrutinee.map(|v| ("".to_string(), v)).into_iter().collect());
        out.push(Inst::Verbatim {
            tokens: pat.to_token_stream(),
            kind: VerbatimKind::Binding,
            defs: defs.clone(),
            reads,
        });
        for (n, v) in names.iter().zip(defs) {
            self.bind(n.to_string(), Binding::Value(v));
        }
    }
}

impl Lowerer {
    /// A merge of calls' results (`let k = if c { rot(v) } else {
    /// stretch(v) };`) is read in parts as they are (`vector_calls.rs`
    /// takes the calls behind it as vectors where it is).
    fn merged_call_results(&mut self, dst: ValueId, operands: &[Operand]) {
        if operands
            .iter()
            .any(|o| matches!(o, Operand::Value(v) if self.call_results.contains(v)))
        {
            self.call_results.insert(dst);
        }
    }
}

/// Whether a `match` arm's pattern is a name for the whole scrutinee
/// (`m if m > 2 =>`), bound as a copy of it: a name, not a constant or a
/// variant (`None`, `MAX`), which Rust tells apart by resolving it, so by
/// its case.
fn copied_name(p: &syn::PatIdent) -> bool {
    p.by_ref.is_none()
        && p.subpat.is_none()
        && p.ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_lowercase())
}

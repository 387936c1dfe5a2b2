//! Statements: `let` (scalars, tuples, verbatim), assignments and
//! statements kept as written.

use super::*;

/// `name` or `name: Type`, by value.
pub(super) fn simple_binding(pat: &syn::Pat) -> Option<(syn::Ident, Option<&syn::Type>)> {
    match pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            Some((p.ident.clone(), None))
        }
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                Some((p.ident.clone(), Some(&*t.ty)))
            }
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn collect_pat_idents(pat: &syn::Pat, out: &mut Vec<syn::Ident>) {
    struct Idents<'o>(&'o mut Vec<syn::Ident>);
    impl<'a> Visit<'a> for Idents<'_> {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    Idents(out).visit_pat(pat);
}

/// The names code read as tokens binds itself, per open block: a visitor
/// of code the lowering does not model (a loop's body scanned for what it
/// assigns, code kept as written) uses it to tell its own `let x` from an
/// outer `x` of the same name.
pub(super) struct LocalNames(Vec<std::collections::HashSet<String>>);

impl LocalNames {
    /// One open block, binding nothing yet.
    pub(super) fn new() -> LocalNames {
        LocalNames(vec![Default::default()])
    }

    /// Whether an open block binds `name`.
    pub(super) fn declared(&self, name: &str) -> bool {
        self.0.iter().any(|s| s.contains(name))
    }

    /// Binds the names of `pat` in the innermost block.
    pub(super) fn declare(&mut self, pat: &syn::Pat) {
        let mut idents = Vec::new();
        collect_pat_idents(pat, &mut idents);
        if let Some(s) = self.0.last_mut() {
            s.extend(idents.into_iter().map(|i| i.to_string()));
        }
    }

    /// Opens a block with `pats` bound.
    pub(super) fn open(&mut self, pats: &[&syn::Pat]) {
        self.0.push(Default::default());
        for p in pats {
            self.declare(p);
        }
    }

    pub(super) fn close(&mut self) {
        self.0.pop();
    }
}

impl Lowerer {
    pub(super) fn stmt(&mut self, stmt: &syn::Stmt, out: &mut Vec<Inst>) {
        match stmt {
            syn::Stmt::Local(local) => self.local(local, out),
            syn::Stmt::Item(item) => out.push(Inst::Verbatim {
                tokens: item.to_token_stream(),
                kind: VerbatimKind::Item,
                defs: vec![],
                reads: Reads::default(),
            }),
            syn::Stmt::Macro(m) => self.effect(stmt.to_token_stream(), &m.mac, out),
            syn::Stmt::Expr(e, semi) => self.expr_stmt(e, semi.is_some(), out),
        }
    }

    pub(super) fn local(&mut self, local: &syn::Local, out: &mut Vec<Inst>) {
        if let Some(attr) = local
            .attrs
            .iter()
            .find(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
        {
            error(self, attr, "#[grad] cannot tell which `#[cfg]` alternative of a `let` is compiled: put the `#[cfg]` on whole functions instead");
            return;
        }
        // `let ys: Vec<f64> = xs.iter().map(..).collect();`, `xs.to_vec()`:
        // a local array and the loop that fills it.
        let zero = self.float_zero(local.span());
        if let Some(stmts) = crate::desugar::iterators::collected(
            local,
            &|e| self.indexable(e),
            &zero,
            &self.internal,
        ) {
            for s in &stmts {
                self.stmt(s, out);
            }
            return;
        }
        if self.tuple_let(local, out) {
            return;
        }
        let (ident, annot) = match simple_binding(&local.pat) {
            Some(b) => b,
            None => return self.verbatim_let(local, out),
        };
        let init = match &local.init {
            None => {
                let ty = annot.map(|t| self.types.ty_of(t)).unwrap_or(Ty::Unknown);
                self.bind(ident.to_string(), Binding::Uninit(ty));
                return;
            }
            Some(init) => init,
        };
        if let Some((else_token, _)) = &init.diverge {
            error(self, else_token, "#[grad] does not support `let ... else` yet: compute the value without a diverging branch");
            return;
        }
        if self.local_array(&ident, annot, &init.expr, out) {
            return;
        }
        if let syn::Expr::Call(c) = &*init.expr {
            if let Some((kernel, path)) = self.kernel_call(c).filter(|(k, _)| k.returns_array) {
                if self.scopes.len() > 1 {
                    error(self, &init.expr, format!(
                        "#[grad] models the `Vec` that `{}` returns at the top level of the function body only: compute it before the loop or block",
                        kernel.name
                    ));
                    return;
                }
                if let Some((args, elem)) = self.kernel_args(kernel, c, out) {
                    let stated = annot.and_then(|t| self.types.ty_of(t).array().map(|a| a.elem));
                    let Some(elem) = elem.or(stated) else {
                        error(self, local, format!(
                            "#[grad] needs the element type of the `Vec` that `{}` returns: write it, as in `let {ident}: Vec<f64> = {}(..);`",
                            kernel.name, kernel.name
                        ));
                        return;
                    };
                    let ty = Ty::Array(ArrayTy {
                        elem,
                        shape: Shape::Vec,
                    });
                    let v =
                        self.new_value(Some(ident.to_string()), ty, ValueKind::Def, ident.span());
                    out.push(Inst::Def {
                        dst: v,
                        op: Op::Kernel { kernel, path, args },
                        written: None,
                        span: local.span(),
                    });
                    self.bind(ident.to_string(), Binding::Value(v));
                }
                return;
            }
        }
        let annot_ty = annot.map(|t| self.types.ty_of(t));
        // Lower the initialiser aside: it is committed if it turns out to be
        // a scalar, and the `let` is kept verbatim otherwise.
        let mut insts = Vec::new();
        let errors_before = self.errors.is_some();
        let scopes_before = self.scopes.clone();
        let lowered = match self.expr(&init.expr, &mut insts) {
            Some(l) => l,
            None => return,
        };
        let ty = match annot_ty {
            Some(t) if t != Ty::Unknown => t,
            _ => lowered.ty.clone(),
        };
        // A value of a type the source does not state, computed by an
        // operation the macro looked into (a constant, a call, arithmetic):
        // modelled like any other, its type left to rustc. Only what the
        // macro cannot look into, or a variable changed in place later, is
        // kept as written.
        let looked_into = !self.kept_as_written(&lowered.operand, &insts);
        let modelled = looked_into && !self.changed_in_place.contains(&ident.to_string());
        if matches!(ty, Ty::Unknown) && !modelled {
            if !errors_before && self.errors.is_some() {
                return;
            }
            // Not a scalar: undo what the initialiser's branches bound.
            self.scopes = scopes_before;
            return self.verbatim_let(local, out);
        }
        out.extend(insts);
        let written = (annot.is_some() || !local.attrs.is_empty()).then(|| {
            Box::new(Written {
                ty: annot.cloned(),
                attrs: local.attrs.clone(),
            })
        });
        let value = self.name_result(&ident, ty, written, lowered.operand, local.span(), out);
        self.bind(ident.to_string(), Binding::Value(value));
    }

    /// Whether a lowered initialiser is code the macro did not look into:
    /// an expression kept as written, or a variable that is.
    pub(super) fn kept_as_written(&self, operand: &Operand, insts: &[Inst]) -> bool {
        let Operand::Value(v) = operand else {
            return false;
        };
        self.values[v.0].kind == ValueKind::Opaque
            || insts
                .iter()
                .any(|i| matches!(i, Inst::Def { dst, op: Op::Opaque { .. }, .. } if dst == v))
    }

    /// `let (a, mut b, _) = (e1, e2, e3);`: each element evaluated in
    /// order, then each name bound to its value, as `let`s of their own
    /// would (`let (a, b) = (b, a);` swaps). Returns whether it was lowered
    /// here; a tuple of other elements, or with other patterns, is left to
    /// the caller.
    pub(super) fn tuple_let(&mut self, local: &syn::Local, out: &mut Vec<Inst>) -> bool {
        let (syn::Pat::Tuple(pat), Some(init)) = (&local.pat, &local.init) else {
            return false;
        };
        let mut names = Vec::new();
        for p in &pat.elems {
            match p {
                syn::Pat::Wild(_) => names.push(None),
                syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                    names.push(Some(i.ident.clone()))
                }
                _ => return false,
            }
        }
        if init.diverge.is_some() || !local.attrs.is_empty() {
            return false;
        }
        if let syn::Expr::Call(c) = &*init.expr {
            return self.tuple_call(c, &names, local, out);
        }
        let syn::Expr::Tuple(tuple) = &*init.expr else {
            return false;
        };
        if pat.elems.len() != tuple.elems.len() {
            return false;
        }
        let scopes_before = self.scopes.clone();
        let errors_before = self.errors.is_some();
        let mut insts = Vec::new();
        let mut values = Vec::new();
        for (name, e) in names.iter().zip(&tuple.elems) {
            if name.is_none() {
                self.discarded(e, &mut insts);
                values.push(None);
                continue;
            }
            let Some(l) = self.expr(e, &mut insts) else {
                return true;
            };
            let opaque = self.kept_as_written(&l.operand, &insts);
            if opaque || l.ty.array().is_some() {
                // Not all scalars: kept as written.
                self.scopes = scopes_before;
                if !errors_before && self.errors.is_some() {
                    return true;
                }
                return false;
            }
            values.push(Some(l));
        }
        if names
            .iter()
            .flatten()
            .any(|n| self.changed_in_place.contains(&n.to_string()))
        {
            self.scopes = scopes_before;
            return false;
        }
        out.extend(insts);
        for (name, l) in names.into_iter().zip(values) {
            let (Some(ident), Some(l)) = (name, l) else {
                continue;
            };
            let v = self.new_value(Some(ident.to_string()), l.ty, ValueKind::Def, ident.span());
            out.push(Inst::Def {
                dst: v,
                op: Op::Copy(l.operand),
                written: None,
                span: local.span(),
            });
            self.bind(ident.to_string(), Binding::Value(v));
        }
        true
    }

    /// A value given to `_`, evaluated and dropped: kept as written
    /// (`let _ = e;`), so that what it reads is still read.
    fn discarded(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) {
        self.check_opaque(e);
        let reads = self.reads_of_expr(e);
        out.push(Inst::Verbatim {
            tokens: quote::quote_spanned!(e.span()=> let _ = #e;),
            kind: VerbatimKind::Stmt,
            defs: Vec::new(),
            reads,
        });
    }

    /// `let (a, b) = step(x, v);`, a call to a `#[grad]` function returning
    /// a tuple of floats: the tuple is a value, each name a projection of
    /// it; the reverse sweep calls `step_vjp` with the tuple's adjoint.
    fn tuple_call(
        &mut self,
        c: &syn::ExprCall,
        names: &[Option<syn::Ident>],
        local: &syn::Local,
        out: &mut Vec<Inst>,
    ) -> bool {
        let path = match &*c.func {
            syn::Expr::Path(p) if p.qself.is_none() && !self.is_local_path(&p.path) => {
                p.path.clone()
            }
            _ => return false,
        };
        if !matches!(crate::rules::resolve(&path), crate::rules::Callee::Function)
            || self.kernel_call(c).is_some()
        {
            return false;
        }
        let Some((args, borrowed)) = self.call_args(&c.args, out) else {
            return true;
        };
        let slots: Vec<bool> = args
            .iter()
            .map(|a| {
                matches!(
                    a.ty,
                    Ty::Float(_) | Ty::FloatLit | Ty::Unknown | Ty::Array(_)
                )
            })
            .collect();
        let tuple = self.new_value(None, Ty::Unknown, ValueKind::Def, c.span());
        out.push(Inst::Def {
            dst: tuple,
            op: Op::VjpCall {
                path,
                args: args.into_iter().map(|a| a.operand).collect(),
                borrowed,
                slots,
            },
            written: None,
            span: local.span(),
        });
        self.projected.insert(tuple);
        for (k, name) in names.iter().enumerate() {
            let Some(ident) = name else { continue };
            let v = self.new_value(
                Some(ident.to_string()),
                Ty::Unknown,
                ValueKind::Def,
                ident.span(),
            );
            out.push(Inst::Def {
                dst: v,
                op: Op::Project {
                    base: tuple,
                    path: vec![Step::Field(syn::Member::Unnamed(syn::Index {
                        index: k as u32,
                        span: ident.span(),
                    }))],
                    by_ref: false,
                },
                written: None,
                span: local.span(),
            });
            self.bind(ident.to_string(), Binding::Value(v));
        }
        true
    }

    /// Gives the user's name to the value of an initialiser: renames the
    /// last Wengert entry when it is the initialiser's own result, and adds
    /// a copy otherwise (`let y = x;`, `let y = 2.0;`).
    pub(super) fn name_result(
        &mut self,
        ident: &syn::Ident,
        ty: Ty,
        written: Option<Box<Written>>,
        operand: Operand,
        span: Span,
        out: &mut Vec<Inst>,
    ) -> ValueId {
        if let (
            Operand::Value(v),
            Some(Inst::Def {
                dst, written: w, ..
            }),
        ) = (&operand, out.last_mut())
        {
            if dst == v && self.values[v.0].name.is_none() {
                *w = written;
                let value = &mut self.values[v.0];
                value.name = Some(ident.to_string());
                value.span = ident.span();
                if value.ty == Ty::FloatLit || ty.is_float() && value.ty == Ty::Unknown {
                    value.ty = ty;
                }
                return *v;
            }
        }
        let value = self.new_value(Some(ident.to_string()), ty, ValueKind::Def, ident.span());
        out.push(Inst::Def {
            dst: value,
            op: Op::Copy(operand),
            written,
            span,
        });
        value
    }

    /// A `let` the macro does not model: copied as written; the names it
    /// binds become opaque values.
    pub(super) fn verbatim_let(&mut self, local: &syn::Local, out: &mut Vec<Inst>) {
        if let Some(init) = &local.init {
            if let Some((else_token, _)) = &init.diverge {
                error(self, else_token, "#[grad] does not support `let ... else` yet: compute the value without a diverging branch");
                return;
            }
            self.check_opaque(&init.expr);
        }
        let reads = match &local.init {
            Some(init) => self.reads_of_expr(&init.expr),
            None => Reads::default(),
        };
        let (names, defs) = self.opaque_bindings(&local.pat);
        // A closure its calls inline: the `let` stays for any other use
        // (a call in code kept as written), and goes where there is none
        // and a parameter has no type written (rustc could not infer it
        // from calls that are no longer there).
        let mut closure = false;
        if let (Some(init), [v], [name]) = (&local.init, defs.as_slice(), names.as_slice()) {
            if let syn::Expr::Closure(c) = &*init.expr {
                closure = true;
                let typed = c.inputs.iter().all(|p| matches!(p, syn::Pat::Type(_)));
                if self.record_closure(*v, c)
                    && self.only_called.contains(&name.to_string())
                    && !typed
                {
                    out.push(Inst::Verbatim {
                        tokens: TokenStream::new(),
                        kind: VerbatimKind::Stmt,
                        defs: vec![*v],
                        reads: Reads::default(),
                    });
                    self.bind(name.to_string(), Binding::Value(*v));
                    return;
                }
            }
        }
        // A closure whose calls were all inlined is unused where it stands.
        let allow = closure.then(|| quote::quote!(#[allow(unused_variables)]));
        out.push(Inst::Verbatim {
            tokens: quote::quote!(#allow #local),
            kind: match &local.init {
                Some(init) => VerbatimKind::Let(Box::new(VerbatimLet {
                    pat: local.pat.to_token_stream(),
                    init: (*init.expr).clone(),
                })),
                None => VerbatimKind::Item,
            },
            defs: defs.clone(),
            reads,
        });
        for (n, v) in names.iter().zip(defs) {
            self.bind(n.to_string(), Binding::Value(v));
        }
    }

    pub(super) fn expr_stmt(&mut self, e: &syn::Expr, semi: bool, out: &mut Vec<Inst>) {
        match e {
            syn::Expr::Assign(a) if destructures(&a.left) => {
                self.destructuring(&a.left, &a.right, e, out)
            }
            syn::Expr::Assign(a) => self.assignment(&a.left, None, &a.right, e, out),
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                self.assignment(&b.left, compound_op(&b.op), &b.right, e, out)
            }
            syn::Expr::Block(b) if b.label.is_none() => {
                // A block statement's value, if any, is discarded.
                self.block(&b.block, out, Mode::Unit);
            }
            syn::Expr::If(x) if !matches!(*x.cond, syn::Expr::Let(_)) => {
                self.lower_if(x, out, Mode::Unit);
            }
            syn::Expr::If(x) if crate::desugar::if_let::as_match(x).is_some() => {
                if let Some(m) = crate::desugar::if_let::as_match(x) {
                    self.lower_match(&m, out, Mode::Unit);
                }
            }
            syn::Expr::Match(m) => {
                self.lower_match(m, out, Mode::Unit);
            }
            syn::Expr::MethodCall(m)
                if m.method == "push"
                    && m.args.len() == 1
                    && self.modelled_array(&m.receiver).is_some() =>
            {
                let array = self.modelled_array(&m.receiver).expect("checked");
                if let Some(v) = self.expr(&m.args[0], out) {
                    let position = self.new_value(None, Ty::Int, ValueKind::Def, m.method.span());
                    out.push(Inst::Push {
                        array,
                        position,
                        value: v.operand,
                    });
                }
            }
            syn::Expr::ForLoop(l) if self.lower_for(l, out) => {}
            syn::Expr::Loop(l) if self.lower_infinite(l, out) => {}
            syn::Expr::While(w) if self.lower_while(w, out) => {}
            syn::Expr::Macro(m) => {
                let tokens = if semi {
                    quote::quote_spanned!(e.span()=> #e;)
                } else {
                    e.to_token_stream()
                };
                self.effect(tokens, &m.mac, out)
            }
            _ => {
                self.check_opaque(e);
                let reads = self.reads_of_expr(e);
                let defs = self.mutated_opaque_locals(e);
                let tokens = if semi {
                    quote::quote_spanned!(e.span()=> #e;)
                } else {
                    e.to_token_stream()
                };
                out.push(Inst::Verbatim {
                    tokens,
                    kind: VerbatimKind::Stmt,
                    defs,
                    reads,
                });
            }
        }
    }

    /// A statement macro (`println!`, `assert!`, ...): copied as written.
    pub(super) fn effect(&mut self, tokens: TokenStream, mac: &syn::Macro, out: &mut Vec<Inst>) {
        let reads = self.reads_of_tokens(mac.tokens.clone());
        // Macros of the standard library that only read their arguments
        // leave every variable as it was; any other macro may change the
        // opaque variables it is given.
        let defs = if is_read_only_macro(mac) {
            vec![]
        } else {
            self.new_versions(reads.0.iter().map(|(n, _)| n.clone()).collect())
        };
        out.push(Inst::Verbatim {
            tokens,
            kind: VerbatimKind::Stmt,
            defs,
            reads,
        });
    }

    /// `target = rhs` or `target op= rhs` as a statement.
    pub(super) fn assignment(
        &mut self,
        target: &syn::Expr,
        op: Option<BinOp>,
        rhs: &syn::Expr,
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) {
        if let Some((array, index)) = self.array_place(target) {
            return self.store(array, index, op, rhs, whole, out);
        }
        let name = match target {
            syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let binding = name.as_ref().and_then(|n| self.lookup(n).cloned());
        let (name, binding) = match (name, binding) {
            (Some(n), Some(b)) => (n, b),
            _ => {
                // `v[i] = e`, `p.x += e`, `*r = e`: a change to an opaque
                // variable, copied as written.
                if let Some(n) = base_local(target) {
                    if let Some(Binding::Value(v)) = self.lookup(&n) {
                        if self.values[v.0].kind != ValueKind::Opaque {
                            error(self, target, format!(
                                "#[grad] cannot follow this assignment into `{n}`: assign the whole variable, as in `{n} = ...`"
                            ));
                            return;
                        }
                    }
                }
                self.check_opaque(rhs);
                let reads = self.reads_of_expr(whole);
                let defs = self.mutated_opaque_locals(whole);
                let defs = if defs.is_empty() {
                    base_local(target)
                        .map(|n| self.new_versions(vec![n]))
                        .unwrap_or_default()
                } else {
                    defs
                };
                out.push(Inst::Verbatim {
                    tokens: quote::quote_spanned!(whole.span()=> #whole;),
                    kind: VerbatimKind::Stmt,
                    defs,
                    reads,
                });
                return;
            }
        };
        let current = match binding {
            Binding::Value(v) if self.values[v.0].kind == ValueKind::Opaque => {
                self.check_opaque(rhs);
                let reads = self.reads_of_expr(whole);
                let defs = self.new_versions(vec![name]);
                out.push(Inst::Verbatim {
                    tokens: quote::quote_spanned!(whole.span()=> #whole;),
                    kind: VerbatimKind::Stmt,
                    defs,
                    reads,
                });
                return;
            }
            Binding::Value(v) if self.values[v.0].ty.array().is_some() => {
                // `arr = &arr[1..]`: the loads that follow would read the
                // array the name held before, a wrong value and gradient.
                error(self, whole, format!(
                    "#[grad] cannot follow `{name}` rebound to another array or slice: keep `{name}` and index it with an offset instead, as in `{name}[start + i]`"
                ));
                return;
            }
            Binding::Value(v) => Some(v),
            Binding::Uninit(_) if op.is_some() => {
                error(
                    self,
                    target,
                    format!("`{name}` is used before it is assigned"),
                );
                return;
            }
            Binding::Uninit(_) => None,
        };
        let rhs_l = match self.expr(rhs, out) {
            Some(l) => l,
            None => return,
        };
        let span = whole.span();
        self.assign_lowered(&name, target, &binding, current, op, rhs_l, span, out);
    }

    /// `name = rhs` (or `name op= rhs`, `current` the value it held) once
    /// `rhs` is lowered: a new value for `name`.
    #[allow(clippy::too_many_arguments)]
    fn assign_lowered(
        &mut self,
        name: &str,
        target: &syn::Expr,
        binding: &Binding,
        current: Option<ValueId>,
        op: Option<BinOp>,
        rhs_l: Lowered,
        span: Span,
        out: &mut Vec<Inst>,
    ) {
        let declared = match (binding, current) {
            (_, Some(v)) => self.values[v.0].ty.clone(),
            (Binding::Uninit(t), None) => t.clone(),
            _ => Ty::Unknown,
        };
        let ident = syn::Ident::new(name, target.span());
        let value = match (op, current) {
            (Some(op), Some(cur)) => {
                let ty = join(&declared, &rhs_l.ty);
                let v = self.new_value(Some(name.to_string()), ty, ValueKind::Def, target.span());
                out.push(Inst::Def {
                    dst: v,
                    op: Op::Binary(op, Operand::Value(cur), rhs_l.operand),
                    written: None,
                    span,
                });
                v
            }
            _ => {
                let ty = if declared == Ty::Unknown {
                    rhs_l.ty.clone()
                } else {
                    declared
                };
                self.name_result(&ident, ty, None, rhs_l.operand, span, out)
            }
        };
        self.assign(name, value);
    }

    /// `(a, b) = (e1, e2)`, a destructuring assignment into variables the
    /// lowering follows: every right-hand side first, in order, then each
    /// variable takes its value, as Rust does (`(a, b) = (b, a)` swaps).
    /// Into variables kept as written only, it is kept as written too.
    fn destructuring(
        &mut self,
        left: &syn::Expr,
        right: &syn::Expr,
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) {
        let mut targets: Vec<&syn::Expr> = Vec::new();
        flatten_targets(left, &mut targets);
        let followed = |cx: &Self, t: &syn::Expr| {
            base_local(t).is_some_and(|n| match cx.lookup(&n) {
                Some(Binding::Value(v)) => cx.values[v.0].kind != ValueKind::Opaque,
                Some(Binding::Uninit(_)) => true,
                None => false,
            })
        };
        if !targets.iter().any(|t| followed(self, t)) {
            return self.assignment(left, None, right, whole, out);
        }
        // Each target a variable of its own (or `_`), each a scalar.
        let mut names: Vec<Option<(String, &syn::Expr)>> = Vec::new();
        let mut refused = false;
        for t in &targets {
            match t {
                syn::Expr::Infer(_) => names.push(None),
                syn::Expr::Path(p)
                    if p.qself.is_none() && p.path.get_ident().is_some() && followed(self, t) =>
                {
                    let name = p
                        .path
                        .get_ident()
                        .map(|i| i.to_string())
                        .unwrap_or_default();
                    let array = matches!(self.lookup(&name), Some(Binding::Value(v)) if self.values[v.0].ty.array().is_some());
                    if array {
                        error(self, t, format!(
                            "#[grad] cannot follow `{name}` rebound to another array or slice: keep `{name}` and index it with an offset instead, as in `{name}[start + i]`"
                        ));
                        refused = true;
                    }
                    names.push(Some((name, *t)));
                }
                _ => {
                    error(self, t, format!(
                        "#[grad] follows a destructuring assignment into variables only: assign `{}` in a statement of its own",
                        crate::diag::show(&t.to_token_stream())
                    ));
                    refused = true;
                }
            }
        }
        // The right-hand side as a tuple written out, of the same shape.
        let mut values: Vec<&syn::Expr> = Vec::new();
        if !same_shape(left, right, &mut values) {
            error(self, right, "#[grad] follows a destructuring assignment from a tuple written out, as in `(a, b) = (b, a + b)`: bind this value first, as in `let (a1, b1) = ...;`, then assign `a = a1; b = b1;`");
            return;
        }
        if refused {
            return;
        }
        let mut lowered = Vec::new();
        for (target, e) in names.iter().zip(values) {
            if target.is_none() {
                self.discarded(e, out);
                lowered.push(None);
                continue;
            }
            match self.expr(e, out) {
                Some(l) => lowered.push(Some(l)),
                None => return,
            }
        }
        for (target, l) in names.into_iter().zip(lowered) {
            let (Some((name, t)), Some(l)) = (target, l) else {
                continue;
            };
            let Some(binding) = self.lookup(&name).cloned() else {
                continue;
            };
            let current = match binding {
                Binding::Value(v) => Some(v),
                Binding::Uninit(_) => None,
            };
            self.assign_lowered(&name, t, &binding, current, None, l, whole.span(), out);
        }
    }
}

/// Whether an assignment's left side destructures: a tuple (`(a, b) = ..`).
fn destructures(left: &syn::Expr) -> bool {
    match left {
        syn::Expr::Tuple(_) => true,
        syn::Expr::Paren(p) => destructures(&p.expr),
        _ => false,
    }
}

/// The places a destructuring assignment's left side assigns, nested
/// tuples flattened, in order.
pub(super) fn flatten_targets<'e>(left: &'e syn::Expr, out: &mut Vec<&'e syn::Expr>) {
    match left {
        syn::Expr::Tuple(t) => t.elems.iter().for_each(|e| flatten_targets(e, out)),
        syn::Expr::Paren(p) => flatten_targets(&p.expr, out),
        other => out.push(other),
    }
}

/// Whether `right` is a tuple written out in the shape of `left`, with the
/// expressions matching `left`'s places in `out`, in order.
fn same_shape<'e>(left: &syn::Expr, right: &'e syn::Expr, out: &mut Vec<&'e syn::Expr>) -> bool {
    match (left, right) {
        (syn::Expr::Paren(l), r) => same_shape(&l.expr, r, out),
        (syn::Expr::Tuple(l), syn::Expr::Paren(r)) => {
            same_shape(&syn::Expr::Tuple(l.clone()), &r.expr, out)
        }
        (syn::Expr::Tuple(l), syn::Expr::Tuple(r)) => {
            l.elems.len() == r.elems.len()
                && l.elems
                    .iter()
                    .zip(&r.elems)
                    .all(|(a, b)| same_shape(a, b, out))
        }
        (syn::Expr::Tuple(_), _) => false,
        (_, r) => {
            out.push(r);
            true
        }
    }
}

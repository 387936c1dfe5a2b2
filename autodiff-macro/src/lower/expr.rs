//! Expressions: one Wengert entry per operation, constants inline.

use super::*;

use super::operators::{operator_call, operator_trait};

impl Lowerer {
    /// Lowers an expression; `None` when an error was recorded.
    pub(super) fn expr(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        // A struct an operator or its method gives (`x * 2.0`, `v.sub(b)`):
        // marked, so that an operator on the name bound to it is its
        // method too (`let g = x * 2.0; x - g * h`).
        let gives_struct = matches!(
            e,
            syn::Expr::Binary(_) | syn::Expr::Unary(_) | syn::Expr::MethodCall(_)
        ) && self.struct_operand(e);
        let lowered = self.expr_of(e, out)?;
        if let (true, Operand::Value(v)) = (gives_struct, &lowered.operand) {
            self.struct_values.insert(*v);
        }
        Some(lowered)
    }

    /// The construct `e` is, each kind in a method of its own: a debug
    /// build keeps every arm's locals in one stack frame, and an
    /// expression nested 150 deep (a polynomial in Horner form, as a
    /// computer algebra system prints it) recursed through a frame of
    /// 18 KB per level until rustc's stack overflowed.
    fn expr_of(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        use syn::Expr as E;
        if let Some(settled) = self.settled_expr(e, out) {
            return settled;
        }
        match e {
            E::Paren(p) => self.expr(&p.expr, out),
            E::Group(g) => self.expr(&g.expr, out),
            E::Path(_) => self.path_expr(e, out),
            E::Unary(_) => self.unary_expr(e, out),
            E::Binary(_) => self.binary_expr(e, out),
            E::Try(_) | E::MethodCall(_) => self.method_expr(e, out),
            E::Call(_) => self.call_expr(e, out),
            E::Field(_) | E::Index(_) => self.place_expr(e, out),
            _ => self.region_expr(e, out),
        }
    }

    /// `xs.first()`/`xs.last()` as the element they read, and a constant
    /// expression as itself, whatever its construct.
    fn settled_expr(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Option<Lowered>> {
        if let Some(at) = self.first_or_last(e) {
            return Some(self.expr(&at, out));
        }
        let c = self.types.const_expr(e)?;
        Some(Some(Lowered {
            operand: Operand::Const(Box::new(e.clone())),
            ty: c,
        }))
    }

    /// A name: the value bound to it, or a constant of the user's.
    fn path_expr(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        use syn::Expr as E;
        match e {
            E::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let name = p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                match self.lookup(&name).cloned() {
                    Some(Binding::Value(v)) => Some(Lowered {
                        operand: Operand::Value(v),
                        ty: self.values[v.0].ty.clone(),
                    }),
                    Some(Binding::Uninit(_)) => {
                        // After an error, the assignment may be the refused
                        // statement: say nothing more.
                        if self.errors.is_none() {
                            error(self, e, format!("`{name}` is used before it is assigned"));
                        }
                        None
                    }
                    // A constant or static of the user's, named inline, unless
                    // it may be an item local to this block: the reverse
                    // sweep, outside the block, reads a copy.
                    None if self.scopes.len() > 1 => {
                        let op = Op::Copy(Operand::Const(Box::new(e.clone())));
                        Some(self.def(op, Ty::Unknown, e, out))
                    }
                    None => Some(Lowered {
                        operand: Operand::Const(Box::new(e.clone())),
                        ty: Ty::Unknown,
                    }),
                }
            }
            _ => self.opaque(e, out),
        }
    }

    /// Casts, blocks, branches, struct literals, and what is kept as
    /// written.
    fn region_expr(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        use syn::Expr as E;
        match e {
            E::Cast(c) => {
                let a = self.expr(&c.expr, out)?;
                let ty = self.types.ty_of(&c.ty);
                Some(self.def(Op::Cast(a.operand, c.ty.clone()), ty, e, out))
            }
            E::Block(b) if b.label.is_none() => self.block(&b.block, out, Mode::Value),
            E::If(x) if !matches!(*x.cond, syn::Expr::Let(_)) => self.lower_if(x, out, Mode::Value),
            E::If(x) if crate::desugar::if_let::as_match(x).is_some() => {
                let m = crate::desugar::if_let::as_match(x)?;
                self.lower_match(&m, out, Mode::Value)
            }
            E::Match(m) => self.lower_match(m, out, Mode::Value),
            E::Struct(st) => match self.construct(st, out) {
                Some(l) => Some(l),
                None => self.opaque(e, out),
            },
            E::Assign(_) => {
                error(self, e, "#[grad] does not support an assignment inside an expression: make it a statement of its own");
                None
            }
            // Loops, closures, macro calls, ...: kept as written, and
            // refused by activity analysis where a derivative would have
            // to pass through them.
            _ => self.opaque(e, out),
        }
    }

    /// Whether an operand is a float: of a float type, or of a type
    /// rustc infers that is a float (`Lowerer::inferred_floats`).
    fn inferred_float(&self, o: &Lowered) -> bool {
        o.ty.is_float()
            || o.ty == Ty::Unknown && o.operand.value().is_some_and(|v| self.is_inferred_float(v))
    }

    /// Whether a value of no type the source states is one rustc infers
    /// a float (or a call's float array) for: a `#[grad]` call's result,
    /// or arithmetic of those (`Lowerer::inferred_floats`).
    pub(super) fn is_inferred_float(&self, v: ValueId) -> bool {
        self.call_results.contains(&v) || self.inferred_floats.contains(&v)
    }

    /// `-a`, `!c`, `*r`.
    fn unary_expr(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        use syn::Expr as E;
        match e {
            // `-v` of a struct: its `Neg` method, `v.neg()`.
            E::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) && self.struct_operand(&u.expr) => {
                let call = operator_call(&u.expr, "neg", syn::spanned::Spanned::span(&u.op), None);
                self.expr(&call, out)
            }
            E::Unary(u) => {
                let op = match u.op {
                    syn::UnOp::Neg(_) => UnOp::Neg,
                    syn::UnOp::Not(_) => UnOp::Not,
                    // `*x` on an element read from an array: the element.
                    syn::UnOp::Deref(_) if self.is_float_local(&u.expr) => {
                        return self.expr(&u.expr, out)
                    }
                    // `*p` of a struct parameter taken by `&` (`add(*p,
                    // q)`): its copy, as `p.clone()` is.
                    syn::UnOp::Deref(_) if self.is_struct_copy(&cloned(&u.expr)) => {
                        return self.expr(&cloned(&u.expr), out);
                    }
                    // `*xs.iter().max_by(..).unwrap()`: the element the
                    // loop it stands for picks, a value.
                    syn::UnOp::Deref(_)
                        if matches!(&*u.expr, E::MethodCall(m)
                            if crate::desugar::iterators::extremum(m, &|e| self.indexable(e), &self.internal).is_some()) =>
                    {
                        return self.expr(&u.expr, out)
                    }
                    _ => return self.opaque(e, out),
                };
                let a = self.expr(&u.expr, out)?;
                let ty = match op {
                    // No float has `!`: of a `bool`, or of an integer
                    // (bitwise), it carries no derivative, whatever the
                    // type the source shows (`self.alive = !self.alive;`
                    // of a struct's field).
                    UnOp::Not if a.ty == Ty::Int => Ty::Int,
                    UnOp::Not => Ty::Bool,
                    _ => a.ty.clone(),
                };
                Some(self.def(Op::Unary(op, a.operand), ty, e, out))
            }
            _ => self.opaque(e, out),
        }
    }

    /// `a + b`, `a < b`, of floats or of structs (their operators' methods).
    fn binary_expr(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        use syn::Expr as E;
        match e {
            E::Binary(b) => {
                if compound_op(&b.op).is_some() {
                    error(self, e, "#[grad] does not support an assignment inside an expression: make it a statement of its own");
                    return None;
                }
                let op = bin_op(&b.op);
                if matches!(op, BinOp::Other("&&") | BinOp::Other("||")) {
                    // Short-circuit: the right side may not run, so it is not
                    // split into Wengert entries.
                    return self.opaque_typed(e, Ty::Bool, out);
                }
                // `a.name == "XY"` of a differentiated struct's field of
                // a type the source does not state: compared in place, as
                // written (a projection would move it out of its owner).
                let place = |e: &syn::Expr| {
                    matches!(e, E::Field(_) | E::Index(_))
                        && self.composite_place(e).is_some()
                        && self.array_place(e).is_none()
                };
                if matches!(op, BinOp::Other("==" | "!=" | "<" | "<=" | ">" | ">="))
                    && (place(&b.left) || place(&b.right))
                {
                    return self.opaque_typed(e, Ty::Bool, out);
                }
                // `a + b * t` of structs (`impl Add for V3`): the
                // operators' methods, `a.add(b.mul(t))`, each differentiated
                // through its `#[grad]` as a method is.
                let method = match op {
                    BinOp::Add => Some("add"),
                    BinOp::Sub => Some("sub"),
                    BinOp::Mul => Some("mul"),
                    BinOp::Div => Some("div"),
                    BinOp::Rem => Some("rem"),
                    _ => None,
                };
                if let Some(method) = method {
                    let left = self.struct_operand(&b.left);
                    if left || self.struct_operand(&b.right) {
                        let span = syn::spanned::Spanned::span(&b.op);
                        // `f * dt + vel` of a struct `vel`: `Add`'s other
                        // operand a struct too, `f * dt` its method (`f` of
                        // `let f = gravity(..);` taken for the struct); the
                        // argument's, `vel + f * dt`, in `methods.rs`.
                        let receiver = match (method, left) {
                            ("add" | "sub", false) => self
                                .operators_as_methods(&b.left)
                                .unwrap_or_else(|| (*b.left).clone()),
                            _ => (*b.left).clone(),
                        };
                        let call = operator_call(&receiver, method, span, Some(&b.right));
                        return self.expr(&call, out);
                    }
                }
                let l = self.expr(self.through_ref_beside(&b.left, &b.right), out)?;
                let r = self.expr(self.through_ref_beside(&b.right, &b.left), out)?;
                if method.is_some() && (l.ty.composite().is_some() || r.ty.composite().is_some()) {
                    error(self, b.op, format!(
                        "#[grad] differentiates `{}` of floats; here an operand is a struct, whose operator (`impl {}`) #[grad] reads as its method only where it can tell the struct: bind the result with its type (`let v: V3 = ..;`), or call the method, `a.{}(b)`, with `#[grad]` on it and on its `impl`",
                        quote::ToTokens::to_token_stream(&b.op),
                        method.map(operator_trait).unwrap_or_default(),
                        method.unwrap_or_default()
                    ));
                    return None;
                }
                let ty = match op {
                    BinOp::Other("==" | "!=" | "<" | "<=" | ">" | ">=") => Ty::Bool,
                    BinOp::Other("<<" | ">>") => l.ty.clone(),
                    _ => join(&l.ty, &r.ty),
                };
                // `2.0 * y` of a float of a type rustc infers (a call's
                // result, a tuple's element): one too.
                let inferred = ty == Ty::Unknown
                    && method.is_some()
                    && [&l, &r].iter().all(|o| self.inferred_float(o));
                let made = self.def(Op::Binary(op, l.operand, r.operand), ty, e, out);
                if let (true, Operand::Value(v)) = (inferred, &made.operand) {
                    self.inferred_floats.insert(*v);
                }
                Some(made)
            }
            _ => self.opaque(e, out),
        }
    }

    /// `a.f`, `a[i]`: parts of structs, of calls' results and of arrays.
    fn place_expr(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        use syn::Expr as E;
        match e {
            // `t.x` of a struct built whole.
            E::Field(fe) if self.built_field(fe).is_some() => {
                let (base, from) = self.built_field(fe)?;
                // A field that is itself a struct built whole (`hip: J {
                // q: r_hip_q }`, read back as `r_recv.hip` after a method
                // taking `&self`, trial 13 r1164): its fields read back
                // from what they were built from, in turn.
                let nested = from.value().and_then(|f| self.built.get(&f).cloned());
                let op = Op::Field {
                    base,
                    member: fe.member.clone(),
                    from,
                    constant: false,
                };
                let read = self.def(op, Ty::Unknown, e, out);
                if let (Operand::Value(v), Some(fields)) = (&read.operand, nested) {
                    self.built.insert(*v, fields);
                }
                Some(read)
            }
            // `xs.iter().copied().fold((1.0, 0.0), |(p, s), x| ..).0`.
            E::Field(fe) if self.fold_element(fe).is_some() => {
                let loop_form = self.fold_element(fe)?;
                self.expr(&loop_form, out)
            }
            E::Field(_) | E::Index(_) if self.is_part_of_call(e) => {
                let mut insts = Vec::new();
                match self.part_of_call(e, &mut insts) {
                    Some(part) => {
                        out.extend(insts);
                        Some(part)
                    }
                    None => self.opaque(e, out),
                }
            }
            E::Field(_) | E::Index(_) if self.composite_place(e).is_some() => {
                let (base, steps) = self.composite_place(e)?;
                let path = self.lower_steps(steps, out)?;
                let part = self.def(
                    Op::Project {
                        base,
                        path,
                        by_ref: false,
                    },
                    Ty::Unknown,
                    e,
                    out,
                );
                if let Operand::Value(v) = part.operand {
                    self.projected.insert(v);
                    // An element of a slice of structs (`vs[i]` of `vs:
                    // &[V]`, a `for v in vs` loop's): its `v.abs()` is
                    // `V`'s, as the signature states.
                    if self.struct_slice_element(e) {
                        self.struct_results.insert(v);
                    }
                }
                Some(part)
            }
            E::Index(_) if self.array_place(e).is_some() => {
                let (array, index) = self.array_place(e)?;
                let mut ops = Vec::new();
                for i in index {
                    ops.push(self.expr(i, out)?.operand);
                }
                let elem = self.values[array.0].ty.array().map(ArrayTy::elem_ty)?;
                Some(self.def(Op::Load { array, index: ops }, elem, e, out))
            }
            _ => self.opaque(e, out),
        }
    }

    pub(super) fn is_local_path(&self, path: &syn::Path) -> bool {
        path.get_ident()
            .is_some_and(|i| self.lookup(&i.to_string()).is_some())
    }

    pub(super) fn def(&mut self, op: Op, ty: Ty, e: &syn::Expr, out: &mut Vec<Inst>) -> Lowered {
        let v = self.new_value(None, ty.clone(), ValueKind::Def, e.span());
        out.push(Inst::Def {
            dst: v,
            op,
            written: None,
            span: e.span(),
        });
        Lowered {
            operand: Operand::Value(v),
            ty,
        }
    }

    /// Whether `e` is a field or an element of a value the macro does not
    /// model (a constant struct's `data.ys`, `cfg.rows[k]`), which code can
    /// only read in place.
    pub(super) fn unmodelled_place(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Paren(p) => self.unmodelled_place(&p.expr),
            syn::Expr::Field(_) | syn::Expr::Index(_) => {
                self.composite_place(e).is_none() && self.array_place(e).is_none()
            }
            _ => false,
        }
    }

    pub(super) fn opaque(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        self.opaque_typed(e, Ty::Unknown, out)
    }

    /// An expression kept as written (a macro call, a field, an index, a
    /// tuple, ...).
    pub(super) fn opaque_typed(
        &mut self,
        e: &syn::Expr,
        ty: Ty,
        out: &mut Vec<Inst>,
    ) -> Option<Lowered> {
        if !self.check_opaque(e) {
            return None;
        }
        let expr = self.floats_by_value(e);
        let reads = self.reads_of_expr(&expr);
        Some(self.def(Op::Opaque { expr, reads }, ty, e, out))
    }

    /// `e` with `*x` (`**x`) read as `x` where `x` is a float the macro
    /// holds by value: an element a loop's or a filter's pattern bound by
    /// reference in Rust (`.filter(|(j, x)| **x > lo && *j != i)`), which
    /// the desugaring binds as the float itself, also inside a closure
    /// (`|v: f64| (*y * v).sin()`), but for the closure's own parameters.
    pub(super) fn floats_by_value(&self, e: &syn::Expr) -> syn::Expr {
        use syn::visit_mut::VisitMut;
        struct Strip<'a>(&'a Lowerer, Vec<String>);
        impl VisitMut for Strip<'_> {
            fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
                if let syn::Expr::Unary(u) = e {
                    let own = matches!(&*u.expr, syn::Expr::Path(p)
                        if p.path.get_ident().is_some_and(|i| self.1.contains(&i.to_string())));
                    if matches!(u.op, syn::UnOp::Deref(_)) && self.0.is_float_local(&u.expr) && !own
                    {
                        let mut inner = (*u.expr).clone();
                        while let syn::Expr::Unary(u) = &inner {
                            if !matches!(u.op, syn::UnOp::Deref(_)) {
                                break;
                            }
                            inner = (*u.expr).clone();
                        }
                        *e = inner;
                        return;
                    }
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
            fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
                let before = self.1.len();
                for p in &c.inputs {
                    let mut names = std::collections::HashSet::new();
                    crate::desugar::internal::collect_idents(p.to_token_stream(), &mut names);
                    self.1.extend(names);
                }
                self.visit_expr_mut(&mut c.body);
                self.1.truncate(before);
            }
        }
        let mut e = e.clone();
        Strip(self, Vec::new()).visit_expr_mut(&mut e);
        e
    }

    /// `&x` (`&&x`) of a float the macro holds, as an operand of
    /// arithmetic or a float method's receiver: `x`, which `&f64`'s
    /// operators and auto-deref read (`let r = &x; r * y`, after
    /// `desugar/refs.rs` made `r` into `&x`). Any other expression as it is.
    pub(super) fn through_float_ref<'e>(&self, e: &'e syn::Expr) -> &'e syn::Expr {
        let mut inner = e;
        loop {
            match inner {
                syn::Expr::Reference(r) if r.mutability.is_none() => inner = &r.expr,
                syn::Expr::Paren(p) => inner = &p.expr,
                _ => break,
            }
        }
        match !std::ptr::eq(inner, e) && self.is_float_local(inner) {
            true => inner,
            false => e,
        }
    }

    /// [`Self::through_float_ref`] of an operand of arithmetic, and `&a` of
    /// a local of a type the source does not state (`let a = helper(x);
    /// let r = &a; r * x`) beside a float: `a`, read as the arithmetic
    /// reads such a local without the reference.
    fn through_ref_beside<'e>(&self, e: &'e syn::Expr, other: &syn::Expr) -> &'e syn::Expr {
        let through = self.through_float_ref(e);
        let mut r = through;
        while let syn::Expr::Paren(p) = r {
            r = &p.expr;
        }
        let syn::Expr::Reference(r) = r else {
            return through;
        };
        let unknown = |e: &syn::Expr| {
            match e {
            syn::Expr::Path(p) => p.path.get_ident().is_some_and(|name| {
                matches!(self.lookup(&name.to_string()), Some(Binding::Value(v)) if self.values[v.0].ty == Ty::Unknown)
            }),
            _ => false,
        }
        };
        // Beside a float: anything but another reference (`&a * &b` may be
        // two matrices). A local of a type the source does not state
        // (`let b = g(x); r - b`) is read by the arithmetic as a float
        // already, as `a - b` would be.
        let float = |e: &syn::Expr| {
            let mut e = self.through_float_ref(e);
            while let syn::Expr::Paren(p) = e {
                e = &p.expr;
            }
            self.is_float_local(e) || !matches!(e, syn::Expr::Reference(_))
        };
        match r.mutability.is_none() && unknown(&r.expr) && float(other) {
            true => &r.expr,
            false => through,
        }
    }
}

/// `e.clone()`, spanned as `e`.
fn cloned(e: &syn::Expr) -> syn::Expr {
    syn::parse_quote_spanned!(e.span()=> #e.clone())
}

//! Places: parts of composite parameters as written (`p.layers[k].w`,
//! `points[i]`), read by projection or passed by reference, and the
//! arguments of calls, where a whole array, struct or part is passed.

use super::*;

/// A step of a place expression as written.
pub(super) enum PlaceStep<'e> {
    Field(&'e syn::Member),
    Index(&'e syn::Expr),
}

impl Lowerer {
    /// The IR steps of a place's steps as written: fields as they are,
    /// indices lowered.
    pub(super) fn lower_steps(
        &mut self,
        steps: Vec<PlaceStep<'_>>,
        out: &mut Vec<Inst>,
    ) -> Option<Vec<Step>> {
        let mut path = Vec::new();
        for s in steps {
            path.push(match s {
                PlaceStep::Field(m) => Step::Field(m.clone()),
                PlaceStep::Index(i) => Step::Index(self.expr(i, out)?.operand),
            });
        }
        Some(path)
    }

    /// Whether an expression names a local float value.
    /// A call's arguments. An array or a composite passed by name or by
    /// reference is the value itself, not code kept as written: its
    /// gradient comes back from the callee. Also returns, per argument,
    /// whether it is borrowed (`&xs`).
    /// An array literal given to a call (`[a, b]`, `[v; N]`) whose items
    /// are floats: a new local array, unnamed in the source; `None` where
    /// it is no such literal or cannot be modelled here (then it is kept
    /// as written).
    pub(super) fn argument_array(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<ValueId> {
        let (_, name) = self.internal.fresh_loop();
        let ident = syn::Ident::new(&format!("{name}_array"), e.span());
        if self.array_copy(e) {
            // `sumsq(v.clone())`, `sumsq(x.to_vec())` (trial 12 r1007): a
            // copy bound first, as `let w = v.clone();` is.
            self.stmt(&syn::parse_quote_spanned!(e.span()=> let #ident = #e;), out);
        } else if !matches!(e, syn::Expr::Array(_) | syn::Expr::Repeat(_))
            || !self.local_array(&ident, None, e, out)
        {
            return None;
        }
        match self.lookup(&ident.to_string()) {
            Some(Binding::Value(v)) if self.values[v.0].ty.array().is_some() => Some(*v),
            _ => None,
        }
    }

    /// `rows[i]` of a modelled nested array: the array and the index.
    fn nested_row<'e>(&self, e: &'e syn::Expr) -> Option<(ValueId, &'e syn::Expr)> {
        let syn::Expr::Index(ix) = e else {
            // `&(rows[k])` of `for row in rows` (`desugar/iterators`).
            return match e {
                syn::Expr::Paren(p) => self.nested_row(&p.expr),
                _ => None,
            };
        };
        let v = self.modelled_array(&ix.expr)?;
        matches!(self.values[v.0].ty.array()?.shape, Shape::Nested).then_some((v, &*ix.index))
    }

    /// Whether `e` is a copy of a modelled array, `v.clone()`, `x.to_vec()`
    /// or `x.to_owned()`.
    pub(super) fn array_copy(&self, e: &syn::Expr) -> bool {
        matches!(e, syn::Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(m.method.to_string().as_str(), "clone" | "to_vec" | "to_owned")
                && self.modelled_array(&m.receiver).is_some())
    }

    /// `Path { f: a, g: b }` (every field named, no `..base`) with a float,
    /// an array or a composite among its fields: a struct built whole,
    /// `Op::Construct`. `None` where it is no such literal (then it is kept
    /// as written, like any value of the user's type).
    pub(super) fn construct(
        &mut self,
        s: &syn::ExprStruct,
        out: &mut Vec<Inst>,
    ) -> Option<Lowered> {
        if s.qself.is_some() || s.fields.is_empty() && s.rest.is_none() {
            return None;
        }
        let mut insts = Vec::new();
        // `..base`: a struct the function holds (a parameter, a value it
        // built or a call returned), copied.
        let base = match &s.rest {
            None => None,
            Some(rest) => match self.expr(copied_struct(rest), &mut insts)? {
                Lowered {
                    operand: Operand::Value(b),
                    ty: Ty::Composite(_),
                } => Some(b),
                _ => return None,
            },
        };
        let mut fields = Vec::new();
        for f in &s.fields {
            if !matches!(f.member, syn::Member::Named(_)) {
                return None;
            }
            let value = match self.field_copy(&f.expr, &mut insts) {
                Some(v) => v,
                None => self.expr(&f.expr, &mut insts)?,
            };
            fields.push((f.member.clone(), value));
        }
        // A float, an array, a struct, or a value of a type the source
        // does not state that the macro computed (`a.x + b.x` of two
        // structs' fields).
        let modelled = |cx: &Self, l: &Lowered| {
            l.ty.is_float()
                || matches!(l.ty, Ty::Array(_) | Ty::Composite(_))
                || l.ty == Ty::Unknown
                    && matches!(l.operand, Operand::Value(_))
                    && !cx.kept_as_written(&l.operand, &insts)
        };
        // The struct the function returns is built as a value even of
        // constants: what it returns must be one.
        let returned = matches!(&self.ret_struct, Some(syn::Type::Path(t))
            if t.qself.is_none() && t.path == s.path);
        if base.is_none() && !returned && !fields.iter().any(|(_, l)| modelled(self, l)) {
            return None;
        }
        out.extend(insts);
        // Built on another: of its type (which a later field's assignment
        // names, `lower/struct_writers.rs`).
        let grad_ty = base
            .and_then(|b| self.values[b.0].ty.composite().map(|c| c.grad_ty.clone()))
            .unwrap_or(syn::Type::Infer(syn::TypeInfer {
                underscore_token: Default::default(),
            }));
        let ty = Ty::Composite(Box::new(Composite {
            grad_ty,
            holder: Holder::Value,
        }));
        let fields: Vec<(syn::Member, Operand)> =
            fields.into_iter().map(|(m, l)| (m, l.operand)).collect();
        let op = Op::Construct {
            path: s.path.clone(),
            fields: fields.clone(),
            base,
        };
        let built = self.def(op, ty, &syn::Expr::Struct(s.clone()), out);
        // Its fields read back from what they were built from: only where
        // every field is named.
        if let (Operand::Value(v), None) = (&built.operand, base) {
            self.built.insert(*v, fields);
        }
        Some(built)
    }

    /// A field's value that is a new array, `w: self.w.clone()`, `w:
    /// xs.to_vec()`, `w: vec![a, b]`, `w: [a, b]`: bound first to a name
    /// of the macro's, as `let w = self.w.clone();` would be (a local
    /// array, its elements followed), and read by that name. `None` for
    /// any other value, and where the `let` binds no value.
    fn field_copy(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        let copy = match e {
            syn::Expr::MethodCall(m) => {
                matches!(m.method.to_string().as_str(), "clone" | "to_vec") && m.args.is_empty()
            }
            syn::Expr::Macro(m) => m.mac.path.is_ident("vec"),
            syn::Expr::Array(_) | syn::Expr::Repeat(_) => true,
            _ => false,
        };
        if !copy {
            return None;
        }
        let (_, name) = self.internal.fresh_loop();
        let ident = syn::Ident::new(&format!("{name}_field"), e.span());
        self.stmt(&syn::parse_quote_spanned!(e.span()=> let #ident = #e;), out);
        match self.lookup(&ident.to_string()) {
            Some(Binding::Value(v)) => Some(Lowered {
                operand: Operand::Value(*v),
                ty: self.values[v.0].ty.clone(),
            }),
            _ => None,
        }
    }

    /// `t.x` of a struct built whole, bound by name: the struct and what
    /// it took for the field.
    pub(super) fn built_field(&self, e: &syn::ExprField) -> Option<(ValueId, Operand)> {
        let syn::Expr::Path(p) = &*e.base else {
            return None;
        };
        let Some(Binding::Value(v)) = self.lookup(&p.path.get_ident()?.to_string()) else {
            return None;
        };
        let fields = self.built.get(v)?;
        let (_, from) = fields.iter().find(|(m, _)| *m == e.member)?;
        Some((*v, from.clone()))
    }

    /// An argument `Path { .. }` or `&Path { .. }` built whole
    /// ([`Self::construct`]), and whether it is borrowed.
    pub(super) fn built_argument(
        &mut self,
        a: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> Option<(Lowered, bool)> {
        let (mut e, by_ref) = match a {
            syn::Expr::Reference(r) if r.mutability.is_none() => (&*r.expr, true),
            other => (other, false),
        };
        while let syn::Expr::Paren(p) = e {
            e = &p.expr;
        }
        let syn::Expr::Struct(st) = e else {
            return None;
        };
        Some((self.construct(st, out)?, by_ref))
    }

    pub(super) fn call_args(
        &mut self,
        given: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        out: &mut Vec<Inst>,
    ) -> Option<(Vec<Lowered>, Vec<bool>)> {
        let mut args = Vec::new();
        let mut borrowed = Vec::new();
        for a in given {
            let (inner, by_ref) = match a {
                syn::Expr::Reference(r) if r.mutability.is_none() => (&*r.expr, true),
                other => (other, false),
            };
            let whole = match self.modelled_array(inner) {
                Some(v) => Some(v),
                None => self
                    .composite_root(inner)
                    .filter(|(_, s)| s.is_empty())
                    .map(|(v, _)| v),
            };
            // `norm(&Point { x: a, y: b })`: a struct built for the call.
            if let Some(l) = self.built_argument(a, out) {
                args.push(l.0);
                borrowed.push(l.1);
                continue;
            }
            // `rhs([s[0] + h * k[0], s[1]], w)`: an array built for the
            // call is a local array of its own, passed as written.
            let whole = whole.or_else(|| self.argument_array(inner, out));
            let built = whole.is_some()
                && (matches!(inner, syn::Expr::Array(_) | syn::Expr::Repeat(_))
                    || self.array_copy(inner));
            match whole {
                Some(v) if matches!(inner, syn::Expr::Path(_)) || built => {
                    args.push(Lowered {
                        operand: Operand::Value(v),
                        ty: self.values[v.0].ty.clone(),
                    });
                    borrowed.push(by_ref);
                }
                // `&xs[a..b]` of a modelled array: a sub-slice, whose
                // gradient goes into the same sub-slice of the array's.
                None if by_ref && self.sub_slice(inner).is_some() => {
                    args.push(self.borrowed_sub_slice(inner, out)?);
                    borrowed.push(false);
                }
                // `&rows[i]` of a nested array (`rows: &[Vec<f64>]`, trial
                // 12 r1085): the row lent, its gradient added into the
                // same row of the array's.
                None if by_ref && self.nested_row(inner).is_some() => {
                    let (base, index) = self.nested_row(inner)?;
                    let at = self.expr(index, out)?.operand;
                    args.push(self.lent_projection(
                        base,
                        vec![Step::Index(at)],
                        Holder::Slice,
                        inner,
                        out,
                    )?);
                    borrowed.push(false);
                }
                // `&net.layers[k]`: a reference to a part, whose gradient
                // goes into the same part of the base's.
                None if by_ref && self.composite_place(inner).is_some() => {
                    args.push(self.borrowed_part(inner, out)?);
                    borrowed.push(false);
                }
                // `sum_squares(&softplus_all(&z))`: a call's result, lent.
                None if by_ref
                    && matches!(inner, syn::Expr::Call(_) | syn::Expr::MethodCall(_)) =>
                {
                    args.push(self.expr(inner, out)?);
                    borrowed.push(true);
                }
                _ => {
                    args.push(self.expr(a, out)?);
                    borrowed.push(false);
                }
            }
        }
        Some((args, borrowed))
    }

    /// `xs[a..b]` of a flat modelled array: the array and the range.
    fn sub_slice<'e>(&self, e: &'e syn::Expr) -> Option<(ValueId, &'e syn::ExprRange)> {
        let syn::Expr::Index(ix) = e else { return None };
        let syn::Expr::Range(r) = &*ix.index else {
            return None;
        };
        let v = self.modelled_array(&ix.expr)?;
        matches!(
            self.values[v.0].ty.array()?.shape,
            Shape::Vec | Shape::Fixed(_)
        )
        .then_some((v, r))
    }

    /// `&xs[a..b]` given to a call: a value that holds the sub-slice, as
    /// [`Self::borrowed_part`] holds a part.
    fn borrowed_sub_slice(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        let (base, r) = self.sub_slice(e)?;
        let step = self.range_step(r, out)?;
        self.lent_projection(base, vec![step], Holder::Slice, e, out)
    }

    /// `[a..b]` (`[a..]`, `[..b]`, `[a..=b]`) as a place's step, its bounds
    /// lowered where the sub-slice is taken.
    pub(super) fn range_step(&mut self, r: &syn::ExprRange, out: &mut Vec<Inst>) -> Option<Step> {
        let mut bound = |e: &Option<Box<syn::Expr>>, out: &mut Vec<Inst>| match e {
            Some(e) => self.expr(e, out).map(|l| Some(l.operand)),
            None => Some(None),
        };
        Some(Step::Range {
            start: bound(&r.start, out)?,
            end: bound(&r.end, out)?,
            inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
        })
    }

    /// `&p.a[i].b`, a part of a composite passed by reference: a value that
    /// holds the reference, of a composite type whose gradient is the
    /// part's own (`zero_like(part)`, added back into the base's adjoint
    /// at the same place).
    pub(super) fn borrowed_part(
        &mut self,
        place: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> Option<Lowered> {
        let (base, steps) = self.composite_place(place)?;
        let path = self.lower_steps(steps, out)?;
        self.lent_projection(base, path, Holder::Ref, place, out)
    }

    /// A value holding a reference to the place `base` `path` reaches, of
    /// a composite type held as `holder` says (its gradient the part's
    /// own, or a `Vec` for a slice), added back into the base's adjoint
    /// at the same place.
    fn lent_projection(
        &mut self,
        base: ValueId,
        path: Vec<Step>,
        holder: Holder,
        at: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> Option<Lowered> {
        let ty = Ty::Composite(Box::new(Composite {
            grad_ty: syn::Type::Infer(syn::TypeInfer {
                underscore_token: Default::default(),
            }),
            holder,
        }));
        let op = Op::Project {
            base,
            path,
            by_ref: true,
        };
        let part = self.def(op, ty, at, out);
        if let Operand::Value(v) = part.operand {
            self.projected.insert(v);
        }
        Some(part)
    }

    /// `p.a[i].b` rooted at a composite parameter or at a part read from
    /// one (`let row = points[i]; row[0]`): the root and the steps.
    pub(super) fn composite_place<'e>(
        &self,
        e: &'e syn::Expr,
    ) -> Option<(ValueId, Vec<PlaceStep<'e>>)> {
        match e {
            syn::Expr::Paren(p) => self.composite_place(&p.expr),
            syn::Expr::Field(f) => {
                let (root, mut steps) = self.composite_root(&f.base)?;
                steps.push(PlaceStep::Field(&f.member));
                Some((root, steps))
            }
            syn::Expr::Index(i) => {
                let (root, mut steps) = self.composite_root(&i.expr)?;
                steps.push(PlaceStep::Index(&i.index));
                Some((root, steps))
            }
            _ => None,
        }
    }

    /// Whether `e` is a part of the result of a call that may be a
    /// `#[grad]` function's or method's ([`Self::part_of_call`]).
    pub(super) fn is_part_of_call(&self, e: &syn::Expr) -> bool {
        let mut base = match e {
            syn::Expr::Index(i) => &*i.expr,
            syn::Expr::Field(f) => &*f.base,
            _ => return false,
        };
        while let syn::Expr::Paren(p) = base {
            base = &p.expr;
        }
        match base {
            syn::Expr::Call(c) => self.grad_function_path(c).is_some(),
            // `polar(r, t)?.0`, `m.both(x).unwrap().1`.
            _ if self.exiting_any(base).is_some() => true,
            syn::Expr::MethodCall(m) => crate::rules::maybe_users_method(&m.method.to_string()),
            _ => false,
        }
    }

    /// `cross(a, b)[2]`, `step(s, dt).x`: a part of a call's result read
    /// in place, as it is once the result is bound (`let n = cross(a, b);
    /// n[2]`): the call, then the part (`Op::Project`, which makes the call
    /// a vector-Jacobian call). `None` where `e` is no such part.
    pub(super) fn part_of_call(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        let (base, step) = match e {
            syn::Expr::Index(i) => (&*i.expr, PlaceStep::Index(&i.index)),
            syn::Expr::Field(f) => (&*f.base, PlaceStep::Field(&f.member)),
            _ => return None,
        };
        let mut inner = base;
        while let syn::Expr::Paren(p) = inner {
            inner = &p.expr;
        }
        if !matches!(
            inner,
            syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Try(_)
        ) {
            return None;
        }
        let mut insts = Vec::new();
        let called = self.expr(base, &mut insts)?;
        let v = called.operand.value()?;
        if !self.call_results.contains(&v) {
            return None;
        }
        out.extend(insts);
        let path = self.lower_steps(vec![step], out)?;
        let part = self.def(
            Op::Project {
                base: v,
                path,
                by_ref: false,
            },
            Ty::Unknown,
            e,
            out,
        );
        if let Operand::Value(p) = part.operand {
            self.projected.insert(p);
        }
        Some(part)
    }

    /// The root of a place: a composite parameter or projected part by
    /// name, or a longer place.
    pub(super) fn composite_root<'e>(
        &self,
        e: &'e syn::Expr,
    ) -> Option<(ValueId, Vec<PlaceStep<'e>>)> {
        if let syn::Expr::Path(p) = e {
            let name = p.path.get_ident()?.to_string();
            let Some(Binding::Value(v)) = self.lookup(&name) else {
                return None;
            };
            let projected = self.projected.contains(v) || self.call_results.contains(v);
            return (self.values[v.0].ty.composite().is_some() || projected)
                .then(|| (*v, Vec::new()));
        }
        self.composite_place(e)
    }
}

/// What `..rest` copies: `rest` without a `.clone()`, a `*` or
/// parentheses (each copy is the struct's value; the base is copied
/// where it is built, `Emitter::owned_copy`).
fn copied_struct(rest: &syn::Expr) -> &syn::Expr {
    match rest {
        syn::Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
            copied_struct(&m.receiver)
        }
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => copied_struct(&u.expr),
        syn::Expr::Paren(p) => copied_struct(&p.expr),
        other => other,
    }
}

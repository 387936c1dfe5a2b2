//! A method call: a float's method (a rule), a method of the user's
//! (`self.energy(x)`, `p.norm()`), differentiated through its `#[grad]`
//! slots like a call, or one that carries no derivative; and the forms
//! read first (`method_expr`, from `lower/expr.rs`): a call that may fail
//! with `?` or `.unwrap()`, a reduction, an extremum.

use syn::spanned::Spanned;

use super::*;

impl Lowerer {
    /// `p.clone()` of a struct the function holds as a composite (a
    /// parameter named in `wrt`, a struct built from another): a copy,
    /// `Path { ..p }` (`Op::Construct` with a base), whose adjoint passes
    /// to `p`'s. `None` for anything else.
    /// Whether `e` is `p.clone()` of one struct held as a composite.
    pub(super) fn is_struct_copy(&self, e: &syn::Expr) -> bool {
        let syn::Expr::MethodCall(m) = e else {
            return false;
        };
        let syn::Expr::Path(p) = &*m.receiver else {
            return false;
        };
        m.method == "clone"
            && m.args.is_empty()
            && p.path.get_ident().is_some_and(|n| {
                matches!(self.lookup(&n.to_string()), Some(Binding::Value(v))
                    if matches!(&self.values[v.0].ty, Ty::Composite(c) if c.holder != Holder::Slice))
            })
    }

    fn struct_copy(
        &mut self,
        m: &syn::ExprMethodCall,
        e: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> Option<Lowered> {
        if m.method != "clone" || !m.args.is_empty() {
            return None;
        }
        let syn::Expr::Path(p) = &*m.receiver else {
            return None;
        };
        let Some(&Binding::Value(v)) = self.lookup(&p.path.get_ident()?.to_string()) else {
            return None;
        };
        // A struct a `#[grad]` call returned, its type not stated (`let o
        // = launch(x0, v0);`): its copy is one too, which struct writers
        // may change (`let mut o3 = o.clone(); o3.step(dt);`, trial 11
        // B8; `struct_writers.rs writable_struct`).
        let untyped = match &self.values[v.0].ty {
            Ty::Unknown => self.call_results.contains(&v),
            // Such a struct changed by a writer (`struct_writers.rs
            // held_struct_ty`), its type still not stated.
            Ty::Composite(c) => {
                c.holder == Holder::Value && matches!(c.grad_ty, syn::Type::Infer(_))
            }
            _ => false,
        };
        if untyped {
            // Built on its base, naming no field: no struct literal is
            // written, and the path is not read (`emit/ops.rs built_on`,
            // `emit/doc.rs` shows `o.clone()`).
            let op = Op::Construct {
                path: p.path.clone(),
                fields: Vec::new(),
                base: Some(v),
            };
            let copy = self.def(op, Ty::Unknown, e, out);
            if let Operand::Value(c) = copy.operand {
                self.call_results.insert(c);
            }
            return Some(copy);
        }
        let Ty::Composite(c) = &self.values[v.0].ty else {
            return None;
        };
        if c.holder == Holder::Slice {
            return None;
        }
        // The path a struct literal of its type is written with.
        let syn::Type::Path(t) = &c.grad_ty else {
            return None;
        };
        let mut path = t.path.clone();
        for s in &mut path.segments {
            s.arguments = syn::PathArguments::None;
        }
        let ty = Ty::Composite(Box::new(Composite {
            grad_ty: c.grad_ty.clone(),
            holder: Holder::Value,
        }));
        let op = Op::Construct {
            path,
            fields: Vec::new(),
            base: Some(v),
        };
        Some(self.def(op, ty, e, out))
    }

    /// `recv.name(args..)`, without a turbofish.
    pub(super) fn method_call(
        &mut self,
        m: &syn::ExprMethodCall,
        e: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> Option<Lowered> {
        use syn::Expr as E;
        if let Some(copy) = self.struct_copy(m, e, out) {
            return Some(copy);
        }
        // `xs.iter().filter(|x| **x > 0.0).count()`: a number of elements,
        // an integer, which carries no derivative whatever it reads.
        if m.method == "count" && m.args.is_empty() && m.turbofish.is_none() {
            return self.opaque_typed(e, Ty::Int, out);
        }
        // A method of a `static` or `const` of the user's
        // (`TABLE.get(i)`), not a float's: called on it in place,
        // which a copy bound in a loop would move out of it.
        let item = matches!(&*m.receiver, E::Path(p)
            if p.qself.is_none() && !self.is_local_path(&p.path))
            && rules::method(&m.method.to_string()).is_none();
        // A part of a value the macro does not model (`net.layers[0]`
        // of a constant `net`) is lent to its method, not moved out
        // of its owner.
        let lent =
            rules::method(&m.method.to_string()).is_none() && self.unmodelled_place(&m.receiver);
        // A struct inside a differentiated one (`o.inner.eval(x)`,
        // `net.layers[k].forward(h)`): lent to its method in place, never
        // moved out of its owner, its slot added back into the owner's
        // adjoint at the same place.
        let name_str = m.method.to_string();
        let part = rules::method(&name_str).is_none()
            && rules::inactive_method(&name_str).is_none()
            && !rules::reads_only(&name_str)
            && !rules::is_std_method(&name_str)
            && self.array_place(&m.receiver).is_none()
            && self.composite_place(&m.receiver).is_some();
        // Without an argument that may carry a derivative (`a.name.
        // starts_with("X")`, `a.name.chars()`), the part may be a `String`
        // or any other type without slots: the call is kept as written,
        // on the part in place.
        let plain_args = m.args.iter().all(|a| {
            matches!(a, E::Lit(l) if !matches!(l.lit, syn::Lit::Float(_)))
                || matches!(a, E::Reference(r) if matches!(&*r.expr, E::Lit(_)))
        });
        // Not an element of a slice of structs (`vs[i].length()`), which
        // the signature says is a struct.
        if part && plain_args && !self.struct_slice_element(&m.receiver) {
            return self.opaque(e, out);
        }
        // `v.get_mut(1)`, `v.iter_mut()` of an array the lowering follows
        // by its elements: a way into it, which code kept as written
        // would change unseen; refused there (`check_opaque`), with the
        // element to write instead.
        let whole_array = matches!(&*m.receiver, E::Path(_)) && self.is_array_name(&m.receiver);
        if whole_array && rules::hands_out_interior(&name_str) {
            return self.opaque(e, out);
        }
        let recv = match (item, lent) {
            _ if part => self.borrowed_part(&m.receiver, out)?,
            (true, _) => Lowered {
                operand: Operand::Const(m.receiver.clone()),
                ty: Ty::Unknown,
            },
            (false, true) => {
                let r = &m.receiver;
                self.expr(&syn::parse_quote_spanned!(r.span()=> &#r), out)?
            }
            // `r.sin()` of `let r = &x;`: `x.sin()`.
            (false, false) if rules::method(&m.method.to_string()).is_some() => {
                self.expr(self.through_float_ref(&m.receiver), out)?
            }
            (false, false) => self.expr(&m.receiver, out)?,
        };
        // `x.clone()` of a float: the float itself, a copy (trial 10 r793).
        if m.method == "clone" && m.args.is_empty() && recv.ty.is_float() {
            return Some(recv);
        }
        let name = m.method.to_string();
        // The value of another `#[grad]` call (`make(a, b).len()`): a
        // vector or a struct the source does not name the type of.
        let of_call = matches!(&recv.operand, Operand::Value(v) if self.call_results.contains(v))
            && recv.ty == Ty::Unknown;
        // `let p: V2 = make(a, b);`: a struct of the user's by the
        // source's word (another call's `v.len()` is a vector's,
        // checked by `emit/ops.rs`).
        let stated = matches!(&recv.operand, Operand::Value(v) if self.struct_results.contains(v));
        // A struct's method is the user's whatever its name: `p.len()` of
        // a vector type is no `Vec::len`, `z.abs()` of a complex number
        // no float's `abs`.
        // A slice or `Vec` of structs or rows has `std`'s methods only
        // (`c.len()` of `c: &[[f64; 2]]`).
        let of_struct = (recv.ty.composite().is_some() || stated)
            && !rules::is_std_method(&name)
            && !(recv.ty.is_sequence() && rules::inactive_method(&name).is_some());
        let maybe_users = of_struct || rules::maybe_users_method(&name);
        // A method that may be the user's takes its arguments as a
        // call does: arrays and structs whole (`m.step(&xs, lr)`,
        // `p.dot(&Vec2 { .. })`), their gradients from its slots.
        // `vel.add(f * dt)` of a struct (`vel + f * dt`, `lower/expr.rs`,
        // `desugar/local_structs/operators.rs`): `Add`'s other operand a
        // struct too, its operators their methods (`f.mul(dt)`, `f` of
        // `let f = gravity(..);` taken for the struct).
        let rewritten;
        let call_args = match (of_struct, name.as_str(), m.args.first()) {
            (true, "add" | "sub", Some(a)) if m.args.len() == 1 && !self.struct_operand(a) => {
                match self.operators_as_methods(a) {
                    Some(a) => {
                        rewritten =
                            syn::punctuated::Punctuated::<_, syn::Token![,]>::from_iter([a]);
                        &rewritten
                    }
                    None => &m.args,
                }
            }
            _ => &m.args,
        };
        let (args, borrowed) = match maybe_users {
            true => self.call_args(call_args, out)?,
            false => {
                let mut args = Vec::new();
                for a in &m.args {
                    args.push(self.expr(a, out)?);
                }
                let n = args.len();
                (args, vec![false; n])
            }
        };
        let ty = if of_struct {
            Ty::Unknown
        } else if rules::method(&name).is_some() {
            match &recv.ty {
                Ty::Int => Ty::Int,
                t if t.is_float() && *t != Ty::FloatLit => t.clone(),
                t => args.iter().map(|a| &a.ty).fold(t.clone(), |acc, t| {
                    if t.is_float() {
                        join(&acc, t)
                    } else {
                        acc
                    }
                }),
            }
        } else {
            match rules::inactive_method(&name) {
                Some(rules::InactiveResult::Bool) => Ty::Bool,
                Some(rules::InactiveResult::Int) => Ty::Int,
                None => Ty::Unknown,
            }
        };
        // A method of the user's (`self.energy(x)`) with float
        // arguments: differentiated through its `_grad`, like a call.
        // So is a method called on a differentiated struct or
        // `self` (`self.predict(x)`), whose receiver is slot 0.
        let user_method = maybe_users
            && (of_call
                || stated
                || recv.ty == Ty::Unknown
                && args.iter().any(|a| {
                    // A float, or a value of a type the source does
                    // not state (another call's result).
                    a.ty.is_float()
                        || a.ty.composite().is_some()
                        || a.ty.array().is_some()
                        || a.ty == Ty::Unknown && matches!(a.operand, Operand::Value(_))
                })
                || recv.ty.composite().is_some()
                // An argument passed by reference keeps its `&`.
                || borrowed.iter().any(|b| *b));
        if user_method {
            let root = crate::desugar::internal::place_root(&m.receiver);
            let via_trait = root.and_then(|r| match self.lookup(&r) {
                Some(Binding::Value(v)) => Some(self.through_traits.contains(v)),
                _ => None,
            });
            if via_trait == Some(true) {
                error(self, &m.method, format!(
                    "#[grad] differentiates `{name}` through the functions its `#[grad]` adds to each type's own `impl`, which a call through a trait (`dyn Trait`, or a type parameter `S: Trait`) cannot name: call it on the concrete type (`&Circle`), or dispatch with an `enum` whose `{name}` has `#[grad]` and matches on the variants"
                ));
                return None;
            }
            // A call's result lent to the method (`l.forward(&h)`) is not
            // a float, as for a function's (`lower/expr.rs`).
            for (a, by_ref) in args.iter().zip(&borrowed) {
                if let (true, Operand::Value(v)) = (by_ref, &a.operand) {
                    if self.call_results.contains(v) {
                        self.vector_results.insert(*v);
                    }
                }
            }
            let partials = std::iter::once(self.slot(&recv.ty, m.receiver.span()))
                .chain(
                    args.iter()
                        .zip(&m.args)
                        .map(|(a, w)| self.slot(&a.ty, w.span())),
                )
                .map(Some)
                .collect();
            let op = Op::GradMethod {
                name: m.method.clone(),
                recv: recv.operand,
                args: args.into_iter().map(|a| a.operand).collect(),
                borrowed,
                partials,
                exit: None,
            };
            // Read in parts (`s.step(dt).x`), it returns a vector
            // or a struct (`vector_calls.rs`).
            let value = self.def(op, Ty::Unknown, e, out);
            if let Operand::Value(v) = &value.operand {
                self.call_results.insert(*v);
            }
            return Some(value);
        }
        let with_partial =
            rules::with_partial(&name) && args.is_empty() && (ty.is_float() || ty == Ty::Unknown);
        let op = Op::Method {
            name: m.method.clone(),
            recv: recv.operand,
            args: args.into_iter().map(|a| a.operand).collect(),
            partial: None,
        };
        let value = self.def(op, ty.clone(), e, out);
        if with_partial {
            // Numbered after the value it is the derivative of.
            let p = self.new_value(None, ty, ValueKind::Def, e.span());
            if let Some(Inst::Def {
                op: Op::Method { partial, .. },
                ..
            }) = out.last_mut()
            {
                *partial = Some(p);
            }
        }
        Some(value)
    }
}

impl Lowerer {
    /// Whether `e` names a struct by the source's word (`let p: V2 =
    /// make(a, b);`, `let d: V2 = r.dir;`, an element of `vs: &[V2]`):
    /// its `p.sum()` is `V2`'s, not an iterator's.
    fn stated_struct(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Paren(p) => self.stated_struct(&p.expr),
            syn::Expr::Path(p) => {
                match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    Some(Binding::Value(v)) => self.struct_results.contains(v),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// `r.m(..)` and `g(x)?`.
    pub(super) fn method_expr(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        use syn::Expr as E;
        match e {
            // `g(x)?` in a fallible function, `g(x).unwrap()` or
            // `g(x).expect(..)`, `g` a `#[grad]` function that may fail:
            // its `_grad`'s error leaves through the same `?`, `unwrap` or
            // `expect`.
            // `g(x).unwrap_or(0.0)`, `g(x).ok()`: methods of a `Result` or
            // an `Option`, which no float has, on a call that may fail.
            E::MethodCall(m)
                if (self.fallible_call(&m.receiver).is_some()
                    || matches!(&*m.receiver, E::MethodCall(r)
                        if crate::rules::maybe_users_method(&r.method.to_string())))
                    && [
                        "unwrap_or",
                        "unwrap_or_else",
                        "unwrap_or_default",
                        "ok",
                        "err",
                        "map",
                        "map_err",
                        "and_then",
                        "or_else",
                        "ok_or",
                        "ok_or_else",
                        "is_some",
                        "is_none",
                        "is_ok",
                        "is_err",
                        "map_or",
                        "map_or_else",
                    ]
                    .contains(&m.method.to_string().as_str())
                    && self.differentiated_call(&m.receiver) =>
            {
                let method = m.method.to_string();
                let adapter = matches!(method.as_str(), "ok_or" | "ok_or_else" | "map_err");
                error(
                    self,
                    &m.method,
                    if adapter {
                        format!("#[grad] differentiates `.{method}(..)?` of a call that may fail where its argument names nothing of the function's (`.ok_or(MyError::Negative)?`, `.map_err(|e| MyError::from(e))?`), as the generated functions do not have its variables: build the error from constants and the closure's own parameter")
                    } else {
                        format!("#[grad] differentiates a call of a function that may fail through `?` (after `.ok()`, `.ok_or(e)` or `.map_err(f)` too), `.unwrap()` or `.expect(..)`, not `.{method}(..)` yet: handle the failure with `?` in a function returning `Result` or `Option`, or with `.expect(..)`")
                    },
                );
                None
            }
            // Before a fallible call: `xs.iter().copied().reduce(f64::max)
            // .unwrap()` may look like a method of the user's.
            E::MethodCall(m)
                if m.method == "unwrap"
                    && crate::desugar::iterators::extremum(
                        m,
                        &|e| self.indexable(e),
                        &self.internal,
                    )
                    .is_some() =>
            {
                let loop_form =
                    crate::desugar::iterators::extremum(m, &|e| self.indexable(e), &self.internal)?;
                self.expr(&loop_form, out)
            }
            E::Try(_) | E::MethodCall(_) if self.exiting_any(e).is_some() => {
                let (call, exit) = self.exiting_any(e)?;
                self.exiting_call(call, exit, e, out)
            }
            E::MethodCall(m)
                if matches!(m.method.to_string().as_str(), "sum" | "product" | "fold")
                    && !self.stated_struct(&m.receiver)
                    && !self.struct_slice_element(&m.receiver)
                    && self.reduction(m).is_some() =>
            {
                let loop_form = self.reduction(m)?;
                self.expr(&loop_form, out)
            }
            // `p.b.len()` on a part of a composite: an integer, computed
            // as written (binding the part itself would move it).
            // Its `len` checked for a collection's (`emit/ops.rs`). (An
            // element of a slice of structs, `vs[i].len()`, is the
            // struct's, below.)
            E::MethodCall(m)
                if rules::inactive_method(&m.method.to_string()).is_some()
                    && !self.struct_slice_element(&m.receiver)
                    && (self.composite_place(&m.receiver).is_some()
                        || self.is_row(&m.receiver)) =>
            {
                let ty = match rules::inactive_method(&m.method.to_string()) {
                    Some(rules::InactiveResult::Bool) => Ty::Bool,
                    _ => Ty::Int,
                };
                self.opaque_typed(e, ty, out)
            }
            // A call given a closure is kept whole: split out of it, the
            // closure would lose the parameter types the call gives it.
            E::MethodCall(m) if m.args.iter().any(|a| matches!(a, E::Closure(_))) => {
                self.opaque(e, out)
            }
            // A method without arguments, other than a float's, on a part
            // of a value the macro does not model (`data.ys.len()`,
            // `cfg.name.is_empty()`): kept whole, since the part, taken
            // out to be the receiver, would be moved out of its owner.
            // So is a method that only reads its receiver, given
            // arguments (`s.weights.get(i)`, `cfg.names.contains(&k)`).
            E::MethodCall(m)
                if m.turbofish.is_none()
                    && (m.args.is_empty() || rules::reads_only(&m.method.to_string()))
                    && rules::method(&m.method.to_string()).is_none()
                    && self.unmodelled_place(&m.receiver) =>
            {
                self.opaque(e, out)
            }
            // `(a.cross(b) * 0.5).length()`: a method of the user's on an
            // operator's result, which is a struct, so its operators are
            // the struct's methods (`lower/operators.rs`).
            E::MethodCall(m) if self.operator_receiver(m).is_some() => {
                let mut call = m.clone();
                call.receiver = Box::new(self.operator_receiver(m)?);
                self.expr(&E::MethodCall(call), out)
            }
            E::MethodCall(m) if m.turbofish.is_none() => self.method_call(m, e, out),
            _ => self.opaque(e, out),
        }
    }
}

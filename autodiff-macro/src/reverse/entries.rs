//! The reverse of one Wengert entry: the rule that differentiates it and
//! the adjoints its pullback adds into.

use super::*;

impl Cx<'_> {
    /// The reverse-sweep step of one active entry.
    pub(super) fn entry(
        &mut self,
        dst: ValueId,
        op: &Op,
        span: proc_macro2::Span,
    ) -> Option<AdjStmt> {
        match op {
            Op::Load { array, index } => Some(AdjStmt::Element {
                array: *array,
                index: index.clone(),
                dst,
            }),
            // One slot per argument, from the callee's `_vjp` slots
            // (`emit/slots.rs`).
            Op::VjpCall {
                path,
                args,
                borrowed,
                mutated,
                original,
                method,
                exit,
                ..
            } => {
                let targets: Vec<Option<ValueId>> = args.iter().map(|a| self.target(a)).collect();
                if targets.iter().all(Option::is_none) {
                    return None;
                }
                Some(AdjStmt::Vjp {
                    dst,
                    path: path.clone(),
                    args: args.clone(),
                    borrowed: borrowed.clone(),
                    targets,
                    // A lent call's variant has plain `_vjp` slots.
                    writer: !mutated.is_empty() && original.is_none(),
                    method: *method,
                    fallible: exit.is_some(),
                })
            }
            Op::Construct { fields, base, .. } => {
                let named = fields.iter().map(|(m, _)| m.clone()).collect();
                let base = base
                    .and_then(|b| self.target(&Operand::Value(b)))
                    .map(|b| (b, named));
                let fields: Vec<(syn::Member, ValueId)> = fields
                    .iter()
                    .filter_map(|(m, o)| Some((m.clone(), self.target(o)?)))
                    .collect();
                (!fields.is_empty() || base.is_some()).then_some(AdjStmt::Fields {
                    dst,
                    fields,
                    base,
                })
            }
            Op::Field { from, .. } => Some(AdjStmt::Copy {
                dst,
                src: self.target(from)?,
                cast: None,
            }),
            Op::Project { base, path, .. } => Some(AdjStmt::Project {
                base: self.target(&Operand::Value(*base))?,
                path: path.clone(),
                dst,
            }),
            Op::Kernel { kernel, args, .. } => {
                let mutated = self.f.mutated_arrays();
                let mut targets = Vec::new();
                for a in args {
                    if let Some(v) = a.array() {
                        if mutated.contains(&v) {
                            let name = self.f.value(v).name.clone().unwrap_or_default();
                            self.error(syn::Error::new(span, format!(
                                "`{}` reads `{name}`, which this function writes to: the reverse sweep would see it as it is at the end; pass an array that is not written to (a parameter, or a kernel's result)",
                                kernel.name
                            )));
                            return None;
                        }
                        targets.push(Some(v).filter(|v| self.a.is_active(*v)));
                    }
                }
                Some(AdjStmt::Kernel {
                    kernel,
                    args: args.clone(),
                    dst,
                    targets,
                })
            }
            Op::NewArray(init) => {
                let len = match init {
                    ArrayInit::Filled { len, .. } if self.f.body.pushed_to(dst) => {
                        Some(len.clone())
                    }
                    _ => None,
                };
                let (items, filled) = match init {
                    ArrayInit::Filled { value, .. } | ArrayInit::Repeat { value, .. } => {
                        (vec![self.target(value)], true)
                    }
                    ArrayInit::List { items, .. } => {
                        (items.iter().map(|i| self.target(i)).collect(), false)
                    }
                    ArrayInit::Empty { .. } => (vec![], false),
                };
                items
                    .iter()
                    .any(Option::is_some)
                    .then_some(AdjStmt::Spread {
                        array: dst,
                        items,
                        filled,
                        len,
                    })
            }
            Op::Copy(src) => Some(AdjStmt::Copy {
                dst,
                src: self.target(src)?,
                cast: None,
            }),
            Op::Cast(src, ty) => {
                let src_v = self.target(src)?;
                let from = &self.f.value(src_v).ty;
                match (from.float(), self.f.value(dst).ty.float()) {
                    (Some(from), Some(to)) => Some(AdjStmt::Copy {
                        dst,
                        src: src_v,
                        // To or from the float type parameter
                        // (`T::from_f64(p.a)`): converted by the runtime.
                        cast: match from == FloatTy::Generic || to == FloatTy::Generic {
                            true => (from != to).then_some(FloatTy::Inferred),
                            false => (from != to).then_some(from),
                        },
                    }),
                    // A float whose width the source does not state (an
                    // element of `vec![0.0; n]`, a field): the adjoint is
                    // cast back to it as `_`, rustc's to infer.
                    (None, Some(_)) if matches!(from, Ty::FloatLit | Ty::Unknown) => {
                        Some(AdjStmt::Copy {
                            dst,
                            src: src_v,
                            cast: Some(FloatTy::Inferred),
                        })
                    }
                    _ => {
                        self.error(syn::Error::new_spanned(
                            ty,
                            "#[grad] can only differentiate casts between `f32` and `f64`",
                        ));
                        None
                    }
                }
            }
            Op::Unary(op, a) => match rules::unary(*op) {
                Some(rule) => self.pullback(rule, dst, vec![a.clone()], span),
                None => {
                    self.error(syn::Error::new(
                        span,
                        "#[grad] cannot differentiate `!`: it is not a float operation",
                    ));
                    None
                }
            },
            Op::Binary(op, a, b) => match rules::binary(*op) {
                Some(rule) => self.pullback(rule, dst, vec![a.clone(), b.clone()], span),
                None => {
                    self.error(syn::Error::new(span, format!(
                        "#[grad] cannot differentiate the operator `{}`: it is not a float operation; use `+ - * / %` on floats",
                        op.symbol()
                    )));
                    None
                }
            },
            Op::Method {
                name,
                recv,
                args,
                partial,
            } => match rules::method(&name.to_string()) {
                Some(rule) => {
                    let all = std::iter::once(recv.clone())
                        .chain(args.iter().cloned())
                        .collect();
                    let mut stmt = self.pullback(rule, dst, all, name.span());
                    if let Some(AdjStmt::Pullback { partial: p, .. }) = &mut stmt {
                        *p = *partial;
                    }
                    stmt
                }
                None if matches!(name.to_string().as_str(), "to_f64" | "to_f32") => {
                    self.error(syn::Error::new(name.span(), format!(
                        "#[grad] cannot pass a derivative through `{name}`: it takes the value out of the float type, and with it what the derivative (and a Hessian's dual numbers) would carry; compute with the float type's own operations (`x * x`, `x.powf(c)`, `T::from_f64(c)` of constants), or, for an `f64` that only steers the code, use it where no derivative flows (a comparison, an index)"
                    )));
                    None
                }
                None => {
                    // A nalgebra value built by `Vector2::new(..)` alone is
                    // not known for one (`desugar/nalgebra`).
                    let nalgebra = match crate::desugar::nalgebra::method_name(&name.to_string()) {
                        true => " (if the receiver is a nalgebra value: #[grad] computes with nalgebra's vectors and matrices once the function names one with its float type, `let p: Vector2<f64> = Vector2::new(..);` or `Vector2::<f64>::new(..)`, or by its crate's path, `nalgebra::Vector2::new(..)`)",
                        false => "",
                    };
                    self.error(syn::Error::new(name.span(), format!(
                        "#[grad] has no derivative rule for the method `{name}` on a value that depends on the active inputs: call a float method it differentiates (the README lists them), a function with #[grad], or write the computation inline{nalgebra}"
                    )));
                    None
                }
            },
            // The receiver is slot 0 of the method's slots.
            Op::GradMethod {
                name,
                recv,
                args,
                partials,
                ..
            } => {
                let path: syn::Path = name.clone().into();
                let operands: Vec<Operand> = std::iter::once(recv.clone())
                    .chain(args.iter().cloned())
                    .collect();
                self.chain(dst, &path, &operands, partials)
            }
            Op::Call {
                path,
                callee: crate::rules::Callee::Function,
                args,
                partials,
                ..
            } if !partials.is_empty() => self.chain(dst, path, args, partials),
            Op::Call {
                path, callee, args, ..
            } => {
                let rule = match callee {
                    crate::rules::Callee::Runtime { rule, .. }
                    | crate::rules::Callee::Method(rule) => Some(*rule),
                    crate::rules::Callee::Primitive | crate::rules::Callee::Function => None,
                };
                match rule {
                    Some(rule) => self.pullback(rule, dst, args.clone(), span),
                    None => {
                        let shown = quote::ToTokens::to_token_stream(path)
                            .to_string()
                            .replace(' ', "");
                        self.error(syn::Error::new_spanned(path, format!(
                            "#[grad] cannot differentiate the call to `{shown}`: it only differentiates float methods and its runtime functions (sigmoid, relu, softplus, log_sigmoid); inline the function's body here"
                        )));
                        None
                    }
                }
            }
            // Refused by activity analysis.
            Op::Opaque { .. } => None,
        }
    }

    pub(super) fn pullback(
        &mut self,
        rule: &'static Rule,
        dst: ValueId,
        args: Vec<Operand>,
        span: proc_macro2::Span,
    ) -> Option<AdjStmt> {
        if args.len() != rule.args.len() {
            self.error(syn::Error::new(
                span,
                format!(
                    "`{}` takes {} argument(s) here, not {}",
                    rule.name,
                    rule.args.len(),
                    args.len()
                ),
            ));
            return None;
        }
        let targets = args
            .iter()
            .zip(rule.args)
            .filter(|(_, kind)| **kind == Arg::Float)
            .map(|(o, _)| self.target(o))
            .collect();
        Some(AdjStmt::Pullback {
            rule,
            dst,
            args,
            targets,
            partial: None,
        })
    }

    pub(super) fn target(&self, o: &Operand) -> Option<ValueId> {
        o.value().filter(|v| self.a.is_active(*v))
    }

    /// The reverse of a call to a `#[grad]` function: each active
    /// argument's adjoint takes the result's, scaled by the partial the
    /// callee's `_grad` returned. An active argument without a partial (a
    /// struct: whether the callee differentiates it is the callee's
    /// `wrt`, which this function cannot see) is refused, never dropped.
    fn chain(
        &mut self,
        dst: ValueId,
        path: &syn::Path,
        args: &[Operand],
        partials: &[Option<ValueId>],
    ) -> Option<AdjStmt> {
        let mut parts = Vec::new();
        for (a, p) in args.iter().zip(partials) {
            let Some(t) = self.target(a) else { continue };
            match p {
                Some(p) => parts.push((t, *p)),
                None => {
                    let shown = crate::diag::show(&quote::ToTokens::to_token_stream(path));
                    let arg = self.f.value(t).name.clone().unwrap_or_default();
                    self.error(syn::Error::new_spanned(path, format!(
                        "#[grad] cannot differentiate the call to `{shown}` with respect to `{arg}`: pass floats, float arrays or slices; a struct's gradient through a call is not supported yet, so pass its float fields"
                    )));
                    return None;
                }
            }
        }
        Some(AdjStmt::Chain { dst, parts })
    }
}

//! Arrays: parameters and locals modelled element by element, loads,
//! stores, pushes and kernel calls.

use super::*;

/// The pieces of an array constructor.
pub(crate) enum ArrayParts<'e> {
    Filled(Box<(syn::Expr, syn::Expr)>),
    Repeat(&'e syn::Expr, &'e syn::Expr),
    List(Vec<syn::Expr>, bool),
    Empty(Option<&'e syn::Expr>),
}

/// A float array passed to a kernel, as written.
enum KernelArray<'e> {
    /// A modelled array of floats by name.
    Whole(ValueId),
    /// `w[i]` of a modelled nested array, with `i`.
    Row(ValueId, &'e syn::Expr),
    /// A part of a composite: `p.w`, `points[i]`.
    Part(ValueId, Vec<PlaceStep<'e>>),
    /// `xs[a..b]` of any of those: a sub-slice.
    Range(Box<KernelArray<'e>>, &'e syn::ExprRange),
}

/// `vec![v; n]`, `vec![a, b]`, `[v; N]`, `[a, b]`, `Vec::new()`,
/// `Vec::with_capacity(n)`.
pub(crate) fn array_init_parts(e: &syn::Expr) -> Option<ArrayParts<'_>> {
    use syn::parse::Parser;
    match e {
        syn::Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let tokens = m.mac.tokens.clone();
            let filled = |input: syn::parse::ParseStream| -> syn::Result<(syn::Expr, syn::Expr)> {
                let v: syn::Expr = input.parse()?;
                let _: syn::Token![;] = input.parse()?;
                let n: syn::Expr = input.parse()?;
                Ok((v, n))
            };
            if let Ok((v, n)) = filled.parse2(tokens.clone()) {
                return Some(ArrayParts::Filled(Box::new((v, n))));
            }
            let list = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
            let items = list.parse2(tokens).ok()?;
            Some(ArrayParts::List(items.into_iter().collect(), true))
        }
        syn::Expr::Repeat(r) => Some(ArrayParts::Repeat(&r.expr, &r.len)),
        syn::Expr::Array(a) => Some(ArrayParts::List(a.elems.iter().cloned().collect(), false)),
        // `[a, b].to_vec()`, `[v; N].to_vec()`: the `Vec` of the list;
        // `[a, b].clone()`: the array.
        syn::Expr::MethodCall(m) if m.args.is_empty() && m.method == "to_vec" => {
            match array_init_parts(&m.receiver)? {
                ArrayParts::List(items, false) => Some(ArrayParts::List(items, true)),
                ArrayParts::Repeat(v, n) => {
                    Some(ArrayParts::Filled(Box::new((v.clone(), n.clone()))))
                }
                _ => None,
            }
        }
        syn::Expr::MethodCall(m) if m.args.is_empty() && m.method == "clone" => {
            match array_init_parts(&m.receiver)? {
                parts @ (ArrayParts::List(_, false) | ArrayParts::Repeat(..)) => Some(parts),
                _ => None,
            }
        }
        syn::Expr::Paren(p) => array_init_parts(&p.expr),
        syn::Expr::Call(c) => {
            let syn::Expr::Path(p) = &*c.func else {
                return None;
            };
            let segs = crate::rules::path_segments(&p.path);
            match (
                segs.iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .as_slice(),
                c.args.len(),
            ) {
                ([.., "Vec", "new"], 0) => Some(ArrayParts::Empty(None)),
                // `Vec::from([a, b])`: the `Vec` of the list, as `to_vec`.
                ([.., "Vec", "from"], 1) => match array_init_parts(&c.args[0])? {
                    ArrayParts::List(items, false) => Some(ArrayParts::List(items, true)),
                    ArrayParts::Repeat(v, n) => {
                        Some(ArrayParts::Filled(Box::new((v.clone(), n.clone()))))
                    }
                    _ => None,
                },
                ([.., "Vec", "with_capacity"], 1) => Some(ArrayParts::Empty(Some(&c.args[0]))),
                _ => None,
            }
        }
        _ => None,
    }
}

impl Lowerer {
    /// A call to a runtime kernel: `dot(..)`, `autodiff::dot(..)`, ...
    pub(super) fn kernel_call(
        &self,
        c: &syn::ExprCall,
    ) -> Option<(&'static crate::rules::Kernel, syn::Path)> {
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        if self.is_local_path(&p.path) {
            return None;
        }
        let segs = crate::rules::path_segments(&p.path);
        let ours = segs.len() == 1 || segs[0] == "autodiff" || segs[0] == "autodiff_runtime";
        let kernel = crate::rules::kernel(segs.last()?).filter(|_| ours)?;
        // A bare name is the kernel only when it is called as the kernel
        // is, with float arrays where it takes them: a function of the
        // user's called `dot` on two floats is theirs.
        if segs.len() == 1 {
            let looks_like = c.args.len() == kernel.args.len()
                && c.args.iter().zip(kernel.args).all(|(a, k)| match k {
                    crate::rules::KernelArg::Array => {
                        self.kernel_array(a).is_some() || is_sub_slice(a)
                    }
                    crate::rules::KernelArg::Usize => true,
                });
            if !looks_like {
                return None;
            }
        }
        Some((kernel, p.path.clone()))
    }

    /// A float array as a kernel argument: a modelled array of floats by
    /// name (`&xs`, `xs`), a row of a modelled nested array (`&w[i]`, or
    /// `row` bound by `for row in w`, which reads `(w[k])`), or a part of
    /// a composite (`&p.w`, `&points[i]`).
    fn kernel_array<'e>(&self, a: &'e syn::Expr) -> Option<KernelArray<'e>> {
        let mut inner = a;
        while let syn::Expr::Reference(syn::ExprReference {
            expr: r,
            mutability: None,
            ..
        })
        | syn::Expr::Paren(syn::ExprParen { expr: r, .. }) = inner
        {
            inner = r;
        }
        let nested = |v: ValueId| {
            matches!(
                self.values[v.0].ty.array().map(|t| &t.shape),
                Some(Shape::Nested)
            )
        };
        if let Some(v) = self.modelled_array(inner) {
            return (!nested(v)).then_some(KernelArray::Whole(v));
        }
        // `&xs[a..b]`, `&w[i][a..]`, `&p.w[..n]`: a sub-slice of a flat
        // array.
        if let syn::Expr::Index(ix) = inner {
            if let syn::Expr::Range(r) = &*ix.index {
                let base = self.kernel_array(&ix.expr)?;
                return (!matches!(base, KernelArray::Range(..)))
                    .then(|| KernelArray::Range(Box::new(base), r));
            }
        }
        if let syn::Expr::Index(ix) = inner {
            if let Some(v) = self.modelled_array(&ix.expr) {
                return nested(v).then_some(KernelArray::Row(v, &ix.index));
            }
        }
        // `let z = logits(w, x); softmax(&z)`: a call's result, whole.
        if let syn::Expr::Path(_) = inner {
            let (base, steps) = self.composite_root(inner)?;
            return self
                .call_results
                .contains(&base)
                .then_some(KernelArray::Part(base, steps));
        }
        let (base, steps) = self.composite_place(inner)?;
        Some(KernelArray::Part(base, steps))
    }

    /// The arguments of a kernel call: arrays by reference, sizes as
    /// values; and the float type of the arrays where a modelled array
    /// states it (parts of composites do not: rustc decides).
    pub(super) fn kernel_args(
        &mut self,
        kernel: &crate::rules::Kernel,
        c: &syn::ExprCall,
        out: &mut Vec<Inst>,
    ) -> Option<(Vec<KernelOperand>, Option<FloatTy>)> {
        if c.args.len() != kernel.args.len() {
            error(
                self,
                c,
                format!("`{}` takes {} arguments", kernel.name, kernel.args.len()),
            );
            return None;
        }
        let mut args = Vec::new();
        let mut elem = None;
        for (a, kind) in c.args.iter().zip(kernel.args) {
            match kind {
                crate::rules::KernelArg::Array => {
                    let Some(place) = self.kernel_array(a) else {
                        error(self, a, format!("`{}` takes float arrays here: pass a slice, `Vec` or array of `f64` or `f32` by name, as in `&xs`, a row of a nested array, as in `&w[i]`, or a sub-slice of one, as in `&xs[a..b]`; a row of data the function does not differentiate (a field of a struct left out of `wrt`, as `&data.xs[i]`) copied into a local first, by index, as in `let x = data.xs[i].to_vec();`", kernel.name));
                        return None;
                    };
                    let (place, range) = match place {
                        KernelArray::Range(base, r) => (*base, Some(r)),
                        other => (other, None),
                    };
                    let mut operand = match place {
                        KernelArray::Whole(v) => {
                            elem = elem.or(self.values[v.0].ty.array().map(|t| t.elem));
                            KernelOperand::Array(v)
                        }
                        KernelArray::Row(v, i) => {
                            elem = elem.or(self.values[v.0].ty.array().map(|t| t.elem));
                            KernelOperand::Place {
                                base: v,
                                path: vec![Step::Index(self.expr(i, out)?.operand)],
                            }
                        }
                        KernelArray::Part(base, steps) => KernelOperand::Place {
                            base,
                            path: self.lower_steps(steps, out)?,
                        },
                        KernelArray::Range(..) => return None,
                    };
                    if let Some(r) = range {
                        let step = self.range_step(r, out)?;
                        operand = match operand {
                            KernelOperand::Array(v) => KernelOperand::Place {
                                base: v,
                                path: vec![step],
                            },
                            KernelOperand::Place { base, mut path } => {
                                path.push(step);
                                KernelOperand::Place { base, path }
                            }
                            other => other,
                        };
                    }
                    args.push(operand);
                }
                crate::rules::KernelArg::Usize => {
                    args.push(KernelOperand::Value(self.expr(a, out)?.operand))
                }
            }
        }
        Some((args, elem))
    }

    /// The modelled array a path names.
    pub(super) fn modelled_array(&self, e: &syn::Expr) -> Option<ValueId> {
        let syn::Expr::Path(p) = e else { return None };
        let name = p.path.get_ident()?.to_string();
        match self.lookup(&name) {
            Some(Binding::Value(v)) if self.values[v.0].ty.array().is_some() => Some(*v),
            _ => None,
        }
    }

    /// `array[i]` (`array[i][j]` for a nested array) on a modelled array:
    /// the array and the index expressions, outermost first.
    pub(super) fn array_place<'e>(
        &self,
        e: &'e syn::Expr,
    ) -> Option<(ValueId, Vec<&'e syn::Expr>)> {
        let mut index = Vec::new();
        let mut base = e;
        // A row bound by `for row in w` reads as `(w[k])[j]`: see
        // through the parentheses.
        loop {
            match base {
                syn::Expr::Index(ix) => {
                    index.push(&*ix.index);
                    base = &ix.expr;
                }
                syn::Expr::Paren(p) => base = &p.expr,
                _ => break,
            }
        }
        index.reverse();
        let array = self.modelled_array(base)?;
        let depth = match self.values[array.0].ty.array()?.shape {
            Shape::Nested => 2,
            _ => 1,
        };
        (index.len() == depth).then_some((array, index))
    }

    /// `array[i] = rhs` or `array[i] op= rhs`.
    pub(super) fn store(
        &mut self,
        array: ValueId,
        index: Vec<&syn::Expr>,
        op: Option<BinOp>,
        rhs: &syn::Expr,
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) {
        let mut ops = Vec::new();
        for i in index {
            match self.expr(i, out) {
                Some(l) => ops.push(l.operand),
                None => return,
            }
        }
        let Some(r) = self.expr(rhs, out) else { return };
        let elem = match self.values[array.0].ty.array() {
            Some(a) => a.elem_ty(),
            None => return,
        };
        let value = match op {
            None => r.operand,
            Some(op) => {
                let old = self.new_value(None, elem.clone(), ValueKind::Def, whole.span());
                out.push(Inst::Def {
                    dst: old,
                    op: Op::Load {
                        array,
                        index: ops.clone(),
                    },
                    written: None,
                    span: whole.span(),
                });
                let new = self.new_value(None, join(&elem, &r.ty), ValueKind::Def, whole.span());
                out.push(Inst::Def {
                    dst: new,
                    op: Op::Binary(op, Operand::Value(old), r.operand),
                    written: None,
                    span: whole.span(),
                });
                Operand::Value(new)
            }
        };
        out.push(Inst::Store {
            array,
            index: ops,
            value,
        });
    }

    /// `let z = vec![v; n]`, `[v; N]`, `vec![a, b]`, `[a, b]`, or
    /// `Vec::new()` / `Vec::with_capacity(n)` with a float element type
    /// written: a modelled array, at the top level of the body. Returns
    /// whether it was one.
    pub(super) fn local_array(
        &mut self,
        ident: &syn::Ident,
        annot: Option<&syn::Type>,
        init: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> bool {
        let annotated = annot.and_then(|t| self.types.array_ty(t));
        let Some(parts) = array_init_parts(init).or_else(|| row_written_out(init, &annotated))
        else {
            return false;
        };
        if self.array_scopes.last() != Some(&self.scopes.len()) {
            // Arrays in other nested blocks are kept as written.
            return false;
        }
        let mut insts = Vec::new();
        let scopes_before = self.scopes.clone();
        let lowered = self.lower_array_init(parts, &mut insts);
        let Some((init, elem_ty)) = lowered else {
            self.scopes = scopes_before;
            return false;
        };
        let elem = match (annotated.as_ref().map(|a| a.elem), elem_ty) {
            (Some(e), _) => e,
            (None, Ty::Float(e)) => e,
            // `vec![0.0; n]`: the width is rustc's to infer from the uses,
            // as in the function itself; never the return type's.
            (None, Ty::FloatLit) => FloatTy::Inferred,
            // `Vec::new()` whose pushes show floats.
            (None, Ty::Unknown)
                if matches!(init, ArrayInit::Empty { .. })
                    && self.facts.float_vecs.contains(&ident.to_string()) =>
            {
                FloatTy::Inferred
            }
            // `vec![b; n]`, `vec![b, x]` of a `#[grad]` call's result `b`,
            // taken whole, or `[x, y]` of its tuple's elements: a float (its
            // `_grad` gives one), rustc's to type.
            (None, Ty::Unknown) if annot.is_none() && self.of_call_results(&init) => {
                FloatTy::Inferred
            }
            _ => {
                self.scopes = scopes_before;
                return false;
            }
        };
        let shape = match (&init, annotated.map(|a| a.shape)) {
            (_, Some(Shape::Nested)) => {
                self.scopes = scopes_before;
                return false;
            }
            (ArrayInit::Repeat { len, .. }, _) => Shape::Fixed(len.clone()),
            (
                ArrayInit::List {
                    items,
                    is_vec: false,
                },
                _,
            ) => Shape::Fixed(items.len().to_string()),
            _ => Shape::Vec,
        };
        out.extend(insts);
        let v = self.new_value(
            Some(ident.to_string()),
            Ty::Array(ArrayTy { elem, shape }),
            ValueKind::Def,
            ident.span(),
        );
        // The user's annotation stays on the `let`: it is what types an
        // element read before anything else fixes the float width.
        let written = annot.map(|t| {
            Box::new(Written {
                ty: Some(t.clone()),
                attrs: Vec::new(),
            })
        });
        out.push(Inst::Def {
            dst: v,
            op: Op::NewArray(init),
            written,
            span: ident.span(),
        });
        self.bind(ident.to_string(), Binding::Value(v));
        true
    }

    /// Whether the items of `init` whose type the source does not state
    /// are all results of calls taken whole or elements of a call's tuple
    /// (floats), and there is one.
    fn of_call_results(&self, init: &ArrayInit) -> bool {
        let items: Vec<&Operand> = match init {
            ArrayInit::Filled { value, .. } | ArrayInit::Repeat { value, .. } => vec![value],
            ArrayInit::List { items, .. } => items.iter().collect(),
            ArrayInit::Empty { .. } => return false,
        };
        let unknown: Vec<ValueId> = items
            .iter()
            .filter_map(|o| o.value())
            .filter(|v| self.values[v.0].ty == Ty::Unknown)
            .collect();
        !unknown.is_empty() && unknown.iter().all(|v| self.is_inferred_float(*v))
    }

    pub(super) fn lower_array_init(
        &mut self,
        parts: ArrayParts,
        out: &mut Vec<Inst>,
    ) -> Option<(ArrayInit, Ty)> {
        Some(match parts {
            ArrayParts::Filled(parts) => {
                let (v, n) = *parts;
                let v = self.expr(&v, out)?;
                let n = self.expr(&n, out)?;
                (
                    ArrayInit::Filled {
                        value: v.operand,
                        len: n.operand,
                    },
                    v.ty,
                )
            }
            ArrayParts::Repeat(v, n) => {
                let v = self.expr(v, out)?;
                (
                    ArrayInit::Repeat {
                        value: v.operand,
                        len: n.to_token_stream().to_string(),
                    },
                    v.ty,
                )
            }
            ArrayParts::List(items, is_vec) => {
                let mut ops = Vec::new();
                let mut ty = Ty::FloatLit;
                // An item whose type the source does not state (a `const`
                // of the user's, a call) has the type of the others, which
                // rustc requires: one float item, or the `let`'s type, is
                // enough (the caller refuses the array otherwise).
                for i in &items {
                    let l = self.expr(i, out)?;
                    if !(l.ty.is_float() || l.ty == Ty::Unknown) {
                        return None;
                    }
                    ty = join(&ty, &l.ty);
                    ops.push(l.operand);
                }
                (ArrayInit::List { items: ops, is_vec }, ty)
            }
            ArrayParts::Empty(capacity) => {
                let capacity = match capacity {
                    Some(c) => Some(self.expr(c, out)?.operand),
                    None => None,
                };
                (ArrayInit::Empty { capacity }, Ty::Unknown)
            }
        })
    }

    /// `let y = kernel(..);` of a kernel returning a `Vec` (`softmax`):
    /// the array it makes, a value like a call's result (in a loop, the
    /// iteration records it whole).
    pub(super) fn kernel_vec_let(
        &mut self,
        local: &syn::Local,
        ident: &syn::Ident,
        annot: Option<&syn::Type>,
        init: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> bool {
        let syn::Expr::Call(c) = init else {
            return false;
        };
        let Some((kernel, path)) = self.kernel_call(c).filter(|(k, _)| k.returns_array) else {
            return false;
        };
        if let Some((args, elem)) = self.kernel_args(kernel, c, out) {
            let stated = annot.and_then(|t| self.types.array_ty(t)).map(|a| a.elem);
            // The `let`'s stated type over an argument's element type left
            // to rustc (`vec![0.0; 3]`).
            let elem = match (elem, stated) {
                (None | Some(FloatTy::Inferred), Some(s)) => Some(s),
                (e, _) => e,
            };
            // Neither: the kernel's arguments are parts of composites or
            // a call's result, whose type rustc knows.
            let elem = elem.unwrap_or(FloatTy::Inferred);
            let ty = Ty::Array(ArrayTy {
                elem,
                shape: Shape::Vec,
            });
            let v = self.new_value(Some(ident.to_string()), ty, ValueKind::Def, ident.span());
            out.push(Inst::Def {
                dst: v,
                op: Op::Kernel { kernel, path, args },
                written: None,
                span: local.span(),
            });
            self.bind(ident.to_string(), Binding::Value(v));
        }
        true
    }
}

/// `&xs[a..b]`, `&xs[a..]`, `&xs[..b]`: a sub-slice, which a kernel named
/// bare is given as an array (so the call is the kernel's, refused with
/// what to write, never taken for a function of the user's).
fn is_sub_slice(a: &syn::Expr) -> bool {
    let syn::Expr::Reference(r) = a else {
        return false;
    };
    matches!(&*r.expr, syn::Expr::Index(i) if matches!(&*i.index, syn::Expr::Range(_)))
}

/// `let mut r: [f64; 2] = rows[k];` of a row read in place (a loop's
/// `for &row in rows`, read as `(rows[k])`): the row written out, `[rows[k][0],
/// rows[k][1]]`, as the type states its length; `None` for anything but an
/// element read (a call runs once).
fn row_written_out<'e>(init: &syn::Expr, annotated: &Option<ArrayTy>) -> Option<ArrayParts<'e>> {
    let Some(ArrayTy {
        shape: Shape::Fixed(n),
        ..
    }) = annotated
    else {
        return None;
    };
    let n: usize = n.parse().ok()?;
    let mut place = init;
    while let syn::Expr::Paren(p) = place {
        place = &p.expr;
    }
    if !matches!(place, syn::Expr::Index(_)) {
        return None;
    }
    let items = (0..n)
        .map(|j| {
            let j = proc_macro2::Literal::usize_unsuffixed(j);
            syn::parse_quote_spanned!(syn::spanned::Spanned::span(init)=> #place[#j])
        })
        .collect();
    Some(ArrayParts::List(items, false))
}

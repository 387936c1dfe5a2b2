//! One step of the reverse sweep as code: a rule's pullback, a chain
//! through a callee's partials, an element, a kernel.

use super::*;

impl Emitter<'_> {
    /// The runtime's product of an adjoint and a partial derivative:
    /// guarded against 0·∞, except in a first attempt (`unguarded`).
    fn scale(&self) -> TokenStream {
        if self.unguarded {
            quote!(::autodiff::runtime::float::scale_unguarded)
        } else {
            quote!(::autodiff::runtime::float::scale)
        }
    }

    pub(super) fn reverse_stmt(&mut self, stmt: &AdjStmt) -> TokenStream {
        match stmt {
            AdjStmt::Copy { dst, src, .. } if self.f.value(*dst).ty.array().is_some() => {
                let d_dst = self.names.adjoint(*dst);
                let d_src = self.names.adjoint(*src);
                quote!(::autodiff::runtime::array::add(&mut #d_src[..], &#d_dst[..]);)
            }
            AdjStmt::Copy { dst, src, cast } => {
                let d_dst = self.names.adjoint(*dst);
                let d_src = self.names.adjoint(*src);
                match cast {
                    // Not stated: rustc infers the source's type.
                    Some(FloatTy::Inferred) => {
                        quote!(::autodiff::runtime::float::add_cast(&mut #d_src, #d_dst);)
                    }
                    Some(t) => {
                        let t = self.f.float_ident(*t);
                        self.add_into(*src, quote!(#d_dst as #t))
                    }
                    None if crate::reverse::is_shaped(self.f, *dst) => {
                        self.add_adjoint(*src, d_dst.into_token_stream())
                    }
                    None => self.add_into(*src, d_dst.into_token_stream()),
                }
            }
            AdjStmt::Pullback {
                dst,
                targets,
                partial: Some(p),
                ..
            } => {
                // The derivative came with the value (`sin_with_partial`).
                let [Some(t)] = targets.as_slice() else {
                    return TokenStream::new();
                };
                let dy = self.names.adjoint(*dst);
                let p = self.names.forward(*p);
                let scale = self.scale();
                self.add_into(*t, quote!(#scale(#dy, #p)))
            }
            AdjStmt::Pullback {
                rule,
                dst,
                args,
                targets,
                partial: None,
            } => {
                let path = if self.unguarded && crate::rules::has_unguarded(rule) {
                    runtime_path(rule, &format!("{}_pullback_unguarded", rule.name))
                } else {
                    runtime_path(rule, &format!("{}_pullback", rule.name))
                };
                let args: Vec<TokenStream> = args
                    .iter()
                    .map(|a| match a.value() {
                        Some(v) if self.unavailable.contains(&v) => zero(self.f),
                        _ => self.operand(a, Position::Arg),
                    })
                    .collect();
                let y = if self.unavailable.contains(dst) {
                    zero(self.f)
                } else {
                    self.names.forward(*dst).into_token_stream()
                };
                let dy = self.names.adjoint(*dst);
                let call = quote!(#path(#(#args,)* #y, #dy));
                if let [Some(t)] = targets.as_slice() {
                    return self.add_into(*t, call);
                }
                let partial = self.partials.clone();
                let pats = targets.iter().zip(&partial).map(|(t, p)| match t {
                    Some(_) => p.to_token_stream(),
                    None => quote!(_),
                });
                let adds: Vec<TokenStream> = targets
                    .iter()
                    .zip(&partial)
                    .filter_map(|(t, p)| Some(self.add_into((*t)?, p.to_token_stream())))
                    .collect();
                // In a block of its own: the partials' `let` does not nest the
                // rest of the sweep in its scope (rustc recurses once per
                // `let` of a block, and overflows its stack past a few
                // thousand).
                quote!({ let (#(#pats),*) = #call; #(#adds)* })
            }
            AdjStmt::Vjp {
                dst,
                path,
                args,
                borrowed,
                targets,
                writer,
                method,
                fallible,
            } => {
                let d = self.names.adjoint(*dst);
                // Where a slot that cannot be added in is a compile error:
                // the callee's name as the call wrote it (the value the
                // call defines may bear a name of the macro's).
                let at = path
                    .segments
                    .last()
                    .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
                let seed = quote!(::core::clone::Clone::clone(&#d));
                let mut given = self.call_args(args, borrowed);
                given.push(seed);
                let mut call = self.vjp_slots_call(path, args, *method, *writer, &given);
                let mut pats = Vec::new();
                let mut adds = Vec::new();
                for t in targets {
                    match t {
                        Some(t) => {
                            let g = self.names.fresh("g");
                            let d_t = self.names.adjoint(*t);
                            let first = self.pending.remove(t);
                            let d_t = match self.f.value(*t).ty {
                                Ty::Array(_) => quote!(#d_t[..]),
                                _ => quote!(#d_t),
                            };
                            // A slot that cannot be added in (the callee
                            // leaves the parameter constant) is a compile
                            // error at the call, not at the attribute: the
                            // whole argument `&g` spanned there, or rustc
                            // falls back to the attribute.
                            let g_at = respan(quote!(#g), at);
                            let g_ref = respan(quote!(&#g), at);
                            // An argument whose derivative comes only
                            // through casts (`p.n as f64`), checked in the
                            // forward sweep: a constant slot adds zero.
                            let cast = self.through_casts.contains_key(t);
                            let call = quote!(::autodiff::runtime::call);
                            adds.push(match (first, cast) {
                                (true, false) => quote!(#d_t = #call::added(#g_at);),
                                (false, false) => quote!(#call::add(&mut #d_t, #g_ref);),
                                (true, true) => quote!(#d_t = #call::added_through_cast(#g_at);),
                                (false, true) => quote!(#call::add_through_cast(&mut #d_t, #g_at);),
                            });
                            pats.push(quote!(#g));
                        }
                        None => pats.push(quote!(_)),
                    }
                }
                if *fallible {
                    // It succeeded in the forward sweep, on the same values.
                    call = quote!(::autodiff::runtime::call::succeeded(#call));
                }
                quote!({
                    let (_, #(#pats),*) = #call;
                    #(#adds)*
                })
            }
            AdjStmt::Project { base, path, dst } => {
                let d_b = self.names.adjoint(*base);
                let steps = path_tokens(self, path);
                let d = self.names.adjoint(*dst);
                let add = match path.last() {
                    // A sub-slice's gradient, a `Vec`, into the slice.
                    Some(Step::Range { .. }) => {
                        quote!(::autodiff::runtime::call::add(&mut #d_b #steps, &#d);)
                    }
                    _ => {
                        quote!(::autodiff::runtime::differentiable::accumulate(&mut #d_b #steps, &#d);)
                    }
                };
                // Nothing into a field marked `#[differentiable(constant)]`:
                // its part of the gradient is a copy.
                match path.iter().any(|s| matches!(s, Step::Field(_))) {
                    true => {
                        let constant = in_constant_field(self, &quote!(#d_b), path);
                        quote!(if !(#constant) { #add })
                    }
                    false => add,
                }
            }
            AdjStmt::Fields { dst, fields, base } => {
                let d = self.names.adjoint(*dst);
                // The fields not named pass to the base's adjoint.
                let passed = base.as_ref().map(|(b, named)| {
                    let d_b = self.names.adjoint(*b);
                    let pass = syn::Ident::new("passed", proc_macro2::Span::mixed_site());
                    // A field marked `#[differentiable(constant)]` kept
                    // (its type need not be `Differentiable`).
                    let zeroed = named.iter().map(|m| {
                        let kind = crate::derive::kind_method(m);
                        quote!(#pass.#m = ::autodiff::runtime::differentiable::zero_field(#pass.#kind(), &#pass.#m);)
                    });
                    quote!({
                        let mut #pass = ::core::clone::Clone::clone(&#d);
                        #(#zeroed)*
                        ::autodiff::runtime::differentiable::accumulate(&mut #d_b, &#pass);
                    })
                });
                let adds = fields.iter().map(|(m, t)| {
                    let d_t = self.names.adjoint(*t);
                    let d_t = match self.f.value(*t).ty {
                        Ty::Array(_) => quote!(#d_t[..]),
                        _ => quote!(#d_t),
                    };
                    // A field marked `#[differentiable(constant)]` has a
                    // copy for a gradient: no derivative passes through it
                    // from the callee.
                    let kind = crate::derive::kind_method(m);
                    quote!(
                        if !::autodiff::runtime::differentiable::constant(#d.#kind()) {
                            ::autodiff::runtime::call::add(&mut #d_t, &#d.#m);
                        }
                    )
                });
                quote!(#(#adds)* #passed)
            }
            AdjStmt::Element { array, index, dst } => {
                if let Some(reg) = self.register(*array, index) {
                    let d = self.names.adjoint(*dst);
                    return quote!(#reg += #d;);
                }
                if let Some(at) = self.adjoint_windowed.get(dst) {
                    let d = self.names.adjoint(*dst);
                    return match at {
                        AdjointAt::Slice(e) => quote!(#e += #d;),
                        AdjointAt::Cell(e) => quote!(#e.set(#e.get() + #d);),
                        AdjointAt::Register(r) => quote!(#r += #d;),
                    };
                }
                let d_a = self.names.adjoint(*array);
                let idx = index_tokens(self, index);
                let d = self.names.adjoint(*dst);
                quote!(#d_a #idx += #d;)
            }
            AdjStmt::Store {
                array,
                index,
                value,
                zeroes,
            } => {
                let d_a = self.names.adjoint(*array);
                let idx = index_tokens(self, index);
                let take = value.map(|v| self.add_into(v, quote!(#d_a #idx)));
                let z = zero(self.f);
                let zeroing = zeroes.then(|| quote!(#d_a #idx = #z;));
                quote!(#take #zeroing)
            }
            AdjStmt::Pushed {
                array,
                position,
                value,
            } => match value {
                Some(v) => {
                    let d_a = self.names.adjoint(*array);
                    let p = self.names.forward(*position);
                    self.add_into(*v, quote!(#d_a[#p]))
                }
                None => TokenStream::new(),
            },
            AdjStmt::Spread {
                array,
                items,
                filled,
                len,
            } => {
                let d_a = self.names.adjoint(*array);
                // Only the elements the item filled, not those pushed after.
                let filled_part = match len {
                    Some(n) => {
                        let n = self.operand(n, Position::Arg);
                        quote!(&#d_a[..#n])
                    }
                    None => quote!(&#d_a),
                };
                let mut out = TokenStream::new();
                for (k, item) in items.iter().enumerate() {
                    if let Some(v) = item {
                        let e = if *filled {
                            quote!(::autodiff::runtime::float::sum(#filled_part))
                        } else {
                            quote!(#d_a[#k])
                        };
                        out.extend(self.add_into(*v, e));
                    }
                }
                out
            }
            AdjStmt::Chain { dst, parts } => {
                let d = self.names.adjoint(*dst);
                let mut out = TokenStream::new();
                for (t, p) in parts {
                    let d_t = self.names.adjoint(*t);
                    let at = self.f.value(*p).span;
                    let p = if self.unavailable.contains(p) {
                        zero(self.f)
                    } else {
                        self.names.forward(*p).into_token_stream()
                    };
                    // A slot that cannot be added in (the callee leaves
                    // the parameter constant) is a compile error at the
                    // argument (`runtime::call`): the slot's name carries
                    // the argument's span.
                    let p_ref = respan(quote!(&#p), at);
                    let p = respan(p, at);
                    let call = quote!(::autodiff::runtime::call);
                    out.extend(match &self.f.value(*t).ty {
                        Ty::Float(_) | Ty::FloatLit => {
                            let scale = match self.unguarded {
                                // Checked in the forward sweep
                                // (`analysis/casts.rs`): the slot may be
                                // a constant one.
                                _ if self.through_casts.contains_key(t) => {
                                    quote!(#call::scale_through_cast)
                                }
                                true => quote!(#call::scale_unguarded),
                                false => quote!(#call::scale),
                            };
                            // In a function of `f32`s and `f64`s, an
                            // argument of a callee returning the other
                            // type (`mix(x: f64, y: f32) -> f64`): the
                            // adjoint in the argument's type.
                            let d = match &self.f.value(*t).ty {
                                Ty::Float(ty @ (FloatTy::F32 | FloatTy::F64)) if self.f.mixes_floats() => {
                                    let to = self.f.float_ident(*ty);
                                    quote!(#call::Adjoint::<#to>::adjoint(#d))
                                }
                                _ => d.to_token_stream(),
                            };
                            self.add_into(*t, quote!(#scale(#d, #p)))
                        }
                        // Element by element (the callee may take the
                        // array as a slice, with a `Vec` gradient), scaled
                        // by an adjoint of the elements' type (a dual
                        // number's, under `_hvp`); nested arrays through
                        // `Differentiable`.
                        Ty::Array(a) if a.shape != Shape::Nested => quote!(#call::chain_elements(&mut #d_t[..], #p_ref, #d);),
                        // So is a call's result whose type the source
                        // states as a flat array (`let diff: [T; 2] = ..`).
                        Ty::Unknown if self.f.stated_flat_array(*t) => quote!(#call::chain_elements(&mut #d_t[..], #p_ref, #d);),
                        Ty::Array(_) => quote!(#call::chain(&mut #d_t[..], #p_ref, ::autodiff::runtime::Float::to_f64(#d));),
                        // A struct built for the call: its adjoint starts
                        // as the callee's gradient of it.
                        _ if self.pending.remove(t) => quote!(#d_t = #call::chained(#p_ref, ::autodiff::runtime::Float::to_f64(#d));),
                        // The callee's gradient for a struct or a value of
                        // a type the source does not state is a value of
                        // that type: added through `Differentiable`
                        // (floats implement it too).
                        _ => quote!(#call::chain(&mut #d_t, #p_ref, ::autodiff::runtime::Float::to_f64(#d));),
                    });
                }
                out
            }
            AdjStmt::Kernel {
                kernel,
                args,
                dst,
                targets,
            } => {
                let path = kernel_path(&format!("{}_pullback", kernel.name));
                // The adjoint each array argument receives: the array's, or
                // the place's in the base's (`d_w[i]`, `d_p.w`).
                let places: Vec<TokenStream> = args
                    .iter()
                    .filter_map(|a| match a {
                        KernelOperand::Place { base, path } => {
                            let d = self.names.adjoint(*base);
                            let steps = path_tokens(self, path);
                            Some(quote!(#d #steps))
                        }
                        KernelOperand::Array(v) => {
                            let d = self.names.adjoint(*v);
                            Some(quote!(#d))
                        }
                        KernelOperand::Value(_) => None,
                    })
                    .collect();
                let args: Vec<TokenStream> = args.iter().map(|a| self.kernel_arg(a)).collect();
                let y = self.names.forward(*dst);
                let dy = self.names.adjoint(*dst);
                let (y, dy) = if kernel.returns_array {
                    (quote!(&#y), quote!(&#dy))
                } else {
                    (quote!(#y), quote!(#dy))
                };
                // An array passed twice (`dot(&x, &x)`, `dot(&w[i], &w[j])`)
                // gets its second contribution in a buffer of its own,
                // added afterwards.
                let mut seen = Vec::new();
                let mut decls = TokenStream::new();
                let mut extra = TokenStream::new();
                let mut outs = Vec::new();
                for (k, (t, place)) in targets.iter().zip(&places).enumerate() {
                    outs.push(match t {
                        Some(v) if seen.contains(v) => {
                            let d = self.names.adjoint(*v);
                            let buf = self.names.fresh(&format!("{d}_{k}"));
                            let z = zero(self.f);
                            decls.extend(quote!(let mut #buf = ::std::vec![#z; #place.len()];));
                            extra.extend(
                                quote!(for (d, e) in #place.iter_mut().zip(&#buf) { *d += *e; }),
                            );
                            quote!(::core::option::Option::Some(&mut #buf))
                        }
                        Some(v) => {
                            seen.push(*v);
                            quote!(::core::option::Option::Some(&mut #place))
                        }
                        None => quote!(::core::option::Option::None),
                    });
                }
                let call = quote!(#path(#(#args,)* #y, #dy, #(#outs),*););
                if decls.is_empty() {
                    call
                } else {
                    quote!({ #decls #call #extra })
                }
            }
            AdjStmt::Loop {
                kind,
                trips,
                carried,
                locals,
                pushes,
                recompute,
                index_read,
                counters,
                iteration,
                body,
                id,
                registers,
                ..
            } => {
                // Adjoint elements kept in registers across the loop.
                let mut load = TokenStream::new();
                let mut store = TokenStream::new();
                let outer = self.registers.len();
                for (array, index) in registers {
                    if self.register(*array, std::slice::from_ref(index)).is_some() {
                        continue;
                    }
                    let d_a = self.names.adjoint(*array);
                    let i = self.operand(index, Position::Arg);
                    let reg = self
                        .names
                        .fresh(&format!("{}_sum", d_a.to_string().trim_start_matches("r#")));
                    load.extend(quote!(
                        let mut #reg = ::autodiff::runtime::differentiable::element_or_zero(&#d_a, #i);
                    ));
                    store.extend(quote!(
                        ::autodiff::runtime::differentiable::put_element(&mut #d_a, #i, #reg);
                    ));
                    self.registers.push(((*array, index.clone()), reg));
                }
                // Only the loads this reverse loop reads again take a
                // window: the others' indices may not be at hand here.
                let mut reread = recompute.iter().copied().collect();
                recomputed_in(body, &mut reread);
                let ((windows, windowed), adjoint) =
                    match self.find_loop(*id).and_then(|l| self.window_plan(&l)) {
                        Some(p) => (
                            self.windows(&p, Some(&reread)),
                            self.adjoint_windows(&p, body),
                        ),
                        None => Default::default(),
                    };
                let again = self.recompute(recompute);
                let recomputed = (recompute.as_slice(), again);
                let reversed = self.reverse_loop(
                    *id,
                    kind,
                    *trips,
                    carried,
                    locals,
                    pushes,
                    iteration,
                    body,
                    recomputed,
                    *index_read,
                    counters,
                    (&adjoint.iteration_start, &adjoint.iteration_end),
                );
                for v in windowed {
                    self.windowed.remove(&v);
                }
                for v in &adjoint.elements {
                    self.adjoint_windowed.remove(v);
                }
                self.registers.truncate(outer);
                let (decls, after) = (&adjoint.decls, &adjoint.after);
                quote!(#windows #load #decls #reversed #after #store)
            }
            AdjStmt::Branch {
                selector,
                arms,
                arm_index,
                locals,
                wrapped: wrapped_here,
                ..
            } => {
                let wrapped = self.arm_exports.all.clone();
                let arms: Vec<TokenStream> = arms
                    .iter()
                    .zip(locals)
                    .zip(wrapped_here)
                    .map(|((arm, locals), wrapped_here)| {
                        // The slots this arm passed out as `Some(..)`.
                        // This arm's own: its structs and calls' results (its
                        // locals), and the slots its own chains read (not
                        // those of a branch nested in it, which passes out
                        // its own).
                        // Their zeros' shapes too (a loop's carried copy,
                        // shaped by what the loop carries out).
                        let shapes: std::collections::HashSet<ValueId> =
                            locals.iter().map(|v| self.f.shaping_value(*v)).collect();
                        let mut reads: std::collections::HashSet<ValueId> =
                            locals.iter().chain(&shapes).copied().collect();
                        for s in arm {
                            if let AdjStmt::Chain { parts, .. } = s {
                                reads.extend(parts.iter().map(|(_, p)| *p));
                            }
                        }
                        // The arguments `_vjp` calls take (a constant array
                        // a call gave, `tf(d, y)`; a call's result in the
                        // arm, read by a call in a loop or a branch inside
                        // it) that this arm passed out (not those an
                        // enclosing arm passed out and took out).
                        let given: std::collections::HashSet<ValueId> =
                            crate::reverse::vjp_args_in(arm)
                                .into_iter()
                                .filter(|v| wrapped_here.contains(v))
                                .collect();
                        reads.extend(&given);
                        // Those the arm passed out: what the reverse reads.
                        reads.retain(|v| self.reverse_reads.contains(v));
                        let mut taken: Vec<ValueId> = wrapped
                            .intersection(&reads)
                            .filter(|v| !self.taken_out.contains(v))
                            .copied()
                            .collect();
                        taken.sort();
                        let newly: Vec<ValueId> = taken.clone();
                        // A call's result as a value (its adjoint's shape);
                        // a slot by reference.
                        let taken: TokenStream = taken
                            .into_iter()
                            .map(|v| {
                                let result = locals.contains(&v)
                                    || given.contains(&v)
                                    || shapes.contains(&v);
                                let v = self.names.forward(v);
                                match result {
                                    true => quote!(let #v = ::core::clone::Clone::clone(::autodiff::runtime::call::exported(&#v));),
                                    false => quote!(let #v = ::autodiff::runtime::call::exported(&#v);),
                                }
                            })
                            .collect();
                        let decls = self.arm_array_adjoints(locals);
                        self.taken_out.extend(&newly);
                        let body = self.reverse_stmts(arm);
                        for v in &newly {
                            self.taken_out.remove(v);
                        }
                        quote!(#taken #decls #body)
                    })
                    .collect();
                match selector {
                    Selector::If(cond) => {
                        let cond = self.operand(cond, Position::Arg);
                        let (then_arm, else_arm) = (&arms[0], &arms[1]);
                        if else_arm.is_empty() {
                            quote!(if #cond { #then_arm })
                        } else if then_arm.is_empty() {
                            quote!(if !#cond { #else_arm })
                        } else {
                            quote!(if #cond { #then_arm } else { #else_arm })
                        }
                    }
                    Selector::Match { .. } => {
                        let arm = match arm_index {
                            Some(v) => self.names.forward(*v),
                            None => return TokenStream::new(),
                        };
                        let last = arms.len() - 1;
                        let cases = arms.iter().enumerate().map(|(i, body)| {
                            if i == last {
                                quote!(_ => { #body })
                            } else {
                                quote!(#i => { #body })
                            }
                        });
                        quote!(match #arm { #(#cases)* })
                    }
                }
            }
        }
    }
}

impl Emitter<'_> {
    /// The register holding `d_array[index]` in the reverse loop being
    /// emitted, if one does.
    fn register(&self, array: ValueId, index: &[Operand]) -> Option<syn::Ident> {
        let [index] = index else { return None };
        self.registers
            .iter()
            .find(|((a, i), _)| *a == array && i.same(index))
            .map(|(_, r)| r.clone())
    }
}

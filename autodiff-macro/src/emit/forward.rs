//! The forward sweep: the function's own statements as Wengert entries,
//! branches passing out what the reverse sweep reads, loops pushing it.

use super::*;

/// Past this many `let`s in one block, the generated code declares its
/// values in groups: rustc lowers each `let` of a block as a scope nested
/// in the previous one, recursively, and overflows its 8 MiB stack at a
/// few thousand.
pub(super) const LONG_BLOCK: usize = 512;

/// The definitions of one chunk of a long function's body.
pub(super) const CHUNK: usize = 128;

/// How a loop's forward iterations run (`Emitter::forward_run`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Run {
    /// The loop as a whole: its headers declared, its iterations recorded,
    /// its values after it bound.
    Whole,
    /// Iterations of a checkpointed loop run without recording (nor any
    /// loop inside them).
    Plain,
    /// Iterations of a checkpointed loop run recording.
    Recorded,
}

/// A branch's arm as a block: its statements, then the tuple of what it
/// passes out (nothing, one value, or a tuple).
pub(super) fn arm_block(body: &TokenStream, outs: &[TokenStream]) -> TokenStream {
    match outs {
        [] => quote!({ #body }),
        [one] => quote!({ #body #one }),
        many => quote!({ #body (#(#many),*) }),
    }
}

/// A scope that binds variables, as a block of its own in code that runs
/// once (`_jvp`, `_trace`): `inner`, passing out the integers and `bool`s
/// read after it (`Function::scope_escapes`).
pub(super) fn scope_block(e: &mut Emitter, escapes: &[ValueId], inner: TokenStream) -> TokenStream {
    let names: Vec<syn::Ident> = escapes.iter().map(|v| e.names.forward(*v)).collect();
    match names.as_slice() {
        [] => quote!({ #inner }),
        [one] => quote!(let #one = { #inner #one };),
        many => quote!(let (#(#many),*) = { #inner (#(#many),*) };),
    }
}

pub(super) fn keeps_bindings(b: &Block) -> bool {
    b.insts.iter().any(|i| {
        matches!(
            i,
            Inst::Verbatim {
                kind: VerbatimKind::Let(_) | VerbatimKind::Item,
                ..
            }
        )
    })
}

impl Emitter<'_> {
    /// The function's body. In a long function, runs of plain definitions
    /// are emitted in chunks, `let (t0, a_1, ..) = { let t0 = ..; ..;
    /// (t0, a_1, ..) };`, one `let` in the body for each: rustc lowers the
    /// `let`s of one block recursively and overflows its stack past a few
    /// thousand. A chunk passes out every value it defines.
    pub(super) fn body(&mut self, block: &Block) -> TokenStream {
        let checks = self.lent_call_checks();
        let body = self.body_insts(block);
        quote!(#checks #body)
    }

    fn body_insts(&mut self, block: &Block) -> TokenStream {
        let mutated = self.mutated.clone();
        let used = self.used.clone();
        // One value each (a method computed with its derivative defines two).
        let plain = |inst: &Inst| {
            matches!(inst, Inst::Def { op, dst, .. } if !mutated.contains(dst) && match op {
                Op::Method { partial, .. } => !matches!(partial, Some(p) if used.contains(p)),
                _ => matches!(
                    op,
                    Op::Copy(_) | Op::Unary(..) | Op::Binary(..) | Op::Cast(..) | Op::Load { .. }
                ),
            })
        };
        let defs = block.insts.iter().filter(|i| plain(i)).count();
        if defs <= LONG_BLOCK {
            return self.block(block);
        }
        let mut out = TokenStream::new();
        let mut i = 0;
        while i < block.insts.len() {
            let run = block.insts[i..]
                .iter()
                .take_while(|inst| plain(inst))
                .count()
                .min(CHUNK);
            if run < 2 {
                out.extend(self.inst(&block.insts[i]));
                i += 1;
                continue;
            }
            let chunk = &block.insts[i..i + run];
            let exported: Vec<syn::Ident> = chunk
                .iter()
                .filter_map(|inst| match inst {
                    Inst::Def { dst, .. } => Some(self.names.forward(*dst)),
                    _ => None,
                })
                .collect();
            let inner: TokenStream = chunk.iter().map(|inst| self.inst(inst)).collect();
            out.extend(quote!(#[allow(unused_variables)] let (#(#exported,)*) = { #inner (#(#exported,)*) };));
            i += run;
        }
        out
    }

    pub(super) fn inst(&mut self, inst: &Inst) -> TokenStream {
        match inst {
            Inst::Def {
                dst, op, written, ..
            } => {
                if let Some(call) = self.grad_call(*dst, op) {
                    return call;
                }
                if let Some(call) = self.with_partial(*dst, op, written.as_deref()) {
                    return call;
                }
                let mut lent_check = self.lent_check(*dst, op);
                lent_check.extend(self.vjp_cast_check(op));
                let name = self.names.forward(*dst);
                let rhs = match (self.windowed.get(dst), op) {
                    (Some(rhs), _) => rhs.clone(),
                    // A scratch vector a loop records whole: in the
                    // buffer the previous iteration gave back.
                    (None, Op::NewArray(ArrayInit::Filled { value, len }))
                        if self.slabbed(*dst) =>
                    {
                        let t = self
                            .f
                            .value(*dst)
                            .ty
                            .array()
                            .map(|a| self.f.float_ident(a.elem));
                        let v = self.operand(value, Position::Arg);
                        let n = self.operand(len, Position::Arg);
                        let (_, buffer) = self.slab(*dst);
                        quote!(::autodiff::runtime::stack::refilled::<#t>(&mut #buffer, #n, #v))
                    }
                    // Spanned at the method's name, where the error is said.
                    (None, _) if self.float_receivers.contains_key(dst) => {
                        let span = self.float_receivers[dst];
                        let rhs = respan(self.op(op), span);
                        quote::quote_spanned!(span=> ::autodiff::runtime::float::receiver(#rhs))
                    }
                    (None, _) => self.op(op),
                };
                // A sub-slice of a local array a loop records: copied
                // where it is lent.
                let kept = self.kept(*dst);
                let keep = kept
                    .as_ref()
                    .map(|k| quote!(#k = ::std::borrow::ToOwned::to_owned(#name);));
                if self.hoisted.is_none() {
                    let def = self.let_def(*dst, op, written.as_deref(), rhs);
                    let keep = keep.map(|k| quote!(let #k));
                    return quote!(#lent_check #def #keep);
                }
                let check = self.same_function_check(*dst, op);
                let (annot, attrs) = match written.as_deref() {
                    Some(Written { ty, attrs }) => (ty.clone(), attrs.as_slice()),
                    None => (None, &[][..]),
                };
                let ty = annot.or_else(|| {
                    self.f
                        .value(*dst)
                        .ty
                        .float()
                        .map(|t| syn::Type::Verbatim(self.f.float_ident(t).into_token_stream()))
                });
                let ty = ty.map(|t| quote!(: #t));
                if let Some(decls) = &mut self.hoisted {
                    decls.push(quote!(#(#attrs)* let #name #ty;));
                    decls.extend(kept.map(|k| quote!(let #k;)));
                }
                quote!(#lent_check #check #name = #rhs; #keep)
            }
            Inst::Verbatim {
                tokens,
                kind,
                reads,
                defs,
            } => {
                if let VerbatimKind::Binding = kind {
                    return self.binding_reads(defs);
                }
                let rebind = self.rebind(reads);
                let item = matches!(kind, VerbatimKind::Item);
                let tokens = match item {
                    true => tokens.clone(),
                    false => self.lent_vec_fields(tokens, reads, true),
                };
                if let Some(hoisted) = self.hoisted_let(kind, defs, &rebind, reads) {
                    return hoisted;
                }
                let reads_as_floats = self.let_floats_read(kind, defs);
                let kept = match (kind, rebind.is_empty()) {
                    (_, true) => tokens,
                    (VerbatimKind::Let(l), false) => {
                        let VerbatimLet { pat, init } = &**l;
                        let init = self.lent_vec_fields(&init.to_token_stream(), reads, false);
                        let init: syn::Expr = syn::parse2(init).unwrap_or_else(|_| l.init.clone());
                        // A closure whose calls were inlined is unused
                        // where it stands (`lower/lets.rs`).
                        let allow = matches!(l.init, syn::Expr::Closure(_))
                            .then(|| quote!(#[allow(unused_variables, unused_assignments)]));
                        match self.renamed_closure(&init, reads) {
                            Some(init) => quote!(#[allow(unused_variables)] let #pat = #init;),
                            None => quote!(#allow let #pat = { #rebind #init };),
                        }
                    }
                    (_, false) => quote!({ #rebind #tokens }),
                };
                quote!(#kept #reads_as_floats)
            }
            Inst::Branch(br) => self.branch(br),
            Inst::Loop(l) => self.forward_loop(l),
            Inst::Store {
                array,
                index,
                value,
            } => {
                let a = self.names.forward(*array);
                let idx = index_tokens(self, index);
                let v = self.operand(value, Position::Arg);
                quote!(#a #idx = #v;)
            }
            Inst::Push {
                array,
                position,
                value,
            } => {
                let a = self.names.forward(*array);
                let v = self.operand(value, Position::Arg);
                let at = self.used.contains(position).then(|| {
                    let p = self.names.forward(*position);
                    quote!(let #p = #a.len();)
                });
                quote!(#at #a.push(#v);)
            }
            Inst::Scope(b) if !keeps_bindings(b) || self.hoisted.is_some() => {
                let inner = self.block(b);
                if self.hoisted.is_some() && keeps_bindings(b) {
                    quote!({ #inner })
                } else {
                    inner
                }
            }
            Inst::Scope(b) => {
                self.hoisted = Some(Vec::new());
                let inner = self.block(b);
                let decls = self.hoisted.take().unwrap_or_default();
                quote!(#(#decls)* { #inner })
            }
        }
    }

    /// A loop: the headers as mutable variables, the body, the pushes of
    /// what the reverse sweep reads, the update of the headers, and the
    /// values after the loop; for a checkpointed loop, its schedule's
    /// forward actions (`checkpoint.rs`).
    pub(super) fn forward_loop(&mut self, l: &Loop) -> TokenStream {
        if l.checkpoint.is_some() {
            return self.checkpointed_forward(l);
        }
        self.forward_run(l, Run::Whole, None)
    }

    /// A loop run once, as written (`_trace`, `_jvp`): `body` after the
    /// early exit's test, under the loop's `for` or, for a `while`, a
    /// `loop` that first runs the condition's code `cond_code`.
    pub(super) fn loop_shell(
        &self,
        l: &Loop,
        cond_code: TokenStream,
        mut body: TokenStream,
    ) -> TokenStream {
        if let Some(e) = &l.exit {
            let e = self.operand(e, Position::Tight);
            body.extend(quote!(if #e { break; }));
        }
        match &l.kind {
            LoopKind::Range { index, range } => {
                let pat = match index {
                    Some(i) => self.names.forward(*i).into_token_stream(),
                    None => quote!(_),
                };
                let it = self.range(range, false);
                quote!(for #pat in #it { #body })
            }
            LoopKind::While { cond, .. } => {
                let c = self.operand(cond, Position::Tight);
                quote!(loop { #cond_code if !#c { break; } #body })
            }
        }
    }

    /// The headers of a loop's carried variables, declared with their
    /// initial values.
    pub(super) fn declare_headers(&mut self, l: &Loop, all_mut: bool) -> TokenStream {
        let mut pre = TokenStream::new();
        for c in &l.carried {
            let h = self.names.forward(c.header);
            let init = self.operand(&c.init, Position::Arg);
            let ty = self.f.value(c.header).ty.float().map(|t| {
                let t = self.f.float_ident(t);
                quote!(: #t)
            });
            let m = (all_mut || c.next.value() != Some(c.header)).then(|| quote!(mut));
            // An active struct or value of a type the source does not
            // state may not be `Copy` (it is `Differentiable`, so `Clone`),
            // and the reverse sweep still reads the initial value (its
            // adjoint's shape): the header takes a copy.
            let shared = matches!(self.f.value(c.header).ty, Ty::Unknown | Ty::Composite(_))
                && c.init.value().is_some_and(|v| self.a.is_active(v));
            let init = match shared {
                true => quote!(::core::clone::Clone::clone(&#init)),
                false => init,
            };
            pre.extend(quote!(let #m #h #ty = #init;));
        }
        pre
    }

    /// The values after a loop, from its headers.
    pub(super) fn loop_outs(&mut self, l: &Loop) -> TokenStream {
        let mut post = TokenStream::new();
        for c in l.carried.iter().filter(|c| self.used.contains(&c.out)) {
            let out = self.names.forward(c.out);
            // A struct held by value, cloned: the header may be read again
            // (its adjoint's shape).
            // So is a value of a type the source does not state that a
            // checkpointed loop carries (`h = layer(w, &h)`, a `Vec`,
            // trial 13 B3): its reverse schedule runs the loop again from
            // the header.
            let h = match &self.f.value(c.header).ty {
                Ty::Composite(k) if k.holder == Holder::Value => self.owned_copy(c.header),
                Ty::Unknown if l.checkpoint.is_some() => {
                    let h = self.names.forward(c.header);
                    quote!(::core::clone::Clone::clone(&#h))
                }
                _ => self.names.forward(c.header).into_token_stream(),
            };
            match &mut self.hoisted {
                Some(decls) => {
                    decls.push(quote!(let #out;));
                    post.extend(quote!(#out = #h;));
                }
                None => post.extend(quote!(let #out = #h;)),
            }
        }
        post
    }

    /// A loop's iterations: `Run::Whole` declares the headers, records and
    /// binds the values after it; `Plain` and `Recorded` run the
    /// iterations `iter` gives (a checkpoint schedule's segment) on
    /// headers declared already, without recording or recording.
    pub(super) fn forward_run(
        &mut self,
        l: &Loop,
        run: Run,
        iter: Option<TokenStream>,
    ) -> TokenStream {
        let pushes = match run == Run::Plain || self.plain {
            true => Vec::new(),
            false => self.distinct_names(&self.pushes.get(&l.id).cloned().unwrap_or_default()),
        };
        let updated: Vec<&Carried> = l
            .carried
            .iter()
            .filter(|c| c.next.value() != Some(c.header))
            .collect();
        let mut pre = match run {
            Run::Whole => self.declare_headers(l, false),
            Run::Plain | Run::Recorded => TokenStream::new(),
        };
        let trips = l
            .trips
            .filter(|t| run == Run::Whole && self.reverse_reads.contains(t))
            .map(|t| self.names.forward(t));
        if let Some(t) = &trips {
            // The count outlives a block kept as a block: declared before it.
            match &mut self.hoisted {
                Some(decls) => decls.push(quote!(let mut #t: usize = 0;)),
                None => pre.extend(quote!(let mut #t: usize = 0;)),
            }
        }
        let (writer, push_stmts, finish) = self.loop_pushes(l, &pushes, iter.as_ref());
        pre.extend(writer);
        let (windows, windowed) = match self.window_plan(l) {
            Some(p) => self.windows(&p, None),
            None => Default::default(),
        };
        pre.extend(windows);
        let outer_hoisted = self.hoisted.take();
        let plain = self.plain || run == Run::Plain;
        let outer_plain = std::mem::replace(&mut self.plain, plain);
        let body = self.block(&l.body);
        self.plain = outer_plain;
        for v in windowed {
            self.windowed.remove(&v);
        }
        let update = match updated.as_slice() {
            [] => TokenStream::new(),
            [c] => {
                let h = self.names.forward(c.header);
                let n = self.operand(&c.next, Position::Arg);
                quote!(#h = #n;)
            }
            many => {
                let hs = many.iter().map(|c| self.names.forward(c.header));
                let ns: Vec<TokenStream> = many
                    .iter()
                    .map(|c| self.operand(&c.next, Position::Arg))
                    .collect();
                quote!((#(#hs),*) = (#(#ns),*);)
            }
        };
        let count = trips.as_ref().map(|t| quote!(#t += 1;));
        let exit = l.exit.as_ref().map(|e| {
            let e = self.operand(e, Position::Tight);
            quote!(if #e { break; })
        });
        let inner = quote!(#body #push_stmts #update #count #exit);
        let looped = match &l.kind {
            LoopKind::Range { index, range } => {
                let pat = match index {
                    Some(i) => self.names.forward(*i).into_token_stream(),
                    None => quote!(_),
                };
                let it = iter.unwrap_or_else(|| self.range(range, false));
                quote!(for #pat in #it { #inner })
            }
            LoopKind::While { cond_block, cond } => {
                let cb = self.block(cond_block);
                let always = matches!(cond, Operand::Const(e) if matches!(&**e, syn::Expr::Lit(l) if matches!(&l.lit, syn::Lit::Bool(b) if b.value)));
                let test = (!always).then(|| {
                    let c = self.operand(cond, Position::Tight);
                    quote!(if !#c { break; })
                });
                quote!(loop { #cb #test #inner })
            }
        };
        self.hoisted = outer_hoisted;
        let post = match run {
            Run::Whole => self.loop_outs(l),
            Run::Plain | Run::Recorded => TokenStream::new(),
        };
        quote!(#pre #looped #finish #post)
    }

    /// An active call to another `#[grad]` function: its `_grad`, once,
    /// giving the value and the partials the reverse sweep scales.
    pub(super) fn grad_call(&mut self, dst: ValueId, op: &Op) -> Option<TokenStream> {
        let (call, partials, exit, operands) = match op {
            Op::Call {
                path,
                callee: crate::rules::Callee::Function,
                args,
                borrowed,
                partials,
                mutated,
                exit,
            } if !partials.is_empty() => {
                let operands = args.clone();
                let (mut slots, gradient) = slots_paths(path, false);
                let mut args: Vec<TokenStream> = self.call_args(args, borrowed);
                // `update(&mut s, y)`: a writer's own slots, given a copy
                // of `s` to write.
                if let Some(k) = mutated {
                    slots = mut_slots_path(path);
                    if let Some(a) = args.get_mut(*k) {
                        *a = quote!(&mut { #a });
                    }
                }
                let args = std::iter::once(gradient).chain(args);
                (
                    quote!(#slots(#(#args),*)),
                    partials,
                    exit.as_ref(),
                    operands,
                )
            }
            Op::GradMethod {
                name,
                recv,
                args,
                borrowed,
                partials,
                exit,
            } => {
                let operands: Vec<Operand> = std::iter::once(recv.clone())
                    .chain(args.iter().cloned())
                    .collect();
                let recv = self.slots_receiver(recv);
                let slots = method_slots_name(name, false, false);
                let args = self.call_args(args, borrowed);
                let call = method_slots_call(recv, name, &slots, &args);
                (call, partials, exit.as_ref(), operands)
            }
            _ => return None,
        };
        if !self.a.is_active(dst) {
            return None;
        }
        // The callee's slots give the value, then one slot per argument
        // (the receiver first): those the reverse sweep reads are bound.
        let slots: Vec<TokenStream> = partials
            .iter()
            .map(|p| match p {
                Some(p) if self.used.contains(p) => self.names.forward(*p).into_token_stream(),
                _ => quote!(_),
            })
            .collect();
        let value = self.names.forward(dst);
        let exit = exit.map(|e| e.to_token_stream());
        let rhs = quote!(#call #exit);
        let checks = self.through_casts(&operands, partials);
        let bound = match &mut self.hoisted {
            Some(decls) => {
                decls.push(quote!(let #value;));
                for p in partials.iter().flatten().filter(|p| self.used.contains(p)) {
                    let n = self.names.forward(*p);
                    decls.push(quote!(let #n;));
                }
                quote!((#value, #(#slots),*) = #rhs;)
            }
            None => quote!(let (#value, #(#slots),*) = #rhs;),
        };
        Some(quote!(#bound #checks))
    }

    /// For each argument whose derivative comes only through casts of
    /// values of unstated type (`analysis/casts.rs`), the check that its
    /// slot takes it: a float slot, or a constant one where each cast's
    /// source is an integer. Spanned at the argument.
    fn through_casts(&self, operands: &[Operand], partials: &[Option<ValueId>]) -> TokenStream {
        let mut out = TokenStream::new();
        for (o, p) in operands.iter().zip(partials) {
            let (Some(v), Some(slot)) = (o.value(), p) else {
                continue;
            };
            if !self.used.contains(slot) {
                continue;
            }
            let Some(sources) = self.through_casts.get(&v) else {
                continue;
            };
            // The slot's name carries the argument's span, where a
            // constant slot given a float's cast is an error.
            let p = self.names.forward(*slot);
            let slot = respan(quote!(&#p), self.f.value(*slot).span);
            for s in sources {
                let s = self.names.forward(*s);
                out.extend(quote!(::autodiff::runtime::call::through_cast(#slot, &#s);));
            }
        }
        out
    }

    /// An active `sin`/`cos` whose derivative the reverse sweep reads:
    /// `let (y, dy_dx) = runtime::trig::sin_with_partial(x);`, the value
    /// and its derivative from one `sincos` (see `rules::with_partial`).
    fn with_partial(
        &mut self,
        dst: ValueId,
        op: &Op,
        written: Option<&Written>,
    ) -> Option<TokenStream> {
        let Op::Method {
            name,
            recv,
            partial: Some(p),
            ..
        } = op
        else {
            return None;
        };
        if !self.used.contains(p) {
            return None;
        }
        let rule = crate::rules::method(&name.to_string())?;
        let path = runtime_path(rule, &format!("{}_with_partial", rule.name));
        let x = self.operand(recv, Position::Arg);
        let value = self.names.forward(dst);
        let derivative = self.names.forward(*p);
        let attrs = written.map(|w| w.attrs.as_slice()).unwrap_or_default();
        // A written type, `let y: f64 = x.sin();`, is the derivative's too.
        let ty = written.and_then(|w| w.ty.as_ref());
        Some(match &mut self.hoisted {
            Some(decls) => {
                let annot = ty.map(|t| quote!(: #t));
                decls.push(quote!(#(#attrs)* let #value #annot;));
                decls.push(quote!(let #derivative #annot;));
                quote!((#value, #derivative) = #path(#x);)
            }
            None => {
                let annot = ty.map(|t| quote!(: (#t, #t)));
                let m = self.mutated.contains(&dst).then(|| quote!(mut));
                quote!(#(#attrs)* let (#m #value, #derivative) #annot = #path(#x);)
            }
        })
    }
}

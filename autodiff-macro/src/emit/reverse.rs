//! The reverse sweep: adjoints declared and seeded, loops run backwards
//! popping what their forward iterations pushed.

use super::*;

/// Whether a block binds names of its own in code kept as written, so that
/// it must stay a block for those bindings to stay local.
/// The values the reverse loops among `stmts` compute again, at any depth.
pub(super) fn recomputed_in(stmts: &[AdjStmt], out: &mut std::collections::HashSet<ValueId>) {
    for s in stmts {
        match s {
            AdjStmt::Loop {
                recompute, body, ..
            } => {
                out.extend(recompute.iter().copied());
                recomputed_in(body, out);
            }
            AdjStmt::Branch { arms, .. } => arms.iter().for_each(|a| recomputed_in(a, out)),
            _ => {}
        }
    }
}

/// Scalar adjoints that start at zero, declared one `let` each or, in a
/// long function, 32 of a type to a `let [mut d_a, d_b, ..]: [f64; 32] =
/// [0.0; 32];`, so that rustc, which recurses once per `let` of a block,
/// keeps within its stack.
pub(super) fn declare_zeroed(f: &Function, zeroed: Vec<(syn::Ident, TokenStream)>) -> TokenStream {
    let zero = zero(f);
    if zeroed.len() <= LONG_BLOCK / 4 {
        return zeroed
            .into_iter()
            .map(|(ty, binding)| {
                let ty = annotation(&ty);
                quote!(let #binding #ty = #zero;)
            })
            .collect();
    }
    let mut by_type: Vec<(syn::Ident, Vec<TokenStream>)> = Vec::new();
    for (ty, binding) in zeroed {
        match by_type.iter_mut().find(|(t, _)| *t == ty) {
            Some((_, bs)) => bs.push(binding),
            None => by_type.push((ty, vec![binding])),
        }
    }
    let mut out = TokenStream::new();
    for (ty, bindings) in by_type {
        for group in bindings.chunks(32) {
            let n = proc_macro2::Literal::usize_unsuffixed(group.len());
            out.extend(quote!(let [#(#group),*]: [#ty; #n] = [#zero; #n];));
        }
    }
    out
}

impl Emitter<'_> {
    pub(super) fn reverse(&mut self, g: &Gradient) -> TokenStream {
        self.contributions = crate::reverse::contributions(&g.reverse);
        self.pending = g.assigned.clone();
        self.restarted = g.restarted.clone();
        // In a long function, the adjoints declared at its top start at
        // zero, 32 to a `let` (`declare_zeroed`), rather than one `let`
        // each without a value.
        if g.adjoints.len() > LONG_BLOCK / 4 {
            for v in &g.adjoints {
                self.pending.remove(v);
            }
        }
        let mut out = TokenStream::new();
        let mut zeroed: Vec<(syn::Ident, TokenStream)> = Vec::new();
        for v in g.adjoints.iter().rev() {
            if self.pending.contains(v) {
                out.extend(self.declare_assigned(*v));
                continue;
            }
            let d = self.names.adjoint(*v);
            if let Some(a) = self.f.value(*v).ty.array() {
                let array = self.names.forward(*v);
                let ty = gradient_ty(self.f, a);
                let zeros = zeros_like(self.f, &array, a);
                out.extend(quote!(let mut #d: #ty = #zeros;));
                continue;
            }
            let seeded = !matches!(self.f.output, Output::Scalar) && self.f.outputs().contains(v);
            let mutability = (self.contributions.contains_key(v) || seeded).then(|| quote!(mut));
            if let Some(zeros) = self.zero_in_shape(*v, g.seed == Some(*v)) {
                out.extend(quote!(let #mutability #d = #zeros;));
                continue;
            }
            let ty = self.adjoint_ty(*v);
            if g.seed == Some(*v) {
                let one = match &self.scalar_seed {
                    Some(seed) => seed.to_token_stream(),
                    None => one(self.f),
                };
                let ty = annotation(&ty);
                out.extend(quote!(let #mutability #d #ty = #one;));
            } else {
                zeroed.push((ty, quote!(#mutability #d)));
            }
        }
        out.extend(declare_zeroed(self.f, zeroed));
        out.extend(self.seeding.clone());
        self.partials = vec![
            self.names.fresh("g0"),
            self.names.fresh("g1"),
            self.names.fresh("g2"),
        ];
        out.extend(self.reverse_stmts(&g.reverse));
        out
    }

    /// The reverse of a loop: iterations backwards, each popping what its
    /// forward iteration pushed, with fresh adjoints for the body's values.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn reverse_loop(
        &mut self,
        id: usize,
        kind: &LoopKind,
        trips: Option<ValueId>,
        carried: &[CarriedAdjoint],
        locals: &[ValueId],
        pushes: &[ValueId],
        iteration: &[ValueId],
        body: &[AdjStmt],
        (recomputed, again): (&[ValueId], TokenStream),
        index_read: Option<ValueId>,
        counters: &[crate::reverse::Counter],
        (carry_start, carry_end): (&TokenStream, &TokenStream),
    ) -> TokenStream {
        // What runs once before the iterations (for a checkpointed loop,
        // before all its segments), and before each run of them.
        let mut once = TokenStream::new();
        let mut pre = TokenStream::new();
        // Counters step back from their value after the loop.
        let mut stepped = TokenStream::new();
        for c in counters {
            let h = self.names.forward(c.header);
            let out = self.names.forward(c.out);
            let at = self
                .names
                .fresh(&format!("{}_at", self.names.forward_str(c.header)));
            let step = self.operand(&c.step, Position::Tight);
            once.extend(quote!(let mut #at = #out;));
            stepped
                .extend(quote!(let #h = ::autodiff::runtime::stack::step_back(&mut #at, #step);));
        }
        for c in carried {
            if let Some(out) = c.out {
                let d_out = self.names.adjoint(out);
                once.extend(self.add_adjoint(c.header, d_out.into_token_stream()));
            }
        }
        let mut pops = TokenStream::new();
        let mut finish = TokenStream::new();
        let pushes = &self.distinct_names(pushes);
        if !pushes.is_empty() {
            let stack = self.stack(id);
            // Popped through a reader that keeps the stack's top in
            // registers (`runtime::stack::Reader`).
            let reader = self.names.fresh(&format!("{stack}_reader"));
            let entry = self.record_tuple(pushes);
            if self.unguarded && !self.f.has_checkpoint() {
                // A first attempt: the entries stay on the stack for the
                // guarded sweep, should it run; they are copied out
                // (`replayable`). With a checkpointed loop, the guarded
                // sweep runs the forward sweep again (`rerun`): popped.
                pre.extend(quote!(let mut #reader = #stack.replay();));
                pops.extend(quote!(let #entry = #reader.read();));
                for v in pushes {
                    let name = self.names.forward(*v);
                    match self.kept(*v) {
                        Some(_) => pops.extend(quote!(let #name = &#name[..];)),
                        None => pops.extend(quote!(let #name = *#name;)),
                    }
                }
            } else {
                pre.extend(quote!(let mut #reader = #stack.reader();));
                pops.extend(quote!(let #entry = #reader.pop();));
                // A sub-slice of a local array, recorded as a copy of
                // what it viewed (`emit/forward.rs`): the slice again.
                for v in pushes {
                    if self.kept(*v).is_some() {
                        let name = self.names.forward(*v);
                        pops.extend(quote!(let #name = &#name[..];));
                    }
                }
            }
            finish.extend(quote!(#reader.finish();));
            // A scratch vector recorded whole: the entry holds its length,
            // its slab the elements, read back as a slice (left on the slab
            // by a first attempt).
            let slabbed: Vec<ValueId> = pushes
                .iter()
                .copied()
                .filter(|v| self.slabbed(*v))
                .collect();
            for v in &slabbed {
                let name = self.names.forward(*v);
                let (slab, _) = self.slab(*v);
                let slab_reader = self.names.fresh(&format!("{slab}_reader"));
                let (open, take) = match self.unguarded && !self.f.has_checkpoint() {
                    true => (quote!(replay), quote!(read_slice)),
                    false => (quote!(reader), quote!(pop_slice)),
                };
                pre.extend(quote!(let mut #slab_reader = #slab.#open();));
                pops.extend(quote!(let #name = #slab_reader.#take(#name);));
                finish.extend(quote!(#slab_reader.finish();));
            }
        }
        let mut decls = TokenStream::new();
        let mut give_back = TokenStream::new();
        for v in locals.iter().rev() {
            let d = self.names.adjoint(*v);
            if let Some(a) = self.f.value(*v).ty.array() {
                let ty = gradient_ty(self.f, a);
                // Grown by pushes, its zeros take its own length instead
                // (`Block::zero_length`).
                let declared = match self.f.body.zero_length(*v, &self.f.values) {
                    ZeroLength::Declared(_) => self.f.body.array_init(*v),
                    _ => None,
                };
                let zeros = match declared {
                    Some(ArrayInit::Filled { len, .. }) => {
                        // One buffer for every iteration of every run of
                        // the loop: taken, cleared and filled with zeros at
                        // the start of each, given back at its end, instead
                        // of a new vector each.
                        let n = self.operand(len, Position::Arg);
                        let z = zero(self.f);
                        let buf = self.adjoint_buffer(*v, &d, &ty);
                        decls.extend(quote! {
                            let mut #d: #ty = ::core::mem::take(&mut #buf);
                            #d.clear();
                            #d.resize(#n, #z);
                        });
                        give_back.extend(quote!(#buf = #d;));
                        continue;
                    }
                    _ => self.local_array_zeros(*v, a),
                };
                decls.extend(quote!(let mut #d: #ty = #zeros;));
                continue;
            }
            if self.pending.contains(v) {
                decls.extend(self.declare_assigned(*v));
                continue;
            }
            // Its contributions are all in this loop's reverse (the body's
            // and, for a carried value, the transfer's).
            let m = self.contributions.contains_key(v).then(|| quote!(mut));
            if let Some(zeros) = self.zero_in_shape(*v, false) {
                decls.extend(quote!(let #m #d = #zeros;));
                continue;
            }
            let ty = self.adjoint_ty(*v);
            let z = zero(self.f);
            let ty = annotation(&ty);
            decls.extend(quote!(let #m #d #ty = #z;));
        }
        // Move the carried adjoints from the headers to the values the
        // iteration left in them; all at once, as a header may be another
        // variable's next value.
        let mut transfer = TokenStream::new();
        if !crate::reverse::crossed(carried) {
            for c in carried {
                let d_h = self.names.adjoint(c.header);
                // A struct's adjoint, cloned: it is reset after.
                let d_h = match self.f.value(c.header).ty {
                    Ty::Composite(_) => quote!(::core::clone::Clone::clone(&#d_h)),
                    _ => d_h.to_token_stream(),
                };
                if let Some(n) = c.next {
                    transfer.extend(self.add_adjoint(n, d_h));
                }
                // Zeroed, unless the body's first contribution assigns it.
                match self.restarted.contains(&c.header) {
                    true => {
                        self.pending.insert(c.header);
                    }
                    false => transfer.extend(self.reset_carried(c.header, pushes)),
                }
            }
        } else {
            let temps: Vec<syn::Ident> = (0..carried.len())
                .map(|i| self.names.fresh(&format!("c{i}")))
                .collect();
            let d_hs: Vec<syn::Ident> = carried
                .iter()
                .map(|c| self.names.adjoint(c.header))
                .collect();
            transfer
                .extend(quote!(let (#(#temps),*) = (#(::core::clone::Clone::clone(&#d_hs)),*);));
            for c in carried {
                transfer.extend(self.reset_carried(c.header, pushes));
            }
            for (c, t) in carried.iter().zip(&temps) {
                if let Some(n) = c.next {
                    transfer.extend(self.add_adjoint(n, t.to_token_stream()));
                }
            }
        }
        // The iteration's values that were not pushed: the pullbacks that
        // take them do not read them.
        let saved = self.unavailable.clone();
        self.unavailable.extend(iteration.iter().filter(|v| {
            !pushes.contains(v)
                && !recomputed.contains(v)
                && !counters.iter().any(|c| c.header == **v)
        }));
        if let (None, LoopKind::Range { index: Some(i), .. }) = (trips, kind) {
            self.unavailable.remove(i);
        }
        let body = self.reverse_stmts(body);
        self.unavailable = saved;
        let checkpointed = self.find_loop(id).filter(|l| l.checkpoint.is_some());
        let header = match (trips, kind) {
            (Some(t), _) => {
                let t = self.names.forward(t);
                quote!(for _ in 0..#t)
            }
            (None, LoopKind::Range { index, range }) => {
                let pat = match index {
                    Some(i) if self.reverse_reads.contains(i) || index_read == Some(*i) => {
                        self.names.forward(*i).into_token_stream()
                    }
                    _ => quote!(_),
                };
                let it = match &checkpointed {
                    // One segment of a checkpoint schedule, backwards.
                    Some(l) => self.segment(l, range, true),
                    None => self.range(range, true),
                };
                quote!(for #pat in #it)
            }
            (None, LoopKind::While { .. }) => quote!(for _ in 0..0),
        };
        let mut post = TokenStream::new();
        for c in carried {
            if let Some(init) = c.init {
                let d_h = self.names.adjoint(c.header);
                post.extend(self.add_adjoint(init, d_h.into_token_stream()));
            }
        }
        let iterations = quote!(#pre #header { #pops #stepped #again #carry_start #decls #transfer #body #give_back #carry_end } #finish);
        match checkpointed {
            Some(l) => self.checkpointed_reverse(&l, once, iterations, post),
            None => quote!(#once #iterations #post),
        }
    }

    /// Zeros in the shape of `v`, an array declared in a loop body or an
    /// arm, from what the reverse sweep has at hand: its length as
    /// declared where there is one, else the array.
    pub(super) fn local_array_zeros(&self, v: ValueId, a: &ArrayTy) -> TokenStream {
        let z = zero(self.f);
        match self.f.body.zero_length(v, &self.f.values) {
            ZeroLength::Declared(len) => {
                let n = self.operand(len, Position::Arg);
                quote!(::std::vec![#z; #n])
            }
            ZeroLength::Items(n) => quote!(::std::vec![#z; #n]),
            // A copy's, in its source's length (a copy that grew by pushes
            // after it was taken has its own adjoint elements for them).
            ZeroLength::Of(w) => zeros_like(self.f, &self.names.forward(w), a),
        }
    }

    /// The adjoints of the arrays declared in a branch arm, zero, and of
    /// the structs built in it for a call: from their first contribution,
    /// or a zero of their shape.
    pub(super) fn arm_array_adjoints(&mut self, locals: &[ValueId]) -> TokenStream {
        let mut out = TokenStream::new();
        for v in locals {
            let f = self.f;
            let Some(a) = f.value(*v).ty.array() else {
                if self.pending.contains(v) {
                    out.extend(self.declare_assigned(*v));
                } else if let Some(zero) = self.zero_in_shape(*v, false) {
                    let d = self.names.adjoint(*v);
                    out.extend(quote!(let mut #d = #zero;));
                }
                continue;
            };
            let d = self.names.adjoint(*v);
            let ty = gradient_ty(f, a);
            let zeros = self.local_array_zeros(*v, a);
            out.extend(quote!(let mut #d: #ty = #zeros;));
        }
        out
    }

    /// The entries of a loop's body computed again in its reverse
    /// iteration, as in the forward sweep.
    pub(super) fn recompute(&mut self, values: &[ValueId]) -> TokenStream {
        let mut out = TokenStream::new();
        for v in values {
            let mut op = None;
            self.f.body.walk(&mut |inst| {
                if let Inst::Def { dst, op: o, .. } = inst {
                    if dst == v {
                        op = Some(o.clone());
                    }
                }
            });
            if let Some(op) = op {
                let name = self.names.forward(*v);
                let rhs = match self.windowed.get(v) {
                    Some(rhs) => rhs.clone(),
                    None => self.op(&op),
                };
                out.extend(quote!(let #name = #rhs;));
            }
        }
        out
    }

    pub(super) fn reverse_stmts(&mut self, stmts: &[AdjStmt]) -> TokenStream {
        stmts.iter().map(|stmt| self.reverse_stmt(stmt)).collect()
    }
}

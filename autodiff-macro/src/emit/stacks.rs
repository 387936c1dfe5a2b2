//! What a generated function declares once, at its start, for its
//! loops: the value stacks (one per loop that records), the slabs of the
//! scratch vectors recorded whole with the buffers they are made in, and
//! the buffers of the adjoints of arrays declared in loop bodies; the
//! shape of a stack entry, and a loop's pushes of its entries.

use super::*;

impl Emitter<'_> {
    /// Whether `v` is a scratch vector (`vec![x; n]`) that a loop records
    /// whole. Its elements are copied onto a slab of their own
    /// (`Stack::push_slice`) and its length into the loop's entry; the
    /// forward sweep makes it in a buffer the previous iteration gave back
    /// (`runtime::stack::refilled`), so that the loop allocates it once;
    /// the reverse iteration reads it as a slice of the slab
    /// (`Replay::read_slice`, `Reader::pop_slice`).
    pub(super) fn slabbed(&self, v: ValueId) -> bool {
        self.pushes.values().any(|p| p.contains(&v))
            && matches!(self.f.value(v).ty.array(), Some(a) if a.shape == Shape::Vec)
            && matches!(self.f.body.array_init(v), Some(ArrayInit::Filled { .. }))
    }

    /// The copy of `v`, a sub-slice of a local array a loop lends and
    /// records (`Block::lent_from_local`), taken where it is lent so that
    /// the borrow ends with the call: `None` for any other value.
    pub(super) fn kept(&mut self, v: ValueId) -> Option<syn::Ident> {
        if let Some(k) = self.kept.get(&v) {
            return Some(k.clone());
        }
        if !(self.pushes.values().any(|p| p.contains(&v)) && self.f.body.lent_from_local(v, self.f))
        {
            return None;
        }
        let name = self.names.forward_str(v).to_string();
        let k = self.suffixed(&name, "kept");
        self.kept.insert(v, k.clone());
        Some(k)
    }

    /// The name of the stack of loop `id`.
    pub(super) fn stack(&mut self, id: usize) -> syn::Ident {
        if let Some(s) = self.stacks.get(&id) {
            return s.clone();
        }
        let name = self.names.fresh("stack");
        self.stacks.insert(id, name.clone());
        name
    }

    /// The slab and the buffer of a scratch vector recorded whole (see
    /// `slabbed`).
    pub(super) fn slab(&mut self, v: ValueId) -> (syn::Ident, syn::Ident) {
        if let Some(s) = self.slabs.get(&v) {
            return s.clone();
        }
        let name = self.names.forward_str(v).to_string();
        let s = (self.suffixed(&name, "slab"), self.suffixed(&name, "buffer"));
        self.slabs.insert(v, s.clone());
        s
    }

    /// The buffer of the adjoint `d` (of type `ty`) of `v`, an array a loop
    /// body declares (see `adjoint_buffers`).
    pub(super) fn adjoint_buffer(
        &mut self,
        v: ValueId,
        d: &syn::Ident,
        ty: &TokenStream,
    ) -> syn::Ident {
        if let Some((buf, _)) = self.adjoint_buffers.get(&v) {
            return buf.clone();
        }
        let buf = self.suffixed(&d.to_string(), "buffer");
        self.adjoint_buffers.insert(v, (buf.clone(), ty.clone()));
        buf
    }

    /// The stacks, the slabs with their buffers, and the adjoints'
    /// buffers, declared once at the start of the generated function.
    pub(super) fn stack_declarations(&self) -> TokenStream {
        let stacks = self
            .stacks
            .values()
            .map(|name| quote!(let mut #name = ::autodiff::runtime::stack::Stack::new();));
        let slabs = self.slabs.values().map(|(slab, buffer)| {
            quote!(
                let mut #slab = ::autodiff::runtime::stack::Stack::new();
                let mut #buffer = ::std::vec::Vec::new();
            )
        });
        let buffers = self
            .adjoint_buffers
            .values()
            .map(|(buf, ty)| quote!(let mut #buf: #ty = ::std::vec::Vec::new();));
        stacks.chain(slabs).chain(buffers).collect()
    }

    /// The stacks and slabs dropped, after the reverse sweep: a loop that
    /// records a reference to a local the function declares after them
    /// (`let c = &cmds[i];` lent to a writer, trial 13) must not hold it
    /// past the local's end, which a stack's `Drop` at the end of the
    /// function would.
    pub(super) fn stack_drops(&self) -> TokenStream {
        self.stacks
            .values()
            .chain(self.slabs.values().map(|(slab, _)| slab))
            .map(|name| quote!(::core::mem::drop(#name);))
            .collect()
    }

    /// The tuple of the values one iteration of a loop records, in the
    /// order given (a lone value is pushed as itself).
    /// `values` with one value per forward name: two values the user's
    /// code binds under one name (a struct built for a method in each of
    /// two arms) are one variable where a loop records it.
    pub(super) fn distinct_names(&self, values: &[ValueId]) -> Vec<ValueId> {
        let mut seen = std::collections::HashSet::new();
        values
            .iter()
            .filter(|v| seen.insert(self.names.forward_str(**v).to_string()))
            .copied()
            .collect()
    }

    pub(super) fn record_tuple(&self, values: &[ValueId]) -> TokenStream {
        self.entry_pattern(values, |_| true)
    }

    /// The shape of a stack entry holding `values` (a lone value as
    /// itself, else a tuple), with the names of those `bind` keeps and `_`
    /// for the others.
    pub(super) fn entry_pattern(
        &self,
        values: &[ValueId],
        bind: impl Fn(ValueId) -> bool,
    ) -> TokenStream {
        let parts = values.iter().map(|v| match bind(*v) {
            true => self.names.forward(*v).into_token_stream(),
            false => quote!(_),
        });
        match values {
            [_] => quote!(#(#parts)*),
            _ => quote!((#(#parts),*)),
        }
    }

    /// A fresh name `<name>_<suffix>`, from a name that may be raw
    /// (`r#type`).
    fn suffixed(&mut self, name: &str, suffix: &str) -> syn::Ident {
        let name = name.trim_start_matches("r#");
        self.names.fresh(&format!("{name}_{suffix}"))
    }

    /// What a loop that records `pushes` adds to its forward run: the
    /// writer declared before the loop (`Stack::writer`, with room for a
    /// range loop's trip count reserved once), the push of the iteration's
    /// entry (one value, or a tuple of them) at the end of each iteration,
    /// and the writer's `finish()` after the loop. Nothing where it
    /// records nothing.
    pub(super) fn loop_pushes(
        &mut self,
        l: &Loop,
        pushes: &[ValueId],
        iter: Option<&TokenStream>,
    ) -> (TokenStream, TokenStream, TokenStream) {
        if pushes.is_empty() {
            return Default::default();
        }
        let stack = self.stack(l.id);
        // The loop pushes through a writer that keeps the stack's end
        // in registers (`runtime::stack::Writer`), with room for the
        // trip count of a range loop reserved once before it.
        let writer = self.names.fresh(&format!("{stack}_writer"));
        // A value of a type the source does not state may not be
        // `Copy`: the push takes a clone where the iteration still
        // uses the value (a carried one), and the value itself
        // elsewhere.
        let carried: Vec<ValueId> = l
            .carried
            .iter()
            .flat_map(|c| [Some(c.header), c.next.value()])
            .flatten()
            .collect();
        let mut slabbed = TokenStream::new();
        let items: Vec<TokenStream> = pushes
            .iter()
            .map(|v| {
                let name = self.names.forward(*v);
                if self.slabbed(*v) {
                    // Its length in the entry, its elements on its
                    // slab, and the vector back in its buffer, unless
                    // the loop carries it to the next iteration.
                    let (slab, buffer) = self.slab(*v);
                    slabbed.extend(quote!(#slab.push_slice(&#name);));
                    if !carried.contains(v) {
                        slabbed.extend(quote!(#buffer = #name;));
                    }
                    quote!(::std::vec::Vec::len(&#name))
                } else if let Some(kept) = self.kept(*v) {
                    // A copy of what it viewed, read back as a slice
                    // (`emit/reverse.rs`).
                    quote!(#kept)
                } else if carried.contains(v) && crate::reverse::is_shaped(self.f, *v) {
                    quote!(::core::clone::Clone::clone(&#name))
                } else {
                    quote!(#name)
                }
            })
            .collect();
        let entry = match items.as_slice() {
            [one] => one.clone(),
            _ => quote!((#(#items),*)),
        };
        let push_stmts = quote!(#writer.push(#entry); #slabbed);
        let room = match &l.kind {
            LoopKind::Range { range, .. } => {
                let it = iter.cloned().unwrap_or_else(|| self.range(range, false));
                quote!(::core::iter::Iterator::size_hint(&(#it)).0)
            }
            LoopKind::While { .. } => quote!(0),
        };
        let declared = quote!(let mut #writer = #stack.writer(#room););
        (declared, push_stmts, quote!(#writer.finish();))
    }
}

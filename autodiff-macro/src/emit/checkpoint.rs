//! A checkpointed loop (`#[checkpoint(every = K)]`, `#[checkpoint(snapshots
//! = S)]`) as code: the runtime's schedule (`runtime::checkpoint`) walked
//! by a `match` on its actions, in the forward sweep and again in the
//! reverse sweep.
//!
//! The loop's state is what its iterations change and read again: its
//! carried variables (the headers) and the arrays declared before it that
//! it writes to. Each action is the loop's own code:
//!
//! ```text
//! Store(slot)     states.store(slot, (h.clone(), u.clone(), ..))
//! Restore(slot)   h = state.0.clone(); u.clone_from(&state.1); ..
//! Advance(a..b)   the iterations a..b, recording nothing (`Run::Plain`)
//! Record(a..b)    the iterations a..b, pushing what their reverse reads
//! Reverse(a..b)   the reverse iterations b-1 down to a, popping it
//! ```
//!
//! Every iteration is recorded exactly once, from the state the forward
//! sweep gave it, and reversed right after: the gradient is the one of the
//! loop without checkpointing, bit for bit. An array the loop only reads
//! but the function changes after it is copied when the loop starts and
//! put back before the reverse sweep runs the loop again (`inputs`): the
//! iterations computed again read what the first ones read. The carried adjoints move as
//! in any loop (once before the first reverse segment, once after the
//! last), and counters step back across the segments as across
//! iterations. A checkpointed loop sits at the top level of the body, so
//! its headers, arrays, schedule and states are in scope in both sweeps.

use super::forward::Run;
use super::*;

/// The names a checkpointed loop's forward and reverse code share.
#[derive(Clone)]
pub(super) struct Names {
    schedule: syn::Ident,
    states: syn::Ident,
    inputs: syn::Ident,
    action: syn::Ident,
    slot: syn::Ident,
    state: syn::Ident,
    from: syn::Ident,
    to: syn::Ident,
}

impl Emitter<'_> {
    fn checkpoint_names(&mut self, id: usize) -> Names {
        if let Some(n) = self.checkpoints.get(&id) {
            return n.clone();
        }
        let n = Names {
            schedule: self.names.fresh("schedule"),
            states: self.names.fresh("states"),
            inputs: self.names.fresh("inputs"),
            action: self.names.fresh("action"),
            slot: self.names.fresh("slot"),
            state: self.names.fresh("state"),
            from: self.names.fresh("from"),
            to: self.names.fresh("to"),
        };
        self.checkpoints.insert(id, n.clone());
        n
    }

    /// The arrays declared before the loop that its iterations write to.
    fn changed_arrays(&self, l: &Loop) -> Vec<ValueId> {
        let mut inside = std::collections::HashSet::new();
        let mut changed = Vec::new();
        l.body.walk(&mut |inst| {
            if let Inst::Def { dst, .. } = inst {
                inside.insert(*dst);
            }
            for a in inst.changed_arrays() {
                if !changed.contains(&a) {
                    changed.push(a);
                }
            }
        });
        changed.retain(|a| !inside.contains(a));
        changed
    }

    /// The arrays declared before the loop that it reads, does not change,
    /// and the function changes elsewhere (after the loop): copied at its
    /// start, put back before its reverse.
    fn read_array_names(&self, l: &Loop) -> Vec<syn::Ident> {
        self.read_arrays(l)
            .into_iter()
            .map(|a| self.names.forward(a))
            .collect()
    }

    /// [`Self::read_array_names`], by value.
    fn read_arrays(&self, l: &Loop) -> Vec<ValueId> {
        let changed = self.changed_arrays(l);
        let mutated = self.f.mutated_arrays();
        let mut inside = std::collections::HashSet::new();
        let mut read = Vec::new();
        l.body.walk(&mut |inst| {
            if let Inst::Def { dst, op, .. } = inst {
                inside.insert(*dst);
                for v in op.operands() {
                    if self.f.value(v).ty.array().is_some() && !read.contains(&v) {
                        read.push(v);
                    }
                }
            }
        });
        read.retain(|a| !inside.contains(a) && !changed.contains(a) && mutated.contains(a));
        read
    }

    /// The iterations `from..to` of the schedule (numbered from 0) as the
    /// loop's indices, `reversed` last first.
    pub(super) fn segment(&mut self, l: &Loop, range: &RangeIter, reversed: bool) -> TokenStream {
        let n = self.checkpoint_names(l.id);
        let (from, to) = (&n.from, &n.to);
        let start = self.operand(&range.start, Position::Arg);
        let offset = quote!(::autodiff::runtime::checkpoint::offset);
        let it = quote!((#offset(#start, #from)..#offset(#start, #to)));
        match reversed {
            true => quote!(::core::iter::Iterator::rev(#it)),
            false => it,
        }
    }

    /// The `match` arms of the state's actions: store and restore.
    fn state_arms(&mut self, l: &Loop) -> (TokenStream, TokenStream) {
        let n = self.checkpoint_names(l.id);
        let (states, slot, state) = (&n.states, &n.slot, &n.state);
        let headers: Vec<syn::Ident> = l
            .carried
            .iter()
            .map(|c| self.names.forward(c.header))
            .collect();
        let arrays: Vec<syn::Ident> = self
            .changed_arrays(l)
            .into_iter()
            .map(|a| self.names.forward(a))
            .collect();
        let clone = quote!(::core::clone::Clone::clone);
        let stored = headers.iter().chain(&arrays).map(|v| quote!(#clone(&#v)));
        let store = quote!(#states.store(#slot, (#(#stored,)*)));
        let mut restore = TokenStream::new();
        for (k, h) in headers.iter().enumerate() {
            let k = syn::Index::from(k);
            restore.extend(quote!(#h = #clone(&#state.#k);));
        }
        for (k, a) in arrays.iter().enumerate() {
            let k = syn::Index::from(headers.len() + k);
            restore.extend(quote!(::core::clone::Clone::clone_from(&mut #a, &#state.#k);));
        }
        let restore = quote!({ let #state = #states.get(#slot); #restore });
        (store, restore)
    }

    /// The iterations of a schedule's segment, plain and recorded.
    fn segment_runs(&mut self, l: &Loop) -> (TokenStream, TokenStream) {
        let LoopKind::Range { range, .. } = &l.kind else {
            return Default::default();
        };
        let range = range.clone();
        // Emitted again inside the reverse sweep: what the forward code
        // sets aside for itself is put back as it was.
        let windowed = self.windowed.clone();
        let unavailable = self.unavailable.clone();
        let it = self.segment(l, &range, false);
        let plain = self.forward_run(l, Run::Plain, Some(it.clone()));
        let recorded = self.forward_run(l, Run::Recorded, Some(it));
        self.windowed = windowed;
        self.unavailable = unavailable;
        (plain, recorded)
    }

    /// The forward sweep of a checkpointed loop: its headers, its
    /// schedule and stored states, the schedule's forward actions, and
    /// the values after it.
    pub(super) fn checkpointed_forward(&mut self, l: &Loop) -> TokenStream {
        let (Some(cp), LoopKind::Range { range, .. }) = (&l.checkpoint, &l.kind) else {
            return self.forward_run(l, Run::Whole, None);
        };
        let n = self.checkpoint_names(l.id);
        let (schedule, states, action, slot) = (&n.schedule, &n.states, &n.action, &n.slot);
        let (from, to) = (&n.from, &n.to);
        let rt = quote!(::autodiff::runtime::checkpoint);
        let headers = self.declare_headers(l, true);
        let count = self.operand(&cp.count, Position::Arg);
        let iter = self.range(range, false);
        let scheme = match cp.scheme {
            Scheme::Every => quote!(every),
            Scheme::Snapshots => quote!(binomial),
        };
        let (store, _) = self.state_arms(l);
        let (plain, recorded) = self.segment_runs(l);
        let outs = self.loop_outs(l);
        let inputs = &n.inputs;
        let read = self.read_array_names(l);
        let keep = (!read.is_empty())
            .then(|| quote!(let #inputs = (#(::core::clone::Clone::clone(&#read),)*);));
        quote! {
            #headers
            #keep
            let #schedule = #rt::Schedule::#scheme(#count, ::core::iter::Iterator::size_hint(&(#iter)).0);
            let mut #states = #rt::States::new(#schedule.slots());
            for #action in #schedule.forward() {
                match #action {
                    #rt::Action::Store(#slot) => #store,
                    #rt::Action::Advance { from: #from, to: #to } => { #plain }
                    #rt::Action::Record { from: #from, to: #to } => { #recorded }
                    #rt::Action::Restore(_) | #rt::Action::Reverse { .. } => {}
                }
            }
            #outs
        }
    }

    /// The reverse sweep of a checkpointed loop: `once` before it, the
    /// schedule's reverse actions with `iterations` (one segment's reverse
    /// iterations) for each `Reverse`, `post` after it.
    pub(super) fn checkpointed_reverse(
        &mut self,
        l: &Loop,
        once: TokenStream,
        iterations: TokenStream,
        post: TokenStream,
    ) -> TokenStream {
        let n = self.checkpoint_names(l.id);
        let (schedule, action, slot) = (&n.schedule, &n.action, &n.slot);
        let (from, to) = (&n.from, &n.to);
        let rt = quote!(::autodiff::runtime::checkpoint);
        let (store, restore) = self.state_arms(l);
        let (plain, recorded) = self.segment_runs(l);
        let inputs = &n.inputs;
        let read = self.read_array_names(l);
        let put_back = read.iter().enumerate().map(|(k, a)| {
            let k = syn::Index::from(k);
            quote!(::core::clone::Clone::clone_from(&mut #a, &#inputs.#k);)
        });
        quote! {
            #once
            #(#put_back)*
            for #action in #schedule.reverse() {
                match #action {
                    #rt::Action::Store(#slot) => #store,
                    #rt::Action::Restore(#slot) => #restore
                    #rt::Action::Advance { from: #from, to: #to } => { #plain }
                    #rt::Action::Record { from: #from, to: #to } => { #recorded }
                    #rt::Action::Reverse { from: #from, to: #to } => { #iterations }
                }
            }
            #post
        }
    }
}

//! The regions of a traced function: a branch records the arm that ran
//! as a frame, a loop each iteration as a frame of its own.

use super::*;

impl Tracer<'_> {
    /// A branch: the arm that ran is entered as a frame; each active merge
    /// passes out its node with its value.
    pub(super) fn branch(&mut self, br: &Branch, out: &mut TokenStream) {
        let merges: Vec<&Merge> = br
            .merges
            .iter()
            .filter(|m| self.e.f.value(m.dst).kind != ValueKind::Opaque)
            .collect();
        let label = match &br.selector {
            Selector::If(c) => format!("if {}", self.shown(c)),
            Selector::Match { scrutinee, .. } => format!("match {}", self.shown(scrutinee)),
        };
        let tape = self.tape.clone();
        let mut arms = Vec::new();
        let (first, mut after) = (self.next_number, self.next_number);
        for (i, arm) in br.arms.iter().enumerate() {
            self.next_number = first;
            let name = match &br.selector {
                Selector::If(_) if i == 0 => "then".to_string(),
                Selector::If(_) => "else".to_string(),
                Selector::Match { patterns, .. } => show(&patterns[i].0.to_token_stream()),
            };
            let mut body =
                quote!(#tape.enter(::autodiff::runtime::trace::Frame::arm(#label, #name)););
            self.block(arm, &mut body);
            let mut outs: Vec<TokenStream> = merges
                .iter()
                .map(|m| self.e.operand(&m.arms[i], Position::Arg))
                .collect();
            for m in &merges {
                if self.e.a.is_active(m.dst) {
                    let n = self.node_or_const(&m.arms[i], &mut body);
                    outs.push(n);
                }
            }
            body.extend(quote!(#tape.leave();));
            after = after.max(self.next_number);
            if br.diverging[i] {
                outs.clear();
            }
            arms.push(forward::arm_block(&body, &outs));
        }
        self.next_number = after;
        let branch = self.e.select(&br.selector, &arms);
        let mut names: Vec<syn::Ident> =
            merges.iter().map(|m| self.e.names.forward(m.dst)).collect();
        for m in &merges {
            if self.e.a.is_active(m.dst) {
                names.push(self.node_name(m.dst));
            }
        }
        out.extend(match names.as_slice() {
            [] => quote!(#branch;),
            [one] => quote!(let #one = #branch;),
            many => quote!(let (#(#many),*) = #branch;),
        });
    }

    /// A loop, unrolled on the tape: each iteration a frame, numbered from
    /// 0; the carried variables' nodes carried beside them.
    pub(super) fn traced_loop(&mut self, l: &Loop, out: &mut TokenStream) {
        let tape = self.tape.clone();
        let active: Vec<&Carried> = l
            .carried
            .iter()
            .filter(|c| self.e.a.is_active(c.header))
            .collect();
        for c in &l.carried {
            let h = self.e.names.forward(c.header);
            let init = self.e.operand(&c.init, Position::Arg);
            let ty = self.e.f.value(c.header).ty.float().map(|t| {
                let t = self.e.f.float_ident(t);
                quote!(: #t)
            });
            out.extend(quote!(#[allow(unused_mut)] let mut #h #ty = #init;));
        }
        for c in &active {
            let n = self.node_or_const(&c.init, out);
            let node = self.node_name(c.header);
            out.extend(quote!(#[allow(unused_mut)] let mut #node = #n;));
        }
        let k = self.e.names.fresh("iteration");
        out.extend(quote!(let mut #k: usize = 0;));
        let label = match &l.kind {
            // `_layer`, a variable the body does not read, is `layer`.
            LoopKind::Range { index: Some(i), .. } => {
                let name = self.e.names.forward_str(*i);
                match name.trim_start_matches('_') {
                    "" => "loop".to_string(),
                    bare => bare.to_string(),
                }
            }
            _ => "loop".to_string(),
        };
        // A checkpointed loop: the iterations its gradient computes again
        // in the reverse sweep, in a frame that says from which stored
        // state (`runtime::checkpoint::Schedule::segments`).
        let mut segment_end = TokenStream::new();
        let mut body = TokenStream::new();
        if let (Some(cp), LoopKind::Range { range, .. }) = (&l.checkpoint, &l.kind) {
            let rt = quote!(::autodiff::runtime);
            let segments = self.e.names.fresh("segments");
            let segment = self.e.names.fresh("segment");
            let count = self.e.operand(&cp.count, Position::Arg);
            let iter = self.e.range(range, false);
            let scheme = match cp.scheme {
                Scheme::Every => quote!(every),
                Scheme::Snapshots => quote!(binomial),
            };
            out.extend(quote! {
                let #segments = #rt::checkpoint::Schedule::#scheme(
                    #count,
                    ::core::iter::Iterator::size_hint(&(#iter)).0,
                )
                .segments();
            });
            body.extend(quote! {
                if let ::core::option::Option::Some(#segment) = #segments.recomputed_from(#k) {
                    #tape.enter(#rt::trace::Frame::recomputed(
                        #label,
                        #segment.from,
                        #segment.to,
                        #segment.restored.unwrap_or(#segment.from),
                    ));
                }
            });
            segment_end = quote! {
                if #segments.recomputed_until(#k) {
                    #tape.leave();
                }
            };
        }
        body.extend(quote!(#tape.enter(::autodiff::runtime::trace::Frame::iteration(#label, #k));));
        self.block(&l.body, &mut body);
        // All at once: a header may be another's next value.
        let hs: Vec<syn::Ident> = l
            .carried
            .iter()
            .map(|c| self.e.names.forward(c.header))
            .collect();
        let ns: Vec<TokenStream> = l
            .carried
            .iter()
            .map(|c| self.e.operand(&c.next, Position::Arg))
            .collect();
        let mut node_hs = Vec::new();
        let mut node_ns = Vec::new();
        for c in &active {
            node_ns.push(self.node_or_const(&c.next, &mut body));
            node_hs.push(self.nodes[&c.header].clone());
        }
        if !hs.is_empty() {
            body.extend(quote!((#(#hs,)*) = (#(#ns,)*);));
        }
        if !node_hs.is_empty() {
            body.extend(quote!((#(#node_hs,)*) = (#(#node_ns,)*);));
        }
        body.extend(quote!(#tape.leave(); #segment_end #k += 1;));
        let mut cb = TokenStream::new();
        if let LoopKind::While { cond_block, .. } = &l.kind {
            self.block(cond_block, &mut cb);
        }
        out.extend(self.e.loop_shell(l, cb, body));
        for c in &l.carried {
            let o = self.e.names.forward(c.out);
            let h = self.e.names.forward(c.header);
            out.extend(quote!(#[allow(unused_variables)] let #o = #h;));
            if let Some(n) = self.nodes.get(&c.header).cloned() {
                self.nodes.insert(c.out, n);
            }
        }
    }
}

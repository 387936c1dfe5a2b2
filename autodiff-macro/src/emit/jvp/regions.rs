//! The regions of `_jvp`: a branch passes out its merges' tangents with
//! their values, a loop carries its variables' tangents beside them.

use super::*;

impl Tangents<'_> {
    /// A branch: each arm passes out its merges' values, then the tangents
    /// of the active ones (zero where the arm's value has none).
    pub(super) fn branch(&mut self, br: &Branch, out: &mut TokenStream) {
        let merges: Vec<&Merge> = br
            .merges
            .iter()
            .filter(|m| self.e.f.value(m.dst).kind != ValueKind::Opaque)
            .collect();
        let active: Vec<&Merge> = merges
            .iter()
            .copied()
            .filter(|m| self.e.a.is_active(m.dst))
            .collect();
        let mut arms = Vec::new();
        for (i, arm) in br.arms.iter().enumerate() {
            // What the arm binds stays in it.
            let outer = self.tangents.clone();
            let mut body = TokenStream::new();
            self.block(arm, &mut body);
            let mut outs: Vec<TokenStream> = merges
                .iter()
                .map(|m| self.e.operand(&m.arms[i], Position::Arg))
                .collect();
            outs.extend(active.iter().map(|m| self.tangent_or_zero(&m.arms[i])));
            if br.diverging[i] {
                outs.clear();
            }
            self.tangents = outer;
            arms.push(forward::arm_block(&body, &outs));
        }
        let branch = self.e.select(&br.selector, &arms);
        let mut names: Vec<TokenStream> = merges
            .iter()
            .map(|m| self.e.names.forward(m.dst).into_token_stream())
            .collect();
        for m in &active {
            let d = self.e.names.adjoint(m.dst);
            names.push(d.to_token_stream());
            self.tangents.insert(m.dst, d.into_token_stream());
        }
        out.extend(match names.as_slice() {
            [] => quote!(#branch;),
            [one] => quote!(let #one = #branch;),
            many => quote!(let (#(#many),*) = #branch;),
        });
    }

    /// A loop, run as written, the active carried variables' tangents
    /// carried beside them; a checkpointed one simply runs (forward mode
    /// records nothing).
    pub(super) fn tangent_loop(&mut self, l: &Loop, out: &mut TokenStream) {
        let active: Vec<&Carried> = l
            .carried
            .iter()
            .filter(|c| self.e.a.is_active(c.header))
            .collect();
        out.extend(self.e.declare_headers(l, false));
        for c in &active {
            let init = self.tangent_or_zero(&c.init);
            let d = self.e.names.adjoint(c.header);
            let ty = self.e.f.value(c.header).ty.float().map(|t| {
                let t = self.e.f.float_ident(t);
                quote!(: #t)
            });
            out.extend(quote!(#[allow(unused_mut)] let mut #d #ty = #init;));
            self.tangents.insert(c.header, d.into_token_stream());
        }
        let outer = self.tangents.clone();
        // A `while`'s condition, before the body that may read it.
        let mut cb = TokenStream::new();
        if let LoopKind::While { cond_block, .. } = &l.kind {
            self.block(cond_block, &mut cb);
        }
        let mut body = TokenStream::new();
        self.block(&l.body, &mut body);
        // All at once: a header may be another's next value.
        let mut hs: Vec<TokenStream> = l
            .carried
            .iter()
            .map(|c| self.e.names.forward(c.header).into_token_stream())
            .collect();
        let mut ns: Vec<TokenStream> = l
            .carried
            .iter()
            .map(|c| self.e.operand(&c.next, Position::Arg))
            .collect();
        for c in &active {
            hs.push(outer[&c.header].clone());
            ns.push(self.tangent_or_zero(&c.next));
        }
        if !hs.is_empty() {
            body.extend(quote!((#(#hs,)*) = (#(#ns,)*);));
        }
        self.tangents = outer;
        out.extend(self.e.loop_shell(l, cb, body));
        for c in &l.carried {
            let o = self.e.names.forward(c.out);
            let h = self.e.names.forward(c.header);
            out.extend(quote!(#[allow(unused_variables)] let #o = #h;));
            if let Some(d) = self.tangents.get(&c.header).cloned() {
                self.tangents.insert(c.out, d);
            }
        }
    }
}

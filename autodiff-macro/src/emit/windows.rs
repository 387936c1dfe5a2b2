//! Bounds-check windows as code: slices taken once before a loop (the
//! plan is `analysis::windows`).

use super::*;

impl Emitter<'_> {
    /// The bounds-check windows of a range loop (`windows.rs`): their
    /// declarations, to go before the loop, and the loads that now read
    /// through them (recorded in `self.windowed` until the loop is
    /// emitted). In the reverse sweep, a window whose start reads a value
    /// the sweep does not have is left out.
    pub(super) fn windows(
        &mut self,
        l: &Loop,
        only: Option<&std::collections::HashSet<ValueId>>,
    ) -> (TokenStream, Vec<ValueId>) {
        let mut decls = TokenStream::new();
        let mut loads = Vec::new();
        let LoopKind::Range {
            index: Some(j),
            range,
        } = &l.kind
        else {
            return (decls, loads);
        };
        let end = self.operand(&range.end, Position::Tight);
        let j = self.names.forward(*j);
        for mut w in crate::analysis::windows::plan(self.f, l, &self.mutated) {
            if let Some(only) = only {
                w.loads.retain(|(dst, _)| only.contains(dst));
                if w.loads.is_empty() {
                    continue;
                }
            }
            let leaves = w.base.as_ref().map(|b| b.leaves()).unwrap_or_default();
            if leaves.iter().any(|v| self.unavailable.contains(v)) {
                continue;
            }
            let array = self.names.forward(w.array);
            let win = self
                .names
                .fresh(&format!("{}_win", self.names.forward_str(w.array)));
            decls.extend(match &w.base {
                None => quote!(let #win = &#array[..#end];),
                Some(b) => {
                    let b = self.base(b, false);
                    quote!(let #win = &#array[::core::cmp::min(#b, #array.len())..][..#end];)
                }
            });
            for (dst, offset) in w.loads {
                let rhs = match offset {
                    None => quote!(#win[#j]),
                    Some((iv, x)) => {
                        let iv = self.names.forward(iv);
                        let x = self.operand(&x, Position::Tight);
                        quote!(#win[#iv - #x])
                    }
                };
                self.windowed.insert(dst, rhs);
                loads.push(dst);
            }
        }
        (decls, loads)
    }

    /// A window's start as an expression, parenthesised inside another.
    pub(super) fn base(&self, b: &crate::analysis::windows::Base, nested: bool) -> TokenStream {
        match b {
            crate::analysis::windows::Base::Operand(o) => self.operand(o, Position::Tight),
            crate::analysis::windows::Base::Binary(op, a, b) => {
                let (a, b) = (self.base(a, true), self.base(b, true));
                let op: TokenStream = op.symbol().parse().expect("an operator");
                match nested {
                    true => quote!((#a #op #b)),
                    false => quote!(#a #op #b),
                }
            }
        }
    }
}

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

    /// The adjoints' windows of a reverse range loop: for each window of an
    /// active array (the forward plan's), the same slice of its adjoint, so
    /// that `d_xs[base + j] += ..` needs no bounds check either. Several
    /// windows of one array may overlap (`x[j]` and `x[j + 1]`), and
    /// mutable slices cannot: the adjoint is viewed as a slice of `Cell`s
    /// (`Cell::from_mut(..).as_slice_of_cells()`, no copy, no unsafe code),
    /// and each window is a shared slice of those. Only for an adjoint that
    /// the loop's reverse touches through those elements alone. The
    /// adjoint has its array's length, so its window is in range wherever
    /// the forward one is.
    pub(super) fn adjoint_windows(
        &mut self,
        l: &Loop,
        body: &[crate::reverse::AdjStmt],
    ) -> (TokenStream, Vec<ValueId>) {
        let mut decls = TokenStream::new();
        let mut elements = Vec::new();
        let LoopKind::Range {
            index: Some(j),
            range,
        } = &l.kind
        else {
            return (decls, elements);
        };
        let end = self.operand(&range.end, Position::Tight);
        let j = self.names.forward(*j);
        let plan = crate::analysis::windows::plan(self.f, l, &self.mutated);
        let mut arrays: Vec<ValueId> = plan.iter().map(|w| w.array).collect();
        arrays.dedup();
        for array in arrays {
            if !self.a.is_active(array) || self.registers.iter().any(|((a, _), _)| *a == array) {
                continue;
            }
            let windows: Vec<&crate::analysis::windows::Window> =
                plan.iter().filter(|w| w.array == array).collect();
            if windows.iter().any(|w| {
                w.base
                    .as_ref()
                    .is_some_and(|b| b.leaves().iter().any(|v| self.unavailable.contains(v)))
            }) {
                continue;
            }
            let through: std::collections::HashSet<ValueId> = windows
                .iter()
                .flat_map(|w| w.loads.iter().map(|(dst, _)| *dst))
                .collect();
            let only = body
                .iter()
                .all(|s| crate::reverse::only_elements(s, array, &|_, dst| through.contains(&dst)));
            // The loads whose adjoint the loop's reverse adds into (an
            // inactive load has none): a window nothing adds through would
            // still borrow the adjoint.
            let added: std::collections::HashSet<ValueId> = body
                .iter()
                .filter_map(|s| match s {
                    crate::reverse::AdjStmt::Element { array: a, dst, .. } if *a == array => {
                        Some(*dst)
                    }
                    _ => None,
                })
                .collect();
            if !only || added.is_empty() {
                continue;
            }
            let windows: Vec<_> = windows
                .into_iter()
                .filter(|w| w.loads.iter().any(|(dst, _)| added.contains(dst)))
                .collect();
            let d_a = self.names.adjoint(array);
            let base_name = d_a.to_string();
            let base_name = base_name.trim_start_matches("r#");
            // One window: a mutable slice. Several: shared slices of cells.
            let cells = (windows.len() > 1).then(|| {
                let cells = self.names.fresh(&format!("{base_name}_cells"));
                decls.extend(quote!(
                    let #cells = ::core::cell::Cell::from_mut(&mut #d_a[..]).as_slice_of_cells();
                ));
                cells
            });
            for w in windows {
                let win = self.names.fresh(&format!("{base_name}_win"));
                decls.extend(match (&cells, &w.base) {
                    (Some(c), None) => quote!(let #win = &#c[..#end];),
                    (Some(c), Some(b)) => {
                        let b = self.base(b, false);
                        quote!(let #win = &#c[::core::cmp::min(#b, #c.len())..][..#end];)
                    }
                    (None, None) => quote!(let #win = &mut #d_a[..#end];),
                    (None, Some(b)) => {
                        let b = self.base(b, false);
                        let len = self.names.fresh(&format!("{base_name}_len"));
                        quote!(
                            let #len = #d_a.len();
                            let #win = &mut #d_a[::core::cmp::min(#b, #len)..][..#end];
                        )
                    }
                });
                for (dst, offset) in w.loads.iter().filter(|(d, _)| added.contains(d)) {
                    let cell = match offset {
                        None => quote!(#win[#j]),
                        Some((iv, x)) => {
                            let iv = self.names.forward(*iv);
                            let x = self.operand(x, Position::Tight);
                            quote!(#win[#iv - #x])
                        }
                    };
                    self.adjoint_windowed.insert(*dst, (cell, cells.is_some()));
                    elements.push(*dst);
                }
            }
        }
        (decls, elements)
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

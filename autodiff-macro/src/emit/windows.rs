//! Bounds-check windows as code: slices taken once before a loop (the
//! plan is `analysis::windows`).

use super::*;

/// The adjoint windows of a reverse loop, as code: declared before it,
/// at the start and end of each iteration, and after it.
#[derive(Default)]
pub(super) struct AdjointWindows {
    pub decls: TokenStream,
    /// The loads whose adjoint elements go through them.
    pub elements: Vec<ValueId>,
    pub iteration_start: TokenStream,
    pub iteration_end: TokenStream,
    pub after: TokenStream,
}

/// A shared element carried in a register (see `Emitter::carry`).
pub(super) struct Carry {
    before: TokenStream,
    start: TokenStream,
    end: TokenStream,
    after: TokenStream,
    next: syn::Ident,
    here: syn::Ident,
    /// Which of the two windows is at `j + 1`.
    next_window: usize,
}

/// How an adjoint element is added into.
pub(super) enum AdjointAt {
    /// Through a mutable window: `d_x_win[j] += d`.
    Slice(TokenStream),
    /// Through a window of cells: `c.set(c.get() + d)`.
    Cell(TokenStream),
    /// Into a register carried across iterations: `d_x_next += d`.
    Register(syn::Ident),
}

/// What a window is a slice of.
pub(super) enum WindowSource {
    /// An array read through `&`, or an adjoint's slice of `Cell`s.
    Shared(TokenStream),
    /// An adjoint added into through `&mut`.
    Mutable(TokenStream),
}

/// A range loop's window plan (`analysis::windows::plan`), with what its
/// code needs: the range's end and the loop index's name.
pub(super) struct LoopWindows {
    end: TokenStream,
    j: syn::Ident,
    plan: Vec<crate::analysis::windows::Window>,
}

impl Emitter<'_> {
    /// The windows of loop `l`, planned once for the forward loop, or for
    /// the reverse loop and its adjoints; `None` for a loop that is not
    /// over a range with an index.
    pub(super) fn window_plan(&self, l: &Loop) -> Option<LoopWindows> {
        let LoopKind::Range {
            index: Some(j),
            range,
        } = &l.kind
        else {
            return None;
        };
        Some(LoopWindows {
            end: self.operand(&range.end, Position::Tight),
            j: self.names.forward(*j),
            plan: crate::analysis::windows::plan(self.f, l, &self.mutated),
        })
    }

    /// The bounds-check windows of a range loop (`windows.rs`): their
    /// declarations, to go before the loop, and the loads that now read
    /// through them (recorded in `self.windowed` until the loop is
    /// emitted). In the reverse sweep, a window whose start reads a value
    /// the sweep does not have is left out.
    pub(super) fn windows(
        &mut self,
        p: &LoopWindows,
        only: Option<&std::collections::HashSet<ValueId>>,
    ) -> (TokenStream, Vec<ValueId>) {
        let mut decls = TokenStream::new();
        let mut loads = Vec::new();
        let LoopWindows { end, j, plan } = p;
        for mut w in plan.iter().cloned() {
            if let Some(only) = only {
                w.loads.retain(|(dst, _)| only.contains(dst));
                if w.loads.is_empty() {
                    continue;
                }
            }
            let array = self.names.forward(w.array);
            let name = format!("{}_win", self.names.forward_str(w.array));
            let source = WindowSource::Shared(array.into_token_stream());
            let Some((decl, elements)) = self.window(&w, &source, &name, end, j) else {
                continue;
            };
            decls.extend(decl);
            for (dst, rhs) in elements {
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
        p: &LoopWindows,
        body: &[crate::reverse::AdjStmt],
    ) -> AdjointWindows {
        let mut out = AdjointWindows::default();
        let LoopWindows { end, j, plan } = p;
        // Each array once, whatever the order of its windows in the plan.
        let mut arrays: Vec<ValueId> = Vec::new();
        for w in plan.iter() {
            if !arrays.contains(&w.array) {
                arrays.push(w.array);
            }
        }
        for array in arrays {
            if !self.a.is_active(array) || self.registers.iter().any(|((a, _), _)| *a == array) {
                continue;
            }
            let windows: Vec<&crate::analysis::windows::Window> =
                plan.iter().filter(|w| w.array == array).collect();
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
            let windows_len = windows.len();
            let d_a = self.names.adjoint(array);
            let base_name = d_a.to_string();
            let base_name = base_name.trim_start_matches("r#").to_string();
            // One window: a mutable slice. Several: shared slices of cells.
            let cells =
                (windows.len() > 1).then(|| self.names.fresh(&format!("{base_name}_cells")));
            let source = match &cells {
                Some(c) => WindowSource::Shared(c.into_token_stream()),
                None => WindowSource::Mutable(d_a.to_token_stream()),
            };
            let mut planned = Vec::new();
            let mut kept = Vec::new();
            for mut w in windows.into_iter().cloned() {
                w.loads.retain(|(d, _)| added.contains(d));
                match self.window(&w, &source, &format!("{base_name}_win"), end, j) {
                    Some(p) => planned.push(p),
                    None => break,
                }
                kept.push(w);
            }
            // Every element of the adjoint goes through a window, or none.
            if planned.len() < windows_len {
                continue;
            }
            if cells.is_some() {
                if let Some(carry) = self.carry(&kept, &planned, &d_a, end) {
                    out.decls.extend(carry.before);
                    out.iteration_start.extend(carry.start);
                    out.iteration_end.extend(carry.end);
                    out.after.extend(carry.after);
                    for (k, (_, els)) in planned.iter().enumerate() {
                        let reg = if k == carry.next_window {
                            &carry.next
                        } else {
                            &carry.here
                        };
                        for (dst, _) in els {
                            self.adjoint_windowed
                                .insert(*dst, AdjointAt::Register(reg.clone()));
                            out.elements.push(*dst);
                        }
                    }
                    if let Some(c) = &cells {
                        out.decls.extend(quote!(
                            let #c = ::core::cell::Cell::from_mut(&mut #d_a[..]).as_slice_of_cells();
                        ));
                    }
                    for (decl, _) in planned {
                        out.decls.extend(decl);
                    }
                    continue;
                }
            }
            if let Some(c) = &cells {
                out.decls.extend(quote!(
                    let #c = ::core::cell::Cell::from_mut(&mut #d_a[..]).as_slice_of_cells();
                ));
            }
            for (decl, els) in planned {
                out.decls.extend(decl);
                for (dst, element) in els {
                    let at = match cells {
                        Some(_) => AdjointAt::Cell(element),
                        None => AdjointAt::Slice(element),
                    };
                    self.adjoint_windowed.insert(dst, at);
                    out.elements.push(dst);
                }
            }
        }
        out
    }

    /// The element two adjacent terms share, carried in a register: in a
    /// reverse loop over `(0..n).rev()` adding into `d_x[j + 1]` and
    /// `d_x[j]` (Σ f(x[j], x[j + 1])), iteration `j` finishes `d_x[j + 1]`,
    /// which iteration `j + 1` began as its `d_x[j]`. So `d_x_next`, read
    /// once before the loop, holds `d_x[j + 1]`; each iteration reads
    /// `d_x[j]` once into `d_x_here`, adds into both registers, stores
    /// `d_x_next` and moves `d_x_here` into it; after the loop it is
    /// `d_x[0]`. One load and one store per iteration instead of two
    /// overlapping ones, which stall store-to-load forwarding; the sums are
    /// the same, bit for bit.
    fn carry(
        &mut self,
        windows: &[crate::analysis::windows::Window],
        planned: &[(TokenStream, Vec<(ValueId, TokenStream)>)],
        d_a: &syn::Ident,
        end: &TokenStream,
    ) -> Option<Carry> {
        use crate::analysis::windows::{At, Base};
        // Which window each is: `Some(false)` at `j`, `Some(true)` at `j + 1`.
        let shape = |w: &crate::analysis::windows::Window| {
            if w.start.is_some() || w.counter_out.is_some() {
                return None;
            }
            match &w.base {
                None if w.loads.iter().all(|(_, a)| matches!(a, At::Index)) => Some(false),
                Some(Base::Operand(o))
                    if o.is_int(1)
                        && w.loads
                            .iter()
                            .all(|(_, a)| matches!(a, At::Offset(_, x) if x.is_int(1))) =>
                {
                    Some(true)
                }
                _ => None,
            }
        };
        let [a, b] = windows else { return None };
        let next_window = match (shape(a)?, shape(b)?) {
            (false, true) => 1,
            (true, false) => 0,
            _ => return None,
        };
        let here_element = planned[1 - next_window].1.first()?.1.clone();
        let next_element = planned[next_window].1.first()?.1.clone();
        let base_name = d_a.to_string();
        let base_name = base_name.trim_start_matches("r#");
        let next = self.names.fresh(&format!("{base_name}_next"));
        let here = self.names.fresh(&format!("{base_name}_here"));
        Some(Carry {
            before: quote!(
                let mut #next = ::autodiff::runtime::differentiable::element_or_zero(&#d_a, #end);
            ),
            start: quote!(let mut #here = #here_element.get();),
            end: quote!(#next_element.set(#next); #next = #here;),
            after: quote!(::autodiff::runtime::differentiable::put_element(&mut #d_a, 0, #next);),
            next,
            here,
            next_window,
        })
    }

    /// One window as code: its declaration, taking the slice `[base..][..len]`
    /// of `source` (the array, a mutable adjoint, or an adjoint's cells), and
    /// for each load through it, the element. `None` where the sweep does
    /// not have what the window's start needs.
    pub(super) fn window(
        &mut self,
        w: &crate::analysis::windows::Window,
        source: &WindowSource,
        name: &str,
        end: &TokenStream,
        j: &syn::Ident,
    ) -> Option<(TokenStream, Vec<(ValueId, TokenStream)>)> {
        use crate::analysis::windows::At;
        let available = |b: &crate::analysis::windows::Base| {
            !b.leaves().iter().any(|v| self.unavailable.contains(v))
        };
        // The number of iterations: `end`, or the length of `start..end`.
        let len = match &w.start {
            None => end.clone(),
            Some(s) => {
                let s = self.operand(s, Position::Tight);
                quote!(::core::iter::ExactSizeIterator::len(&(#s..#end)))
            }
        };
        let mut decl = TokenStream::new();
        // A counter's window starts where the counter starts: from before
        // the loop where the sweep has it, else back from its value after
        // the loop.
        let base = match (&w.base, w.counter_out) {
            (Some(b), Some(out)) => {
                let start = self.names.fresh(&format!("{name}_start"));
                let from = if available(b) {
                    self.base(b, false)
                } else if !self.unavailable.contains(&out) {
                    let out = self.names.forward(out);
                    quote!(#out - #len)
                } else {
                    return None;
                };
                decl.extend(quote!(let #start = #from;));
                Some(start.into_token_stream())
            }
            (Some(b), None) if available(b) => Some(self.base(b, false)),
            (Some(_), None) => return None,
            (None, _) => None,
        };
        let win = self.names.fresh(name);
        decl.extend(match (source, &base) {
            (WindowSource::Shared(a), None) => quote!(let #win = &#a[..#len];),
            (WindowSource::Shared(a), Some(b)) => {
                quote!(let #win = &#a[::core::cmp::min(#b, #a.len())..][..#len];)
            }
            (WindowSource::Mutable(a), None) => quote!(let #win = &mut #a[..#len];),
            (WindowSource::Mutable(a), Some(b)) => {
                let n = self.names.fresh(&format!("{name}_len"));
                quote!(
                    let #n = #a.len();
                    let #win = &mut #a[::core::cmp::min(#b, #n)..][..#len];
                )
            }
        });
        let start = w.start.as_ref().map(|s| {
            let s = self.operand(s, Position::Tight);
            quote!(- #s)
        });
        let elements = w
            .loads
            .iter()
            .map(|(dst, at)| {
                let element = match at {
                    At::Index => quote!(#win[#j #start]),
                    At::Offset(iv, x) => {
                        let iv = self.names.forward(*iv);
                        let x = self.operand(x, Position::Tight);
                        quote!(#win[#iv - #x #start])
                    }
                    At::Counter(h) => {
                        let h = self.names.forward(*h);
                        quote!(#win[#h - #base])
                    }
                };
                (*dst, element)
            })
            .collect();
        Some((decl, elements))
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

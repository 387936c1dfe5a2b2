//! A branch in the forward sweep: each arm passes out its merges' values
//! and what the reverse sweep reads of what it defines (`Some(..)` where a
//! struct's slot has no placeholder), and the `if` or `match` that selects
//! the arm.

use std::collections::HashMap;

use super::*;

impl Emitter<'_> {
    /// A branch: each arm ends with the tuple of the branch's outputs (its
    /// merges, the values the reverse sweep reads from inside the arms, and
    /// for a `match` the index of the arm that ran).
    pub(super) fn branch(&mut self, br: &Branch) -> TokenStream {
        let modelled: Vec<&Merge> = br
            .merges
            .iter()
            .filter(|m| self.f.value(m.dst).kind != ValueKind::Opaque)
            .collect();
        // Per arm, what it defines that the reverse sweep reads.
        let mut own: Vec<Vec<ValueId>> = Vec::new();
        for arm in &br.arms {
            let mut here = arm.defines();
            // What stays inside the arm is out of the reverse sweep's reach:
            // no pullback reads it, and it gets a placeholder there.
            self.unavailable
                .extend(here.iter().filter(|v| !self.reverse_reads.contains(v)));
            here.retain(|v| self.reverse_reads.contains(v));
            own.push(here);
        }
        // Values of one name (the user's code binds both, one in each of
        // two arms: a struct built for a method in each) pass out as one:
        // each arm gives its own, and only the arm that ran reads it back.
        let exports = self.distinct_names(&own.concat());
        // Per arm, its own value of each name it passes out.
        let mine: Vec<HashMap<String, ValueId>> = own
            .iter()
            .map(|vs| {
                vs.iter()
                    .map(|v| (self.names.forward_str(*v).to_string(), *v))
                    .collect()
            })
            .collect();
        let arm_index = br.arm_index.filter(|v| self.reverse_reads.contains(v));
        // Passed out as `Some(..)`: what an arm of this branch defines at
        // its own top level and has no placeholder for. What a branch nested
        // in an arm passed out so is an `Option` already: it leaves as it is,
        // and the other arms give `None` for it.
        let wrapped_here: Vec<Vec<ValueId>> = self.f.arms_wrapped(&br.arms, &self.arm_exports);
        let wrapped = self.arm_exports.all.clone();
        let outer_hoisted = self.hoisted.take();
        let mut arms = Vec::new();
        for (i, arm) in br.arms.iter().enumerate() {
            let body = self.block(arm);
            // A value of a type that may not be `Copy` (a `Vec` field read
            // back from a call's struct) that the reverse sweep reads too
            // leaves as a copy: it is also passed out, or recorded.
            let mut outs: Vec<TokenStream> = modelled
                .iter()
                .map(|m| {
                    let o = self.operand(&m.arms[i], Position::Arg);
                    let copied = !m.arms[i].value().is_some_and(|v| {
                        let t = &self.f.value(v).ty;
                        !(t.is_float() || matches!(t, Ty::Int | Ty::Bool | Ty::Array(_)))
                            && self.reverse_reads.contains(&v)
                    });
                    match copied {
                        true => o,
                        false => quote!(::core::clone::Clone::clone(&#o)),
                    }
                })
                .collect();
            for v in &exports {
                let here = mine[i].get(self.names.forward_str(*v)).copied();
                let wraps = wrapped.contains(v) || here.is_some_and(|w| wrapped.contains(&w));
                outs.push(if wraps {
                    let name = self.names.forward(*v);
                    match here {
                        Some(w) if wrapped_here[i].contains(&w) => {
                            quote!(::core::option::Option::Some(#name))
                        }
                        Some(_) => name.into_token_stream(),
                        None => quote!(::core::option::Option::None),
                    }
                } else if here.is_some() {
                    self.names.forward(*v).into_token_stream()
                } else if let Some(z) = self.slot_placeholder(*v, &br.arms) {
                    z
                } else if let Some(z) = copy_placeholder(*v, &br.arms, self.names) {
                    z
                } else if self.f.value(*v).ty.is_float() {
                    zero(self.f)
                } else if let Some(a) = self.f.value(*v).ty.array() {
                    // Of the array's type (`Default` stops at 32 elements):
                    // never read, as only its own arm's reverse reads it.
                    let f = self.f;
                    let a = a.clone();
                    let z = zero(f);
                    match &a.shape {
                        Shape::Fixed(n) => {
                            let n: TokenStream = n.parse().unwrap_or_default();
                            quote!([#z; #n])
                        }
                        _ => quote!(::std::vec::Vec::new()),
                    }
                } else if let Some(z) = self.part_placeholder(*v, &br.arms) {
                    z
                } else {
                    quote!(::core::default::Default::default())
                });
            }
            if arm_index.is_some() {
                outs.push(quote!(#i));
            }
            if br.diverging[i] {
                // It panics: it has no outputs to give.
                outs.clear();
            }
            arms.push(arm_block(&body, &outs));
        }
        self.hoisted = outer_hoisted;
        let branch = self.select(&br.selector, &arms);
        let mut names: Vec<syn::Ident> =
            modelled.iter().map(|m| self.names.forward(m.dst)).collect();
        names.extend(exports.iter().map(|v| self.names.forward(*v)));
        names.extend(arm_index.map(|v| self.names.forward(v)));
        let target = match names.as_slice() {
            [] => return quote!(#branch),
            [one] => quote!(#one),
            many => quote!((#(#many),*)),
        };
        // A checkpoint's plain run records nothing: what the branch passes
        // out for the reverse sweep (its arm, say) may go unread.
        let allow = self.plain.then(|| quote!(#[allow(unused_variables)]));
        match &mut self.hoisted {
            Some(decls) => {
                decls.extend(names.iter().map(|n| quote!(#allow let #n;)));
                quote!(#target = #branch;)
            }
            None => quote!(#allow let #target = #branch;),
        }
    }

    /// `if cond { arms[0] } else { arms[1] }`, or the `match` with each
    /// pattern and guard as written, choosing among `arms`.
    pub(super) fn select(&self, selector: &Selector, arms: &[TokenStream]) -> TokenStream {
        match selector {
            Selector::If(cond) => {
                let cond = self.operand(cond, Position::Arg);
                let (then_arm, else_arm) = (&arms[0], &arms[1]);
                quote!(if #cond #then_arm else #else_arm)
            }
            Selector::Match {
                scrutinee,
                patterns,
                reads,
                lent,
            } => {
                let scrutinee = self.operand(scrutinee, Position::Arg);
                let scrutinee = if *lent {
                    quote!(*#scrutinee)
                } else {
                    scrutinee
                };
                let rebind = self.rebind(reads);
                let cases = patterns
                    .iter()
                    .zip(arms)
                    .map(|((pat, guard), arm)| match guard {
                        Some(g) if rebind.is_empty() => quote!(#pat if #g => #arm),
                        Some(g) => quote!(#pat if { #rebind #g } => #arm),
                        None => quote!(#pat => #arm),
                    });
                quote!(match #scrutinee { #(#cases)* })
            }
        }
    }
}

impl Emitter<'_> {
    /// A part of a value the branch did not make (`self.hip` of `this`,
    /// lent to its writer in one arm, trial 13 B1), passed out for the
    /// reverse sweep: the other arms give the same part, read again, as
    /// the value of its type they never use (its type need not be
    /// `Default`).
    fn part_placeholder(&self, v: ValueId, arms: &[Block]) -> Option<TokenStream> {
        let made: std::collections::HashSet<ValueId> =
            arms.iter().flat_map(|a| a.defined_anywhere()).collect();
        let mut found = None;
        let mut made_from = HashMap::new();
        for arm in arms {
            arm.walk(&mut |inst| {
                if let Inst::Def { dst, op, .. } = inst {
                    match op {
                        Op::Project { .. } if *dst == v => found = Some(op.clone()),
                        Op::Construct { base: Some(b), .. } | Op::Copy(Operand::Value(b)) => {
                            made_from.insert(*dst, *b);
                        }
                        _ => {}
                    }
                }
            });
        }
        let op = found?;
        let operands = op.operands();
        let Op::Project {
            mut base,
            path,
            by_ref,
        } = op
        else {
            return None;
        };
        // Its indices computed before the branch too (`p.w[k]`, not
        // `p.w[t40]` of an arm's `t40`).
        if operands.into_iter().any(|o| o != base && made.contains(&o)) {
            return None;
        }
        // Its base made in an arm (`this_1 = Self { hip, ..this }` after
        // a writer on one field, the next one's on another): the value it
        // was made from has the same type (a struct built on a base, a
        // copy).
        while made.contains(&base) {
            base = *made_from.get(&base)?;
        }
        Some(self.op(&Op::Project { base, path, by_ref }))
    }
}

/// For the arms that do not make `v`, a copy of a value from before the
/// branch that `v` copies where it is made (`best = c;` in an `if`, `c` a
/// call's struct): of `v`'s type, which need not be `Default`, and never
/// read, as only `v`'s own arm's reverse reads it.
fn copy_placeholder(
    v: ValueId,
    arms: &[Block],
    names: &super::names::Names,
) -> Option<TokenStream> {
    let src = arms.iter().find_map(|a| a.copy_source(v))?;
    if arms.iter().any(|a| a.defined_anywhere().contains(&src)) {
        return None;
    }
    let src = names.forward(src);
    Some(quote!(::core::clone::Clone::clone(&#src)))
}

//! The floats that code kept as written binds and rules read: which
//! values a rule reads as floats (`float_operands`), which values of a
//! type the source does not state a float method is called on
//! (`float_receivers`), and the names a pattern kept as written binds,
//! read as the floats they are or refer to (a `match` arm's, a `let`'s,
//! one inside a scope whose values are declared before it).

use super::*;

/// The values the rule of an active entry reads as float operands,
/// anywhere in `f`.
pub(super) fn float_operands(f: &Function, a: &Activity) -> std::collections::HashSet<ValueId> {
    let mut out = std::collections::HashSet::new();
    // What a value is copied from, or a loop variable starts from: a
    // float where the value is.
    let mut sources: Vec<(ValueId, ValueId)> = Vec::new();
    f.body.walk(&mut |inst| match inst {
        Inst::Def { op, dst, .. } => {
            if let Some((rule, args)) = ops::rule_of(op).filter(|_| a.is_active(*dst)) {
                for (a, kind) in args.iter().zip(rule.args) {
                    if *kind == crate::rules::Arg::Float {
                        out.extend(a.value());
                    }
                }
            }
            if let Op::Copy(Operand::Value(src)) = op {
                sources.push((*dst, *src));
            }
        }
        Inst::Loop(l) => {
            for c in &l.carried {
                sources.extend(c.init.value().map(|i| (c.header, i)));
            }
        }
        _ => {}
    });
    loop {
        let before = out.len();
        for (dst, src) in &sources {
            if out.contains(dst) {
                out.insert(*src);
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// The values of a type the source does not state (a struct's field, an
/// element of a slice of structs, a call's result) that an active float
/// method is called on (`r.d.abs()`): read through
/// `runtime::float::receiver`, which is the float itself, and for a
/// struct whose own method has a float method's name a compile error at
/// the value that says to state its type or call the method by its path
/// (the one error: the value's type is then rustc's error type, of which
/// nothing further is said).
pub(super) fn float_receivers(
    f: &Function,
    a: &Activity,
) -> std::collections::HashMap<ValueId, proc_macro2::Span> {
    // Values read out of something (not arithmetic's results, floats
    // whatever their operands' type).
    let mut read_out = std::collections::HashSet::new();
    let mut receivers = Vec::new();
    f.body.walk(&mut |inst| {
        if let Inst::Def { op, dst, .. } = inst {
            if matches!(
                op,
                Op::Field { .. } | Op::Project { .. } | Op::Opaque { .. } | Op::VjpCall { .. }
            ) {
                read_out.insert(*dst);
            }
            if let Op::Method {
                recv: Operand::Value(r),
                name,
                ..
            } = op
            {
                if a.is_active(*dst) && crate::rules::method(&name.to_string()).is_some() {
                    receivers.push((*r, name.span()));
                }
            }
        }
    });
    receivers
        .into_iter()
        .filter(|(r, _)| f.value(*r).ty == Ty::Unknown && read_out.contains(r))
        .collect()
}

impl Emitter<'_> {
    /// The name a pattern kept as written binds for `d`, and the name the
    /// generated code reads `d` by.
    fn bound_and_forward(&self, d: ValueId) -> Option<(syn::Ident, syn::Ident)> {
        let user = self.f.value(d).name.as_deref()?;
        Some((
            self.names.user(user, d, &self.f.values),
            self.names.forward(d),
        ))
    }

    /// A `match` pattern's bindings: bound by the pattern itself; a binding
    /// named apart takes the pattern's value (a float the reverse sweep
    /// reads). One that a rule reads is read as the float it is or refers
    /// to (`Some(c)` of an `&f64`, which match ergonomics binds by
    /// reference).
    pub(super) fn binding_reads(&self, defs: &[ValueId]) -> TokenStream {
        defs.iter()
            .filter(|d| self.names.renamed(**d) || self.float_operands.contains(*d))
            .filter_map(|d| {
                let (bound, fwd) = self.bound_and_forward(*d)?;
                Some(match self.float_operands.contains(d) {
                    true => quote!(let #fwd = ::autodiff::runtime::float::read(#bound);),
                    false => quote!(let #fwd = #bound;),
                })
            })
            .collect()
    }

    /// After a `let` kept as written, its names that a rule reads, read as
    /// the floats they are or refer to: `let (x, y) = &data[i];` of a `for
    /// (x, y) in data` loop over pairs binds `&f64`s (match ergonomics).
    /// Not a name bound `mut`, which the `let` lets code change.
    pub(super) fn let_floats_read(&self, kind: &VerbatimKind, defs: &[ValueId]) -> TokenStream {
        let VerbatimKind::Let(l) = kind else {
            return TokenStream::new();
        };
        let mutable = mutable_names(&l.pat);
        defs.iter()
            .filter(|d| self.float_operands.contains(*d))
            .filter(|d| {
                !self
                    .f
                    .value(**d)
                    .name
                    .as_ref()
                    .is_some_and(|n| mutable.contains(n))
            })
            .filter_map(|d| {
                let (bound, fwd) = self.bound_and_forward(*d)?;
                Some(quote!(let #fwd = ::autodiff::runtime::float::read(#bound);))
            })
            .collect()
    }

    /// Inside a scope whose values are declared before it (`hoisted`: a
    /// closure's body inlined in a chain, `|(x, y)| (a * x - y).abs()`),
    /// a `let` kept as written whose names are all floats a rule reads:
    /// its pattern bound in a block of its own and the floats assigned to
    /// names declared before the scope, `(x, y) = { let (x, y) =
    /// &data[k]; (read(x), read(y)) };`, so that what a loop records of
    /// them is at hand after the scope, as any other value of it is.
    pub(super) fn hoisted_let(
        &mut self,
        kind: &VerbatimKind,
        defs: &[ValueId],
        rebind: &TokenStream,
        reads: &Reads,
    ) -> Option<TokenStream> {
        let VerbatimKind::Let(l) = kind else {
            return None;
        };
        if self.hoisted.is_none()
            || defs.is_empty()
            || !mutable_names(&l.pat).is_empty()
            || !defs.iter().all(|d| self.float_operands.contains(d))
        {
            return None;
        }
        let mut names = Vec::new();
        let mut values = Vec::new();
        for d in defs {
            let (bound, fwd) = self.bound_and_forward(*d)?;
            names.push(fwd);
            values.push(quote!(::autodiff::runtime::float::read(#bound)));
        }
        let pat = &l.pat;
        let init = self.lent_vec_fields(&l.init.to_token_stream(), reads, false);
        let decls = self.hoisted.as_mut()?;
        for n in &names {
            decls.push(quote!(#[allow(unused_variables, unused_assignments)] let #n;));
        }
        Some(quote!((#(#names,)*) = { #rebind let #pat = #init; (#(#values,)*) };))
    }
}

/// The names a pattern binds with `mut`.
fn mutable_names(pat: &TokenStream) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    let mut after_mut = false;
    for t in pat.clone() {
        match t {
            proc_macro2::TokenTree::Group(g) => out.extend(mutable_names(&g.stream())),
            proc_macro2::TokenTree::Ident(i) if i == "mut" => {
                after_mut = true;
                continue;
            }
            proc_macro2::TokenTree::Ident(i) if after_mut => {
                out.insert(i.to_string());
            }
            _ => {}
        }
        after_mut = false;
    }
    out
}

//! A reference to one element of a local `Vec`, read through its fields,
//! as that element at an index bound once: `let last = &ps[ps.len() - 1];
//! last.x * last.y` is `let last_at = ps.len() - 1; ps[last_at].x *
//! ps[last_at].y`, which the split into one `Vec` per field (`super`)
//! reads as it reads `ps[i].x`. Only where every later use of the name is
//! a field read (`last.x`), nothing binds the name again, and no name the
//! index reads is assigned after it (the borrow keeps `ps` itself as it
//! is).
//!
//! A reference by `&mut` the same, where it may also be changed through:
//! `let b = &mut ps[k]; b.v += f; b.kick(f); push(b, f); *b = q;` is
//! `ps[b_at].v += f; ps[b_at].kick(f); push(&mut ps[b_at], f); ps[b_at] =
//! q;`, the forms `super` writes each element back after (the borrow keeps
//! every other use of `ps` out until its last use).

use syn::visit_mut::VisitMut;

use crate::desugar::internal::{
    binds, binds_inside, collect_idents, mentions, place_root, reads_outer, written_places,
    FreshNames,
};

/// `stmts` with each such reference as the element at its index.
pub(super) fn as_indices(stmts: &mut [syn::Stmt], names: &mut FreshNames) {
    let mut i = 0;
    while i < stmts.len() {
        if let Some((name, array, index, mutable)) = element_ref(&stmts[i]) {
            // Up to where the name is bound again (by a `let`, or inside a
            // statement: a `for` loop's or a closure's variable), and only
            // where nothing after reads this reference.
            let all = &stmts[i + 1..];
            let end = all
                .iter()
                .position(|s| binds(s, &name) || binds_inside(s, &name))
                .unwrap_or(all.len());
            let rest = &all[..end];
            let rebound = reads_outer(&all[end..], &name);
            let assigned = assigned_names(rest);
            let mut read = std::collections::HashSet::new();
            collect_idents(quote::ToTokens::to_token_stream(&index), &mut read);
            let index_fixed = read.iter().all(|n| !assigned.contains(n));
            let used = rest
                .iter()
                .any(|s| crate::desugar::internal::mentions(s, &name));
            let uses_fit = rest.iter().all(|s| match mutable {
                false => fields_only(s, &name),
                true => changed_only(s, &name),
            });
            if used && index_fixed && !rebound && uses_fit {
                let at = syn::Ident::new(&names.fresh(&format!("{name}_at")), name.span());
                stmts[i] = syn::parse_quote_spanned!(name.span()=> let #at = #index;);
                let mut replace = Replace {
                    name: &name,
                    with: syn::parse_quote_spanned!(name.span()=> #array[#at]),
                    mutable,
                };
                for s in &mut stmts[i + 1..i + 1 + end] {
                    replace.visit_stmt_mut(s);
                }
            }
        }
        i += 1;
    }
}

/// `let r = &v[index];` (or `&mut`): `r`, `v`, the index and whether it
/// is lent by `&mut`.
fn element_ref(s: &syn::Stmt) -> Option<(syn::Ident, syn::Ident, syn::Expr, bool)> {
    let l = crate::desugar::internal::plain_let(s, false)?;
    if l.mutable() {
        return None;
    }
    let syn::Expr::Reference(r) = l.init_bare() else {
        return None;
    };
    let mutable = r.mutability.is_some();
    let syn::Expr::Index(ix) = &*r.expr else {
        return None;
    };
    let syn::Expr::Path(p) = &*ix.expr else {
        return None;
    };
    let array = p.path.get_ident()?.clone();
    // Not a range: a sub-slice is `desugar/sub_slices.rs`'s.
    if matches!(&*ix.index, syn::Expr::Range(_)) {
        return None;
    }
    Some((l.name(), array, (*ix.index).clone(), mutable))
}

/// Whether `s` uses `name` only as `name.field`.
fn fields_only(s: &syn::Stmt, name: &syn::Ident) -> bool {
    use syn::visit::Visit;
    struct Uses<'n> {
        name: &'n syn::Ident,
        other: bool,
    }
    impl<'a> Visit<'a> for Uses<'_> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Field(f)
                    if matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident(self.name))
                        && matches!(f.member, syn::Member::Named(_)) => {}
                syn::Expr::Path(p) if p.path.is_ident(self.name) => self.other = true,
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            self.other |= mentions(&m.tokens, self.name);
        }
    }
    let mut u = Uses { name, other: false };
    u.visit_stmt(s);
    !u.other
}

/// Whether `s` uses `name`, an element lent by `&mut`, only in forms that
/// stay well typed as the element itself: its fields (`b.v`, read or
/// assigned), `*b`, a method called on it as a statement (`b.kick(f);`),
/// and passed whole to a call that is a statement (`kick(b, f);`).
fn changed_only(s: &syn::Stmt, name: &syn::Ident) -> bool {
    use syn::visit::Visit;
    struct Uses<'n> {
        name: &'n syn::Ident,
        other: bool,
    }
    let is_name =
        |e: &syn::Expr, name: &syn::Ident| matches!(e, syn::Expr::Path(p) if p.path.is_ident(name));
    impl<'a> Visit<'a> for Uses<'_> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            let named =
                |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.path.is_ident(self.name));
            match e {
                syn::Expr::Field(f)
                    if named(&f.base) && matches!(f.member, syn::Member::Named(_)) => {}
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && named(&u.expr) => {}
                syn::Expr::Path(p) if p.path.is_ident(self.name) => self.other = true,
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            self.other |= mentions(&m.tokens, self.name);
        }
    }
    let mut u = Uses { name, other: false };
    // The statement's own call: its receiver or an argument whole.
    match s {
        syn::Stmt::Expr(syn::Expr::MethodCall(m), Some(_)) if is_name(&m.receiver, name) => {
            m.args.iter().for_each(|a| u.visit_expr(a));
        }
        syn::Stmt::Expr(syn::Expr::Call(c), Some(_)) => {
            u.visit_expr(&c.func);
            for a in &c.args {
                if !is_name(a, name) {
                    u.visit_expr(a);
                }
            }
        }
        s => u.visit_stmt(s),
    }
    !u.other
}

/// The names `stmts` assign or lend by `&mut` anywhere (`i = ..`, `i +=
/// ..`).
fn assigned_names(stmts: &[syn::Stmt]) -> std::collections::HashSet<String> {
    written_places(stmts, true)
        .iter()
        .filter_map(place_root)
        .collect()
}

/// `name` as `with` (in `name.field`; lent by `&mut`, also `*name` and a
/// method's receiver as `with`, `name` whole as `&mut with`).
struct Replace<'a> {
    name: &'a syn::Ident,
    with: syn::Expr,
    mutable: bool,
}

impl VisitMut for Replace<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        let named = |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.path.is_ident(self.name));
        match e {
            syn::Expr::Field(f) if named(&f.base) => {
                *f.base = self.with.clone();
                return;
            }
            syn::Expr::MethodCall(m) if self.mutable && named(&m.receiver) => {
                *m.receiver = self.with.clone();
            }
            syn::Expr::Unary(u)
                if self.mutable && matches!(u.op, syn::UnOp::Deref(_)) && named(&u.expr) =>
            {
                *e = self.with.clone();
                return;
            }
            _ if self.mutable && named(e) => {
                let with = &self.with;
                *e = syn::parse_quote_spanned!(syn::spanned::Spanned::span(&*e)=> &mut #with);
                return;
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

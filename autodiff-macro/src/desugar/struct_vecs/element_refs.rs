//! A reference to one element of a local `Vec`, read through its fields,
//! as that element at an index bound once: `let last = &ps[ps.len() - 1];
//! last.x * last.y` is `let last_at = ps.len() - 1; ps[last_at].x *
//! ps[last_at].y`, which the split into one `Vec` per field (`super`)
//! reads as it reads `ps[i].x`. Only where every later use of the name is
//! a field read (`last.x`), nothing binds the name again, and no name the
//! index reads is assigned after it (the borrow keeps `ps` itself as it
//! is).

use syn::visit_mut::VisitMut;

use crate::desugar::internal::{
    binds, collect_idents, mentions, place_root, written_places, FreshNames,
};

/// `stmts` with each such reference as the element at its index.
pub(super) fn as_indices(stmts: &mut [syn::Stmt], names: &mut FreshNames) {
    let mut i = 0;
    while i < stmts.len() {
        if let Some((name, array, index)) = element_ref(&stmts[i]) {
            let rest = &stmts[i + 1..];
            let assigned = assigned_names(rest);
            let mut read = std::collections::HashSet::new();
            collect_idents(quote::ToTokens::to_token_stream(&index), &mut read);
            let index_fixed = read.iter().all(|n| !assigned.contains(n));
            let rebound = rest.iter().any(|s| binds(s, &name));
            let used = rest
                .iter()
                .any(|s| crate::desugar::internal::mentions(s, &name));
            if used && index_fixed && !rebound && rest.iter().all(|s| fields_only(s, &name)) {
                let at = syn::Ident::new(&names.fresh(&format!("{name}_at")), name.span());
                stmts[i] = syn::parse_quote_spanned!(name.span()=> let #at = #index;);
                let mut replace = Replace {
                    name: &name,
                    with: syn::parse_quote_spanned!(name.span()=> #array[#at]),
                };
                for s in &mut stmts[i + 1..] {
                    replace.visit_stmt_mut(s);
                }
            }
        }
        i += 1;
    }
}

/// `let r = &v[index];`: `r`, `v` and the index.
fn element_ref(s: &syn::Stmt) -> Option<(syn::Ident, syn::Ident, syn::Expr)> {
    let l = crate::desugar::internal::plain_let(s, false)?;
    if l.mutable() {
        return None;
    }
    let syn::Expr::Reference(r) = l.init_bare() else {
        return None;
    };
    if r.mutability.is_some() {
        return None;
    }
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
    Some((l.name(), array, (*ix.index).clone()))
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

/// The names `stmts` assign or lend by `&mut` anywhere (`i = ..`, `i +=
/// ..`).
fn assigned_names(stmts: &[syn::Stmt]) -> std::collections::HashSet<String> {
    written_places(stmts, true)
        .iter()
        .filter_map(place_root)
        .collect()
}

/// `name` as `with` (in `name.field`).
struct Replace<'a> {
    name: &'a syn::Ident,
    with: syn::Expr,
}

impl VisitMut for Replace<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Field(f) = e {
            if matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident(self.name)) {
                *f.base = self.with.clone();
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

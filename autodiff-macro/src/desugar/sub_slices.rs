//! A named sub-slice of an array, `let tail = &xs[1..];` (`&xs[a..b]`,
//! `&xs[..n]`, `&xs[a..=b]`), read through the array it views: `tail[j]`
//! as `xs[start + j]`, `tail.len()`, `tail.iter()` and `for x in tail` as
//! chains over its elements, `tail` given to a call as the sub-slice
//! (`desugar/iterators/bind.rs`, as a window's name). Its bounds are
//! computed once, where the `let` is, and checked as Rust checks them
//! (`runtime::range::sub_len`). While `tail` lives, rustc lets nothing
//! change `xs`. A name used otherwise is left as written.

use syn::visit_mut::VisitMut;

use crate::desugar::internal::{binds, mentions, plain_let, FreshNames};

/// `item` with its named sub-slices read through their arrays.
pub fn named(mut item: syn::ItemFn) -> syn::ItemFn {
    let mut n = Named {
        names: FreshNames::of(&item),
    };
    n.visit_block_mut(&mut item.block);
    item
}

struct Named {
    names: FreshNames,
}

/// `let name = &array[range];`: the name, the array and the range.
fn sub_slice_let(stmt: &syn::Stmt) -> Option<(syn::Ident, syn::Expr, syn::ExprRange)> {
    let l = plain_let(stmt, false)?;
    let syn::Expr::Reference(r) = l.init else {
        return None;
    };
    let syn::Expr::Index(ix) = &*r.expr else {
        return None;
    };
    let syn::Expr::Range(range) = &*ix.index else {
        return None;
    };
    let plain_array = matches!(&*ix.expr, syn::Expr::Path(p) if p.path.get_ident().is_some())
        || matches!(&*ix.expr, syn::Expr::Field(_));
    if r.mutability.is_some() || !plain_array {
        return None;
    }
    Some((l.name(), (*ix.expr).clone(), range.clone()))
}

/// `for x in tail` (or `&tail`) as `for x in tail.iter()`, the form the
/// name's chain reads.
struct LoopsOver<'n>(&'n syn::Ident);

impl VisitMut for LoopsOver<'_> {
    fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
        let is_name = |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.path.is_ident(self.0));
        let over = match &*f.expr {
            syn::Expr::Reference(r) if r.mutability.is_none() && is_name(&r.expr) => true,
            e => is_name(e),
        };
        if over {
            let name = self.0;
            *f.expr = syn::parse_quote!(#name.iter());
        }
        syn::visit_mut::visit_expr_for_loop_mut(self, f);
    }
}

impl VisitMut for Named {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, b);
        let mut i = 0;
        while i < b.stmts.len() {
            let Some((name, array, range)) = sub_slice_let(&b.stmts[i]) else {
                i += 1;
                continue;
            };
            let rest = &b.stmts[i + 1..];
            let end = rest
                .iter()
                .position(|s| binds(s, &name))
                .unwrap_or(rest.len());
            if rest.get(end).is_some_and(|s| mentions(s, &name)) {
                i += 1;
                continue;
            }
            let start_var =
                syn::Ident::new(&self.names.fresh(&format!("{name}_start")), name.span());
            let len_var = syn::Ident::new(&self.names.fresh(&format!("{name}_len")), name.span());
            let mut uses: Vec<syn::Stmt> = rest[..end].to_vec();
            for s in &mut uses {
                LoopsOver(&name).visit_stmt_mut(s);
            }
            let start_e: syn::Expr = syn::parse_quote!(#start_var);
            let len_e: syn::Expr = syn::parse_quote!(#len_var);
            let Some(rewritten) = crate::desugar::iterators::through_sub_slice(
                &uses, &name, &array, &start_e, &len_e,
            ) else {
                i += 1;
                continue;
            };
            let start = match &range.start {
                Some(s) => quote::quote!((#s)),
                None => quote::quote!(0),
            };
            let rt = quote::quote!(::autodiff::runtime::range);
            let len = match (&range.end, &range.limits) {
                (Some(e), syn::RangeLimits::HalfOpen(_)) => {
                    quote::quote!(#rt::sub_len(#start_var, (#e), #array.len()))
                }
                (Some(e), syn::RangeLimits::Closed(_)) => {
                    quote::quote!(#rt::sub_len(#start_var, (#e) + 1, #array.len()))
                }
                (None, _) => quote::quote!(#rt::sub_len_from(#start_var, #array.len())),
            };
            let mut out: Vec<syn::Stmt> = vec![
                syn::parse_quote!(let #start_var: usize = #start;),
                syn::parse_quote!(let #len_var: usize = #len;),
            ];
            // Past the bounds only: the statements after may bind named
            // sub-slices of their own.
            let added = out.len();
            out.extend(rewritten);
            out.extend(rest[end..].iter().cloned());
            b.stmts.truncate(i);
            b.stmts.extend(out);
            i += added;
        }
    }
}

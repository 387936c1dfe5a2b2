//! `v.extend_from_slice(s);` of a local `Vec` as the pushes it stands
//! for, `for &item in s { v.push(item); }` (trial 10 r683): the lowering
//! follows a `Vec` filled by `push` anywhere, and a `for` over a slice,
//! so a state vector assembled from parts (`v.extend_from_slice(&pos);
//! v.extend_from_slice(&vel);`) is differentiated element by element,
//! with no rule of its own. Only in the body the macro lowers: the
//! function is kept as written.

use syn::visit_mut::VisitMut;

/// `item` with each `v.extend_from_slice(s);` statement, `v` a name, as
/// a loop of pushes.
pub fn as_pushes(mut item: syn::ItemFn) -> syn::ItemFn {
    let params = item
        .sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(t) => match (&*t.pat, elements(&t.ty)) {
                (syn::Pat::Ident(i), Some(e)) => Some((i.ident.to_string(), e.clone())),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    AsPushes { params }.visit_block_mut(&mut item.block);
    item
}

/// The element type of a slice, array or `Vec` type (`&[T]`, `[f64; 3]`,
/// `&Vec<f64>`).
fn elements(ty: &syn::Type) -> Option<&syn::Type> {
    match ty {
        syn::Type::Reference(r) => elements(&r.elem),
        syn::Type::Slice(s) => Some(&s.elem),
        syn::Type::Array(a) => Some(&a.elem),
        syn::Type::Path(_) => crate::ir::vec_elem(ty),
        _ => None,
    }
}

/// The element types of the parameters that are slices, arrays or `Vec`s,
/// by name: an untyped copy of a sub-slice of one gets its type.
struct AsPushes {
    params: std::collections::HashMap<String, syn::Type>,
}

/// `let v = xs[a..b].to_vec();` (`.to_owned()`, typed or not): the name
/// and type it binds and the sub-slice it copies.
fn sub_slice_copy(s: &syn::Stmt) -> Option<(&syn::PatIdent, Option<&syn::Type>, &syn::Expr)> {
    let syn::Stmt::Local(l) = s else { return None };
    let (pat, ty) = match &l.pat {
        syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
        other => (other, None),
    };
    let (syn::Pat::Ident(name), Some(init)) = (pat, &l.init) else {
        return None;
    };
    if name.by_ref.is_some() || name.subpat.is_some() || init.diverge.is_some() {
        return None;
    }
    let syn::Expr::MethodCall(m) = &*init.expr else {
        return None;
    };
    let copies = matches!(m.method.to_string().as_str(), "to_vec" | "to_owned");
    let sliced =
        matches!(&*m.receiver, syn::Expr::Index(ix) if matches!(&*ix.index, syn::Expr::Range(_)));
    (copies && sliced && m.args.is_empty()).then_some((name, ty, &*m.receiver))
}

impl VisitMut for AsPushes {
    // `let a = xs[..2].to_vec();` (trial 12 r1097): an empty `Vec` and
    // `a.extend_from_slice(&xs[..2]);`, pushes below.
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mut stmts = Vec::with_capacity(b.stmts.len());
        for s in std::mem::take(&mut b.stmts) {
            match sub_slice_copy(&s) {
                Some((name, ty, slice)) => {
                    let v = &name.ident;
                    // Untyped, of a parameter: `Vec` of its elements (a
                    // `Vec` filled by `push` states its type).
                    let root = match slice {
                        syn::Expr::Index(ix) => match &*ix.expr {
                            syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                            _ => None,
                        },
                        _ => None,
                    };
                    let ty = match (ty, root.and_then(|r| self.params.get(&r))) {
                        (Some(t), _) => quote::quote!(: #t),
                        (None, Some(e)) => quote::quote!(: ::std::vec::Vec<#e>),
                        (None, None) => {
                            stmts.push(s);
                            continue;
                        }
                    };
                    stmts.push(syn::parse_quote!(let mut #v #ty = ::std::vec::Vec::new();));
                    stmts.push(syn::parse_quote!(#v.extend_from_slice(&#slice);));
                }
                None => stmts.push(s),
            }
        }
        b.stmts = stmts;
        syn::visit_mut::visit_block_mut(self, b);
    }

    fn visit_stmt_mut(&mut self, s: &mut syn::Stmt) {
        syn::visit_mut::visit_stmt_mut(self, s);
        let syn::Stmt::Expr(syn::Expr::MethodCall(m), Some(_)) = s else {
            return;
        };
        let (syn::Expr::Path(v), Some(slice), 1) = (&*m.receiver, m.args.first(), m.args.len())
        else {
            return;
        };
        let Some(v) = v.path.get_ident().filter(|_| v.qself.is_none()) else {
            return;
        };
        if m.method != "extend_from_slice" {
            return;
        }
        // A name of the loop's own, apart from the `Vec`'s: the body is
        // the push alone, so nothing else of the user's is in its scope.
        let item = match v == "__autodiff_item" {
            true => quote::format_ident!("__autodiff_item_", span = m.method.span()),
            false => quote::format_ident!("__autodiff_item", span = m.method.span()),
        };
        let push = syn::Ident::new("push", m.method.span());
        *s = syn::parse_quote_spanned! {m.method.span()=>
            for &#item in #slice {
                #v.#push(#item);
            }
        };
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}

    // A closure's body is its own: a `Vec` it fills is the closure's.
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::{quote, ToTokens};

    #[test]
    fn extend_from_slice_is_a_loop_of_pushes() {
        let f: syn::ItemFn = syn::parse2(quote!(
            fn f(a: &[f64], b: &[f64; 2]) -> f64 {
                let mut v = Vec::new();
                v.extend_from_slice(a);
                v.extend_from_slice(&b[..1]);
                v.extend_from_slice(a).len();
                v[0]
            }
        ))
        .unwrap();
        let want = quote!({
            let mut v = Vec::new();
            for &__autodiff_item in a {
                v.push(__autodiff_item);
            }
            for &__autodiff_item in &b[..1] {
                v.push(__autodiff_item);
            }
            v.extend_from_slice(a).len();
            v[0]
        });
        assert_eq!(
            as_pushes(f).block.to_token_stream().to_string(),
            want.to_string()
        );
    }
}

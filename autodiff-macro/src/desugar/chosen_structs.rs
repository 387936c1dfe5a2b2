//! A struct chosen by a branch whose every arm ends in a literal of it,
//! `let s = if c { P { x: a, v: b } } else { P { x: e, v: d } };` (a
//! `match`, an `else if` chain, arms with statements before the literal),
//! as the tuple of its fields chosen, then the literal of them: `let
//! (s_x, s_v) = if c { (a, b) } else { (e, d) }; let s = P { x: s_x, v:
//! s_v };`, which `local_structs.rs` splits as any struct built by a
//! literal. The same for an assignment, `s = if c { .. } else { .. };`
//! (its arms read the old `s`, all before the new one is assigned). A
//! branch with an arm that ends otherwise (a `return`, a variable, a
//! call) is left as written.

use syn::visit_mut::VisitMut;

use crate::desugar::internal::FreshNames;

/// `item` with its structs chosen by branches as tuples of their fields.
pub fn as_fields(mut item: syn::ItemFn) -> syn::ItemFn {
    let mut c = Chosen {
        names: FreshNames::of(&item),
    };
    c.visit_block_mut(&mut item.block);
    item
}

struct Chosen {
    names: FreshNames,
}

/// The struct's path and its fields, in the first literal's order.
struct Shape {
    path: syn::Path,
    fields: Vec<syn::Ident>,
}

impl VisitMut for Chosen {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, b);
        let mut out = Vec::with_capacity(b.stmts.len());
        for s in std::mem::take(&mut b.stmts) {
            match self.chosen(&s) {
                Some(stmts) => out.extend(stmts),
                None => out.push(s),
            }
        }
        b.stmts = out;
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Chosen {
    /// `let name = <branch>;` or `name = <branch>;` as the two statements
    /// of [`as_fields`].
    fn chosen(&mut self, s: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
        let (name, branch, declared) = match s {
            syn::Stmt::Local(l) if l.attrs.is_empty() => {
                let syn::Pat::Ident(p) = &l.pat else {
                    return None;
                };
                let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
                (p.clone(), &*init.expr, true)
            }
            syn::Stmt::Expr(syn::Expr::Assign(a), Some(_)) if a.attrs.is_empty() => {
                let syn::Expr::Path(p) = &*a.left else {
                    return None;
                };
                let ident = p.path.get_ident()?.clone();
                let pat = syn::PatIdent {
                    attrs: Vec::new(),
                    by_ref: None,
                    mutability: None,
                    ident,
                    subpat: None,
                };
                (pat, &*a.right, false)
            }
            _ => return None,
        };
        if name.by_ref.is_some() || name.subpat.is_some() {
            return None;
        }
        if !matches!(branch, syn::Expr::If(_) | syn::Expr::Match(_)) {
            return None;
        }
        let mut shape = None;
        let mut tuple = branch.clone();
        if !as_tuple(&mut tuple, &mut shape, &mut self.names) {
            return None;
        }
        let Shape { path, fields } = shape?;
        let ident = &name.ident;
        let vars: Vec<syn::Ident> = fields
            .iter()
            .map(|f| syn::Ident::new(&self.names.fresh(&format!("{ident}_{f}")), f.span()))
            .collect();
        let chosen: syn::Stmt = syn::parse_quote!(let (#(#vars),*) = #tuple;);
        let built: syn::Expr = syn::parse_quote!(#path { #(#fields: #vars),* });
        let whole: syn::Stmt = match declared {
            true => syn::parse_quote!(let #name = #built;),
            false => syn::parse_quote!(#ident = #built;),
        };
        Some(vec![chosen, whole])
    }
}

/// `e`, a branch, with each arm's tail literal as the tuple of its fields
/// in `shape`'s order (the first literal's); `false` where an arm ends in
/// anything else, or in a literal of another struct or other fields. A
/// literal that names its fields in another order has them evaluated in
/// its own first, as Rust does, each bound to a name of `names`.
fn as_tuple(e: &mut syn::Expr, shape: &mut Option<Shape>, names: &mut FreshNames) -> bool {
    match e {
        syn::Expr::Paren(p) => as_tuple(&mut p.expr, shape, names),
        syn::Expr::Block(b) if b.label.is_none() => block_tail(&mut b.block, shape, names),
        syn::Expr::If(i) => {
            let Some((_, other)) = &mut i.else_branch else {
                return false;
            };
            block_tail(&mut i.then_branch, shape, names) && as_tuple(other, shape, names)
        }
        syn::Expr::Match(m) => {
            !m.arms.is_empty()
                && m.arms
                    .iter_mut()
                    .all(|a| as_tuple(&mut a.body, shape, names))
        }
        syn::Expr::Struct(s) => {
            if s.rest.is_some() || s.qself.is_some() || s.fields.is_empty() {
                return false;
            }
            let mut given = Vec::new();
            for f in &s.fields {
                let syn::Member::Named(n) = &f.member else {
                    return false;
                };
                given.push((n.clone(), f.expr.clone()));
            }
            let shape = shape.get_or_insert_with(|| Shape {
                path: s.path.clone(),
                fields: given.iter().map(|(n, _)| n.clone()).collect(),
            });
            if shape.path != s.path || shape.fields.len() != given.len() {
                return false;
            }
            if shape
                .fields
                .iter()
                .any(|f| !given.iter().any(|(n, _)| n == f))
            {
                return false;
            }
            let in_order = given.iter().map(|(n, _)| n).eq(shape.fields.iter());
            if in_order {
                let values = given.iter().map(|(_, v)| v);
                *e = syn::parse_quote!((#(#values),*));
                return true;
            }
            // `P { v: t, x: a }` of the shape `(x, v)`: `{ let v = t; let
            // x = a; (x, v) }`, `t` evaluated first as written.
            let bound: Vec<(syn::Ident, syn::Ident, syn::Expr)> = given
                .into_iter()
                .map(|(n, v)| {
                    let t = syn::Ident::new(&names.fresh(&format!("field_{n}")), n.span());
                    (n, t, v)
                })
                .collect();
            let lets = bound.iter().map(|(_, t, v)| quote::quote!(let #t = #v;));
            let values = shape
                .fields
                .iter()
                .filter_map(|f| bound.iter().find(|(n, _, _)| n == f).map(|(_, t, _)| t));
            *e = syn::parse_quote!({ #(#lets)* (#(#values),*) });
            true
        }
        _ => false,
    }
}

/// The tail of `b`, as in [`as_tuple`].
fn block_tail(b: &mut syn::Block, shape: &mut Option<Shape>, names: &mut FreshNames) -> bool {
    match b.stmts.last_mut() {
        Some(syn::Stmt::Expr(tail, None)) => as_tuple(tail, shape, names),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    fn chosen(src: &str) -> String {
        super::as_fields(syn::parse_str(src).unwrap())
            .block
            .to_token_stream()
            .to_string()
    }

    #[test]
    fn a_struct_chosen_by_a_branch_is_its_fields_chosen() {
        assert_eq!(
            chosen("fn f() { let s = if c { P { x: a, v: b } } else { let t = 1.0; P { v: t, x: a } }; }"),
            "{ let (s_x , s_v) = if c { (a , b) } else { let t = 1.0 ; { let field_v = t ; let field_x = a ; (field_x , field_v) } } ; let s = P { x : s_x , v : s_v } ; }"
        );
        assert_eq!(
            chosen("fn f() { s = match k { 0 => P { x: s.v, v: s.x }, _ => P { x: 1.0, v: s.v } }; }"),
            "{ let (s_x , s_v) = match k { 0 => (s . v , s . x) , _ => (1.0 , s . v) } ; s = P { x : s_x , v : s_v } ; }"
        );
        // An arm that ends otherwise, another struct, a field left to a
        // base: as written.
        for src in [
            "fn f() { let s = if c { P { x: a, v: b } } else { q }; }",
            "fn f() { let s = if c { P { x: a, v: b } } else { Q { x: a, v: b } }; }",
            "fn f() { let s = if c { P { x: a, v: b } } else { P { x: a, ..q } }; }",
            "fn f() { let s = if c { P { x: a, v: b } }; }",
        ] {
            let item: syn::ItemFn = syn::parse_str(src).unwrap();
            assert_eq!(chosen(src), item.block.to_token_stream().to_string());
        }
    }
}

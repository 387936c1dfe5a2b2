//! A call's array result that the function then changes in place: `let
//! mut d: [f64; 3] = sub(a, b); d[0] += k;` or `scale(&mut d, k);`. The
//! result of a call is read in parts through the callee's `_vjp`
//! (`lower/vector_calls.rs`); an array the function writes is a local
//! array the macro models element by element. So the result is bound
//! under a name of its own, and the variable is a local array filled from
//! it:
//!
//! ```text
//! let d_result: [f64; 3] = sub(a, b);
//! let mut d: [f64; 3] = [0.0_f64; 3];
//! for k in 0..d_result.len() { d[k] = d_result[k]; }
//! ```
//!
//! (`vec![..; d_result.len()]` for a `Vec`). Only where the `let` states
//! the array's type: an untyped one may be an array or a `Vec`.
//!
//! So is a call's array result the function returns by name (`let out =
//! layer(&h); out`, the type the function's own where the `let` states
//! none) or as its last expression (`layer(&h)`, bound under a name of
//! its own first): a function returning an array ends with a local array.

use syn::visit::Visit;
use syn::visit_mut::VisitMut;

use crate::desugar::internal::{binds, FreshNames};

/// `item` with every typed call result it changes in place copied into a
/// local array first.
pub fn copied(mut item: syn::ItemFn) -> syn::ItemFn {
    let generic = crate::desugar::generic::generic_param(&item.sig);
    let output = match &item.sig.output {
        syn::ReturnType::Type(_, t)
            if matches!(&**t, syn::Type::Array(_)) || crate::ir::vec_elem(t).is_some() =>
        {
            Some((**t).clone())
        }
        _ => None,
    };
    let mut c = Copies {
        names: FreshNames::of(&item),
        generic,
        output,
    };
    c.returned_call(&mut item.block);
    c.visit_block_mut(&mut item.block);
    item
}

struct Copies {
    names: FreshNames,
    /// The function's float type parameter, for the zero of `T`.
    generic: Option<String>,
    /// The function's array type, where it returns one.
    output: Option<syn::Type>,
}

impl VisitMut for Copies {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, b);
        self.copied_at_tail(b);
        let mut out = Vec::with_capacity(b.stmts.len());
        let stmts = std::mem::take(&mut b.stmts);
        for (i, s) in stmts.iter().enumerate() {
            match self.copy(s, &stmts[i + 1..]) {
                Some(copy) => out.extend(copy),
                None => out.push(s.clone()),
            }
        }
        b.stmts = out;
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Copies {
    /// A function returning an array that ends with a call, `layer(&h)`:
    /// the call bound first, `let out = layer(&h); out`, then copied as
    /// any returned call's result.
    fn returned_call(&mut self, b: &mut syn::Block) {
        if self.output.is_none() {
            return;
        }
        let Some(syn::Stmt::Expr(e, None)) = b.stmts.last() else {
            return;
        };
        if !user_call(e) {
            return;
        }
        let span = syn::spanned::Spanned::span(e);
        let out = syn::Ident::new(&self.names.fresh("returned"), span);
        let e = e.clone();
        b.stmts.pop();
        b.stmts
            .push(syn::parse_quote_spanned!(span=> let #out = #e;));
        b.stmts.push(syn::Stmt::Expr(syn::parse_quote!(#out), None));
    }

    /// A returned `Vec` bound without a type to a call's result and then
    /// replaced whole (`let mut a = dense(x); for .. { a = dense(&a); }
    /// a`, over layers of different widths): copied where it is returned,
    /// `let returned: Vec<f64> = a.to_vec(); returned`, instead of where it
    /// is bound, so that `a` stays a call's value, whose length may change
    /// from one assignment to the next (a local array keeps its length).
    fn copied_at_tail(&mut self, b: &mut syn::Block) {
        let Some(ty) = self.output.clone() else {
            return;
        };
        if crate::ir::vec_elem(&ty).is_none() {
            return;
        }
        let Some(syn::Stmt::Expr(syn::Expr::Path(p), None)) = b.stmts.last() else {
            return;
        };
        let Some(name) = p.path.get_ident().cloned() else {
            return;
        };
        let Some(at) = b.stmts.iter().rposition(|s| binds(s, &name)) else {
            return;
        };
        let syn::Stmt::Local(l) = &b.stmts[at] else {
            return;
        };
        let untyped_call = matches!(&l.pat, syn::Pat::Ident(pi)
            if pi.by_ref.is_none() && pi.subpat.is_none() && pi.mutability.is_some())
            && l.init
                .as_ref()
                .is_some_and(|i| i.diverge.is_none() && user_call(&i.expr));
        let rest = &b.stmts[at + 1..];
        let replaced = rest.iter().any(|s| assigned_whole(s, &name));
        let changed = rest.iter().any(|s| changed_in_place(s, &name));
        if !untyped_call || !replaced || changed {
            return;
        }
        let span = name.span();
        let out = syn::Ident::new(&self.names.fresh("returned"), span);
        b.stmts.pop();
        b.stmts
            .push(syn::parse_quote_spanned!(span=> let #out: #ty = #name.to_vec();));
        b.stmts.push(syn::Stmt::Expr(
            syn::parse_quote_spanned!(span=> #out),
            None,
        ));
    }

    /// `let mut d: [X; N] = call(..);` (or `Vec<X>`) that `rest` changes
    /// in place, or that the block returns by name, as the three
    /// statements above.
    fn copy(&mut self, s: &syn::Stmt, rest: &[syn::Stmt]) -> Option<Vec<syn::Stmt>> {
        let syn::Stmt::Local(l) = s else {
            return None;
        };
        // Returned by name with nothing between that binds it again.
        let returned = |name: &syn::Ident| {
            matches!(rest.last(), Some(syn::Stmt::Expr(syn::Expr::Path(p), None))
                if p.qself.is_none() && p.path.is_ident(name))
                && !rest.iter().any(|s| binds(s, name))
        };
        let (pi, ty) = match &l.pat {
            syn::Pat::Type(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) => (pi, (*pt.ty).clone()),
                _ => return None,
            },
            // Untyped, returned: the function's own array type.
            syn::Pat::Ident(pi) if returned(&pi.ident) => (pi, self.output.clone()?),
            _ => return None,
        };
        let init = l.init.as_ref()?;
        let call = user_call(&init.expr);
        if pi.by_ref.is_some() || init.diverge.is_some() || !call {
            return None;
        }
        let name = &pi.ident;
        let until = rest
            .iter()
            .position(|s| binds(s, name))
            .unwrap_or(rest.len());
        let changed =
            pi.mutability.is_some() && rest[..until].iter().any(|s| changed_in_place(s, name));
        let kept_returned = self.output.is_some() && returned(name);
        if !(changed || kept_returned) {
            return None;
        }
        let ty = &ty;
        let (elem, len) = match ty {
            syn::Type::Array(a) => (&*a.elem, Some(&a.len)),
            syn::Type::Path(_) => (crate::ir::vec_elem(ty)?, None),
            _ => return None,
        };
        let zero = self.zero(elem)?;
        let span = name.span();
        let result = syn::Ident::new(&self.names.fresh(&format!("{name}_result")), span);
        let k = syn::Ident::new(&self.names.fresh("k"), span);
        let value = &init.expr;
        let attrs = &l.attrs;
        let result_let = syn::parse_quote_spanned!(span=> let #result: #ty = #value;);
        let Some(n) = len else {
            // A `Vec`: its copy, a local array already.
            return Some(vec![
                result_let,
                syn::parse_quote_spanned!(span=> #(#attrs)* let mut #name: #ty = #result.to_vec();),
            ]);
        };
        Some(vec![
            result_let,
            syn::parse_quote_spanned!(span=> #(#attrs)* let mut #name: #ty = [#zero; #n];),
            syn::parse_quote_spanned!(span=> for #k in 0..#result.len() { #name[#k] = #result[#k]; }),
        ])
    }

    /// The zero of a float element type: `0.0_f64`, `0.0_f32`, or `T`'s;
    /// `None` for another type.
    fn zero(&self, elem: &syn::Type) -> Option<syn::Expr> {
        let syn::Type::Path(p) = elem else {
            return None;
        };
        let ident = p.path.get_ident()?;
        match ident.to_string().as_str() {
            "f64" => Some(syn::parse_quote!(0.0_f64)),
            "f32" => Some(syn::parse_quote!(0.0_f32)),
            t if self.generic.as_deref() == Some(t) => {
                Some(syn::parse_quote!(<#ident as ::autodiff::Float>::from_f64(0.0)))
            }
            _ => None,
        }
    }
}

/// A call of a function or method of the user's (`sub(a, b)`,
/// `p.step(dt)`), not a constructor of `std`'s (`Vec::new()`) nor a copy
/// (`xs.to_vec()`), which are local arrays already.
fn user_call(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(p) if p.qself.is_none()
            && matches!(crate::rules::resolve(&p.path), crate::rules::Callee::Function)
            && !crate::rules::is_std_path(&p.path)),
        syn::Expr::MethodCall(m) => crate::rules::maybe_users_method(&m.method.to_string()),
        _ => false,
    }
}

/// Whether `s` assigns `name` whole (`name = ..`), at any depth.
fn assigned_whole(s: &syn::Stmt, name: &syn::Ident) -> bool {
    struct Find<'n> {
        name: &'n syn::Ident,
        found: bool,
    }
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
            self.found |= matches!(&*a.left, syn::Expr::Path(p)
                if p.qself.is_none() && p.path.is_ident(self.name));
            syn::visit::visit_expr_assign(self, a);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut f = Find { name, found: false };
    f.visit_stmt(s);
    f.found
}

/// Whether `s` writes an element of `name` (`name[i] = ..`, `name[i] +=
/// ..`) or lends it by `&mut`.
fn changed_in_place(s: &syn::Stmt, name: &syn::Ident) -> bool {
    struct Find<'n> {
        name: &'n syn::Ident,
        found: bool,
    }
    impl Find<'_> {
        fn rooted(&self, e: &syn::Expr) -> bool {
            match e {
                syn::Expr::Index(i) => self.rooted(&i.expr),
                syn::Expr::Paren(p) => self.rooted(&p.expr),
                syn::Expr::Path(p) => p.qself.is_none() && p.path.is_ident(self.name),
                _ => false,
            }
        }
    }
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Assign(a) if matches!(&*a.left, syn::Expr::Index(_)) => {
                    self.found |= self.rooted(&a.left);
                }
                syn::Expr::Binary(b)
                    if crate::desugar::is_compound_assign(&b.op)
                        && matches!(&*b.left, syn::Expr::Index(_)) =>
                {
                    self.found |= self.rooted(&b.left);
                }
                syn::Expr::Reference(r) if r.mutability.is_some() => {
                    self.found |= self.rooted(&r.expr);
                }
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut f = Find { name, found: false };
    f.visit_stmt(s);
    f.found
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    #[test]
    fn a_typed_result_changed_in_place_is_copied_into_a_local_array() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn f(a: [f64; 3], b: [f64; 3], k: f64) -> f64 {
                let mut d: [f64; 3] = sub(a, b);
                d[0] += k;
                let mut u: Vec<f64> = step(&d);
                scale(&mut u, k);
                let e: [f64; 3] = sub(a, b);
                norm(d) + u[0] + e[1]
            }
        };
        let out = super::copied(item).block.to_token_stream().to_string();
        assert!(
            out.contains("let d_result : [f64 ; 3] = sub (a , b) ;"),
            "{out}"
        );
        assert!(
            out.contains("let mut d : [f64 ; 3] = [0.0_f64 ; 3] ;"),
            "{out}"
        );
        assert!(
            out.contains("for k_1 in 0 .. d_result . len () { d [k_1] = d_result [k_1] ; }"),
            "{out}"
        );
        assert!(
            out.contains("let mut u : Vec < f64 > = u_result . to_vec () ;"),
            "{out}"
        );
        // Read only: left as it is.
        assert!(out.contains("let e : [f64 ; 3] = sub (a , b) ;"), "{out}");
    }

    #[test]
    fn a_returned_result_replaced_whole_is_copied_where_it_is_returned() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn f(x: &[f64], n: usize) -> Vec<f64> {
                let mut h = layer(x);
                for _ in 0..n {
                    h = layer(&h);
                }
                h
            }
        };
        let out = super::copied(item).block.to_token_stream().to_string();
        let expected: syn::Block = syn::parse_quote!({
            let mut h = layer(x);
            for _ in 0..n {
                h = layer(&h);
            }
            let returned: Vec<f64> = h.to_vec();
            returned
        });
        assert_eq!(out, expected.to_token_stream().to_string());
    }

    #[test]
    fn a_returned_result_is_copied_into_a_local_array() {
        // Returned by name, untyped: the function's type.
        let item: syn::ItemFn = syn::parse_quote! {
            fn f(x: &[f64]) -> Vec<f64> {
                let h = layer(x);
                let out = layer(&h);
                out
            }
        };
        let out = super::copied(item).block.to_token_stream().to_string();
        assert!(
            out.contains("let out_result : Vec < f64 > = layer (& h) ; let mut out : Vec < f64 > = out_result . to_vec () ; out"),
            "{out}"
        );
        // Read only and not returned: left as it is.
        assert!(out.contains("let h = layer (x) ;"), "{out}");
        // Ending with the call: bound under a name of its own first.
        let item: syn::ItemFn = syn::parse_quote! {
            fn g(a: f64) -> [f64; 2] {
                pair(a * 3.0)
            }
        };
        let out = super::copied(item).block.to_token_stream().to_string();
        assert!(
            out.contains("let returned_result : [f64 ; 2] = pair (a * 3.0) ; let mut returned : [f64 ; 2] = [0.0_f64 ; 2] ;"),
            "{out}"
        );
        // A function returning a float is left as it is.
        let item: syn::ItemFn = syn::parse_quote! {
            fn h(a: f64) -> f64 {
                g(a)
            }
        };
        let out = super::copied(item).block.to_token_stream().to_string();
        assert_eq!(out, "{ g (a) }");
    }
}

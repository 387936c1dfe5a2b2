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

use syn::visit::Visit;
use syn::visit_mut::VisitMut;

use crate::desugar::internal::{binds, FreshNames};

/// `item` with every typed call result it changes in place copied into a
/// local array first.
pub fn copied(mut item: syn::ItemFn) -> syn::ItemFn {
    let generic = crate::desugar::generic::generic_param(&item.sig);
    let mut c = Copies {
        names: FreshNames::of(&item),
        generic,
    };
    c.visit_block_mut(&mut item.block);
    item
}

struct Copies {
    names: FreshNames,
    /// The function's float type parameter, for the zero of `T`.
    generic: Option<String>,
}

impl VisitMut for Copies {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, b);
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
    /// `let mut d: [X; N] = call(..);` (or `Vec<X>`) that `rest` changes
    /// in place, as the three statements above.
    fn copy(&mut self, s: &syn::Stmt, rest: &[syn::Stmt]) -> Option<Vec<syn::Stmt>> {
        let syn::Stmt::Local(l) = s else {
            return None;
        };
        let syn::Pat::Type(pt) = &l.pat else {
            return None;
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            return None;
        };
        let init = l.init.as_ref()?;
        // A function or method of the user's (`sub(a, b)`, `p.step(dt)`),
        // not a constructor of `std`'s (`Vec::new()`) nor a copy
        // (`xs.to_vec()`), which are local arrays already.
        let call = match &*init.expr {
            syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(p) if p.qself.is_none()
            && matches!(crate::rules::resolve(&p.path), crate::rules::Callee::Function)
            && !crate::rules::is_std_path(&p.path)),
            syn::Expr::MethodCall(m) => crate::rules::maybe_users_method(&m.method.to_string()),
            _ => false,
        };
        if pi.mutability.is_none() || pi.by_ref.is_some() || init.diverge.is_some() || !call {
            return None;
        }
        let name = &pi.ident;
        let until = rest
            .iter()
            .position(|s| binds(s, name))
            .unwrap_or(rest.len());
        if !rest[..until].iter().any(|s| changed_in_place(s, name)) {
            return None;
        }
        let ty = &*pt.ty;
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
        let fresh: syn::Expr = match len {
            Some(n) => syn::parse_quote!([#zero; #n]),
            None => syn::parse_quote!(vec![#zero; #result.len()]),
        };
        Some(vec![
            syn::parse_quote_spanned!(span=> let #result: #ty = #value;),
            syn::parse_quote_spanned!(span=> #(#attrs)* let mut #name: #ty = #fresh;),
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
            out.contains("let mut u : Vec < f64 > = vec ! [0.0_f64 ; u_result . len ()] ;"),
            "{out}"
        );
        // Read only: left as it is.
        assert!(out.contains("let e : [f64 ; 3] = sub (a , b) ;"), "{out}");
    }
}

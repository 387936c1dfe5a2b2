//! Generic float functions: `fn f<T: autodiff::Float>(x: T) -> T`.
//!
//! Float literals in the body of a generic function would not have the type
//! `T`: the function as written and its gradient both read them as
//! `<T as autodiff::Float>::from_f64(literal)`, so users write `2.0`, not
//! `T::from(2.0).unwrap()`.

use syn::visit_mut::VisitMut;

/// `item` with its unsuffixed float literals converted to its float type
/// parameter, if it has one; unchanged otherwise.
pub fn with_float_literals(mut item: syn::ItemFn) -> syn::ItemFn {
    let Some(t) =
        generic_param(&item.sig).map(|n| syn::Ident::new(&n, proc_macro2::Span::call_site()))
    else {
        return item;
    };
    struct Literals(syn::Ident);
    impl VisitMut for Literals {
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Float(f),
                ..
            }) = e
            {
                if f.suffix().is_empty() {
                    let t = &self.0;
                    *e = syn::parse_quote!(<#t as ::autodiff::Float>::from_f64(#f));
                    return;
                }
            }
            // `T::from_f64(2.0)`: the argument is an `f64` already.
            if let syn::Expr::Call(c) = e {
                if let syn::Expr::Path(p) = &*c.func {
                    let last = p.path.segments.last().map(|s| s.ident.to_string());
                    if last.as_deref() == Some("from_f64") {
                        return;
                    }
                }
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
        fn visit_macro_mut(&mut self, _: &mut syn::Macro) {
            // Macro arguments are left as written.
        }
    }
    Literals(t).visit_block_mut(&mut item.block);
    item
}

/// The float type parameter of a generic function, if any: the type
/// parameter bounded by `Float` (`autodiff::Float`, or `Float` imported),
/// in its list or in the `where` clause.
pub fn generic_param(sig: &syn::Signature) -> Option<String> {
    let is_float_bound = |b: &syn::TypeParamBound| matches!(b, syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| s.ident == "Float"));
    let bounded_in_where = |t: &syn::TypeParam| {
        sig.generics.where_clause.as_ref().is_some_and(|w| {
            w.predicates.iter().any(|p| match p {
                syn::WherePredicate::Type(pt) => {
                    matches!(&pt.bounded_ty, syn::Type::Path(tp) if tp.path.is_ident(&t.ident))
                        && pt.bounds.iter().any(is_float_bound)
                }
                _ => false,
            })
        })
    };
    let own = sig
        .generics
        .type_params()
        .find(|t| t.bounds.iter().any(is_float_bound) || bounded_in_where(t))
        .map(|t| t.ident.to_string());
    // A type parameter of the `impl`, its bound restated on the method
    // (`fn eval(&self, x: T) -> T where T: autodiff::Float`).
    own.or_else(|| {
        sig.generics
            .where_clause
            .as_ref()?
            .predicates
            .iter()
            .find_map(|p| match p {
                syn::WherePredicate::Type(pt) if pt.bounds.iter().any(is_float_bound) => {
                    match &pt.bounded_ty {
                        syn::Type::Path(tp) if tp.qself.is_none() => {
                            tp.path.get_ident().map(|i| i.to_string())
                        }
                        _ => None,
                    }
                }
                _ => None,
            })
    })
}

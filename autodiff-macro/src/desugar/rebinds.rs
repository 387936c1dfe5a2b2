//! A variable bound again to itself, `let s = s;` (a struct frozen after a
//! writer changed it, a float no longer to change): the same value under
//! the same name, which the lowering reads as it read the variable before.
//! The statement is left out of the body the macro lowers (the function
//! kept as written keeps it), so that a local struct split into its fields
//! (`desugar/local_structs.rs`) goes on as the same fields instead of
//! being used whole.
//!
//! Only the binding that takes away `mut` goes: `let mut s = s;` would
//! make a variable the lowering must see as changeable.
//!
//! So does a function bound to a name only called after it, `let g = sq;
//! .. g(a) ..` (`sq` bound by no pattern of the function: a function, not
//! a local): the calls name `sq` itself, so that a `#[grad]` function is
//! called through its generated functions.

use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// `item` without its `let x = x;` statements, and its calls through
/// `let g = f;` made to `f`.
pub fn dropped(mut item: syn::ItemFn) -> syn::ItemFn {
    let mut bound = Bound::default();
    bound.visit_item_fn(&item);
    Rebinds { bound: bound.0 }.visit_block_mut(&mut item.block);
    item
}

struct Rebinds {
    /// Every name a pattern of the function binds.
    bound: std::collections::HashSet<syn::Ident>,
}

impl VisitMut for Rebinds {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        b.stmts.retain(|s| !rebinds_itself(s));
        let mut i = 0;
        while i < b.stmts.len() {
            if let Some((alias, function)) = function_alias(&b.stmts[i]) {
                if !self.bound.contains(function) {
                    if let Some(rest) = called_as(&b.stmts[i + 1..], alias, function) {
                        b.stmts.splice(i.., rest);
                        continue;
                    }
                }
            }
            i += 1;
        }
        syn::visit_mut::visit_block_mut(self, b);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `(x, y)` of `let x = y;`: a plain name bound, without `mut`, a type or
/// attributes, to a plain name (`y` may be `x`).
fn name_bound_to_name(s: &syn::Stmt) -> Option<(&syn::Ident, &syn::Ident)> {
    let syn::Stmt::Local(l) = s else {
        return None;
    };
    let (syn::Pat::Ident(p), Some(init)) = (&l.pat, &l.init) else {
        return None;
    };
    let plain = l.attrs.is_empty()
        && p.by_ref.is_none()
        && p.mutability.is_none()
        && p.subpat.is_none()
        && init.diverge.is_none();
    let syn::Expr::Path(e) = &*init.expr else {
        return None;
    };
    let y = e
        .path
        .get_ident()
        .filter(|_| e.qself.is_none() && e.attrs.is_empty())?;
    plain.then_some((&p.ident, y))
}

/// `(g, f)` of `let g = f;`, `f` another name.
fn function_alias(s: &syn::Stmt) -> Option<(&syn::Ident, &syn::Ident)> {
    name_bound_to_name(s).filter(|(g, f)| g != f)
}

/// `rest` with the free occurrences of `alias` renamed `function`, where
/// each occurrence of `alias` is a call's callee (`g(a)`) and no macro
/// names it.
fn called_as(
    rest: &[syn::Stmt],
    alias: &syn::Ident,
    function: &syn::Ident,
) -> Option<Vec<syn::Stmt>> {
    #[derive(Default)]
    struct Uses<'a> {
        alias: Option<&'a syn::Ident>,
        all: usize,
        called: usize,
    }
    impl<'a> Visit<'a> for Uses<'_> {
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if self.alias.is_some_and(|a| p.path.is_ident(a)) {
                self.all += 1;
            }
        }
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if matches!(&*c.func, syn::Expr::Path(p) if self.alias.is_some_and(|a| p.path.is_ident(a)))
            {
                self.called += 1;
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    let block = crate::desugar::block_expr(rest.to_vec(), None);
    let mut uses = Uses {
        alias: Some(alias),
        ..Default::default()
    };
    uses.visit_expr(&block);
    if uses.all == 0 || uses.all != uses.called {
        return None;
    }
    match crate::desugar::iterators::rename_free(&block, alias, function)? {
        syn::Expr::Block(b) => Some(b.block.stmts),
        _ => None,
    }
}

/// Every name a pattern of the function binds (its parameters', its
/// `let`s', closures', loops' and arms').
#[derive(Default)]
struct Bound(std::collections::HashSet<syn::Ident>);

impl<'a> Visit<'a> for Bound {
    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        self.0.insert(p.ident.clone());
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_item(&mut self, _: &'a syn::Item) {}
}

/// Whether `s` is `let x = x;`, without `mut`, a type or attributes.
fn rebinds_itself(s: &syn::Stmt) -> bool {
    name_bound_to_name(s).is_some_and(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    fn body(src: &str) -> String {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        super::dropped(item).block.to_token_stream().to_string()
    }

    #[test]
    fn a_function_bound_to_a_name_only_called_is_called_by_its_own() {
        let got = body("fn f(a: f64) -> f64 { let g = sq; let y = g(a) + g(2.0 * a); y }");
        assert_eq!(got, "{ let y = sq (a) + sq (2.0 * a) ; y }");
        // Renamed where the name is free only.
        let got =
            body("fn f(a: f64) -> f64 { let g = sq; let t = g(a); let g = |x: f64| x; g(t) }");
        assert_eq!(got, "{ let t = sq (a) ; let g = | x : f64 | x ; g (t) }");
        // Kept: `sq` a local, `g` used otherwise than called, in a macro,
        // or `mut`.
        for src in [
            "fn f(a: f64) -> f64 { let sq = |x: f64| x * x; let g = sq; g(a) }",
            "fn f(a: f64) -> f64 { let g = sq; apply(g, a) }",
            "fn f(a: f64) -> f64 { let g = sq; m!(g); g(a) }",
            "fn f(a: f64) -> f64 { let mut g = sq; g = cube; g(a) }",
            "fn f(sq: f64) -> f64 { let g = sq; g }",
        ] {
            let item: syn::ItemFn = syn::parse_str(src).unwrap();
            let kept = item.block.to_token_stream().to_string();
            assert_eq!(body(src), kept, "{src}");
        }
    }

    #[test]
    fn only_a_plain_rebinding_to_itself_goes() {
        let got = body("fn f() { let mut s = a; s.go(); let s = s; let t = s; let mut u = u; let v: S = v; { let w = w; } }");
        assert_eq!(
            got,
            "{ let mut s = a ; s . go () ; let t = s ; let mut u = u ; let v : S = v ; { } }"
        );
    }
}

//! A `loop` that ends the function and leaves only by `return`, `loop {
//! if i >= n { return x; } x = step(x); i += 1; }`, as the loop that yields
//! the value: each `return v` of it is `break v`, the loop the function's
//! tail (`desugar/loop_value.rs` takes it from there). The same function:
//! the loop is its last statement, so leaving the loop with a value is
//! leaving the function with it. Not where the loop has a label or a
//! `break` of its own (its value would then be `()`), or a `return` inside
//! an inner loop, where `break` would leave that loop instead.

use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// `item` with its tail `loop`'s returns as breaks, where it has one.
pub fn as_breaks(mut item: syn::ItemFn) -> syn::ItemFn {
    // A fallible function's returns are read as they are
    // (`desugar/fallible.rs`).
    if let syn::ReturnType::Type(_, t) = &item.sig.output {
        if crate::desugar::fallible::wrapper(t).is_some() {
            return item;
        }
    }
    let Some(last) = item.block.stmts.last_mut() else {
        return item;
    };
    let syn::Stmt::Expr(syn::Expr::Loop(l), semi) = last else {
        return item;
    };
    if l.label.is_some() || !convertible(&l.body) {
        return item;
    }
    Breaks.visit_block_mut(&mut l.body);
    *semi = None;
    item
}

/// Whether every `return` of `body` is of the loop itself (not inside an
/// inner loop or a closure), at least one is, and no `break` leaves it.
fn convertible(body: &syn::Block) -> bool {
    #[derive(Default)]
    struct Find {
        depth: usize,
        returns: usize,
        blocked: bool,
    }
    impl<'a> Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Closure(_) => {}
                syn::Expr::Return(_) if self.depth > 0 => self.blocked = true,
                syn::Expr::Return(r) => {
                    self.returns += 1;
                    syn::visit::visit_expr_return(self, r);
                }
                syn::Expr::Break(b) if self.depth == 0 || b.label.is_some() => self.blocked = true,
                syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_) => {
                    self.depth += 1;
                    syn::visit::visit_expr(self, e);
                    self.depth -= 1;
                }
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut f = Find::default();
    f.visit_block(body);
    f.returns > 0 && !f.blocked
}

/// `return v` as `break v` (not inside a closure: checked above that no
/// inner loop holds one).
struct Breaks;

impl VisitMut for Breaks {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Closure(_) => {}
            syn::Expr::Return(r) => {
                if let Some(v) = &mut r.expr {
                    self.visit_expr_mut(v);
                }
                *e = syn::Expr::Break(syn::ExprBreak {
                    attrs: r.attrs.clone(),
                    break_token: syn::Token![break](r.return_token.span),
                    label: None,
                    expr: r.expr.take(),
                });
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    #[test]
    fn a_tail_loop_that_only_returns_breaks_with_the_value() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn f(x: f64, n: usize) -> f64 {
                let mut x = x;
                let mut i = 0;
                loop {
                    if i >= n { return x; }
                    for _ in 0..2 { x = x * 0.5; }
                    x = x * 0.9;
                    i += 1;
                }
            }
        };
        let text = as_breaks(item).block.to_token_stream().to_string();
        assert!(text.contains("if i >= n { break x ; }"), "{text}");
        // A `return` inside an inner loop, or a `break` of the loop's own:
        // as written.
        for body in [
            quote::quote!({
                loop {
                    for _ in 0..2 {
                        return x;
                    }
                }
            }),
            quote::quote!({
                loop {
                    if x > 1.0 {
                        break;
                    }
                    return x;
                }
            }),
        ] {
            let item: syn::ItemFn = syn::parse2(quote::quote!(fn f(x: f64) -> f64 #body)).unwrap();
            let text = as_breaks(item.clone()).block.to_token_stream().to_string();
            assert_eq!(text, item.block.to_token_stream().to_string());
        }
    }
}

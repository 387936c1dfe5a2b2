//! Values that nothing reads, as the statements they stand for: the arms
//! of an `if` or a `match` whose value is dropped (a statement with `;`,
//! one followed by others, or the last one of a loop's body), each ending
//! in a call, `{ r.turn(w) }` and `0 => r.turn(w),`, become `{ r.turn(w);
//! }`. A method that changes a struct (`&mut self`) is then a statement
//! of its own, which the lowering differentiates through the method's
//! `#[grad]` (`lower/struct_writers.rs`), as it would had the user written
//! the `;`.
//!
//! Where the `if` or `match` is a statement with `;`, whose arms may all be
//! of another type (`if c { 1.0 } else { 2.0 };`), its arms change
//! together, or none: an arm ending in a value of another kind (`{ 1.0 }`,
//! `println!(..)`, whose type the macro hides) leaves the whole as
//! written. Where its type is `()` whatever its arms (the last of a
//! loop's body, one without `;` followed by other statements), each arm
//! ending in a call changes on its own.

use syn::visit_mut::VisitMut;

/// `item` with the dropped values of its body as statements (the body's
/// own last one too where the function returns `()`).
pub fn as_statements(mut item: syn::ItemFn) -> syn::ItemFn {
    let unit = matches!(item.sig.output, syn::ReturnType::Default);
    Dropped { loop_body: unit }.visit_block_mut(&mut item.block);
    item
}

struct Dropped {
    /// The next block visited is a loop's body, whose value is `()`.
    loop_body: bool,
}

impl VisitMut for Dropped {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let loop_body = std::mem::take(&mut self.loop_body);
        let last = b.stmts.len().saturating_sub(1);
        for (i, s) in b.stmts.iter_mut().enumerate() {
            if let syn::Stmt::Expr(e, semi) = s {
                // Without `;`, before another statement or at the end of a
                // loop's body, its type is `()`.
                let unit = semi.is_none() && (i < last || loop_body);
                if semi.is_some() || unit {
                    drop_value(e, unit);
                }
            }
            self.visit_stmt_mut(s);
        }
    }

    fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
        self.visit_expr_mut(&mut f.expr);
        self.loop_body = true;
        self.visit_block_mut(&mut f.body);
    }

    fn visit_expr_while_mut(&mut self, w: &mut syn::ExprWhile) {
        self.visit_expr_mut(&mut w.cond);
        self.loop_body = true;
        self.visit_block_mut(&mut w.body);
    }

    fn visit_expr_loop_mut(&mut self, l: &mut syn::ExprLoop) {
        self.loop_body = true;
        self.visit_block_mut(&mut l.body);
    }

    // A closure's body is its value.
    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        self.loop_body = false;
        syn::visit_mut::visit_expr_closure_mut(self, c);
    }
}

/// Makes the arms of `e` (an `if`, a `match`, a block) end in statements
/// where every arm can, or, where `e`'s type is `()` whatever its arms
/// (`unit`: a loop's body ends in it, or a statement without `;` follows
/// it), each arm that ends in a call: returns whether `e` is now of type
/// `()`.
fn drop_value(e: &mut syn::Expr, unit: bool) -> bool {
    if !unit && !droppable(e) {
        return false;
    }
    match e {
        syn::Expr::If(x) => {
            drop_tail(&mut x.then_branch, unit);
            if let Some((_, other)) = &mut x.else_branch {
                drop_value(other, unit);
            }
        }
        syn::Expr::Match(m) => {
            for arm in &mut m.arms {
                match &mut *arm.body {
                    syn::Expr::Block(b) if b.label.is_none() => drop_tail(&mut b.block, unit),
                    body if ends_in_call(body) => {
                        let inner = body.clone();
                        *body = syn::parse_quote!({ #inner; });
                        arm.comma.get_or_insert_with(Default::default);
                    }
                    body => {
                        drop_value(body, unit);
                    }
                }
            }
        }
        syn::Expr::Block(b) if b.label.is_none() => drop_tail(&mut b.block, unit),
        _ => {}
    }
    true
}

/// Whether every arm of `e` ends in a call, an arm that drops its own
/// value in turn, or no value at all.
fn droppable(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::If(x) => {
            block_droppable(&x.then_branch)
                && x.else_branch
                    .as_ref()
                    .map_or(true, |(_, other)| droppable(other))
        }
        syn::Expr::Match(m) => {
            m.arms
                .iter()
                .any(|a| ends_in_call(&a.body) || has_call_tail(&a.body))
                && m.arms
                    .iter()
                    .all(|a| ends_in_call(&a.body) || droppable(&a.body))
        }
        syn::Expr::Block(b) if b.label.is_none() => block_droppable(&b.block),
        syn::Expr::Tuple(t) => t.elems.is_empty(),
        // Of type `()` or `!` already (a `for` or `while` loop too: an
        // arm `{ for _ in 0..k { b.drift(); } }` beside `b.push(f),`).
        syn::Expr::Assign(_)
        | syn::Expr::ForLoop(_)
        | syn::Expr::While(_)
        | syn::Expr::Break(_)
        | syn::Expr::Continue(_)
        | syn::Expr::Return(_) => true,
        syn::Expr::Binary(b) => super::is_compound_assign(&b.op),
        _ => false,
    }
}

fn block_droppable(b: &syn::Block) -> bool {
    match b.stmts.last() {
        Some(syn::Stmt::Expr(e, None)) => ends_in_call(e) || droppable(e),
        _ => true,
    }
}

/// Whether some arm inside `e` ends in a call (there is something to
/// change).
fn has_call_tail(e: &syn::Expr) -> bool {
    let block = |b: &syn::Block| matches!(b.stmts.last(), Some(syn::Stmt::Expr(t, None)) if ends_in_call(t) || has_call_tail(t));
    match e {
        syn::Expr::Block(b) => block(&b.block),
        syn::Expr::If(x) => {
            block(&x.then_branch)
                || x.else_branch
                    .as_ref()
                    .is_some_and(|(_, o)| has_call_tail(o))
        }
        syn::Expr::Match(m) => m
            .arms
            .iter()
            .any(|a| ends_in_call(&a.body) || has_call_tail(&a.body)),
        _ => false,
    }
}

/// A call or a method call: something done, whose value may be `()`.
fn ends_in_call(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Call(_) | syn::Expr::MethodCall(_))
}

/// The block's last expression as a statement (`{ ..; r.turn(w) }` as
/// `{ ..; r.turn(w); }`), after its own arms are.
fn drop_tail(b: &mut syn::Block, unit: bool) {
    if let Some(syn::Stmt::Expr(e, semi @ None)) = b.stmts.last_mut() {
        if ends_in_call(e) {
            *semi = Some(Default::default());
        } else {
            drop_value(e, unit);
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    fn body(src: &str) -> String {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        super::as_statements(item)
            .block
            .to_token_stream()
            .to_string()
    }

    #[test]
    fn arms_ending_in_calls_whose_value_is_dropped() {
        // The last expression of a loop's body, a `match` of calls and `{}`.
        let got = body("fn f() -> f64 { for c in cs { match c { A => r.go(x), B => {} } } r.x }");
        assert!(got.contains("A => { r . go (x) ; }"), "{got}");
        // An `if` followed by another statement.
        let got = body("fn f() -> f64 { if c { r.go(x) } else { r.go(y) } r.x }");
        assert!(
            got.contains("{ r . go (x) ; } else { r . go (y) ; }"),
            "{got}"
        );
        // An arm ending in a loop is of type `()` already.
        let got = body(
            "fn f() -> f64 { for c in cs { match c { A => r.go(x), B(k) => { for _ in 0..k { r.on(); } } } } r.x }",
        );
        assert!(got.contains("A => { r . go (x) ; }"), "{got}");
        let got = body("fn f() -> f64 { for k in ks { if k > 0 { r.go(x) } else { while r.x > 0.0 { r.on(); } } } r.x }");
        assert!(got.contains("{ r . go (x) ; } else"), "{got}");
        // Where the type is `()`, an arm ending in a call changes beside one
        // that ends in a macro.
        let got = body("fn f() -> f64 { for c in cs { match c { A => r.go(x), B => { r.on(); println!(\"b\") } } } r.x }");
        assert!(got.contains("A => { r . go (x) ; }"), "{got}");
        // With `;`, the arms change together or not at all.
        let got = body("fn f() -> f64 { match c { A => r.go(x), B => println!(\"b\") }; r.x }");
        assert!(got.contains("A => r . go (x)"), "{got}");
        // The body of a function returning `()`.
        let got = body("fn f(r: &mut R) { if c { r.go(x) } else { r.go(y) } }");
        assert!(got.contains("r . go (y) ;"), "{got}");
    }

    #[test]
    fn values_that_are_read_are_kept() {
        // The block's value is the function's.
        let src = "fn f() -> f64 { if c { r.e(x) } else { r.e(y) } }";
        assert_eq!(body(src), body_unchanged(src));
        // An arm of another kind: all arms stay.
        let src = "fn f() -> f64 { for c in cs { let _ = 1; if c { r.e(x) } else { 1.0 }; } 0.0 }";
        assert_eq!(body(src), body_unchanged(src));
        // A `let`'s value.
        let src = "fn f() -> f64 { let v = match c { A => r.e(x), _ => r.e(y) }; v }";
        assert_eq!(body(src), body_unchanged(src));
    }

    fn body_unchanged(src: &str) -> String {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        item.block.to_token_stream().to_string()
    }
}

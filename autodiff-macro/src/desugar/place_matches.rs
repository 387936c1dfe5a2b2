//! A `match` or an `if let` on a place of an enum that may not be `Copy`,
//! `match ops[i] { Op::Scale(c) => v * c, .. }`, `if let Mode::Fixed(k) =
//! cfg.mode { .. }`, as the same on a reference to it, `match &ops[i] {
//! .. }`: Rust matches a place without moving it, but the lowering binds
//! the scrutinee to a variable first, which would move a non-`Copy` value
//! out of its slice or struct. Through the reference, match ergonomics
//! binds the variants' fields by reference, which the lowering reads as
//! the values they are.
//!
//! Only where every pattern is a variant's (`Op::Scale(c)`, `Op::Halt`,
//! `Op::Move { dx, .. }`, or `_`, and `|` of those), with no `ref`, `mut`
//! or `&` in it (their meaning changes through a reference), and the
//! scrutinee is a place: an element, a field or what a reference points at
//! (`*op`), which the reference borrows for the `match` alone.

use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// `item` with its matches on places of enums made on references to them.
pub fn by_reference(mut item: syn::ItemFn) -> syn::ItemFn {
    Places.visit_block_mut(&mut item.block);
    item
}

struct Places;

impl VisitMut for Places {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        match e {
            syn::Expr::Match(m) if place(&m.expr) && m.arms.iter().all(|a| variant(&a.pat)) => {
                lend(&mut m.expr)
            }
            syn::Expr::Let(l) if place(&l.expr) && variant(&l.pat) => lend(&mut l.expr),
            _ => {}
        }
    }

    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        syn::visit_mut::visit_local_mut(self, l);
        // `let Op::Scale(c) = ops[i] else { .. };`
        if let Some(init) = &mut l.init {
            if init.diverge.is_some() && place(&init.expr) && variant(&l.pat) {
                lend(&mut init.expr);
            }
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

fn lend(e: &mut syn::Expr) {
    let place = e.clone();
    *e = syn::parse_quote_spanned!(syn::spanned::Spanned::span(&place)=> &#place);
}

/// An element, a field or what a reference points at (`ops[i]`,
/// `cfg.mode`, `self.ops[k].kind`, `*op`).
fn place(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Index(ix) => matches!(
            &*ix.expr,
            syn::Expr::Path(_) | syn::Expr::Field(_) | syn::Expr::Index(_)
        ),
        syn::Expr::Field(f) => matches!(
            &*f.base,
            syn::Expr::Path(_) | syn::Expr::Field(_) | syn::Expr::Index(_)
        ),
        // `*op` of a reference.
        syn::Expr::Unary(u) => {
            matches!(u.op, syn::UnOp::Deref(_))
                && matches!(&*u.expr, syn::Expr::Path(_) | syn::Expr::Field(_))
        }
        syn::Expr::Paren(p) => place(&p.expr),
        _ => false,
    }
}

/// A variant's pattern (a path of two segments or more, `Op::Scale(c)`)
/// or `_`, or `|` of those, binding plain names only.
fn variant(p: &syn::Pat) -> bool {
    let path = |path: &syn::Path| path.segments.len() >= 2;
    let shape = match p {
        syn::Pat::TupleStruct(t) => path(&t.path),
        syn::Pat::Struct(s) => path(&s.path),
        syn::Pat::Path(q) => path(&q.path),
        syn::Pat::Wild(_) => true,
        syn::Pat::Or(o) => o.cases.iter().all(variant),
        _ => false,
    };
    // No binding modifier nor reference pattern anywhere inside.
    struct Plain(bool);
    impl<'a> Visit<'a> for Plain {
        fn visit_pat_ident(&mut self, i: &'a syn::PatIdent) {
            self.0 &= i.by_ref.is_none() && i.mutability.is_none() && i.subpat.is_none();
        }
        fn visit_pat_reference(&mut self, _: &'a syn::PatReference) {
            self.0 = false;
        }
    }
    let mut plain = Plain(true);
    plain.visit_pat(p);
    shape && plain.0
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    fn body(src: &str) -> String {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        super::by_reference(item)
            .block
            .to_token_stream()
            .to_string()
    }

    #[test]
    fn a_match_on_a_place_of_an_enum_is_made_on_a_reference() {
        assert_eq!(
            body("fn f() { v = match ops[i] { Op::Scale(c) => v * c, Op::Halt | _ => v }; }"),
            "{ v = match & ops [i] { Op :: Scale (c) => v * c , Op :: Halt | _ => v } ; }"
        );
        assert_eq!(
            body("fn f() { if let Mode::Fixed { k, .. } = cfg.mode { s += k; } }"),
            "{ if let Mode :: Fixed { k , .. } = & cfg . mode { s += k ; } }"
        );
        assert_eq!(
            body("fn f() { let Op::Scale(c) = ops[i] else { return 0.0; }; c }"),
            "{ let Op :: Scale (c) = & ops [i] else { return 0.0 ; } ; c }"
        );
        // Not a place, a binding modifier, a literal or a name pattern: as
        // written.
        for src in [
            "fn f() { match op { Op::Scale(c) => c, _ => 1.0 } }",
            "fn f() { match ops[i] { Op::Scale(ref c) => *c, _ => 1.0 } }",
            "fn f() { match idx[i] { 0 => 1.0, n => n as f64 } }",
            "fn f() { match ops[i] { x => 1.0 } }",
        ] {
            let item: syn::ItemFn = syn::parse_str(src).unwrap();
            assert_eq!(body(src), item.block.to_token_stream().to_string(), "{src}");
        }
    }
}

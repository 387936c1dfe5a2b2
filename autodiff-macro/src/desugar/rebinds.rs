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

use syn::visit_mut::VisitMut;

/// `item` without its `let x = x;` statements.
pub fn dropped(mut item: syn::ItemFn) -> syn::ItemFn {
    Rebinds.visit_block_mut(&mut item.block);
    item
}

struct Rebinds;

impl VisitMut for Rebinds {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        b.stmts.retain(|s| !rebinds_itself(s));
        syn::visit_mut::visit_block_mut(self, b);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Whether `s` is `let x = x;`, without `mut`, a type or attributes.
fn rebinds_itself(s: &syn::Stmt) -> bool {
    let syn::Stmt::Local(l) = s else {
        return false;
    };
    let (syn::Pat::Ident(p), Some(init)) = (&l.pat, &l.init) else {
        return false;
    };
    let plain = l.attrs.is_empty()
        && p.by_ref.is_none()
        && p.mutability.is_none()
        && p.subpat.is_none()
        && init.diverge.is_none();
    plain
        && matches!(&*init.expr, syn::Expr::Path(e) if e.qself.is_none() && e.attrs.is_empty() && e.path.is_ident(&p.ident))
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    fn body(src: &str) -> String {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        super::dropped(item).block.to_token_stream().to_string()
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

//! Invisible groups made visible. A `macro_rules!` fragment (`$e:expr`)
//! reaches the macro as an invisible group, which `syn` reads as
//! `Expr::Group`: `$e * 2.0` with `$e` = `3.0 + 1.0` is (3 + 1) · 2. Printed
//! back, the group is invisible again, and rustc reads the tokens a proc
//! macro returns without it: 3 + 1 · 2, in the function kept as written and
//! in every generated one, silently. So an invisible group that is an
//! operand (of an operator, a method's receiver, a field's base, a cast,
//! ..) becomes parentheses where its content is not one term already, and
//! any other becomes its content, where no precedence is at stake (a `let`'s
//! value, an argument, a statement), so that no parentheses are added where
//! rustc would call them unnecessary.

use syn::visit_mut::VisitMut;

/// `f` with its invisible groups made visible.
pub fn visible(mut f: syn::ItemFn) -> syn::ItemFn {
    Groups.visit_item_fn_mut(&mut f);
    f
}

/// The `impl` block `item` with its invisible groups made visible.
pub fn visible_in_impl(item: &mut syn::ItemImpl) {
    Groups.visit_item_impl_mut(item);
}

struct Groups;

impl VisitMut for Groups {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        use syn::Expr as E;
        match e {
            E::Binary(b) => {
                operand(&mut b.left);
                operand(&mut b.right);
            }
            E::Unary(u) => operand(&mut u.expr),
            E::MethodCall(m) => operand(&mut m.receiver),
            E::Field(f) => operand(&mut f.base),
            E::Index(i) => operand(&mut i.expr),
            E::Cast(c) => operand(&mut c.expr),
            E::Try(t) => operand(&mut t.expr),
            E::Reference(r) => operand(&mut r.expr),
            E::Call(c) => operand(&mut c.func),
            E::Await(a) => operand(&mut a.base),
            E::Range(r) => {
                for end in [&mut r.start, &mut r.end].into_iter().flatten() {
                    operand(end);
                }
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
        // Not an operand: the content alone. (Not a `let` statement a
        // `$s:stmt` gave, which is no expression outside its group.)
        if let E::Group(g) = e {
            if matches!(*g.expr, E::Let(_)) {
                return;
            }
            let inner = std::mem::replace(&mut *g.expr, E::Verbatim(Default::default()));
            *e = inner;
        }
    }
}

/// An operand that is an invisible group: parentheses, unless its content
/// is one term (a literal, a name, a call, ..), which binds as tightly as
/// any operator.
fn operand(e: &mut syn::Expr) {
    use syn::Expr as E;
    let E::Group(g) = e else { return };
    let inner = std::mem::replace(&mut *g.expr, E::Verbatim(Default::default()));
    let one_term = matches!(
        inner,
        E::Lit(_)
            | E::Path(_)
            | E::Paren(_)
            | E::Call(_)
            | E::MethodCall(_)
            | E::Macro(_)
            | E::Array(_)
            | E::Tuple(_)
            | E::Index(_)
            | E::Field(_)
            | E::Block(_)
    );
    *e = if one_term {
        inner
    } else {
        E::Paren(syn::ExprParen {
            attrs: Vec::new(),
            paren_token: syn::token::Paren(g.group_token.span),
            expr: Box::new(inner),
        })
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    /// `$e * 2.0` of `$e` = `3.0 + 1.0`, as a `macro_rules!` gives it.
    fn grouped(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenTree {
        proc_macro2::TokenTree::Group(proc_macro2::Group::new(
            proc_macro2::Delimiter::None,
            tokens,
        ))
    }

    #[test]
    fn an_operand_gets_parentheses_and_an_argument_none() {
        let sum = grouped(quote::quote!(3.0 + 1.0));
        let name = grouped(quote::quote!(x));
        let item: syn::ItemFn = syn::parse2(quote::quote! {
            fn f(x: f64) -> f64 {
                let y = #sum * 2.0;
                let z = #sum;
                let w = -#sum + #name.sin() + g(#sum);
                y + z + w
            }
        })
        .unwrap();
        let f = visible(item);
        let text = f.block.to_token_stream().to_string();
        assert_eq!(
            text,
            "{ let y = (3.0 + 1.0) * 2.0 ; let z = 3.0 + 1.0 ; let w = - (3.0 + 1.0) + x . sin () + g (3.0 + 1.0) ; y + z + w }"
        );
    }
}

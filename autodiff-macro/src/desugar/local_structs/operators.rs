//! Operators on a local struct built by a literal (`let mut p = V3 { .. };
//! p = p + v * 0.5;`) as the struct's methods (`p = p.add(v * 0.5)`),
//! before the struct is split: a method on it is a use the split knows
//! (the struct built whole for the call), an operator is not, and the
//! lowering reads the method through its `#[grad]` as any other.

use super::*;
use crate::desugar::internal::operator_call;

/// `stmts`, up to the `let` that binds `name` again, with every `name <op> x` (`+`, `-`, `*`, `/`, `%`, and
/// `+=`, `-=`, `*=`, `/=` as `name.add_assign(x)`), `x + name`,
/// `x - name`, `x * name` and `-name` written as the operator's method;
/// whether any was. A float is never on the left of `+`/`-` of a struct in
/// Rust's standard impls; `2.0 * name` is left as written (its method is
/// the float's).
pub(super) fn as_methods(name: &syn::Ident, stmts: &mut [syn::Stmt]) -> bool {
    struct Rewrite<'n> {
        name: &'n syn::Ident,
        changed: bool,
    }
    impl Rewrite<'_> {
        fn is_name(&self, e: &syn::Expr) -> bool {
            let mut e = e;
            while let syn::Expr::Paren(p) = e {
                e = &p.expr;
            }
            matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name))
        }
    }
    impl VisitMut for Rewrite<'_> {
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            // A closure that binds the name again has its own.
            if let syn::Expr::Closure(c) = e {
                if c.inputs
                    .iter()
                    .any(|p| crate::desugar::internal::pat_binds(p, self.name))
                {
                    return;
                }
            }
            syn::visit_mut::visit_expr_mut(self, e);
            let span = syn::spanned::Spanned::span(&*e);
            let call = match e {
                syn::Expr::Binary(b) => {
                    let method = match b.op {
                        syn::BinOp::Add(_) => "add",
                        syn::BinOp::Sub(_) => "sub",
                        syn::BinOp::Mul(_) => "mul",
                        syn::BinOp::Div(_) => "div",
                        syn::BinOp::Rem(_) => "rem",
                        // `p += v * dt` of `impl AddAssign`: a writer's call.
                        syn::BinOp::AddAssign(_) => "add_assign",
                        syn::BinOp::SubAssign(_) => "sub_assign",
                        syn::BinOp::MulAssign(_) => "mul_assign",
                        syn::BinOp::DivAssign(_) => "div_assign",
                        _ => return,
                    };
                    let struct_left = self.is_name(&b.left);
                    if method.ends_with("_assign") && !struct_left {
                        return;
                    }
                    // `*a * p` of a quaternion `a: &Quat` (trial 11 r957):
                    // the left operand's method, given the struct. A float
                    // on the left would be `f64`'s operator, which #[grad]
                    // cannot differentiate (`#[grad] impl Mul<Quat> for
                    // f64` is refused): a literal there stays as written.
                    let literal = |e: &syn::Expr| match e {
                        syn::Expr::Lit(_) => true,
                        syn::Expr::Unary(u) => matches!(&*u.expr, syn::Expr::Lit(_)),
                        _ => false,
                    };
                    let struct_right = self.is_name(&b.right)
                        && (matches!(method, "add" | "sub") || !literal(&b.left));
                    if !(struct_left || struct_right) {
                        return;
                    }
                    let span = syn::spanned::Spanned::span(&b.op);
                    operator_call(&b.left, method, span, Some(&b.right))
                }
                syn::Expr::Unary(u)
                    if matches!(u.op, syn::UnOp::Neg(_)) && self.is_name(&u.expr) =>
                {
                    operator_call(&u.expr, "neg", span, None)
                }
                _ => return,
            };
            *e = call;
            self.changed = true;
        }
    }
    let mut r = Rewrite {
        name,
        changed: false,
    };
    for s in stmts {
        // The `let` that binds the name again: its initialiser still reads
        // the struct (`let p = p + v;`).
        if let syn::Stmt::Local(l) = s {
            if crate::desugar::internal::pat_binds(&l.pat, name) {
                if let Some(init) = &mut l.init {
                    r.visit_expr_mut(&mut init.expr);
                }
                break;
            }
        }
        r.visit_stmt_mut(s);
    }
    r.changed
}

#[cfg(test)]
mod tests {
    use super::as_methods;
    use quote::ToTokens;

    #[test]
    fn operators_on_the_struct_are_its_methods_until_it_is_bound_again() {
        let name: syn::Ident = syn::parse_quote!(p);
        let mut block: syn::Block = syn::parse_quote!({
            p = p + v * 0.5;
            let q = -p;
            let r = k * p;
            let r2 = 2.0 * p;
            let s = a + b;
            let u = x - (p);
            let f = |p: f64| p * 2.0;
            let p = p - q;
            p + q
        });
        assert!(as_methods(&name, &mut block.stmts));
        let expected: syn::Block = syn::parse_quote!({
            p = p.add(v * 0.5);
            let q = p.neg();
            let r = k.mul(p);
            let r2 = 2.0 * p;
            let s = a + b;
            let u = x.sub(p);
            let f = |p: f64| p * 2.0;
            let p = p.sub(q);
            p + q
        });
        assert_eq!(
            block.to_token_stream().to_string(),
            expected.to_token_stream().to_string()
        );
        let mut untouched: syn::Block = syn::parse_quote!({ a + b });
        assert!(!as_methods(&name, &mut untouched.stmts));
    }
}

//! Arithmetic written as syntax, with the parentheses precedence needs.

use syn::parse_quote;
use syn::Expr as E;

use super::entries::Entries;

pub(super) fn sum(terms: impl Iterator<Item = E>) -> E {
    terms
        .reduce(|acc, t| bin(acc, &parse_quote!(+), t))
        .unwrap_or_else(|| parse_quote!(0.0))
}

/// How tightly `e` binds: a sum 1, a product 2, a negation 3, a name, a
/// literal, an entry, a call or a parenthesis 4, anything else 0.
fn precedence(e: &E) -> u8 {
    match e {
        E::Binary(b) => match b.op {
            syn::BinOp::Add(_) | syn::BinOp::Sub(_) => 1,
            syn::BinOp::Mul(_) | syn::BinOp::Div(_) | syn::BinOp::Rem(_) => 2,
            _ => 0,
        },
        E::Unary(_) => 3,
        E::Path(_)
        | E::Lit(_)
        | E::Index(_)
        | E::Call(_)
        | E::MethodCall(_)
        | E::Paren(_)
        | E::Field(_)
        | E::Array(_) => 4,
        _ => 0,
    }
}

/// `e` where an operand binding at least as tightly as `at` is needed, in
/// parentheses if it binds less (syn prints an expression's tokens as they
/// are, so `a - b` put into `#x * s` would read `a - b * s`).
pub(super) fn operand(e: E, at: u8) -> E {
    match precedence(&e) >= at {
        true => e,
        false => parse_quote!((#e)),
    }
}

/// `x op y`, with the parentheses its operands need: the left one where it
/// binds less than `op`, the right one where it binds no more (`a - (b -
/// c)`).
pub(super) fn bin(x: E, op: &syn::BinOp, y: E) -> E {
    let at = precedence(&parse_quote!(a #op b));
    let (x, y) = (operand(x, at), operand(y, at + 1));
    parse_quote!(#x #op #y)
}

pub(super) fn paren(e: E) -> E {
    parse_quote!((#e))
}

pub(super) fn squares(en: &Entries) -> E {
    sum(en
        .items
        .iter()
        .map(|x| bin(x.clone(), &parse_quote!(*), x.clone())))
}

pub(super) fn norm(en: &Entries) -> E {
    let s = squares(en);
    parse_quote!((#s).sqrt())
}

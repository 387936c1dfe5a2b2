//! The syntax the rewrite reads and writes: a value's entries, what an
//! expression is (a name, a call of the user's, a method of which kind),
//! and arithmetic written with the parentheses precedence needs.

use syn::parse_quote;
use syn::Expr as E;

use super::constructor;

/// Where a statement's operands are bound before it, if anywhere.
pub(super) type Sink<'a> = Option<&'a mut Vec<syn::Stmt>>;

/// An expression's entries, column by column, and its shape.
#[derive(Clone)]
pub(super) struct Entries {
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) items: Vec<E>,
}

impl Entries {
    pub(super) fn at(&self, i: usize, j: usize) -> &E {
        &self.items[i + j * self.rows]
    }
    pub(super) fn map(self, f: impl Fn(E) -> E) -> Entries {
        Entries {
            items: self.items.into_iter().map(f).collect(),
            ..self
        }
    }
    pub(super) fn array(&self) -> E {
        let items = &self.items;
        parse_quote!([#(#items),*])
    }
}

/// `a += b`'s operator as the binary one, `+`.
pub(super) fn compound(op: &syn::BinOp) -> Option<syn::BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(_) => parse_quote!(+),
        B::SubAssign(_) => parse_quote!(-),
        B::MulAssign(_) => parse_quote!(*),
        B::DivAssign(_) => parse_quote!(/),
        _ => return None,
    })
}

pub(super) fn ident(e: &E) -> Option<String> {
    match e {
        E::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        E::Paren(p) => ident(&p.expr),
        _ => None,
    }
}

/// A name, a literal, or an entry of a name: read again at no cost.
pub(super) fn simple(e: &E) -> bool {
    match e {
        E::Path(_) | E::Lit(_) => true,
        E::Index(ix) => {
            matches!(&*ix.expr, E::Path(_)) && matches!(&*ix.index, E::Lit(_) | E::Path(_))
        }
        E::Paren(p) => simple(&p.expr),
        E::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && simple(&u.expr),
        _ => false,
    }
}

/// Whether `e` is, or is arithmetic of, a call of a function of the
/// user's (not a constructor, a float method or a runtime function),
/// whose result may be a number or a nalgebra value: the source does not
/// say which.
pub(super) fn from_call(e: &E) -> bool {
    match e {
        E::Call(c) => matches!(&*c.func, E::Path(p) if p.qself.is_none()
            && constructor(&p.path).is_none()
            && matches!(crate::rules::resolve(&p.path), crate::rules::Callee::Function)),
        E::Binary(b) => from_call(&b.left) || from_call(&b.right),
        E::Unary(u) => from_call(&u.expr),
        E::Paren(p) => from_call(&p.expr),
        _ => false,
    }
}

/// A method an array has too, which scalar code may call on a nalgebra
/// value's entries (`v.iter()`, `v.len()`).
pub(super) fn array_method(name: &str) -> bool {
    matches!(name, "iter" | "len" | "is_empty" | "as_slice")
}

/// A method of a nalgebra value that gives a number.
pub(super) fn scalar_method(name: &str) -> bool {
    matches!(
        name,
        "dot"
            | "norm"
            | "norm_squared"
            | "magnitude"
            | "magnitude_squared"
            | "sum"
            | "mean"
            | "trace"
            | "determinant"
            | "max"
            | "min"
            | "amax"
            | "amin"
            | "angle"
    )
}

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

/// `block` without the parentheses rustc's `unused_parens` lint would warn
/// about in the user's crate: around a `let`'s value, an assigned value,
/// an argument, an array's item, a returned value, a condition, a
/// scrutinee, a block's value (the rewrite puts entries in parentheses
/// wherever they may meet an operator).
pub(super) fn without_outer_parens(block: &mut syn::Block) {
    use syn::visit_mut::VisitMut;
    struct Unparen;
    fn strip(e: &mut E) {
        while let E::Paren(p) = e {
            let inner = std::mem::replace(&mut *p.expr, parse_quote!(()));
            *e = inner;
        }
    }
    impl VisitMut for Unparen {
        fn visit_local_mut(&mut self, l: &mut syn::Local) {
            if let Some(init) = &mut l.init {
                strip(&mut init.expr);
            }
            syn::visit_mut::visit_local_mut(self, l);
        }
        fn visit_block_mut(&mut self, b: &mut syn::Block) {
            if let Some(syn::Stmt::Expr(e, None)) = b.stmts.last_mut() {
                strip(e);
            }
            syn::visit_mut::visit_block_mut(self, b);
        }
        fn visit_expr_mut(&mut self, e: &mut E) {
            match e {
                E::Call(c) => c.args.iter_mut().for_each(strip),
                E::MethodCall(m) => m.args.iter_mut().for_each(strip),
                E::Array(a) => a.elems.iter_mut().for_each(strip),
                E::Assign(a) => strip(&mut a.right),
                E::Binary(b)
                    if matches!(
                        b.op,
                        syn::BinOp::AddAssign(_)
                            | syn::BinOp::SubAssign(_)
                            | syn::BinOp::MulAssign(_)
                            | syn::BinOp::DivAssign(_)
                    ) =>
                {
                    strip(&mut b.right)
                }
                E::Return(r) => r.expr.iter_mut().for_each(|x| strip(x)),
                E::If(i) => strip(&mut i.cond),
                E::While(w) => strip(&mut w.cond),
                E::Match(m) => strip(&mut m.expr),
                _ => {}
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    Unparen.visit_block_mut(block);
}

/// `e` with every read of the name `param` replaced by `by` (a closure's
/// body, once per entry of `map`); a closure or a `let` inside that binds
/// the name again keeps its own.
pub(super) fn substitute(e: &mut E, param: &syn::Ident, by: &E) {
    use syn::visit_mut::VisitMut;
    struct Sub<'a>(&'a syn::Ident, &'a E);
    impl VisitMut for Sub<'_> {
        fn visit_expr_mut(&mut self, e: &mut E) {
            match e {
                E::Path(p) if p.qself.is_none() && p.path.is_ident(self.0) => *e = self.1.clone(),
                E::Closure(c) if c.inputs.iter().any(|i| binds(i, self.0)) => {}
                E::Block(b)
                    if b.block
                        .stmts
                        .iter()
                        .any(|s| matches!(s, syn::Stmt::Local(l) if binds(&l.pat, self.0))) => {}
                _ => syn::visit_mut::visit_expr_mut(self, e),
            }
        }
        fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
            crate::desugar::vec_items(m, |listed| self.visit_expr_mut(listed));
        }
    }
    fn binds(p: &syn::Pat, name: &syn::Ident) -> bool {
        let mut names = std::collections::HashSet::new();
        crate::desugar::internal::collect_idents(quote::ToTokens::to_token_stream(p), &mut names);
        names.contains(&name.to_string())
    }
    Sub(param, by).visit_expr_mut(e);
}

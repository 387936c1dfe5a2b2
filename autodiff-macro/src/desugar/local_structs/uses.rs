//! How a statement uses a local struct: through its fields only, how many
//! times it names it, and a method called on it as a plain call.

use super::*;

/// Whether every use of `name` in `stmt` is one of its `fields`
/// (`name.f`), inside macros too; a closure or a pattern that binds the
/// name again makes it not so.
pub(super) fn fields_only(stmt: &syn::Stmt, name: &syn::Ident, fields: &[String]) -> bool {
    struct Uses<'n> {
        name: String,
        fields: &'n [String],
        whole: bool,
    }
    impl Uses<'_> {
        fn is_name(&self, e: &syn::Expr) -> bool {
            matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(&self.name))
        }
    }
    impl<'a> Visit<'a> for Uses<'_> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Field(f) if self.is_name(&f.base) => match &f.member {
                    syn::Member::Named(m) if self.fields.contains(&m.to_string()) => {}
                    _ => self.whole = true,
                },
                _ if self.is_name(e) => self.whole = true,
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            if p.ident == self.name {
                self.whole = true;
            }
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            // `name` must be followed by `.field` each time it appears.
            let tokens: Vec<proc_macro2::TokenTree> = m.tokens.clone().into_iter().collect();
            if !tokens_fields_only(&tokens, &self.name, self.fields) {
                self.whole = true;
            }
        }
    }
    let mut u = Uses {
        name: name.to_string(),
        fields,
        whole: false,
    };
    u.visit_stmt(stmt);
    !u.whole
}

fn tokens_fields_only(tokens: &[proc_macro2::TokenTree], name: &str, fields: &[String]) -> bool {
    use proc_macro2::TokenTree as T;
    for (k, t) in tokens.iter().enumerate() {
        match t {
            T::Ident(i) if i == name => {
                let dot = matches!(tokens.get(k + 1), Some(T::Punct(p)) if p.as_char() == '.');
                let field = matches!(tokens.get(k + 2), Some(T::Ident(f)) if fields.contains(&f.to_string()));
                if !(dot && field) {
                    return false;
                }
            }
            T::Literal(l) if l.to_string().contains(name) => return false,
            T::Group(g) => {
                let inner: Vec<T> = g.stream().into_iter().collect();
                if !tokens_fields_only(&inner, name, fields) {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

/// How many times `stmt` names `name`, inside macros too.
pub(super) fn count_mentions(stmt: &syn::Stmt, name: &str) -> usize {
    fn count(tokens: proc_macro2::TokenStream, name: &str) -> usize {
        tokens
            .into_iter()
            .map(|t| match t {
                proc_macro2::TokenTree::Ident(i) => usize::from(i == name),
                proc_macro2::TokenTree::Group(g) => count(g.stream(), name),
                _ => 0,
            })
            .sum()
    }
    count(quote::ToTokens::to_token_stream(stmt), name)
}

/// The method call on `name` in `e` at a place that always runs when `e`
/// does, before anything `e` could skip: through operators other than
/// `&&` and `||`, parentheses, casts, references, fields, indices, calls'
/// and methods' receivers and arguments, and an assignment's right side;
/// not into branches, loops, blocks or closures.
pub(super) fn plain_call<'e>(e: &'e mut syn::Expr, name: &str) -> Option<&'e mut syn::Expr> {
    use syn::Expr as E;
    // `p.clone()` is a copy (`Rebuild::visit_expr_mut`), not a call.
    let is_call = |e: &syn::Expr| {
        matches!(e, E::MethodCall(m)
            if m.method != "clone"
                && matches!(&*m.receiver, E::Path(p) if p.qself.is_none() && p.path.is_ident(name)))
    };
    // The call with what takes its value out of an `Option` or a
    // `Result` (`p.m(x)?`, `p.m(x).unwrap()`, `.expect(..)`), which the
    // lowering reads with the call (trial 11 B14).
    let unit = match &*e {
        E::Try(t) => is_call(&t.expr),
        E::MethodCall(u) => {
            (u.method == "unwrap" && u.args.is_empty() || u.method == "expect" && u.args.len() == 1)
                && is_call(&u.receiver)
                || is_call(e)
        }
        e => is_call(e),
    };
    if unit {
        return Some(e);
    }
    let inner: Vec<&'e mut syn::Expr> = match e {
        E::Binary(b) if !matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
            vec![&mut *b.left, &mut *b.right]
        }
        E::Assign(a) => vec![&mut *a.right],
        E::Unary(u) => vec![&mut *u.expr],
        E::Try(t) => vec![&mut *t.expr],
        E::Paren(p) => vec![&mut *p.expr],
        E::Cast(c) => vec![&mut *c.expr],
        E::Reference(r) => vec![&mut *r.expr],
        E::Field(f) => vec![&mut *f.base],
        E::Index(i) => vec![&mut *i.expr, &mut *i.index],
        E::Call(c) => c.args.iter_mut().collect(),
        E::MethodCall(m) => std::iter::once(&mut *m.receiver)
            .chain(m.args.iter_mut())
            .collect(),
        E::Tuple(t) => t.elems.iter_mut().collect(),
        _ => Vec::new(),
    };
    inner.into_iter().find_map(|x| plain_call(x, name))
}

//! Another `Vec` of the split one's shape, split with it: a copy, `let
//! mut w = v.clone();` (`split_copy`), and one a statement hands to it
//! whole or it to the other, its partner (`split_alike`, which
//! `partners.rs` finds), each rewritten onto `Vec`s of its own parts.

use super::{pushes, Parts, Rewrite};
use crate::desugar::internal::{binds, mentions};

impl Rewrite<'_> {
    /// The name `w` of `let [mut] w[: Vec<P>] = v.clone();`; `None` for
    /// any other statement.
    pub(super) fn copied_whole(&self, s: &syn::Stmt) -> Option<syn::Ident> {
        let (name, _, init) = pushes::named_let(s)?;
        let syn::Expr::MethodCall(m) = init else {
            return None;
        };
        let copy = m.method == "clone" && m.args.is_empty() && self.is_name(&m.receiver);
        copy.then(|| name.ident.clone())
    }

    /// The copy `w` of `v` split as `v` is: `let mut w_x = v_x.clone();`
    /// for each field, and `rest` (the statements after it in its block,
    /// up to one that binds `w` again) with `w`'s uses rewritten onto
    /// those; `None` where `w` is used in a way this file does not follow.
    pub(super) fn split_copy(
        &mut self,
        copy: &syn::Ident,
        mut rest: Vec<syn::Stmt>,
    ) -> Option<(Vec<syn::Stmt>, Vec<syn::Stmt>)> {
        let end = rest
            .iter()
            .position(|s| binds(s, copy))
            .unwrap_or(rest.len());
        if rest[end..].iter().any(|s| mentions(s, copy)) {
            return None;
        }
        let after = rest.split_off(end);
        // `prev = v;` after `let mut prev = v.clone();`: its partner.
        let (vars, mut rewritten) = self.split_alike(copy, rest)?;
        rewritten.extend(after);
        let lets = vars
            .iter()
            .zip(self.vars.iter())
            .map(
                // A field of the copy may go unread.
                |((_, w), (_, v))| {
                    syn::parse_quote!(#[allow(unused_mut, unused_variables)] let mut #w = #v.clone();)
                },
            )
            .collect();
        Some((lets, rewritten))
    }

    /// Another `Vec` `w` of this one's shape, whose uses in `stmts` are
    /// rewritten onto its own parts' `Vec`s (`w_x`, ..), fresh, this one
    /// its partner (`partners.rs`): those and the statements; `None`
    /// where `w` is used in a way this file does not follow.
    pub(super) fn split_alike(
        &mut self,
        w: &syn::Ident,
        stmts: Vec<syn::Stmt>,
    ) -> Option<(Parts, Vec<syn::Stmt>)> {
        let vars: Vec<(String, syn::Ident)> = self
            .vars
            .iter()
            .map(|(f, _)| {
                let v = self.names.fresh(&format!("{w}_{f}"));
                (f.clone(), syn::Ident::new(&v, w.span()))
            })
            .collect();
        let mut r = Rewrite {
            name: w.to_string(),
            shape: self.shape,
            vars: &vars,
            names: &mut *self.names,
            rows: self.rows,
            partner: Some((&self.name, self.vars)),
            whole: false,
        };
        let rewritten = r.stmts(stmts);
        (!r.whole).then_some((vars, rewritten))
    }
}

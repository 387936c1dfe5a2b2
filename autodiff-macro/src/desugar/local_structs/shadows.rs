//! A local struct's name bound again inside a nested scope (`let s =
//! s.stepped();` in an `if` arm, a loop's body or a block, a closure's
//! parameter `|s: f64|`, a `for s in ..`, a `match` arm's binding; trial
//! 11 B3): the inner variable renamed apart (`s_1`) where it is bound and
//! everywhere it is named after, so that the split of the outer struct
//! into its fields (`local_structs.rs`) reads every `s.x` left as the
//! outer one's. Alpha-renaming: every name `s` after an inner binding in
//! its scope is that binding's or one nested deeper still, all apart from
//! the outer struct, so one new name for all of them keeps each meaning.
//! A field's shorthand (`S { s }`, `S { s, .. }` in a pattern) keeps its
//! field's name (`S { s: s_1 }`).

use proc_macro2::{TokenStream, TokenTree};
use syn::visit_mut::VisitMut;

use crate::desugar::internal::pat_binds;

/// `stmts` (the statements after the outer `let`, up to the one that binds
/// the name again) with each inner binding of `name` renamed `fresh`.
pub(super) fn renamed_apart(stmts: &mut [syn::Stmt], name: &syn::Ident, fresh: &syn::Ident) {
    let mut apart = Apart { name, fresh };
    for s in stmts {
        apart.visit_stmt_mut(s);
    }
}

struct Apart<'n> {
    name: &'n syn::Ident,
    fresh: &'n syn::Ident,
}

impl Apart<'_> {
    fn all(&self) -> All<'_> {
        All {
            name: self.name,
            fresh: self.fresh,
        }
    }
}

impl VisitMut for Apart<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        // From the first statement that binds the name again, the rest of
        // the block is the inner variable's: its initialiser still reads
        // the outer one.
        let Some(at) = b
            .stmts
            .iter()
            .position(|s| matches!(s, syn::Stmt::Local(l) if pat_binds(&l.pat, self.name)))
        else {
            return syn::visit_mut::visit_block_mut(self, b);
        };
        for s in &mut b.stmts[..at] {
            self.visit_stmt_mut(s);
        }
        if let syn::Stmt::Local(l) = &mut b.stmts[at] {
            if let Some(init) = &mut l.init {
                self.visit_expr_mut(&mut init.expr);
                if let Some((_, d)) = &mut init.diverge {
                    self.visit_expr_mut(d);
                }
            }
            self.all().visit_pat_mut(&mut l.pat);
        }
        for s in &mut b.stmts[at + 1..] {
            self.all().visit_stmt_mut(s);
        }
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        match c.inputs.iter().any(|p| pat_binds(p, self.name)) {
            true => self.all().visit_expr_closure_mut(c),
            false => syn::visit_mut::visit_expr_closure_mut(self, c),
        }
    }

    fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
        self.visit_expr_mut(&mut f.expr);
        match pat_binds(&f.pat, self.name) {
            true => {
                self.all().visit_pat_mut(&mut f.pat);
                self.all().visit_block_mut(&mut f.body);
            }
            false => self.visit_block_mut(&mut f.body),
        }
    }

    fn visit_arm_mut(&mut self, a: &mut syn::Arm) {
        match pat_binds(&a.pat, self.name) {
            true => self.all().visit_arm_mut(a),
            false => syn::visit_mut::visit_arm_mut(self, a),
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Every `name` (a variable's, in patterns, paths and macros' tokens)
/// as `fresh`, field names kept.
struct All<'n> {
    name: &'n syn::Ident,
    fresh: &'n syn::Ident,
}

impl All<'_> {
    fn ident(&self) -> syn::Ident {
        syn::Ident::new(&self.fresh.to_string(), self.name.span())
    }
}

impl VisitMut for All<'_> {
    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if p.qself.is_none() && p.path.is_ident(self.name) {
            p.path = self.ident().into();
        }
    }

    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        if p.ident == *self.name {
            p.ident = self.ident();
        }
        syn::visit_mut::visit_pat_ident_mut(self, p);
    }

    fn visit_field_value_mut(&mut self, f: &mut syn::FieldValue) {
        // `S { s }`: the field `s`, given the variable.
        if f.colon_token.is_none() {
            f.colon_token = Some(Default::default());
        }
        self.visit_expr_mut(&mut f.expr);
    }

    fn visit_field_pat_mut(&mut self, f: &mut syn::FieldPat) {
        if f.colon_token.is_none() {
            f.colon_token = Some(Default::default());
        }
        self.visit_pat_mut(&mut f.pat);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = renamed_tokens(m.tokens.clone(), self.name, self.fresh);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `name` as `fresh` in a macro's tokens, not after a `.` (a field or a
/// method of that name).
fn renamed_tokens(tokens: TokenStream, name: &syn::Ident, fresh: &syn::Ident) -> TokenStream {
    let mut out = Vec::new();
    let mut after_dot = false;
    for t in tokens {
        let next_after_dot = matches!(&t, TokenTree::Punct(p) if p.as_char() == '.');
        out.push(match t {
            TokenTree::Ident(i) if i == *name && !after_dot => {
                TokenTree::Ident(syn::Ident::new(&fresh.to_string(), i.span()))
            }
            TokenTree::Group(g) => {
                let mut n =
                    proc_macro2::Group::new(g.delimiter(), renamed_tokens(g.stream(), name, fresh));
                n.set_span(g.span());
                TokenTree::Group(n)
            }
            t => t,
        });
        after_dot = next_after_dot;
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::{quote, ToTokens};

    #[test]
    fn inner_bindings_are_renamed_apart_and_outer_reads_kept() {
        let f: syn::ItemFn = syn::parse2(quote!(
            fn f() {
                let t = if c {
                    let s = s.stepped();
                    S { s }.x + s.x
                } else {
                    s.x
                };
                let g = |s: f64| s * 2.0;
                for s in xs {
                    u += s;
                }
                match m {
                    Some(s) => s.x,
                    None => s.x,
                }
                s.x + t
            }
        ))
        .unwrap();
        let mut stmts = f.block.stmts;
        let (name, fresh) = (quote::format_ident!("s"), quote::format_ident!("s_1"));
        renamed_apart(&mut stmts, &name, &fresh);
        let out: TokenStream = stmts.iter().map(|s| s.to_token_stream()).collect();
        let want = quote!(
            let t = if c {
                let s_1 = s.stepped();
                S { s: s_1 }.x + s_1.x
            } else {
                s.x
            };
            let g = |s_1: f64| s_1 * 2.0;
            for s_1 in xs {
                u += s_1;
            }
            match m {
                Some(s_1) => s_1.x,
                None => s.x,
            }
            s.x + t
        );
        assert_eq!(out.to_string(), want.to_string());
    }
}

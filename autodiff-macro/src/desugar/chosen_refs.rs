//! An array chosen by a branch and then read, `let xs = if c { a } else {
//! b };` (also `&a`, `&b`), as the choice made at each read:
//!
//! ```text
//! let fin = if c { &a } else { &b };     let fin_which: bool = c;
//! fin[0] * fin[1] + fin.len() as f64  => (if fin_which { a[0] } else { b[0] })
//!                                          * (if fin_which { a[1] } else { b[1] }) + ..
//! ```
//!
//! The condition is evaluated once, where it was; each element read
//! (`fin[i]`, `fin[i][j]`) and `fin.len()` reads the array the branch
//! chose, which the macro follows as it follows `a` and `b` themselves;
//! so does a chain over it (`fin.iter().map(..).sum::<f64>()`, made on the
//! array chosen) and a `for` loop over it (`for x in &fin { .. }`, the
//! loop over the array chosen, each in its arm).
//! Only where every use of the name is one of those, neither array's name
//! nor the chosen name is bound again after the `let`, and nothing after
//! it may change either array (an array chosen by value is a copy); the
//! `let` is left as written otherwise.

use crate::desugar::internal::{binds, binds_inside, mentions, plain_let, FreshNames};
use syn::visit_mut::VisitMut;

/// `item` with each array chosen by a branch read through the choice.
pub fn at_reads(mut item: syn::ItemFn) -> syn::ItemFn {
    let mut c = Chosen {
        names: FreshNames::of(&item),
    };
    c.visit_block_mut(&mut item.block);
    item
}

struct Chosen {
    names: FreshNames,
}

impl VisitMut for Chosen {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, b);
        let mut i = 0;
        while i < b.stmts.len() {
            if let Some((name, cond, [a, z])) = chosen_let(&b.stmts[i]) {
                let rest = &b.stmts[i + 1..];
                let rebound = rest.iter().any(|s| {
                    [&name, &a, &z]
                        .iter()
                        .any(|n| binds(s, n) || binds_inside(s, n))
                });
                if !rebound && !changes_any(rest, &[&a, &z]) {
                    let which =
                        syn::Ident::new(&self.names.fresh(&format!("{name}_which")), name.span());
                    let mut r = Reads {
                        name: &name,
                        which: &which,
                        arrays: [&a, &z],
                        other: false,
                    };
                    let mut rest = rest.to_vec();
                    for s in &mut rest {
                        r.visit_stmt_mut(s);
                    }
                    if !r.other {
                        let span = syn::spanned::Spanned::span(&b.stmts[i]);
                        b.stmts.truncate(i);
                        b.stmts
                            .push(syn::parse_quote_spanned!(span=> let #which: bool = #cond;));
                        b.stmts.extend(rest);
                    }
                }
            }
            i += 1;
        }
    }
}

/// `let name = if cond { a } else { b };` of two names (or `&a`, `&b`):
/// the name, the condition and the two arrays.
fn chosen_let(s: &syn::Stmt) -> Option<(syn::Ident, syn::Expr, [syn::Ident; 2])> {
    let l = plain_let(s, false)?;
    if l.mutable() {
        return None;
    }
    let syn::Expr::If(i) = l.init_bare() else {
        return None;
    };
    let (_, other) = i.else_branch.as_ref()?;
    let syn::Expr::Block(other) = &**other else {
        return None;
    };
    if matches!(&*i.cond, syn::Expr::Let(_)) || !i.attrs.is_empty() {
        return None;
    }
    // The one expression of a block, `a` or `&a`, and whether by `&`.
    fn chosen(b: &syn::Block) -> Option<(syn::Ident, bool)> {
        let [syn::Stmt::Expr(e, None)] = &b.stmts[..] else {
            return None;
        };
        let (e, lent) = match e {
            syn::Expr::Reference(r) if r.mutability.is_none() => (&*r.expr, true),
            e => (e, false),
        };
        match e {
            syn::Expr::Path(p) if p.qself.is_none() => Some((p.path.get_ident()?.clone(), lent)),
            _ => None,
        }
    }
    let (a, lent_a) = chosen(&i.then_branch)?;
    let (z, lent_z) = chosen(&other.block)?;
    (lent_a == lent_z).then(|| (l.pat.ident.clone(), (*i.cond).clone(), [a, z]))
}

/// The reads of the chosen name rewritten; `other` where it is used
/// otherwise.
struct Reads<'n> {
    name: &'n syn::Ident,
    which: &'n syn::Ident,
    arrays: [&'n syn::Ident; 2],
    other: bool,
}

impl Reads<'_> {
    fn is_name(&self, e: &syn::Expr) -> bool {
        matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name))
    }

    /// `if which { <e with the name, where free, as a> } else { <.. as b>
    /// }` (a chain's closure or a loop's body may bind the name again);
    /// `None` where a macro names it.
    fn free_choice(&self, e: &syn::Expr) -> Option<syn::Expr> {
        let [a, z] = self.arrays;
        let first = crate::desugar::iterators::rename_free(e, self.name, a)?;
        let second = crate::desugar::iterators::rename_free(e, self.name, z)?;
        let which = self.which;
        let span = syn::spanned::Spanned::span(e);
        // A loop as a statement: the branch itself, whose arms the
        // lowering takes as blocks of statements.
        Some(match e {
            syn::Expr::ForLoop(_) => {
                syn::parse_quote_spanned!(span=> if #which { #first } else { #second })
            }
            _ => syn::parse_quote_spanned!(span=> (if #which { #first } else { #second })),
        })
    }

    /// Whether `e` is a chain of methods on the name whose first reads it
    /// only (`v.iter().map(..).sum()`, `v.windows(2)..`).
    fn chain_on_name(&self, e: &syn::Expr) -> bool {
        let syn::Expr::MethodCall(m) = e else {
            return false;
        };
        if self.is_name(&m.receiver) {
            let first = m.method.to_string();
            return crate::rules::reads_only(&first)
                || matches!(first.as_str(), "windows" | "chunks" | "chunks_exact");
        }
        self.chain_on_name(&m.receiver)
    }

    /// Whether a `for` loop goes over the name (`v`, `&v`, or a chain
    /// on it).
    fn loop_over_name(&self, f: &syn::ExprForLoop) -> bool {
        match &*f.expr {
            syn::Expr::Reference(r) if r.mutability.is_none() => self.is_name(&r.expr),
            e => self.is_name(e) || self.chain_on_name(e),
        }
    }

    /// `if which { <e with the name as a> } else { <.. as b> }`.
    fn choice(&self, e: &syn::Expr) -> syn::Expr {
        let [a, z] = self.arrays;
        let (mut first, mut second) = (e.clone(), e.clone());
        Rename(self.name, a).visit_expr_mut(&mut first);
        Rename(self.name, z).visit_expr_mut(&mut second);
        let which = self.which;
        let span = syn::spanned::Spanned::span(e);
        syn::parse_quote_spanned!(span=> (if #which { #first } else { #second }))
    }
}

impl VisitMut for Reads<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            // `fin[i]`, `fin[i][j]`: the element of the array chosen, its
            // index rewritten first.
            syn::Expr::Index(_) if self.is_name(index_root(e)) => {
                let mut at = &mut *e;
                while let syn::Expr::Index(ix) = at {
                    self.visit_expr_mut(&mut ix.index);
                    at = &mut ix.expr;
                }
                *e = self.choice(e);
            }
            syn::Expr::MethodCall(m)
                if self.is_name(&m.receiver) && m.method == "len" && m.args.is_empty() =>
            {
                *e = self.choice(e);
            }
            // `v.iter().map(..).sum::<f64>()`: the chain on the array
            // chosen.
            _ if self.chain_on_name(e) => match self.free_choice(e) {
                Some(c) => *e = c,
                None => self.other = true,
            },
            // `for x in &v { .. }`: the loop over the array chosen.
            syn::Expr::ForLoop(f) if self.loop_over_name(f) => match self.free_choice(e) {
                Some(c) => *e = c,
                None => self.other = true,
            },
            _ if self.is_name(e) => self.other = true,
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        self.other |= mentions(&m.tokens, self.name);
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        // A closure may keep the reference: left as written.
        self.other |= mentions(&*c.body, self.name);
    }
}

/// Whether `stmts` may change one of `names` (an array chosen by value is
/// a copy, which a later change of the array leaves as it was):
/// assigned, compounded or lent by `&mut` in any part, or given to a
/// method that may change it.
fn changes_any(stmts: &[syn::Stmt], names: &[&syn::Ident]) -> bool {
    use syn::visit::Visit;
    struct Find<'n>(&'n [&'n syn::Ident], bool);
    impl Find<'_> {
        fn rooted(&self, e: &syn::Expr) -> bool {
            let mut e = e;
            loop {
                match e {
                    syn::Expr::Index(ix) => e = &ix.expr,
                    syn::Expr::Field(f) => e = &f.base,
                    syn::Expr::Paren(p) => e = &p.expr,
                    syn::Expr::Path(p) => {
                        return p.qself.is_none() && self.0.iter().any(|n| p.path.is_ident(*n))
                    }
                    _ => return false,
                }
            }
        }
    }
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            self.1 |= match e {
                syn::Expr::Assign(a) => self.rooted(&a.left),
                syn::Expr::Binary(b) if super::is_compound_assign(&b.op) => self.rooted(&b.left),
                syn::Expr::Reference(r) => r.mutability.is_some() && self.rooted(&r.expr),
                syn::Expr::MethodCall(m) => {
                    !crate::rules::reads_only(&m.method.to_string()) && self.rooted(&m.receiver)
                }
                _ => false,
            };
            syn::visit::visit_expr(self, e);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            self.1 |= self.0.iter().any(|n| mentions(&m.tokens, n));
        }
    }
    let mut f = Find(names, false);
    for s in stmts {
        f.visit_stmt(s);
    }
    f.1
}

/// What `e[i][j]..` indexes: `e`.
fn index_root(mut e: &syn::Expr) -> &syn::Expr {
    while let syn::Expr::Index(ix) = e {
        e = &ix.expr;
    }
    e
}

/// The name `from` replaced by `to` where it is the base of an element
/// or the receiver of `len` (the only places [`Reads`] rewrites).
struct Rename<'n>(&'n syn::Ident, &'n syn::Ident);

impl VisitMut for Rename<'_> {
    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if p.qself.is_none() && p.path.is_ident(self.0) {
            p.path = self.1.clone().into();
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    fn body(f: syn::ItemFn) -> String {
        super::at_reads(f).block.to_token_stream().to_string()
    }

    #[test]
    fn each_read_makes_the_choice_the_condition_evaluated_once() {
        let f: syn::ItemFn = syn::parse_quote! {
            fn f(a: &[f64], b: &[f64], c: bool) -> f64 {
                let v = if c { a } else { b };
                v[v.len() - 1] * v[0]
            }
        };
        let expected: syn::Block = syn::parse_quote!({
            let v_which: bool = c;
            (if v_which {
                a[(if v_which { a.len() } else { b.len() }) - 1]
            } else {
                b[(if v_which { a.len() } else { b.len() }) - 1]
            }) * (if v_which { a[0] } else { b[0] })
        });
        assert_eq!(body(f), expected.to_token_stream().to_string());
    }

    #[test]
    fn a_chain_or_a_loop_over_the_choice_is_made_on_the_array_chosen() {
        let f: syn::ItemFn = syn::parse_quote! {
            fn f(a: &[f64], b: &[f64], c: bool) -> f64 {
                let v = if c { a } else { b };
                let mut s = v.iter().map(|t| t * t).sum::<f64>();
                for &t in v { s += t * v[0]; }
                s
            }
        };
        let expected: syn::Block = syn::parse_quote!({
            let v_which: bool = c;
            let mut s = (if v_which {
                a.iter().map(|t| t * t).sum::<f64>()
            } else {
                b.iter().map(|t| t * t).sum::<f64>()
            });
            if v_which {
                for &t in a {
                    s += t * a[0];
                }
            } else {
                for &t in b {
                    s += t * b[0];
                }
            }
            s
        });
        assert_eq!(body(f), expected.to_token_stream().to_string());
    }

    #[test]
    fn a_choice_used_otherwise_or_an_array_bound_again_is_left_as_written() {
        for f in [
            syn::parse_quote! {
                fn f(a: &[f64], b: &[f64], c: bool) -> f64 {
                    let v = if c { a } else { b };
                    total(v)
                }
            },
            syn::parse_quote! {
                fn f(a: &[f64], b: &[f64], c: bool) -> f64 {
                    let v = if c { a } else { b };
                    let a = [1.0];
                    v[0] + a[0]
                }
            },
            // `v` is a copy of `a` as it was.
            syn::parse_quote! {
                fn f(mut a: [f64; 2], b: [f64; 2], c: bool) -> f64 {
                    let v = if c { a } else { b };
                    a[0] += 1.0;
                    v[0] * a[0]
                }
            },
        ] {
            let f: syn::ItemFn = f;
            let before = f.block.to_token_stream().to_string();
            assert_eq!(body(f), before);
        }
    }
}

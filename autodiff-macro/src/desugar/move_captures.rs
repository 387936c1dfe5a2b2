//! A `move` closure captures what it reads as it is where the closure is
//! made: `let g = move |t| a[0] * t; a[0] = y; g(1.0)` reads the `a` of
//! before the store. The lowering inlines a closure at each call, reading
//! an array (or anything else not a float) as it is at the call. So a
//! variable a `move` closure reads and the statements after it name is
//! copied first, under a name of its own that the closure reads:
//!
//! ```text
//! let g = move |t| a[0] * t;        let a_captured = a;
//! a[0] = y;                   =>    let g = move |t| a_captured[0] * t;
//!                                   a[0] = y;
//! ```
//!
//! The copy moves or copies `a` where the closure would, so the function
//! means the same.

use syn::visit_mut::VisitMut;

use crate::desugar::internal::{collect_idents, FreshNames};

/// `item` with what its `move` closures read and the code after them
/// writes copied before them.
pub fn copied(mut item: syn::ItemFn) -> syn::ItemFn {
    let mut c = Copies {
        names: FreshNames::of(&item),
        locals: bound_names(&item),
        renamed: Vec::new(),
    };
    c.visit_block_mut(&mut item.block);
    item
}

/// The copies [`copied`] makes of `item`'s captures, each with the name it
/// copies (`("a_captured", "a")`): an error about a copy says the name
/// the user wrote (`expand/mod.rs`).
pub fn copy_names(item: &syn::ItemFn) -> Vec<(String, String)> {
    let mut item = item.clone();
    let mut c = Copies {
        names: FreshNames::of(&item),
        locals: bound_names(&item),
        renamed: Vec::new(),
    };
    c.visit_block_mut(&mut item.block);
    c.renamed
}

/// The names the function's patterns bind (its parameters, `let`s, loop
/// variables): a closure's capture is one of these, never a function or
/// a `const` it calls or reads by name.
fn bound_names(item: &syn::ItemFn) -> std::collections::HashSet<String> {
    use syn::visit::Visit;
    struct Bound(std::collections::HashSet<String>);
    impl<'a> Visit<'a> for Bound {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut b = Bound(Default::default());
    b.visit_signature(&item.sig);
    b.visit_block(&item.block);
    b.0
}

struct Copies {
    names: FreshNames,
    /// See [`bound_names`].
    locals: std::collections::HashSet<String>,
    /// Each copy's name and the name it copies.
    renamed: Vec<(String, String)>,
}

impl VisitMut for Copies {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, b);
        let mut i = 0;
        while i < b.stmts.len() {
            // Every name the statements after mention: a write, a method
            // that may change it (`a.fill(0.0)`), or a read (a copy).
            let mut after = std::collections::HashSet::new();
            for s in &b.stmts[i + 1..] {
                collect_idents(quote::ToTokens::to_token_stream(s), &mut after);
            }
            let written: Vec<String> = after.into_iter().collect();
            let Some(copies) = self.copy_captures(&mut b.stmts[i], &written) else {
                i += 1;
                continue;
            };
            let added = copies.len();
            for (k, s) in copies.into_iter().enumerate() {
                b.stmts.insert(i + k, s);
            }
            i += added + 1;
        }
    }
}

impl Copies {
    /// For `let g = move |..| body;` reading locals in `written` (named
    /// after it): the `let`s of their copies, the closure reading them.
    fn copy_captures(
        &mut self,
        stmt: &mut syn::Stmt,
        written: &[String],
    ) -> Option<Vec<syn::Stmt>> {
        let syn::Stmt::Local(l) = stmt else {
            return None;
        };
        let init = l.init.as_mut()?;
        let syn::Expr::Closure(c) = &mut *init.expr else {
            return None;
        };
        c.capture?;
        let mut read = std::collections::HashSet::new();
        collect_idents(quote::ToTokens::to_token_stream(&c.body), &mut read);
        // Its parameters are its own.
        let mut params = std::collections::HashSet::new();
        for p in &c.inputs {
            collect_idents(quote::ToTokens::to_token_stream(p), &mut params);
        }
        read.retain(|n| !params.contains(n) && self.locals.contains(n));
        let mut names: Vec<&String> = written.iter().filter(|w| read.contains(*w)).collect();
        names.sort();
        names.dedup();
        let mut lets = Vec::new();
        for n in names {
            // A name, not a keyword or a literal's word.
            let Ok(from) = syn::parse_str::<syn::Ident>(n) else {
                continue;
            };
            let to = syn::Ident::new(&self.names.fresh(&format!("{n}_captured")), from.span());
            // Only where the closure reads it free (not a parameter or a
            // `let` of its own of that name).
            let renamed = crate::desugar::iterators::rename_free(&c.body, &from, &to)?;
            if renamed == *c.body {
                continue;
            }
            *c.body = renamed;
            self.renamed.push((to.to_string(), from.to_string()));
            lets.push(syn::parse_quote!(let #to = #from;));
        }
        (!lets.is_empty()).then_some(lets)
    }
}

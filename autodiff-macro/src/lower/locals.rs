//! The names patterns bind, and, per open block, the names code the
//! lowering reads as tokens binds itself (`LocalNames`): what tells a
//! loop's or a kept statement's own `let x` from an outer `x`.

use syn::visit::Visit;

pub(super) fn collect_pat_idents(pat: &syn::Pat, out: &mut Vec<syn::Ident>) {
    struct Idents<'o>(&'o mut Vec<syn::Ident>);
    impl<'a> Visit<'a> for Idents<'_> {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    Idents(out).visit_pat(pat);
}

/// The names code read as tokens binds itself, per open block: a visitor
/// of code the lowering does not model (a loop's body scanned for what it
/// assigns, code kept as written) uses it to tell its own `let x` from an
/// outer `x` of the same name.
pub(super) struct LocalNames(Vec<std::collections::HashSet<String>>);

impl LocalNames {
    /// One open block, binding nothing yet.
    pub(super) fn new() -> LocalNames {
        LocalNames(vec![Default::default()])
    }

    /// Whether an open block binds `name`.
    pub(super) fn declared(&self, name: &str) -> bool {
        self.0.iter().any(|s| s.contains(name))
    }

    /// Binds the names of `pat` in the innermost block.
    pub(super) fn declare(&mut self, pat: &syn::Pat) {
        let mut idents = Vec::new();
        collect_pat_idents(pat, &mut idents);
        if let Some(s) = self.0.last_mut() {
            s.extend(idents.into_iter().map(|i| i.to_string()));
        }
    }

    /// Opens a block with `pats` bound.
    pub(super) fn open(&mut self, pats: &[&syn::Pat]) {
        self.0.push(Default::default());
        for p in pats {
            self.declare(p);
        }
    }

    pub(super) fn close(&mut self) {
        self.0.pop();
    }
}

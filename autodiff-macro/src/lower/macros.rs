//! Statement macros (`println!`, `assert!`, a `macro_rules!` of the
//! user's): copied as written, with what they may change and bind.

use super::opaque::is_read_only_macro;
use super::*;

impl Lowerer {
    /// A statement macro (`println!`, `assert!`, ...): copied as written.
    pub(super) fn effect(&mut self, tokens: TokenStream, mac: &syn::Macro, out: &mut Vec<Inst>) {
        let reads = self.reads_of_tokens(mac.tokens.clone());
        // `scale_all!(v, 2.0);`, `accum!(s, x * y);`: a macro of the
        // user's may change a mutable float, array or struct the lowering
        // follows by its values, unseen.
        if !is_read_only_macro(mac) {
            let followed: Vec<String> = reads
                .0
                .iter()
                .map(|(n, _)| n.clone())
                .filter(|n| self.facts.mutable.contains(n) && self.followed_by_value(n))
                .collect();
            if let Some(first) = followed.first() {
                let name = crate::diag::show(&mac.path.to_token_stream());
                error(self, mac, format!(
                    "#[grad] cannot see what the macro `{name}!` does with `{first}`, which it follows by its values and which the macro may change (it is `mut`): write out what the macro does here, or, if it only reads, give it a copy (`let shown = {first}.clone(); {name}!(shown ..)`)"
                ));
                return;
            }
        }
        // Macros of the standard library that only read their arguments
        // leave every variable as it was; any other macro may change the
        // opaque variables it is given.
        let mut defs = if is_read_only_macro(mac) {
            vec![]
        } else {
            self.new_versions(reads.0.iter().map(|(n, _)| n.clone()).collect())
        };
        // `let_sq!(t, x);` that binds `t`, read after: a value of what the
        // macro read, of a type #[grad] does not see.
        if !is_read_only_macro(mac) {
            for n in super::opaque::token_idents(mac.tokens.clone()) {
                if self.lookup(&n).is_none()
                    && self.facts.read_names.contains(&n)
                    && n.starts_with(|c: char| c.is_lowercase() || c == '_')
                {
                    let v =
                        self.new_value(Some(n.clone()), Ty::Unknown, ValueKind::Opaque, mac.span());
                    self.bind(n, Binding::Value(v));
                    defs.push(v);
                }
            }
        }
        out.push(Inst::Verbatim {
            tokens,
            kind: VerbatimKind::Stmt,
            defs,
            reads,
        });
    }
}

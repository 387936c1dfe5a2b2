//! Raw identifiers the function binds (`r#type: f64`, `let r#in = ..`)
//! under plain names of their own (`type_`) in the function the stages
//! read: the generated code derives names from the user's (`d_type`,
//! `type_1`), which a raw identifier's spelling cannot begin. The function
//! kept as written keeps its names; the generated functions' parameters
//! are positional, so their callers see no difference, and errors say the
//! names as written (`expand/mod.rs`).

use std::collections::HashMap;

use syn::visit::Visit;
use syn::visit_mut::VisitMut;

use crate::desugar::internal::FreshNames;

/// `item` with the raw identifiers its patterns bind renamed, and each
/// plain name with the raw one it stands for (`("type_", "r#type")`).
pub fn unraw(item: &syn::ItemFn) -> (syn::ItemFn, Vec<(String, String)>) {
    #[derive(Default)]
    struct Bound(Vec<syn::Ident>);
    impl<'a> Visit<'a> for Bound {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            if p.ident.to_string().starts_with("r#") && !self.0.contains(&p.ident) {
                self.0.push(p.ident.clone());
            }
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut bound = Bound::default();
    bound.visit_item_fn(item);
    if bound.0.is_empty() {
        return (item.clone(), Vec::new());
    }
    let mut names = FreshNames::of(item);
    let renames: HashMap<String, syn::Ident> = bound
        .0
        .iter()
        .map(|raw| {
            let plain = raw.to_string().trim_start_matches("r#").to_string();
            let to = names.fresh(&format!("{plain}_"));
            (raw.to_string(), syn::Ident::new(&to, raw.span()))
        })
        .collect();
    let mut out = item.clone();
    Rename(&renames).visit_item_fn_mut(&mut out);
    let said = renames
        .iter()
        .map(|(raw, plain)| (plain.to_string(), raw.clone()))
        .collect();
    (out, said)
}

/// Each bound raw identifier renamed where it is a pattern's name, a
/// variable read (a path of one segment) or a token of a macro.
struct Rename<'r>(&'r HashMap<String, syn::Ident>);

impl Rename<'_> {
    fn renamed(&self, i: &syn::Ident) -> Option<syn::Ident> {
        let to = self.0.get(&i.to_string())?;
        Some(syn::Ident::new(&to.to_string(), i.span()))
    }

    fn tokens(&self, tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
        use proc_macro2::TokenTree as T;
        tokens
            .into_iter()
            .map(|t| match t {
                T::Ident(i) => T::Ident(self.renamed(&i).unwrap_or(i)),
                T::Group(g) => {
                    let mut inner = proc_macro2::Group::new(g.delimiter(), self.tokens(g.stream()));
                    inner.set_span(g.span());
                    T::Group(inner)
                }
                other => other,
            })
            .collect()
    }
}

impl VisitMut for Rename<'_> {
    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        if let Some(to) = self.renamed(&p.ident) {
            p.ident = to;
        }
        syn::visit_mut::visit_pat_ident_mut(self, p);
    }

    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if p.qself.is_none() && p.path.segments.len() == 1 {
            if let Some(to) = self.renamed(&p.path.segments[0].ident) {
                p.path.segments[0].ident = to;
            }
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = self.tokens(m.tokens.clone());
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    #[test]
    fn a_raw_identifier_bound_is_read_by_a_plain_name() {
        let item: syn::ItemFn =
            syn::parse_str("fn f(x: f64, r#type: f64) -> f64 { let r#in = x * r#type; println!(\"{}\", r#in); r#in + s.r#type }").unwrap();
        let (out, said) = super::unraw(&item);
        assert_eq!(
            out.to_token_stream().to_string(),
            "fn f (x : f64 , type_ : f64) -> f64 { let in_ = x * type_ ; println ! (\"{}\" , in_) ; in_ + s . r#type }"
        );
        let mut said = said;
        said.sort();
        assert_eq!(
            said,
            [
                ("in_".to_string(), "r#in".to_string()),
                ("type_".to_string(), "r#type".to_string())
            ]
        );
    }
}

//! Diagnostics: errors collected across every stage and reported together
//! (each `syn::Error` spanned on the offending tokens), and the way tokens
//! are shown inside a message.

use proc_macro2::TokenStream;
use quote::ToTokens;

/// Adds `err` to the errors collected so far.
pub fn combine(errors: &mut Option<syn::Error>, err: syn::Error) {
    match errors {
        Some(e) => e.combine(err),
        None => *errors = Some(err),
    }
}

/// Tokens as text, with the spacing of `TokenStream::to_string` tidied.
pub fn show(tokens: &TokenStream) -> String {
    let mut s = tokens.to_string();
    for (from, to) in [
        (" . ", "."),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" ,", ","),
        (" :: ", "::"),
        (":: ", "::"),
        (" !", "!"),
        (" ;", ";"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        ("* const ", "*const "),
        ("* mut ", "*mut "),
        ("& [", "&["),
        ("& dyn ", "&dyn "),
        ("& mut ", "&mut "),
        ("& mut[", "&mut ["),
        ("& str", "&str"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        ("& (", "&("),
    ] {
        s = s.replace(from, to);
    }
    s
}

/// The compile errors `errors` (`syn::Error::to_compile_error`), each
/// message's code (what it puts between backticks) with the name `from`
/// as `to`, the spans kept: a struct writer's `self`, which its lowering
/// names otherwise (`desugar/struct_writers.rs`), as the user wrote it.
pub fn renamed_in_code(errors: TokenStream, from: &str, to: &str) -> TokenStream {
    use proc_macro2::TokenTree;
    errors
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => {
                let mut inner =
                    proc_macro2::Group::new(g.delimiter(), renamed_in_code(g.stream(), from, to));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            TokenTree::Literal(l) => match syn::parse2::<syn::LitStr>(l.to_token_stream()) {
                Ok(msg) => {
                    let text = msg
                        .value()
                        .split('`')
                        .enumerate()
                        .map(|(k, part)| match k % 2 {
                            1 => rename_word(part, from, to),
                            _ => part.to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join("`");
                    let mut lit = proc_macro2::Literal::string(&text);
                    lit.set_span(l.span());
                    TokenTree::Literal(lit)
                }
                Err(_) => TokenTree::Literal(l),
            },
            other => other,
        })
        .collect()
}

/// `code` with each whole word `from` as `to`.
fn rename_word(code: &str, from: &str, to: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find(from) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + from.len()..].chars().next();
        out.push_str(&rest[..at]);
        match before.is_some_and(word) || after.is_some_and(word) {
            true => out.push_str(from),
            false => out.push_str(to),
        }
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_renamed_in_code_only_and_the_spans_kept() {
        let err = syn::Error::new(
            proc_macro2::Span::call_site(),
            "this `this` and `&mut this.x`, not `this_1` nor `thisx`",
        );
        let out = renamed_in_code(err.to_compile_error(), "this", "self").to_string();
        assert!(
            out.contains(r#""this `self` and `&mut self.x`, not `this_1` nor `thisx`""#),
            "{out}"
        );
    }
}

//! Diagnostics: errors collected across every stage and reported together
//! (each `syn::Error` spanned on the offending tokens), and the way tokens
//! are shown inside a message.

use proc_macro2::TokenStream;

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

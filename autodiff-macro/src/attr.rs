//! Options of `#[grad(...)]`.

use crate::diag::combine;
use proc_macro2::TokenStream;
use syn::parse::Parser;

/// What the attribute asked for.
#[derive(Default)]
pub struct Options {
    /// `wrt(a, b)`: the parameters to differentiate with respect to; `None`
    /// means every float parameter.
    pub wrt: Option<Vec<syn::Ident>>,
    /// `pullback = rule`: the derivative is `rule`'s, not derived from the
    /// body.
    pub pullback: Option<syn::Path>,
    /// `trace`: also generate `<name>_trace`, the Wengert list with values,
    /// local derivatives, adjoints and the reverse accumulation's steps.
    pub trace: bool,
}

/// Parses the attribute's arguments. Every unknown option is an error.
pub fn parse(attr: TokenStream) -> syn::Result<Options> {
    let mut options = Options::default();
    let mut errors: Option<syn::Error> = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("pullback") {
            if options.pullback.is_some() {
                return Err(meta.error("`pullback` is given twice"));
            }
            options.pullback = Some(meta.value()?.parse()?);
            Ok(())
        } else if meta.path.is_ident("trace") {
            if options.trace {
                return Err(meta.error("`trace` is given twice"));
            }
            options.trace = true;
            Ok(())
        } else if meta.path.is_ident("wrt") {
            if options.wrt.is_some() {
                return Err(
                    meta.error("`wrt` is given twice; list every parameter in one `wrt(...)`")
                );
            }
            if !meta.input.peek(syn::token::Paren) {
                return Err(
                    meta.error("write the parameters in parentheses: `wrt(x)` or `wrt(x, y)`")
                );
            }
            let content;
            syn::parenthesized!(content in meta.input);
            let names = content.parse_terminated(syn::ext::IdentExt::parse_any, syn::Token![,])?;
            for (i, name) in names.iter().enumerate() {
                if names.iter().take(i).any(|earlier| earlier == name) {
                    combine(
                        &mut errors,
                        syn::Error::new_spanned(name, format!("`wrt` names `{name}` twice")),
                    );
                }
            }
            if names.is_empty() {
                return Err(meta.error(
                    "`wrt()` names no parameter; list the parameters to differentiate, as in `wrt(x, y)`, or drop it to differentiate every float parameter",
                ));
            }
            options.wrt = Some(names.into_iter().collect());
            Ok(())
        } else {
            let name = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_else(|| {
                    quote::ToTokens::to_token_stream(&meta.path)
                        .to_string()
                        .replace(' ', "")
                });
            let err = meta.error(format!(
                "unknown option `{name}` of #[grad]; the supported options are `wrt(a, b, ...)`, `pullback = rule` and `trace`"
            ));
            // Skip the option's arguments so that later options are still checked.
            if meta.input.peek(syn::Token![=]) {
                let _: syn::Token![=] = meta.input.parse()?;
                let _: syn::Expr = meta.input.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _content;
                syn::parenthesized!(_content in meta.input);
            }
            combine(&mut errors, err);
            Ok(())
        }
    });
    parser.parse2(attr)?;
    match errors {
        Some(e) => Err(e),
        None => Ok(options),
    }
}

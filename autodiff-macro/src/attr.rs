//! Options of `#[grad(...)]`.

use crate::diag::combine;
use proc_macro2::TokenStream;
use syn::parse::Parser;

/// What the attribute asked for.
#[derive(Clone, Default)]
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
    /// `jvp`: also generate `<name>_jvp`, forward mode: the value and its
    /// derivative along tangents of the active parameters.
    pub jvp: bool,
    /// `hessian`: also generate `<name>_hvp` and `<name>_hessian`, second
    /// derivatives by forward over reverse (`emit/hessian.rs`).
    pub hessian: bool,
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
        } else if meta.path.is_ident("jvp") {
            if options.jvp {
                return Err(meta.error("`jvp` is given twice"));
            }
            options.jvp = true;
            Ok(())
        } else if meta.path.is_ident("hessian") {
            if options.hessian {
                return Err(meta.error("`hessian` is given twice"));
            }
            options.hessian = true;
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
                "unknown option `{name}` of #[grad]; the supported options are `wrt(a, b, ...)`, `pullback = rule`, `trace`, `jvp` and `hessian`"
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

/// Whether `attr` is `#[checkpoint(..)]` or `#[autodiff::checkpoint(..)]`.
pub fn is_checkpoint(attr: &syn::Attribute) -> bool {
    let segments: Vec<String> = attr
        .path()
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    matches!(
        segments
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["checkpoint"] | ["autodiff", "checkpoint"]
    )
}

/// The arguments of a checkpoint attribute: `every = K` or `snapshots =
/// S`, the count an expression.
pub fn checkpoint(attr: &syn::Attribute) -> syn::Result<(crate::ir::Scheme, syn::Expr)> {
    let mut found: Option<(crate::ir::Scheme, syn::Expr)> = None;
    attr.parse_nested_meta(|meta| {
        let scheme = if meta.path.is_ident("every") {
            crate::ir::Scheme::Every
        } else if meta.path.is_ident("snapshots") {
            crate::ir::Scheme::Snapshots
        } else {
            return Err(meta.error(
                "write `every = K` (store the state every K iterations) or `snapshots = S` (binomial checkpointing with S stored states)",
            ));
        };
        if found.is_some() {
            return Err(meta.error("give one of `every` and `snapshots`, once"));
        }
        found = Some((scheme, meta.value()?.parse()?));
        Ok(())
    })?;
    found.ok_or_else(|| {
        syn::Error::new_spanned(
            attr,
            "write `#[checkpoint(every = K)]` or `#[checkpoint(snapshots = S)]`",
        )
    })
}

/// `tokens` without checkpoint attributes, at any depth: only `#[grad]`
/// reads them, and rustc must not meet them, neither in the function kept
/// as written nor in code the expansion copies from it.
pub fn strip_checkpoints(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Delimiter, Group, TokenTree};
    fn is_checkpoint_body(body: &TokenStream) -> bool {
        let words: Vec<String> = body
            .clone()
            .into_iter()
            .take_while(|t| !matches!(t, TokenTree::Group(_)))
            .map(|t| t.to_string())
            .collect();
        matches!(
            words
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice(),
            ["checkpoint"] | ["autodiff", ":", ":", "checkpoint"]
        )
    }
    let mut out = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(t) = iter.next() {
        match t {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if let Some(TokenTree::Group(g)) = iter.peek() {
                    if g.delimiter() == Delimiter::Bracket && is_checkpoint_body(&g.stream()) {
                        iter.next();
                        continue;
                    }
                }
                out.push(TokenTree::Punct(p));
            }
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), strip_checkpoints(g.stream()));
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
            }
            other => out.push(other),
        }
    }
    out.into_iter().collect()
}

/// In the function kept as written, the count of each checkpoint
/// attribute is read before its loop (`let _ = &(every);`), as the
/// generated gradient reads it: a parameter named only there is not
/// unused once the attribute is stripped.
pub fn read_checkpoint_counts(item: &mut syn::ItemFn) {
    use syn::visit_mut::VisitMut;
    struct Counts;
    impl VisitMut for Counts {
        fn visit_block_mut(&mut self, b: &mut syn::Block) {
            let mut stmts = Vec::with_capacity(b.stmts.len());
            for stmt in std::mem::take(&mut b.stmts) {
                if let syn::Stmt::Expr(syn::Expr::ForLoop(l), _) = &stmt {
                    for attr in l.attrs.iter().filter(|a| is_checkpoint(a)) {
                        if let Ok((_, count)) = checkpoint(attr) {
                            if !matches!(count, syn::Expr::Lit(_)) {
                                stmts.push(syn::parse_quote!(let _ = &(#count);));
                            }
                        }
                    }
                }
                stmts.push(stmt);
            }
            b.stmts = stmts;
            syn::visit_mut::visit_block_mut(self, b);
        }
    }
    Counts.visit_item_fn_mut(item);
}

//! The driver: options, lowering, analysis, differentiation, emission.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use crate::attr::combine;

/// Expands `#[grad(attr)] item`: the item as written, followed by its
/// `<name>_grad`, or by the errors found.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let parsed: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let err = not_a_function(&item);
            let err = err.to_compile_error();
            return quote!(#item #err);
        }
    };
    match gradient(attr, &parsed) {
        Ok(grad) => quote!(#parsed #grad),
        Err(err) => {
            let err = err.to_compile_error();
            quote!(#parsed #err)
        }
    }
}

/// Every stage in turn; errors of the options and of the function are
/// reported together.
fn gradient(attr: TokenStream, item: &syn::ItemFn) -> syn::Result<TokenStream> {
    let mut errors = None;
    let options = crate::attr::parse(attr).unwrap_or_else(|e| {
        combine(&mut errors, e);
        Default::default()
    });
    let f = match crate::lower::lower(item, &options) {
        Ok(f) => f,
        Err(e) => {
            combine(&mut errors, e);
            return Err(errors.expect("an error was recorded"));
        }
    };
    if let Some(e) = errors {
        return Err(e);
    }
    let activity = crate::activity::analyse(&f)?;
    let grad = crate::reverse::differentiate(&f, &activity)?;
    Ok(crate::emit::gradient_fn(item, &f, &activity, &grad))
}

/// The error for `#[grad]` on an item that is not a free function.
fn not_a_function(item: &TokenStream) -> syn::Error {
    let what = match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Struct(_)) => "a struct",
        Ok(syn::Item::Enum(_)) => "an enum",
        Ok(syn::Item::Impl(_)) => "an impl block",
        Ok(syn::Item::Trait(_)) => "a trait",
        Ok(syn::Item::Mod(_)) => "a module",
        Ok(syn::Item::Const(_)) => "a constant",
        Ok(syn::Item::Static(_)) => "a static",
        Ok(syn::Item::Type(_)) => "a type alias",
        _ => "this item",
    };
    let span_source = item
        .clone()
        .into_iter()
        .next()
        .map(|t| t.into_token_stream())
        .unwrap_or_default();
    syn::Error::new_spanned(
        span_source,
        format!("#[grad] applies to functions, not to {what}: put it on a `fn` that takes floats and returns one"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch() {
        let item = quote! {
            pub fn f(x1: f64, x2: f64) -> f64 {
                let mut s = x1 * 2.0;
                s += x2;
                let v = vec![1.0, 2.0];
                println!("{s} {x1}");
                let s = s * v[0];
                (x1 - x2).powi(2) + (x1 + x2).cos() + s + sigmoid(x1)
            }
        };
        println!("{}", expand(quote!(), item));
    }
}

//! A vector output's last expression bound to names, so that its elements
//! are values of the Wengert list.

use proc_macro2::Span;

/// What a function returns, as far as the rewrite needs to know.
#[derive(Clone)]
pub enum Output {
    Scalar,
    /// A tuple of this many floats.
    Tuple(usize),
    /// A float array, of the function's return type.
    Array(Box<syn::Type>),
}

/// The body with a vector output's last expression bound to names: a tuple
/// `(a, b)` to `__out0`, `__out1` (the function then returns them), an
/// array expression to `__out`.
pub fn vector_tail(block: &syn::Block, output: Output, prefix: &str) -> syn::Block {
    let mut block = block.clone();
    let Some(syn::Stmt::Expr(last, None)) = block.stmts.last().cloned() else {
        return block;
    };
    match (&output, &last) {
        (&Output::Tuple(n), syn::Expr::Tuple(t)) if t.elems.len() == n => {
            block.stmts.pop();
            let names: Vec<syn::Ident> = (0..n)
                .map(|k| syn::Ident::new(&format!("{prefix}{k}"), Span::call_site()))
                .collect();
            for (name, e) in names.iter().zip(&t.elems) {
                block.stmts.push(syn::parse_quote!(let #name = #e;));
            }
            // The elements are the outputs; the tail only ends the body.
            let first = &names[0];
            block
                .stmts
                .push(syn::Stmt::Expr(syn::parse_quote!(#first), None));
        }
        (Output::Array(ty), e) if !matches!(e, syn::Expr::Path(_)) => {
            block.stmts.pop();
            let out = syn::Ident::new(prefix, Span::call_site());
            // Typed as the function returns it: `xs.iter()..collect()`
            // needs to know what it collects into.
            block.stmts.push(syn::parse_quote!(let #out: #ty = #e;));
            block
                .stmts
                .push(syn::Stmt::Expr(syn::parse_quote!(#out), None));
        }
        _ => {}
    }
    block
}

/// The first `return` in a block (not inside a closure or an item): a
/// vector output is bound at the end of the body, never at a `return`.
pub fn first_return(block: &syn::Block) -> Option<syn::ExprReturn> {
    struct Find(Option<syn::ExprReturn>);
    impl<'a> syn::visit::Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Return(r) if self.0.is_none() => self.0 = Some(r.clone()),
                syn::Expr::Closure(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut f = Find(None);
    syn::visit::Visit::visit_block(&mut f, block);
    f.0
}

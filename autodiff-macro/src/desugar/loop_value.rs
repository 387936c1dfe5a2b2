//! A `loop` that yields a value, `let r = loop { ..; if done { break v; } };`,
//! as the plain loop it is followed by the value: `loop { ..; if done {
//! break; } } let r = v;`. A `break` leaves the loop at once, so every
//! variable `v` reads holds, after the loop, what it held at the `break`;
//! this holds where every `break` gives the same value. Where the breaks
//! give different values, or the value reads a variable declared inside
//! the loop (whose scope ends with it), each `break` stores its value
//! first in a variable of the function's, `result = v; break;`, declared
//! before the loop with its type left to rustc (`Default::default()`).

use std::collections::HashSet;

use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// The statements before the loop, the loop without its break values,
/// and the value; `None` where no `break` of this loop has a value; `Err`
/// with the offending tokens and the message where it cannot be
/// rewritten. `result`: a name of the macro's, for a value that reads the
/// loop's own variables.
#[allow(clippy::type_complexity)]
pub fn split(
    l: &syn::ExprLoop,
    result: &syn::Ident,
) -> Option<Result<(Vec<syn::Stmt>, syn::ExprLoop, syn::Expr), (proc_macro2::TokenStream, String)>>
{
    let result = result.clone();
    let mut breaks = Breaks::default();
    breaks.visit_block(&l.body);
    let first = breaks.values.first()?.clone();
    let shown = |e: &syn::Expr| quote::ToTokens::to_token_stream(e).to_string();
    let differ = breaks.values.iter().any(|v| shown(v) != shown(&first));
    let mut locals = Locals::default();
    locals.visit_block(&l.body);
    let mut reads = Reads::default();
    reads.visit_expr(&first);
    let mut plain = l.clone();
    if differ || reads.0.iter().any(|n| locals.0.contains(n)) {
        // The breaks give different values, or the value reads a variable
        // of the loop's body (`break next;`): each is kept in a variable of
        // the function at its `break`.
        let mut stash = Stash {
            name: result.clone(),
        };
        stash.visit_block_mut(&mut plain.body);
        if Breaks::default().valued(&plain.body) {
            return Some(Err((
                quote::ToTokens::to_token_stream(&first),
                "#[grad] differentiates a `loop` that yields a value with `break v;` as a statement (as in `if done { break v; }`): assign the value to a variable declared before the loop, then `break;`".to_string(),
            )));
        }
        let declare: syn::Stmt =
            syn::parse_quote!(let mut #result = ::core::default::Default::default(););
        return Some(Ok((vec![declare], plain, syn::parse_quote!(#result))));
    }
    Unvalue.visit_block_mut(&mut plain.body);
    Some(Ok((Vec::new(), plain, first)))
}

/// Every `break v;` of the loop as `result = v; break;`, two statements
/// of its block, so that the `break` stays at the end of its branch.
struct Stash {
    name: syn::Ident,
}

impl VisitMut for Stash {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mut stmts = Vec::with_capacity(b.stmts.len() + 1);
        for mut stmt in std::mem::take(&mut b.stmts) {
            match &mut stmt {
                syn::Stmt::Expr(syn::Expr::Break(br), semi)
                    if br.label.is_none() && br.expr.is_some() =>
                {
                    let name = &self.name;
                    let v = br.expr.take();
                    stmts.push(syn::parse_quote!(#name = #v;));
                    stmts.push(syn::Stmt::Expr(
                        syn::Expr::Break(br.clone()),
                        semi.or(Some(Default::default())),
                    ));
                }
                _ => {
                    self.visit_stmt_mut(&mut stmt);
                    stmts.push(stmt);
                }
            }
        }
        b.stmts = stmts;
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::ForLoop(_)
            | syn::Expr::While(_)
            | syn::Expr::Loop(_)
            | syn::Expr::Closure(_) => {}
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// The values of the `break`s of one loop (not of an inner loop or a
/// closure).
#[derive(Default)]
struct Breaks {
    values: Vec<syn::Expr>,
}

impl Breaks {
    /// Whether a `break` of the loop still has a value.
    fn valued(mut self, body: &syn::Block) -> bool {
        self.visit_block(body);
        !self.values.is_empty()
    }
}

impl<'a> Visit<'a> for Breaks {
    fn visit_expr(&mut self, e: &'a syn::Expr) {
        match e {
            syn::Expr::Break(b) if b.label.is_none() => {
                if let Some(v) = &b.expr {
                    self.values.push((**v).clone());
                }
            }
            syn::Expr::ForLoop(_)
            | syn::Expr::While(_)
            | syn::Expr::Loop(_)
            | syn::Expr::Closure(_) => {}
            _ => syn::visit::visit_expr(self, e),
        }
    }
}

/// The variables an expression names.
#[derive(Default)]
struct Reads(Vec<String>);

impl<'a> Visit<'a> for Reads {
    fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
        if let Some(i) = p.path.get_ident() {
            self.0.push(i.to_string());
        }
    }
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        let mut names = HashSet::new();
        crate::desugar::internal::collect_idents(m.tokens.clone(), &mut names);
        self.0.extend(names);
    }
}

/// The names bound inside the loop, by `let` or a pattern.
#[derive(Default)]
struct Locals(HashSet<String>);

impl<'a> Visit<'a> for Locals {
    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        self.0.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
}

/// Every `break v` of the loop as `break`.
struct Unvalue;

impl VisitMut for Unvalue {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Break(b) if b.label.is_none() => b.expr = None,
            syn::Expr::ForLoop(_)
            | syn::Expr::While(_)
            | syn::Expr::Loop(_)
            | syn::Expr::Closure(_) => {}
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

//! Syntax rewritten into simpler syntax before lowering: jumps in loops
//! into flags and branches, guard clauses into `if`/`else`, iterator
//! reductions into index loops, a vector output's tail into names. Each
//! rewrite is syntax to syntax, so what it does can be read (and tested)
//! as the Rust it produces.

pub mod fallible;
pub mod generic;
pub mod if_let;
pub mod internal;
pub mod iterators;
pub mod jumps;
pub mod labels;
pub mod local_structs;
pub mod loop_value;
pub mod mut_params;
pub mod outputs;
pub mod refs;
pub mod whole_arrays;

/// `{ stmts.. tail }` as an expression, built as syntax instead of parsed
/// back from tokens: a tail that starts with a block (an `if` with an
/// `else`, then `+ d`) would parse as a statement followed by `+ d`, an
/// error on which the macro panicked. Printed, syn parenthesises such a
/// tail.
pub fn block_expr(mut stmts: Vec<syn::Stmt>, tail: Option<syn::Expr>) -> syn::Expr {
    stmts.extend(tail.map(|t| syn::Stmt::Expr(t, None)));
    expr_of(syn::Block {
        brace_token: Default::default(),
        stmts,
    })
}

/// A block as an expression.
pub fn expr_of(block: syn::Block) -> syn::Expr {
    syn::Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block,
    })
}

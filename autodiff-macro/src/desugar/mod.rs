//! Syntax rewritten into simpler syntax before lowering: jumps in loops
//! into flags and branches, guard clauses into `if`/`else`, iterator
//! reductions into index loops, a vector output's tail into names. Each
//! rewrite is syntax to syntax, so what it does can be read (and tested)
//! as the Rust it produces.

pub mod annotations;
pub mod call_copies;
pub mod chosen_refs;
pub mod chosen_structs;
pub mod dropped_values;
pub mod extends;
pub mod fallible;
pub mod float_twin;
pub mod generic;
pub mod groups;
pub mod hoisted;
pub mod if_let;
pub mod internal;
pub mod iterator_loops;
pub mod iterators;
pub mod jumps;
pub mod labels;
pub mod local_structs;
pub mod loop_value;
pub mod move_captures;
pub mod mut_params;
pub mod nalgebra;
pub mod outputs;
pub mod param_patterns;
pub mod raw_idents;
pub mod rebinds;
pub mod refs;
pub mod row_copies;
pub mod struct_vecs;
pub mod struct_writers;
pub mod sub_slices;
pub mod tail_loops;
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

/// Whether `op` assigns in place: `+=`, `-=`, .., `>>=`.
pub fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::AddAssign(_)
            | B::SubAssign(_)
            | B::MulAssign(_)
            | B::DivAssign(_)
            | B::RemAssign(_)
            | B::BitXorAssign(_)
            | B::BitAndAssign(_)
            | B::BitOrAssign(_)
            | B::ShlAssign(_)
            | B::ShrAssign(_)
    )
}

/// `stmts` with each guard clause, an `if` without `else` that `is_guard`
/// accepts followed by the rest of the statements, as the branch `if c {
/// .. } else { rest }` that ends them, in the rest too; `guard` rewrites
/// the guard's own block (its final `return` dropped, say).
pub fn guards_as_branches(
    mut stmts: Vec<syn::Stmt>,
    is_guard: &dyn Fn(&syn::ExprIf) -> bool,
    guard: &dyn Fn(&mut syn::Block),
) -> Vec<syn::Stmt> {
    let found = stmts.iter().position(|s| {
        matches!(s, syn::Stmt::Expr(syn::Expr::If(x), _) if x.else_branch.is_none() && is_guard(x))
    });
    let Some(i) = found else {
        return stmts;
    };
    let mut rest = stmts.split_off(i);
    let first = rest.remove(0);
    let rest = guards_as_branches(rest, is_guard, guard);
    match first {
        syn::Stmt::Expr(syn::Expr::If(mut x), _) => {
            guard(&mut x.then_branch);
            x.else_branch = Some((Default::default(), Box::new(block_expr(rest, None))));
            stmts.push(syn::Stmt::Expr(syn::Expr::If(x), None));
        }
        other => {
            stmts.push(other);
            stmts.extend(rest);
        }
    }
    stmts
}

/// The items of `vec![a, b]` or `vec![v; n]`, as the array expression
/// they list, given to `f` and written back: the rewrites that read a
/// body's expressions read these too (syn leaves a macro's tokens
/// unparsed). `false` where `m` is no `vec!` (`vec`, `std::vec`,
/// `alloc::vec`) or its tokens are no list.
pub fn vec_items(m: &mut syn::Macro, f: impl FnOnce(&mut syn::Expr)) -> bool {
    let segs = &m.path.segments;
    let is_vec = segs.last().is_some_and(|s| s.ident == "vec")
        && segs.len() <= 2
        && segs
            .iter()
            .rev()
            .skip(1)
            .all(|s| s.ident == "std" || s.ident == "alloc");
    if !is_vec {
        return false;
    }
    let tokens = &m.tokens;
    let Ok(mut listed) = syn::parse2::<syn::Expr>(quote::quote!([#tokens])) else {
        return false;
    };
    f(&mut listed);
    m.tokens = match listed {
        syn::Expr::Array(a) => quote::ToTokens::into_token_stream(a.elems),
        syn::Expr::Repeat(r) => {
            let (v, n) = (r.expr, r.len);
            quote::quote!(#v; #n)
        }
        _ => return false,
    };
    true
}

/// Statements of a function returning nothing with each guard clause,
/// `if c { ..; return; }` followed by `rest`, as `if c { .. } else { rest
/// }`, in the branches too.
pub fn unit_guards(stmts: Vec<syn::Stmt>) -> Vec<syn::Stmt> {
    fn is_return(s: &syn::Stmt) -> bool {
        matches!(s, syn::Stmt::Expr(syn::Expr::Return(r), _) if r.expr.is_none())
    }
    fn drop_return(b: &mut syn::Block) {
        b.stmts.pop();
        b.stmts = unit_guards(std::mem::take(&mut b.stmts));
    }
    guards_as_branches(
        stmts,
        &|x| x.then_branch.stmts.last().is_some_and(is_return),
        &drop_return,
    )
}

/// A body that returned nothing as the one returning the last values of
/// `names` (one name: its value; several: their tuple): every `return;`
/// as `return` of them, spanned at the user's `return`, and them as the
/// tail.
pub fn returning(block: &mut syn::Block, names: &[syn::Ident]) {
    let value = |span: proc_macro2::Span| -> syn::Expr {
        match names {
            [one] => syn::parse_quote_spanned!(span=> #one),
            _ => syn::parse_quote_spanned!(span=> (#(#names),*)),
        }
    };
    struct Returns<'a>(&'a dyn Fn(proc_macro2::Span) -> syn::Expr);
    impl syn::visit_mut::VisitMut for Returns<'_> {
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            match e {
                syn::Expr::Return(r) if r.expr.is_none() => {
                    r.expr = Some(Box::new((self.0)(r.return_token.span)));
                }
                syn::Expr::Closure(_) => {}
                _ => syn::visit_mut::visit_expr_mut(self, e),
            }
        }
    }
    syn::visit_mut::VisitMut::visit_block_mut(&mut Returns(&value), block);
    // A last expression of type `()` (`x += 1.0` without `;` cannot be, but
    // a block or a call can) becomes a statement.
    if let Some(syn::Stmt::Expr(_, semi @ None)) = block.stmts.last_mut() {
        *semi = Some(Default::default());
    }
    let tail = value(block.brace_token.span.close());
    block.stmts.push(syn::Stmt::Expr(tail, None));
}

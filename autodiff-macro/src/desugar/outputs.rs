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
    /// A struct.
    Struct,
}

/// The body with a vector output's last expression bound to names: a tuple
/// `(a, b)` to `__out0`, `__out1` (the function then returns them), an
/// array expression to `__out`.
pub fn vector_tail(block: &syn::Block, output: Output, prefix: &str) -> syn::Block {
    if let Output::Struct = output {
        return struct_tail(block, prefix);
    }
    let mut block = block.clone();
    if let Output::Array(_) = output {
        // `if n == 0.0 { None } else { Some([..]) }` of a fallible one, its
        // error a `return` by now (`desugar/fallible.rs`): the guard
        // clause and the array after it.
        block.stmts = leaving_arms_as_guards(std::mem::take(&mut block.stmts));
    }
    if let Output::Tuple(_) = output {
        // `if c { ..; return (a, b); }` followed by the rest: the branch
        // that ends the body.
        block.stmts = guards_as_tail(std::mem::take(&mut block.stmts));
    }
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
        // `if c { (a, b) } else { .. }`, a `match` or a block: each branch
        // assigns the names, which are declared before it.
        (&Output::Tuple(n), e) => {
            let names: Vec<syn::Ident> = (0..n)
                .map(|k| syn::Ident::new(&format!("{prefix}{k}"), Span::call_site()))
                .collect();
            if let Some(assigned) = assign_tails(e, &names, true) {
                block.stmts.pop();
                for name in &names {
                    block.stmts.push(syn::parse_quote!(let #name;));
                }
                block.stmts.push(syn::Stmt::Expr(assigned, None));
                let first = &names[0];
                block
                    .stmts
                    .push(syn::Stmt::Expr(syn::parse_quote!(#first), None));
            }
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

/// A struct output built in each branch of the body's last expression
/// (`if c { P { x: a, y: b } } else { P { x: p, y: q } }`, a `match`, a
/// block, nested; also bound by a `let` and named last), every branch
/// naming the same fields: each field's value assigned to a name of its
/// own in each branch ([`assign_tails`]), then the struct built once from
/// them, `P { x: out_x, y: out_y }`, which the lowering takes. Anything
/// else as written.
fn struct_tail(block: &syn::Block, prefix: &str) -> syn::Block {
    let mut block = block.clone();
    let n = block.stmts.len();
    let Some(syn::Stmt::Expr(last, None)) = block.stmts.last() else {
        return block;
    };
    // `let out = if c { P { .. } } else { .. }; out`.
    let bound = match (last, n.checked_sub(2).map(|k| &block.stmts[k])) {
        (syn::Expr::Path(p), Some(syn::Stmt::Local(l))) => {
            let named = matches!(&l.pat, syn::Pat::Ident(i)
                if i.by_ref.is_none() && i.subpat.is_none() && p.path.is_ident(&i.ident));
            let init = l
                .init
                .as_ref()
                .filter(|i| i.diverge.is_none() && l.attrs.is_empty());
            init.filter(|_| named).map(|i| (*i.expr).clone())
        }
        _ => None,
    };
    let (tail, taken) = match bound {
        Some(e) => (e, 2),
        None => (last.clone(), 1),
    };
    if matches!(tail, syn::Expr::Struct(_)) {
        return block;
    }
    let Some((path, fields)) = literal_tails(&tail) else {
        return block;
    };
    let as_tuples = map_tails(&tail, false, &|e| {
        let syn::Expr::Struct(st) = e else {
            return None;
        };
        let values = fields.iter().map(|f| {
            st.fields
                .iter()
                .find(|g| matches!(&g.member, syn::Member::Named(n) if n == f))
                .map(|g| g.expr.clone())
        });
        let values: Vec<syn::Expr> = values.collect::<Option<_>>()?;
        Some(syn::parse_quote!((#(#values,)*)))
    });
    let names: Vec<syn::Ident> = fields
        .iter()
        .map(|f| syn::Ident::new(&format!("{prefix}_{f}"), f.span()))
        .collect();
    let Some(assigned) = as_tuples.and_then(|t| assign_tails(&t, &names, false)) else {
        return block;
    };
    block.stmts.truncate(n - taken);
    for name in &names {
        block.stmts.push(syn::parse_quote!(let #name;));
    }
    block.stmts.push(syn::Stmt::Expr(assigned, None));
    block.stmts.push(syn::Stmt::Expr(
        syn::parse_quote!(#path { #(#fields: #names),* }),
        None,
    ));
    block
}

/// The path and the fields (in the first's order) of the struct literal
/// every branch of `e` ends in, where all name the same fields and none
/// takes the rest from another (`..p`).
fn literal_tails(e: &syn::Expr) -> Option<(syn::Path, Vec<syn::Ident>)> {
    let mut found: Vec<(syn::Path, Vec<syn::Ident>)> = Vec::new();
    for t in branch_tails(e)? {
        let syn::Expr::Struct(st) = t else {
            return None;
        };
        if st.rest.is_some() || st.qself.is_some() {
            return None;
        }
        let named = st.fields.iter().map(|f| match &f.member {
            syn::Member::Named(n) => Some(n.clone()),
            syn::Member::Unnamed(_) => None,
        });
        found.push((st.path.clone(), named.collect::<Option<_>>()?));
    }
    let (path, fields) = found.first()?.clone();
    let key = |fs: &[syn::Ident]| {
        let mut k: Vec<String> = fs.iter().map(|f| f.to_string()).collect();
        k.sort();
        k
    };
    let shown = |p: &syn::Path| quote::ToTokens::to_token_stream(p).to_string();
    let same = found
        .iter()
        .all(|(p, fs)| shown(p) == shown(&path) && key(fs) == key(&fields));
    same.then_some((path, fields))
}

/// The last expression of each branch of `e` (`map_tails`'s, without
/// `returns`).
fn branch_tails(e: &syn::Expr) -> Option<Vec<&syn::Expr>> {
    fn block_tail(b: &syn::Block) -> Option<&syn::Expr> {
        match b.stmts.last() {
            Some(syn::Stmt::Expr(t, None)) => Some(t),
            _ => None,
        }
    }
    match e {
        syn::Expr::Paren(p) => branch_tails(&p.expr),
        syn::Expr::Block(b) if b.label.is_none() => branch_tails(block_tail(&b.block)?),
        syn::Expr::If(x) => {
            let mut out = branch_tails(block_tail(&x.then_branch)?)?;
            out.extend(branch_tails(&x.else_branch.as_ref()?.1)?);
            Some(out)
        }
        syn::Expr::Match(m) => {
            let mut out = Vec::new();
            for arm in &m.arms {
                out.extend(branch_tails(&arm.body)?);
            }
            Some(out)
        }
        other => Some(vec![other]),
    }
}

/// `e` with the last expression of each of its branches (an `if` with an
/// `else`, a `match`, a block, nested) replaced by `f` of it; `None`
/// where a branch has no last expression or `f` gives none. `returns`:
/// `return v` at a branch's end counts as its last expression, `v` (the
/// tail of a body).
fn map_tails(
    e: &syn::Expr,
    returns: bool,
    f: &dyn Fn(&syn::Expr) -> Option<syn::Expr>,
) -> Option<syn::Expr> {
    let block_tail = |b: &syn::Block| -> Option<syn::Block> {
        let mut b = b.clone();
        let t = match b.stmts.pop()? {
            syn::Stmt::Expr(t, None) => t,
            syn::Stmt::Expr(t @ syn::Expr::Return(_), Some(_)) if returns => t,
            _ => return None,
        };
        b.stmts
            .push(syn::Stmt::Expr(map_tails(&t, returns, f)?, None));
        Some(b)
    };
    match e {
        syn::Expr::Paren(p) => map_tails(&p.expr, returns, f),
        syn::Expr::Return(r) if returns => map_tails(r.expr.as_deref()?, returns, f),
        syn::Expr::Block(b) if b.label.is_none() => {
            let mut b = b.clone();
            b.block = block_tail(&b.block)?;
            Some(syn::Expr::Block(b))
        }
        syn::Expr::If(x) => {
            let mut x = x.clone();
            x.then_branch = block_tail(&x.then_branch)?;
            let (_, other) = x.else_branch.as_mut()?;
            **other = map_tails(other, returns, f)?;
            Some(syn::Expr::If(x))
        }
        syn::Expr::Match(m) => {
            let mut m = m.clone();
            for arm in &mut m.arms {
                *arm.body = map_tails(&arm.body, returns, f)?;
                arm.comma = Some(Default::default());
            }
            Some(syn::Expr::Match(m))
        }
        other => f(other),
    }
}

/// `e`, whose value is a tuple of `names.len()` elements in every branch
/// (`if c { (a, b) } else { (p, q) }`, a `match`, a block, nested), as the
/// statement that assigns each element to its name in each branch
/// instead (`if c { n0 = a; n1 = b; } else { .. }`); `returns`: `return
/// (a, b)` at a branch's end counts as its value (the tail of a body).
/// A branch ending with a call is destructured by a `let` of its own;
/// `None` where a branch ends otherwise (a variable, a jump).
pub fn assign_tails(e: &syn::Expr, names: &[syn::Ident], returns: bool) -> Option<syn::Expr> {
    map_tails(e, returns, &|tail| match tail {
        syn::Expr::Tuple(t) if t.elems.len() == names.len() => {
            let stmts = names
                .iter()
                .zip(&t.elems)
                .map(|(n, e)| -> syn::Stmt { syn::parse_quote!(#n = #e;) });
            Some(syn::parse_quote!({ #(#stmts)* }))
        }
        // A call returning the tuple (`if flip { polar(r, t) } else { .. }`):
        // destructured by a `let` of its own, then assigned.
        syn::Expr::Call(_) | syn::Expr::MethodCall(_) => {
            let parts: Vec<syn::Ident> = names
                .iter()
                .map(|n| syn::Ident::new(&format!("{n}_part"), n.span()))
                .collect();
            Some(syn::parse_quote!({
                let (#(#parts),*) = #tail;
                #(#names = #parts;)*
            }))
        }
        _ => None,
    })
}

/// The statements of a body with each guard clause, `if c { ..; return v;
/// }` followed by the rest, as the branch `if c { ..; return v; } else {
/// rest }` that ends it, in the rest too.
fn guards_as_tail(stmts: Vec<syn::Stmt>) -> Vec<syn::Stmt> {
    super::guards_as_branches(
        stmts,
        &|x| {
            matches!(x.then_branch.stmts.last(),
                Some(syn::Stmt::Expr(syn::Expr::Return(r), _)) if r.expr.is_some() && !leaves_with_error(r))
        },
        &|_| {},
    )
}

/// The first `return` of a value in a block (not inside a closure or an
/// item): a vector output is bound at the end of the body, never at a
/// `return`. A fallible function's `return None;` and `return Err(e);`
/// leave as written (`desugar/fallible.rs`), and are not counted.
pub fn first_return(block: &syn::Block) -> Option<syn::ExprReturn> {
    struct Find(Option<syn::ExprReturn>);
    impl<'a> syn::visit::Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Return(r) if self.0.is_none() && !leaves_with_error(r) => {
                    self.0 = Some(r.clone())
                }
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

/// `return None` or `return Err(e)`: a fallible function leaving with its
/// error, as written.
fn leaves_with_error(r: &syn::ExprReturn) -> bool {
    match r.expr.as_deref() {
        Some(syn::Expr::Path(p)) => p.path.is_ident("None"),
        Some(syn::Expr::Call(c)) => {
            matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("Err"))
        }
        _ => false,
    }
}

/// A body ending with `return e;` as the one ending with `e`, the same
/// function (not where `e` is a fallible function's error): a vector output is bound at the end of the body, where a
/// `return` would leave it.
pub fn return_as_tail(block: &syn::Block) -> syn::Block {
    let mut block = block.clone();
    // Not a fallible function's error, `return Err(e)`, which leaves.
    if let Some(syn::Stmt::Expr(syn::Expr::Return(r), _)) = block.stmts.last() {
        if let Some(e) = r.expr.as_ref().filter(|_| !leaves_with_error(r)) {
            let e = (**e).clone();
            block.stmts.pop();
            block.stmts.push(syn::Stmt::Expr(e, None));
        }
    }
    block
}

/// A last `if c { ..; return e } else { rest }` as the guard clause `if c
/// { ..; return e; }` followed by `rest`'s statements (an `else if` in
/// turn): the same runs, with the value at the end of the body.
fn leaving_arms_as_guards(mut stmts: Vec<syn::Stmt>) -> Vec<syn::Stmt> {
    let Some(syn::Stmt::Expr(syn::Expr::If(x), None)) = stmts.last() else {
        return stmts;
    };
    let leaves = matches!(
        x.then_branch.stmts.last(),
        Some(syn::Stmt::Expr(syn::Expr::Return(_), _))
    );
    let Some((_, other)) = x.else_branch.as_ref().filter(|_| leaves) else {
        return stmts;
    };
    let rest: Vec<syn::Stmt> = match &**other {
        syn::Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.stmts.clone(),
        other => vec![syn::Stmt::Expr(other.clone(), None)],
    };
    let mut guard = x.clone();
    guard.else_branch = None;
    if let Some(syn::Stmt::Expr(r, semi @ None)) = guard.then_branch.stmts.last_mut() {
        if matches!(r, syn::Expr::Return(_)) {
            *semi = Some(Default::default());
        }
    }
    stmts.pop();
    stmts.push(syn::Stmt::Expr(syn::Expr::If(guard), None));
    stmts.extend(leaving_arms_as_guards(rest));
    stmts
}

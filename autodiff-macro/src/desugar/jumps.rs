//! `break`, `continue` and `return` in loops rewritten into flags and
//! branches, and guard clauses into `if`/`else`.

use syn::visit::Visit;

mod match_arms;

/// Whether an expression holds a `return` (not inside a closure).
pub fn has_return(e: &syn::Expr) -> bool {
    struct Find(bool);
    impl<'a> Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Return(_) => self.0 = true,
                syn::Expr::Closure(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut f = Find(false);
    f.visit_expr(e);
    f.0
}

pub fn stmt_has_return(stmt: &syn::Stmt) -> bool {
    match stmt {
        syn::Stmt::Expr(e, _) => has_return(e),
        syn::Stmt::Local(l) => l.init.as_ref().is_some_and(|i| has_return(&i.expr)),
        _ => false,
    }
}

/// Whether a statement holds a `break` or `continue` of the loop it is in
/// (not of an inner loop or closure).
pub fn has_jump(stmt: &syn::Stmt) -> bool {
    struct Find(bool);
    impl<'a> Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Break(_) | syn::Expr::Continue(_) => self.0 = true,
                syn::Expr::ForLoop(_)
                | syn::Expr::While(_)
                | syn::Expr::Loop(_)
                | syn::Expr::Closure(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut f = Find(false);
    f.visit_stmt(stmt);
    f.0
}

/// A loop body's `break`s and `continue`s as structured code: where one
/// ends a branch of an `if` or an arm of a `match` (`if let` is the
/// `match` it stands for), the statements after the `if` or the `match`
/// go into the other branches, `continue` ends its branch, and `break`
/// sets `flag`, which the loop tests at the end of the iteration.
/// `returns`: in a function whose loops may `return`, the variables that
/// hold the returned value and say that it was (a `return` sets both, and
/// the flag). `None` if a jump stands anywhere else or has a label or a
/// value, or if a pattern of a `match` binds a name that the statements
/// after the `match` read (they would read the arm's).
pub fn rewrite_jumps(
    stmts: &[syn::Stmt],
    breaks: &mut bool,
    returns: Option<(&syn::Ident, &syn::Ident)>,
    flag: &syn::Ident,
) -> Option<Vec<syn::Stmt>> {
    let mut out = Vec::new();
    for (i, stmt) in stmts.iter().enumerate() {
        let inner_return = returns.is_some()
            && matches!(stmt, syn::Stmt::Expr(e @ (syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_)), _) if has_return(e));
        if inner_return {
            // An inner loop that returns leaves this one too.
            out.push(stmt.clone());
            let (_, returned) = returns?;
            let leave: Vec<syn::Stmt> = std::iter::once(syn::parse_quote!(if #returned { break; }))
                .chain(stmts[i + 1..].iter().cloned())
                .collect();
            out.extend(rewrite_jumps(&leave, breaks, returns, flag)?);
            return Some(out);
        }
        if !(has_jump(stmt) || returns.is_some() && stmt_has_return(stmt)) {
            out.push(stmt.clone());
            continue;
        }
        // `let want = match depth[i] { Some(w) => w, None => continue };`:
        // the name bound first, assigned in each branch that does not
        // jump, so that the `match` is a statement whose jumps the rest
        // goes around.
        if let Some(assigned) = let_of_branches(stmt, flag) {
            let all: Vec<syn::Stmt> = assigned
                .into_iter()
                .chain(stmts[i + 1..].iter().cloned())
                .collect();
            out.extend(rewrite_jumps(&all, breaks, returns, flag)?);
            return Some(out);
        }
        let rest = &stmts[i + 1..];
        let mut jumps = Jumps {
            breaks,
            returns,
            flag,
        };
        match stmt {
            syn::Stmt::Expr(syn::Expr::Return(r), _) if returns.is_some() => {
                let (ret, returned) = returns?;
                let value = r.expr.as_ref()?;
                *jumps.breaks = true;
                out.push(syn::parse_quote!(#ret = #value;));
                out.push(syn::parse_quote!(#returned = true;));
                out.push(syn::parse_quote!(#flag = true;));
                return Some(terminated(out));
            }
            syn::Stmt::Expr(syn::Expr::Break(b), _) if b.label.is_none() && b.expr.is_none() => {
                *jumps.breaks = true;
                out.push(syn::parse_quote!(#flag = true;));
                return Some(terminated(out));
            }
            syn::Stmt::Expr(syn::Expr::Continue(c), _) if c.label.is_none() => {
                return Some(terminated(out))
            }
            syn::Stmt::Expr(syn::Expr::If(x), _) if !matches!(*x.cond, syn::Expr::Let(_)) => {
                if jumps.hides(&x.cond) {
                    return None;
                }
                let mut new = x.clone();
                new.then_branch = jumps.branch(x.then_branch.stmts.clone(), rest)?;
                let else_own = match &x.else_branch {
                    None => Vec::new(),
                    Some((_, e)) => match &**e {
                        syn::Expr::Block(b) if b.label.is_none() => b.block.stmts.clone(),
                        syn::Expr::If(_) => vec![syn::Stmt::Expr((**e).clone(), None)],
                        _ => return None,
                    },
                };
                let else_block = jumps.branch(else_own, rest)?;
                new.else_branch = Some((Default::default(), Box::new(super::expr_of(else_block))));
                out.push(syn::Stmt::Expr(syn::Expr::If(new), None));
                return Some(out);
            }
            syn::Stmt::Expr(syn::Expr::If(x), _) => {
                let m = super::if_let::as_match(x)?;
                out.push(match_arms::rewrite(&m, rest, jumps)?);
                return Some(out);
            }
            syn::Stmt::Expr(syn::Expr::Match(m), _) => {
                out.push(match_arms::rewrite(m, rest, jumps)?);
                return Some(out);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// `let x = if c { a } else { continue };` (a `match` too, `let mut x`,
/// `let x: T`), some branch ending in a jump: `let x;` and the branches as
/// a statement, each that does not jump assigning its value to `x`.
/// `None` for another statement. `flag`, a name of the macro's, names
/// what a `let .. else` binds apart (`let_else_as_match`).
fn let_of_branches(stmt: &syn::Stmt, flag: &syn::Ident) -> Option<Vec<syn::Stmt>> {
    // `s = match i % 4 { 3 => break, k => s * k as f64 };`, `s += if ..`:
    // each branch that does not jump assigns.
    if let syn::Stmt::Expr(e, Some(_)) = stmt {
        let (left, op, right) = match e {
            syn::Expr::Assign(a) => (&a.left, quote::quote!(=), &a.right),
            syn::Expr::Binary(b) if super::is_compound_assign(&b.op) => {
                let op = &b.op;
                (&b.left, quote::quote!(#op), &b.right)
            }
            _ => return None,
        };
        if !matches!(&**right, syn::Expr::If(_) | syn::Expr::Match(_)) {
            return None;
        }
        let assigned = assign_in_branches(
            right,
            &|v| syn::parse_quote_spanned!(syn::spanned::Spanned::span(v)=> { #left #op #v; }),
        )?;
        return Some(vec![syn::Stmt::Expr(assigned, Some(Default::default()))]);
    }
    let syn::Stmt::Local(l) = stmt else {
        return None;
    };
    if let Some(matched) = let_else_as_match(l, flag) {
        return let_of_branches(&syn::Stmt::Local(matched), flag);
    }
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    if !l.attrs.is_empty() || !matches!(&*init.expr, syn::Expr::If(_) | syn::Expr::Match(_)) {
        return None;
    }
    let (ident, ty) = match &l.pat {
        syn::Pat::Ident(p) => (p, None),
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(p) => (p, Some(&t.ty)),
            _ => return None,
        },
        _ => return None,
    };
    if ident.by_ref.is_some() || ident.subpat.is_some() {
        return None;
    }
    let name = &ident.ident;
    let assigned = assign_in_branches(
        &init.expr,
        &|v| syn::parse_quote_spanned!(syn::spanned::Spanned::span(v)=> { #name = #v; }),
    )?;
    let (mutability, ty) = (ident.mutability, ty.map(|t| quote::quote!(: #t)));
    let bound: syn::Stmt = syn::parse_quote!(let #mutability #name #ty;);
    Some(vec![
        bound,
        syn::Stmt::Expr(assigned, Some(Default::default())),
    ])
}

/// `let Some(w) = depth[i] else { continue };`, its pattern binding one
/// name, as the `let w = match depth[i] { Some(w_) => w_, _ => { continue }
/// };` it stands for, the arm's name apart from `w` (`{flag}_w`), which
/// the statements after the `match`, moved into the arm, read.
fn let_else_as_match(l: &syn::Local, flag: &syn::Ident) -> Option<syn::Local> {
    let init = l.init.as_ref()?;
    let (_, otherwise) = init.diverge.as_ref()?;
    struct Names(Vec<syn::Ident>, Option<syn::Ident>);
    impl syn::visit_mut::VisitMut for Names {
        fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
            self.0.push(p.ident.clone());
            if let Some(apart) = &self.1 {
                p.ident = apart.clone();
                p.mutability = None;
            }
            syn::visit_mut::visit_pat_ident_mut(self, p);
        }
    }
    let mut pat = l.pat.clone();
    let mut names = Names(Vec::new(), None);
    syn::visit_mut::VisitMut::visit_pat_mut(&mut names, &mut pat);
    let [name] = names.0.as_slice() else {
        return None;
    };
    let apart = syn::Ident::new(&format!("{flag}_{name}"), name.span());
    let mut renamed = Names(Vec::new(), Some(apart.clone()));
    syn::visit_mut::VisitMut::visit_pat_mut(&mut renamed, &mut pat);
    let mutability = names_mutability(&l.pat);
    let scrutinee = &init.expr;
    let stmt: syn::Stmt = syn::parse_quote_spanned!(syn::spanned::Spanned::span(&l.let_token)=>
        let #mutability #name = match #scrutinee { #pat => #apart, _ => #otherwise };
    );
    match stmt {
        syn::Stmt::Local(local) => Some(local),
        _ => None,
    }
}

/// `mut` where the one name a pattern binds is bound `mut`.
fn names_mutability(pat: &syn::Pat) -> Option<syn::Token![mut]> {
    struct Mut(Option<syn::Token![mut]>);
    impl<'a> Visit<'a> for Mut {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0 = self.0.or(p.mutability);
        }
    }
    let mut m = Mut(None);
    m.visit_pat(pat);
    m.0
}

/// `e`, an `if` with an `else`, a `match` or a block, nested, with each
/// branch's value `v` given to `assign` (`{ name = v; }`) and each branch
/// that ends in a jump left as it is; `None` where a branch ends
/// otherwise (a statement, an `if` without `else`).
fn assign_in_branches(
    e: &syn::Expr,
    assign: &dyn Fn(&syn::Expr) -> syn::Expr,
) -> Option<syn::Expr> {
    if expr_ends_in_jump(e) && !matches!(e, syn::Expr::If(_) | syn::Expr::Match(_)) {
        return Some(e.clone());
    }
    let in_block = |b: &syn::Block| -> Option<syn::Block> {
        let mut b = b.clone();
        if ends_in_jump(&b.stmts) {
            return Some(b);
        }
        let syn::Stmt::Expr(tail, None) = b.stmts.pop()? else {
            return None;
        };
        b.stmts
            .push(syn::Stmt::Expr(assign_in_branches(&tail, assign)?, None));
        Some(b)
    };
    Some(match e {
        syn::Expr::Paren(p) => assign_in_branches(&p.expr, assign)?,
        syn::Expr::Block(b) if b.label.is_none() => {
            let mut b = b.clone();
            b.block = in_block(&b.block)?;
            syn::Expr::Block(b)
        }
        syn::Expr::If(x) => {
            let mut x = x.clone();
            x.then_branch = in_block(&x.then_branch)?;
            let (_, other) = x.else_branch.as_mut()?;
            **other = assign_in_branches(other, assign)?;
            syn::Expr::If(x)
        }
        syn::Expr::Match(m) => {
            let mut m = m.clone();
            for arm in &mut m.arms {
                *arm.body = assign_in_branches(&arm.body, assign)?;
                arm.comma = Some(Default::default());
            }
            syn::Expr::Match(m)
        }
        value => assign(value),
    })
}

/// What [`rewrite_jumps`] passes down to the branches it rewrites.
struct Jumps<'a> {
    breaks: &'a mut bool,
    returns: Option<(&'a syn::Ident, &'a syn::Ident)>,
    flag: &'a syn::Ident,
}

impl Jumps<'_> {
    /// A branch's own statements followed by the statements after the
    /// branch (`rest`), rewritten; a branch that ends with a jump or a
    /// panic never reaches `rest`, and does not get it.
    fn branch(&mut self, own: Vec<syn::Stmt>, rest: &[syn::Stmt]) -> Option<syn::Block> {
        let all = match ends_in_jump(&own) {
            true => own,
            false => isolated(own, rest)?
                .into_iter()
                .chain(rest.iter().cloned())
                .collect(),
        };
        Some(syn::Block {
            brace_token: Default::default(),
            stmts: rewrite_jumps(&terminated(all), self.breaks, self.returns, self.flag)?,
        })
    }

    /// Whether `e`, evaluated once before the branches (a condition, a
    /// scrutinee, a guard), holds a jump the rewrite cannot reach.
    fn hides(&self, e: &syn::Expr) -> bool {
        let stmt = syn::Stmt::Expr(e.clone(), None);
        has_jump(&stmt) || self.returns.is_some() && has_return(e)
    }
}

/// Whether statements end by leaving the iteration or panicking on every
/// path: after them, nothing runs.
fn ends_in_jump(stmts: &[syn::Stmt]) -> bool {
    match stmts.last() {
        Some(syn::Stmt::Expr(e, _)) => expr_ends_in_jump(e),
        Some(syn::Stmt::Macro(m)) => is_panic(&m.mac),
        _ => false,
    }
}

fn expr_ends_in_jump(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Break(_) | syn::Expr::Continue(_) | syn::Expr::Return(_) => true,
        syn::Expr::Macro(m) => is_panic(&m.mac),
        syn::Expr::Block(b) if b.label.is_none() => ends_in_jump(&b.block.stmts),
        syn::Expr::If(x) => {
            ends_in_jump(&x.then_branch.stmts)
                && x.else_branch
                    .as_ref()
                    .is_some_and(|(_, e)| expr_ends_in_jump(e))
        }
        syn::Expr::Match(m) => {
            !m.arms.is_empty() && m.arms.iter().all(|a| expr_ends_in_jump(&a.body))
        }
        _ => false,
    }
}

/// `panic!`, `unreachable!`, `todo!`, `unimplemented!`.
fn is_panic(mac: &syn::Macro) -> bool {
    let name = mac.path.segments.last().map(|s| s.ident.to_string());
    matches!(
        name.as_deref(),
        Some("panic" | "unreachable" | "todo" | "unimplemented")
    )
}

/// Statements joined from several places: every expression statement but
/// a block-like one gets its semicolon.
pub fn terminated(stmts: Vec<syn::Stmt>) -> Vec<syn::Stmt> {
    stmts
        .into_iter()
        .map(|s| match s {
            syn::Stmt::Expr(e, None)
                if !matches!(
                    e,
                    syn::Expr::If(_)
                        | syn::Expr::Match(_)
                        | syn::Expr::Block(_)
                        | syn::Expr::ForLoop(_)
                        | syn::Expr::While(_)
                        | syn::Expr::Loop(_)
                ) =>
            {
                syn::Stmt::Expr(e, Some(Default::default()))
            }
            other => other,
        })
        .collect()
}

/// A guard clause, `if c { ...; return v; }` followed by `rest`, as
/// `if c { ...; v } else { rest }`.
pub fn guard_clause(stmt: &syn::Stmt, rest: &[syn::Stmt]) -> Option<syn::Expr> {
    let syn::Stmt::Expr(syn::Expr::If(x), _) = stmt else {
        return None;
    };
    if x.else_branch.is_some()
        || !matches!(
            x.then_branch.stmts.last(),
            Some(syn::Stmt::Expr(syn::Expr::Return(_), _))
        )
    {
        return None;
    }
    let mut guarded = x.clone();
    let else_expr = super::block_expr(rest.to_vec(), None);
    guarded.else_branch = Some((Default::default(), Box::new(else_expr)));
    Some(syn::Expr::If(guarded))
}

/// A closure's body with its `return`s at the end of its branches as
/// the values they give: guard clauses, `if t < 0.0 { return 0.1 * t; }
/// t.sqrt()`, as `if t < 0.0 { 0.1 * t } else { t.sqrt() }`
/// ([`guard_clause`]), so that the body, inlined at each
/// call, gives the call's value instead of leaving the function. A
/// `return` elsewhere (in a loop) stays, and is refused where it is
/// lowered.
pub fn closure_returns_as_values(body: &syn::Expr) -> syn::Expr {
    fn block(b: &mut syn::Block) {
        if let Some(i) =
            (0..b.stmts.len()).find(|&i| guard_clause(&b.stmts[i], &b.stmts[i + 1..]).is_some())
        {
            if let Some(guarded) = guard_clause(&b.stmts[i], &b.stmts[i + 1..]) {
                b.stmts.truncate(i);
                b.stmts.push(syn::Stmt::Expr(guarded, None));
            }
        }
        if let Some(syn::Stmt::Expr(e, semi)) = b.stmts.last_mut() {
            if let syn::Expr::Return(syn::ExprReturn { expr: Some(v), .. }) = e {
                *e = (**v).clone();
                *semi = None;
            } else if semi.is_none() {
                tail(e);
            }
        }
    }
    fn tail(e: &mut syn::Expr) {
        match e {
            syn::Expr::If(x) => {
                block(&mut x.then_branch);
                if let Some((_, other)) = &mut x.else_branch {
                    tail(other);
                }
            }
            syn::Expr::Match(m) => {
                for arm in &mut m.arms {
                    match &mut *arm.body {
                        syn::Expr::Return(syn::ExprReturn { expr: Some(v), .. }) => {
                            *arm.body = (**v).clone();
                        }
                        other => tail(other),
                    }
                }
            }
            syn::Expr::Block(b) if b.label.is_none() => block(&mut b.block),
            _ => {}
        }
    }
    let mut body = body.clone();
    match &mut body {
        syn::Expr::Return(syn::ExprReturn { expr: Some(v), .. }) => return (**v).clone(),
        e => tail(e),
    }
    body
}

/// A branch's own statements, to be followed by the statements after the
/// branch (`rest`): a `let` of the branch must not capture a name that
/// `rest` uses for an outer variable (`if c { let a = ..; } else { break; }
/// a /= 2.0;` would divide the branch's `a`). Such statements go into a
/// block of their own, their final jump after it. `None` where they hold
/// other jumps too, which a block would hide from the rewrite.
fn isolated(own: Vec<syn::Stmt>, rest: &[syn::Stmt]) -> Option<Vec<syn::Stmt>> {
    let mut declared = Vec::new();
    for s in &own {
        if let syn::Stmt::Local(l) = s {
            collect_names(&l.pat, &mut declared);
        }
    }
    let mut used = std::collections::HashSet::new();
    for s in rest {
        crate::desugar::internal::collect_idents(quote::ToTokens::to_token_stream(s), &mut used);
    }
    if !declared.iter().any(|d| used.contains(d)) {
        return Some(own);
    }
    let mut own = own;
    let last_jumps = own.last().is_some_and(|s| {
        matches!(
            s,
            syn::Stmt::Expr(
                syn::Expr::Break(_) | syn::Expr::Continue(_) | syn::Expr::Return(_),
                _
            )
        )
    });
    let tail = if last_jumps { own.pop() } else { None };
    if own.iter().any(|s| has_jump(s) || stmt_has_return(s)) {
        return None;
    }
    let block = syn::Stmt::Expr(super::block_expr(own, None), None);
    Some(std::iter::once(block).chain(tail).collect())
}

/// The names a pattern binds.
fn collect_names(pat: &syn::Pat, out: &mut Vec<String>) {
    struct Names<'o>(&'o mut Vec<String>);
    impl<'a> Visit<'a> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    Names(out).visit_pat(pat);
}

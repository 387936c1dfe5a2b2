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

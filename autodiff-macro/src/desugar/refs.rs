//! References to variables bound by `let`, `let r = &x;` and
//! `let p = &mut s;`, as the variables they borrow: after the `let`, `*r`
//! is `x` and `*p` is `s` (read or assigned), and `r` or `p` alone is
//! `&x` or `&mut s`. While the reference lives, rustc lets nothing else
//! change or read (for `&mut`) the variable, so the name and the variable
//! are one; the macro then follows `s` itself, where a `&mut s` kept as
//! written would make `s` a variable it cannot follow.
//!
//! A reference to an element, `let e = &mut v[i];` (or `&v[i]`), is the
//! element the same way, `*e` as `v[i]`, where nothing can change which
//! element it is: `v` is borrowed, and no name of the index is assigned
//! or bound again while the reference is used.
//!
//! A reference is left as written where the rewrite could change what a
//! name means: the reference or the variable bound again by a later
//! `let` in the same block while the reference is still used, the
//! reference named inside a string (a format string's `{r}`), or a
//! reference that is not a plain name (`let (a, b) = (&x, &y);`). The
//! lowering then binds a shared reference to a float it follows to the
//! float's value at the `let` (`lower/lets.rs`), which a later `let x`
//! does not change.

use std::collections::HashSet;

use crate::desugar::internal::{binds, binds_inside, mentions, plain_let, reads_outer};
use syn::visit_mut::VisitMut;

/// `item` with its references to local variables replaced by the
/// variables.
pub fn aliases(mut item: syn::ItemFn) -> syn::ItemFn {
    Aliases.visit_block_mut(&mut item.block);
    item
}

struct Aliases;

impl VisitMut for Aliases {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        // Inner blocks first: their references end with them.
        syn::visit_mut::visit_block_mut(self, b);
        let mut i = 0;
        while i < b.stmts.len() {
            if let Some((name, target, mutable)) = reference_let(&b.stmts[i]) {
                if let Some(rest) = rewritten(&b.stmts[i + 1..], &name, &target, mutable) {
                    b.stmts.truncate(i);
                    b.stmts.extend(rest);
                    continue;
                }
            }
            i += 1;
        }
    }
}

/// What a reference borrows: a variable, or an element of one,
/// `base[index]`, its index read from names that must not change.
struct Target {
    /// The variable, or the element's array.
    base: syn::Ident,
    /// `v[i]` or `v[i + 1][j]`: the place; `None` for the variable itself.
    place: Option<syn::Expr>,
    /// The names the index reads.
    index_names: HashSet<String>,
}

impl Target {
    fn expr(&self, span: proc_macro2::Span) -> syn::Expr {
        match &self.place {
            Some(p) => syn::parse_quote!(#p),
            None => {
                let t = syn::Ident::new(&self.base.to_string(), span);
                syn::parse_quote!(#t)
            }
        }
    }
}

/// `v[i]`, `v[i][j]`, `data.xs[i]`: an element of a variable (or of one
/// of its fields), with indices of names and literals and arithmetic on
/// them.
fn element_target(e: &syn::Expr) -> Option<Target> {
    fn index_ok(e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Lit(_) => true,
            syn::Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
            syn::Expr::Binary(b) => index_ok(&b.left) && index_ok(&b.right),
            syn::Expr::Paren(p) => index_ok(&p.expr),
            // `xs.len() - 1`, `self.layers.len()`: the length of what the
            // borrow keeps from changing, or of a variable.
            syn::Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => {
                let mut base = &*m.receiver;
                while let syn::Expr::Field(f) = base {
                    base = &f.base;
                }
                matches!(base, syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some())
            }
            _ => false,
        }
    }
    let mut base = e;
    let mut index_names = HashSet::new();
    loop {
        match base {
            syn::Expr::Index(ix) => {
                if !index_ok(&ix.index) {
                    return None;
                }
                crate::desugar::internal::collect_idents(
                    quote::ToTokens::to_token_stream(&ix.index),
                    &mut index_names,
                );
                base = &ix.expr;
            }
            // A field on the way (`data.xs[i]`, `net.layers[k].w[j]`): the
            // variable is the one it is a field of.
            syn::Expr::Field(f) if matches!(f.member, syn::Member::Named(_)) => base = &f.base,
            _ => break,
        }
    }
    let syn::Expr::Path(p) = base else {
        return None;
    };
    Some(Target {
        base: p.path.get_ident()?.clone(),
        place: Some(e.clone()),
        index_names,
    })
}

/// Whether some statement assigns one of `names` (`i = ..`, `i += ..`) or
/// lends it by `&mut`.
fn assigns_any(stmts: &[syn::Stmt], names: &HashSet<String>) -> bool {
    struct Find<'n>(&'n HashSet<String>, bool);
    impl<'a> syn::visit::Visit<'a> for Find<'_> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            let named = |e: &syn::Expr| {
                matches!(e, syn::Expr::Path(p)
                    if p.path.get_ident().is_some_and(|i| self.0.contains(&i.to_string())))
            };
            match e {
                syn::Expr::Assign(a) if named(&a.left) => self.1 = true,
                syn::Expr::Binary(b) if named(&b.left) && super::is_compound_assign(&b.op) => {
                    self.1 = true
                }
                syn::Expr::Reference(r) if r.mutability.is_some() && named(&r.expr) => {
                    self.1 = true
                }
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut f = Find(names, false);
    for s in stmts {
        syn::visit::Visit::visit_stmt(&mut f, s);
    }
    f.1
}

/// `let name = &target;` or `let name = &mut target;` (with or without
/// `mut` before the name, without a type), `target` a variable or an
/// element of one.
fn reference_let(stmt: &syn::Stmt) -> Option<(syn::Ident, Target, bool)> {
    let l = plain_let(stmt, false)?;
    let syn::Expr::Reference(r) = l.init else {
        return None;
    };
    let target = match &*r.expr {
        syn::Expr::Path(target) => Target {
            base: target.path.get_ident()?.clone(),
            place: None,
            index_names: HashSet::new(),
        },
        e @ syn::Expr::Index(_) => element_target(e)?,
        // `let p = &self.pos;`, `let l = &net.layers[k];`: a part of a
        // variable, which the borrow keeps from changing as well.
        e @ syn::Expr::Field(f) if matches!(f.member, syn::Member::Named(_)) => element_target(e)?,
        _ => return None,
    };
    Some((l.name(), target, r.mutability.is_some()))
}

/// `rest` with `*name` as `target` and `name` as `&target` (`&mut`), up
/// to a `let` that binds either name again (in its initialiser too, where
/// it rebinds `name`); `None` where that could change what a name means:
/// `target` bound again while `name` is still used after.
fn rewritten(
    rest: &[syn::Stmt],
    name: &syn::Ident,
    target: &Target,
    mutable: bool,
) -> Option<Vec<syn::Stmt>> {
    let rebinds = |s: &syn::Stmt| {
        binds(s, &target.base)
            || target
                .index_names
                .iter()
                .filter_map(|n| syn::parse_str::<syn::Ident>(n).ok())
                .any(|n| binds(s, &n))
    };
    let end = rest
        .iter()
        .position(|s| binds(s, name) || rebinds(s))
        .unwrap_or(rest.len());
    // The name bound again inside a statement before that (a `for` loop's
    // pattern, a closure's parameter, a nested `let`): the reference ends
    // there, where nothing after reads it; the rewrite must not reach that
    // other variable.
    let end = match rest[..end].iter().position(|s| binds_inside(s, name)) {
        Some(k) if reads_outer(&rest[k..], name) => return None,
        Some(k) => k,
        None => end,
    };
    let rebinds_target = end < rest.len() && rebinds(&rest[end]);
    if rebinds_target && rest[end..].iter().any(|s| mentions(s, name)) {
        return None;
    }
    // An element's index must name the same element wherever the
    // reference is used.
    let last_use = rest[..end]
        .iter()
        .rposition(|s| mentions(s, name))
        .map_or(0, |k| k + 1);
    if assigns_any(&rest[..last_use], &target.index_names) {
        return None;
    }
    // `let mut cur = &n.layers[0]; .. cur = l;`: the reference made to
    // point elsewhere is no one variable.
    if assigns_any(&rest[..end], &HashSet::from([name.to_string()])) {
        return None;
    }
    let mut out = rest.to_vec();
    let mut sub = Substitute {
        name: name.clone(),
        target,
        mutable,
        failed: false,
    };
    for s in &mut out[..end] {
        sub.visit_stmt_mut(s);
    }
    // `let r = *r + 1.0;`: the initialiser still reads the reference
    // (not where it binds the name again itself, `let z = { let r = ..;
    // r };`).
    let reads_in_init =
        end < rest.len() && binds(&rest[end], name) && !binds_inside(&rest[end], name);
    if let Some(syn::Stmt::Local(l)) = out.get_mut(end) {
        if !rebinds_target && reads_in_init {
            if let Some(init) = &mut l.init {
                sub.visit_expr_mut(&mut init.expr);
            }
        }
    }
    (!sub.failed).then_some(out)
}

struct Substitute<'t> {
    name: syn::Ident,
    target: &'t Target,
    mutable: bool,
    failed: bool,
}

impl Substitute<'_> {
    fn is_name(&self, e: &syn::Expr) -> bool {
        matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(&self.name))
    }

    fn target_at(&self, span: proc_macro2::Span) -> syn::Expr {
        self.target.expr(span)
    }
}

impl Substitute<'_> {
    /// A call's argument: the name alone as `&target` (`&mut`), without
    /// the parentheses an operand needs; anything else as any expression.
    fn visit_arg_mut(&mut self, a: &mut syn::Expr) {
        if self.is_name(a) {
            let t = self.target_at(self.name.span());
            *a = match self.mutable {
                true => syn::parse_quote!(&mut #t),
                false => syn::parse_quote!(&#t),
            };
        } else {
            self.visit_expr_mut(a);
        }
    }
}

impl VisitMut for Substitute<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && self.is_name(&u.expr) => {
                let t = self.target_at(self.name.span());
                *e = syn::parse_quote!(#t);
            }
            // Auto-deref: `r[i]`, `r.len()`, `r.w` are the variable's.
            syn::Expr::Index(ix) if self.is_name(&ix.expr) => {
                let t = self.target_at(self.name.span());
                *ix.expr = syn::parse_quote!(#t);
                self.visit_expr_mut(&mut ix.index);
            }
            syn::Expr::Field(f) if self.is_name(&f.base) => {
                let t = self.target_at(self.name.span());
                *f.base = syn::parse_quote!(#t);
            }
            syn::Expr::MethodCall(m) if self.is_name(&m.receiver) => {
                let t = self.target_at(self.name.span());
                *m.receiver = syn::parse_quote!(#t);
                for a in &mut m.args {
                    self.visit_arg_mut(a);
                }
            }
            // An argument, `f(r, x)`: `f(&target, x)`, the reference as
            // written at a call (which the lowering reads as lent).
            syn::Expr::Call(c) => {
                self.visit_expr_mut(&mut c.func);
                for a in &mut c.args {
                    self.visit_arg_mut(a);
                }
            }
            syn::Expr::MethodCall(m) => {
                self.visit_expr_mut(&mut m.receiver);
                for a in &mut m.args {
                    self.visit_arg_mut(a);
                }
            }
            _ if self.is_name(e) => {
                let t = self.target_at(self.name.span());
                *e = match self.mutable {
                    true => syn::parse_quote!((&mut #t)),
                    false => syn::parse_quote!((&#t)),
                };
            }
            // A closure that takes a parameter of the same name hides it.
            syn::Expr::Closure(c)
                if c.inputs.iter().any(|p| {
                    let mut found = HashSet::new();
                    crate::desugar::internal::collect_idents(
                        quote::ToTokens::to_token_stream(p),
                        &mut found,
                    );
                    found.contains(&self.name.to_string())
                }) =>
            {
                self.failed = true;
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        // `println!("{}", r)`: the tokens are rewritten as expressions
        // would be; a name inside a string (`"{r}"`) cannot be.
        let mut found = HashSet::new();
        crate::desugar::internal::collect_idents(m.tokens.clone(), &mut found);
        if !found.contains(&self.name.to_string()) {
            return;
        }
        // Named in a format string (`"{r}"`, `"{r:.3}"`); other text
        // (`"r = {}"`) names nothing.
        let (inline, spec) = (format!("{{{}}}", self.name), format!("{{{}:", self.name));
        let literal_mention = m.tokens.clone().into_iter().any(|t| {
            matches!(&t, proc_macro2::TokenTree::Literal(l)
                if { let l = l.to_string(); l.contains(&inline) || l.contains(&spec) })
        });
        if literal_mention {
            self.failed = true;
            return;
        }
        let (name, mutable) = (self.name.to_string(), self.mutable);
        let target = self.target_at(self.name.span());
        m.tokens = replace_tokens(m.tokens.clone(), &name, &target, mutable);
    }
}

/// Whether `t` can end an operand, so that a `*` after it multiplies
/// (`a * r`, `v[i] * r`, `f(x) * r`) rather than dereferences (`= *r`,
/// `(*r`, `, *r`, `return *r`).
fn ends_operand(t: &proc_macro2::TokenTree) -> bool {
    use proc_macro2::TokenTree as T;
    match t {
        T::Literal(_) | T::Group(_) => true,
        T::Ident(i) => !matches!(
            i.to_string().as_str(),
            "return"
                | "in"
                | "if"
                | "else"
                | "match"
                | "while"
                | "break"
                | "let"
                | "mut"
                | "move"
                | "for"
                | "loop"
        ),
        T::Punct(p) => p.as_char() == '?',
    }
}

/// The tokens with `*name` as `target` and `name` as `(&target)`.
fn replace_tokens(
    tokens: proc_macro2::TokenStream,
    name: &str,
    target: &syn::Expr,
    mutable: bool,
) -> proc_macro2::TokenStream {
    use proc_macro2::TokenTree as T;
    let mut out: Vec<T> = Vec::new();
    for t in tokens {
        match t {
            T::Ident(i) if i == name => {
                // `*name`, not `a * name`: the `*` starts an operand (what
                // comes before it ends none).
                let n = out.len();
                let deref = matches!(out.last(), Some(T::Punct(p)) if p.as_char() == '*')
                    && (n < 2 || !ends_operand(&out[n - 2]));
                if deref {
                    out.pop();
                    out.extend(quote::quote!((#target)));
                } else {
                    let r: proc_macro2::TokenStream = match mutable {
                        true => quote::quote!((&mut #target)),
                        false => quote::quote!((&#target)),
                    };
                    out.extend(r);
                }
            }
            T::Group(g) => {
                let mut ng = proc_macro2::Group::new(
                    g.delimiter(),
                    replace_tokens(g.stream(), name, target, mutable),
                );
                ng.set_span(g.span());
                out.push(T::Group(ng));
            }
            other => out.push(other),
        }
    }
    out.into_iter().collect()
}

/// `body` as it reads where `name`, a reference, is the variable of the
/// same name it refers to (a closure's `q: &P` given `&p`, the
/// parameter then naming the struct itself): `name` alone becomes
/// `&name`, `*name` becomes `name`, `name.x` and `name.m()` stay. `None`
/// where the body binds `name` again in a way the rewrite cannot follow.
pub fn as_referent(body: &syn::Expr, name: &syn::Ident) -> Option<syn::Expr> {
    let target = Target {
        base: name.clone(),
        place: None,
        index_names: HashSet::new(),
    };
    let stmts = rewritten(&[syn::Stmt::Expr(body.clone(), None)], name, &target, false)?;
    match <[syn::Stmt; 1]>::try_from(stmts) {
        Ok([syn::Stmt::Expr(e, None)]) => Some(e),
        _ => None,
    }
}

//! The names the desugarings introduce (a loop's break flag, the value and
//! flag of a `return` from a loop, a reduction's index and accumulator, a
//! vector output's elements), chosen apart from every identifier of the
//! user's function, so that a user variable called `__ret` or `__i` keeps
//! its meaning.

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};

/// The internal names of one function.
#[derive(Clone, Debug)]
pub struct Internal {
    /// The value a loop returns from the function with.
    pub ret: String,
    /// The flag that says a loop returned.
    pub returned: String,
    /// The prefix of the loops' break flags (`<prefix>1`, `<prefix>2`).
    pub broke: String,
    /// A reduction's index.
    pub index: String,
    /// A reduction's accumulator.
    pub acc: String,
    /// The prefix of a vector output's elements (`<prefix>0`, ...), and the
    /// name of an array output (`<prefix>`).
    pub out: String,
    /// How many loop indices and accumulators have been named: each
    /// desugared loop gets names of its own, so that an inner loop's index
    /// never hides an outer one's (`w[i][j]` through a row).
    numbered: std::cell::Cell<usize>,
}

impl Internal {
    /// Names that none of the identifiers in `item` can be mistaken for.
    pub fn new(item: TokenStream) -> Internal {
        let mut used = HashSet::new();
        collect_idents(item, &mut used);
        // A name is free when no identifier of the user's is it, or is it
        // followed by digits (the numbered names made from it).
        let free = |base: &str| -> String {
            let clashes = |name: &str| {
                used.iter().any(|u| {
                    u.strip_prefix(name)
                        .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit()))
                })
            };
            if !clashes(base) {
                return base.to_string();
            }
            (1..)
                .map(|k| format!("{base}_{k}_"))
                .find(|n| !clashes(n))
                .expect("a free name")
        };
        Internal {
            ret: free("__ret"),
            returned: free("__returned"),
            broke: free("__broke"),
            index: free("__i"),
            acc: free("__acc"),
            out: free("__out"),
            numbered: std::cell::Cell::new(0),
        }
    }

    /// A new loop index and accumulator: `<index>N`, `<acc>N`.
    pub fn fresh_loop(&self) -> (String, String) {
        let n = self.numbered.get() + 1;
        self.numbered.set(n);
        (format!("{}{n}", self.index), format!("{}{n}", self.acc))
    }
}

/// Every identifier in `tokens`, and every word of its literals (a
/// format string's `{name}` captures a variable).
pub fn collect_idents(tokens: TokenStream, out: &mut HashSet<String>) {
    for tt in tokens {
        match tt {
            TokenTree::Ident(i) => {
                out.insert(i.to_string().trim_start_matches("r#").to_string());
            }
            TokenTree::Group(g) => collect_idents(g.stream(), out),
            TokenTree::Literal(l) => {
                let text = l.to_string();
                for part in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                    if !part.is_empty() {
                        out.insert(part.to_string());
                    }
                }
            }
            TokenTree::Punct(_) => {}
        }
    }
}

/// Names made by a syntactic rewrite of one function, apart from every
/// identifier of it and from each other: `base`, else `base_1`, ...
pub struct FreshNames(HashSet<String>);

impl FreshNames {
    /// Names apart from every identifier of `item`.
    pub fn of(item: &syn::ItemFn) -> FreshNames {
        let mut used = HashSet::new();
        collect_idents(quote::ToTokens::to_token_stream(item), &mut used);
        FreshNames(used)
    }

    /// A new name from `base`.
    pub fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut k = 1;
        while self.0.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.0.insert(name.clone());
        name
    }
}

/// Whether `stmt` is a `let` whose pattern binds `name`.
pub fn binds(stmt: &syn::Stmt, name: &syn::Ident) -> bool {
    matches!(stmt, syn::Stmt::Local(l) if pat_binds(&l.pat, name))
}

/// Whether the pattern `p` binds `name`.
pub fn pat_binds(p: &syn::Pat, name: &syn::Ident) -> bool {
    let mut found = HashSet::new();
    collect_idents(quote::ToTokens::to_token_stream(p), &mut found);
    found.contains(&name.to_string())
}

/// Whether some pattern inside `stmt` binds `name`, below its own `let`
/// if it is one: a nested `let`, a `for` loop's pattern, a closure's
/// parameter, a `match` arm, `if let`, `while let`. Inside, `name` is
/// another variable, which a rewrite of the outer one must not reach.
pub fn binds_inside(stmt: &syn::Stmt, name: &syn::Ident) -> bool {
    use syn::visit::Visit;
    struct Finder<'n> {
        name: &'n syn::Ident,
        found: bool,
    }
    impl<'a> Visit<'a> for Finder<'_> {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.found |= p.ident == *self.name;
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            // A closure or a `let` inside a macro's tokens (`vec![..]`).
            let mut ids = HashSet::new();
            collect_idents(m.tokens.clone(), &mut ids);
            let tokens = m.tokens.to_string();
            self.found |= ids.contains(&self.name.to_string())
                && (tokens.contains('|') || tokens.contains("let ") || tokens.contains("for "));
        }
    }
    let mut f = Finder { name, found: false };
    match stmt {
        syn::Stmt::Local(l) => {
            if let Some(init) = &l.init {
                f.visit_expr(&init.expr);
                if let Some((_, e)) = &init.diverge {
                    f.visit_expr(e);
                }
            }
        }
        s => f.visit_stmt(s),
    }
    f.found
}

/// Whether `stmts` (one block's, in order) read the variable `name` bound
/// before them: a mention that no pattern among them binds again (a
/// `let` for the rest of its block, a `for` loop's pattern, a closure's
/// parameter, a `match` arm's, `if let`'s and `while let`'s). A macro
/// that names it counts as reading it.
pub fn reads_outer(stmts: &[syn::Stmt], name: &syn::Ident) -> bool {
    use syn::visit::Visit;
    struct Reads<'n> {
        name: &'n syn::Ident,
        found: bool,
    }
    impl Reads<'_> {
        /// `if cond { body }` or `while cond { body }`: the body unless
        /// `cond` is a `let` binding the name again.
        fn guarded(&mut self, cond: &syn::Expr, body: &syn::Block) {
            match cond {
                syn::Expr::Let(l) => {
                    self.visit_expr(&l.expr);
                    if !pat_binds(&l.pat, self.name) {
                        self.visit_block(body);
                    }
                }
                c => {
                    self.visit_expr(c);
                    self.visit_block(body);
                }
            }
        }

        fn block(&mut self, stmts: &[syn::Stmt]) {
            for s in stmts {
                match s {
                    syn::Stmt::Local(l) => {
                        if let Some(init) = &l.init {
                            self.visit_expr(&init.expr);
                            if let Some((_, e)) = &init.diverge {
                                self.visit_expr(e);
                            }
                        }
                        if pat_binds(&l.pat, self.name) {
                            return;
                        }
                    }
                    s => self.visit_stmt(s),
                }
            }
        }
    }
    impl<'a> Visit<'a> for Reads<'_> {
        fn visit_block(&mut self, b: &'a syn::Block) {
            self.block(&b.stmts);
        }
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            self.found |= p.qself.is_none() && p.path.is_ident(self.name);
        }
        fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
            if !c.inputs.iter().any(|p| pat_binds(p, self.name)) {
                self.visit_expr(&c.body);
            }
        }
        fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
            self.visit_expr(&f.expr);
            if !pat_binds(&f.pat, self.name) {
                self.visit_block(&f.body);
            }
        }
        fn visit_arm(&mut self, a: &'a syn::Arm) {
            if !pat_binds(&a.pat, self.name) {
                if let Some((_, g)) = &a.guard {
                    self.visit_expr(g);
                }
                self.visit_expr(&a.body);
            }
        }
        fn visit_expr_if(&mut self, i: &'a syn::ExprIf) {
            self.guarded(&i.cond, &i.then_branch);
            if let Some((_, e)) = &i.else_branch {
                self.visit_expr(e);
            }
        }
        fn visit_expr_while(&mut self, w: &'a syn::ExprWhile) {
            self.guarded(&w.cond, &w.body);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            let mut ids = HashSet::new();
            collect_idents(m.tokens.clone(), &mut ids);
            self.found |= ids.contains(&self.name.to_string());
        }
    }
    let mut r = Reads { name, found: false };
    r.block(stmts);
    r.found
}

/// A `let` of one plain name, `let [mut] name[: Ty] = init;` (no `ref`,
/// `@` pattern, `else` or attribute): the name's pattern, the `let`'s
/// type if written, and the initialiser.
pub struct PlainLet<'s> {
    pub pat: &'s syn::PatIdent,
    pub ty: Option<&'s syn::Type>,
    pub init: &'s syn::Expr,
}

impl PlainLet<'_> {
    pub fn name(&self) -> syn::Ident {
        self.pat.ident.clone()
    }

    pub fn mutable(&self) -> bool {
        self.pat.mutability.is_some()
    }

    /// The initialiser without its parentheses.
    pub fn init_bare(&self) -> &syn::Expr {
        let mut e = self.init;
        while let syn::Expr::Paren(p) = e {
            e = &p.expr;
        }
        e
    }
}

/// `ty` where it names a type of the user's, a struct with fields to read
/// (`State`, `geo::P2`): a path, not a float, an integer, a `Vec` or
/// another type of `std`'s.
pub fn user_type(ty: &syn::Type) -> Option<&syn::TypePath> {
    const STD_TYPES: &[&str] = &[
        "f32", "f64", "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32",
        "i64", "i128", "bool", "char", "str", "String", "Vec", "Option", "Result", "Box", "Rc",
        "Arc", "HashMap", "BTreeMap",
    ];
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    (path.qself.is_none() && !STD_TYPES.iter().any(|n| last.ident == n)).then_some(path)
}

/// `stmt` as a [`PlainLet`]; with `typed`, one whose type is written too.
pub fn plain_let(stmt: &syn::Stmt, typed: bool) -> Option<PlainLet<'_>> {
    let syn::Stmt::Local(l) = stmt else {
        return None;
    };
    let (pat, ty) = match &l.pat {
        syn::Pat::Ident(p) => (p, None),
        syn::Pat::Type(t) if typed => match &*t.pat {
            syn::Pat::Ident(p) => (p, Some(&*t.ty)),
            _ => return None,
        },
        _ => return None,
    };
    let init = l.init.as_ref()?;
    if pat.by_ref.is_some() || pat.subpat.is_some() || init.diverge.is_some() || !l.attrs.is_empty()
    {
        return None;
    }
    Some(PlainLet {
        pat,
        ty,
        init: &init.expr,
    })
}

/// Whether `node` (a statement, an expression, tokens) names `name`
/// anywhere (in macros and strings too).
pub fn mentions(node: &impl quote::ToTokens, name: &syn::Ident) -> bool {
    let mut found = HashSet::new();
    collect_idents(node.to_token_stream(), &mut found);
    found.contains(&name.to_string())
}

/// The places `stmts` write, at any depth: the targets of `=` and `op=`
/// (`x`, `p.v`, `v[i]`), and where `lent`, what they lend by `&mut`.
pub fn written_places(stmts: &[syn::Stmt], lent: bool) -> Vec<syn::Expr> {
    use syn::visit::Visit;
    struct Places {
        lent: bool,
        found: Vec<syn::Expr>,
    }
    impl<'a> Visit<'a> for Places {
        fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
            self.found.push((*a.left).clone());
            syn::visit::visit_expr_assign(self, a);
        }
        fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
            if super::is_compound_assign(&b.op) {
                self.found.push((*b.left).clone());
            }
            syn::visit::visit_expr_binary(self, b);
        }
        fn visit_expr_reference(&mut self, r: &'a syn::ExprReference) {
            if self.lent && r.mutability.is_some() {
                self.found.push((*r.expr).clone());
            }
            syn::visit::visit_expr_reference(self, r);
        }
    }
    let mut p = Places {
        lent,
        found: Vec::new(),
    };
    for s in stmts {
        p.visit_stmt(s);
    }
    p.found
}

/// The local a place is rooted in: `v` for `v[i].x`, `(*p).y`.
pub fn place_root(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        syn::Expr::Field(f) => place_root(&f.base),
        syn::Expr::Index(i) => place_root(&i.expr),
        syn::Expr::Paren(p) => place_root(&p.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => place_root(&u.expr),
        _ => None,
    }
}

/// `recv.method(arg)` (or `recv.method()`), the method an operator of a
/// struct stands for, its name spanned at the operator.
pub fn operator_call(
    recv: &syn::Expr,
    method: &str,
    span: proc_macro2::Span,
    arg: Option<&syn::Expr>,
) -> syn::Expr {
    let recv = match recv {
        // `-v.x` parses as `-(v.x)`, and `a + b` as it is: a receiver that
        // is itself an operation keeps its parentheses.
        syn::Expr::Binary(_) | syn::Expr::Unary(_) | syn::Expr::Cast(_) => {
            syn::parse_quote!((#recv))
        }
        other => other.clone(),
    };
    syn::Expr::MethodCall(syn::ExprMethodCall {
        attrs: Vec::new(),
        receiver: Box::new(recv),
        dot_token: Default::default(),
        method: syn::Ident::new(method, span),
        turbofish: None,
        paren_token: Default::default(),
        // `p * (-1.0)`: an argument needs no parentheses (rustc's
        // `unused_parens` would say so in the generated code).
        args: arg
            .map(|a| match a {
                syn::Expr::Paren(p) => (*p.expr).clone(),
                a => a.clone(),
            })
            .into_iter()
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_names_avoid_the_users() {
        let n = Internal::new(quote::quote!(
            fn f(__ret: f64, __i: usize) {
                let __broke3 = 1;
            }
        ));
        assert_eq!(n.ret, "__ret_1_");
        assert_eq!(n.index, "__i_1_");
        assert_eq!(n.broke, "__broke_1_");
        assert_eq!(n.returned, "__returned");
    }
}

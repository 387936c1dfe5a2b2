//! A local struct read and written through its fields, `let mut p =
//! Point { x: a, y: b }; p.y = p.x * b; p.x * p.y`, as one variable per
//! field: `let mut p_x = a; let mut p_y = b; p_y = p_x * b; p_x * p_y`
//! (scalar replacement of aggregates). The macro then follows each field
//! as the float it is, whether the struct derives `Differentiable` or
//! not. Where the struct is used whole in a way that cannot change it, it
//! is built again from its fields' variables at that point, `Point { x:
//! p_x, y: p_y }` (`Op::Construct` in the lowering): passed to a call or a
//! method (`norm(&p)`, `q.dist(p)`), copied (`let q = p;`, `p.clone()`,
//! `Point { y: 0.0, ..p }`), and, if the struct is not `mut`, as a method's
//! receiver (`p.norm()`: a `let` without `mut` cannot be changed by it).
//! Any other use whole (a method on a `let mut` struct, which may change
//! it, `&mut p`, returned, compared, inside a macro) leaves the struct as
//! written: its fields' derivatives would have to pass through the value.

use crate::desugar::internal::{binds, mentions, FreshNames};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// `item` with its local structs used through their fields only split
/// into one variable per field.
pub fn split(mut item: syn::ItemFn) -> syn::ItemFn {
    let mut s = Split {
        names: FreshNames::of(&item),
    };
    s.visit_block_mut(&mut item.block);
    item
}

struct Split {
    /// Names apart from the function's and from each other.
    names: FreshNames,
}

impl VisitMut for Split {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, b);
        let mut i = 0;
        while i < b.stmts.len() {
            if let Some((name, mutable, path, fields)) = struct_let(&b.stmts[i]) {
                let rest = &b.stmts[i + 1..];
                let end = rest
                    .iter()
                    .position(|s| binds(s, &name))
                    .unwrap_or(rest.len());
                let field_names: Vec<String> = fields.iter().map(|(f, _)| f.to_string()).collect();
                let after_rebinding = rest[end..].iter().skip(1).any(|s| mentions(s, &name));
                let init_of_rebinding_reads = rest.get(end).is_some_and(|s| mentions(s, &name));
                let rebuilt: Option<Vec<syn::Stmt>> = rest[..end]
                    .iter()
                    .map(|s| {
                        let mut r = Rebuild {
                            name: name.to_string(),
                            path: &path,
                            fields: &field_names,
                            mutable,
                        };
                        let mut s = s.clone();
                        r.visit_stmt_mut(&mut s);
                        fields_only(&s, &name, &field_names).then_some(s)
                    })
                    .collect();
                if let Some(rebuilt) =
                    rebuilt.filter(|_| !after_rebinding && !init_of_rebinding_reads)
                {
                    let vars: Vec<(String, syn::Ident)> = fields
                        .iter()
                        .map(|(f, _)| {
                            let v = self.names.fresh(&format!("{name}_{f}"));
                            (f.to_string(), syn::Ident::new(&v, f.span()))
                        })
                        .collect();
                    let mut lets: Vec<syn::Stmt> = Vec::new();
                    for ((_, e), (_, v)) in fields.iter().zip(&vars) {
                        let m = mutable.then(|| quote::quote!(mut));
                        lets.push(syn::parse_quote!(#[allow(unused_mut, unused_variables)] let #m #v = #e;));
                    }
                    let mut rename = Rename {
                        name: name.to_string(),
                        vars,
                    };
                    let mut tail: Vec<syn::Stmt> = rebuilt;
                    tail.extend(rest[end..].iter().cloned());
                    for s in &mut tail[..end] {
                        rename.visit_stmt_mut(s);
                    }
                    b.stmts.truncate(i);
                    let added = lets.len();
                    b.stmts.extend(lets);
                    b.stmts.extend(tail);
                    i += added;
                    continue;
                }
            }
            i += 1;
        }
    }
}

/// `let [mut] p = Path { f: e, .. };`: the name, whether `mut`, the path
/// and the fields with their values, in order.
#[allow(clippy::type_complexity)]
fn struct_let(
    stmt: &syn::Stmt,
) -> Option<(syn::Ident, bool, syn::Path, Vec<(syn::Ident, syn::Expr)>)> {
    let syn::Stmt::Local(l) = stmt else {
        return None;
    };
    let syn::Pat::Ident(p) = &l.pat else {
        return None;
    };
    let init = l.init.as_ref()?;
    if p.by_ref.is_some() || p.subpat.is_some() || init.diverge.is_some() || !l.attrs.is_empty() {
        return None;
    }
    let mut e = &*init.expr;
    while let syn::Expr::Paren(p) = e {
        e = &p.expr;
    }
    let syn::Expr::Struct(s) = e else {
        return None;
    };
    if s.rest.is_some() || s.qself.is_some() || s.fields.is_empty() {
        return None;
    }
    let mut fields = Vec::new();
    for f in &s.fields {
        let syn::Member::Named(n) = &f.member else {
            return None;
        };
        fields.push((n.clone(), f.expr.clone()));
    }
    Some((
        p.ident.clone(),
        p.mutability.is_some(),
        s.path.clone(),
        fields,
    ))
}

/// The struct's uses whole that cannot change it, each replaced by the
/// struct built again from its fields (`Path { x: p.x, y: p.y }`, which
/// `Rename` then reads from the fields' variables). Other uses whole are
/// left for `fields_only` to find.
struct Rebuild<'a> {
    name: String,
    path: &'a syn::Path,
    fields: &'a [String],
    mutable: bool,
}

impl Rebuild<'_> {
    fn is_name(&self, e: &syn::Expr) -> bool {
        matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(&self.name))
    }

    /// `(Path { x: p.x, y: p.y })`, spanned at `p`.
    fn built(&self, at: &syn::Expr) -> syn::Expr {
        let span = syn::spanned::Spanned::span(at);
        let name = syn::Ident::new(&self.name, span);
        let path = self.path;
        let fields = self.fields.iter().map(|f| syn::Ident::new(f, span));
        let fields2 = fields.clone();
        syn::parse_quote_spanned!(span=> (#path { #(#fields: #name.#fields2),* }))
    }

    /// An argument `p` or `&p`, built again in place.
    fn argument(&mut self, a: &mut syn::Expr) -> bool {
        match a {
            syn::Expr::Reference(r) if r.mutability.is_none() && self.is_name(&r.expr) => {
                *r.expr = self.built(&r.expr);
                true
            }
            _ if self.is_name(a) => {
                *a = self.built(a);
                true
            }
            _ => false,
        }
    }
}

impl VisitMut for Rebuild<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Call(c) => {
                self.visit_expr_mut(&mut c.func);
                for a in c.args.iter_mut() {
                    if !self.argument(a) {
                        self.visit_expr_mut(a);
                    }
                }
            }
            // `p.clone()`: a copy.
            syn::Expr::MethodCall(m)
                if self.is_name(&m.receiver) && m.method == "clone" && m.args.is_empty() =>
            {
                *e = self.built(&m.receiver);
            }
            syn::Expr::MethodCall(m) => {
                if self.is_name(&m.receiver) && !self.mutable {
                    *m.receiver = self.built(&m.receiver);
                } else {
                    self.visit_expr_mut(&mut m.receiver);
                }
                for a in m.args.iter_mut() {
                    if !self.argument(a) {
                        self.visit_expr_mut(a);
                    }
                }
            }
            // `Path { y: 0.0, ..p }`: the fields not given, from `p`.
            syn::Expr::Struct(st)
                if st.rest.as_deref().is_some_and(|r| self.is_name(r)) && st.path == *self.path =>
            {
                let span = syn::spanned::Spanned::span(&st.rest);
                let name = syn::Ident::new(&self.name, span);
                for f in self.fields {
                    let given = st
                        .fields
                        .iter()
                        .any(|g| matches!(&g.member, syn::Member::Named(n) if n == f));
                    if !given {
                        let f = syn::Ident::new(f, span);
                        st.fields
                            .push(syn::parse_quote_spanned!(span=> #f: #name.#f));
                    }
                }
                st.rest = None;
                st.dot2_token = None;
                syn::visit_mut::visit_expr_struct_mut(self, st);
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    // `let q = p;`: a copy.
    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        if let Some(init) = &mut l.init {
            if self.is_name(&init.expr) && init.diverge.is_none() {
                *init.expr = self.built(&init.expr);
            }
        }
        syn::visit_mut::visit_local_mut(self, l);
    }
}

/// Whether every use of `name` in `stmt` is one of its `fields`
/// (`name.f`), inside macros too; a closure or a pattern that binds the
/// name again makes it not so.
fn fields_only(stmt: &syn::Stmt, name: &syn::Ident, fields: &[String]) -> bool {
    struct Uses<'n> {
        name: String,
        fields: &'n [String],
        whole: bool,
    }
    impl Uses<'_> {
        fn is_name(&self, e: &syn::Expr) -> bool {
            matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(&self.name))
        }
    }
    impl<'a> Visit<'a> for Uses<'_> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Field(f) if self.is_name(&f.base) => match &f.member {
                    syn::Member::Named(m) if self.fields.contains(&m.to_string()) => {}
                    _ => self.whole = true,
                },
                _ if self.is_name(e) => self.whole = true,
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            if p.ident == self.name {
                self.whole = true;
            }
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            // `name` must be followed by `.field` each time it appears.
            let tokens: Vec<proc_macro2::TokenTree> = m.tokens.clone().into_iter().collect();
            if !tokens_fields_only(&tokens, &self.name, self.fields) {
                self.whole = true;
            }
        }
    }
    let mut u = Uses {
        name: name.to_string(),
        fields,
        whole: false,
    };
    u.visit_stmt(stmt);
    !u.whole
}

fn tokens_fields_only(tokens: &[proc_macro2::TokenTree], name: &str, fields: &[String]) -> bool {
    use proc_macro2::TokenTree as T;
    for (k, t) in tokens.iter().enumerate() {
        match t {
            T::Ident(i) if i == name => {
                let dot = matches!(tokens.get(k + 1), Some(T::Punct(p)) if p.as_char() == '.');
                let field = matches!(tokens.get(k + 2), Some(T::Ident(f)) if fields.contains(&f.to_string()));
                if !(dot && field) {
                    return false;
                }
            }
            T::Literal(l) if l.to_string().contains(name) => return false,
            T::Group(g) => {
                let inner: Vec<T> = g.stream().into_iter().collect();
                if !tokens_fields_only(&inner, name, fields) {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

/// `name.f` as the variable of field `f`.
struct Rename {
    name: String,
    vars: Vec<(String, syn::Ident)>,
}

impl Rename {
    fn var(&self, field: &syn::Member) -> Option<&syn::Ident> {
        let syn::Member::Named(m) = field else {
            return None;
        };
        self.vars.iter().find(|(f, _)| m == f).map(|(_, v)| v)
    }
}

impl VisitMut for Rename {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Field(f) = e {
            if matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident(&self.name)) {
                if let Some(v) = self.var(&f.member) {
                    let v = syn::Ident::new(&v.to_string(), syn::spanned::Spanned::span(&f.member));
                    *e = syn::parse_quote!(#v);
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = rename_tokens(m.tokens.clone(), &self.name, &self.vars);
    }
}

fn rename_tokens(
    tokens: proc_macro2::TokenStream,
    name: &str,
    vars: &[(String, syn::Ident)],
) -> proc_macro2::TokenStream {
    use proc_macro2::TokenTree as T;
    let tokens: Vec<T> = tokens.into_iter().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < tokens.len() {
        match &tokens[k] {
            T::Ident(i) if i == name => {
                if let Some(T::Ident(f)) = tokens.get(k + 2) {
                    if let Some((_, v)) = vars.iter().find(|(n, _)| f == n) {
                        out.push(T::Ident(v.clone()));
                        k += 3;
                        continue;
                    }
                }
                out.push(tokens[k].clone());
            }
            T::Group(g) => {
                let mut ng =
                    proc_macro2::Group::new(g.delimiter(), rename_tokens(g.stream(), name, vars));
                ng.set_span(g.span());
                out.push(T::Group(ng));
            }
            other => out.push(other.clone()),
        }
        k += 1;
    }
    out.into_iter().collect()
}

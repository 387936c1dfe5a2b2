//! A local struct that starts as its type's default and is then read and
//! written through its fields only (`let mut s = State::default(); s.pos
//! = x0; ..; s.pos`): one variable per field it names, each starting at
//! the default's field, `let s_default = State::default(); let mut s_pos
//! = s_default.pos;`. The fields it never names keep their defaults and
//! never matter; a struct used whole anywhere is left as written, as the
//! macro cannot see the fields it does not name.

use super::*;

/// `let [mut] s = Path::default();`, `let [mut] s: Ty =
/// Default::default();` (also `<Ty as Default>::default()`): the name,
/// whether `mut`, the `let`'s type if written, and the initialiser.
pub(super) fn default_let(
    stmt: &syn::Stmt,
) -> Option<(syn::Ident, bool, Option<syn::Type>, syn::Expr)> {
    let l = plain_let(stmt, true)?;
    let syn::Expr::Call(c) = l.init else {
        return None;
    };
    let syn::Expr::Path(f) = &*c.func else {
        return None;
    };
    let last = f.path.segments.last()?;
    if !c.args.is_empty() || last.ident != "default" || f.path.segments.len() < 2 {
        return None;
    }
    // `Default::default()` needs the `let`'s type for the default's.
    let bare_trait =
        f.qself.is_none() && f.path.segments.len() == 2 && f.path.segments[0].ident == "Default";
    if bare_trait && l.ty.is_none() {
        return None;
    }
    Some((l.name(), l.mutable(), l.ty.cloned(), l.init.clone()))
}

/// The fields `stmts` name as `name.field`, in the order they first
/// appear.
fn named_fields(stmts: &[syn::Stmt], name: &syn::Ident) -> Vec<syn::Ident> {
    struct Fields<'n> {
        name: &'n syn::Ident,
        found: Vec<syn::Ident>,
    }
    impl<'a> Visit<'a> for Fields<'_> {
        fn visit_expr_field(&mut self, f: &'a syn::ExprField) {
            let of_name = matches!(&*f.base, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name));
            if let (true, syn::Member::Named(m)) = (of_name, &f.member) {
                if !self.found.iter().any(|x| x == m) {
                    self.found.push(m.clone());
                }
            }
            syn::visit::visit_expr_field(self, f);
        }
    }
    let mut v = Fields {
        name,
        found: Vec::new(),
    };
    for s in stmts {
        v.visit_stmt(s);
    }
    v.found
}

impl Split {
    /// The statements that replace `b.stmts[i..]` where `b.stmts[i]` is a
    /// default-initialised struct used through its fields only until it
    /// is bound again: the default bound once, a variable per named
    /// field, the statements reading those; `None` otherwise.
    pub(super) fn defaulted(&mut self, stmts: &[syn::Stmt]) -> Option<Vec<syn::Stmt>> {
        let (name, mutable, ty, init) = default_let(stmts.first()?)?;
        let rest = &stmts[1..];
        let end = rest
            .iter()
            .position(|s| binds(s, &name))
            .unwrap_or(rest.len());
        // The `let` binding the name again must not read the struct.
        if rest.get(end).is_some_and(|s| mentions(s, &name)) {
            return None;
        }
        let fields = named_fields(&rest[..end], &name);
        let field_names: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
        if fields.is_empty()
            || !rest[..end]
                .iter()
                .all(|s| fields_only(s, &name, &field_names))
        {
            return None;
        }
        let base = syn::Ident::new(&self.names.fresh(&format!("{name}_default")), name.span());
        let annot = ty.map(|t| quote::quote!(: #t));
        let mut out: Vec<syn::Stmt> = vec![syn::parse_quote!(let #base #annot = #init;)];
        let mut vars = Vec::new();
        for f in &fields {
            let v = syn::Ident::new(&self.names.fresh(&format!("{name}_{f}")), f.span());
            let m = mutable.then(|| quote::quote!(mut));
            let allow = super::field_variable_allow();
            out.push(syn::parse_quote!(#allow let #m #v = #base.#f;));
            vars.push((f.to_string(), v));
        }
        let mut rename = Rename {
            name: name.to_string(),
            vars,
        };
        for s in &rest[..end] {
            let mut s = s.clone();
            rename.visit_stmt_mut(&mut s);
            out.push(s);
        }
        out.extend(rest[end..].iter().cloned());
        Some(out)
    }
}

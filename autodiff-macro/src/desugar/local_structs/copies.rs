//! A working copy of a struct parameter, `let mut s = *init;` (`init:
//! &State`), `init` itself taken by value, `init.clone()` of one left
//! out of `wrt(..)`, or of a struct in one (`let mut p = b.pos;`), read
//! and written through
//! its fields only: split as a literal of the fields it
//! uses would be, `let mut s_x = init.x; let mut s_v = init.v;`, so that
//! the copy's fields are floats the macro follows (a rollout that starts
//! from a constant state and advances it with active values). The struct's
//! other fields are never read, so they need no variable; a copy used
//! whole anywhere (passed on, returned, a method called on it) is left as
//! written, since building it again would need every field.

use super::*;

/// The parameters of `sig` that hold a struct (`init: &State`, `s:
/// State`; not `p: &mut P`), by name, with the struct's path.
pub(super) fn struct_params(
    sig: &syn::Signature,
    wrt: Option<&[syn::Ident]>,
) -> std::collections::HashMap<String, StructParam> {
    let mut out = std::collections::HashMap::new();
    for arg in &sig.inputs {
        let syn::FnArg::Typed(t) = arg else { continue };
        let syn::Pat::Ident(p) = &*t.pat else {
            continue;
        };
        // A copy of what a `&mut` parameter lends is the parameter itself
        // (`let s = p;` reborrows): changing it changes the caller's.
        let (ty, lent) = match &*t.ty {
            syn::Type::Reference(r) if r.mutability.is_some() => continue,
            syn::Type::Reference(r) => (&*r.elem, true),
            other => (other, false),
        };
        // A float, an integer, a `Vec` or another type of `std`'s has no
        // named fields to read; `Self` is the method's receiver's.
        let Some(path) = crate::desugar::internal::user_type(ty) else {
            continue;
        };
        if path.path.is_ident("Self") {
            continue;
        }
        out.insert(
            p.ident.to_string(),
            StructParam {
                path: path.path.clone(),
                lent,
                constant: wrt.is_some_and(|w| !w.contains(&p.ident)),
            },
        );
    }
    out
}

/// A parameter that holds a struct: the struct's path, whether it is
/// taken by `&`, and whether `wrt(..)` leaves it out (a constant).
pub(super) struct StructParam {
    path: syn::Path,
    lent: bool,
    constant: bool,
}

/// `let mut s = <copy of a struct parameter>;` whose name the
/// statements after it (up to one that binds it again) use through named
/// fields only: its name, whether `mut`, the struct's path and each field
/// they use with the parameter's field as its value, as [`struct_let`]
/// gives a literal's.
pub(super) fn parameter_copy(
    params: &std::collections::HashMap<String, StructParam>,
    stmt: &syn::Stmt,
    rest: &[syn::Stmt],
) -> Option<StructLet> {
    let l = plain_let(stmt, true)?;
    // A copy the function changes; one only read is read in place.
    if !l.mutable() {
        return None;
    }
    let (param, how) = copied_parameter(l.init_bare())?;
    // Its type written: a field's copy (`let mut p: P2 = b.pos;`).
    if l.ty.is_some() && !matches!(how, Copy::Field(_)) {
        return None;
    }
    let StructParam {
        path,
        lent,
        constant,
    } = params.get(&param.to_string())?;
    // `let s = init;` of `init: &State` copies the reference, whose fields
    // would be moved out of it. A clone of a differentiated struct is left
    // to the lowering, which follows it (`struct_copy`); one of a constant
    // (left out of `wrt(..)`) is split, each field cloned. A field's copy
    // (`let mut p = b.pos;`) copies the field, by reference or not.
    if how == Copy::Bare && *lent || how == Copy::Cloned && !constant {
        return None;
    }
    let name = l.name();
    let end = rest
        .iter()
        .position(|s| binds(s, &name))
        .unwrap_or(rest.len());
    let used = named_fields(&name, &rest[..end]);
    if used.is_empty() {
        return None;
    }
    let names: Vec<String> = used.iter().map(|f| f.to_string()).collect();
    if !rest[..end].iter().all(|s| fields_only(s, &name, &names)) {
        return None;
    }
    // The `let` that binds the name again may read the copy in its
    // initialiser: left as written unless through fields too.
    if let Some(s @ syn::Stmt::Local(l)) = rest.get(end) {
        if let Some(init) = &l.init {
            let value = syn::Stmt::Expr((*init.expr).clone(), None);
            if mentions(s, &name) && !fields_only(&value, &name, &names) {
                return None;
            }
        }
    }
    // `*init` copies a `Copy` struct, and `init` by value moves it whole,
    // so each field is taken as it is. A clone clones a field used as a
    // collection (`s.xs[i]`, `s.xs.len()`, `&s.xs`); one used as a number
    // (`s.x += ..`, `s.x.sin()`), which the macro reads as a float, is
    // copied.
    let collections = collection_fields(&name, &rest[..end]);
    let fields = used
        .into_iter()
        .map(|f| {
            let value: syn::Expr = match &how {
                Copy::Cloned if collections.contains(&f) => syn::parse_quote!(#param.#f.clone()),
                Copy::Field(place) => syn::parse_quote!(#place.#f),
                _ => syn::parse_quote!(#param.#f),
            };
            (f, value)
        })
        .collect();
    Some((name, l.mutable(), path.clone(), fields))
}

/// How a `let` copies a parameter.
#[derive(Clone, PartialEq)]
enum Copy {
    /// `p`.
    Bare,
    /// `*p`.
    Deref,
    /// `p.clone()`, `(*p).clone()`.
    Cloned,
    /// A field of it, or a field's field, by value (`p.pos`, `p.a.b`): a
    /// struct of its own, whose type the source does not state, read
    /// through the fields it is used by (`p.pos.x`).
    Field(syn::Expr),
}

/// The parameter `e` copies, and how.
fn copied_parameter(e: &syn::Expr) -> Option<(&syn::Ident, Copy)> {
    fn name(e: &syn::Expr) -> Option<&syn::Ident> {
        match e {
            syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
            _ => None,
        }
    }
    fn field_root(e: &syn::Expr) -> Option<&syn::Ident> {
        match e {
            syn::Expr::Field(f) if matches!(f.member, syn::Member::Named(_)) => field_root(&f.base),
            _ => name(e),
        }
    }
    match e {
        syn::Expr::Paren(p) => copied_parameter(&p.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
            name(&u.expr).map(|n| (n, Copy::Deref))
        }
        syn::Expr::Field(f) if matches!(f.member, syn::Member::Named(_)) => {
            field_root(&f.base).map(|n| (n, Copy::Field(e.clone())))
        }
        syn::Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
            match copied_parameter(&m.receiver)? {
                (n, Copy::Bare | Copy::Deref) => Some((n, Copy::Cloned)),
                _ => None,
            }
        }
        _ => name(e).map(|n| (n, Copy::Bare)),
    }
}

/// The named fields `stmts` read or write of `name` (`name.x`), in the
/// order first met.
fn named_fields(name: &syn::Ident, stmts: &[syn::Stmt]) -> Vec<syn::Ident> {
    struct Find<'n>(&'n syn::Ident, Vec<syn::Ident>);
    impl<'a> syn::visit::Visit<'a> for Find<'_> {
        fn visit_expr_field(&mut self, f: &'a syn::ExprField) {
            if let (syn::Member::Named(m), syn::Expr::Path(p)) = (&f.member, &*f.base) {
                if p.path.is_ident(self.0) && !self.1.contains(m) {
                    self.1.push(m.clone());
                }
            }
            syn::visit::visit_expr_field(self, f);
        }
    }
    let mut find = Find(name, Vec::new());
    for s in stmts {
        syn::visit::Visit::visit_stmt(&mut find, s);
    }
    find.1
}

/// The named fields of `name` that `stmts` use as a collection: indexed
/// (`name.xs[i]`), lent (`&name.xs`), or given a method that is no float
/// method (`name.xs.len()`, `name.xs.iter()`).
fn collection_fields(name: &syn::Ident, stmts: &[syn::Stmt]) -> Vec<syn::Ident> {
    struct Find<'n>(&'n syn::Ident, Vec<syn::Ident>);
    impl Find<'_> {
        fn field<'e>(&self, e: &'e syn::Expr) -> Option<&'e syn::Ident> {
            match e {
                syn::Expr::Field(f) => match (&f.member, &*f.base) {
                    (syn::Member::Named(m), syn::Expr::Path(p)) if p.path.is_ident(self.0) => {
                        Some(m)
                    }
                    _ => None,
                },
                _ => None,
            }
        }
    }
    impl<'a> syn::visit::Visit<'a> for Find<'_> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            let used = match e {
                syn::Expr::Index(ix) => self.field(&ix.expr),
                syn::Expr::Reference(r) => self.field(&r.expr),
                syn::Expr::MethodCall(m)
                    if crate::rules::method(&m.method.to_string()).is_none() =>
                {
                    self.field(&m.receiver)
                }
                _ => None,
            };
            if let Some(f) = used {
                if !self.1.contains(f) {
                    self.1.push(f.clone());
                }
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut find = Find(name, Vec::new());
    for s in stmts {
        syn::visit::Visit::visit_stmt(&mut find, s);
    }
    find.1
}

//! What a `Vec` of structs is filled with: the `let` that declares it
//! empty, a list of structs as the pushes it stands for, and the struct
//! every push writes out (`super`'s split reads all of it first).

use super::is_name;

/// `let [mut] v = vec![P { .. }, P { .. }];`, each element a struct
/// written out, as `let mut v = Vec::new(); v.push(P { .. }); v.push(P {
/// .. });`, and `let [mut] v[: Vec<P>] = src.map(|pat| P { .. }).collect();`
/// as `let mut v = Vec::new(); for pat in src { v.push(P { .. }); }`,
/// which the split takes like any other (without `mut`, nothing after
/// changes it); `None` for any other statement.
pub(super) fn listed_as_pushes(s: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
    let (p, typed, init) = named_let(s)?;
    let name = &p.ident;
    let span = syn::spanned::Spanned::span(s);
    let mut out = vec![syn::parse_quote_spanned!(span=> let mut #name = ::std::vec::Vec::new();)];
    if let Some((pat, src, stmts, elem)) = collected_structs(init) {
        out.push(syn::parse_quote_spanned!(span=>
            for #pat in #src {
                #(#stmts)*
                #name.push(#elem);
            }
        ));
        return Some(out);
    }
    if typed {
        return None;
    }
    for e in structs_listed(init)? {
        out.push(syn::parse_quote_spanned!(span=> #name.push(#e);));
    }
    Some(out)
}

/// `src.map(|pat| P { .. }).collect()` (`collect::<Vec<_>>()` too; the
/// closure's body a struct written out, or a block ending with one): the
/// closure's pattern without its type, the source, the block's
/// statements and the struct.
#[allow(clippy::type_complexity)]
fn collected_structs(
    init: &syn::Expr,
) -> Option<(syn::Pat, syn::Expr, Vec<syn::Stmt>, syn::ExprStruct)> {
    let syn::Expr::MethodCall(collect) = init else {
        return None;
    };
    if collect.method != "collect" || !collect.args.is_empty() {
        return None;
    }
    let syn::Expr::MethodCall(map) = &*collect.receiver else {
        return None;
    };
    if map.method != "map" || map.args.len() != 1 || map.turbofish.is_some() {
        return None;
    }
    let syn::Expr::Closure(c) = &map.args[0] else {
        return None;
    };
    if c.inputs.len() != 1 || c.asyncness.is_some() || !c.attrs.is_empty() {
        return None;
    }
    let pat = match &c.inputs[0] {
        syn::Pat::Type(t) => (*t.pat).clone(),
        p => p.clone(),
    };
    let (stmts, last) = match &*c.body {
        syn::Expr::Struct(s) => (Vec::new(), s.clone()),
        syn::Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
            let mut stmts = b.block.stmts.clone();
            match stmts.pop() {
                Some(syn::Stmt::Expr(syn::Expr::Struct(s), None)) => (stmts, s),
                _ => return None,
            }
        }
        _ => return None,
    };
    Some((pat, (*map.receiver).clone(), stmts, last))
}

/// The structs of `vec![P { .. }, q.clone(), ..]`, a list of structs at
/// least one of which is written out (also what `analysis/refusals.rs`
/// names in its refusal).
pub fn structs_listed(init: &syn::Expr) -> Option<Vec<syn::Expr>> {
    let syn::Expr::Macro(m) = init else {
        return None;
    };
    if !m.mac.path.is_ident("vec") {
        return None;
    }
    let elems = m
        .mac
        .parse_body_with(syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
        .ok()?;
    // One struct written out shows the type (and its fields) of all.
    let some_struct = elems.iter().any(|e| matches!(e, syn::Expr::Struct(_)));
    some_struct.then(|| elems.into_iter().collect())
}

/// `let mut v = Vec::new();` (or `Vec::with_capacity(n)` of a name or a
/// literal, with or without a written type): the name and the initialiser.
pub(super) fn empty_vec_let(stmt: &syn::Stmt) -> Option<(syn::Ident, syn::Expr)> {
    let (p, _, init) = named_let(stmt)?;
    // `mut`: pushes change it.
    p.mutability?;
    let syn::Expr::Call(c) = init else {
        return None;
    };
    let syn::Expr::Path(f) = &*c.func else {
        return None;
    };
    let segments = crate::rules::path_segments(&f.path);
    let simple_arg = |a: &syn::Expr| matches!(a, syn::Expr::Lit(_) | syn::Expr::Path(_));
    let ok = match segments.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [.., "Vec", "new"] => c.args.is_empty(),
        [.., "Vec", "with_capacity"] => c.args.len() == 1 && simple_arg(&c.args[0]),
        _ => false,
    };
    ok.then(|| (p.ident.clone(), init.clone()))
}

/// What `name.push(Path { .. })` pushes in `stmts`: the struct, written
/// out with the same named fields each time (at least one push, none
/// other), and whether some push gives a field a literal without a suffix
/// (`P { x: 2.0, .. }`), whose type only the struct's field gives.
pub(super) struct Pushed {
    pub path: syn::Path,
    pub fields: Vec<String>,
    pub untyped_literal: bool,
}

pub(super) fn pushed_struct(stmts: &[syn::Stmt], name: &syn::Ident) -> Option<Pushed> {
    struct Pushes<'n> {
        name: &'n syn::Ident,
        found: Vec<(syn::Path, Vec<String>)>,
        untyped_literal: bool,
        other: bool,
    }
    impl<'a> syn::visit::Visit<'a> for Pushes<'_> {
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            if is_name(&m.receiver, self.name) && m.method == "push" {
                match m.args.first() {
                    Some(syn::Expr::Struct(s))
                        if m.args.len() == 1 && s.rest.is_none() && s.qself.is_none() =>
                    {
                        let fields: Option<Vec<String>> = s
                            .fields
                            .iter()
                            .map(|f| match &f.member {
                                syn::Member::Named(n) => Some(n.to_string()),
                                syn::Member::Unnamed(_) => None,
                            })
                            .collect();
                        self.untyped_literal |= s
                            .fields
                            .iter()
                            .any(|f| crate::desugar::local_structs::untyped_literal(&f.expr));
                        // A field that holds a `Vec`, an array or a struct
                        // (`data: vec![..]`, `pos: [x, y]`): its `Vec` of
                        // them could not give an element's part back
                        // without moving it out; the `Vec` stays whole.
                        self.other |= s.fields.iter().any(|f| holds_parts(&f.expr));
                        match fields {
                            Some(f) if !f.is_empty() => self.found.push((s.path.clone(), f)),
                            _ => self.other = true,
                        }
                    }
                    // A struct made otherwise (`b0.clone()`, `make(a)`): of
                    // the type the literals pushed show, split after it is
                    // bound (`Rewrite::stmts`).
                    Some(_) if m.args.len() == 1 => {}
                    _ => self.other = true,
                }
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut p = Pushes {
        name,
        found: Vec::new(),
        untyped_literal: false,
        other: false,
    };
    for s in stmts {
        syn::visit::Visit::visit_stmt(&mut p, s);
    }
    let (path, fields) = p.found.first()?.clone();
    let same = p.found.iter().all(|(q, f)| {
        *q == path && f.len() == fields.len() && f.iter().all(|x| fields.contains(x))
    });
    (same && !p.other).then_some(Pushed {
        path,
        fields,
        untyped_literal: p.untyped_literal,
    })
}

/// `let [mut] name[: T] = init;` (lint attributes at most, no `else`):
/// the name's pattern, whether its type is written, and the initialiser.
pub(super) fn named_let(s: &syn::Stmt) -> Option<(&syn::PatIdent, bool, &syn::Expr)> {
    let syn::Stmt::Local(l) = s else {
        return None;
    };
    let (pat, typed) = match &l.pat {
        syn::Pat::Type(t) => (&*t.pat, true),
        p => (p, false),
    };
    let syn::Pat::Ident(p) = pat else {
        return None;
    };
    if !lints_only(&l.attrs) || p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    Some((p, typed, &init.expr))
}

/// Whether `attrs` are lint levels only (`#[allow(unused_mut)]`): what a
/// `let` of a `Vec` of structs may carry and still be split (the `let`s
/// of the fields' `Vec`s allow what they need themselves).
pub(super) fn lints_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().all(|a| {
        ["allow", "warn", "deny", "expect"]
            .iter()
            .any(|k| a.path().is_ident(k))
    })
}

/// Whether `e` plainly makes a value of parts, not a number or a flag: a
/// `vec![..]`, an array, a struct, `Vec::new()`, `.to_vec()`,
/// `.clone()`, `.collect()`.
fn holds_parts(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Macro(m) => m.mac.path.is_ident("vec"),
        syn::Expr::Array(_) | syn::Expr::Repeat(_) | syn::Expr::Struct(_) => true,
        syn::Expr::MethodCall(m) => {
            ["to_vec", "clone", "collect", "to_owned"].contains(&m.method.to_string().as_str())
        }
        syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(p)
            if crate::rules::path_segments(&p.path).iter().any(|s| s == "Vec")),
        syn::Expr::Paren(p) => holds_parts(&p.expr),
        _ => false,
    }
}

//! What a `Vec` of structs is filled with: the `let` that declares it
//! empty, a list of structs as the pushes it stands for, and the struct
//! every push writes out (`super`'s split reads all of it first).

use super::is_name;
use super::shape::Shape;

/// `let [mut] v = vec![P { .. }, P { .. }];`, each element a struct
/// written out, as `let mut v = Vec::new(); v.push(P { .. }); v.push(P {
/// .. });`, and `let [mut] v[: Vec<P>] = src.map(|pat| P { .. }).collect();`
/// as `let mut v = Vec::new(); for pat in src { v.push(P { .. }); }`,
/// which the split takes like any other (without `mut`, nothing after
/// changes it). The same for rows, arrays or tuples written out (`vec![[a,
/// b], [c, d]]`), also `vec![[0.0; 2]; n]` as `n` pushes, and a copy of
/// rows of the `Vec`'s written type (`let v: Vec<[f64; 2]> =
/// src.to_vec();`, `.clone()`) as `for r in src.iter() { v.push(*r); }`.
/// `None` for any other statement.
pub(super) fn listed_as_pushes(s: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
    let (p, typed, init) = named_let(s)?;
    let name = &p.ident;
    let span = syn::spanned::Spanned::span(s);
    // A written type of rows stays: it gives their parts' type.
    let rows = written_type(s).filter(|t| Shape::of_type(t).is_some());
    let mut out = vec![match rows {
        Some(t) => syn::parse_quote_spanned!(span=> let mut #name: #t = ::std::vec::Vec::new();),
        None => syn::parse_quote_spanned!(span=> let mut #name = ::std::vec::Vec::new();),
    }];
    if let Some((pat, src, stmts, elem)) = collected_structs(init) {
        out.push(syn::parse_quote_spanned!(span=>
            for #pat in #src {
                #(#stmts)*
                #name.push(#elem);
            }
        ));
        return Some(out);
    }
    if let Some((row, n)) = repeated_row(init) {
        out.push(syn::parse_quote_spanned!(span=>
            for _ in 0..#n {
                #name.push(#row);
            }
        ));
        return Some(out);
    }
    if let (Some(_), Some(src)) = (rows, copied_rows(init)) {
        let r = syn::Ident::new("__autodiff_row", span);
        out.push(syn::parse_quote_spanned!(span=>
            for #r in (#src).iter() {
                #name.push(*#r);
            }
        ));
        return Some(out);
    }
    // `let ps: Vec<P> = vec![P { .. }, ..];`: a written type of structs
    // without type arguments says no more than the literals do (one with
    // them, `Vec<P<f32>>`, would be lost with the `let`).
    if typed && rows.is_none() && !written_type(s).is_some_and(plain_struct_vec) {
        return None;
    }
    let listed = structs_listed(init).or_else(|| rows_listed(init))?;
    for e in listed {
        out.push(syn::parse_quote_spanned!(span=> #name.push(#e);));
    }
    Some(out)
}

/// The items of `vec![..]` (`[..].to_vec()`), `None` where `init` is no
/// such list.
fn vec_listed(init: &syn::Expr) -> Option<Vec<syn::Expr>> {
    match crate::lower::array_init_parts(init)? {
        crate::lower::ArrayParts::List(items, true) => Some(items),
        _ => None,
    }
}

/// The rows of `vec![[a, b], [c, d]]` (tuples too), every one written out.
fn rows_listed(init: &syn::Expr) -> Option<Vec<syn::Expr>> {
    let elems = vec_listed(init)?;
    let row = |e: &syn::Expr| {
        matches!(
            Shape::written_out(e),
            Some((Shape::Array | Shape::Tuple, _))
        )
    };
    (!elems.is_empty() && elems.iter().all(row)).then_some(elems)
}

/// `vec![row; n]` (`[row; n].to_vec()`), a row, tuple or struct written out of literals and
/// names (each part the same value however often it is evaluated): the
/// row and `n`.
fn repeated_row(init: &syn::Expr) -> Option<(syn::Expr, syn::Expr)> {
    let crate::lower::ArrayParts::Filled(filled) = crate::lower::array_init_parts(init)? else {
        return None;
    };
    let (row, n) = *filled;
    let (_, parts) = Shape::written_out(&row)?;
    let plain = |e: &syn::Expr| {
        matches!(e, syn::Expr::Lit(_) | syn::Expr::Path(_))
            || crate::desugar::local_structs::untyped_literal(e)
    };
    parts.iter().all(|(_, e)| plain(e)).then_some((row, n))
}

/// Whether `t` is `Vec<P>`, `P` a path without type arguments.
fn plain_struct_vec(t: &syn::Type) -> bool {
    let syn::Type::Path(p) = t else {
        return false;
    };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return false;
    };
    last.ident == "Vec"
        && matches!(&a.args.iter().collect::<Vec<_>>()[..], [syn::GenericArgument::Type(syn::Type::Path(e))]
            if e.qself.is_none() && e.path.segments.iter().all(|s| s.arguments.is_none()))
}

/// `src.to_vec()`, `src.clone()`, `src.to_owned()`: `src`.
fn copied_rows(init: &syn::Expr) -> Option<&syn::Expr> {
    let syn::Expr::MethodCall(m) = init else {
        return None;
    };
    let copy = ["to_vec", "clone", "to_owned"].contains(&m.method.to_string().as_str());
    (copy && m.args.is_empty() && m.turbofish.is_none()).then_some(&*m.receiver)
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
/// least one of which is written out (also what `analysis/refusals/`
/// names in its refusal).
pub fn structs_listed(init: &syn::Expr) -> Option<Vec<syn::Expr>> {
    let elems = vec_listed(init)?;
    // One struct written out shows the type (and its fields) of all.
    let some_struct = elems.iter().any(|e| matches!(e, syn::Expr::Struct(_)));
    some_struct.then_some(elems)
}

/// `let mut v = Vec::new();` (or `Vec::with_capacity(n)` of a capacity
/// without effects, with or without a written type): the name and the
/// initialiser.
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
    // Evaluated again for each part's `Vec`: a capacity without effects
    // (`n`, `2 * n`, `xs.len()`, `data.xs.len() + 1`).
    fn simple_arg(a: &syn::Expr) -> bool {
        match a {
            syn::Expr::Lit(_) | syn::Expr::Path(_) => true,
            syn::Expr::Field(f) => simple_arg(&f.base),
            syn::Expr::Paren(p) => simple_arg(&p.expr),
            syn::Expr::Binary(b) => {
                !crate::desugar::is_compound_assign(&b.op)
                    && simple_arg(&b.left)
                    && simple_arg(&b.right)
            }
            syn::Expr::MethodCall(m) => {
                m.method == "len" && m.args.is_empty() && simple_arg(&m.receiver)
            }
            _ => false,
        }
    }
    let ok = match segments.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [.., "Vec", "new"] => c.args.is_empty(),
        [.., "Vec", "with_capacity"] => c.args.len() == 1 && simple_arg(&c.args[0]),
        _ => false,
    };
    ok.then(|| (p.ident.clone(), init.clone()))
}

/// What `name.push(..)` pushes in `stmts`: an element written out with
/// the same parts each time (`P { x: a, y: b }`, `(a, b)`, `[a, b]`; at
/// least one push, none other), or of the `Vec`'s written type
/// (`Vec<[f64; 2]>`, `Vec<(f64, f64)>`) where its pushes are values made
/// otherwise, or of the arrays its pushes name (`rows`, `arrays_by_name`); whether some push gives a part a literal without a suffix
/// (`P { x: 2.0, .. }`), whose type only the struct's field gives; and
/// the parts' type where the `Vec`'s is written.
pub(super) struct Pushed {
    pub shape: Shape,
    pub fields: Vec<String>,
    pub untyped_literal: bool,
    pub part_type: Option<syn::Type>,
}

pub(super) fn pushed_shape(
    stmts: &[syn::Stmt],
    name: &syn::Ident,
    written: Option<&syn::Type>,
    rows: &std::collections::HashMap<String, usize>,
) -> Option<Pushed> {
    struct Pushes<'n> {
        name: &'n syn::Ident,
        rows: &'n std::collections::HashMap<String, usize>,
        found: Vec<(Shape, Vec<String>)>,
        untyped_literal: bool,
        made_otherwise: bool,
        // The length of every array a push gives by name (`push(s)`).
        named_rows: Vec<Option<usize>>,
        other: bool,
    }
    impl<'a> syn::visit::Visit<'a> for Pushes<'_> {
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            if is_name(&m.receiver, self.name) && m.method == "push" {
                match m.args.first().map(Shape::written_out) {
                    Some(Some((shape, parts))) if m.args.len() == 1 => {
                        self.untyped_literal |= parts
                            .iter()
                            .any(|(_, e)| crate::desugar::local_structs::untyped_literal(e));
                        // A part that holds a `Vec`, an array or a struct
                        // (`data: vec![..]`, `pos: [x, y]`): its `Vec` of
                        // them could not give an element's part back
                        // without moving it out; the `Vec` stays whole.
                        self.other |= parts.iter().any(|(_, e)| holds_parts(e));
                        match parts.is_empty() {
                            false => self
                                .found
                                .push((shape, parts.into_iter().map(|(f, _)| f).collect())),
                            true => self.other = true,
                        }
                    }
                    // An element made otherwise (`b0.clone()`, `make(a)`):
                    // of the type the literals pushed show, split after it
                    // is bound (`Rewrite::stmts`).
                    Some(None) if m.args.len() == 1 => {
                        self.made_otherwise = true;
                        let named = match &m.args[0] {
                            syn::Expr::Path(p) => p.path.get_ident(),
                            _ => None,
                        };
                        self.named_rows
                            .push(named.and_then(|n| self.rows.get(&n.to_string()).copied()));
                    }
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
        made_otherwise: false,
        named_rows: Vec::new(),
        rows,
        other: false,
    };
    for s in stmts {
        syn::visit::Visit::visit_stmt(&mut p, s);
    }
    let written = written.and_then(Shape::of_type);
    let (shape, fields) = match (p.found.first(), &written) {
        (Some(first), _) => first.clone(),
        (None, Some((shape, fields, _))) if p.made_otherwise => (shape.clone(), fields.clone()),
        // `traj.push(s);` only, each `s` an array of the same length
        // (`let mut s = [a, b];`).
        (None, None) => match p.named_rows.first() {
            Some(Some(n)) if p.named_rows.iter().all(|k| *k == Some(*n)) => {
                (Shape::Array, (0..*n).map(|i| i.to_string()).collect())
            }
            _ => return None,
        },
        _ => return None,
    };
    let same = |(q, f): &(Shape, Vec<String>)| {
        q.same(&shape) && f.len() == fields.len() && f.iter().all(|x| fields.contains(x))
    };
    let agrees = match &written {
        Some((w, f, _)) => same(&(w.clone(), f.clone())),
        None => true,
    };
    let ok = p.found.iter().all(same) && agrees && !p.other;
    ok.then_some(Pushed {
        shape,
        fields,
        untyped_literal: p.untyped_literal,
        part_type: written.map(|(_, _, t)| t),
    })
}

/// The type written in `let name: T = ..;`.
pub(super) fn written_type(s: &syn::Stmt) -> Option<&syn::Type> {
    match s {
        syn::Stmt::Local(syn::Local {
            pat: syn::Pat::Type(t),
            ..
        }) => Some(&t.ty),
        _ => None,
    }
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

/// The length of each array a name is bound to in `item`, where every
/// binding of the name gives one and the same: `let [mut] s = [a, b];`,
/// `[0.0; 3]`, `let s: [f64; 2] = ..;`, a parameter `s0: [f64; 2]`.
pub(super) fn arrays_by_name(item: &syn::ItemFn) -> std::collections::HashMap<String, usize> {
    use syn::visit::Visit;
    fn length(ty: Option<&syn::Type>, init: Option<&syn::Expr>) -> Option<usize> {
        if let Some(n) = ty.and_then(|t| match t {
            syn::Type::Array(a) => super::shape::literal_length(a),
            _ => None,
        }) {
            return Some(n);
        }
        match init? {
            syn::Expr::Array(a) => Some(a.elems.len()),
            e @ syn::Expr::Repeat(_) => Shape::written_out(e).map(|(_, parts)| parts.len()),
            _ => None,
        }
    }
    #[derive(Default)]
    struct Lets(std::collections::HashMap<String, Option<usize>>);
    impl Lets {
        fn bind(&mut self, pat: &syn::Pat, len: Option<usize>) {
            let (pat, len) = match pat {
                syn::Pat::Type(t) => (&*t.pat, len.or(length(Some(&t.ty), None))),
                p => (p, len),
            };
            if let syn::Pat::Ident(i) = pat {
                let e = self.0.entry(i.ident.to_string()).or_insert(len);
                if *e != len {
                    *e = None;
                }
            }
        }
    }
    impl<'a> Visit<'a> for Lets {
        fn visit_local(&mut self, l: &'a syn::Local) {
            let init = l.init.as_ref().map(|i| &*i.expr);
            self.bind(&l.pat, length(None, init));
            syn::visit::visit_local(self, l);
        }
        fn visit_fn_arg(&mut self, a: &'a syn::FnArg) {
            if let syn::FnArg::Typed(t) = a {
                self.bind(&t.pat, length(Some(&t.ty), None));
            }
        }
    }
    let mut lets = Lets::default();
    lets.visit_item_fn(item);
    lets.0
        .into_iter()
        .filter_map(|(n, k)| Some((n, k.filter(|k| *k > 0)?)))
        .collect()
}

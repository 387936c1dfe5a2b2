//! A chain's element bound to a pattern: the `let`s a pattern makes of
//! it, and the names that stand for a place instead (a row, a window or
//! chunk, a part of a value the macro does not model), read through their
//! array wherever the body uses them.

use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use super::free_names::{rename_free, visit_vec_macro, Dereferenced, RenameFree};
use super::{paren, value_of, Elem};

/// Binds `pat` to `elem` for `body`: the `let`s, and the body with every
/// window or chunk the pattern names read through its array. `None` where
/// the pattern does not fit the element, or a window is used otherwise
/// than as `w[j]` or `w.len()`.
pub(super) fn bind(
    pat: &syn::Pat,
    elem: Elem,
    body: &syn::Expr,
) -> Option<(Vec<syn::Stmt>, syn::Expr)> {
    let mut body = body.clone();
    let stmts = bind_with(pat, elem, |v| v.visit_expr_mut(&mut body))?;
    Some((stmts, body))
}

/// [`bind`] for a loop's block.
pub(super) fn bind_block(
    pat: &syn::Pat,
    elem: Elem,
    body: &syn::Block,
) -> Option<(Vec<syn::Stmt>, syn::Block)> {
    let mut body = body.clone();
    let stmts = bind_with(pat, elem, |v| v.visit_block_mut(&mut body))?;
    Some((stmts, body))
}

/// The views are read through their arrays where the body uses the
/// names the pattern binds, their free occurrences only: renamed first
/// (`RenameFree`), so that a `let y = y * 0.25;` in the body, or a
/// closure's `|y|`, binds a name of its own whose uses stay as written.
fn bind_with(
    pat: &syn::Pat,
    elem: Elem,
    mut through: impl FnMut(&mut dyn VisitMut),
) -> Option<Vec<syn::Stmt>> {
    let mut stmts = Vec::new();
    let mut views = Vec::new();
    bind_into(pat, elem, &mut stmts, &mut views)?;
    for view in views {
        let name = match &view {
            View::Copied(name) => {
                through(&mut Dereferenced(name));
                continue;
            }
            View::Through(name, ..) | View::Slot(name, _) | View::Lent(name, _) => name,
        };
        let fresh = syn::Ident::new(&format!("__autodiff_view_{name}"), name.span());
        let mut rename = RenameFree {
            from: name,
            to: &fresh,
            escaped: false,
        };
        through(&mut rename);
        if rename.escaped {
            return None;
        }
        let view = match view {
            View::Through(_, array, start, len) => View::Through(fresh, array, start, len),
            View::Slot(_, place) => View::Slot(fresh, place),
            View::Lent(_, array) => View::Lent(fresh, array),
            View::Copied(name) => View::Copied(name),
        };
        let mut sub = match view {
            View::Through(name, array, start, len) => ThroughArray {
                name,
                array,
                start,
                len,
                slot: false,
                escaped: false,
                lent: false,
            },
            View::Lent(name, array) => ThroughArray {
                name,
                array,
                start: syn::parse_quote!(0),
                len: None,
                slot: false,
                escaped: false,
                lent: true,
            },
            View::Copied(_) => continue,
            View::Slot(name, place) => ThroughArray {
                name,
                array: place,
                start: syn::parse_quote!(0),
                len: None,
                slot: true,
                escaped: false,
                lent: false,
            },
        };
        through(&mut sub);
        if sub.escaped {
            return None;
        }
    }
    Some(stmts)
}

/// A name that stands for a place rather than a value. Few are made, one
/// per name a loop's pattern binds: their sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum View {
    /// A window or chunk bound to a name: the name, the array, the start
    /// and the length; or a row bound to a name (the length `None`): the
    /// name stands for the row's place, `w[k]`, wherever it is used.
    Through(syn::Ident, syn::Expr, syn::Expr, Option<syn::Expr>),
    /// An element's place bound by `iter_mut` (`x`): `*x` is the place.
    Slot(syn::Ident, syn::Expr),
    /// A row bound by reference (`for row in rows`, `row: &Vec<f64>`):
    /// the row's place, lent where the name is an argument (`f(row)` is
    /// `f(&rows[k])`).
    Lent(syn::Ident, syn::Expr),
    /// A name bound by value that Rust binds by reference (`i` of `for
    /// (i, w) in pairs` over `&[(usize, f64)]`): `*i` is the name.
    Copied(syn::Ident),
}

fn bind_into(
    pat: &syn::Pat,
    elem: Elem,
    stmts: &mut Vec<syn::Stmt>,
    views: &mut Vec<View>,
) -> Option<()> {
    let pat = match pat {
        // `&k` against a reference to an element: the element.
        syn::Pat::Reference(r) => {
            let elem = match elem {
                Elem::Ref { array, at } => Elem::Item { array, at },
                // A part by value (`for &y in data.ys.iter()`): its place,
                // never lent.
                Elem::Part { array, at } => match &*r.pat {
                    syn::Pat::Ident(i)
                        if i.by_ref.is_none() && i.subpat.is_none() && i.mutability.is_none() =>
                    {
                        views.push(View::Through(
                            i.ident.clone(),
                            syn::parse_quote!(#array[#at]),
                            syn::parse_quote!(0),
                            None,
                        ));
                        return Some(());
                    }
                    _ => Elem::Part { array, at },
                },
                other => other,
            };
            return bind_into(&r.pat, elem, stmts, views);
        }
        syn::Pat::Type(t) => return bind_into(&t.pat, elem, stmts, views),
        syn::Pat::Paren(p) => return bind_into(&p.pat, elem, stmts, views),
        other => other,
    };
    match (pat, elem) {
        (syn::Pat::Wild(_), _) => Some(()),
        (syn::Pat::Ident(i), Elem::View { array, start, len })
            if i.by_ref.is_none() && i.subpat.is_none() =>
        {
            views.push(View::Through(i.ident.clone(), array, start, Some(len)));
            Some(())
        }
        (syn::Pat::Ident(i), Elem::Row(row)) if i.by_ref.is_none() && i.subpat.is_none() => {
            views.push(View::Lent(i.ident.clone(), row));
            Some(())
        }
        // The name is a reference in Rust (`for x in data.xs.iter()`,
        // `x: &Vec<f64>`): given bare to a call, it is lent, as a row is.
        (syn::Pat::Ident(i), Elem::Part { array, at })
            if i.by_ref.is_none() && i.subpat.is_none() && i.mutability.is_none() =>
        {
            views.push(View::Lent(i.ident.clone(), syn::parse_quote!(#array[#at])));
            Some(())
        }
        // `for x in xs.iter_mut()`: `*x` is `xs[k]`.
        (syn::Pat::Ident(i), Elem::Slot { array, at })
            if i.by_ref.is_none() && i.subpat.is_none() && i.mutability.is_none() =>
        {
            views.push(View::Slot(i.ident.clone(), syn::parse_quote!(#array[#at])));
            Some(())
        }
        (_, Elem::Slot { .. }) => None,
        (syn::Pat::Ident(_), Elem::Counted(..) | Elem::Pair(..)) => None,
        (syn::Pat::Ident(i), e) if i.by_ref.is_none() && i.subpat.is_none() => {
            let value = value_of(e)?;
            let name = &i.ident;
            stmts.push(syn::parse_quote!(let #name = #value;));
            Some(())
        }
        (syn::Pat::Tuple(t), Elem::Pair(a, b)) if t.elems.len() == 2 => {
            bind_into(&t.elems[0], *a, stmts, views)?;
            bind_into(&t.elems[1], *b, stmts, views)
        }
        // `&(i, j)` (or `(i, j)` after `copied()`) over `&[(usize,
        // usize)]`: a `let` per name, `let i = edges[k].0;`, each a value
        // the loop can record where the reverse sweep reads it (a
        // closure's body is a block of its own, whose pattern `let` would
        // keep its names inside).
        (syn::Pat::Tuple(t), Elem::Item { array, at } | Elem::Part { array, at })
            if t.elems.iter().all(|p| match p {
                syn::Pat::Wild(_) => true,
                syn::Pat::Ident(i) => i.by_ref.is_none() && i.subpat.is_none(),
                _ => false,
            }) =>
        {
            for (k, p) in t.elems.iter().enumerate() {
                if let syn::Pat::Ident(i) = p {
                    let k = syn::Index::from(k);
                    stmts.push(syn::parse_quote!(let #i = #array[#at].#k;));
                    views.push(View::Copied(i.ident.clone()));
                }
            }
            Some(())
        }
        // `[a, b]` (or `&[a, b]`) over rows of a literal length (`pts:
        // &[[f64; 2]]`): a `let` per name, `let a = pts[k][0];`, floats the
        // loop follows (`*a` of Rust's reference read as `a`).
        (syn::Pat::Slice(sl), e @ (Elem::Row(_) | Elem::Item { .. } | Elem::Part { .. }))
            if sl.elems.iter().all(|p| match p {
                syn::Pat::Wild(_) => true,
                syn::Pat::Ident(i) => i.by_ref.is_none() && i.subpat.is_none(),
                _ => false,
            }) =>
        {
            // (Not over a slice of something the macro does not model,
            // `Elem::Ref`, whose names Rust binds by reference and the body
            // may read as `*x` or as the reference: refused there.)
            let row: syn::Expr = match e {
                Elem::Row(row) => row,
                Elem::Item { array, at } | Elem::Part { array, at } => {
                    syn::parse_quote!(#array[#at])
                }
                _ => return None,
            };
            for (k, p) in sl.elems.iter().enumerate() {
                if let syn::Pat::Ident(i) = p {
                    let k = syn::Index::from(k);
                    stmts.push(syn::parse_quote!(let #i = (#row)[#k];));
                    views.push(View::Copied(i.ident.clone()));
                }
            }
            Some(())
        }
        // An element of a slice of something else (`&[(usize, usize)]`),
        // destructured as written: through the reference as Rust does
        // (its names bound by reference), or a copy after `copied()`.
        (
            p @ (syn::Pat::Tuple(_) | syn::Pat::TupleStruct(_) | syn::Pat::Struct(_)),
            Elem::Item { array, at } | Elem::Part { array, at },
        ) => {
            stmts.push(syn::parse_quote!(let #p = #array[#at];));
            Some(())
        }
        (
            p @ (syn::Pat::Tuple(_) | syn::Pat::TupleStruct(_) | syn::Pat::Struct(_)),
            Elem::Ref { array, at },
        ) => {
            stmts.push(syn::parse_quote!(let #p = &#array[#at];));
            Some(())
        }
        // An owned sequence's element by value, destructured as written
        // (`for (i, j) in pairs`).
        (
            p @ (syn::Pat::Tuple(_) | syn::Pat::TupleStruct(_) | syn::Pat::Struct(_)),
            Elem::Mapped {
                stmts: before,
                value,
            },
        ) => {
            stmts.extend(before);
            stmts.push(syn::parse_quote!(let #p = #value;));
            Some(())
        }
        (syn::Pat::Tuple(t), Elem::Counted(k, e)) if t.elems.len() == 2 => {
            match &t.elems[0] {
                syn::Pat::Wild(_) => {}
                syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                    let name = &i.ident;
                    stmts.push(match k {
                        syn::Expr::Reference(_) => syn::parse_quote!(let #name: &usize = #k;),
                        _ => syn::parse_quote!(let #name: usize = #k;),
                    });
                }
                _ => return None,
            }
            bind_into(&t.elems[1], *e, stmts, views)
        }
        _ => None,
    }
}

/// `stmts` with the sub-slice `name` read through `array` from `start`,
/// `len` elements long (`desugar/sub_slices.rs`): `name[j]` as
/// `array[start + j]`, `name.len()` as `len`, `name.iter()` as the chain
/// over its elements, `name` given to a call as `&array[start..start +
/// len]`. `None` where the name is used otherwise.
pub(in crate::desugar) fn through_sub_slice(
    stmts: &[syn::Stmt],
    name: &syn::Ident,
    array: &syn::Expr,
    start: &syn::Expr,
    len: &syn::Expr,
) -> Option<Vec<syn::Stmt>> {
    let mut through = ThroughArray {
        name: name.clone(),
        array: array.clone(),
        start: start.clone(),
        len: Some(len.clone()),
        slot: false,
        escaped: false,
        lent: false,
    };
    let mut out = stmts.to_vec();
    for s in &mut out {
        through.visit_stmt_mut(s);
    }
    (!through.escaped).then_some(out)
}

/// `body` with the slice `name` read in place (a closure's body inlined
/// at a call given a row or a sub-slice, `lower/closures.rs`): a row's
/// name (`len` `None`) as `(array)`, lent to calls as `&(array)`; a
/// sub-slice's as in [`through_sub_slice`]. Only the name's free
/// occurrences are read so (an inner `|name| ..` or `let name` binds a
/// name of its own), renamed first to `fresh`. `None` where the name is
/// used otherwise, or inside a macro other than `vec!`.
pub(crate) fn through_view(
    body: &syn::Expr,
    name: &syn::Ident,
    fresh: &syn::Ident,
    array: &syn::Expr,
    start: &syn::Expr,
    len: Option<&syn::Expr>,
) -> Option<syn::Expr> {
    let mut out = rename_free(body, name, fresh)?;
    let mut through = ThroughArray {
        name: fresh.clone(),
        array: array.clone(),
        start: start.clone(),
        len: len.cloned(),
        slot: false,
        escaped: false,
        lent: len.is_none(),
    };
    through.visit_expr_mut(&mut out);
    (!through.escaped).then_some(out)
}

/// Reads a window or chunk `name` through its array.
struct ThroughArray {
    name: syn::Ident,
    array: syn::Expr,
    start: syn::Expr,
    /// The view's length; `None` for a row, whose name stands for its
    /// place `array` itself.
    len: Option<syn::Expr>,
    /// An element's place bound by `iter_mut`: `*name` is `array` (the
    /// place), and a method called on `name` is called on it; any other
    /// use of the name escapes.
    slot: bool,
    escaped: bool,
    /// A row the name refers to: given bare to a call, it is lent
    /// (`&array`), as the reference the name holds in Rust.
    lent: bool,
}

impl ThroughArray {
    fn is_name(&self, e: &syn::Expr) -> bool {
        matches!(e, syn::Expr::Path(p) if p.path.is_ident(&self.name))
    }
}

impl VisitMut for ThroughArray {
    // `vec![0.0; row.len()]`: the name read inside the macro too.
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        visit_vec_macro(m, &mut |e| self.visit_expr_mut(e));
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if self.lent {
            let args = match &mut *e {
                syn::Expr::Call(c) => Some(&mut c.args),
                syn::Expr::MethodCall(m) => Some(&mut m.args),
                _ => None,
            };
            for a in args.into_iter().flatten() {
                if self.is_name(a) {
                    let array = &self.array;
                    let span = a.span();
                    *a = syn::parse_quote_spanned!(span=> &(#array));
                }
            }
        }
        if self.slot {
            let place = self.array.clone();
            if self.is_name(e) {
                self.escaped = true;
                return;
            }
            match &mut *e {
                syn::Expr::Unary(u)
                    if matches!(u.op, syn::UnOp::Deref(_)) && self.is_name(&u.expr) =>
                {
                    *e = place;
                }
                syn::Expr::MethodCall(m) if self.is_name(&m.receiver) => {
                    *m.receiver = place;
                    for a in &mut m.args {
                        self.visit_expr_mut(a);
                    }
                }
                _ => syn::visit_mut::visit_expr_mut(self, e),
            }
            return;
        }
        let Some(len) = self.len.clone() else {
            // A row: its name is its place, and so is `*name`, a copy of
            // a fixed-size row (`let q = *p;`).
            if let syn::Expr::Unary(u) = &*e {
                if matches!(u.op, syn::UnOp::Deref(_)) && self.is_name(&u.expr) {
                    *e = (*u.expr).clone();
                }
            }
            if self.is_name(e) {
                // The place keeps the name's span, so that an error
                // about it points at the name the user wrote.
                *e = syn::Expr::Paren(syn::ExprParen {
                    attrs: Vec::new(),
                    paren_token: syn::token::Paren(e.span()),
                    expr: Box::new(self.array.clone()),
                });
                return;
            }
            return syn::visit_mut::visit_expr_mut(self, e);
        };
        // `for &v in c` over a window or chunk: `for &v in c.iter()`, which
        // the next step reads through the array.
        if let syn::Expr::ForLoop(f) = &mut *e {
            if self.is_name(&f.expr) {
                let name = &self.name;
                *f.expr = syn::parse_quote_spanned!(f.expr.span()=> #name.iter());
            }
        }
        // A window or chunk given whole to a call (`dot(w, x)`, `f(&x)`):
        // the sub-slice it is, `&xs[start..start + len]`.
        let args = match &mut *e {
            syn::Expr::Call(c) => Some(&mut c.args),
            syn::Expr::MethodCall(m) if !self.is_name(&m.receiver) => Some(&mut m.args),
            _ => None,
        };
        for a in args.into_iter().flatten() {
            let bare = match &*a {
                syn::Expr::Reference(r) if r.mutability.is_none() => self.is_name(&r.expr),
                other => self.is_name(other),
            };
            if bare {
                let (array, start, n) = (&self.array, paren(&self.start), paren(&len));
                let span = a.span();
                *a = syn::parse_quote_spanned!(span=> &#array[#start..#start + #n]);
            }
        }
        let replaced: Option<syn::Expr> = match &mut *e {
            syn::Expr::Index(ix) if self.is_name(&ix.expr) => {
                self.visit_expr_mut(&mut ix.index);
                let (array, start, j) = (&self.array, paren(&self.start), paren(&ix.index));
                Some(syn::parse_quote!(#array[#start + #j]))
            }
            syn::Expr::MethodCall(m)
                if self.is_name(&m.receiver) && m.method == "len" && m.args.is_empty() =>
            {
                Some(paren(&len))
            }
            // `w.iter()` of a window or chunk: the chain of its elements,
            // read through the array (`(0..len).map(|j| array[start + j])`,
            // a range's chain).
            syn::Expr::MethodCall(m)
                if self.is_name(&m.receiver) && m.method == "iter" && m.args.is_empty() =>
            {
                let (array, start) = (&self.array, paren(&self.start));
                let j = syn::Ident::new("__autodiff_window_j", m.method.span());
                Some(syn::parse_quote!((0..#len).map(|#j| #array[#start + #j])))
            }
            _ => None,
        };
        match replaced {
            Some(r) => *e = r,
            None if self.is_name(e) => self.escaped = true,
            None => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(body: &str, len: Option<&str>) -> Option<String> {
        let body: syn::Expr = syn::parse_str(body).unwrap();
        let name: syn::Ident = syn::parse_quote!(r);
        let fresh: syn::Ident = syn::parse_quote!(__v);
        let array: syn::Expr = syn::parse_quote!(xs[k]);
        let start: syn::Expr = syn::parse_quote!(s);
        let len: Option<syn::Expr> = len.map(|l| syn::parse_str(l).unwrap());
        through_view(&body, &name, &fresh, &array, &start, len.as_ref()).map(|e| {
            quote::ToTokens::to_token_stream(&e)
                .to_string()
                .replace(' ', "")
        })
    }

    #[test]
    fn a_view_is_read_at_its_free_occurrences_only() {
        // A row: the name is its place, lent to calls.
        assert_eq!(
            through("r[0] * dot(r, w) + r.len() as f64", None).unwrap(),
            "(xs[k])[0]*dot(&(xs[k]),w)+(xs[k]).len()asf64"
        );
        // An inner closure, a `let` and an arm binding `r` keep their own.
        let t = through(
            "{ let a = r.iter().map(|r| r * 2.0).sum::<f64>(); let r = a; r + 1.0 }",
            None,
        )
        .unwrap();
        assert!(t.contains("(xs[k]).iter().map(|r|r*2.0)"), "{t}");
        assert!(t.ends_with("letr=a;r+1.0}"), "{t}");
        let t = through("match k { 0 => r[1], r => r as f64 }", None).unwrap();
        assert!(t.contains("0=>(xs[k])[1]"), "{t}");
        assert!(t.contains("r=>rasf64"), "{t}");
        // A sub-slice: read through its array from `start`.
        let t = through("r[1] + r.len() as f64", Some("n")).unwrap();
        assert_eq!(t, "xs[k][(s)+(1)]+(n)asf64");
        // A macro other than `vec!` naming it, or the name as a value:
        // not read so.
        assert!(through("{ assert!(r.len() > 1); r[0] }", None).is_none());
        assert!(through("{ let q = r; q[0] }", Some("n")).is_none());
    }
}

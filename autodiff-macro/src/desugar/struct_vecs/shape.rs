//! What one element of a split `Vec` is made of, and how its parts are
//! written: a struct's named fields (`p.x`, `P { x, y }`), a tuple's
//! positions (`p.0`, `(a, b)`) or a fixed array's (`p[0]`, `[a, b]`),
//! each part's `Vec` named after the field or the position (`ps_x`,
//! `traj_0`).

/// The kind of element; its parts are the split's `vars`, in order.
#[derive(Clone)]
pub(super) enum Shape {
    Struct(syn::Path),
    Tuple,
    Array,
}

/// Which part an expression reads: a part the split has a `Vec` for, or
/// one it cannot name (`p.z` of a struct without `z`, `p[j]` with an
/// index that is no literal, `p[1..]`).
pub(super) enum Part<'e> {
    Named(&'e syn::Expr, String),
    Unnamed(&'e syn::Expr),
}

impl Shape {
    /// `e` where it reads a part of some element: the element's
    /// expression and the part. `None` where `e` reads no part.
    pub(super) fn part_of<'e>(&self, e: &'e syn::Expr) -> Option<Part<'e>> {
        match (self, e) {
            (Shape::Struct(_), syn::Expr::Field(f)) => Some(match &f.member {
                syn::Member::Named(m) => Part::Named(&f.base, m.to_string()),
                syn::Member::Unnamed(_) => Part::Unnamed(&f.base),
            }),
            (Shape::Tuple, syn::Expr::Field(f)) => Some(match &f.member {
                syn::Member::Unnamed(i) => Part::Named(&f.base, i.index.to_string()),
                syn::Member::Named(_) => Part::Unnamed(&f.base),
            }),
            (Shape::Array, syn::Expr::Index(ix)) => Some(match literal_index(&ix.index) {
                Some(i) => Part::Named(&ix.expr, i.to_string()),
                None => Part::Unnamed(&ix.expr),
            }),
            _ => None,
        }
    }

    /// `e` where it reads an array's part at a position that is no
    /// literal (nor a range), `base[d]`: `base` and `d`. `None` for any
    /// other expression, and for other shapes.
    pub(super) fn dynamic_position<'e>(
        &self,
        e: &'e syn::Expr,
    ) -> Option<(&'e syn::Expr, &'e syn::Expr)> {
        let (Shape::Array, syn::Expr::Index(ix)) = (self, e) else {
            return None;
        };
        if matches!(&*ix.index, syn::Expr::Range(_))
            || matches!(self.part_of(e), Some(Part::Named(..)))
        {
            return None;
        }
        Some((&ix.expr, &ix.index))
    }

    /// `base.x`, `base.0` or `base[0]`: the part `field` of `base`.
    pub(super) fn part(&self, base: &syn::Expr, field: &str, span: proc_macro2::Span) -> syn::Expr {
        match self {
            Shape::Struct(_) => {
                let f = syn::Ident::new(field, span);
                syn::parse_quote_spanned!(span=> #base.#f)
            }
            Shape::Tuple => {
                let f = syn::Member::Unnamed(syn::Index {
                    index: field.parse().unwrap_or_default(),
                    span,
                });
                syn::parse_quote_spanned!(span=> #base.#f)
            }
            Shape::Array => {
                let f = syn::LitInt::new(field, span);
                syn::parse_quote_spanned!(span=> #base[#f])
            }
        }
    }

    /// The element made of `parts`, one expression per field in the
    /// split's order: `(P { x: .., y: .. })`, `(.., ..)` or `[.., ..]`.
    pub(super) fn built(
        &self,
        parts: impl Iterator<Item = (String, proc_macro2::TokenStream)>,
        span: proc_macro2::Span,
    ) -> syn::Expr {
        match self {
            Shape::Struct(path) => {
                let fields = parts.map(|(f, e)| {
                    let f = syn::Ident::new(&f, span);
                    quote::quote_spanned!(span=> #f: #e)
                });
                syn::parse_quote_spanned!(span=> (#path { #(#fields),* }))
            }
            // A tuple of one keeps its comma.
            Shape::Tuple => {
                let parts = parts.map(|(_, e)| e);
                syn::parse_quote_spanned!(span=> (#(#parts,)*))
            }
            Shape::Array => {
                let parts = parts.map(|(_, e)| e);
                syn::parse_quote_spanned!(span=> [#(#parts),*])
            }
        }
    }

    /// The parts of `e` where it writes an element out (`P { x: a, y: b
    /// }`, `(a, b)`, `[a, b]`, `[0.0; 2]`), each with its field, in the
    /// order written; `None` for any other expression.
    pub(super) fn written_out(e: &syn::Expr) -> Option<(Shape, Vec<(String, syn::Expr)>)> {
        match e {
            syn::Expr::Struct(s) if s.rest.is_none() && s.qself.is_none() => {
                let parts = s.fields.iter().map(|f| match &f.member {
                    syn::Member::Named(n) => Some((n.to_string(), f.expr.clone())),
                    syn::Member::Unnamed(_) => None,
                });
                Some((Shape::Struct(s.path.clone()), parts.collect::<Option<_>>()?))
            }
            syn::Expr::Tuple(t) if !t.elems.is_empty() => {
                let parts = t.elems.iter().enumerate();
                Some((
                    Shape::Tuple,
                    parts.map(|(i, e)| (i.to_string(), e.clone())).collect(),
                ))
            }
            syn::Expr::Array(a) if !a.elems.is_empty() => {
                let parts = a.elems.iter().enumerate();
                Some((
                    Shape::Array,
                    parts.map(|(i, e)| (i.to_string(), e.clone())).collect(),
                ))
            }
            // `[0.0; 2]`: a literal value, a literal length.
            syn::Expr::Repeat(r) if crate::desugar::local_structs::untyped_literal(&r.expr) => {
                let n = literal_index(&r.len).filter(|n| *n > 0)?;
                let parts = (0..n).map(|i| (i.to_string(), (*r.expr).clone()));
                Some((Shape::Array, parts.collect()))
            }
            syn::Expr::Paren(p) => Self::written_out(&p.expr),
            _ => None,
        }
    }

    /// The parts a pattern takes an element apart into (`(x, v)`, `[x,
    /// y]`, `P { x, y: b, .. }`), each with its field, `_` left out; `None`
    /// for a pattern of another shape, another length or with `..` in a
    /// tuple or an array.
    pub(super) fn parts_of_pattern(&self, pat: &syn::Pat) -> Option<Vec<(String, syn::Pat)>> {
        let listed = |elems: &syn::punctuated::Punctuated<syn::Pat, syn::Token![,]>| {
            if elems.iter().any(|p| matches!(p, syn::Pat::Rest(_))) {
                return None;
            }
            let parts = elems.iter().enumerate();
            let parts = parts.filter(|(_, p)| !matches!(p, syn::Pat::Wild(_)));
            Some(
                parts
                    .map(|(i, p)| (i.to_string(), p.clone()))
                    .collect::<Vec<_>>(),
            )
        };
        match (self, pat) {
            (Shape::Tuple, syn::Pat::Tuple(t)) => listed(&t.elems),
            (Shape::Array, syn::Pat::Slice(s)) => listed(&s.elems),
            (Shape::Struct(path), syn::Pat::Struct(s)) if s.path == *path && s.qself.is_none() => {
                let parts = s.fields.iter().map(|f| match &f.member {
                    syn::Member::Named(n) => Some((n.to_string(), (*f.pat).clone())),
                    syn::Member::Unnamed(_) => None,
                });
                let parts = parts.collect::<Option<Vec<_>>>()?;
                Some(
                    parts
                        .into_iter()
                        .filter(|(_, p)| !matches!(p, syn::Pat::Wild(_)))
                        .collect(),
                )
            }
            _ => None,
        }
    }

    /// Whether two shapes are the same kind (and the same struct).
    pub(super) fn same(&self, other: &Shape) -> bool {
        match (self, other) {
            (Shape::Struct(a), Shape::Struct(b)) => a == b,
            (Shape::Tuple, Shape::Tuple) | (Shape::Array, Shape::Array) => true,
            _ => false,
        }
    }

    /// The shape and the parts' type of a written `Vec<[T; n]>` or
    /// `Vec<(T, T, ..)>` (`T` the same throughout): the element's shape, its
    /// fields (`0`, `1`, ..) and `T`.
    pub(super) fn of_type(ty: &syn::Type) -> Option<(Shape, Vec<String>, syn::Type)> {
        let elem = crate::ir::vec_elem(ty)?;
        let fields = |n: usize| (0..n).map(|i| i.to_string()).collect::<Vec<_>>();
        match elem {
            syn::Type::Array(a) => {
                let n = literal_length(a).filter(|n| *n > 0)?;
                Some((Shape::Array, fields(n), (*a.elem).clone()))
            }
            syn::Type::Tuple(t) if !t.elems.is_empty() => {
                let first = t.elems.first()?;
                let same = t.elems.iter().all(|e| e == first);
                same.then(|| (Shape::Tuple, fields(t.elems.len()), first.clone()))
            }
            _ => None,
        }
    }
}

/// A literal index without a suffix or with `usize` (`0`, `2usize`).
fn literal_index(e: &syn::Expr) -> Option<usize> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) if matches!(i.suffix(), "" | "usize") => i.base10_parse().ok(),
        _ => None,
    }
}

/// An array's part at a position `at` that is no literal (`p[d]`), read
/// from `parts` (one place per position, `v_0[i]`, `v_1[i]`): each
/// position tried in turn, `if d == 0 { v_0[i] } else if ..`, and past
/// the last the array's own panic (`[0usize; 2][d]`: "index out of bounds:
/// the len is 2 but the index is 5"). `at` is evaluated once.
pub(super) fn read_at(parts: &[syn::Expr], at: &syn::Expr) -> syn::Expr {
    let span = syn::spanned::Spanned::span(at);
    let (bind, d) = once(at);
    let n = parts.len();
    let first = &parts[0];
    let mut chain: syn::Expr =
        syn::parse_quote_spanned!(span=> { let _: usize = [0usize; #n][#d]; #first });
    for (k, p) in parts.iter().enumerate().rev() {
        chain = syn::parse_quote_spanned!(span=> if #d == #k { #p } else #chain);
    }
    syn::parse_quote_spanned!(span=> ({ #bind #chain }))
}

/// `p[d] = value;` or `p[d] += value;` (`op` the assignment's operator):
/// the value first, as Rust evaluates it, then stored through the place of
/// the position `d` is, tried in turn as [`read_at`] does.
pub(super) fn write_at(
    parts: &[syn::Expr],
    at: &syn::Expr,
    op: proc_macro2::TokenStream,
    value: &syn::Expr,
) -> syn::Stmt {
    let span = syn::spanned::Spanned::span(at);
    let v = syn::Ident::new("__autodiff_value", span);
    let (bind, d) = once(at);
    let n = parts.len();
    let mut chain: syn::Expr =
        syn::parse_quote_spanned!(span=> { let _: usize = [0usize; #n][#d]; });
    for (k, p) in parts.iter().enumerate().rev() {
        chain = syn::parse_quote_spanned!(span=> if #d == #k { #p #op #v; } else #chain);
    }
    syn::parse_quote_spanned!(span=> { let #v = #value; #bind #chain })
}

/// `at` as a name read more than once: itself where it is a name, else
/// bound first.
fn once(at: &syn::Expr) -> (Option<syn::Stmt>, syn::Expr) {
    match at {
        syn::Expr::Path(p) if p.path.get_ident().is_some() => (None, at.clone()),
        _ => {
            let span = syn::spanned::Spanned::span(at);
            let d = syn::Ident::new("__autodiff_at", span);
            (
                Some(syn::parse_quote_spanned!(span=> let #d: usize = #at;)),
                syn::parse_quote!(#d),
            )
        }
    }
}

/// The length of `[T; N]` written as a literal (`None` for a `const`'s
/// name or any other expression).
pub(super) fn literal_length(a: &syn::TypeArray) -> Option<usize> {
    match &a.len {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse().ok(),
        _ => None,
    }
}

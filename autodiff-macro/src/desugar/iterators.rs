//! Iterator chains over float arrays rewritten into the index loops they
//! stand for, so that the rest of the macro sees plain loops:
//!
//! - sources: `xs`, `&xs`, `xs.iter()`, `xs.into_iter()`, with `.copied()`
//!   or `.cloned()`; `xs.windows(n)`, `xs.chunks(n)`, `xs.chunks_exact(n)`;
//!   `xs.iter_mut()` and `&mut xs` in a `for` loop, whose `*x` is the
//!   element's place, `xs[k]`;
//! - adapters: `.zip(ys)`, `.enumerate()`, `.rev()`, `.skip(n)`,
//!   `.take(n)`, `.map(|p| e)`, `.filter(|p| c)`;
//! - consumers: `for p in chain`, `.sum()`, `.product()`,
//!   `.fold(init, |acc, p| e)` and `.fold(init, f64::max)`.
//!
//! A chain becomes `for k in 0..count`, each element read at its index as
//! a function of `k` (`rev` reads `count - 1 - k`); a window or chunk `w`
//! is read through its array (`w[j]` is `xs[start + j]`, `w.len()` its
//! length), so no slice view is ever a value. Which names are float
//! arrays is the caller's to say (`is_array`).

use crate::desugar::block_expr;
use crate::desugar::internal::Internal;

mod bind;
mod free_names;
pub(in crate::desugar) use free_names::visit_vec_macro;
mod collect;
mod consume;
pub(in crate::desugar) use bind::through_sub_slice;
pub(crate) use bind::through_view;
use bind::{bind, bind_block};
pub use collect::collected;
pub(crate) use collect::float_elements;
pub use consume::{extremum, reduction};
pub(crate) use free_names::rename_free;

/// Whether an expression is an array a chain can index, and if so what
/// its elements are.
pub type IsArray<'a> = &'a dyn Fn(&syn::Expr) -> Option<Elems>;

/// What the elements of an array a chain indexes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elems {
    /// Floats of a modelled array, read by value.
    Items,
    /// Elements of a slice, `Vec` or array of something other than floats
    /// (`&[usize]`, `&[Step]`, `&[(usize, usize)]`), read by reference as
    /// Rust's `for k in ks` binds them (`let k = &ks[i];`), so that `*k`
    /// and patterns read as written; by value after `copied()` or
    /// `cloned()`, and through a pattern `&k`.
    Refs,
    /// Rows of a nested array (`&[Vec<f64>]`): a row is read in place,
    /// `row[j]` as `w[k][j]`, never bound as a value.
    Rows,
    /// Elements of a sequence of something other than floats that the
    /// function owns (`let pairs = [(0, 1), (1, 2)];`): a `for` over the
    /// sequence itself takes each by value, as Rust's does (a clone, as a
    /// move out of the sequence would not compile); through `&pairs` or
    /// `pairs.iter()`, by reference, as [`Elems::Refs`].
    Owned,
    /// Parts of a value the macro does not model whole (a differentiated
    /// struct's `net.layers`, a constant struct's `data.ys`): a name bound
    /// to one stands for its place, `net.layers[k]`, so that a struct is
    /// never moved out of its owner; a destructuring pattern reads it as
    /// written. Otherwise like items.
    Parts,
}

/// One element of a chain, as code that reads it.
#[derive(Clone)]
enum Elem {
    /// `array[at]`, a float, or a value of another type read by value.
    Item { array: syn::Expr, at: syn::Expr },
    /// `&array[at]`, an element of a slice of something other than floats
    /// (see [`Elems::Refs`]).
    Ref { array: syn::Expr, at: syn::Expr },
    /// `array[at]`, a part of a value the macro does not model whole,
    /// read in place (see [`Elems::Parts`]).
    Part { array: syn::Expr, at: syn::Expr },
    /// A window or chunk, `array[start..start + len]`.
    View {
        array: syn::Expr,
        start: syn::Expr,
        len: syn::Expr,
    },
    /// A row of a nested array, `w[k]`, read in place.
    Row(syn::Expr),
    /// `array[at]` as a place the loop may write (`iter_mut`): a name
    /// bound to it stands for the place behind `*name`.
    Slot { array: syn::Expr, at: syn::Expr },
    /// A `zip`'s pair.
    Pair(Box<Elem>, Box<Elem>),
    /// An `enumerate`'s pair: the count, and the element.
    Counted(syn::Expr, Box<Elem>),
    /// What a `map` computes: statements, then the value.
    Mapped {
        stmts: Vec<syn::Stmt>,
        value: syn::Expr,
    },
}

/// The element of a chain at an iteration.
type ElemAt<'a> = Box<dyn Fn(&syn::Expr) -> Option<Elem> + 'a>;
/// A filter's bindings and condition at an iteration.
type FilterAt<'a> = Box<dyn Fn(&syn::Expr) -> Option<(Vec<syn::Stmt>, syn::Expr)> + 'a>;
/// An index computed from the iteration.
type IndexAt = Box<dyn Fn(&syn::Expr) -> syn::Expr>;

/// A chain: how many elements, the element at iteration `k` (given as an
/// expression), and the conditions of its filters at `k`.
struct Chain<'a> {
    count: syn::Expr,
    elem: ElemAt<'a>,
    filters: Vec<FilterAt<'a>>,
}

fn paren(e: &syn::Expr) -> syn::Expr {
    syn::parse_quote!((#e))
}

/// The chain of an integer range, `(a..b)` or `(a..=b)`: its values,
/// computed from the iteration (`runtime::range`).
fn range_chain(r: &syn::ExprRange) -> Option<Chain<'static>> {
    let (start, end) = (paren(r.start.as_deref()?), paren(r.end.as_deref()?));
    let rt = quote::quote!(::autodiff::runtime::range);
    let count: syn::Expr = match r.limits {
        syn::RangeLimits::HalfOpen(_) => syn::parse_quote!(#rt::count(#start, #end)),
        syn::RangeLimits::Closed(_) => syn::parse_quote!(#rt::count_inclusive(#start, #end)),
    };
    Some(Chain {
        count,
        elem: Box::new(move |k| {
            Some(Elem::Mapped {
                stmts: Vec::new(),
                value: syn::parse_quote!(#rt::nth(#start, #k)),
            })
        }),
        filters: Vec::new(),
    })
}

/// The chain that `e` is, over arrays `is_array` accepts.
fn chain<'a>(e: &'a syn::Expr, is_array: IsArray<'a>) -> Option<Chain<'a>> {
    match e {
        syn::Expr::Paren(p) => chain(&p.expr, is_array),
        // `(0..n).map(|i| ..)`: a range as a chain's source (a `for` over
        // a range is a loop of its own, never a chain).
        syn::Expr::Range(r) => range_chain(r),
        // A sub-slice first: `&net.layers[1..]` is also a place of parts,
        // whose elements are `net.layers[1 + k]`, never `[1..][k]`.
        syn::Expr::Reference(r) if r.mutability.is_none() => {
            let base = &*r.expr;
            sub_chain(base, is_array).or_else(|| whole_chain(base, is_array))
        }
        // `for x in &mut xs`: the elements' places.
        syn::Expr::Reference(r) => slot_chain(&r.expr, is_array),
        syn::Expr::Path(_) | syn::Expr::Field(_) | syn::Expr::Index(_) if is_array(e).is_some() => {
            Some(array_chain(e, is_array(e)?))
        }
        syn::Expr::MethodCall(m) if m.turbofish.is_none() => {
            let name = m.method.to_string();
            let recv = &*m.receiver;
            match (name.as_str(), m.args.len()) {
                ("iter" | "into_iter", 0) => {
                    let base = strip_ref(recv);
                    sub_chain(base, is_array).or_else(|| whole_chain(base, is_array))
                }
                // References to elements as the elements.
                ("copied" | "cloned", 0) => {
                    let inner = chain(recv, is_array)?;
                    let elem = inner.elem;
                    Some(Chain {
                        count: inner.count,
                        elem: Box::new(move |k| {
                            Some(match elem(k)? {
                                Elem::Ref { array, at } => Elem::Item { array, at },
                                other => other,
                            })
                        }),
                        filters: inner.filters,
                    })
                }
                ("iter_mut", 0) => slot_chain(strip_ref(recv), is_array),
                ("windows" | "chunks" | "chunks_exact", 1) => {
                    let array = strip_ref(recv).clone();
                    if !matches!(
                        is_array(&array),
                        Some(Elems::Items | Elems::Parts | Elems::Refs)
                    ) {
                        return None;
                    }
                    let n = paren(&m.args[0]);
                    let (count, start, len): (syn::Expr, IndexAt, IndexAt) = match name.as_str() {
                        "windows" => {
                            let n2 = n.clone();
                            (
                                syn::parse_quote!(#array.len().saturating_sub(#n - 1)),
                                Box::new(|k| k.clone()),
                                Box::new(move |_| n2.clone()),
                            )
                        }
                        "chunks" => {
                            let (n1, n2, a2) = (n.clone(), n.clone(), array.clone());
                            (
                                syn::parse_quote!((#array.len() + #n - 1) / #n),
                                Box::new(move |k| syn::parse_quote!(#k * #n1)),
                                Box::new(
                                    move |k| syn::parse_quote!(::core::cmp::min(#n2, #a2.len() - #k * #n2)),
                                ),
                            )
                        }
                        _ => {
                            let (n1, n2) = (n.clone(), n.clone());
                            (
                                syn::parse_quote!(#array.len() / #n),
                                Box::new(move |k| syn::parse_quote!(#k * #n1)),
                                Box::new(move |_| n2.clone()),
                            )
                        }
                    };
                    Some(Chain {
                        count,
                        elem: Box::new(move |k| {
                            Some(Elem::View {
                                array: array.clone(),
                                start: start(k),
                                len: len(k),
                            })
                        }),
                        filters: Vec::new(),
                    })
                }
                ("rev", 0) => {
                    let inner = chain(recv, is_array)?;
                    if !inner.filters.is_empty() {
                        // Which elements a filter keeps depends on the
                        // order only through the count: kept simple.
                        return None;
                    }
                    let count = paren(&inner.count);
                    let elem = inner.elem;
                    Some(Chain {
                        count: count.clone(),
                        elem: Box::new(move |k| {
                            let k = paren(k);
                            elem(&syn::parse_quote!((#count - 1 - #k)))
                        }),
                        filters: Vec::new(),
                    })
                }
                ("enumerate", 0) => {
                    let inner = chain(recv, is_array)?;
                    if !inner.filters.is_empty() {
                        return None;
                    }
                    let elem = inner.elem;
                    Some(Chain {
                        count: inner.count,
                        elem: Box::new(move |k| Some(Elem::Counted(k.clone(), Box::new(elem(k)?)))),
                        filters: Vec::new(),
                    })
                }
                ("skip", 1) => {
                    let inner = chain(recv, is_array)?;
                    if !inner.filters.is_empty() {
                        return None;
                    }
                    let (s, c) = (paren(&m.args[0]), &inner.count);
                    let elem = inner.elem;
                    let s2 = s.clone();
                    Some(Chain {
                        count: syn::parse_quote!(#c.saturating_sub(#s)),
                        elem: Box::new(move |k| {
                            let k = paren(k);
                            elem(&syn::parse_quote!((#k + #s2)))
                        }),
                        filters: Vec::new(),
                    })
                }
                ("take", 1) => {
                    let inner = chain(recv, is_array)?;
                    if !inner.filters.is_empty() {
                        return None;
                    }
                    let (t, c) = (paren(&m.args[0]), &inner.count);
                    Some(Chain {
                        count: syn::parse_quote!(::core::cmp::min(#c, #t)),
                        elem: inner.elem,
                        filters: Vec::new(),
                    })
                }
                ("zip", 1) => {
                    let left = chain(recv, is_array)?;
                    let right = chain(&m.args[0], is_array)?;
                    if !left.filters.is_empty() || !right.filters.is_empty() {
                        return None;
                    }
                    let (cl, cr) = (&left.count, &right.count);
                    let (el, er) = (left.elem, right.elem);
                    Some(Chain {
                        count: syn::parse_quote!(::core::cmp::min(#cl, #cr)),
                        elem: Box::new(move |k| {
                            Some(Elem::Pair(Box::new(el(k)?), Box::new(er(k)?)))
                        }),
                        filters: Vec::new(),
                    })
                }
                // `map(f64::exp)`: the function called on the element.
                ("map", 1) if matches!(&m.args[0], syn::Expr::Path(_)) => {
                    let f = m.args[0].clone();
                    let inner = chain(recv, is_array)?;
                    let elem = inner.elem;
                    Some(Chain {
                        count: inner.count,
                        elem: Box::new(move |k| {
                            let item = value_of(elem(k)?)?;
                            Some(Elem::Mapped {
                                stmts: Vec::new(),
                                value: syn::parse_quote!(#f(#item)),
                            })
                        }),
                        filters: inner.filters,
                    })
                }
                ("map", 1) => {
                    let syn::Expr::Closure(c) = &m.args[0] else {
                        return None;
                    };
                    if c.inputs.len() != 1 {
                        return None;
                    }
                    let inner = chain(recv, is_array)?;
                    let elem = inner.elem;
                    let (pat, body) = (c.inputs[0].clone(), (*c.body).clone());
                    Some(Chain {
                        count: inner.count,
                        elem: Box::new(move |k| {
                            let (stmts, value) = bind(&pat, elem(k)?, &body)?;
                            Some(Elem::Mapped { stmts, value })
                        }),
                        filters: inner.filters,
                    })
                }
                ("filter", 1) => {
                    let syn::Expr::Closure(c) = &m.args[0] else {
                        return None;
                    };
                    if c.inputs.len() != 1 {
                        return None;
                    }
                    let inner = chain(recv, is_array)?;
                    let (pat, body) = (c.inputs[0].clone(), (*c.body).clone());
                    let elem = std::rc::Rc::new(inner.elem);
                    let e2 = elem.clone();
                    let mut filters = inner.filters;
                    // `filter` gives its closure a reference to the
                    // element: a tuple pattern without `&` binds the count
                    // of an `enumerate` by reference, as rustc's default
                    // binding mode does (`|(i, _)| mask[*i]`).
                    let by_ref = matches!(pat, syn::Pat::Tuple(_));
                    filters.push(Box::new(move |k| {
                        let elem = match e2(k)? {
                            Elem::Counted(n, e) if by_ref => {
                                Elem::Counted(syn::parse_quote!(&#n), e)
                            }
                            other => other,
                        };
                        bind(&pat, elem, &body)
                    }));
                    Some(Chain {
                        count: inner.count,
                        elem: Box::new(move |k| elem(k)),
                        filters,
                    })
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn strip_ref(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Reference(r) if r.mutability.is_none() => &r.expr,
        syn::Expr::Paren(p) => strip_ref(&p.expr),
        other => other,
    }
}

/// The chain of a sub-slice with literal bounds, `xs[1..]`, `xs[..3]`,
/// `xs[1..4]` (`&xs[1..]` in a `for`): its elements read through the
/// array from the start, the length checked as Rust checks it
/// (`runtime::range::sub_len`). Other bounds could change while the loop
/// runs, which the slice's would not: a named sub-slice takes them
/// (`desugar/sub_slices.rs`).
fn sub_chain<'a>(e: &syn::Expr, is_array: IsArray<'a>) -> Option<Chain<'a>> {
    let syn::Expr::Index(ix) = e else {
        return None;
    };
    let syn::Expr::Range(r) = &*ix.index else {
        return None;
    };
    let literal = |b: &Option<Box<syn::Expr>>| match b.as_deref() {
        None => true,
        Some(syn::Expr::Lit(l)) => matches!(l.lit, syn::Lit::Int(_)),
        _ => false,
    };
    if !literal(&r.start) || !literal(&r.end) {
        return None;
    }
    let array = (*ix.expr).clone();
    let elems = is_array(&array)?;
    if elems == Elems::Rows {
        return None;
    }
    let start: syn::Expr = match r.start.as_deref() {
        Some(s) => s.clone(),
        None => syn::parse_quote!(0),
    };
    let rt = quote::quote!(::autodiff::runtime::range);
    let count: syn::Expr = match (r.end.as_deref(), &r.limits) {
        (Some(end), syn::RangeLimits::HalfOpen(_)) => {
            syn::parse_quote!(#rt::sub_len(#start, #end, #array.len()))
        }
        (Some(end), syn::RangeLimits::Closed(_)) => {
            syn::parse_quote!(#rt::sub_len(#start, #end + 1, #array.len()))
        }
        (None, _) => syn::parse_quote!(#rt::sub_len_from(#start, #array.len())),
    };
    let whole = array_chain(&array, elems);
    Some(Chain {
        count,
        elem: Box::new(move |k| (whole.elem)(&syn::parse_quote!(#start + #k))),
        filters: Vec::new(),
    })
}

/// The chain over all of `array`'s elements, where `is_array` takes it
/// for an array; never a sub-slice's place (`xs[a..b]`), which only
/// [`sub_chain`] reads, by index from its start.
fn whole_chain(array: &syn::Expr, is_array: IsArray) -> Option<Chain<'static>> {
    if matches!(array, syn::Expr::Index(ix) if matches!(&*ix.index, syn::Expr::Range(_))) {
        return None;
    }
    // Borrowed (`&pairs`, `pairs.iter()`): an owned sequence's elements
    // by reference.
    is_array(array).map(|elems| match elems {
        Elems::Owned => array_chain(array, Elems::Refs),
        other => array_chain(array, other),
    })
}

fn array_chain(array: &syn::Expr, elems: Elems) -> Chain<'static> {
    let a = array.clone();
    Chain {
        count: syn::parse_quote!(#array.len()),
        elem: Box::new(move |k| {
            Some(match elems {
                Elems::Rows => Elem::Row(syn::parse_quote!(#a[#k])),
                Elems::Items => Elem::Item {
                    array: a.clone(),
                    at: k.clone(),
                },
                Elems::Parts => Elem::Part {
                    array: a.clone(),
                    at: k.clone(),
                },
                Elems::Refs => Elem::Ref {
                    array: a.clone(),
                    at: k.clone(),
                },
                Elems::Owned => Elem::Mapped {
                    stmts: Vec::new(),
                    value: syn::parse_quote!(::core::clone::Clone::clone(&#a[#k])),
                },
            })
        }),
        filters: Vec::new(),
    }
}

/// The places of a flat float array's elements, for a loop that writes
/// them through `iter_mut`.
fn slot_chain<'a>(array: &syn::Expr, is_array: IsArray<'a>) -> Option<Chain<'a>> {
    if is_array(array) != Some(Elems::Items) {
        return None;
    }
    let a = array.clone();
    Some(Chain {
        count: syn::parse_quote!(#array.len()),
        elem: Box::new(move |k| {
            Some(Elem::Slot {
                array: a.clone(),
                at: k.clone(),
            })
        }),
        filters: Vec::new(),
    })
}

/// Whether a `for` loop's iterator writes its elements (`iter_mut`,
/// `&mut xs`), anywhere in the chain.
pub fn writes_elements(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Reference(r) => r.mutability.is_some(),
        syn::Expr::Paren(p) => writes_elements(&p.expr),
        syn::Expr::MethodCall(m) => {
            m.method == "iter_mut"
                || writes_elements(&m.receiver)
                || m.args.iter().any(writes_elements)
        }
        _ => false,
    }
}

/// The element as one expression (a `map`'s value, an item's read).
fn value_of(elem: Elem) -> Option<syn::Expr> {
    match elem {
        Elem::Item { array, at } | Elem::Part { array, at } => Some(syn::parse_quote!(#array[#at])),
        Elem::Ref { array, at } => Some(syn::parse_quote!(&#array[#at])),
        Elem::Mapped { stmts, value } if stmts.is_empty() => Some(value),
        Elem::Mapped { stmts, value } => Some(block_expr(stmts, Some(value))),
        _ => None,
    }
}

/// `for pat in chain { body }` as the index loop it stands for.
pub fn slice_loop(
    l: &syn::ExprForLoop,
    is_array: IsArray,
    names: &Internal,
) -> Option<syn::ExprForLoop> {
    if matches!(&*l.expr, syn::Expr::Range(_)) {
        return None;
    }
    let chain = chain(&l.expr, is_array)?;
    // The loop's own index, where an `enumerate` names it, is the count;
    // otherwise a name of the macro's.
    let (index, _) = names.fresh_loop();
    let k = syn::Ident::new(&index, l.for_token.span);
    let k_expr: syn::Expr = syn::parse_quote!(#k);
    let (mut stmts, body) = bind_block(&l.pat, (chain.elem)(&k_expr)?, &l.body)?;
    let count = &chain.count;
    if chain.filters.is_empty() {
        // The body's statements follow the bindings in one block, so that
        // its `break`s and `continue`s stay at the end of its branches.
        stmts.extend(body.stmts);
        return Some(syn::parse_quote! {
            for #k in 0..#count {
                #(#stmts)*
            }
        });
    }
    // Each filter first, its bindings in a block of their own, an element
    // it drops skipped; then the loop's pattern: a filter's closure
    // neither sees the loop's names nor hides them from the body (`for (i,
    // x) in xs.iter().enumerate().filter(|(i, _)| mask[*i])`), and the
    // body's statements stay at the loop's top level, where its own
    // `continue`s are at the end of their branches.
    let mut kept = Vec::new();
    for f in &chain.filters {
        let (bound, cond) = f(&k_expr)?;
        let (_, keep) = names.fresh_loop();
        let keep = syn::Ident::new(&format!("{keep}_kept"), l.for_token.span);
        kept.push(syn::parse_quote!(let #keep: bool = { #(#bound)* #cond };));
        kept.push(syn::parse_quote!(if !#keep { continue; }));
    }
    let kept: Vec<syn::Stmt> = kept;
    stmts.extend(body.stmts);
    Some(syn::parse_quote! {
        for #k in 0..#count {
            #(#kept)*
            #(#stmts)*
        }
    })
}

/// `body`, the body of the loop over the index `k`, run only where every
/// filter keeps the element: as for a filtered `for` loop (`slice_loop`),
/// each filter's bindings in a block of their own that gives its test,
/// an element it drops skipped, so that nothing the filter binds is in
/// the body's scope.
fn filtered(filters: &[FilterAt<'_>], k: &syn::Expr, body: syn::Expr) -> Option<Vec<syn::Stmt>> {
    let mut stmts: Vec<syn::Stmt> = Vec::new();
    for (j, f) in filters.iter().enumerate() {
        let (bound, cond) = f(k)?;
        let keep = match k {
            syn::Expr::Path(p) => {
                let k = p.path.get_ident()?;
                syn::Ident::new(&format!("{k}_kept{j}"), k.span())
            }
            _ => return None,
        };
        stmts.push(syn::parse_quote!(let #keep: bool = { #(#bound)* #cond };));
        stmts.push(syn::parse_quote!(if !#keep { continue; }));
    }
    stmts.push(syn::Stmt::Expr(body, None));
    Some(stmts)
}

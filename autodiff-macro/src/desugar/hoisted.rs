//! A scratch array declared before a loop and overwritten whole at the
//! start of each iteration, the buffer a careful programmer hoists out of
//! the loop so as not to allocate in it:
//!
//! ```text
//! let mut xc = vec![0.0; d];
//! for ix in 0..n {
//!     for ik in 0..k {
//!         for id in 0..d {
//!             xc[id] = x[ix * d + id] - means[ik * d + id];
//!         }
//!         .. reads of xc ..
//!     }
//! }
//! ```
//!
//! To the gradient it is an array of the iteration: its declaration moves
//! into the loop, as deep as each iteration overwrites it first, so the
//! reverse sweep records it once per iteration or recomputes it, as it
//! does a `vec![0.0; d]` declared in the body, instead of each of its
//! reads. Only in the body the macro lowers: the function is kept as
//! written (and the gradient's forward sweep makes such arrays in a buffer
//! each iteration hands to the next, `runtime::stack::refilled`).
//!
//! The move changes nothing the program computes, since no value the
//! array held before an iteration is read in it: it applies where
//!
//! - the array is `let mut a = vec![c; len];` or `let mut a = [c; len];`
//!   with `c` a literal or a path (`0.0`, `T::zero()`, `f64::NAN`) and
//!   `len` a literal or a name the rest of the block neither binds again
//!   nor assigns;
//! - every later statement of its block that names it is a loop that does
//!   not name it in its header, and in each such loop's body the first
//!   statement naming it either overwrites it whole (`for i in 0..len {
//!   a[i] = e; .. }`, the store the first statement of that loop's body to
//!   name it, `e` not reading it, no `break`, `continue` or `return` in
//!   that loop), or is such a loop itself, as are the body's other
//!   statements naming it (the buffer of an inner loop, hoisted two loops
//!   up);
//! - the block's tail does not name it.
//!
//! The same holds of the double buffer a time loop refills by `push`
//! (trial 10 r714):
//!
//! ```text
//! let mut next: Vec<f64> = Vec::with_capacity(n);
//! for _ in 0..steps {
//!     next.clear();
//!     for i in 0..n { next.push(..cur[i]..); }
//!     std::mem::swap(&mut cur, &mut next);
//! }
//! ```
//!
//! An empty `Vec` (`Vec::new()`, `Vec::with_capacity(c)`, `vec![]`) whose
//! every iteration starts with `a.clear();` (the first statement naming
//! it) holds nothing an iteration reads from the one before: its
//! declaration takes the `clear`'s place, and the `Vec` is one filled by
//! `push` in the iteration, as the macro models anywhere. (`clear` of a
//! `Vec` the macro follows otherwise is refused: its adjoint has one
//! length.)
//!
//! Anything else is left as written (and differentiated as written: the
//! reads recorded one by one).

use quote::ToTokens;
use syn::visit_mut::VisitMut;

use crate::desugar::internal::{binds, mentions};

/// `item` with each hoisted scratch array declared in the loops that
/// overwrite it.
pub fn into_loops(mut item: syn::ItemFn) -> syn::ItemFn {
    IntoLoops.visit_block_mut(&mut item.block);
    item
}

struct IntoLoops;

impl VisitMut for IntoLoops {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mut i = 0;
        while i < b.stmts.len() {
            if let Some(scratch) = Scratch::of(&b.stmts[i]) {
                let rest = &b.stmts[i + 1..];
                if scratch.movable(rest) {
                    let decl = b.stmts.remove(i);
                    for s in &mut b.stmts[i..] {
                        if let Some(body) = loop_body(s) {
                            let Some(first) =
                                body.stmts.iter().position(|s| mentions(s, &scratch.name))
                            else {
                                continue;
                            };
                            // A buffer emptied first: declared where the
                            // `clear` was.
                            match scratch.cleared(&body.stmts[first]) {
                                true => body.stmts[first] = decl.clone(),
                                false => body.stmts.insert(0, decl.clone()),
                            }
                        }
                    }
                    continue;
                }
            }
            i += 1;
        }
        // The loops' bodies after the moves: a declaration moved into one
        // moves on into its inner loops where they overwrite it first.
        syn::visit_mut::visit_block_mut(self, b);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// A hoisted scratch array's declaration: its name and the tokens of its
/// length (its capacity, of an empty `Vec`, if a literal or a name).
struct Scratch {
    name: syn::Ident,
    len: Option<syn::Expr>,
    /// An empty `Vec`, which an iteration empties (`clear`) and fills by
    /// `push`; otherwise `len` elements an iteration overwrites.
    empty: bool,
}

impl Scratch {
    /// `let mut a = vec![c; len];` or `let mut a = [c; len];` (typed or
    /// not), with `c` a literal or a path and `len` a literal or a name;
    /// or an empty `Vec`, `Vec::new()`, `Vec::with_capacity(c)`, `vec![]`.
    fn of(stmt: &syn::Stmt) -> Option<Scratch> {
        let syn::Stmt::Local(l) = stmt else {
            return None;
        };
        let pat = match &l.pat {
            syn::Pat::Type(t) => &*t.pat,
            p => p,
        };
        let syn::Pat::Ident(p) = pat else {
            return None;
        };
        if p.mutability.is_none() || p.by_ref.is_some() || p.subpat.is_some() {
            return None;
        }
        let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
        let simple = |e: &syn::Expr| {
            matches!(e, syn::Expr::Lit(_))
                || matches!(e, syn::Expr::Path(p) if p.path.get_ident().is_some())
        };
        use crate::lower::ArrayParts;
        // As the lowering reads an array's initialiser, the filled ones as
        // written (`vec![c; len]`, `[c; len]`, not `[c; len].to_vec()`).
        let (fill, len) = match (&*init.expr, crate::lower::array_init_parts(&init.expr)?) {
            (_, ArrayParts::Empty(capacity)) => {
                return Some(Scratch {
                    name: p.ident.clone(),
                    len: capacity.filter(|c| simple(c)).cloned(),
                    empty: true,
                })
            }
            (syn::Expr::Macro(_), ArrayParts::List(items, true)) if items.is_empty() => {
                return Some(Scratch {
                    name: p.ident.clone(),
                    len: None,
                    empty: true,
                })
            }
            (syn::Expr::Macro(_), ArrayParts::Filled(filled)) => *filled,
            (syn::Expr::Repeat(_), ArrayParts::Repeat(fill, len)) => (fill.clone(), len.clone()),
            _ => return None,
        };
        let plain = |e: &syn::Expr| matches!(e, syn::Expr::Lit(_) | syn::Expr::Path(_));
        let fill_ok = plain(&fill)
            || matches!(&fill, syn::Expr::Call(c) if c.args.is_empty() && matches!(&*c.func, syn::Expr::Path(_)))
            || matches!(&fill, syn::Expr::Unary(u) if plain(&u.expr));
        (fill_ok && simple(&len)).then(|| Scratch {
            name: p.ident.clone(),
            len: Some(len),
            empty: false,
        })
    }

    /// `a.clear();` of an empty `Vec`'s name.
    fn cleared(&self, stmt: &syn::Stmt) -> bool {
        self.empty
            && matches!(stmt, syn::Stmt::Expr(syn::Expr::MethodCall(m), Some(_))
                if m.method == "clear" && m.args.is_empty()
                    && matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident(&self.name)))
    }

    /// Whether the declaration can move into the loops of `rest` (the
    /// statements after it in its block).
    fn movable(&self, rest: &[syn::Stmt]) -> bool {
        if let Some(syn::Expr::Path(p)) = &self.len {
            let len = p.path.get_ident().expect("a name, by `Scratch::of`");
            if rest.iter().any(|s| binds(s, len) || assigns(s, len)) {
                return false;
            }
        }
        let mut any = false;
        for s in rest {
            if !mentions(s, &self.name) {
                continue;
            }
            if binds(s, &self.name) {
                return false;
            }
            match s {
                syn::Stmt::Expr(e, semi) => {
                    // The block's tail reads what the array holds after.
                    if semi.is_none()
                        && !matches!(
                            e,
                            syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_)
                        )
                    {
                        return false;
                    }
                    if !self.fresh_in_each_iteration(e) {
                        return false;
                    }
                    any = true;
                }
                _ => return false,
            }
        }
        any
    }

    /// Whether `e` is a loop that does not name the array in its header
    /// and whose every iteration overwrites it before reading it.
    fn fresh_in_each_iteration(&self, e: &syn::Expr) -> bool {
        let (header, body) = match e {
            syn::Expr::ForLoop(l) => (Some(l.expr.to_token_stream()), &l.body),
            syn::Expr::While(l) => (Some(l.cond.to_token_stream()), &l.body),
            syn::Expr::Loop(l) => (None, &l.body),
            _ => return false,
        };
        if header.is_some_and(|h| mentions(&h, &self.name)) {
            return false;
        }
        let naming: Vec<&syn::Stmt> = body
            .stmts
            .iter()
            .filter(|s| mentions(s, &self.name))
            .collect();
        let Some(first) = naming.first() else {
            return false;
        };
        if self.cleared(first) || self.overwrites(first) {
            return true;
        }
        naming.iter().all(|s| match s {
            syn::Stmt::Expr(e, _) => !binds(s, &self.name) && self.fresh_in_each_iteration(e),
            _ => false,
        })
    }

    /// `for i in 0..len { .. a[i] = e; .. }`: a loop over the whole length
    /// whose body stores every element, unconditionally, before it names
    /// the array otherwise.
    fn overwrites(&self, stmt: &syn::Stmt) -> bool {
        let (syn::Stmt::Expr(syn::Expr::ForLoop(l), _), Some(len), false) =
            (stmt, &self.len, self.empty)
        else {
            return false;
        };
        let syn::Pat::Ident(index) = &*l.pat else {
            return false;
        };
        let syn::Expr::Range(r) = &*l.expr else {
            return false;
        };
        let from_zero = matches!(r.start.as_deref(), Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })) if i.base10_digits() == "0");
        let to_len = r.end.as_deref().is_some_and(|end| {
            end.to_token_stream().to_string() == len.to_token_stream().to_string()
                || is_len_of(end, &self.name)
        });
        if !from_zero || !to_len || !matches!(r.limits, syn::RangeLimits::HalfOpen(_)) {
            return false;
        }
        // No jump may skip a store.
        let body = l.body.to_token_stream();
        if ["break", "continue", "return"]
            .iter()
            .any(|jump| mentions(&body, &ident(jump)))
        {
            return false;
        }
        let Some(at) = l.body.stmts.iter().position(|s| mentions(s, &self.name)) else {
            return false;
        };
        // The store's index is the loop's, not a name bound again before it.
        if l.body.stmts[..at].iter().any(|s| binds(s, &index.ident)) {
            return false;
        }
        let store = &l.body.stmts[at];
        let syn::Stmt::Expr(syn::Expr::Assign(a), _) = store else {
            return false;
        };
        let syn::Expr::Index(at) = &*a.left else {
            return false;
        };
        let is = |e: &syn::Expr, name: &syn::Ident| matches!(e, syn::Expr::Path(p) if p.path.is_ident(name));
        is(&at.expr, &self.name) && is(&at.index, &index.ident) && !mentions(&a.right, &self.name)
    }
}

/// The loop body of a statement that is a loop.
fn loop_body(s: &mut syn::Stmt) -> Option<&mut syn::Block> {
    match s {
        syn::Stmt::Expr(syn::Expr::ForLoop(l), _) => Some(&mut l.body),
        syn::Stmt::Expr(syn::Expr::While(l), _) => Some(&mut l.body),
        syn::Stmt::Expr(syn::Expr::Loop(l), _) => Some(&mut l.body),
        _ => None,
    }
}

/// `a.len()`.
fn is_len_of(e: &syn::Expr, name: &syn::Ident) -> bool {
    matches!(e, syn::Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() && matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident(name)))
}

fn ident(s: &str) -> syn::Ident {
    syn::Ident::new(s, proc_macro2::Span::call_site())
}

/// Whether `stmt` assigns `name` (`name = ..`, `name += ..`) or lends
/// it by `&mut` anywhere.
fn assigns(stmt: &syn::Stmt, name: &syn::Ident) -> bool {
    crate::desugar::internal::written_places(std::slice::from_ref(stmt), true)
        .iter()
        .any(|p| matches!(p, syn::Expr::Path(p) if p.path.is_ident(name)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// Each function's body, unchanged by the pass.
    fn left_as_written(cases: impl IntoIterator<Item = proc_macro2::TokenStream>) {
        for case in cases {
            let before = syn::parse2::<syn::ItemFn>(case.clone())
                .unwrap()
                .block
                .to_token_stream()
                .to_string();
            assert_eq!(run(case), before);
        }
    }

    fn run(f: proc_macro2::TokenStream) -> String {
        into_loops(syn::parse2(f).unwrap())
            .block
            .to_token_stream()
            .to_string()
    }

    #[test]
    fn a_buffer_hoisted_two_loops_up_moves_into_the_loop_that_overwrites_it() {
        let out = run(quote!(
            fn f(x: &[f64], d: usize, k: usize) -> f64 {
                let mut xc = vec![0.0; d];
                let mut s = 0.0;
                for ix in 0..x.len() / d {
                    for ik in 0..k {
                        for id in 0..d {
                            xc[id] = x[ix * d + id] - ik as f64;
                        }
                        for id in 0..d {
                            s += xc[id] * xc[id];
                        }
                    }
                }
                s
            }
        ));
        let want = quote!({
            let mut s = 0.0;
            for ix in 0..x.len() / d {
                for ik in 0..k {
                    let mut xc = vec![0.0; d];
                    for id in 0..d {
                        xc[id] = x[ix * d + id] - ik as f64;
                    }
                    for id in 0..d {
                        s += xc[id] * xc[id];
                    }
                }
            }
            s
        });
        assert_eq!(out, want.to_string());
    }

    #[test]
    fn a_buffer_reused_by_two_sibling_loops_moves_into_each() {
        let out = run(quote!(
            fn f(x: &[f64]) -> f64 {
                let mut b = [0.0; 3];
                let mut s = 0.0;
                for i in 0..2 {
                    for j in 0..3 {
                        b[j] = x[i + j];
                    }
                    s += b[0] * b[2];
                }
                for i in 0..4 {
                    for j in 0..b.len() {
                        b[j] = x[i] * 2.0;
                    }
                    s += b[1];
                }
                s
            }
        ));
        assert_eq!(out.matches("let mut b = [0.0 ; 3] ;").count(), 2, "{out}");
        assert!(out.starts_with("{ let mut s"), "{out}");
    }

    #[test]
    fn a_buffer_emptied_first_in_each_iteration_is_declared_where_it_is_emptied() {
        let out = run(quote!(
            fn f(u0: &[f64], n: usize) -> f64 {
                let mut cur = u0.to_vec();
                let mut next: Vec<f64> = Vec::with_capacity(n);
                for _ in 0..4 {
                    let c = cur[0];
                    next.clear();
                    for i in 0..n {
                        next.push(cur[i] * c);
                    }
                    std::mem::swap(&mut cur, &mut next);
                }
                cur[0]
            }
        ));
        let want = quote!({
            let mut cur = u0.to_vec();
            for _ in 0..4 {
                let c = cur[0];
                let mut next: Vec<f64> = Vec::with_capacity(n);
                for i in 0..n {
                    next.push(cur[i] * c);
                }
                std::mem::swap(&mut cur, &mut next);
            }
            cur[0]
        });
        assert_eq!(out, want.to_string());
    }

    #[test]
    fn buffers_emptied_after_a_read_or_filled_before_stay_where_they_are() {
        let cases = [
            // Read before it is emptied: the previous step's values.
            quote!(
                fn f(x: &[f64]) -> f64 {
                    let mut b = Vec::new();
                    let mut s = 0.0;
                    for i in 0..3 {
                        s += b.len() as f64;
                        b.clear();
                        b.push(x[i] * s);
                    }
                    s
                }
            ),
            // Not empty when declared: `clear` is not where it is made.
            quote!(
                fn f(x: &[f64]) -> f64 {
                    let mut b = vec![0.0; 2];
                    let mut s = 0.0;
                    for i in 0..3 {
                        b.clear();
                        b.push(x[i]);
                        s += b[0];
                    }
                    s
                }
            ),
            // Read after the loop.
            quote!(
                fn f(x: &[f64]) -> f64 {
                    let mut b = Vec::new();
                    for i in 0..3 {
                        b.clear();
                        b.push(x[i]);
                    }
                    b[0]
                }
            ),
        ];
        left_as_written(cases);
    }

    #[test]
    fn arrays_whose_values_cross_iterations_stay_where_they_are() {
        let cases = [
            // Read before it is overwritten: carries the last iteration.
            quote!(
                fn f(x: &[f64]) -> f64 {
                    let mut b = vec![0.0; 2];
                    let mut s = 0.0;
                    for i in 0..3 {
                        s += b[0];
                        for j in 0..2 {
                            b[j] = x[i] * s;
                        }
                    }
                    s
                }
            ),
            // Overwritten only in part.
            quote!(
                fn f(x: &[f64]) -> f64 {
                    let mut b = vec![0.0; 3];
                    let mut s = 0.0;
                    for i in 0..3 {
                        for j in 0..2 {
                            b[j] = x[i];
                        }
                        s += b[2];
                    }
                    s
                }
            ),
            // A store a `continue` may skip.
            quote!(
                fn f(x: &[f64]) -> f64 {
                    let mut b = vec![0.0; 2];
                    let mut s = 0.0;
                    for i in 0..3 {
                        for j in 0..2 {
                            if x[j] > 0.0 {
                                continue;
                            }
                            b[j] = x[i];
                        }
                        s += b[1];
                    }
                    s
                }
            ),
            // Read after the loop.
            quote!(
                fn f(x: &[f64]) -> f64 {
                    let mut b = vec![0.0; 2];
                    for i in 0..3 {
                        for j in 0..2 {
                            b[j] = x[i];
                        }
                    }
                    b[0]
                }
            ),
            // Its length changes.
            quote!(
                fn f(x: &[f64]) -> f64 {
                    let mut n = 2;
                    let mut b = vec![0.0; n];
                    let mut s = 0.0;
                    for i in 0..3 {
                        for j in 0..n {
                            b[j] = x[i];
                        }
                        n += 1;
                        s += b[0];
                    }
                    s
                }
            ),
            // The store reads the array.
            quote!(
                fn f(x: &[f64]) -> f64 {
                    let mut b = vec![0.0; 2];
                    let mut s = 0.0;
                    for i in 0..3 {
                        for j in 0..2 {
                            b[j] = b[j] + x[i];
                        }
                        s += b[1];
                    }
                    s
                }
            ),
        ];
        left_as_written(cases);
    }
}

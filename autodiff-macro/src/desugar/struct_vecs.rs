//! A local `Vec` of structs filled by `push` as one `Vec` per field
//! (struct of arrays), in the copy of the body the macro lowers:
//!
//! ```text
//! let mut ps = Vec::new();                let mut ps_x = Vec::new(); let mut ps_y = Vec::new();
//! ps.push(P { x: a, y: b });        =>    ps_x.push(a); ps_y.push(b);
//! for p in &ps { t += p.x * p.y; }        for k in 0..ps_x.len() { t += ps_x[k] * ps_y[k]; }
//! ps[i].y += 1.0; ps.len()                ps_y[i] += 1.0; ps_x.len()
//! ```
//!
//! The macro then follows each field's `Vec` as the float array it is. An
//! element used whole (`norm(&ps[i])`, `ps[i].norm()`) is built again from
//! its fields there (`P { x: ps_x[i], y: ps_y[i] }`), which the lowering
//! reads as a struct built for the call. Only where every use of the `Vec`
//! is one of these, and every push gives a struct written out with the same
//! fields, is it split; otherwise it is left as written (and refused where
//! a derivative would pass through it).

use std::collections::HashSet;

use syn::visit_mut::VisitMut;

use crate::desugar::internal::{binds, collect_idents, mentions, FreshNames};

mod copies;
mod element;
mod element_refs;
mod loops;
mod partners;
mod positions;
mod pushes;
mod shape;
#[cfg(test)]
mod tests;
mod variables;
mod zips;
use element::Element;
pub use pushes::structs_listed;
use pushes::{empty_vec_let, listed_as_pushes, pushed_shape};
use shape::{Part, Shape};

/// Whether `let pat = init;` declares a `Vec` of rows: its written type
/// says so (`v: Vec<[f64; 2]>`), or it lists rows (`vec![[a, b], ..]`,
/// `vec![[0.0; 2]; n]`), for a refusal that speaks of rows where the
/// split left it whole.
pub fn rows_let(pat: &syn::Pat, init: &syn::Expr) -> bool {
    let s: syn::Stmt = syn::parse_quote!(let #pat = #init;);
    if pushes::written_type(&s).is_some_and(|t| Shape::of_type(t).is_some()) {
        return true;
    }
    let (Some(pushes), Some((p, _, _))) = (listed_as_pushes(&s), pushes::named_let(&s)) else {
        return false;
    };
    pushed_shape(&pushes[1..], &p.ident, None, &Default::default())
        .is_some_and(|p| !matches!(p.shape, Shape::Struct(_)))
}

/// `item` with its local `Vec`s of structs split into one `Vec` per field.
pub fn split(mut item: syn::ItemFn) -> syn::ItemFn {
    let mut s = Split {
        names: FreshNames::of(&item),
        rows: pushes::arrays_by_name(&item),
    };
    s.visit_block_mut(&mut item.block);
    item
}

struct Split {
    names: FreshNames,
    rows: std::collections::HashMap<String, usize>,
}

impl VisitMut for Split {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, b);
        // `let a = P { .. }; ps.push(a);`: `ps.push(P { x: a.x, .. })`.
        variables::written_out(&mut b.stmts);
        // `let last = &ps[k];` read by its fields: `ps[last_at].x`.
        element_refs::as_indices(&mut b.stmts, &mut self.names);
        let mut i = 0;
        while i < b.stmts.len() {
            // A list of structs (`vec![P { .. }, ..]`) is tried as the
            // pushes it stands for, and kept as written where the split
            // fails, so that a refusal speaks of what the user wrote.
            let from_here = match listed_as_pushes(&b.stmts[i]) {
                Some(pushes) => Some(pushes),
                None => empty_vec_let(&b.stmts[i]).map(|_| vec![b.stmts[i].clone()]),
            };
            let Some(mut from_here) = from_here else {
                i += 1;
                continue;
            };
            from_here.extend(b.stmts[i + 1..].iter().cloned());
            match self.split_first(from_here) {
                // The statements rewritten are looked at again: another
                // `Vec` of structs may be declared among them.
                Some((stmts, lets)) => {
                    b.stmts.truncate(i);
                    b.stmts.extend(stmts);
                    i += lets;
                }
                None => i += 1,
            }
        }
    }
}

impl Split {
    /// `stmts`, starting with `let mut v = Vec::new();`, with `v` split
    /// into one `Vec` per field, and how many `let`s of those start it;
    /// `None` where `v` is no `Vec` of structs this file splits.
    fn split_first(&mut self, stmts: Vec<syn::Stmt>) -> Option<(Vec<syn::Stmt>, usize)> {
        let (name, init) = empty_vec_let(stmts.first()?)?;
        let rest = &stmts[1..];
        let end = rest
            .iter()
            .position(|s| binds(s, &name))
            .unwrap_or(rest.len());
        if rest[end..].iter().any(|s| mentions(s, &name)) {
            return None;
        }
        let pushes::Pushed {
            shape,
            fields,
            untyped_literal,
            part_type,
        } = pushed_shape(
            &rest[..end],
            &name,
            pushes::written_type(&stmts[0]),
            &self.rows,
        )?;
        let vars: Vec<(String, syn::Ident)> = fields
            .iter()
            .map(|f| {
                let v = self.names.fresh(&format!("{name}_{f}"));
                (f.clone(), syn::Ident::new(&v, name.span()))
            })
            .collect();
        let mut r = Rewrite {
            name: name.to_string(),
            shape: &shape,
            vars: &vars,
            names: &mut self.names,
            rows: &self.rows,
            partner: None,
            whole: false,
        };
        let rewritten = r.stmts(rest[..end].to_vec());
        if r.whole {
            return None;
        }
        // `Vec<[f64; 2]>` written: each part's `Vec` a `Vec<f64>`.
        let mut out: Vec<syn::Stmt> = vars
            .iter()
            .map(|(_, v)| match &part_type {
                Some(t) => syn::parse_quote!(
                    #[allow(unused_mut)] let mut #v: ::std::vec::Vec<#t> = #init;
                ),
                None => syn::parse_quote!(#[allow(unused_mut)] let mut #v = #init;),
            })
            .collect();
        let lets = out.len();
        // A field only ever given a literal without a suffix (`Body { x:
        // 2.0, m }`) has the type Rust takes from the struct; its `Vec`
        // would have none (E0689 on `bodies_x[0].sqrt()`): a closure,
        // never called, ties each field's `Vec` to its field's type.
        let path = match &shape {
            Shape::Struct(path) => Some(path),
            Shape::Tuple | Shape::Array => None,
        };
        // The parts of an array have one type, which a part given only
        // literals without a suffix takes from the others (`[x, 0.0]`): a
        // closure, never called, builds a row of them.
        if let (Shape::Array, [_, _, ..]) = (&shape, &vars[..]) {
            let k = syn::Ident::new(&self.names.fresh(&format!("{name}_row")), name.span());
            let parts = vars.iter().map(|(_, v)| v);
            out.push(syn::parse_quote!(let _ = |#k: usize| [#(#parts[#k]),*];));
        }
        let generic = path.is_some_and(|path| {
            path.segments
                .iter()
                .any(|s| !matches!(s.arguments, syn::PathArguments::None))
        });
        if let (true, false, Some(path)) = (untyped_literal, generic, path) {
            let whole = syn::Ident::new(&self.names.fresh(&format!("{name}_typed")), name.span());
            let fields = vars.iter().map(|(f, _)| syn::Ident::new(f, name.span()));
            let fields_again = fields.clone();
            let elems = vars.iter().map(|(_, v)| v);
            out.push(syn::parse_quote!(
                let _ = |#whole: &_| {
                    let #path { #(#fields,)* .. } = #whole;
                    let _ = [(#(#fields_again,)*), (#(&#elems[0],)*)];
                };
            ));
        }
        out.extend(rewritten);
        out.extend(rest[end..].iter().cloned());
        Some((out, lets))
    }
}

/// Whether the macro call `m` names `name` (its tokens, which the macro
/// may read in any way).
fn names(m: &syn::Macro, name: &str) -> bool {
    let mut found = HashSet::new();
    collect_idents(m.tokens.clone(), &mut found);
    found.contains(name)
}

fn is_name(e: &syn::Expr, name: &syn::Ident) -> bool {
    matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(name))
}

/// A split `Vec`'s parts: each field (or position) with its `Vec`'s name.
type Parts = Vec<(String, syn::Ident)>;

/// The uses of the `Vec` rewritten onto its fields' `Vec`s; `whole` where
/// one is none of those this file handles.
struct Rewrite<'a> {
    name: String,
    shape: &'a Shape,
    vars: &'a [(String, syn::Ident)],
    names: &'a mut FreshNames,
    /// The arrays whose length gives a pushed row's (`pushes::arrays_by_name`).
    rows: &'a std::collections::HashMap<String, usize>,
    /// The `Vec` this one was split as the partner of, with its parts'
    /// `Vec`s, which statements handing one to the other whole name
    /// (`partners.rs`).
    partner: Option<(&'a str, &'a [(String, syn::Ident)])>,
    whole: bool,
}

impl Rewrite<'_> {
    fn is_name(&self, e: &syn::Expr) -> bool {
        matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(&self.name))
    }

    fn var(&self, field: &str) -> Option<&syn::Ident> {
        self.vars.iter().find(|(f, _)| f == field).map(|(_, v)| v)
    }

    fn first(&self) -> &syn::Ident {
        &self.vars[0].1
    }

    fn stmts(&mut self, stmts: Vec<syn::Stmt>) -> Vec<syn::Stmt> {
        let mut out = Vec::with_capacity(stmts.len());
        let mut stmts = std::collections::VecDeque::from(stmts);
        while let Some(mut s) = stmts.pop_front() {
            // `pos = next;` (`swap`, `copy_from_slice`, ..) with the
            // partner this `Vec` was split for: part by part.
            if let Some(parts) = self.partner_exchange(&s) {
                out.extend(parts);
                continue;
            }
            // `let [mut] w = v.clone();`: a `Vec` of structs of its own,
            // split as `v` is, each field's `Vec` a copy of `v`'s, and its
            // uses in the rest of the block rewritten first.
            if let Some(copy) = self.copied_whole(&s) {
                let rest: Vec<syn::Stmt> = stmts.drain(..).collect();
                match self.split_copy(&copy, rest) {
                    Some((lets, rest)) => {
                        out.extend(lets);
                        stmts.extend(rest);
                    }
                    None => {
                        self.whole = true;
                        return out;
                    }
                }
                continue;
            }
            // `let mut next = vec![[0.0; 2]; n];` that a later `pos =
            // next;` hands to this `Vec`: split as its partner.
            let rest = stmts.make_contiguous();
            if let Some((lets, rest)) = self.split_partner(&s, rest) {
                out.extend(lets);
                stmts = rest.into();
                continue;
            }
            // `v.push(Path { x: a, y: b });`: a push per field, in the
            // order the fields are written.
            if let syn::Stmt::Expr(syn::Expr::MethodCall(m), Some(_)) = &s {
                if self.is_name(&m.receiver) && m.method == "push" {
                    if let Some((_, parts)) = m.args.first().and_then(Shape::written_out) {
                        let reads_itself = parts.iter().any(|(_, e)| {
                            let s = syn::Stmt::Expr(e.clone(), None);
                            mentions(&s, &syn::Ident::new(&self.name, m.method.span()))
                        });
                        if reads_itself {
                            self.whole = true;
                        }
                        for (f, mut e) in parts {
                            let span = syn::spanned::Spanned::span(&e);
                            self.visit_expr_mut(&mut e);
                            if let Some(v) = self.var(&f) {
                                out.push(syn::parse_quote_spanned!(span=> #v.push(#e);));
                            }
                        }
                        continue;
                    }
                    // `v.push(b0.clone());`, a struct made otherwise: bound,
                    // then a push per field.
                    if let Some(arg) = m.args.first() {
                        if mentions(arg, &syn::Ident::new(&self.name, m.method.span())) {
                            self.whole = true;
                        }
                        let mut e = arg.clone();
                        self.visit_expr_mut(&mut e);
                        let span = syn::spanned::Spanned::span(arg);
                        let t = syn::Ident::new(
                            &self.names.fresh(&format!("{}_pushed", self.name)),
                            span,
                        );
                        out.push(syn::parse_quote_spanned!(span=> let #t = #e;));
                        let t: syn::Expr = syn::parse_quote!(#t);
                        for (f, v) in self.vars {
                            let part = self.shape.part(&t, f, span);
                            out.push(syn::parse_quote_spanned!(span=> #v.push(#part);));
                        }
                        continue;
                    }
                }
            }
            // `v[i].step(dt);`, a struct writer's call on an element: on
            // the element built again, each field stored back (`let mut
            // t = P { x: v_x[k], .. }; t.step(dt); v_x[k] = t.x; ..`).
            if let syn::Stmt::Expr(syn::Expr::MethodCall(m), Some(_)) = &s {
                if let syn::Expr::Index(ix) = &*m.receiver {
                    if self.is_name(&ix.expr) && m.method != "clone" {
                        let span = syn::spanned::Spanned::span(&m.receiver);
                        let (t, k) = self.element_out(&ix.index, span, &mut out);
                        let mut call = m.clone();
                        for a in call.args.iter_mut() {
                            self.visit_expr_mut(a);
                        }
                        *call.receiver = syn::parse_quote!(#t);
                        out.push(syn::Stmt::Expr(
                            syn::Expr::MethodCall(call),
                            Some(Default::default()),
                        ));
                        self.element_back(&t, &k, span, &mut out);
                        continue;
                    }
                }
            }
            // `kick(&mut v[i], dt);`, a writer given an element by `&mut`:
            // the same, on the element built again and lent.
            if let syn::Stmt::Expr(syn::Expr::Call(c), Some(_)) = &s {
                let lent: Vec<usize> = c
                    .args
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| self.element_lent(a).is_some())
                    .map(|(j, _)| j)
                    .collect();
                if let [j] = lent[..] {
                    let ix = self.element_lent(&c.args[j]).expect("lent above").clone();
                    let span = syn::spanned::Spanned::span(&c.args[j]);
                    let (t, k) = self.element_out(&ix.index, span, &mut out);
                    let mut call = c.clone();
                    for (i, a) in call.args.iter_mut().enumerate() {
                        if i == j {
                            *a = syn::parse_quote_spanned!(span=> &mut #t);
                        } else {
                            self.visit_expr_mut(a);
                        }
                    }
                    self.visit_expr_mut(&mut call.func);
                    out.push(syn::Stmt::Expr(
                        syn::Expr::Call(call),
                        Some(Default::default()),
                    ));
                    self.element_back(&t, &k, span, &mut out);
                    continue;
                }
            }
            // `v[i][d] = value;`, `v[i][d] += value;` at a position `d`
            // that is no literal: stored through each position's `Vec` in
            // turn (`shape::write_at`).
            if let Some(stmt) = self.written_at(&s) {
                out.push(stmt);
                continue;
            }
            // `v[i] = value;`: the new element computed whole, then each
            // field stored (`let t = value; v_x[k] = t.x; ..`).
            if let syn::Stmt::Expr(syn::Expr::Assign(a), Some(_)) = &s {
                if let syn::Expr::Index(ix) = &*a.left {
                    if self.is_name(&ix.expr) {
                        let span = syn::spanned::Spanned::span(&a.left);
                        let t =
                            syn::Ident::new(&self.names.fresh(&format!("{}_new", self.name)), span);
                        let k =
                            syn::Ident::new(&self.names.fresh(&format!("{}_at", self.name)), span);
                        let (mut value, mut index) = ((*a.right).clone(), (*ix.index).clone());
                        // `v[i] = v[i].drifted(dt);`: the element is
                        // replaced whole, so a method called on it there
                        // changes nothing that is kept.
                        if let syn::Expr::MethodCall(m) = &mut value {
                            let same = matches!(&*m.receiver, syn::Expr::Index(r)
                                if self.is_name(&r.expr)
                                    && quote::ToTokens::to_token_stream(&r.index).to_string()
                                        == quote::ToTokens::to_token_stream(&ix.index).to_string());
                            if same {
                                let mut at = (*ix.index).clone();
                                self.visit_expr_mut(&mut at);
                                *m.receiver = self.built(&at);
                            }
                        }
                        self.visit_expr_mut(&mut value);
                        self.visit_expr_mut(&mut index);
                        out.push(syn::parse_quote_spanned!(span=> let #t = #value;));
                        out.push(syn::parse_quote_spanned!(span=> let #k = #index;));
                        let t: syn::Expr = syn::parse_quote!(#t);
                        for (f, v) in self.vars {
                            let part = self.shape.part(&t, f, span);
                            out.push(syn::parse_quote_spanned!(span=> #v[#k] = #part;));
                        }
                        continue;
                    }
                }
            }
            let was_loop = matches!(&s, syn::Stmt::Expr(syn::Expr::ForLoop(_), _));
            self.visit_stmt_mut(&mut s);
            // A loop rewritten with its bounds bound first (`{ let lo =
            // ..; for k in lo..hi { .. } }`, `loops.rs`): its statements
            // here, under their fresh names, so that the loop stays a
            // statement of this block (a `return` in it, `_jvp`'s blocks).
            if was_loop {
                if let syn::Stmt::Expr(syn::Expr::Block(b), _) = &s {
                    if b.label.is_none() && b.attrs.is_empty() {
                        out.extend(b.block.stmts.iter().cloned());
                        continue;
                    }
                }
            }
            out.push(s);
        }
        out
    }

    /// `&mut v[i]`: the index expression.
    fn element_lent<'e>(&self, e: &'e syn::Expr) -> Option<&'e syn::ExprIndex> {
        match e {
            syn::Expr::Reference(r) if r.mutability.is_some() => match &*r.expr {
                syn::Expr::Index(ix) if self.is_name(&ix.expr) => Some(ix),
                _ => None,
            },
            _ => None,
        }
    }

    /// `let k = index; let mut t = P { x: v_x[k], .. };` pushed to `out`:
    /// the element at `index` built again, for a call that may change it
    /// ([`Self::element_back`] stores it back), and the names `t` and `k`.
    fn element_out(
        &mut self,
        index: &syn::Expr,
        span: proc_macro2::Span,
        out: &mut Vec<syn::Stmt>,
    ) -> (syn::Ident, syn::Ident) {
        let t = syn::Ident::new(&self.names.fresh(&format!("{}_element", self.name)), span);
        let k = syn::Ident::new(&self.names.fresh(&format!("{}_at", self.name)), span);
        let mut index = index.clone();
        self.visit_expr_mut(&mut index);
        out.push(syn::parse_quote_spanned!(span=> let #k = #index;));
        let built = self.built(&syn::parse_quote!(#k));
        out.push(syn::parse_quote_spanned!(span=> let mut #t = #built;));
        (t, k)
    }

    /// `v_x[k] = t.x; ..`: each field of the element [`Self::element_out`]
    /// built stored back.
    fn element_back(
        &self,
        t: &syn::Ident,
        k: &syn::Ident,
        span: proc_macro2::Span,
        out: &mut Vec<syn::Stmt>,
    ) {
        let t: syn::Expr = syn::parse_quote!(#t);
        for (f, v) in self.vars {
            let part = self.shape.part(&t, f, span);
            out.push(syn::parse_quote_spanned!(span=> #v[#k] = #part;));
        }
    }

    /// `Path { x: v_x[i], y: v_y[i] }` (`[v_0[i], v_1[i]]`): the element
    /// at `i` built again.
    fn built(&self, index: &syn::Expr) -> syn::Expr {
        let span = syn::spanned::Spanned::span(index);
        let parts = self
            .vars
            .iter()
            .map(|(f, v)| (f.clone(), quote::quote_spanned!(span=> #v[#index])));
        self.shape.built(parts, span)
    }
}

impl VisitMut for Rewrite<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        b.stmts = self.stmts(std::mem::take(&mut b.stmts));
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        use syn::Expr as E;
        if let E::MethodCall(_) = e {
            if let Some(chain) = self.element_chain(e) {
                *e = chain;
                return;
            }
        }
        // `v[i].x` (`v[i].0`, `v[i][0]`): the part's `Vec` at `i`.
        let part = match self.shape.part_of(e) {
            Some(Part::Named(E::Index(ix), f)) if self.is_name(&ix.expr) => {
                Some(self.var(&f).cloned().map(|v| (v, (*ix.index).clone())))
            }
            Some(Part::Unnamed(E::Index(ix))) if self.is_name(&ix.expr) => Some(None),
            _ => None,
        };
        // `v[i][d]` read, `d` no literal (`shape::read_at`).
        if let Some((places, at)) = self.positions(e) {
            *e = shape::read_at(&places, &at);
            return;
        }
        match part {
            Some(Some((v, mut index))) => {
                self.visit_expr_mut(&mut index);
                *e = syn::parse_quote!(#v[#index]);
                return;
            }
            // A part no `Vec` holds, or an array's at an index that is no
            // literal (which may be written through).
            Some(None) => {
                self.whole = true;
                return;
            }
            None => {}
        }
        match e {
            // `v[i].iter_mut()`, `v[i].as_mut_slice()`: a method of a
            // row's that may change it, in an expression, would change the
            // row built again instead (as a statement, `stmts` stores it
            // back): the `Vec` as written.
            E::MethodCall(m)
                if !matches!(self.shape, Shape::Struct(_))
                    && !crate::rules::leaves_receiver(&m.method.to_string())
                    && matches!(&*m.receiver, E::Index(ix) if self.is_name(&ix.expr)) =>
            {
                self.whole = true;
            }
            // `v[i].m(..)`: a method that may change the element (`&mut
            // self`) is left to the `Vec` as written.
            E::MethodCall(m)
                if m.method != "clone"
                    && matches!(&*m.receiver, E::Index(ix) if self.is_name(&ix.expr)) =>
            {
                let E::Index(ix) = &*m.receiver else {
                    unreachable!("matched above")
                };
                let mut index = (*ix.index).clone();
                self.visit_expr_mut(&mut index);
                *m.receiver = self.built(&index);
                for a in m.args.iter_mut() {
                    self.visit_expr_mut(a);
                }
            }
            // `v[i].clone()`: the element built again is a copy already,
            // and a struct literal, whose type the rest of the macro reads
            // (`let b = bs[1].clone(); b.energy()`).
            E::MethodCall(m)
                if m.method == "clone"
                    && m.args.is_empty()
                    && matches!(&*m.receiver, E::Index(ix) if self.is_name(&ix.expr)) =>
            {
                let E::Index(ix) = &*m.receiver else {
                    unreachable!("matched above")
                };
                let mut index = (*ix.index).clone();
                self.visit_expr_mut(&mut index);
                *e = self.built(&index);
            }
            // `v.len()`.
            E::MethodCall(m) if self.is_name(&m.receiver) && m.method == "len" => {
                let first = self.first().clone();
                *m.receiver = syn::parse_quote!(#first);
            }
            // `v[i]` whole, as an argument, a receiver or a copy.
            E::Index(ix) if self.is_name(&ix.expr) => {
                let mut index = (*ix.index).clone();
                self.visit_expr_mut(&mut index);
                *e = self.built(&index);
            }
            // `&mut v[i]` anywhere but where `stmts` writes the element
            // back (a call's argument): the `Vec` as written, never a
            // copy built again that the borrow would change instead.
            // A position that is no literal written anywhere but a
            // statement of its own (`written_at`): no place to write to.
            E::Assign(a) if self.dynamic_part(&a.left) => self.whole = true,
            E::Binary(b)
                if crate::desugar::is_compound_assign(&b.op) && self.dynamic_part(&b.left) =>
            {
                self.whole = true
            }
            E::Reference(r) if r.mutability.is_some() => {
                if self.dynamic_part(&r.expr)
                    || matches!(&*r.expr, E::Index(ix) if self.is_name(&ix.expr))
                {
                    self.whole = true;
                    return;
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
            E::Reference(r) if r.mutability.is_none() => {
                if let E::Index(ix) = &*r.expr {
                    if self.is_name(&ix.expr) {
                        let mut index = (*ix.index).clone();
                        self.visit_expr_mut(&mut index);
                        *r.expr = self.built(&index);
                        return;
                    }
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
            E::ForLoop(f) => match self
                .element_loop(f)
                .or_else(|| self.element_zip_shifted(f))
                .or_else(|| self.element_zip(f))
                .or_else(|| self.element_adapted(f))
                .or_else(|| self.element_windows(f))
            {
                Some(rewritten) => *e = rewritten,
                None => syn::visit_mut::visit_expr_mut(self, e),
            },
            _ if self.is_name(e) => self.whole = true,
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        // `vec![0.0; ps.len()]`: its expressions rewritten as any others.
        if m.path.is_ident("vec") {
            crate::desugar::iterators::visit_vec_macro(m, &mut |e| self.visit_expr_mut(e));
            return;
        }
        self.whole |= names(m, &self.name);
    }
}

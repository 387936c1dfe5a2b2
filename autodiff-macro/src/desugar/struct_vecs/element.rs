//! A loop's element lent or shared (`for p in &mut ps`), read and
//! changed through the fields' `Vec`s at the loop's index (`super`).

use syn::visit_mut::VisitMut;

use super::names;
use super::shape::{Part, Shape};

/// A loop's element `p` read through the fields' `Vec`s at the loop's
/// index: `p.x` is `v_x[k]`, `p` whole is the struct built again; `whole`
/// where it is bound again or used otherwise, or used whole at all where
/// it is lent by `&mut` (`mutable`: a method may change it).
pub(super) struct Element<'a> {
    pub(super) elem: String,
    pub(super) index: &'a syn::Ident,
    pub(super) vars: &'a [(String, syn::Ident)],
    pub(super) shape: &'a Shape,
    pub(super) mutable: bool,
    pub(super) whole: bool,
}

impl VisitMut for Element<'_> {
    /// `p.step(dt);` or `kick(p, f);` on an element lent by `&mut` (a
    /// struct writer's call): on the element built again under its name,
    /// each field stored back.
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mut out = Vec::with_capacity(b.stmts.len());
        for mut s in std::mem::take(&mut b.stmts) {
            let name = self.elem.clone();
            let is_elem = |e: &syn::Expr| {
                matches!(e, syn::Expr::Path(p)
                if p.qself.is_none() && p.path.is_ident(&name))
            };
            // `p[d] = value;`, `p[d] += value;`, `d` no literal, through
            // an element lent by `&mut` (`shape::write_at`).
            if let syn::Stmt::Expr(e, Some(_)) = &s {
                let (left, op, right) = match e {
                    syn::Expr::Assign(a) => (Some(&*a.left), quote::quote!(=), Some(&*a.right)),
                    syn::Expr::Binary(b) if crate::desugar::is_compound_assign(&b.op) => {
                        let op = &b.op;
                        (Some(&*b.left), quote::quote!(#op), Some(&*b.right))
                    }
                    _ => (None, quote::quote!(), None),
                };
                if let (true, Some(left), Some(right)) = (self.mutable, left, right) {
                    let mut value = right.clone();
                    if let Some((places, at)) = self.positions(left) {
                        self.visit_expr_mut(&mut value);
                        out.push(super::shape::write_at(&places, &at, op, &value));
                        continue;
                    }
                }
            }
            // `p.step(dt);`, or `kick(p, f);` lending it on.
            let call = match &s {
                syn::Stmt::Expr(syn::Expr::MethodCall(m), Some(_))
                    if self.mutable && is_elem(&m.receiver) && m.method != "clone" =>
                {
                    let mut m = m.clone();
                    for a in m.args.iter_mut() {
                        self.visit_expr_mut(a);
                    }
                    Some((
                        syn::spanned::Spanned::span(&m.receiver),
                        syn::Expr::MethodCall(m),
                    ))
                }
                syn::Stmt::Expr(syn::Expr::Call(c), Some(_))
                    if self.mutable && c.args.iter().filter(|a| is_elem(a)).count() == 1 =>
                {
                    let mut c = c.clone();
                    let mut span = None;
                    for a in c.args.iter_mut() {
                        if is_elem(a) {
                            span = Some(syn::spanned::Spanned::span(&*a));
                            *a = syn::parse_quote!(&mut #a);
                        } else {
                            self.visit_expr_mut(a);
                        }
                    }
                    span.map(|span| (span, syn::Expr::Call(c)))
                }
                _ => None,
            };
            if let Some((span, call)) = call {
                let elem = syn::Ident::new(&self.elem, span);
                let built = self.built();
                out.push(syn::parse_quote_spanned!(span=> let mut #elem = #built;));
                out.push(syn::Stmt::Expr(call, Some(Default::default())));
                let k = self.index;
                let elem: syn::Expr = syn::parse_quote!(#elem);
                for (f, v) in self.vars {
                    let part = self.shape.part(&elem, f, span);
                    out.push(syn::parse_quote_spanned!(span=> #v[#k] = #part;));
                }
                continue;
            }
            self.visit_stmt_mut(&mut s);
            out.push(s);
        }
        b.stmts = out;
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        let is_elem = |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(&self.elem));
        // `p.x` (`p.0`, `p[0]`): the part's `Vec` at the index.
        match self.shape.part_of(e) {
            Some(Part::Named(base, m)) if is_elem(base) => {
                match self.vars.iter().find(|(n, _)| m == *n) {
                    Some((_, v)) => {
                        let k = self.index;
                        *e = syn::parse_quote!(#v[#k]);
                    }
                    None => self.whole = true,
                }
                return;
            }
            Some(Part::Unnamed(base)) if is_elem(base) => {
                // `p[d]` read, `d` no literal (`shape::read_at`).
                match self.positions(e) {
                    Some((places, at)) => *e = super::shape::read_at(&places, &at),
                    None => self.whole = true,
                }
                return;
            }
            _ => {}
        }
        // Written or lent by `&mut` anywhere but a statement of its own:
        // no place to write to.
        let dynamic = |e: &syn::Expr| matches!(self.shape.part_of(e), Some(Part::Unnamed(base)) if is_elem(base));
        let written = match e {
            syn::Expr::Assign(a) => dynamic(&a.left),
            syn::Expr::Binary(b) => crate::desugar::is_compound_assign(&b.op) && dynamic(&b.left),
            syn::Expr::Reference(r) => r.mutability.is_some() && dynamic(&r.expr),
            _ => false,
        };
        if written {
            self.whole = true;
            return;
        }
        match e {
            _ if self.mutable && is_elem(e) => self.whole = true,
            syn::Expr::MethodCall(m) if self.mutable && is_elem(&m.receiver) => self.whole = true,
            syn::Expr::Unary(u) if self.mutable && is_elem(&u.expr) => self.whole = true,
            // `p.norm()`, `*p`, and `p` whole (a reference, as Rust binds
            // it): the element built again.
            syn::Expr::MethodCall(m) if is_elem(&m.receiver) => {
                *m.receiver = self.built();
                for a in m.args.iter_mut() {
                    self.visit_expr_mut(a);
                }
            }
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && is_elem(&u.expr) => {
                *e = self.built();
            }
            _ if is_elem(e) => {
                let built = self.built();
                *e = syn::parse_quote!(&#built);
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        if p.ident == self.elem {
            self.whole = true;
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        self.whole |= names(m, &self.elem);
    }
}

impl Element<'_> {
    /// `p[d]`, `d` no literal (nor a range), `p` an array: the places of
    /// each position at the loop's index, and `d` rewritten.
    fn positions(&mut self, e: &syn::Expr) -> Option<(Vec<syn::Expr>, syn::Expr)> {
        let (base, at) = self.shape.dynamic_position(e)?;
        if !matches!(base, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(&self.elem)) {
            return None;
        }
        let mut at = at.clone();
        self.visit_expr_mut(&mut at);
        let k = self.index;
        let places = self
            .vars
            .iter()
            .map(|(_, v)| syn::parse_quote!(#v[#k]))
            .collect();
        Some((places, at))
    }

    fn built(&self) -> syn::Expr {
        let k = self.index;
        let parts = self
            .vars
            .iter()
            .map(|(f, v)| (f.clone(), quote::quote!(#v[#k])));
        self.shape.built(parts, k.span())
    }
}

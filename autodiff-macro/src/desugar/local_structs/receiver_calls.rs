//! A method called on a `let mut` local struct, which may change it
//! (`&mut self`): called on a struct built for it, its fields written
//! back after (`Rebuild::receiver`), or, where the call is a statement's
//! one use of the struct and nothing could skip it, hoisted before the
//! statement with what unwraps its value (`Rebuild::hoisted`: `let e =
//! b.checked_energy()?;`).

use super::uses::{count_mentions, plain_call};
use super::Rebuild;
use syn::visit_mut::VisitMut;

impl Rebuild<'_> {
    /// `p.m(args)` on a `mut` struct, whose method may change it: called
    /// on a struct built for it, whose fields are then written back, `{
    /// let mut t = Path { x: p.x, .. }; let r = t.m(args); p.x = t.x; ..;
    /// r }`. The lowering builds `t` whole (`Op::Construct`) and follows
    /// the method through its `#[grad]` slots, which a method taking `&mut
    /// self` does not have; code that carries no derivative runs it as
    /// written, changes and all.
    pub(super) fn receiver(&mut self, call: &syn::ExprMethodCall) -> syn::Expr {
        let span = syn::spanned::Spanned::span(&call.receiver);
        let r = syn::Ident::new(&self.names.fresh(&format!("{}_ret", self.name)), span);
        let (built, call, back) = self.called(call);
        syn::parse_quote_spanned!(span=> {
            #built
            let #r = #call;
            #(#back)*
            #r
        })
    }

    /// The pieces of [`Self::receiver`]: the struct built for the call,
    /// the call on it, the fields written back.
    fn called(&mut self, call: &syn::ExprMethodCall) -> (syn::Stmt, syn::Expr, Vec<syn::Stmt>) {
        let span = syn::spanned::Spanned::span(&call.receiver);
        let (built, t) = self.built_for_call(span);
        let mut call = call.clone();
        *call.receiver = syn::parse_quote_spanned!(span=> #t);
        for a in call.args.iter_mut() {
            if !self.argument(a) {
                self.visit_expr_mut(a);
            }
        }
        let back = self.written_back(&t, span);
        (built, syn::Expr::MethodCall(call), back)
    }

    /// `let mut t = Path { x: p.x, .. };`, the struct built for a call
    /// that may change it (`Op::Construct` in the lowering), and `t`.
    fn built_for_call(&mut self, span: proc_macro2::Span) -> (syn::Stmt, syn::Ident) {
        let t = self.names.fresh(&format!("{}_recv", self.name));
        self.receivers.insert(t.clone());
        let t = syn::Ident::new(&t, span);
        let name: syn::Expr = syn::parse_quote_spanned!(span=> #t);
        let built = match self.built(&name) {
            syn::Expr::Paren(p) => *p.expr,
            other => other,
        };
        let built = syn::parse_quote_spanned!(span=> #[allow(unused_mut)] let mut #t = #built;);
        (built, t)
    }

    /// `p.x = t.x; ..`: each field of `t` written back.
    fn written_back(&self, t: &syn::Ident, span: proc_macro2::Span) -> Vec<syn::Stmt> {
        let name = syn::Ident::new(&self.name, span);
        self.fields
            .iter()
            .map(|f| {
                let f = syn::Ident::new(f, span);
                syn::parse_quote_spanned!(span=> #name.#f = #t.#f;)
            })
            .collect()
    }

    /// A statement whose one use of a `mut` struct is a method called on
    /// it, where nothing else runs before the call that the statement
    /// could skip (not under `&&`, a branch, a loop or a closure): the call
    /// before it, its result named (`let t = ..; let r = t.m(); p.x =
    /// t.x; ..; total += r;`), so that the statement is one the lowering
    /// reads as it would without the struct.
    pub(super) fn hoisted(&mut self, s: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
        if !self.mutable {
            return None;
        }
        // `p.m(args);`: the call alone, its arguments reading `p` as it is
        // before the call (`q.drift(q.x)`: Rust lends the receiver after
        // it evaluates them).
        if let syn::Stmt::Expr(syn::Expr::MethodCall(m), Some(_)) = s {
            let receiver_only = {
                let mut call = m.clone();
                call.args.clear();
                count_mentions(
                    &syn::Stmt::Expr(syn::Expr::MethodCall(call), None),
                    &self.name,
                ) == 1
            };
            if self.is_name(&m.receiver) && m.method != "clone" && receiver_only {
                let (built, call, back) = self.called(m);
                let mut out = vec![built, syn::Stmt::Expr(call, Some(Default::default()))];
                out.extend(back);
                return Some(out);
            }
        }
        if count_mentions(s, &self.name) != 1 {
            return None;
        }
        let mut s = s.clone();
        // `f(.., &mut p, ..);`, a struct writer's call (`desugar/
        // struct_writers.rs`): on the struct built for it, its fields
        // written back.
        if let syn::Stmt::Expr(syn::Expr::Call(c), Some(_)) = &s {
            let lent = c.args.iter().position(|a| {
                matches!(a, syn::Expr::Reference(r) if r.mutability.is_some() && self.is_name(&r.expr))
            });
            if let Some(k) = lent {
                let span = syn::spanned::Spanned::span(&c.args[k]);
                let (built, t) = self.built_for_call(span);
                let mut c = c.clone();
                c.args[k] = syn::parse_quote_spanned!(span=> &mut #t);
                let mut out = vec![built, syn::parse_quote_spanned!(span=> #c;)];
                out.extend(self.written_back(&t, span));
                return Some(out);
            }
        }
        // `let r = p.m(args);`: its result bound to `r` itself, which
        // the lowering reads in parts where the method returns a struct.
        if let syn::Stmt::Local(l) = &s {
            if let (syn::Pat::Ident(pi), Some(init)) = (&l.pat, &l.init) {
                if let syn::Expr::MethodCall(m) = &*init.expr {
                    let plain =
                        pi.by_ref.is_none() && pi.subpat.is_none() && init.diverge.is_none();
                    if plain
                        && pi.ident != self.name
                        && self.is_name(&m.receiver)
                        && m.method != "clone"
                    {
                        let (built, call, back) = self.called(m);
                        let mut l = l.clone();
                        if let Some(init) = &mut l.init {
                            *init.expr = call;
                        }
                        let mut out = vec![built, syn::Stmt::Local(l)];
                        out.extend(back);
                        return Some(out);
                    }
                }
            }
        }
        // A block's last expression too (`if c { q.m0(x) } else { .. }`).
        let place = match &mut s {
            syn::Stmt::Local(l) => l.init.as_mut().map(|i| &mut *i.expr),
            syn::Stmt::Expr(e, _) => Some(e),
            _ => None,
        }?;
        let found = plain_call(place, &self.name)?;
        // `p.m(x)?`, `p.m(x).unwrap()`: the call hoisted with them.
        let (m, wrapped) = match found.clone() {
            syn::Expr::Try(t) => match &*t.expr {
                syn::Expr::MethodCall(m) => (m.clone(), Some(syn::Expr::Try(t))),
                _ => return None,
            },
            syn::Expr::MethodCall(u) if !self.is_name(&u.receiver) => match &*u.receiver {
                syn::Expr::MethodCall(m) => (m.clone(), Some(syn::Expr::MethodCall(u))),
                _ => return None,
            },
            syn::Expr::MethodCall(m) => (m, None),
            _ => return None,
        };
        let span = syn::spanned::Spanned::span(&m.receiver);
        let r = syn::Ident::new(&self.names.fresh(&format!("{}_ret", self.name)), span);
        *found = syn::parse_quote_spanned!(span=> #r);
        let (built, call, back) = self.called(&m);
        let call = match wrapped {
            Some(syn::Expr::Try(mut t)) => {
                *t.expr = call;
                syn::Expr::Try(t)
            }
            Some(syn::Expr::MethodCall(mut u)) => {
                *u.receiver = call;
                syn::Expr::MethodCall(u)
            }
            _ => call,
        };
        let mut out = vec![built, syn::parse_quote_spanned!(span=> let #r = #call;)];
        out.extend(back);
        out.push(s);
        Some(out)
    }
}

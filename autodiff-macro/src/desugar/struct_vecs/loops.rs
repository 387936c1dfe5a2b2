//! The loops and chains over a `Vec` of structs that `super` splits:
//! each the same walk over the indices of its fields' `Vec`s, the element
//! read through them at the index (`Element`).

use syn::visit_mut::VisitMut;

use super::{Element, Rewrite};
use crate::desugar::internal::FreshNames;

impl Rewrite<'_> {
    /// `for p in &v { .. }`, `v.iter()`, `v.iter().enumerate()` with `(i,
    /// p)`, and the same lending the elements by `&mut` (`&mut v`,
    /// `v.iter_mut()`), whose body may then only read and write their
    /// fields (`p.x += dt * p.v`): the loop over indices, and the name of
    /// the element.
    pub(super) fn element_loop(&mut self, f: &syn::ExprForLoop) -> Option<syn::Expr> {
        let mut source = &*f.expr;
        let mut mutable = false;
        if let syn::Expr::Reference(r) = source {
            mutable = r.mutability.is_some();
            source = &r.expr;
        }
        let iter = |m: &syn::ExprMethodCall, mutable: &mut bool| {
            *mutable |= m.method == "iter_mut";
            (m.method == "iter" || m.method == "iter_mut") && self.is_name(&m.receiver)
        };
        let (index, elem): (Option<&syn::Pat>, &syn::Pat) = match source {
            _ if self.is_name(source) => (None, &f.pat),
            syn::Expr::MethodCall(m) if iter(m, &mut mutable) => (None, &f.pat),
            syn::Expr::MethodCall(e) if e.method == "enumerate" => {
                let syn::Expr::MethodCall(m) = &*e.receiver else {
                    return None;
                };
                if !iter(m, &mut mutable) {
                    return None;
                }
                let syn::Pat::Tuple(t) = &*f.pat else {
                    return None;
                };
                if t.elems.len() != 2 {
                    return None;
                }
                (Some(&t.elems[0]), &t.elems[1])
            }
            _ => return None,
        };
        let k = match index {
            Some(syn::Pat::Ident(i)) if i.by_ref.is_none() && i.subpat.is_none() => {
                Some(i.ident.clone())
            }
            Some(_) => return None,
            None => None,
        };
        let (k, body) = self.element_body(elem, k, mutable, &f.body)?;
        let first = self.first();
        let label = &f.label;
        Some(syn::parse_quote!(#label for #k in 0..#first.len() #body))
    }

    /// `for p in v.iter().skip(1)`: the elements through `skip` and `take`
    /// (any number, in any order), then maybe `rev()`, `skip`/`take` again,
    /// `step_by(k)`, and `enumerate()` (`for (i, p) in ..`, not after
    /// `rev` or `step_by`): a loop over the range of indices they leave,
    /// `for k in (1..v_x.len()).min(..)`, the element read through the
    /// fields' `Vec`s at `k` as in [`Self::element_loop`]. `None` for any
    /// other loop.
    pub(super) fn element_adapted(&mut self, f: &syn::ExprForLoop) -> Option<syn::Expr> {
        let mut calls: Vec<&syn::ExprMethodCall> = Vec::new();
        let mut at = &*f.expr;
        let mutable = loop {
            let syn::Expr::MethodCall(m) = at else {
                return None;
            };
            if m.args.is_empty()
                && (m.method == "iter" || m.method == "iter_mut")
                && self.is_name(&m.receiver)
            {
                break m.method == "iter_mut";
            }
            calls.push(m);
            at = &m.receiver;
        };
        calls.reverse();
        let enumerated = calls.last().is_some_and(|m| m.method == "enumerate");
        if enumerated {
            calls.pop();
        }
        if calls.is_empty() {
            return None;
        }
        // The indices left: `lo..hi`, maybe reversed, maybe stepped.
        let first = self.first().clone();
        let mut lo: syn::Expr = syn::parse_quote!(0);
        let mut hi: syn::Expr = syn::parse_quote!(#first.len());
        let (mut rev, mut step) = (false, None);
        for m in &calls {
            let arg = |m: &syn::ExprMethodCall| match m.args.len() {
                1 => Some(m.args[0].clone()),
                _ => None,
            };
            match (m.method.to_string().as_str(), rev, &step) {
                ("skip", false, None) => {
                    let n = arg(m)?;
                    lo = syn::parse_quote!(::core::cmp::min(#lo + (#n), #hi));
                }
                ("take", false, None) => {
                    let n = arg(m)?;
                    hi = syn::parse_quote!(::core::cmp::min(#lo + (#n), #hi));
                }
                ("skip", true, None) => {
                    let n = arg(m)?;
                    hi = syn::parse_quote!(::core::cmp::max((#hi).saturating_sub(#n), #lo));
                }
                ("take", true, None) => {
                    let n = arg(m)?;
                    lo = syn::parse_quote!(::core::cmp::max((#hi).saturating_sub(#n), #lo));
                }
                ("rev", false, None) if m.args.is_empty() => rev = true,
                ("step_by", _, None) => step = Some(arg(m)?),
                _ => return None,
            }
        }
        let (index, elem) = match (&*f.pat, enumerated) {
            (syn::Pat::Tuple(t), true) if t.elems.len() == 2 => (Some(&t.elems[0]), &t.elems[1]),
            (p, false) => (None, p),
            _ => return None,
        };
        let (k, mut body) = self.element_body(elem, None, mutable, &f.body)?;
        for e in [&mut lo, &mut hi] {
            self.visit_expr_mut(e);
        }
        let base = self.name.clone();
        let fresh = |names: &mut FreshNames, what: &str| {
            syn::Ident::new(&names.fresh(&format!("{base}_{what}")), k.span())
        };
        let (start, end) = (fresh(self.names, "lo"), fresh(self.names, "hi"));
        let mut range: syn::Expr = syn::parse_quote!((#start..#end));
        if rev {
            range = syn::parse_quote!(#range.rev());
        }
        let step = step.map(|mut n| {
            self.visit_expr_mut(&mut n);
            n
        });
        let by = fresh(self.names, "step");
        if step.is_some() {
            range = syn::parse_quote!(#range.step_by(#by));
        }
        // `enumerate()`'s count: the position in what the adapters leave.
        if let Some(i) = index {
            let from: syn::Expr = match rev {
                false => syn::parse_quote!(#k - #start),
                true => syn::parse_quote!(#end - 1 - #k),
            };
            let count: syn::Expr = match step {
                Some(_) => syn::parse_quote!((#from) / #by),
                None => from,
            };
            body.stmts.insert(0, syn::parse_quote!(let #i = #count;));
        }
        let step_let = step.map(|n| -> syn::Stmt { syn::parse_quote!(let #by = #n;) });
        let label = &f.label;
        Some(syn::parse_quote!({
            let #start = #lo;
            let #end = #hi;
            #step_let
            #label for #k in #range #body
        }))
    }

    /// `for (p, y) in v.iter().zip(ys)` (`v.iter_mut()`; the `Vec` second
    /// too, `ys.iter().zip(&v)`, `zip(&mut v)`, `zip(v.iter())`): the
    /// element's side a range of indices, `for (k, y) in
    /// (0..v_x.len()).zip(ys)`, the element read through the fields'
    /// `Vec`s at `k` as in [`Self::element_loop`]. `None` for any other
    /// loop.
    pub(super) fn element_zip(&mut self, f: &syn::ExprForLoop) -> Option<syn::Expr> {
        let syn::Expr::MethodCall(z) = &*f.expr else {
            return None;
        };
        let syn::Pat::Tuple(t) = &*f.pat else {
            return None;
        };
        if z.method != "zip" || z.args.len() != 1 || t.elems.len() != 2 {
            return None;
        }
        // Whether `e` is the `Vec`'s elements, and whether lent by `&mut`.
        let elements = |e: &syn::Expr| -> Option<bool> {
            match e {
                syn::Expr::MethodCall(m)
                    if m.args.is_empty()
                        && (m.method == "iter" || m.method == "iter_mut")
                        && self.is_name(&m.receiver) =>
                {
                    Some(m.method == "iter_mut")
                }
                syn::Expr::Reference(r) if self.is_name(&r.expr) => Some(r.mutability.is_some()),
                _ => None,
            }
        };
        let (side, mutable) = match (elements(&z.receiver), elements(&z.args[0])) {
            (Some(m), None) if !matches!(&*z.receiver, syn::Expr::Reference(_)) => (0, m),
            (None, Some(m)) => (1, m),
            _ => return None,
        };
        let (k, body) = self.element_body(&t.elems[side], None, mutable, &f.body)?;
        let first = self.first().clone();
        let range: syn::Expr = syn::parse_quote!((0..#first.len()));
        let mut z = z.clone();
        let mut pat = t.clone();
        pat.elems[side] = syn::parse_quote!(#k);
        if side == 0 {
            *z.receiver = range;
            self.visit_expr_mut(&mut z.args[0]);
        } else {
            z.args[0] = range;
            self.visit_expr_mut(&mut z.receiver);
        }
        let label = &f.label;
        Some(syn::parse_quote!(#label for #pat in #z #body))
    }

    /// A chain over the elements, `v.iter().map(|p| p.x * p.v)` (before
    /// its first `map`, also `filter`, `any`, `all`, `fold`, `rev`,
    /// `skip`, `take`): the same chain over the indices,
    /// `(0..v_x.len()).map(|k| v_x[k] * v_v[k])`, which the iterator
    /// desugaring reads as a chain over a range. `None` for any other
    /// chain.
    pub(super) fn element_chain(&mut self, e: &syn::Expr) -> Option<syn::Expr> {
        // The adapters from the outermost in, down to `v.iter()`.
        let mut calls: Vec<&syn::ExprMethodCall> = Vec::new();
        let mut at = e;
        loop {
            let syn::Expr::MethodCall(m) = at else {
                return None;
            };
            if m.method == "iter" && m.args.is_empty() && self.is_name(&m.receiver) {
                break;
            }
            calls.push(m);
            at = &m.receiver;
        }
        // Only a chain that takes the elements into a closure's value:
        // what `iter()`, `rev()`, `enumerate()` or `filter(..)` alone gives
        // is the elements themselves, which indices cannot stand for.
        let reads = |m: &&syn::ExprMethodCall| {
            ["map", "any", "all", "fold"].contains(&m.method.to_string().as_str())
        };
        if !calls.iter().any(reads) {
            return None;
        }
        let first = self.first().clone();
        let mut chain: syn::Expr = syn::parse_quote!((0..#first.len()));
        let mut elements = true;
        // After `enumerate`, the elements are `(i, p)` pairs: the closures
        // name the element second (not a `filter`'s, which lends the pair).
        let mut enumerated = false;
        for m in calls.into_iter().rev() {
            let mut m = m.clone();
            let name = m.method.to_string();
            if elements {
                match name.as_str() {
                    "rev" | "skip" | "take" | "step_by" if !enumerated => {}
                    "enumerate" if !enumerated => enumerated = true,
                    "filter" if enumerated => return None,
                    "map" | "filter" | "any" | "all" | "fold" => {
                        let closure = match m.args.last_mut() {
                            Some(syn::Expr::Closure(c)) => c,
                            _ => return None,
                        };
                        let at = closure.inputs.len().checked_sub(1)?;
                        let mut pat = &closure.inputs[at];
                        if enumerated {
                            match pat {
                                syn::Pat::Tuple(t) if t.elems.len() == 2 => pat = &t.elems[1],
                                _ => return None,
                            }
                        }
                        while let syn::Pat::Reference(r) = pat {
                            pat = &r.pat;
                        }
                        let syn::Pat::Ident(p) = pat else {
                            return None;
                        };
                        if p.by_ref.is_some() || p.subpat.is_some() {
                            return None;
                        }
                        let k = syn::Ident::new(
                            &self.names.fresh(&format!("{}_k", self.name)),
                            p.ident.span(),
                        );
                        let mut through = Element {
                            elem: p.ident.to_string(),
                            index: &k,
                            vars: self.vars,
                            path: self.path,
                            mutable: false,
                            whole: false,
                        };
                        through.visit_expr_mut(&mut closure.body);
                        if through.whole {
                            return None;
                        }
                        // `filter` lends the index, the others give it.
                        let k_pat: syn::Pat = match name.as_str() {
                            "filter" => syn::parse_quote!(&#k),
                            _ => syn::parse_quote!(#k),
                        };
                        match &mut closure.inputs[at] {
                            syn::Pat::Tuple(t) if enumerated => t.elems[1] = k_pat,
                            input => *input = k_pat,
                        }
                        elements = name != "map";
                    }
                    _ => return None,
                }
            }
            for a in m.args.iter_mut() {
                self.visit_expr_mut(a);
            }
            *m.receiver = chain;
            chain = syn::Expr::MethodCall(m);
        }
        Some(chain)
    }

    /// A loop's body over the elements, the element `elem` (a plain name)
    /// read through the fields' `Vec`s at the index `k` (a fresh name if
    /// `None`), then the rest of it rewritten as any code: the index and
    /// the body; `None` where the element is used in a way this file does
    /// not follow.
    fn element_body(
        &mut self,
        elem: &syn::Pat,
        k: Option<syn::Ident>,
        mutable: bool,
        body: &syn::Block,
    ) -> Option<(syn::Ident, syn::Block)> {
        let syn::Pat::Ident(p) = elem else {
            return None;
        };
        if p.by_ref.is_some() || p.subpat.is_some() {
            return None;
        }
        let k = k.unwrap_or_else(|| {
            syn::Ident::new(
                &self.names.fresh(&format!("{}_k", self.name)),
                p.ident.span(),
            )
        });
        let mut body = body.clone();
        let mut through = Element {
            elem: p.ident.to_string(),
            index: &k,
            vars: self.vars,
            path: self.path,
            mutable,
            whole: false,
        };
        through.visit_block_mut(&mut body);
        if through.whole {
            return None;
        }
        self.visit_block_mut(&mut body);
        Some((k, body))
    }
}

//! The loops and chains over a `Vec` of structs that `super` splits:
//! each the same walk over the indices of its fields' `Vec`s, the element
//! read through them at the index (`Element`).

use syn::visit_mut::VisitMut;

use super::{Element, Rewrite};

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
    /// `step_by(k)`, with one `enumerate()` anywhere among them (`for (i,
    /// p) in ..`, counting what the adapters before it leave), and last a
    /// `filter(|p| ..)`; or over a part of the `Vec`, `&v[1..]`,
    /// `v[..n].iter()`: a loop over the range of indices they leave, `for
    /// k in (1..v_x.len()).min(..)`, the element read through the fields'
    /// `Vec`s at `k` as in [`Self::element_loop`], the filter's condition
    /// an `if` around the body. `None` for any other loop.
    pub(super) fn element_adapted(&mut self, f: &syn::ExprForLoop) -> Option<syn::Expr> {
        let first = self.first().clone();
        let mut calls: Vec<&syn::ExprMethodCall> = Vec::new();
        let mut at = &*f.expr;
        let (mutable, part) = loop {
            match at {
                syn::Expr::MethodCall(m)
                    if m.args.is_empty() && (m.method == "iter" || m.method == "iter_mut") =>
                {
                    let part = match &*m.receiver {
                        e if self.is_name(e) => None,
                        e => Some(self.part(e)?),
                    };
                    break (m.method == "iter_mut", part);
                }
                syn::Expr::MethodCall(m) => {
                    calls.push(m);
                    at = &m.receiver;
                }
                // `&v[1..]`, `&mut v[..n]`: a part, without adapters.
                syn::Expr::Reference(r) if calls.is_empty() => {
                    break (r.mutability.is_some(), Some(self.part(&r.expr)?));
                }
                _ => return None,
            }
        };
        calls.reverse();
        // A `filter` last: its condition, on the element as the loop binds it.
        let filter = match calls.last() {
            Some(m) if m.method == "filter" => {
                let m = calls.pop()?;
                match m.args.first() {
                    Some(syn::Expr::Closure(c)) if m.args.len() == 1 && c.inputs.len() == 1 => {
                        Some(c)
                    }
                    _ => return None,
                }
            }
            _ => None,
        };
        if calls.is_empty() && part.is_none() && filter.is_none() {
            return None;
        }
        // The indices left: `lo..hi`, maybe reversed, maybe stepped.
        let sliced = part.is_some();
        let (mut lo, mut hi): (syn::Expr, syn::Expr) = match part {
            Some((lo, hi)) => (lo, hi),
            None => (syn::parse_quote!(0), syn::parse_quote!(#first.len())),
        };
        let (mut rev, mut step) = (false, None);
        // Where `enumerate` stood: the range it counted, and how.
        let mut counted: Option<(syn::Expr, syn::Expr, bool, bool)> = None;
        for m in &calls {
            let arg = |m: &syn::ExprMethodCall| match m.args.len() {
                1 => Some(m.args[0].clone()),
                _ => None,
            };
            // After `step_by(s)`, `skip(n)` and `take(n)` count `n` steps.
            let steps = |n: syn::Expr, step: &Option<syn::Expr>| -> syn::Expr {
                match step {
                    Some(s) => syn::parse_quote!((#n) * (#s)),
                    None => syn::parse_quote!((#n)),
                }
            };
            match (m.method.to_string().as_str(), rev, &step) {
                ("enumerate", _, _) if counted.is_none() && m.args.is_empty() => {
                    counted = Some((lo.clone(), hi.clone(), rev, step.is_some()));
                }
                ("skip", false, _) => {
                    let n = steps(arg(m)?, &step);
                    lo = syn::parse_quote!(::core::cmp::min(#lo + #n, #hi));
                }
                ("take", false, _) => {
                    let n = steps(arg(m)?, &step);
                    hi = syn::parse_quote!(::core::cmp::min(#lo + #n, #hi));
                }
                ("skip", true, _) => {
                    let n = steps(arg(m)?, &step);
                    hi = syn::parse_quote!(::core::cmp::max((#hi).saturating_sub(#n), #lo));
                }
                ("take", true, _) => {
                    let n = steps(arg(m)?, &step);
                    lo = syn::parse_quote!(::core::cmp::max((#hi).saturating_sub(#n), #lo));
                }
                ("rev", false, None) if m.args.is_empty() => rev = true,
                ("step_by", _, None) => step = Some(arg(m)?),
                _ => return None,
            }
        }
        let (index, elem) = match (&*f.pat, &counted) {
            (syn::Pat::Tuple(t), Some(_)) if t.elems.len() == 2 => (Some(&t.elems[0]), &t.elems[1]),
            (p, None) => (None, p),
            _ => return None,
        };
        let (k, mut body) = self.element_body(elem, None, mutable, &f.body)?;
        let (start, end) = (self.fresh(&k, "lo"), self.fresh(&k, "hi"));
        let by = self.fresh(&k, "step");
        // `enumerate()`'s count: the position in what the adapters before
        // it leave, its range bound by names of its own where adapters
        // after it narrow the loop's.
        let mut lets: Vec<syn::Stmt> = Vec::new();
        let count = counted.map(|(c_lo, c_hi, c_rev, c_step)| {
            // Counted forwards from the range's start, backwards from its
            // end.
            let (from, own, loops) = match c_rev {
                false => (c_lo, "from", &lo),
                true => (c_hi, "to", &hi),
            };
            let at = match (&from == loops, c_rev) {
                (true, false) => start.clone(),
                (true, true) => end.clone(),
                (false, _) => {
                    let name = self.fresh(&k, own);
                    lets.push(syn::parse_quote!(let #name = #from;));
                    name
                }
            };
            let from: syn::Expr = match c_rev {
                false => syn::parse_quote!(#k - #at),
                true => syn::parse_quote!(#at - 1 - #k),
            };
            match c_step {
                true => syn::parse_quote!((#from) / #by),
                false => from,
            }
        });
        if let Some(f) = filter {
            // The condition on the element (and the count) as the loop
            // binds them: `|p| p.alive`, `|(i, p)| *i > 0 && p.alive`,
            // `|&(i, _)| i > 0`; a `return` there leaves the closure only.
            if crate::desugar::jumps::has_return(&f.body) {
                return None;
            }
            let mut input = &f.inputs[0];
            let mut lent = true;
            while let syn::Pat::Reference(r) = input {
                input = &r.pat;
                lent = false;
            }
            let (c_index, mut c_elem) = match (input, &count) {
                (syn::Pat::Tuple(t), Some(_)) if t.elems.len() == 2 => {
                    (Some(&t.elems[0]), &t.elems[1])
                }
                (p, None) => (None, p),
                _ => return None,
            };
            while let syn::Pat::Reference(r) = c_elem {
                c_elem = &r.pat;
            }
            let body_cond = &f.body;
            let mut cond: syn::Block = syn::parse_quote!({ #body_cond });
            match c_elem {
                syn::Pat::Wild(_) => self.visit_block_mut(&mut cond),
                _ => cond = self.element_body(c_elem, Some(k.clone()), false, &cond)?.1,
            }
            if let (Some(i), Some(count)) = (c_index, &count) {
                // Lent the pair (`|(i, p)|`), the closure has its count by
                // reference; `|&(i, p)|` and `|(&i, p)|` by value.
                let (i, by_value) = match i {
                    syn::Pat::Reference(r) => (&*r.pat, true),
                    _ => (i, !lent),
                };
                let value: syn::Expr = match by_value {
                    true => syn::parse_quote!(#count),
                    false => syn::parse_quote!(&(#count)),
                };
                cond.stmts.insert(0, syn::parse_quote!(let #i = #value;));
            }
            let inner = std::mem::take(&mut body.stmts);
            body.stmts = vec![syn::parse_quote!(if #cond { #(#inner)* })];
        }
        if let (Some(i), Some(count)) = (index, count) {
            body.stmts.insert(0, syn::parse_quote!(let #i = #count;));
        }
        for e in [&mut lo, &mut hi] {
            self.visit_expr_mut(e);
        }
        for s in lets.iter_mut() {
            self.visit_stmt_mut(s);
        }
        let mut range: syn::Expr = syn::parse_quote!((#start..#end));
        if rev {
            range = syn::parse_quote!(#range.rev());
        }
        let step = step.map(|mut n| {
            self.visit_expr_mut(&mut n);
            n
        });
        if step.is_some() {
            range = syn::parse_quote!(#range.step_by(#by));
        }
        let step_let = step.map(|n| -> syn::Stmt { syn::parse_quote!(let #by = #n;) });
        // A part out of bounds panics as the slice would.
        let bounds: Option<syn::Stmt> =
            sliced.then(|| syn::parse_quote!(let _ = &#first[#start..#end];));
        let label = &f.label;
        Some(syn::parse_quote!({
            let #start = #lo;
            let #end = #hi;
            #bounds
            #step_let
            #(#lets)*
            #label for #k in #range #body
        }))
    }

    /// `v[a..b]` (any range form): the range's ends as indices into the
    /// fields' `Vec`s, `None` for anything else.
    fn part(&self, e: &syn::Expr) -> Option<(syn::Expr, syn::Expr)> {
        let syn::Expr::Index(ix) = e else {
            return None;
        };
        let syn::Expr::Range(r) = &*ix.index else {
            return None;
        };
        if !self.is_name(&ix.expr) {
            return None;
        }
        let first = self.first();
        let lo: syn::Expr = match &r.start {
            Some(a) => syn::parse_quote!((#a)),
            None => syn::parse_quote!(0),
        };
        let hi: syn::Expr = match (&r.end, &r.limits) {
            (Some(b), syn::RangeLimits::HalfOpen(_)) => syn::parse_quote!((#b)),
            (Some(b), syn::RangeLimits::Closed(_)) => syn::parse_quote!((#b) + 1),
            (None, _) => syn::parse_quote!(#first.len()),
        };
        Some((lo, hi))
    }

    /// `for w in v.windows(n)` (maybe `.enumerate()`, `for (i, w) in
    /// ..`), its body reading the window's elements as `w[j]` (their
    /// fields, methods, the element whole) and `w.len()`: a loop over the
    /// windows' first indices, `w[j]` the `Vec`'s `v[k + j]`, rewritten as
    /// any read of an element. `None` for any other loop, or where the
    /// body uses `w` otherwise.
    pub(super) fn element_windows(&mut self, f: &syn::ExprForLoop) -> Option<syn::Expr> {
        let (mut source, mut index) = (&*f.expr, None);
        let mut pat = &*f.pat;
        if let syn::Expr::MethodCall(e) = source {
            if e.method == "enumerate" && e.args.is_empty() {
                let syn::Pat::Tuple(t) = pat else {
                    return None;
                };
                if t.elems.len() != 2 {
                    return None;
                }
                (source, index, pat) = (&e.receiver, Some(&t.elems[0]), &t.elems[1]);
            }
        }
        let syn::Expr::MethodCall(m) = source else {
            return None;
        };
        if m.method != "windows" || m.args.len() != 1 || !self.is_name(&m.receiver) {
            return None;
        }
        let w = plain_name(pat)?;
        let (k, n) = (self.fresh(w, "k"), self.fresh(w, "width"));
        let mut body = f.body.clone();
        let mut window = Window {
            w,
            v: syn::Ident::new(&self.name, w.span()),
            k: &k,
            n: &n,
            other: false,
        };
        window.visit_block_mut(&mut body);
        if window.other {
            return None;
        }
        self.visit_block_mut(&mut body);
        if let Some(i) = index {
            body.stmts.insert(0, syn::parse_quote!(let #i = #k;));
        }
        let mut width = m.args[0].clone();
        self.visit_expr_mut(&mut width);
        let first = self.first();
        let label = &f.label;
        Some(syn::parse_quote!({
            let #n: usize = #width;
            #label for #k in 0..(#first.len() + 1).saturating_sub(#n) #body
        }))
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
        // `count()` counts indices as it counts elements.
        let reads = |m: &&syn::ExprMethodCall| {
            ["map", "any", "all", "fold"].contains(&m.method.to_string().as_str())
                || m.method == "count" && m.args.is_empty()
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
                    "count" if m.args.is_empty() => {}
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
                        let p = plain_name(pat)?;
                        let k = self.fresh(p, "k");
                        let mut through = Element {
                            elem: p.to_string(),
                            index: &k,
                            vars: self.vars,
                            shape: self.shape,
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
    pub(super) fn element_body(
        &mut self,
        elem: &syn::Pat,
        k: Option<syn::Ident>,
        mutable: bool,
        body: &syn::Block,
    ) -> Option<(syn::Ident, syn::Block)> {
        let mut body = body.clone();
        // `for &(x, v) in &hist`, `for &[x, y] in &traj`, `for &P { x, .. }
        // in &ps`: the element under a name of the macro's, each part
        // bound first in the body, `let x = hist_elem.0; let v = ..`.
        let taken_apart;
        let p = match (plain_name(elem), elem) {
            (Some(p), _) => p,
            (None, syn::Pat::Reference(r)) if r.mutability.is_none() && !mutable => {
                let span = syn::spanned::Spanned::span(elem);
                taken_apart =
                    syn::Ident::new(&self.names.fresh(&format!("{}_elem", self.name)), span);
                let whole: syn::Expr = syn::parse_quote!(#taken_apart);
                let lets: Vec<syn::Stmt> = self
                    .shape
                    .parts_of_pattern(&r.pat)?
                    .into_iter()
                    .map(|(f, pat)| {
                        let part = self.shape.part(&whole, &f, span);
                        syn::parse_quote_spanned!(span=> let #pat = #part;)
                    })
                    .collect();
                body.stmts.splice(0..0, lets);
                &taken_apart
            }
            _ => return None,
        };
        let k = k.unwrap_or_else(|| self.fresh(p, "k"));
        let mut through = Element {
            elem: p.to_string(),
            index: &k,
            vars: self.vars,
            shape: self.shape,
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

impl Rewrite<'_> {
    /// A fresh name for the `Vec`'s `what` (`ps_k`), spanned at `at`.
    pub(super) fn fresh(&mut self, at: &syn::Ident, what: &str) -> syn::Ident {
        syn::Ident::new(
            &self.names.fresh(&format!("{}_{what}", self.name)),
            at.span(),
        )
    }
}

/// The name a pattern binds where it is a plain name (`p`, `mut p`; not
/// `ref p` nor `p @ ..`).
fn plain_name(pat: &syn::Pat) -> Option<&syn::Ident> {
    match pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(&p.ident),
        _ => None,
    }
}

/// A window `w` of `v.windows(n)` read through `v` at the window's first
/// index `k`: `w[j]` is `v[k + j]`, `w.len()` is `n`; `other` where `w` is
/// used otherwise or bound again.
struct Window<'a> {
    w: &'a syn::Ident,
    v: syn::Ident,
    k: &'a syn::Ident,
    n: &'a syn::Ident,
    other: bool,
}

impl VisitMut for Window<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        let is_w = |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.w));
        match e {
            syn::Expr::Index(ix) if is_w(&ix.expr) => {
                self.visit_expr_mut(&mut ix.index);
                let (v, k, j) = (&self.v, self.k, &ix.index);
                *ix.expr = syn::parse_quote!(#v);
                *ix.index = syn::parse_quote!(#k + (#j));
            }
            syn::Expr::MethodCall(m)
                if m.method == "len" && m.args.is_empty() && is_w(&m.receiver) =>
            {
                let n = self.n;
                *e = syn::parse_quote!(#n);
            }
            _ if is_w(e) => self.other = true,
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        self.other |= p.ident == *self.w;
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        self.other |= super::names(m, &self.w.to_string());
    }
}

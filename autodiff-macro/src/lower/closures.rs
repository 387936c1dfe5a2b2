//! Closures bound by `let` and called in the body: each call is lowered
//! as the closure's body written at the call, its parameters bound to the
//! arguments and its free variables to what they held where the closure
//! was made (what it captured). The closure's own `let` stays as written
//! for any other use.

use super::*;

mod uses;
use uses::changes;
pub(super) use uses::only_called;

/// A closure the body may call inline.
pub(super) struct ClosureDef {
    /// The parameters: a name, and the type written on it, if any.
    params: Vec<(syn::Ident, Option<syn::Type>)>,
    /// Per parameter, whether the body changes it (`p[0] += 1.0`).
    changed: Vec<bool>,
    body: syn::Expr,
    /// The bindings in scope where the closure was made.
    scopes: Vec<HashMap<String, Binding>>,
}

impl Lowerer {
    /// `let name = |params| body;`: records it for inlining when its
    /// parameters are plain names and its body changes nothing outside
    /// itself (a closure that assigns to a captured variable is kept as
    /// written). Returns whether it was recorded; the `let` is lowered as
    /// written either way.
    pub(super) fn record_closure(&mut self, value: ValueId, closure: &syn::ExprClosure) -> bool {
        if closure.asyncness.is_some() {
            return false;
        }
        let mut params = Vec::new();
        for p in &closure.inputs {
            match p {
                syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                    params.push((i.ident.clone(), None))
                }
                syn::Pat::Type(t) => match &*t.pat {
                    syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                        params.push((i.ident.clone(), Some((*t.ty).clone())))
                    }
                    _ => return false,
                },
                _ => return false,
            }
        }
        // What a method cannot change: a struct taken by `&` (`p: &P`,
        // `&self`), whose `p.forcing(t)` is a call on it (trial 11 B9).
        let shared = self.shared_structs(closure);
        if changes(closure, &[], &shared) {
            return false;
        }
        // A parameter taken by shared reference (`s: &Phase`) is not
        // changed by a method called on it.
        let changed = params
            .iter()
            .map(|(p, ty)| {
                let lent = matches!(ty, Some(syn::Type::Reference(r)) if r.mutability.is_none());
                let mut shared = shared.clone();
                if lent {
                    shared.insert(p.to_string());
                }
                changes(closure, &[p], &shared)
            })
            .collect();
        self.closures.insert(
            value,
            std::rc::Rc::new(ClosureDef {
                params,
                changed,
                body: crate::desugar::jumps::closure_returns_as_values(&closure.body),
                scopes: self.scopes.clone(),
            }),
        );
        true
    }

    /// The names a closure reads that hold a struct taken by a shared
    /// reference (`p: &P`, `&self`): no method called on one changes it
    /// (a `Cell` inside is refused elsewhere), unlike a struct the
    /// function owns, whose `&mut self` method may.
    fn shared_structs(&self, closure: &syn::ExprClosure) -> std::collections::HashSet<String> {
        let mut names = std::collections::HashSet::new();
        crate::desugar::internal::collect_idents(
            quote::ToTokens::to_token_stream(&closure.body),
            &mut names,
        );
        names.retain(|n| match self.lookup(n) {
            Some(Binding::Value(v)) => matches!(
                &self.values[v.0].ty,
                Ty::Composite(c) if matches!(c.holder, Holder::Ref | Holder::Slice)
            ),
            _ => false,
        });
        names
    }

    /// The closure a call's callee names, if it is one recorded here.
    pub(super) fn called_closure(&self, c: &syn::ExprCall) -> Option<std::rc::Rc<ClosureDef>> {
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        match self.lookup(&name) {
            Some(Binding::Value(v)) => self.closures.get(v).cloned(),
            _ => None,
        }
    }

    /// A call of a recorded closure, as its body written here.
    pub(super) fn inline_closure(
        &mut self,
        def: &ClosureDef,
        c: &syn::ExprCall,
        out: &mut Vec<Inst>,
    ) -> Option<Lowered> {
        if c.args.len() != def.params.len() {
            error(
                self,
                c,
                "this closure is called with a different number of arguments than it takes",
            );
            return None;
        }
        // The arguments, evaluated where the call is; a row or a sub-slice
        // given to a parameter the body does not change is read in place
        // through its array (`through_view`), its index or bounds
        // evaluated here.
        let mut args = Vec::new();
        let mut body = def.body.clone();
        let mut views: Vec<(String, ValueId)> = Vec::new();
        // The parameters given a local struct by `&` (`m(&p)`).
        let mut lent_structs: Vec<usize> = Vec::new();
        for (k, a) in c.args.iter().enumerate() {
            if !def.changed[k] {
                if let Some(through) = self.view_argument(a, &def.params[k].0, &body, out) {
                    let (seen, bound) = through?;
                    body = seen;
                    views.extend(bound);
                    args.push(None);
                    continue;
                }
            }
            // A list given whole (`dist([x, y])`): a local array.
            if let Some(v) = self.argument_array(a, out) {
                let ty = self.values[v.0].ty.clone();
                args.push(Some(Lowered {
                    operand: Operand::Value(v),
                    ty,
                }));
                continue;
            }
            // A modelled array lent (`norm(&p)`): the parameter names it.
            if let syn::Expr::Reference(r) = a {
                if let Some(v) = r
                    .mutability
                    .is_none()
                    .then(|| self.modelled_array(&r.expr))
                    .flatten()
                {
                    let ty = self.values[v.0].ty.clone();
                    args.push(Some(Lowered {
                        operand: Operand::Value(v),
                        ty,
                    }));
                    continue;
                }
            }
            // A local struct given whole (`m(&p)`, which the split wrote
            // `m(&P { x: p_x, v: p_v })`): the struct built here, its
            // fields read back by the body (`q.x`).
            if let Some((built, by_ref)) = self.built_argument(a, out) {
                if by_ref {
                    lent_structs.push(k);
                }
                args.push(Some(built));
                continue;
            }
            args.push(Some(self.expr(a, out)?));
        }
        // The body, where the closure was made, its parameters bound to
        // the arguments.
        let here = std::mem::replace(&mut self.scopes, def.scopes.clone());
        self.scopes.push(HashMap::new());
        for (name, v) in views {
            self.bind(name, Binding::Value(v));
        }
        let mut ok = true;
        for (k, (((ident, ty), arg), changed)) in
            def.params.iter().zip(args).zip(&def.changed).enumerate()
        {
            let Some(arg) = arg else { continue };
            // A struct built here and lent (`&P { x: p_x, v: p_v }`): the
            // parameter names it, the body's `q` read as the struct (`norm(q)`
            // lends it).
            if let (true, Operand::Value(v)) = (lent_structs.contains(&k), &arg.operand) {
                match crate::desugar::refs::as_referent(&body, ident) {
                    Some(b) => body = b,
                    None => {
                        error(self, ident, format!("#[grad] follows the struct this closure takes by reference through its parameter `{ident}`, and its body binds `{ident}` again where the parameter is still read after: give the inner one another name"));
                        ok = false;
                    }
                }
                self.bind(ident.to_string(), Binding::Value(*v));
                continue;
            }
            // A struct the function holds, takes or built here given by
            // value (`|r: &P| r.x * r.v` given the parameter `p`, trial 13
            // r1126; `|a: P| ..` given `p`): the parameter names it, its
            // fields read as the struct's, where the body does not change
            // it (one that does takes a copy, below).
            if let (Operand::Value(v), Some(_), false) =
                (&arg.operand, arg.ty.composite(), *changed)
            {
                self.bind(ident.to_string(), Binding::Value(*v));
                continue;
            }
            // A modelled array (`|p: [f64; 2]| norm(sub(p, c))`): the
            // parameter names the argument's array, or a copy of it where
            // the body changes it (`p[0] += y`), as a closure's own.
            if let (Operand::Value(v), Some(_)) = (&arg.operand, arg.ty.array()) {
                self.bind(ident.to_string(), Binding::Value(*v));
                if *changed {
                    self.stmt(
                        &syn::parse_quote_spanned!(ident.span()=> let mut #ident = #ident;),
                        out,
                    );
                }
                continue;
            }
            self.bind_parameter(ident, ty.as_ref(), arg, c.span(), out);
        }
        let result = self.expr(&body, out);
        if result.is_none() {
            ok = false;
        }
        self.scopes = here;
        if ok {
            result
        } else {
            None
        }
    }
}

impl ClosureDef {
    /// The elements of the tuple of `n` the closure returns, each with
    /// the statements before it (`|e| (k * e, k * e * e)`, `|e| { let s =
    /// k * e; (s, s * e) }`): the closures that give one element each.
    pub(super) fn tuple_parts(&self, n: usize) -> Option<Vec<ClosureDef>> {
        let mut body = &self.body;
        while let syn::Expr::Paren(p) = body {
            body = &p.expr;
        }
        let (before, tail): (&[syn::Stmt], &syn::Expr) = match body {
            syn::Expr::Tuple(_) => (&[], body),
            syn::Expr::Block(b) if b.label.is_none() => match b.block.stmts.split_last() {
                Some((syn::Stmt::Expr(tail, None), before)) => (before, tail),
                _ => return None,
            },
            _ => return None,
        };
        let syn::Expr::Tuple(t) = tail else {
            return None;
        };
        if t.elems.len() != n || n == 0 {
            return None;
        }
        let parts = t.elems.iter().map(|e| {
            let body = match before.is_empty() {
                true => e.clone(),
                false => syn::parse_quote!({ #(#before)* #e }),
            };
            ClosureDef {
                params: self.params.clone(),
                changed: self.changed.clone(),
                body,
                scopes: self.scopes.clone(),
            }
        });
        Some(parts.collect())
    }
}

impl Lowerer {
    /// `let (a, b) = ctrl(x);` of a closure returning a tuple: each
    /// element the closure's body for it written at the call
    /// ([`ClosureDef::tuple_parts`]), the arguments evaluated once before,
    /// then the pattern bound to them as to a tuple of names.
    pub(super) fn closure_tuple(
        &mut self,
        parts: Vec<ClosureDef>,
        c: &syn::ExprCall,
        local: &syn::Local,
        out: &mut Vec<Inst>,
    ) -> bool {
        let (_, base) = self.internal.fresh_loop();
        let mut call = c.clone();
        for (k, a) in call.args.iter_mut().enumerate() {
            // A name, a literal or something lent is read in place (a row,
            // a sub-slice: `view_argument`); anything else once, here.
            if matches!(
                a,
                syn::Expr::Path(_) | syn::Expr::Lit(_) | syn::Expr::Reference(_)
            ) {
                continue;
            }
            let t = syn::Ident::new(&format!("{base}_arg{k}"), a.span());
            self.stmt(&syn::parse_quote!(let #t = #a;), out);
            *a = syn::parse_quote!(#t);
        }
        let mut temps = Vec::new();
        for (k, part) in parts.iter().enumerate() {
            let Some(l) = self.inline_closure(part, &call, out) else {
                return true;
            };
            let t = syn::Ident::new(&format!("{base}_{k}"), local.span());
            let v = self.name_result(&t, l.ty, None, l.operand, local.span(), out);
            self.bind(t.to_string(), Binding::Value(v));
            temps.push(t);
        }
        let mut bound = local.clone();
        if let Some(init) = &mut bound.init {
            *init.expr = syn::parse_quote!((#(#temps),*));
        }
        self.tuple_let(&bound, out)
    }

    /// A closure's parameter bound to its argument's value, with the type
    /// written on it, if any (`|v: f64|`), else the argument's.
    fn bind_parameter(
        &mut self,
        ident: &syn::Ident,
        ty: Option<&syn::Type>,
        arg: Lowered,
        span: Span,
        out: &mut Vec<Inst>,
    ) {
        let written = ty.map(|t| {
            Box::new(Written {
                ty: Some(t.clone()),
                attrs: Vec::new(),
            })
        });
        let ty = match ty {
            Some(t) => self.types.ty_of(t),
            None => arg.ty.clone(),
        };
        let v = self.name_result(ident, ty, written, arg.operand, span, out);
        self.bind(ident.to_string(), Binding::Value(v));
    }

    /// `let d = f(x, y);` of a closure whose body is a list (`|s0: f64,
    /// s1: f64| -> [f64; 2] { [s1, -k * s0] }`, `vec![..]`, `[v; n]`): the
    /// list with the parameters renamed to names bound here to the
    /// arguments, for the `let` to declare as a local array. `None` for
    /// another call, or where a name the body reads from its
    /// surroundings no longer holds what it held where the closure was
    /// made (the list is read here, not there).
    pub(super) fn closure_array(
        &mut self,
        init: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> Option<syn::Expr> {
        let syn::Expr::Call(c) = init else {
            return None;
        };
        let def = self.called_closure(c)?;
        // The body: `let`s of plain names (`let c = angle.cos();`), then
        // the list.
        let mut body = &def.body;
        let mut lets: Vec<&syn::Local> = Vec::new();
        while let syn::Expr::Block(b) = body {
            let Some((syn::Stmt::Expr(last, None), before)) = b.block.stmts.split_last() else {
                return None;
            };
            for s in before {
                match s {
                    syn::Stmt::Local(l)
                        if l.init.as_ref().is_some_and(|i| i.diverge.is_none())
                            && matches!(plain_pat(&l.pat), Some(i) if i.by_ref.is_none() && i.subpat.is_none()) =>
                    {
                        lets.push(l)
                    }
                    _ => return None,
                }
            }
            body = last;
        }
        let list = match body {
            syn::Expr::Array(_) | syn::Expr::Repeat(_) => true,
            syn::Expr::Macro(m) => m.mac.path.is_ident("vec"),
            _ => false,
        };
        if !list || c.args.len() != def.params.len() || def.changed.iter().any(|c| *c) {
            return None;
        }
        // No way out of the closure that would leave the function here.
        let whole = quote::quote!(#(#lets)* #body);
        let mut idents = std::collections::HashSet::new();
        crate::desugar::internal::collect_idents(whole.clone(), &mut idents);
        if idents.contains("return") || has_try(&whole) {
            return None;
        }
        // What the body reads besides its parameters and its own names
        // holds here what it held where the closure was made.
        let words = idents;
        let mut params: Vec<String> = def.params.iter().map(|(p, _)| p.to_string()).collect();
        params.extend(
            lets.iter()
                .filter_map(|l| plain_pat(&l.pat))
                .map(|i| i.ident.to_string()),
        );
        let here = |cx: &Self, w: &str| match cx.lookup(w) {
            Some(Binding::Value(v)) => Some(*v),
            _ => None,
        };
        let there = |w: &str| {
            def.scopes
                .iter()
                .rev()
                .find_map(|s| s.get(w))
                .and_then(|b| match b {
                    Binding::Value(v) => Some(*v),
                    _ => None,
                })
        };
        if words
            .iter()
            .filter(|w| !params.contains(w))
            .any(|w| here(self, w) != there(w))
        {
            return None;
        }
        // The `let`s and the list as one block, every name of the
        // closure's renamed apart from the caller's.
        let mut block: syn::Expr = syn::parse_quote!({ #(#lets)* #body });
        let mut renames = Vec::new();
        for ((param, ty), a) in def.params.iter().zip(&c.args) {
            let (_, fresh) = self.internal.fresh_loop();
            let fresh = syn::Ident::new(&format!("{fresh}_{param}"), param.span());
            block = crate::desugar::iterators::rename_free(&block, param, &fresh)?;
            renames.push((ty, a, fresh));
        }
        let syn::Expr::Block(b) = &block else {
            return None;
        };
        let mut stmts = b.block.stmts.clone();
        let mut k = 0;
        while k + 1 < stmts.len() {
            let syn::Stmt::Local(l) = &mut stmts[k] else {
                return None;
            };
            let name = plain_pat(&l.pat)?.ident.clone();
            let (_, fresh) = self.internal.fresh_loop();
            let fresh = syn::Ident::new(&format!("{fresh}_{name}"), name.span());
            rename_pat(&mut l.pat, &fresh);
            let rest: syn::Expr = {
                let rest = &stmts[k + 1..];
                syn::parse_quote!({ #(#rest)* })
            };
            let syn::Expr::Block(rest) =
                crate::desugar::iterators::rename_free(&rest, &name, &fresh)?
            else {
                return None;
            };
            stmts.truncate(k + 1);
            stmts.extend(rest.block.stmts);
            k += 1;
        }
        let Some((syn::Stmt::Expr(list, None), lets)) = stmts.split_last() else {
            return None;
        };
        for (ty, a, fresh) in renames {
            let param = &fresh;
            if let Some(v) = self.argument_array(a, out) {
                self.bind(fresh.to_string(), Binding::Value(v));
                continue;
            }
            // `grad_at(&w)` of a slice parameter: the array itself.
            let lent = match a {
                syn::Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
                _ => a,
            };
            if let Some(v) = self.modelled_array(lent) {
                self.bind(fresh.to_string(), Binding::Value(v));
                continue;
            }
            let arg = self.expr(a, out)?;
            self.bind_parameter(param, ty.as_ref(), arg, c.span(), out);
        }
        for l in lets {
            self.stmt(l, out);
        }
        Some(list.clone())
    }

    /// A closure's argument that is a row of a nested array (`xs[i]`,
    /// `&xs[i]`, a loop's row) or a sub-slice of a flat one (`&w[a..b]`):
    /// `body` with `param` read through the array, and the fresh names it
    /// reads the array, the index or the bounds by, bound to their values
    /// here. `None` for another argument; `Some(None)` where lowering the
    /// index or bounds failed (reported).
    #[allow(clippy::type_complexity)]
    fn view_argument(
        &mut self,
        a: &syn::Expr,
        param: &syn::Ident,
        body: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> Option<Option<(syn::Expr, Vec<(String, ValueId)>)>> {
        let mut inner = a;
        let mut lent = false;
        loop {
            match inner {
                syn::Expr::Paren(p) => inner = &p.expr,
                syn::Expr::Reference(r) if r.mutability.is_none() && !lent => {
                    lent = true;
                    inner = &r.expr;
                }
                _ => break,
            }
        }
        let syn::Expr::Index(ix) = inner else {
            return None;
        };
        let array = self.modelled_array(&ix.expr)?;
        let nested = matches!(
            self.values[array.0].ty.array().map(|t| &t.shape),
            Some(Shape::Nested)
        );
        let span = a.span();
        let (k, base) = self.internal.fresh_loop();
        let (k, base) = (syn::Ident::new(&k, span), syn::Ident::new(&base, span));
        let range = match &*ix.index {
            syn::Expr::Range(r) if lent && !nested => Some(r),
            syn::Expr::Range(_) => return None,
            _ if nested => None,
            _ => return None,
        };
        let Some(range) = range else {
            // A row: `param` is `(base[k])`.
            let place: syn::Expr = syn::parse_quote_spanned!(span=> #base[#k]);
            let zero: syn::Expr = syn::parse_quote!(0);
            let fresh = syn::Ident::new(&self.internal.fresh_loop().0, span);
            let seen =
                crate::desugar::iterators::through_view(body, param, &fresh, &place, &zero, None)?;
            let Some(index) = self.expr(&ix.index, out) else {
                return Some(None);
            };
            let kv = self.name_result(&k, index.ty, None, index.operand, span, out);
            return Some(Some((
                seen,
                vec![(base.to_string(), array), (k.to_string(), kv)],
            )));
        };
        // A sub-slice: `param[j]` is `base[k + j]`, `param.len()` its
        // length, checked against the array as Rust checks the slice.
        let (_, len) = self.internal.fresh_loop();
        let len = syn::Ident::new(&len, span);
        let place: syn::Expr = syn::parse_quote_spanned!(span=> #base);
        let fresh = syn::Ident::new(&self.internal.fresh_loop().0, span);
        let seen = crate::desugar::iterators::through_view(
            body,
            param,
            &fresh,
            &place,
            &syn::parse_quote!(#k),
            Some(&syn::parse_quote!(#len)),
        )?;
        let start: syn::Expr = match &range.start {
            Some(s) => (**s).clone(),
            None => syn::parse_quote!(0),
        };
        let Some(start) = self.expr(&start, out) else {
            return Some(None);
        };
        let kv = self.name_result(&k, start.ty, None, start.operand, span, out);
        self.bind(k.to_string(), Binding::Value(kv));
        let whole = &ix.expr;
        let rt = quote::quote!(::autodiff::runtime::range);
        let n: syn::Expr = match (&range.end, &range.limits) {
            (Some(e), syn::RangeLimits::HalfOpen(_)) => {
                syn::parse_quote_spanned!(span=> #rt::sub_len(#k, #e, #whole.len()))
            }
            (Some(e), syn::RangeLimits::Closed(_)) => {
                // Parentheses only where precedence needs them (rustc
                // warns of others, at the user's span).
                let e: syn::Expr = match &**e {
                    syn::Expr::Lit(_)
                    | syn::Expr::Path(_)
                    | syn::Expr::MethodCall(_)
                    | syn::Expr::Call(_)
                    | syn::Expr::Field(_)
                    | syn::Expr::Index(_)
                    | syn::Expr::Paren(_) => (**e).clone(),
                    other => syn::parse_quote!((#other)),
                };
                syn::parse_quote_spanned!(span=> #rt::sub_len(#k, #e + 1usize, #whole.len()))
            }
            (None, _) => syn::parse_quote_spanned!(span=> #rt::sub_len_from(#k, #whole.len())),
        };
        let Some(n) = self.expr(&n, out) else {
            return Some(None);
        };
        let nv = self.name_result(&len, n.ty, None, n.operand, span, out);
        Some(Some((
            seen,
            vec![
                (base.to_string(), array),
                (k.to_string(), kv),
                (len.to_string(), nv),
            ],
        )))
    }
}

/// The name a plain pattern binds (`c`, `mut c`, `c: f64`).
fn plain_pat(p: &syn::Pat) -> Option<&syn::PatIdent> {
    match p {
        syn::Pat::Ident(i) => Some(i),
        syn::Pat::Type(t) => plain_pat(&t.pat),
        _ => None,
    }
}

/// `p` binding `to` instead.
fn rename_pat(p: &mut syn::Pat, to: &syn::Ident) {
    match p {
        syn::Pat::Ident(i) => i.ident = to.clone(),
        syn::Pat::Type(t) => rename_pat(&mut t.pat, to),
        _ => {}
    }
}

/// Whether `tokens` hold a `?` (a way out of a closure's body).
fn has_try(tokens: &proc_macro2::TokenStream) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Punct(p) => p.as_char() == '?',
        proc_macro2::TokenTree::Group(g) => has_try(&g.stream()),
        _ => false,
    })
}

//! Loops: `for` over ranges, `while` and `loop` as regions with carried
//! variables, break flags and trip counts.

mod assigned;

use super::*;

/// Syntax that [`Lowerer::assigned_in`] can visit.
pub(super) trait ToTokensVisit {
    fn visit_with<'a>(&'a self, v: &mut dyn Visit<'a>);
}

impl ToTokensVisit for syn::Expr {
    fn visit_with<'a>(&'a self, v: &mut dyn Visit<'a>) {
        v.visit_expr(self);
    }
}

impl ToTokensVisit for syn::Block {
    fn visit_with<'a>(&'a self, v: &mut dyn Visit<'a>) {
        v.visit_block(self);
    }
}

/// The pieces of a range loop's iterator, as written.
pub(super) struct RangeParts<'e> {
    start: &'e syn::Expr,
    end: &'e syn::Expr,
    inclusive: bool,
    /// `None` for `.rev()`, `Some(k)` for `.step_by(k)`, innermost first.
    pub(super) adaptors: Vec<Option<&'e syn::Expr>>,
}

/// `a..b`, `a..=b`, `(a..b).rev()`, `(a..b).step_by(k)` and chains of them.
pub(super) fn range_parts(e: &syn::Expr) -> Option<RangeParts<'_>> {
    match e {
        syn::Expr::Paren(p) => range_parts(&p.expr),
        syn::Expr::Group(g) => range_parts(&g.expr),
        syn::Expr::Range(r) => Some(RangeParts {
            start: r.start.as_deref()?,
            end: r.end.as_deref()?,
            inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
            adaptors: Vec::new(),
        }),
        syn::Expr::MethodCall(m) if m.turbofish.is_none() => {
            let mut inner = range_parts(&m.receiver)?;
            match (m.method.to_string().as_str(), m.args.len()) {
                ("rev", 0) => inner.adaptors.push(None),
                ("step_by", 1) => inner.adaptors.push(Some(&m.args[0])),
                _ => return None,
            }
            Some(inner)
        }
        _ => None,
    }
}

impl Lowerer {
    /// `for x in xs` over a modelled array as its index loop.
    fn slice_loop(&self, l: &syn::ExprForLoop) -> Option<syn::ExprForLoop> {
        crate::desugar::iterators::slice_loop(l, &|e| self.indexable(e), &self.internal)
    }

    /// The modelled variables a loop's code assigns, in the order written.
    /// Also whether the code changes a modelled array (which is memory, not
    /// a carried value, but still makes the loop a region).
    pub(super) fn assigned_in(&self, tokens: &[&dyn ToTokensVisit]) -> (Vec<String>, bool) {
        let mut v = assigned::Assigned::new();
        for t in tokens {
            t.visit_with(&mut v);
        }
        let held = v
            .receivers
            .into_iter()
            .filter(|n| self.held_struct(&syn::Ident::new(n, proc_macro2::Span::call_site())));
        let v = (v.found.into_iter().chain(held).collect::<Vec<_>>(),);
        let mut names = Vec::new();
        let mut arrays = false;
        for n in v.0 {
            let modelled = match self.lookup(&n) {
                Some(Binding::Value(x)) if self.values[x.0].ty.array().is_some() => {
                    arrays = true;
                    false
                }
                _ => self.follows(&n),
            };
            if modelled && !names.contains(&n) {
                names.push(n);
            }
        }
        (names, arrays)
    }

    /// The arrays written out that a `for` loop's iterator walks, in its
    /// chain of receivers and their arguments (`[q1, q2]`, `&[1.0, 2.0]`,
    /// `[a, b].iter()`, `xs.iter().zip([0.5, 0.5])`), each bound by a
    /// `let` of its own, and the loop reading them by name; `None` where
    /// there is none.
    fn listed_iterables(&self, l: &syn::ExprForLoop) -> Option<(Vec<syn::Stmt>, syn::ExprForLoop)> {
        fn listed(e: &mut syn::Expr, cx: &Lowerer, binds: &mut Vec<syn::Stmt>) {
            match e {
                syn::Expr::Array(_) => {
                    let (_, name) = cx.internal.fresh_loop();
                    let name = syn::Ident::new(&format!("{name}_items"), e.span());
                    binds.push(syn::parse_quote_spanned!(e.span()=> let #name = #e;));
                    *e = syn::parse_quote!(#name);
                }
                syn::Expr::Reference(r) => listed(&mut r.expr, cx, binds),
                syn::Expr::Paren(p) => listed(&mut p.expr, cx, binds),
                syn::Expr::MethodCall(m) => {
                    listed(&mut m.receiver, cx, binds);
                    for a in m.args.iter_mut() {
                        listed(a, cx, binds);
                    }
                }
                _ => {}
            }
        }
        let mut bound = l.clone();
        let mut binds = Vec::new();
        listed(&mut bound.expr, self, &mut binds);
        (!binds.is_empty()).then_some((binds, bound))
    }

    /// `for i in a..b` (with `..=`, `.rev()`, `.step_by(k)`) that changes
    /// modelled variables: a loop region. Other `for` loops are kept as
    /// written. Returns whether it was lowered here.
    pub(super) fn lower_for(&mut self, l: &syn::ExprForLoop, out: &mut Vec<Inst>) -> bool {
        // `for x in xs.iter_mut() { *x *= k; }`: the index loop it stands
        // for, whose stores the rest sees.
        if crate::desugar::iterators::writes_elements(&l.expr) {
            if let Some(indexed) = self.slice_loop(l) {
                return self.lower_for(&indexed, out);
            }
        }
        let (carried, arrays) = self.assigned_in(&[&l.body]);
        if carried.is_empty() && !arrays && !self.returns_from(&l.body) || l.label.is_some() {
            if let Some(attr) = l.attrs.iter().find(|a| crate::attr::is_checkpoint(a)) {
                // Kept as written, it would carry the attribute to rustc.
                error(self, attr, "#[checkpoint] has nothing to do on this loop: it changes no variable #[grad] differentiates (and a labelled loop is kept as written); remove the attribute");
                return true;
            }
            return false;
        }
        // A loop the lowering takes, `for q in [q1, q2]`, `for (w, x) in
        // [0.5, 0.5].iter().zip(xs)`: each array written out bound first,
        // as a local array.
        if let Some((binds, bound)) = self.listed_iterables(l) {
            for st in &binds {
                self.stmt(st, out);
            }
            return self.lower_for(&bound, out);
        }
        if let Some(attr) = l.attrs.iter().find(|a| crate::attr::is_checkpoint(a)) {
            return self.lower_checkpointed(l, attr, out);
        }
        let index_ident = match &*l.pat {
            syn::Pat::Ident(p)
                if p.by_ref.is_none() && p.subpat.is_none() && p.mutability.is_none() =>
            {
                Some(p.ident.clone())
            }
            syn::Pat::Wild(_) => None,
            _ => match self.slice_loop(l) {
                Some(indexed) => return self.lower_for(&indexed, out),
                // Kept as written, the changes it makes would be refused
                // with a message about a variable.
                None => {
                    error(self, &l.expr, UNSUPPORTED_ITERATOR);
                    return true;
                }
            },
        };
        let Some(range) = range_parts(&l.expr) else {
            if let Some(indexed) = self.slice_loop(l) {
                return self.lower_for(&indexed, out);
            }
            error(self, &l.expr, UNSUPPORTED_ITERATOR);
            return true;
        };
        let flag = self.new_break_flag();
        let Some((stmts, breaks)) = self.loop_jumps(&l.body, &flag) else {
            return true;
        };
        let Some(range) = self.lower_range(range, out) else {
            return true;
        };
        let carried = self.break_flag(carried, breaks.then_some(&flag), &l.body, out);
        // `.step_by(k)` cannot be walked backwards for every index type
        // (`(0..=n).step_by(k).rev()` needs an exact size): such a loop
        // counts its trips, and records its index where the reverse reads it.
        let stepped = range
            .adaptors
            .iter()
            .any(|a| matches!(a, crate::ir::Adaptor::StepBy(_)));
        self.lower_loop(
            carried,
            breaks || stepped,
            breaks.then_some(flag.as_str()),
            out,
            |cx, body| {
                let index = index_ident.map(|i| {
                    let v = cx.new_value(Some(i.to_string()), Ty::Int, ValueKind::Def, i.span());
                    cx.bind(i.to_string(), Binding::Value(v));
                    v
                });
                cx.stmts(&stmts, body, Mode::Unit);
                LoopKind::Range { index, range }
            },
        );
        true
    }

    /// `while cond { body }` that changes modelled variables: a loop region.
    pub(super) fn lower_while(&mut self, w: &syn::ExprWhile, out: &mut Vec<Inst>) -> bool {
        self.refuse_checkpoint(&w.attrs);
        let (carried, arrays) = self.assigned_in(&[&*w.cond, &w.body]);
        if carried.is_empty() && !arrays && !self.returns_from(&w.body)
            || w.label.is_some()
            || matches!(*w.cond, syn::Expr::Let(_))
        {
            return false;
        }
        self.lower_conditional_loop(Some(&w.cond), &w.body, carried, out);
        true
    }

    /// `loop { body }` that changes modelled variables: a `while true` loop
    /// left by `break`.
    pub(super) fn lower_infinite(&mut self, l: &syn::ExprLoop, out: &mut Vec<Inst>) -> bool {
        self.refuse_checkpoint(&l.attrs);
        let (carried, arrays) = self.assigned_in(&[&l.body]);
        if carried.is_empty() && !arrays && !self.returns_from(&l.body) || l.label.is_some() {
            return false;
        }
        self.lower_conditional_loop(None, &l.body, carried, out);
        true
    }

    /// The loop region of `while cond` (`loop` without `cond`).
    pub(super) fn lower_conditional_loop(
        &mut self,
        cond: Option<&syn::Expr>,
        body: &syn::Block,
        carried: Vec<String>,
        out: &mut Vec<Inst>,
    ) {
        let flag = self.new_break_flag();
        let Some((stmts, breaks)) = self.loop_jumps(body, &flag) else {
            return;
        };
        let carried = self.break_flag(carried, breaks.then_some(&flag), body, out);
        self.lower_loop(
            carried,
            true,
            breaks.then_some(flag.as_str()),
            out,
            |cx, body| {
                let mut cond_block = Vec::new();
                let cond = match cond {
                    Some(c) => cx
                        .expr(c, &mut cond_block)
                        .map(|l| l.operand)
                        .unwrap_or_else(|| Operand::Const(Box::new(syn::parse_quote!(false)))),
                    None => Operand::Const(Box::new(syn::parse_quote!(true))),
                };
                cx.stmts(&stmts, body, Mode::Unit);
                LoopKind::While {
                    cond_block: Block { insts: cond_block },
                    cond,
                }
            },
        );
    }

    /// A loop body with its `break`s and `continue`s rewritten into
    /// branches (see [`rewrite_jumps`]), and whether it breaks; `None`
    /// after reporting a jump that cannot be rewritten.
    pub(super) fn loop_jumps(
        &mut self,
        body: &syn::Block,
        flag: &str,
    ) -> Option<(Vec<syn::Stmt>, bool)> {
        let mut breaks = false;
        let ret = syn::Ident::new(&self.internal.ret, Span::call_site());
        let returned = syn::Ident::new(&self.internal.returned, Span::call_site());
        let returns = self
            .lookup(&self.internal.returned)
            .is_some()
            .then_some((&ret, &returned));
        let flag = syn::Ident::new(flag, Span::call_site());
        match rewrite_jumps(&body.stmts, &mut breaks, returns, &flag) {
            Some(stmts) => Some((stmts, breaks)),
            None => {
                let errors_before = self
                    .errors
                    .as_ref()
                    .map_or(0, |e| e.clone().into_iter().count());
                self.refuse_jumps(body);
                let errors_after = self
                    .errors
                    .as_ref()
                    .map_or(0, |e| e.clone().into_iter().count());
                if errors_after == errors_before {
                    error(self, body, "#[grad] supports `return` inside a loop that changes active variables only at the end of a branch of an `if` or an arm of a `match` (as in `if found { return x; }`), in a loop at the top level of the body: restructure the loop that way");
                }
                None
            }
        }
    }

    /// The name of the next loop's break flag.
    pub(super) fn new_break_flag(&mut self) -> String {
        self.break_flags += 1;
        format!("{}{}", self.internal.broke, self.break_flags)
    }

    /// Whether a loop body can `return` from the function (in a function
    /// whose loops' returns are rewritten): it changes the result even when
    /// it assigns nothing else.
    pub(super) fn returns_from(&self, body: &syn::Block) -> bool {
        self.lookup(&self.internal.returned).is_some() && body.stmts.iter().any(stmt_has_return)
    }

    /// For a loop that breaks: the flag `break` sets, false before the
    /// loop, carried by it.
    pub(super) fn break_flag(
        &mut self,
        mut carried: Vec<String>,
        breaks: Option<&String>,
        body: &syn::Block,
        out: &mut Vec<Inst>,
    ) -> Vec<String> {
        // A loop that returns from the function (here or in an inner loop)
        // carries the returned value and its flag out.
        let returns = body.stmts.iter().any(stmt_has_return);
        if returns && self.lookup(&self.internal.returned).is_some() {
            for name in [self.internal.ret.clone(), self.internal.returned.clone()] {
                if !carried.contains(&name) {
                    carried.push(name);
                }
            }
        }
        if let Some(name) = breaks {
            let flag = syn::Ident::new(name, Span::call_site());
            self.stmt(&syn::parse_quote!(let mut #flag = false;), out);
            carried.push(name.clone());
        }
        carried
    }

    /// Reports the `break`s and `continue`s that cannot be rewritten.
    pub(super) fn refuse_jumps(&mut self, body: &syn::Block) -> bool {
        struct Jumps(Vec<TokenStream>);
        impl<'a> Visit<'a> for Jumps {
            fn visit_expr(&mut self, e: &'a syn::Expr) {
                match e {
                    syn::Expr::Break(b) => self.0.push(b.break_token.to_token_stream()),
                    syn::Expr::Continue(c) => self.0.push(c.continue_token.to_token_stream()),
                    // Jumps inside inner loops and closures stay inside them.
                    syn::Expr::ForLoop(_)
                    | syn::Expr::While(_)
                    | syn::Expr::Loop(_)
                    | syn::Expr::Closure(_) => return,
                    _ => {}
                }
                syn::visit::visit_expr(self, e);
            }
        }
        let mut j = Jumps(Vec::new());
        j.visit_block(body);
        for t in &j.0 {
            error(self, t, "#[grad] supports `break` and `continue` in loops that change active variables only at the end of a branch of an `if` or an arm of a `match` written as a statement, or whose value a `let` or an assignment takes (as in `if done { break; }`, `None => break,`, `let w = match o { Some(w) => w, None => continue };`, `let Some(w) = o else { continue };`), and with no pattern binding a name that the statements after the `match` read: restructure the loop that way");
        }
        j.0.is_empty()
    }

    pub(super) fn lower_range(&mut self, r: RangeParts, out: &mut Vec<Inst>) -> Option<RangeIter> {
        let start = self.expr(r.start, out)?.operand;
        let end = self.expr(r.end, out)?.operand;
        let mut adaptors = Vec::new();
        for a in r.adaptors {
            adaptors.push(match a {
                None => Adaptor::Rev,
                Some(k) => Adaptor::StepBy(self.expr(k, out)?.operand),
            });
        }
        Some(RangeIter {
            start,
            end,
            inclusive: r.inclusive,
            adaptors,
        })
    }

    /// A loop region: headers for the `carried` variables, the body
    /// lowered by `body` against them, the values after the loop.
    pub(super) fn lower_loop(
        &mut self,
        carried: Vec<String>,
        counted: bool,
        exit_flag: Option<&str>,
        out: &mut Vec<Inst>,
        body: impl FnOnce(&mut Self, &mut Vec<Inst>) -> LoopKind,
    ) {
        let before = self.scopes.clone();
        let mut headers = Vec::new();
        for name in &carried {
            let (init, ty, span) = match self.lookup(name).cloned() {
                Some(Binding::Value(v)) => (
                    Operand::Value(v),
                    self.values[v.0].ty.clone(),
                    self.values[v.0].span,
                ),
                _ => {
                    combine(&mut self.errors, syn::Error::new(Span::call_site(), format!("`{name}` is assigned in a loop before it has a value: give it one before the loop")));
                    self.scopes = before;
                    return;
                }
            };
            let header = self.new_value(Some(name.clone()), ty, ValueKind::Def, span);
            // A state a call gave (`let mut s = start(q); for .. { s =
            // step(s); }`): read in parts as the call's result is
            // (`vector_calls.rs` takes the calls behind it as vectors).
            if matches!(init, Operand::Value(v) if self.call_results.contains(&v)) {
                self.call_results.insert(header);
            }
            self.assign(name, header);
            headers.push((name.clone(), header, init));
        }
        self.scopes.push(HashMap::new());
        self.array_scopes.push(self.scopes.len());
        let mut insts = Vec::new();
        let kind = body(self, &mut insts);
        self.array_scopes.pop();
        self.scopes.pop();
        let after = std::mem::replace(&mut self.scopes, before.clone());
        let mut carried_values = Vec::new();
        for (name, header, init) in headers {
            let next = match find_binding(&after, &name) {
                Some(Binding::Value(v)) => Operand::Value(*v),
                _ => Operand::Value(header),
            };
            // The type the variable has once the body ran.
            if let Operand::Value(n) = &next {
                let t = merged(&self.values[header.0].ty, &self.values[n.0].ty);
                self.values[header.0].ty = t;
            }
            let ty = self.values[header.0].ty.clone();
            let span = self.values[header.0].span;
            let out_value = self.new_value(Some(name.clone()), ty, ValueKind::Def, span);
            if self.call_results.contains(&header) {
                self.call_results.insert(out_value);
            }
            self.assign(&name, out_value);
            carried_values.push(Carried {
                header,
                init,
                next,
                out: out_value,
            });
        }
        // Opaque variables the body changed keep their last version, which
        // the next iteration reads as the one before the loop.
        let mut opaque_carried = Vec::new();
        for (level, scope) in before.iter().enumerate() {
            for (name, b) in scope {
                if let (Binding::Value(v), Some(Binding::Value(w))) =
                    (b, after.get(level).and_then(|s| s.get(name)))
                {
                    if v != w && self.values[w.0].kind == ValueKind::Opaque {
                        self.scopes[level].insert(name.clone(), Binding::Value(*w));
                        opaque_carried.push((*v, *w));
                    }
                }
            }
        }
        let id = self.loops;
        self.loops += 1;
        let exit = exit_flag.and_then(|flag| {
            carried_values
                .iter()
                .find(|c| self.values[c.header.0].name.as_deref() == Some(flag))
                .map(|c| c.next.clone())
        });
        let trips = counted.then(|| {
            self.new_value(
                Some("trips".to_string()),
                Ty::Int,
                ValueKind::Def,
                Span::call_site(),
            )
        });
        out.push(Inst::Loop(Box::new(Loop {
            id,
            kind,
            carried: carried_values,
            body: Block { insts },
            trips,
            exit,
            checkpoint: None,
            opaque_carried,
        })));
    }

    /// `let r = loop { .. break v; .. };`, `r = loop { .. };` (a labelled
    /// block's value too, `desugar/labels.rs`), or such a loop as the value
    /// of the statements (`tail`) as the loop without its break values,
    /// then `let r = v;`, `r = v;` or `v` (`desugar/loop_value.rs`);
    /// `None` for any other statement. A loop that cannot be split is
    /// reported, and dropped.
    pub(super) fn loop_value(&mut self, stmt: &syn::Stmt, tail: bool) -> Option<Vec<syn::Stmt>> {
        enum Destination<'s> {
            Let(&'s syn::Pat),
            Assign(&'s syn::Expr),
            Tail,
        }
        let (l, into) = match stmt {
            syn::Stmt::Local(syn::Local {
                pat,
                init: Some(init),
                ..
            }) if init.diverge.is_none() => match &*init.expr {
                syn::Expr::Loop(l) => (l, Destination::Let(pat)),
                _ => return None,
            },
            syn::Stmt::Expr(syn::Expr::Assign(a), _) => match &*a.right {
                syn::Expr::Loop(l) => (l, Destination::Assign(&a.left)),
                _ => return None,
            },
            syn::Stmt::Expr(syn::Expr::Loop(l), None) if tail => (l, Destination::Tail),
            _ => return None,
        };
        if l.label.is_some() {
            return None;
        }
        let (_, result) = self.internal.fresh_loop();
        let result = syn::Ident::new(&result, l.loop_token.span);
        match crate::desugar::loop_value::split(l, &result)? {
            Ok((before, plain, value)) => {
                let plain = syn::Expr::Loop(plain);
                let mut out = before;
                out.push(syn::parse_quote!(#plain;));
                out.push(match into {
                    Destination::Let(pat) => syn::parse_quote!(let #pat = #value;),
                    Destination::Assign(place) => syn::parse_quote!(#place = #value;),
                    Destination::Tail => syn::Stmt::Expr(value, None),
                });
                Some(out)
            }
            Err((at, msg)) => {
                error(self, at, msg);
                Some(Vec::new())
            }
        }
    }

    /// A loop that returns from the function, followed by `rest`, as a loop
    /// that records the value and breaks, then a guard clause:
    /// `let mut __ret = 0.0; let mut __returned = false; <loop>;
    /// if __returned { return __ret; } rest`.
    pub(super) fn returning_loop(
        &self,
        stmt: &syn::Stmt,
        rest: &[syn::Stmt],
    ) -> Option<Vec<syn::Stmt>> {
        let syn::Stmt::Expr(
            e @ (syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_)),
            _,
        ) = stmt
        else {
            return None;
        };
        if !has_return(e) {
            return None;
        }
        let ret = syn::Ident::new(&self.internal.ret, Span::call_site());
        let flag = syn::Ident::new(&self.internal.returned, Span::call_site());
        // Already rewritten: its guard follows it.
        let guard: syn::Stmt = syn::parse_quote!(if #flag { return #ret; });
        if rest.first().map(|s| s.to_token_stream().to_string())
            == Some(guard.to_token_stream().to_string())
        {
            return None;
        }
        let ty = self.float_ident(self.ret_float, e.span());
        let zero = self.float_zero(e.span());
        let mut out: Vec<syn::Stmt> = vec![
            syn::parse_quote!(let mut #ret: #ty = #zero;),
            syn::parse_quote!(let mut #flag = false;),
            syn::Stmt::Expr(e.clone(), None),
            syn::parse_quote!(if #flag { return #ret; }),
        ];
        out.extend(rest.iter().cloned());
        Some(out)
    }
}

/// A `for` loop that changes variables #[grad] differentiates, over an
/// iterator it does not follow.
const UNSUPPORTED_ITERATOR: &str = "#[grad] differentiates `for` loops over integer ranges (`a..b`, `a..=b`, with `.rev()` or `.step_by(k)`) and over arrays the function names (parameters, local arrays, parts of structs) through `iter`, `zip`, `enumerate`, `rev`, `skip`, `take`, `map`, `filter`, `windows`, `chunks` and `chunks_exact`; this iterator is not one of those (another adapter, or a `zip` with something else than such an array or an array written out): loop over indices, as in `for i in (0..xs.len()).step_by(2)`";

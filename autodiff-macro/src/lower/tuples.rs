//! Tuples: `let (a, b) = ..` and destructuring assignments `(a, b) =
//! ..`, each element evaluated first and each name bound after, as Rust
//! does; a value given to `_` kept as written.

use super::*;

impl Lowerer {
    /// `let (a, mut b, _) = (e1, e2, e3);`: each element evaluated in
    /// order, then each name bound to its value, as `let`s of their own
    /// would (`let (a, b) = (b, a);` swaps). Returns whether it was lowered
    /// here; a tuple of other elements, or with other patterns, is left to
    /// the caller.
    pub(super) fn tuple_let(&mut self, local: &syn::Local, out: &mut Vec<Inst>) -> bool {
        if self.array_let(local, out) {
            return true;
        }
        // `let (a, mut b): (f64, f64) = ..;`: the tuple bound to names of
        // the macro's, then each name with its type, `let a: f64 = t0;`.
        if let (syn::Pat::Type(typed), Some(_)) = (&local.pat, &local.init) {
            if let (syn::Pat::Tuple(pat), syn::Type::Tuple(tys)) = (&*typed.pat, &*typed.ty) {
                if pat.elems.len() == tys.elems.len() && local.attrs.is_empty() {
                    let (_, base) = self.internal.fresh_loop();
                    let temps: Vec<syn::Ident> = (0..tys.elems.len())
                        .map(|k| syn::Ident::new(&format!("{base}_{k}"), typed.span()))
                        .collect();
                    let mut untyped = local.clone();
                    untyped.pat = syn::parse_quote!((#(#temps),*));
                    let mut stmts = vec![syn::Stmt::Local(untyped)];
                    for ((p, ty), t) in pat.elems.iter().zip(&tys.elems).zip(&temps) {
                        if !matches!(p, syn::Pat::Wild(_)) {
                            stmts.push(syn::parse_quote!(let #p: #ty = #t;));
                        }
                    }
                    for s in &stmts {
                        self.stmt(s, out);
                    }
                    return true;
                }
            }
        }
        let (syn::Pat::Tuple(pat), Some(init)) = (&local.pat, &local.init) else {
            return false;
        };
        let mut names = Vec::new();
        for p in &pat.elems {
            match p {
                syn::Pat::Wild(_) => names.push(None),
                syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                    names.push(Some(i.ident.clone()))
                }
                _ => return false,
            }
        }
        if init.diverge.is_some() || !local.attrs.is_empty() {
            return false;
        }
        // `let (s, c) = x.sin_cos();`: the tuple `(x.sin(), x.cos())`, with
        // `x` evaluated once.
        if let syn::Expr::MethodCall(m) = &*init.expr {
            if m.method == "sin_cos" && m.args.is_empty() && names.len() == 2 {
                let x: syn::Expr = match &*m.receiver {
                    p @ syn::Expr::Path(_) => p.clone(),
                    other => {
                        let (_, t) = self.internal.fresh_loop();
                        let t = syn::Ident::new(&t, m.method.span());
                        let bind: syn::Stmt = syn::parse_quote!(let #t = #other;);
                        self.stmt(&bind, out);
                        syn::parse_quote!(#t)
                    }
                };
                let mut pair = local.clone();
                if let Some(init) = &mut pair.init {
                    let (sin, cos) = (
                        syn::Ident::new("sin", m.method.span()),
                        syn::Ident::new("cos", m.method.span()),
                    );
                    *init.expr = syn::parse_quote!((#x.#sin(), #x.#cos()));
                }
                return self.tuple_let(&pair, out);
            }
        }
        if let syn::Expr::Call(c) = &*init.expr {
            // `let (a, b) = ctrl(x);` of `let ctrl = |e| (k * e, k * e * e);`.
            if let Some(def) = self.called_closure(c) {
                if let Some(parts) = def.tuple_parts(names.len()) {
                    return self.closure_tuple(parts, c, local, out);
                }
            }
            return self.tuple_call(c, None, &names, local, out);
        }
        // `let (x, y) = polar(r, t)?;` (`.unwrap()`, `.expect(..)`).
        if let Some((c, exit)) = self.exiting(&init.expr) {
            return self.tuple_call(c, Some(exit), &names, local, out);
        }
        // `let (s, s2) = xs.iter().fold((0.0, 0.0), ..);`: the loop it
        // stands for, a block ending with the accumulators' tuple.
        if let syn::Expr::MethodCall(m) = &*init.expr {
            if let (true, Some(loop_form)) = (m.method == "fold", self.reduction(m)) {
                let mut looped = local.clone();
                if let Some(init) = &mut looped.init {
                    *init.expr = loop_form;
                }
                return self.tuple_let(&looped, out);
            }
        }
        // `let (p, q) = self.both(x);`: a method of the user's returning a
        // tuple, its result bound and read by element (`t.0`), as a call
        // read in parts is (`lower/vector_calls.rs`).
        if let syn::Expr::MethodCall(m) = &*init.expr {
            let users = crate::rules::maybe_users_method(&m.method.to_string());
            if users && m.turbofish.is_none() && self.struct_receiver(&m.receiver) {
                let (_, t) = self.internal.fresh_loop();
                let t = syn::Ident::new(&format!("{t}_tuple"), m.method.span());
                let elems = (0..names.len()).map(syn::Index::from);
                let mut bound = local.clone();
                if let Some(init) = &mut bound.init {
                    *init.expr = syn::parse_quote!((#(#t.#elems),*));
                }
                let stmts: [syn::Stmt; 2] =
                    [syn::parse_quote!(let #t = #m;), syn::Stmt::Local(bound)];
                for s in &stmts {
                    self.stmt(s, out);
                }
                return true;
            }
        }
        // `let (a, b) = if c { (x, y) } else { (p, q) };` (or a `match`):
        // each branch assigns the elements to names of the macro's, which
        // then bind the pattern.
        if matches!(
            &*init.expr,
            syn::Expr::If(_) | syn::Expr::Match(_) | syn::Expr::Block(_)
        ) {
            let (_, base) = self.internal.fresh_loop();
            let temps: Vec<syn::Ident> = (0..names.len())
                .map(|k| syn::Ident::new(&format!("{base}_{k}"), local.span()))
                .collect();
            if let Some(assigned) = crate::desugar::outputs::assign_tails(&init.expr, &temps, false)
            {
                let mut stmts: Vec<syn::Stmt> =
                    temps.iter().map(|t| syn::parse_quote!(let #t;)).collect();
                stmts.push(syn::Stmt::Expr(assigned, Some(Default::default())));
                let mut bind = local.clone();
                if let Some(init) = &mut bind.init {
                    *init.expr = syn::parse_quote!((#(#temps),*));
                }
                stmts.push(syn::Stmt::Local(bind));
                for s in &stmts {
                    self.stmt(s, out);
                }
                return true;
            }
        }
        // `let (ox, oy) = obs[k];`, `let (mut a, mut b) = d.p;`: a tuple
        // read in place, element by element, `(obs[k].0, obs[k].1)`; the
        // place names no call, so reading it again changes nothing. So is
        // a tuple parameter, `let (mut x, mut y) = pt;`, and a call's tuple
        // bound to a name (`let r = kf.innov(z); let (y, s) = r;`, which
        // `desugar/local_structs.rs` writes for a method of a local).
        let whole = matches!(&*init.expr, syn::Expr::Path(p) if p.qself.is_none()
            && p.path.get_ident().is_some_and(|i| matches!(self.lookup(&i.to_string()),
                Some(Binding::Value(v)) if self.param_values.contains(v) || self.call_results.contains(v))));
        if pure_place(&init.expr) || whole {
            let place = &init.expr;
            let elems = (0..names.len()).map(syn::Index::from);
            let mut read = local.clone();
            if let Some(init) = &mut read.init {
                *init.expr = syn::parse_quote_spanned!(place.span()=> (#(#place.#elems),*));
            }
            return self.tuple_let(&read, out);
        }
        let syn::Expr::Tuple(tuple) = &*init.expr else {
            return false;
        };
        if pat.elems.len() != tuple.elems.len() {
            return false;
        }
        let scopes_before = self.scopes.clone();
        let errors_before = self.errors.is_some();
        let mut insts = Vec::new();
        let mut values = Vec::new();
        for (name, e) in names.iter().zip(&tuple.elems) {
            if name.is_none() {
                self.discarded(e, &mut insts);
                values.push(None);
                continue;
            }
            let Some(l) = self.expr(e, &mut insts) else {
                return true;
            };
            let opaque = self.kept_as_written(&l.operand, &insts);
            if opaque || l.ty.array().is_some() {
                // Not all scalars: kept as written.
                self.scopes = scopes_before;
                if !errors_before && self.errors.is_some() {
                    return true;
                }
                return false;
            }
            values.push(Some(l));
        }
        if names
            .iter()
            .flatten()
            .any(|n| self.facts.changed_in_place.contains(&n.to_string()))
        {
            self.scopes = scopes_before;
            return false;
        }
        out.extend(insts);
        for (name, l) in names.into_iter().zip(values) {
            let (Some(ident), Some(l)) = (name, l) else {
                continue;
            };
            let v = self.new_value(Some(ident.to_string()), l.ty, ValueKind::Def, ident.span());
            out.push(Inst::Def {
                dst: v,
                op: Op::Copy(l.operand),
                written: None,
                span: local.span(),
            });
            self.bind(ident.to_string(), Binding::Value(v));
        }
        true
    }

    /// A value given to `_`, evaluated and dropped: kept as written
    /// (`let _ = e;`), so that what it reads is still read.
    fn discarded(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) {
        self.check_opaque(e);
        let reads = self.reads_of_expr(e);
        out.push(Inst::Verbatim {
            tokens: quote::quote_spanned!(e.span()=> let _ = #e;),
            kind: VerbatimKind::Stmt,
            defs: Vec::new(),
            reads,
        });
    }

    /// `let (a, b) = step(x, v);`, a call to a `#[grad]` function returning
    /// a tuple of floats: the tuple is a value, each name a projection of
    /// it; the reverse sweep calls `step_vjp` with the tuple's adjoint.
    fn tuple_call(
        &mut self,
        c: &syn::ExprCall,
        exit: Option<Exit>,
        names: &[Option<syn::Ident>],
        local: &syn::Local,
        out: &mut Vec<Inst>,
    ) -> bool {
        let Some(path) = self.grad_function_path(c).cloned() else {
            return false;
        };
        let Some((args, borrowed)) = self.call_args(&c.args, out) else {
            return true;
        };
        let tuple = self.new_value(None, Ty::Unknown, ValueKind::Def, c.span());
        out.push(Inst::Def {
            dst: tuple,
            op: Op::VjpCall {
                path,
                args: args.into_iter().map(|a| a.operand).collect(),
                borrowed,
                mutated: Vec::new(),
                original: None,
                method: false,
                exit,
                whole: None,
            },
            written: None,
            span: local.span(),
        });
        self.projected.insert(tuple);
        for (k, name) in names.iter().enumerate() {
            let Some(ident) = name else { continue };
            let v = self.new_value(
                Some(ident.to_string()),
                Ty::Unknown,
                ValueKind::Def,
                ident.span(),
            );
            out.push(Inst::Def {
                dst: v,
                op: tuple_element(tuple, k, ident.span()),
                written: None,
                span: local.span(),
            });
            self.inferred_floats.insert(v);
            self.bind(ident.to_string(), Binding::Value(v));
        }
        true
    }

    /// `let [x, v] = state;` of a modelled array (a call's result, an
    /// array written out): one `let` per element, `let x = state[0]; let v
    /// = state[1];`.
    fn array_let(&mut self, local: &syn::Local, out: &mut Vec<Inst>) -> bool {
        let (syn::Pat::Slice(pat), Some(init)) = (&local.pat, &local.init) else {
            return false;
        };
        if init.diverge.is_some() || !local.attrs.is_empty() {
            return false;
        }
        let mut lets: Vec<syn::Stmt> = Vec::new();
        // `let [a, b] = g(x, y);` of a call that may be a `#[grad]`
        // function's: its result bound whole, then read by index (a call
        // read in parts, through its `_vjp`).
        let called = match &*init.expr {
            syn::Expr::Call(c) => self.grad_function_path(c).is_some(),
            syn::Expr::MethodCall(m) => self.struct_receiver(&m.receiver),
            _ => false,
        };
        // A local array, or an array parameter (`let [mut x, mut y] =
        // start;` of `start: [f64; 2]`), read by index.
        let parameter = match &*init.expr {
            syn::Expr::Path(p) => p.path.get_ident().filter(|_| {
                self.modelled_array(&init.expr).is_some_and(|v| {
                    matches!(self.values[v.0].kind, ValueKind::Param(_))
                        && matches!(self.values[v.0].ty.array(), Some(a) if a.shape != Shape::Nested)
                })
            }),
            _ => None,
        };
        // `let [a, b] = [x, y * x];` (also a `Vec`'s row built again from
        // its parts' `Vec`s): the array bound whole, then read by index,
        // every element evaluated before any name is bound (`let [x, y] =
        // [y, x];` swaps).
        let listed = matches!(&*init.expr, syn::Expr::Array(a) if a.elems.len() == pat.elems.len());
        let array = match self.whole_array(&init.expr).or_else(|| parameter.cloned()) {
            Some(array) => array,
            None if called || listed => {
                let (_, t) = self.internal.fresh_loop();
                let t = syn::Ident::new(&format!("{t}_array"), init.expr.span());
                let call = &init.expr;
                lets.push(syn::parse_quote!(let #t = #call;));
                t
            }
            None => return false,
        };
        for (k, p) in pat.elems.iter().enumerate() {
            let k = proc_macro2::Literal::usize_unsuffixed(k);
            match p {
                syn::Pat::Wild(_) => {}
                syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                    lets.push(syn::parse_quote!(let #i = #array[#k];));
                }
                _ => return false,
            }
        }
        for l in &lets {
            self.stmt(l, out);
        }
        true
    }

    /// `(a, b) = (e1, e2)`, a destructuring assignment into variables the
    /// lowering follows: every right-hand side first, in order, then each
    /// variable takes its value, as Rust does (`(a, b) = (b, a)` swaps).
    /// Into variables kept as written only, it is kept as written too.
    pub(super) fn destructuring(
        &mut self,
        left: &syn::Expr,
        right: &syn::Expr,
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) {
        let mut targets: Vec<&syn::Expr> = Vec::new();
        flatten_targets(left, &mut targets);
        let followed = |cx: &Self, t: &syn::Expr| base_local(t).is_some_and(|n| cx.follows(&n));
        if !targets.iter().any(|t| followed(self, t)) {
            return self.assignment(left, None, right, whole, out);
        }
        // `(u, v) = (v, u)`, `(u, s) = (step(&u), s + 1.0)` with arrays
        // among the targets: every value bound first (an array as a copy),
        // then each target assigned, arrays element by element.
        if targets.iter().any(|t| self.whole_array(t).is_some()) {
            let mut values: Vec<&syn::Expr> = Vec::new();
            if same_shape(left, right, &mut values) && targets.len() == values.len() {
                let mut binds: Vec<syn::Stmt> = Vec::new();
                let mut assigns: Vec<syn::Stmt> = Vec::new();
                for (t, v) in targets.iter().zip(&values) {
                    let (_, held) = self.internal.fresh_loop();
                    let held = syn::Ident::new(&held, t.span());
                    let value: syn::Expr = match self.whole_array(v) {
                        Some(a) => syn::parse_quote!(#a.clone()),
                        None => (*v).clone(),
                    };
                    binds.push(syn::parse_quote!(let #held = #value;));
                    if !matches!(t, syn::Expr::Infer(_)) {
                        assigns.push(syn::parse_quote!(#t = #held;));
                    }
                }
                for st in binds.iter().chain(&assigns) {
                    self.stmt(st, out);
                }
                return;
            }
        }
        // `(x, y) = step(x, y, v);`, `(q[0], s.v) = (a, b);`: the value
        // bound by a `let` of the left's shape first, then each place
        // assigned, as Rust does.
        let variable = |t: &&syn::Expr| {
            matches!(t, syn::Expr::Infer(_))
                || matches!(t, syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() && followed(self, t))
        };
        if !same_shape(left, right, &mut Vec::new()) || !targets.iter().all(variable) {
            let mut assigns: Vec<syn::Stmt> = Vec::new();
            let Some(pat) = held_pattern(self, left, &mut assigns) else {
                error(self, left, "#[grad] follows a destructuring assignment whose parts are places and `_`, and this one has `..`: write `_` for each part it stands for, as in `(a, _, _) = step(a, x);`");
                return;
            };
            let bind: syn::Stmt = syn::parse_quote_spanned!(whole.span()=> let #pat = #right;);
            for st in std::iter::once(&bind).chain(&assigns) {
                self.stmt(st, out);
            }
            return;
        }
        // Each target a variable of its own the lowering follows (or `_`),
        // each a scalar.
        let mut names: Vec<Option<(String, &syn::Expr)>> = Vec::new();
        let mut refused = false;
        for t in &targets {
            let name = match t {
                syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                _ => None,
            };
            if let Some(name) = &name {
                let array = matches!(self.lookup(name), Some(Binding::Value(v)) if self.values[v.0].ty.array().is_some());
                if array {
                    refuse_rebinding(self, t, name);
                    refused = true;
                }
            }
            names.push(name.map(|n| (n, *t)));
        }
        // The right-hand side as a tuple written out, of the same shape.
        let mut values: Vec<&syn::Expr> = Vec::new();
        same_shape(left, right, &mut values);
        if refused {
            return;
        }
        let mut lowered = Vec::new();
        for (target, e) in names.iter().zip(values) {
            if target.is_none() {
                self.discarded(e, out);
                lowered.push(None);
                continue;
            }
            match self.expr(e, out) {
                Some(l) => lowered.push(Some(l)),
                None => return,
            }
        }
        for (target, l) in names.into_iter().zip(lowered) {
            let (Some((name, t)), Some(l)) = (target, l) else {
                continue;
            };
            let Some(binding) = self.lookup(&name).cloned() else {
                continue;
            };
            let current = match binding {
                Binding::Value(v) => Some(v),
                Binding::Uninit(_) => None,
            };
            self.assign_lowered(&name, t, &binding, current, None, l, whole.span(), out);
        }
    }
}

/// The local variables an assignment's left side changes: `x` in `x =`,
/// `x[i] =` and `x.f =`, each place of a tuple in `(a, b) =`.
pub(super) fn assigned_names(left: &syn::Expr) -> Vec<String> {
    let mut places = Vec::new();
    flatten_targets(left, &mut places);
    places.into_iter().filter_map(base_local).collect()
}

/// Whether an assignment's left side destructures: a tuple (`(a, b) = ..`)
/// or an array (`[a, b] = [b, a]`).
pub(super) fn destructures(left: &syn::Expr) -> bool {
    match left {
        syn::Expr::Tuple(_) | syn::Expr::Array(_) => true,
        syn::Expr::Paren(p) => destructures(&p.expr),
        _ => false,
    }
}

/// The places a destructuring assignment's left side assigns, nested
/// tuples flattened, in order.
/// The names a `let` without a value binds through a tuple or an array
/// pattern (`let (a, b);`, `let [x, y]: [f64; 2];`), each with its type
/// where the `let` states it: each a deferred variable of its own, as
/// `let a; let b;` are. `None` for a pattern of anything else.
pub(super) fn deferred_parts(
    pat: &syn::Pat,
    ty: Option<&syn::Type>,
) -> Option<Vec<(syn::Ident, Option<syn::Type>)>> {
    let elem_ty = |k: usize| -> Option<Option<syn::Type>> {
        Some(match ty {
            None => None,
            Some(syn::Type::Tuple(t)) => Some(t.elems.iter().nth(k)?.clone()),
            Some(syn::Type::Array(a)) => Some((*a.elem).clone()),
            Some(syn::Type::Paren(p)) => return Some(Some((*p.elem).clone())).filter(|_| k == 0),
            Some(_) => return None,
        })
    };
    let parts = |elems: &syn::punctuated::Punctuated<syn::Pat, syn::Token![,]>| {
        let mut out = Vec::new();
        for (k, p) in elems.iter().enumerate() {
            out.extend(deferred_parts(p, elem_ty(k)?.as_ref())?);
        }
        Some(out)
    };
    match pat {
        syn::Pat::Tuple(t) => parts(&t.elems),
        syn::Pat::Slice(s) => parts(&s.elems),
        syn::Pat::Paren(p) => deferred_parts(&p.pat, ty),
        syn::Pat::Type(t) if ty.is_none() => deferred_parts(&t.pat, Some(&t.ty)),
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            Some(vec![(p.ident.clone(), ty.cloned())])
        }
        _ => None,
    }
}

/// A place read by fields and indices of a variable (`obs[k]`, `d.p`,
/// `self.pairs[i + 1]`), whose indices read variables, literals and
/// arithmetic only: reading it twice reads the same value.
fn pure_place(e: &syn::Expr) -> bool {
    fn pure(e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Path(p) => p.qself.is_none(),
            syn::Expr::Lit(_) => true,
            syn::Expr::Paren(p) => pure(&p.expr),
            syn::Expr::Binary(b) => pure(&b.left) && pure(&b.right),
            syn::Expr::Cast(c) => pure(&c.expr),
            syn::Expr::Field(f) => pure(&f.base),
            syn::Expr::Index(i) => pure(&i.expr) && pure(&i.index),
            _ => false,
        }
    }
    match e {
        syn::Expr::Paren(p) => pure_place(&p.expr),
        syn::Expr::Field(f) => {
            matches!(
                &*f.base,
                syn::Expr::Path(_) | syn::Expr::Field(_) | syn::Expr::Index(_)
            ) && pure(e)
        }
        syn::Expr::Index(i) => {
            matches!(
                &*i.expr,
                syn::Expr::Path(_) | syn::Expr::Field(_) | syn::Expr::Index(_)
            ) && pure(e)
        }
        _ => false,
    }
}

/// The pattern a destructuring assignment's value is bound by first, the
/// left's shape with a fresh name at each place (`_` kept), and in
/// `assigns` each place's assignment from its name; `None` for a left
/// side that is no tuple or array of places (`..` in it).
fn held_pattern(cx: &Lowerer, left: &syn::Expr, assigns: &mut Vec<syn::Stmt>) -> Option<syn::Pat> {
    let parts = |elems: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
                 assigns: &mut Vec<syn::Stmt>| {
        elems
            .iter()
            .map(|e| held_pattern(cx, e, assigns))
            .collect::<Option<Vec<syn::Pat>>>()
    };
    Some(match left {
        syn::Expr::Paren(p) => held_pattern(cx, &p.expr, assigns)?,
        syn::Expr::Tuple(t) => {
            let ps = parts(&t.elems, assigns)?;
            syn::parse_quote!((#(#ps,)*))
        }
        syn::Expr::Array(a) => {
            let ps = parts(&a.elems, assigns)?;
            syn::parse_quote!([#(#ps),*])
        }
        syn::Expr::Infer(_) => syn::parse_quote!(_),
        syn::Expr::Range(_) => return None,
        place => {
            let (_, held) = cx.internal.fresh_loop();
            let held = syn::Ident::new(&held, place.span());
            assigns.push(syn::parse_quote_spanned!(place.span()=> #place = #held;));
            syn::parse_quote!(#held)
        }
    })
}

fn flatten_targets<'e>(left: &'e syn::Expr, out: &mut Vec<&'e syn::Expr>) {
    match left {
        syn::Expr::Tuple(t) => t.elems.iter().for_each(|e| flatten_targets(e, out)),
        syn::Expr::Array(a) => a.elems.iter().for_each(|e| flatten_targets(e, out)),
        syn::Expr::Paren(p) => flatten_targets(&p.expr, out),
        other => out.push(other),
    }
}

/// Whether `right` is a tuple written out in the shape of `left`, with the
/// expressions matching `left`'s places in `out`, in order.
fn same_shape<'e>(left: &syn::Expr, right: &'e syn::Expr, out: &mut Vec<&'e syn::Expr>) -> bool {
    match (left, right) {
        (syn::Expr::Paren(l), r) => same_shape(&l.expr, r, out),
        (syn::Expr::Tuple(l), syn::Expr::Paren(r)) => {
            same_shape(&syn::Expr::Tuple(l.clone()), &r.expr, out)
        }
        (syn::Expr::Tuple(l), syn::Expr::Tuple(r)) => {
            l.elems.len() == r.elems.len()
                && l.elems
                    .iter()
                    .zip(&r.elems)
                    .all(|(a, b)| same_shape(a, b, out))
        }
        (syn::Expr::Tuple(_), _) => false,
        (syn::Expr::Array(l), syn::Expr::Array(r)) => {
            l.elems.len() == r.elems.len()
                && l.elems
                    .iter()
                    .zip(&r.elems)
                    .all(|(a, b)| same_shape(a, b, out))
        }
        (syn::Expr::Array(_), _) => false,
        (_, r) => {
            out.push(r);
            true
        }
    }
}

/// The element `k` of a tuple value, `tuple.k`.
pub(super) fn tuple_element(tuple: ValueId, k: usize, span: proc_macro2::Span) -> Op {
    Op::Project {
        base: tuple,
        path: vec![Step::Field(syn::Member::Unnamed(syn::Index {
            index: k as u32,
            span,
        }))],
        by_ref: false,
    }
}

impl Lowerer {
    /// Whether a method's receiver is a struct a method of the user's may
    /// be called on: `self`, a struct built whole (a local struct used
    /// whole, `desugar/local_structs.rs`), or a name bound to a struct.
    fn struct_receiver(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Paren(p) => self.struct_receiver(&p.expr),
            syn::Expr::Struct(_) => true,
            syn::Expr::Path(p) if p.path.is_ident("self") => true,
            // A struct the macro follows, or a value of a type the source
            // does not state (a constant struct parameter, `lens: &Lens`,
            // whose `#[grad]` method returns a tuple).
            syn::Expr::Path(p) => p.path.get_ident().is_some_and(|i| {
                matches!(self.lookup(&i.to_string()), Some(Binding::Value(v))
                    if self.values[v.0].ty.composite().is_some()
                        || self.values[v.0].ty == Ty::Unknown)
            }),
            _ => false,
        }
    }
}

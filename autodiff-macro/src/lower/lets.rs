//! `let`: a scalar's, an array's and one kept as written (a tuple's in
//! `tuples.rs`), and what a `let` names (`name_result`).

use super::*;

/// `name` or `name: Type`, by value.
pub(super) fn simple_binding(pat: &syn::Pat) -> Option<(syn::Ident, Option<&syn::Type>)> {
    match pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            Some((p.ident.clone(), None))
        }
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                Some((p.ident.clone(), Some(&*t.ty)))
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether a `let` computes integers as written: one of an integer type
/// reducing a chain (`let total: usize = sizes.iter().sum();`, no float
/// accumulator), or a sequence of integers (`let order: Vec<usize> =
/// (0..n).collect();`, read by index and by loops as a parameter's is).
fn integers_as_written(local: &syn::Local, annot: Option<&syn::Type>) -> bool {
    let integer = |t: &syn::Type| {
        matches!(t, syn::Type::Path(p)
            if p.path.get_ident().is_some_and(|i| i != "Self" && super::is_known_constant_type(&i.to_string())))
    };
    let Some(t) = annot else {
        return false;
    };
    let reduced = local.init.as_ref().is_some_and(|i| {
        matches!(&*i.expr, syn::Expr::MethodCall(m)
            if matches!(m.method.to_string().as_str(), "sum" | "product"))
    });
    let elem = match t {
        syn::Type::Array(a) => Some(&*a.elem),
        syn::Type::Path(p) => match p.path.segments.last().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(a)) if a.args.len() == 1 => {
                match a.args.first() {
                    Some(syn::GenericArgument::Type(t)) => Some(t),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    };
    integer(t) && reduced || elem.is_some_and(integer) && sequence_let(local)
}

/// A call that lends an argument by `&mut` (`g(&mut s, y)`).
fn lends_mut(e: &syn::Expr) -> bool {
    let args = match e {
        syn::Expr::Call(c) => &c.args,
        syn::Expr::MethodCall(m) => &m.args,
        _ => return false,
    };
    args.iter()
        .any(|a| matches!(a, syn::Expr::Reference(r) if r.mutability.is_some()))
}

impl Lowerer {
    pub(super) fn local(&mut self, local: &syn::Local, out: &mut Vec<Inst>) {
        if let Some(attr) = local
            .attrs
            .iter()
            .find(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
        {
            error(self, attr, "#[grad] cannot tell which `#[cfg]` alternative of a `let` is compiled: put the `#[cfg]` on whole functions instead");
            return;
        }
        // `let ys: Vec<f64> = xs.iter().map(..).collect();`, `xs.to_vec()`:
        // a local array and the loop that fills it.
        let zero = self.float_zero(local.span());
        // `let s0 = *s;` of an array taken by reference (`s: &mut [f64;
        // 2]`): its copy, as `s.clone()` is.
        if let Some(init) = &local.init {
            if let syn::Expr::Unary(u) = &*init.expr {
                if matches!(u.op, syn::UnOp::Deref(_)) && self.is_array_name(&u.expr) {
                    let array = &u.expr;
                    let mut copied = local.clone();
                    if let Some(init) = &mut copied.init {
                        *init.expr = syn::parse_quote_spanned!(init.expr.span()=> #array.clone());
                    }
                    return self.local(&copied, out);
                }
            }
        }
        let struct_copy = local.init.as_ref().is_some_and(|i| {
            self.is_struct_copy(&i.expr)
                || simple_binding(&local.pat)
                    .is_some_and(|(n, _)| self.facts.struct_elements.contains(&n.to_string()))
        });
        if let Some(stmts) = crate::desugar::iterators::collected(
            local,
            &|e| self.indexable(e),
            &zero,
            &self.internal,
        )
        .filter(|_| !struct_copy)
        {
            for s in &stmts {
                self.stmt(s, out);
            }
            return;
        }
        if self.tuple_let(local, out) {
            return;
        }
        if self.replaced_let(local, out) {
            return;
        }
        // `let _ = accumulate(&mut s, y);`: the call lends `s`, whose new
        // value counts; its value, dropped, is bound to a name of ours.
        if let (syn::Pat::Wild(_), Some(init)) = (&local.pat, &local.init) {
            if init.diverge.is_none() && lends_mut(&init.expr) {
                let (_, base) = self.internal.fresh_loop();
                let name = syn::Ident::new(&format!("{base}_dropped"), local.pat.span());
                let mut named = local.clone();
                named.pat = syn::parse_quote!(#name);
                return self.local(&named, out);
            }
        }
        if local.init.is_none() && simple_binding(&local.pat).is_none() {
            if let Some(parts) = super::tuples::deferred_parts(&local.pat, None) {
                for (ident, ty) in parts {
                    let ty = ty.map(|t| self.types.ty_of(&t)).unwrap_or(Ty::Unknown);
                    self.bind(ident.to_string(), Binding::Uninit(ty));
                }
                return;
            }
        }
        let (ident, annot) = match simple_binding(&local.pat) {
            Some(b) => b,
            None => return self.verbatim_let(local, out),
        };
        if integers_as_written(local, annot) {
            return self.verbatim_let(local, out);
        }
        let init = match &local.init {
            None => {
                let ty = annot.map(|t| self.types.ty_of(t)).unwrap_or(Ty::Unknown);
                self.bind(ident.to_string(), Binding::Uninit(ty));
                return;
            }
            Some(init) => init,
        };
        if let Some((else_token, _)) = &init.diverge {
            error(self, else_token, "#[grad] does not support `let ... else` yet: compute the value without a diverging branch");
            return;
        }
        if !self.facts.vec_changed.contains(&ident.to_string())
            && self.local_array(&ident, annot, &init.expr, out)
        {
            return;
        }
        // `let d = f(x, y);` of a closure returning a list: the list, as
        // the closure's body reads it with its arguments.
        if !self.facts.vec_changed.contains(&ident.to_string()) {
            let mut args = Vec::new();
            let scopes = self.scopes.clone();
            if let Some(list) = self.closure_array(&init.expr, &mut args) {
                let mut insts = args;
                if self.local_array(&ident, annot, &list, &mut insts) {
                    out.extend(insts);
                    return;
                }
            }
            self.scopes = scopes;
        }
        if self.typed_vector_call(&ident, annot, &init.expr, out) {
            return;
        }
        if self.lent_value_call(&ident, &init.expr, out) {
            return;
        }
        if self.kernel_vec_let(local, &ident, annot, &init.expr, out) {
            return;
        }
        // `let p = Point { .. };` that `desugar/local_structs.rs` left
        // whole: the user's struct, kept as written (a struct built for a
        // call is `Op::Construct`, and so is one built from another,
        // `Point { x: a, ..q }`, whose fields the macro cannot name).
        let mut built = &*init.expr;
        while let syn::Expr::Paren(p) = built {
            built = &p.expr;
        }
        if let syn::Expr::Struct(st) = built {
            if !self.receivers.contains(&ident.to_string()) && st.rest.is_none() {
                return self.verbatim_let(local, out);
            }
            let Some(built) = self.construct(st, out) else {
                return self.verbatim_let(local, out);
            };
            let value = self.name_result(&ident, built.ty, None, built.operand, local.span(), out);
            self.bind(ident.to_string(), Binding::Value(value));
            return;
        }
        // `let r = &x;` of a float the lowering follows, that
        // `desugar/refs.rs` left as written (`x` shadowed while `r` is
        // read): `r` is `x`'s value there, which no later `let x` changes.
        if let syn::Expr::Reference(r) = &*init.expr {
            if r.mutability.is_none() && annot.is_none() && self.is_float_local(&r.expr) {
                if let Some(l) = self.expr(&r.expr, out) {
                    let value = self.name_result(&ident, l.ty, None, l.operand, local.span(), out);
                    self.bind(ident.to_string(), Binding::Value(value));
                    return;
                }
            }
        }
        let annot_ty = annot.map(|t| self.types.ty_of(t));
        // Lower the initialiser aside: it is committed if it turns out to be
        // a scalar, and the `let` is kept verbatim otherwise.
        let mut insts = Vec::new();
        let errors_before = self.errors.is_some();
        let scopes_before = self.scopes.clone();
        let lowered = match self.expr(&init.expr, &mut insts) {
            Some(l) => l,
            None => return,
        };
        let stated_unknown = annot_ty == Some(Ty::Unknown);
        let ty = match annot_ty {
            Some(t) if t != Ty::Unknown => t,
            _ => lowered.ty.clone(),
        };
        // A value of a type the source does not state, computed by an
        // operation the macro looked into (a constant, a call, arithmetic):
        // modelled like any other, its type left to rustc. Only what the
        // macro cannot look into, or a variable changed in place later, is
        // kept as written.
        let looked_into = !self.kept_as_written(&lowered.operand, &insts);
        // A binding without `mut` cannot change in place: a method called
        // on it takes `&self` or `self` (`let h = g.posterior(x);
        // h.log_pdf(x)`).
        let mutable = matches!(&local.pat, syn::Pat::Ident(p) if p.mutability.is_some())
            || matches!(&local.pat, syn::Pat::Type(t) if matches!(&*t.pat, syn::Pat::Ident(p) if p.mutability.is_some()));
        let of_call =
            matches!(&lowered.operand, Operand::Value(v) if self.call_results.contains(v));
        // A call's result or a struct's field that struct writers may
        // change (`lower/struct_writers.rs`).
        let writable = self.writable_struct(&ident, annot, &lowered, stated_unknown)
            || self.constant_struct_copy(&ident, &init.expr);
        let lent =
            mutable && self.facts.lent.contains(&ident.to_string()) && !(stated_unknown && of_call);
        // Changed in place by what the lowering does not follow.
        let changed =
            mutable && self.facts.changed_in_place.contains(&ident.to_string()) && !writable;
        let modelled = looked_into && !changed && !lent;
        if matches!(ty, Ty::Unknown) && !modelled {
            if !errors_before && self.errors.is_some() {
                return;
            }
            // `let mut x = sq(x0);` lent to a writer: a `#[grad]` call's
            // result, kept as written for want of its type.
            if looked_into && of_call && lent {
                error(self, local, format!(
                    "#[grad] needs the type of `{ident}`, which is lent by `&mut` and holds a call's result: write its type, as in `let mut {ident}: f64 = ..;` or, for an array, `let mut {ident}: [f64; 3] = ..;` or `let mut {ident}: Vec<f64> = ..;`, or for a struct, `let mut {ident}: State = ..;`"
                ));
                return;
            }
            // Not a scalar: undo what the initialiser's branches bound.
            self.scopes = scopes_before;
            return self.verbatim_let(local, out);
        }
        // A call's result that a struct writer changes (`let mut s =
        // make(x0); s.step(dt);`, or `kick(&mut s, f);` with its type
        // stated): a struct held by value, as one built by a literal
        // (`lower/struct_writers.rs`), whose call goes through `_vjp`.
        let name = ident.to_string();
        // Or, its type stated, by assignments to its fields (`let mut b:
        // Body = Body::new(..); b.v -= ..;`, `field_assignment`).
        let writers_change = modelled
            && writable
            && mutable
            && (self.facts.changed_in_place.contains(&name)
                || self.facts.lent.contains(&name)
                || annot.is_some() && self.facts.fields_assigned.contains(&name));
        let ty = match writers_change {
            true => struct_writers::held_struct_ty(annot),
            false => ty,
        };
        let part = matches!(&lowered.operand, Operand::Value(v) if self.projected.contains(v));
        out.extend(insts);
        let written = (annot.is_some() || !local.attrs.is_empty()).then(|| {
            Box::new(Written {
                ty: annot.cloned(),
                attrs: local.attrs.clone(),
            })
        });
        let value = self.name_result(&ident, ty, written, lowered.operand, local.span(), out);
        // A struct of the user's by the source's word; not a `Vec` or an
        // array of floats (`let out: Vec<f64> = l.forward(&h);`, whose
        // `out.len()` is `Vec`'s).
        // So is a part of a struct stated a struct's (`let d: V = r.d;`):
        // its `d.abs()` is `V`'s, not a float's.
        let stated_array = annot.is_some_and(|t| self.types.array_ty(t).is_some());
        if (of_call || part) && stated_unknown && !stated_array {
            self.struct_results.insert(value);
        }
        if writers_change {
            self.vector_results.insert(value);
        }
        self.bind(ident.to_string(), Binding::Value(value));
    }

    /// Whether a lowered initialiser is code the macro did not look into:
    /// an expression kept as written, or a variable that is.
    pub(super) fn kept_as_written(&self, operand: &Operand, insts: &[Inst]) -> bool {
        let Operand::Value(v) = operand else {
            return false;
        };
        // A field or an element of a value the macro does not model
        // (`p.f1`, `data.ys[i]`) is read as a value like any other: a `let`
        // of it is the user's own copy of it.
        fn place(e: &syn::Expr) -> bool {
            match e {
                syn::Expr::Paren(p) => place(&p.expr),
                syn::Expr::Field(f) => place(&f.base),
                syn::Expr::Index(i) => place(&i.expr),
                syn::Expr::Path(_) => true,
                _ => false,
            }
        }
        (self.values[v.0].kind == ValueKind::Opaque && !self.pattern_bound.contains(v))
            || insts.iter().any(|i| {
                matches!(i, Inst::Def { dst, op: Op::Opaque { expr, .. }, .. }
                    if dst == v && !(matches!(expr, syn::Expr::Field(_) | syn::Expr::Index(_)) && place(expr)))
            })
    }

    /// Gives the user's name to the value of an initialiser: renames the
    /// last Wengert entry when it is the initialiser's own result, and adds
    /// a copy otherwise (`let y = x;`, `let y = 2.0;`).
    pub(super) fn name_result(
        &mut self,
        ident: &syn::Ident,
        ty: Ty,
        written: Option<Box<Written>>,
        operand: Operand,
        span: Span,
        out: &mut Vec<Inst>,
    ) -> ValueId {
        if let (
            Operand::Value(v),
            Some(Inst::Def {
                dst, written: w, ..
            }),
        ) = (&operand, out.last_mut())
        {
            if dst == v && self.values[v.0].name.is_none() {
                *w = written;
                let value = &mut self.values[v.0];
                value.name = Some(ident.to_string());
                value.span = ident.span();
                let known = ty.is_float() || ty.composite().is_some();
                if value.ty == Ty::FloatLit || known && value.ty == Ty::Unknown {
                    value.ty = ty;
                }
                return *v;
            }
        }
        let value = self.new_value(Some(ident.to_string()), ty, ValueKind::Def, ident.span());
        // A copy of what a call gave (`let k = if c { f(v) } else { g(v)
        // };`, `let x = d;`) is read in parts as it is.
        if matches!(&operand, Operand::Value(v) if self.call_results.contains(v)) {
            self.call_results.insert(value);
        }
        out.push(Inst::Def {
            dst: value,
            op: Op::Copy(operand),
            written,
            span,
        });
        value
    }

    /// A `let` the macro does not model: copied as written; the names it
    /// binds become opaque values.
    pub(super) fn verbatim_let(&mut self, local: &syn::Local, out: &mut Vec<Inst>) {
        if let Some(init) = &local.init {
            if let Some((else_token, _)) = &init.diverge {
                error(self, else_token, "#[grad] does not support `let ... else` yet: compute the value without a diverging branch");
                return;
            }
            self.check_opaque(&init.expr);
        }
        let reads = match &local.init {
            Some(init) => self.reads_of_expr(&init.expr),
            None => Reads::default(),
        };
        // What the initialiser may change, as a statement may (`let _u =
        // r.turn(w);`, a struct the macro models changed by a method):
        // from here on what the `let` left in it.
        let changed = match &local.init {
            Some(init) => self.mutated_opaque_locals(&init.expr),
            None => Vec::new(),
        };
        let (names, defs) = self.opaque_bindings(&local.pat);
        if reads
            .values()
            .iter()
            .any(|v| self.through_traits.contains(v))
        {
            self.through_traits.extend(defs.iter().copied());
        }
        // A closure its calls inline: the `let` stays for any other use
        // (a call in code kept as written), and goes where there is none
        // and a parameter has no type written (rustc could not infer it
        // from calls that are no longer there).
        let mut closure = false;
        if let (Some(init), [v], [name]) = (&local.init, defs.as_slice(), names.as_slice()) {
            if let syn::Expr::Closure(c) = &*init.expr {
                closure = true;
                self.record_closure_changes(*v, c);
                let typed = c.inputs.iter().all(|p| matches!(p, syn::Pat::Type(_)));
                if self.record_closure(*v, c)
                    && self.facts.only_called.contains(&name.to_string())
                    && !typed
                {
                    out.push(Inst::Verbatim {
                        tokens: TokenStream::new(),
                        kind: VerbatimKind::Stmt,
                        defs: vec![*v],
                        reads: Reads::default(),
                    });
                    self.bind(name.to_string(), Binding::Value(*v));
                    return;
                }
            }
        }
        // A closure whose calls were all inlined is unused where it stands;
        // it reads an element a loop bound by reference in Rust as the
        // float the macro binds (`|v: f64| (*y * v).sin()`).
        let allow = closure.then(|| quote::quote!(#[allow(unused_variables)]));
        let mut kept = local.clone();
        if let (true, Some(init)) = (closure, &mut kept.init) {
            *init.expr = self.floats_by_value(&init.expr);
            // A `move` closure only called by name, its calls inlined:
            // kept, it would move what the inlined calls read after it
            // (E0382 of a `Vec`); borrowing is the same where nothing
            // after changes what it reads (`desugar/move_captures.rs`
            // copied what the code after names).
            let only_called = names
                .first()
                .is_some_and(|n| self.facts.only_called.contains(&n.to_string()));
            if let (true, syn::Expr::Closure(c)) = (only_called, &mut *init.expr) {
                c.capture = None;
            }
        }
        out.push(Inst::Verbatim {
            tokens: quote::quote!(#allow #kept),
            kind: match &local.init {
                Some(init) => VerbatimKind::Let(Box::new(VerbatimLet {
                    pat: local.pat.to_token_stream(),
                    init: (*init.expr).clone(),
                })),
                None => VerbatimKind::Item,
            },
            defs: defs.iter().chain(&changed).copied().collect(),
            reads,
        });
        // `let pairs = [(0, 1), (1, 2)];`, `let idx: Vec<usize> = ..`: a
        // local sequence of something else than floats, whose elements
        // chains and loops read by index, as a parameter's.
        if let [v] = defs.as_slice() {
            if sequence_let(local) {
                self.owned_slices.insert(*v);
            }
        }
        for (n, v) in names.iter().zip(defs) {
            self.bind(n.to_string(), Binding::Value(v));
        }
    }
}

/// Whether a `let` binds one name to an array, slice or `Vec`, by its
/// type (`let p: [(usize, usize); 2] = ..`) or its initialiser (a list,
/// `[v; n]`, `vec![..]`).
fn sequence_let(local: &syn::Local) -> bool {
    let (pat, ty) = match &local.pat {
        syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
        other => (other, None),
    };
    if !matches!(pat, syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none()) {
        return false;
    }
    if ty.is_some_and(super::signature::is_sequence) {
        return true;
    }
    match local.init.as_ref().map(|i| &*i.expr) {
        Some(syn::Expr::Array(_) | syn::Expr::Repeat(_)) => true,
        Some(syn::Expr::Macro(m)) => m.mac.path.is_ident("vec"),
        _ => false,
    }
}

//! Refusals of a statement kept as written (`Inst::Verbatim`) that
//! active data enters: the message names what the statement does that
//! #[grad] does not follow (a pattern, an array it cannot type, a copy of a
//! `Vec` of structs, a reference, a local struct used otherwise, a loan to
//! a call that may keep it) and what to write instead.

use quote::ToTokens;

use super::*;

/// Reports the statement `verbatim` (an `Inst::Verbatim`), active data
/// from `name` entering it; `arrays` are the arrays reported already (once
/// each), `in_block` whether the statement is inside a block of its own.
pub(super) fn check(
    verbatim: &Inst,
    f: &Function,
    name: &str,
    arrays: &mut Vec<String>,
    in_block: bool,
    errors: &mut Option<syn::Error>,
) {
    let Inst::Verbatim {
        defs, tokens, kind, ..
    } = verbatim
    else {
        return;
    };
    let held: Vec<String> = defs
        .iter()
        .filter_map(|d| f.value(*d).name.as_ref())
        .map(|n| format!("`{n}`"))
        .collect();
    if let VerbatimKind::Binding = kind {
        // A `match` or `if let` pattern binding out of an
        // active scrutinee.
        let shown = crate::diag::show(tokens);
        combine(errors, syn::Error::new_spanned(tokens, format!(
            "#[grad] cannot differentiate through the pattern `{shown}`: it binds {} out of a value that depends on the function's active inputs; match on a value that does not (an integer, an enum of constants), or compute with float operations",
            held.join(", ")
        )));
        return;
    }
    if held.iter().all(|h| arrays.contains(h)) {
        return;
    }
    let pat = match kind {
        // Parsed as a `let` so that `v: [f64; 3]` is a pattern.
        VerbatimKind::Let(l) => {
            let pat = &l.pat;
            match syn::parse2::<syn::Stmt>(quote::quote!(let #pat = 0;)) {
                Ok(syn::Stmt::Local(local)) => Some(local.pat),
                _ => None,
            }
        }
        _ => None,
    };
    let ident = match &pat {
        Some(syn::Pat::Ident(i)) => Some(&i.ident),
        Some(syn::Pat::Type(t)) => match &*t.pat {
            syn::Pat::Ident(i) => Some(&i.ident),
            _ => None,
        },
        _ => None,
    };
    let destructures = pat.is_some() && ident.is_none();
    if let (Some(ident), VerbatimKind::Let(l)) = (ident, kind) {
        if let Some(parts) = crate::lower::array_init_parts(&l.init) {
            arrays.push(format!("`{ident}`"));
            let empty = matches!(parts, crate::lower::ArrayParts::Empty(_));
            let typed = matches!(&pat, Some(syn::Pat::Type(_)));
            let rows = pat
                .as_ref()
                .is_some_and(|p| crate::desugar::struct_vecs::rows_let(p, &l.init));
            // `let m: [[f64; 2]; 2] = [[a, b], [b, a]];`
            let nested_ty = matches!(&pat, Some(syn::Pat::Type(t))
                if matches!(&*t.ty, syn::Type::Array(a) if matches!(&*a.elem, syn::Type::Array(_))));
            let nested_list = matches!(&l.init, syn::Expr::Array(a)
                if matches!(a.elems.first(), Some(syn::Expr::Array(_) | syn::Expr::Repeat(_))))
                || matches!(&l.init, syn::Expr::Repeat(r) if matches!(&*r.expr, syn::Expr::Array(_) | syn::Expr::Repeat(_)));
            let msg = if rows && !in_block {
                rows_used_whole(&ident.to_string(), "its rows depend", name)
            } else if (nested_ty || nested_list) && !in_block {
                nested_message(&format!("`{ident}`"), name)
            } else if typed && !in_block {
                format!("#[grad] keeps `{ident}` as written: something changes it in a way #[grad] does not follow (a method such as `pop`, `remove`, `sort` or `clear`, or a loan by `&mut`), and its elements depend on `{name}` and reach the result; change it only through index stores (`{ident}[i] = ..`) and `push`, or read what you need from it into float variables")
            } else if crate::desugar::struct_vecs::structs_listed(&l.init).is_some() {
                // `vec![P { .. }, ..]` that
                // `desugar/struct_vecs.rs` left whole.
                format!("#[grad] follows a `Vec` of structs whose fields are numbers or flags (a field holding a `Vec`, an array or a struct keeps it as written) (`vec![P {{ .. }}, ..]`, `src.map(|i| P {{ .. }}).collect()`, or filled by `push`) through its elements: their fields read and assigned (`{ident}[i].x`), an element passed whole or its method called (`f(&{ident}[i])`, `{ident}[i].step(dt);`, `kick(&mut {ident}[i], f);`), `{ident}.len()`, a copy (`{ident}.clone()`), and loops over it (`for p in &mut {ident}`, `for (p, y) in {ident}.iter().zip(ys)`, `for (i, p) in {ident}[1..].iter().enumerate().filter(|(_, p)| p.on)`, `for w in {ident}.windows(2)` reading `w[0]`, `w[1]`) and chains (`{ident}.iter().map(|p| ..)`) that do the same with `p`; here `{ident}` is used otherwise (passed whole, another method of `Vec`'s, a macro, an element lent on by `&mut` otherwise), and its elements depend on `{name}` and reach the result: use it only in those ways")
            } else if !in_block && !empty && ident.to_string().starts_with("__") {
                // An array the macro bound for the user (a
                // field's new value in a struct writer).
                format!("#[grad] cannot tell the float type of this array's elements from what it is built of (a `const` or a struct's field has a type #[grad] does not read); its elements depend on `{name}` and reach the result: bind the array with its type first, as in `let a: [f64; 3] = [..];`, and assign `a`")
            } else if !in_block && !empty {
                format!("#[grad] cannot tell the float type of `{ident}`'s elements from its initialiser (a `const` or a struct's field has a type #[grad] does not read); its elements depend on `{name}` and reach the result: write the type, as in `let {ident}: [f64; 3] = ..` or `let {ident}: Vec<f64> = ..`")
            } else if !in_block {
                format!("#[grad] cannot tell from its pushes that `{ident}` holds floats (no pushed value is a float literal, a cast to a float type, a float method or a float parameter); its elements depend on `{name}` and reach the result: write its type, as in `let mut {ident}: Vec<f64> = Vec::new();`")
            } else {
                format!("#[grad] models a float array declared at the top level of the function body, of a loop body or of a branch arm, and `{ident}` is declared in a block; its elements depend on `{name}` and reach the result: declare `{ident}` before the block and assign its elements there")
            };
            combine(errors, syn::Error::new_spanned(tokens, msg));
            return;
        }
    }
    // `let mut bs = self.bodies.clone();` of a `Vec` of
    // structs (`bs[i].kick(..)` reads its elements so,
    // `lower/float_vecs.rs struct_elements`).
    if let (Some(ident), VerbatimKind::Let(l)) = (ident, kind) {
        if let Some(part) = copied_part(&l.init) {
            arrays.push(format!("`{ident}`"));
            let shown = crate::diag::show(&part.to_token_stream());
            combine(errors, syn::Error::new_spanned(&l.init, format!(
                "#[grad] does not follow a copy of `{shown}` whose elements are structs (`{ident}[i].x`, `{ident}[i].step(..)`): a `Vec` of structs is followed where the function builds it from struct literals (`vec![P {{ .. }}, ..]`, `push(P {{ .. }})`), and its elements here depend on `{name}` and reach the result; keep such state as one float `Vec` per field (`xs: Vec<f64>, vs: Vec<f64>`), changed as a copy assigned whole (`let mut xs = self.xs.clone(); xs[i] += ..; self.xs = xs;`), or read the fields in place (`{shown}[i].x`)"
            )));
            return;
        }
    }
    // `let first = &net.layers[0];`: a reference to a part,
    // followed only where it is passed straight to a call.
    if let (Some(ident), VerbatimKind::Let(l)) = (ident, kind) {
        if let syn::Expr::Reference(r) = &l.init {
            if matches!(&*r.expr, syn::Expr::Field(_) | syn::Expr::Index(_)) {
                let shown = crate::diag::show(&r.expr.to_token_stream());
                combine(errors, syn::Error::new_spanned(&l.init, format!(
                    "#[grad] reads `{ident}`, a reference to `{shown}`, as that place where nothing changes which place it is while `{ident}` is used; here an index it reads changes, or `{ident}` is made to point elsewhere, or its root is bound again: copy what you need while the index holds (`let {ident} = {shown};` of a float, `{shown}.x` of a struct's field), or write the place itself where you use it"
                )));
                return;
            }
        }
    }
    // `let p = Point { x: a, y: b };` used whole.
    if let (Some(ident), VerbatimKind::Let(l)) = (ident, kind) {
        if let syn::Expr::Struct(s) = &l.init {
            let ty = crate::diag::show(&s.path.to_token_stream());
            combine(errors, syn::Error::new_spanned(&l.init, format!(
                "#[grad] follows a local struct built from values that depend on `{name}` through its fields (`{ident}.x`, `{ident}.x = ..`), passed whole to a call or a method by value or by `&` (`f(&{ident})`, `{ident}.norm()`), copied (`let q = {ident};`), replaced whole (`{ident} = step(&{ident});`) and returned; here `{ident}` is used otherwise (lent by `&mut`, a method called on it after `&&` or `||` while it is `mut`, compared, inside a macro, bound by a pattern): compute the new struct and assign it, `{ident} = nudged(&{ident});`, or read its fields (`{ident}.x`) where the `{ty}` is used"
            )));
            return;
        }
    }
    // `store(&c, a * b);`: a value lent by `&` to a call
    // kept as written, which may keep what it is given in
    // it (a `Cell`, `lower/opaque.rs shared_loans`).
    if let Some((call, lent)) = lent_to_a_call(tokens, &held) {
        combine(errors, syn::Error::new_spanned(tokens, format!(
            "#[grad] cannot follow `{call}(..)` here: what it is given depends on `{name}`, and it may keep it in {lent}, lent to it by `&` (through a `Cell` or a `RefCell` inside), where #[grad] cannot follow a value: return the value from `{call}` (with `#[grad]` on it) and keep it in a variable, or in a struct's float field"
        )));
        return;
    }
    let construct = match kind {
        VerbatimKind::Let(l) => construct(&l.init),
        _ => syn::parse2::<syn::Stmt>(tokens.clone())
            .ok()
            .and_then(|s| match s {
                syn::Stmt::Expr(e, _) => construct(&e),
                // `let_sq!(t, x);`, which binds `t`.
                syn::Stmt::Macro(m) => construct(&syn::Expr::Macro(syn::ExprMacro {
                    attrs: Vec::new(),
                    mac: m.mac,
                })),
                _ => None,
            }),
    };
    if let Some((at, what)) = construct {
        // `let mut m = [[0.0; 2]; 2];` filled in a loop.
        let nested = nested_locals(f);
        let nested_held = held.iter().find(|h| nested.contains(*h));
        let named = nested_held.and_then(|h| Some((h, named_row_length(f, h)?)));
        // `while let Some(v) = st.pop()` of a `Vec` filled by `push`.
        let vec_changed = held
            .iter()
            .find_map(|h| Some((h, vec_method_on(f, h.trim_matches('`'))?)));
        let msg = match (nested_held, named, vec_changed) {
            (_, _, Some((h, method))) if matches!(what, Construct::Loop) => {
                format!(
                    "#[grad] cannot follow {h} through this loop: {h} is changed by `{method}`, which #[grad] does not follow on a `Vec` (it follows `push`, index stores and changes of the whole `Vec`), and its elements come to depend on `{name}` and reach the result; read {h} by index instead (a stack popped to empty: `for k in (0..{n}.len()).rev() {{ let v = {n}[k]; .. }}`), and leave it as it is",
                    n = h.trim_matches('`')
                )
            }
            (_, Some((h, n)), _) => {
                format!(
                    "#[grad] follows a local `Vec` of rows as one float `Vec` per position, which needs the rows' length written as a literal, and {h}'s rows have the length `{n}`, a name it cannot read (a `const`, or a const parameter); its elements come to depend on `{name}` and reach the result: write the length there as a literal (`[f64; 3]`, `[0.0; 3]`), keeping `{n}` elsewhere"
                )
            }
            (Some(h), None, _) => nested_message(h, name),
            (None, _, _) => parameter_call(&what, f, name)
                .unwrap_or_else(|| construct_message(what, name, &held)),
        };
        combine(errors, syn::Error::new_spanned(at, msg));
        return;
    }
    // `acc.add(a * a);`: a method without #[grad] may keep
    // what it is given in the struct.
    if let Some(msg) = method_kept_as_written(tokens, name) {
        combine(errors, syn::Error::new_spanned(tokens, msg));
        return;
    }
    let msg = if held == ["`self`"] {
        // `fn damp(&mut self, c: f64) -> f64 { self.v *= 1.0
        // - c; self.v }`: changed in a method that returns a
        // value, not a struct writer.
        format!(
            "#[grad] cannot follow `self` here: it is changed with values computed from `{name}`, and the result depends on it; #[grad] differentiates a method changing `self` where it returns nothing (a struct writer, `fn damp(&mut self, c: f64)`): split this one into such a writer and a `&self` method returning the value, called after it, or take `&self` and return the new value (`fn damped(&self, c: f64) -> Self`)"
        )
    } else if destructures {
        format!(
            "#[grad] cannot differentiate through this destructuring `let`: {} depend on `{name}` and reach the result; bind each value with a `let` of its own",
            held.join(", ")
        )
    } else {
        format!(
            "#[grad] cannot differentiate through {}: {} a value of a type #[grad] does not model, computed from `{name}`, and the result depends on it; keep active values in `f64`/`f32` variables, or in float arrays declared at the top level of the function body, of a loop body or of a branch arm (`vec![v; n]`, `[v; N]`, a list, or a `Vec` filled by `push` whose type is written, as in `let mut v: Vec<f64> = Vec::new();`)",
            held.join(", "),
            if held.len() > 1 { "each holds" } else { "it holds" }
        )
    };
    combine(errors, syn::Error::new_spanned(tokens, msg));
}

/// `f` of a statement `f(.., &c, ..);` that lends by `&` one of `held`
/// (the names it changes), and that name.
fn lent_to_a_call(tokens: &proc_macro2::TokenStream, held: &[String]) -> Option<(String, String)> {
    let Ok(syn::Stmt::Expr(syn::Expr::Call(c), _)) = syn::parse2::<syn::Stmt>(tokens.clone())
    else {
        return None;
    };
    let callee = crate::diag::show(&c.func.to_token_stream());
    c.args.iter().find_map(|a| match a {
        syn::Expr::Reference(r) if r.mutability.is_none() => {
            let lent = format!("`{}`", crate::diag::show(&r.expr.to_token_stream()));
            held.contains(&lent).then(|| (callee.clone(), lent))
        }
        _ => None,
    })
}

/// `p` of `p.clone()` or `p.to_vec()` where `p` is a struct's part
/// (`self.bodies`, `w.layers[k].units`): a copy kept as written.
fn copied_part(init: &syn::Expr) -> Option<&syn::Expr> {
    match init {
        syn::Expr::MethodCall(m)
            if m.args.is_empty() && (m.method == "clone" || m.method == "to_vec") =>
        {
            matches!(&*m.receiver, syn::Expr::Field(_)).then_some(&*m.receiver)
        }
        _ => None,
    }
}

/// For a local array `h` (as "`name`") declared with rows whose length is
/// a name, `Vec<[f64; DIM]>` or `vec![[0.0; DIM]; n]`: that name.
fn named_row_length(f: &Function, h: &str) -> Option<String> {
    use syn::visit::Visit;
    #[derive(Default)]
    struct Named {
        /// The name found.
        length: Option<String>,
        /// Whether inside a `vec![..]`.
        in_vec: bool,
        /// Whether a `vec!` inside one (a `Vec` of `Vec`s, no rows).
        vec_of_vecs: bool,
    }
    impl<'a> Visit<'a> for Named {
        // The innermost array's length is the rows' (an outer one counts
        // the rows: `[[f64; DIM]; 4]`, `vec![[0.0; DIM]; n]`).
        fn visit_type_array(&mut self, a: &'a syn::TypeArray) {
            match (&*a.elem, &a.len) {
                (syn::Type::Array(_), _) => {}
                (_, syn::Expr::Path(p)) => {
                    self.length
                        .get_or_insert_with(|| crate::diag::show(&p.to_token_stream()));
                }
                _ => {}
            }
            syn::visit::visit_type_array(self, a);
        }
        fn visit_expr_repeat(&mut self, r: &'a syn::ExprRepeat) {
            match (&*r.expr, &*r.len) {
                (syn::Expr::Repeat(_) | syn::Expr::Array(_), _) => {}
                (_, syn::Expr::Path(p)) => {
                    self.length
                        .get_or_insert_with(|| crate::diag::show(&p.to_token_stream()));
                }
                _ => {}
            }
            syn::visit::visit_expr_repeat(self, r);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            // `vec![[0.0; DIM]; n]`: its row; `vec![vec![0.0; n]; n]` has
            // none.
            if self.in_vec {
                self.vec_of_vecs = true;
                return;
            }
            self.in_vec = true;
            let mut m = m.clone();
            crate::desugar::vec_items(&mut m, |e| self.visit_expr(e));
            self.in_vec = false;
        }
    }
    let mut found = None;
    f.body.walk(&mut |inst| {
        if let Inst::Verbatim {
            kind: VerbatimKind::Let(l),
            defs,
            ..
        } = inst
        {
            let named = defs
                .iter()
                .filter_map(|d| f.value(*d).name.as_ref())
                .any(|n| format!("`{n}`") == h);
            if named && found.is_none() {
                let pat = &l.pat;
                let mut v = Named::default();
                if let Ok(syn::Stmt::Local(local)) =
                    syn::parse2::<syn::Stmt>(quote::quote!(let #pat = 0;))
                {
                    v.visit_pat(&local.pat);
                }
                v.visit_expr(&l.init);
                found = v.length.filter(|_| !v.vec_of_vecs);
            }
        }
    });
    found
}

/// The locals kept as written that a `let` binds to a nested array of
/// floats (`[[0.0; 2]; 2]`, `vec![vec![0.0; n]; m]`, `[[a, b], [c, d]]`),
/// each as `` `name` ``.
fn nested_locals(f: &Function) -> Vec<String> {
    fn float_array(e: &syn::Expr, depth: usize) -> bool {
        let inner = |e: &syn::Expr| {
            if depth == 0 {
                matches!(
                    e,
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Float(_),
                        ..
                    })
                ) || !matches!(
                    e,
                    syn::Expr::Array(_)
                        | syn::Expr::Repeat(_)
                        | syn::Expr::Macro(_)
                        | syn::Expr::Lit(_)
                )
            } else {
                float_array(e, depth - 1)
            }
        };
        match e {
            syn::Expr::Array(a) => !a.elems.is_empty() && a.elems.iter().all(inner),
            syn::Expr::Repeat(r) => inner(&r.expr),
            syn::Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                use syn::parse::Parser;
                let repeat = |input: syn::parse::ParseStream| {
                    let v: syn::Expr = input.parse()?;
                    let _: syn::Token![;] = input.parse()?;
                    let _: syn::Expr = input.parse()?;
                    Ok(v)
                };
                let list =
                    syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
                match repeat.parse2(m.mac.tokens.clone()) {
                    Ok(v) => inner(&v),
                    Err(_) => list
                        .parse2(m.mac.tokens.clone())
                        .is_ok_and(|items| !items.is_empty() && items.iter().all(inner)),
                }
            }
            _ => false,
        }
    }
    let mut out = Vec::new();
    f.body.walk(&mut |inst| {
        if let Inst::Verbatim {
            kind: VerbatimKind::Let(l),
            defs,
            ..
        } = inst
        {
            if float_array(&l.init, 1) {
                out.extend(
                    defs.iter()
                        .filter_map(|d| f.value(*d).name.as_ref())
                        .map(|n| format!("`{n}`")),
                );
            }
        }
    });
    out
}

/// The first method of `Vec`'s that changes it otherwise than `push`
/// (`pop`, `remove`, `truncate`, ..., `rules::changes_a_vec`) called on
/// the local `name` in code the function keeps as written.
fn vec_method_on(f: &Function, name: &str) -> Option<String> {
    fn scan(tokens: proc_macro2::TokenStream, name: &str) -> Option<String> {
        use proc_macro2::TokenTree as T;
        let tokens: Vec<T> = tokens.into_iter().collect();
        for (k, t) in tokens.iter().enumerate() {
            if let T::Group(g) = t {
                if let Some(m) = scan(g.stream(), name) {
                    return Some(m);
                }
            }
            let called = match (t, tokens.get(k + 1), tokens.get(k + 2), tokens.get(k + 3)) {
                (T::Ident(n), Some(T::Punct(p)), Some(T::Ident(m)), Some(T::Group(_))) => {
                    (n == name && p.as_char() == '.' && crate::rules::changes_a_vec(m))
                        .then(|| m.to_string())
                }
                _ => None,
            };
            if called.is_some() {
                return called;
            }
        }
        None
    }
    let mut found = None;
    f.body.walk(&mut |inst| {
        if found.is_some() {
            return;
        }
        found = match inst {
            Inst::Verbatim { tokens, .. } => scan(tokens.clone(), name),
            Inst::Def {
                op: Op::Opaque { expr, .. },
                ..
            } => scan(expr.to_token_stream(), name),
            // `while let Some(v) = st.pop()`, lowered as a loop taking
            // `st.pop()` first.
            Inst::Def {
                op:
                    Op::Method {
                        name: method,
                        recv: Operand::Value(v),
                        ..
                    },
                ..
            } if crate::rules::changes_a_vec(method)
                && f.value(*v).name.as_deref() == Some(name) =>
            {
                Some(method.to_string())
            }
            _ => None,
        };
    });
    found
}

//! Refusals: code kept as written (an opaque expression, a verbatim
//! statement) has no derivative rule. Where it is active
//! (`analysis/activity.rs`), the derivative would be lost, so it is refused,
//! once, at the place where active data enters it.

use quote::ToTokens;
use syn::visit::Visit;

use crate::analysis::activity::Activity;
use crate::diag::combine;
use crate::ir::*;

/// Errors where active data flows through code the macro cannot
/// differentiate.
pub fn check_function(f: &Function, a: &Activity, errors: &mut Option<syn::Error>) {
    check(&f.body, f, a, errors, &mut Vec::new(), false);
    changed_built_structs(f, a, errors);
}

/// A struct built for a method (`desugar/local_structs.rs`), whose fields
/// are read back from what it was built from where a derivative passes
/// (`Op::Field`): code kept as written that may change it (a method
/// without `#[grad]`, `s.damp(k);`) is refused where its fields carry a
/// derivative that reaches the result.
fn changed_built_structs(f: &Function, a: &Activity, errors: &mut Option<syn::Error>) {
    let mut read_back = std::collections::HashSet::new();
    f.body.walk(&mut |inst| {
        if let Inst::Def {
            dst,
            op: Op::Field { base, .. },
            ..
        } = inst
        {
            if a.is_active(*dst) {
                read_back.insert(*base);
            }
        }
    });
    f.body.walk(&mut |inst| {
        let (reads, at) = match inst {
            Inst::Verbatim { reads, tokens, .. } => (reads, tokens.clone()),
            Inst::Def {
                op: Op::Opaque { reads, expr },
                ..
            } => (reads, quote::ToTokens::to_token_stream(expr)),
            _ => return,
        };
        // The method called on the struct itself (what else reads it,
        // `t.w.len()`, only reads).
        let call = syn::parse2::<syn::Stmt>(at.clone())
            .ok()
            .and_then(|s| match s {
                syn::Stmt::Expr(syn::Expr::MethodCall(m), _) => Some(m),
                _ => None,
            })
            .or_else(|| match syn::parse2::<syn::Expr>(at.clone()) {
                Ok(syn::Expr::MethodCall(m)) => Some(m),
                _ => None,
            });
        let Some(call) = call else { return };
        let receiver = match &*call.receiver {
            syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let changed = reads.0.iter().any(|(name, v)| {
            Some(name) == receiver.as_ref() && read_back.contains(v) && a.is_varied(*v)
        });
        if changed {
            let method = call.method.to_string();
            combine(
                errors,
                syn::Error::new_spanned(at, active_struct_method(&method)),
            );
        }
    });
}

/// Whether active data enters here from a modelled value (rather than
/// through an opaque variable, which is refused where it was made).
fn enters_from_model(reads: &Reads, f: &Function, a: &Activity) -> Option<String> {
    reads
        .0
        .iter()
        .find(|(_, v)| a.is_varied(*v) && f.value(*v).kind != ValueKind::Opaque)
        .map(|(n, _)| n.clone())
}

/// `arrays`: the float arrays refused where they are declared; what they
/// then hold is not reported again. `in_block`: whether `block` is a bare
/// block, where arrays are not modelled (elsewhere, an array is refused
/// for its element type).
fn check(
    block: &Block,
    f: &Function,
    a: &Activity,
    errors: &mut Option<syn::Error>,
    arrays: &mut Vec<String>,
    in_block: bool,
) {
    for inst in &block.insts {
        match inst {
            Inst::Def {
                dst,
                op: Op::Opaque { expr, reads },
                ..
            } if a.is_active(*dst) => {
                if let Some(name) = enters_from_model(reads, f, a) {
                    let (at, msg) = opaque_message(expr, &name);
                    let msg = construct(expr)
                        .and_then(|(_, what)| parameter_call(&what, f, &name))
                        .unwrap_or(msg);
                    combine(errors, syn::Error::new_spanned(at, msg));
                }
            }
            Inst::Verbatim {
                defs,
                reads,
                tokens,
                kind,
            } if defs.iter().any(|d| a.is_active(*d)) => {
                if let Some(name) = enters_from_model(reads, f, a) {
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
                        continue;
                    }
                    if held.iter().all(|h| arrays.contains(h)) {
                        continue;
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
                                rows_used_whole(&ident.to_string(), "its rows depend", &name)
                            } else if (nested_ty || nested_list) && !in_block {
                                nested_message(&format!("`{ident}`"), &name)
                            } else if typed && !in_block {
                                format!("#[grad] keeps `{ident}` as written: something changes it in a way #[grad] does not follow (a method such as `pop`, `remove`, `sort` or `clear`, or a loan by `&mut`), and its elements depend on `{name}` and reach the result; change it only through index stores (`{ident}[i] = ..`) and `push`, or read what you need from it into float variables")
                            } else if crate::desugar::struct_vecs::structs_listed(&l.init).is_some()
                            {
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
                            continue;
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
                            continue;
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
                                continue;
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
                            continue;
                        }
                    }
                    // `store(&c, a * b);`: a value lent by `&` to a call
                    // kept as written, which may keep what it is given in
                    // it (a `Cell`, `lower/opaque.rs shared_loans`).
                    if let Some((call, lent)) = lent_to_a_call(tokens, &held) {
                        combine(errors, syn::Error::new_spanned(tokens, format!(
                            "#[grad] cannot follow `{call}(..)` here: what it is given depends on `{name}`, and it may keep it in {lent}, lent to it by `&` (through a `Cell` or a `RefCell` inside), where #[grad] cannot follow a value: return the value from `{call}` (with `#[grad]` on it) and keep it in a variable, or in a struct's float field"
                        )));
                        continue;
                    }
                    let construct = match kind {
                        VerbatimKind::Let(l) => construct(&l.init),
                        _ => syn::parse2::<syn::Stmt>(tokens.clone())
                            .ok()
                            .and_then(|s| match s {
                                syn::Stmt::Expr(e, _) => construct(&e),
                                // `let_sq!(t, x);`, which binds `t`.
                                syn::Stmt::Macro(m) => {
                                    construct(&syn::Expr::Macro(syn::ExprMacro {
                                        attrs: Vec::new(),
                                        mac: m.mac,
                                    }))
                                }
                                _ => None,
                            }),
                    };
                    if let Some((at, what)) = construct {
                        // `let mut m = [[0.0; 2]; 2];` filled in a loop.
                        let nested = nested_locals(f);
                        let nested_held = held.iter().find(|h| nested.contains(*h));
                        let named = nested_held.and_then(|h| Some((h, named_row_length(f, h)?)));
                        let msg = match (nested_held, named) {
                            (_, Some((h, n))) => {
                                format!(
                                    "#[grad] follows a local `Vec` of rows as one float `Vec` per position, which needs the rows' length written as a literal, and {h}'s rows have the length `{n}`, a name it cannot read (a `const`, or a const parameter); its elements come to depend on `{name}` and reach the result: write the length there as a literal (`[f64; 3]`, `[0.0; 3]`), keeping `{n}` elsewhere"
                                )
                            }
                            (Some(h), None) => nested_message(h, &name),
                            (None, _) => parameter_call(&what, f, &name)
                                .unwrap_or_else(|| construct_message(what, &name, &held)),
                        };
                        combine(errors, syn::Error::new_spanned(at, msg));
                        continue;
                    }
                    // `acc.add(a * a);`: a method without #[grad] may keep
                    // what it is given in the struct.
                    if let Some(msg) = method_kept_as_written(tokens, &name) {
                        combine(errors, syn::Error::new_spanned(tokens, msg));
                        continue;
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
            }
            Inst::Scope(b) => check(b, f, a, errors, arrays, true),
            // A branch's arms, a loop's condition and body.
            region => region
                .blocks()
                .into_iter()
                .for_each(|b| check(b, f, a, errors, arrays, false)),
        }
    }
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

/// What an expression kept as written is, and where to point, for the
/// error when active data flows through it.
fn opaque_message(expr: &syn::Expr, name: &str) -> (proc_macro2::TokenStream, String) {
    // `r = &y;` of `let mut r = &x;`: a reference made to point
    // elsewhere (`desugar/refs.rs` reads a reference as its variable only
    // where it always points at the same one).
    if let syn::Expr::Reference(r) = expr {
        if let syn::Expr::Path(p) = &*r.expr {
            if let Some(target) = p.path.get_ident() {
                return (
                    expr.to_token_stream(),
                    format!("#[grad] follows a reference to a variable (`&{target}`) as that variable, where it points at the same one while it is used; this one is made to point elsewhere, and its value depends on `{name}`: keep the value instead of a reference, as in `let mut r = x; .. r = {target};`, reading `r` where you read `*r`"),
                );
            }
        }
    }
    // `&net.layers[0]`, `&points[i]`: a part of a struct or nested array by
    // reference (a call's argument, mostly).
    if let syn::Expr::Reference(r) = expr {
        if matches!(&*r.expr, syn::Expr::Field(_) | syn::Expr::Index(_)) {
            let shown = crate::diag::show(&r.expr.to_token_stream());
            return (
                expr.to_token_stream(),
                format!("#[grad] follows `&{shown}` only as a call's argument (`f(&{shown}, x)`); elsewhere, read the part's fields where you need them (`{shown}.field`), or pass a `Copy` part by value (`{shown}`)"),
            );
        }
    }
    // `o.inner.energy()`: a method without arguments that carry a
    // derivative, on a part of a differentiated struct, kept as written
    // (`lower/methods.rs`: the part may be a `String`).
    if let syn::Expr::MethodCall(m) = expr {
        if matches!(&*m.receiver, syn::Expr::Field(_) | syn::Expr::Index(_)) {
            let part = crate::diag::show(&m.receiver.to_token_stream());
            let method = &m.method;
            return (
                expr.to_token_stream(),
                format!("#[grad] cannot differentiate `{part}.{method}(..)` called on a part of a struct that depends on `{name}`: if `{method}` is a method with #[grad], call it by its path, as in `Type::{method}(&{part}, ..)`; otherwise compute the value with float operations"),
            );
        }
    }
    // `p.x` of a `p` #[grad] does not follow: an element of a `Vec` it
    // keeps as written (`for p in &ps` where `ps.push(P::new(..))`), or
    // what a call it does not see into returned.
    if let syn::Expr::Field(f) = expr {
        if let (syn::Expr::Path(p), syn::Member::Named(field)) = (&*f.base, &f.member) {
            if let Some(base) = p.path.get_ident() {
                return (
                    expr.to_token_stream(),
                    format!("#[grad] cannot read `{base}.{field}` here: `{base}` holds a struct that #[grad] does not follow, and the result depends on it. It follows a struct built by a literal (`P {{ x: .., y: .. }}`) or returned by a #[grad] function, bound by `let`, a part of a parameter borrowed (`let p = &self.pos;`, not a copy `self.pos.clone()`), and a `Vec` of structs whose every element is a struct literal written out (`vec![P {{ .. }}, ..]`, `ps.push(P {{ x: .., y: .. }})`, not `ps.push(P::new(..))`)"),
                );
            }
        }
    }
    match construct(expr) {
        Some((at, what)) => (at, construct_message(what, name, &[])),
        None => (
            expr.to_token_stream(),
            format!(
                "#[grad] cannot differentiate through this expression: its result depends on `{name}`, and #[grad] follows derivatives only through float arithmetic, float methods and its runtime functions; rewrite it with those"
            ),
        ),
    }
}

/// The constructs whose derivative #[grad] cannot take yet.
#[derive(Clone)]
enum Construct {
    Branch(&'static str),
    Loop,
    Closure,
    /// A method chain given a closure (`xs.windows(4).step_by(2).map(..)`),
    /// shown as its methods.
    Chain(String),
    Macro(String),
    /// A call, with the callee's name when it is a plain name (a local
    /// closure or function value, or a function).
    Call(Option<String>),
}

/// The first construct in `expr` that hides a derivative, with the tokens
/// to point at.
fn construct(expr: &syn::Expr) -> Option<(proc_macro2::TokenStream, Construct)> {
    struct Find(Option<(proc_macro2::TokenStream, Construct)>);
    impl<'a> Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            if self.0.is_some() {
                return;
            }
            use syn::Expr as E;
            self.0 = match e {
                E::If(x) if matches!(*x.cond, E::Let(_)) => {
                    Some((x.if_token.to_token_stream(), Construct::Branch("if let")))
                }
                E::If(x) => Some((x.if_token.to_token_stream(), Construct::Branch("if"))),
                E::Match(x) => Some((x.match_token.to_token_stream(), Construct::Branch("match"))),
                E::ForLoop(x) => Some((x.for_token.to_token_stream(), Construct::Loop)),
                E::While(x) => Some((x.while_token.to_token_stream(), Construct::Loop)),
                E::Loop(x) => Some((x.loop_token.to_token_stream(), Construct::Loop)),
                E::MethodCall(m) if m.args.iter().any(|a| matches!(a, E::Closure(_))) => {
                    let mut methods = Vec::new();
                    let mut at: &E = e;
                    while let E::MethodCall(c) = at {
                        methods.push(format!(".{}(..)", c.method));
                        at = &c.receiver;
                    }
                    methods.reverse();
                    Some((
                        m.method.to_token_stream(),
                        Construct::Chain(methods.concat()),
                    ))
                }
                E::Closure(x) => Some((x.or1_token.to_token_stream(), Construct::Closure)),
                E::Macro(x) => Some((
                    x.to_token_stream(),
                    Construct::Macro(
                        x.mac
                            .path
                            .segments
                            .last()
                            .map(|s| s.ident.to_string())
                            .unwrap_or_default(),
                    ),
                )),
                E::Call(x) => Some((
                    x.func.to_token_stream(),
                    Construct::Call(match &*x.func {
                        E::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                        _ => None,
                    }),
                )),
                _ => None,
            };
            if self.0.is_none() {
                syn::visit::visit_expr(self, e);
            }
        }
    }
    let mut find = Find(None);
    find.visit_expr(expr);
    find.0
}

/// The message for a call of a function the function is given as a
/// parameter (`f: &F` with `F: Fn(..)`, `f: fn(f64) -> f64`), whose body
/// #[grad] cannot see; `None` for another construct.
fn parameter_call(what: &Construct, f: &Function, name: &str) -> Option<String> {
    let Construct::Call(Some(callee)) = what else {
        return None;
    };
    f.params.iter().any(|p| p.ident == callee).then(|| format!(
        "#[grad] cannot differentiate through `{callee}(..)`: `{callee}` is a function given as a parameter, whose body #[grad] does not see, and what it is given depends on `{name}`; call a function with #[grad] by its name here (`rhs(y)`), or write one function per right-hand side"
    ))
}

fn construct_message(what: Construct, name: &str, held: &[String]) -> String {
    match what {
        Construct::Loop if !held.is_empty() => format!(
            "#[grad] cannot follow {} through this loop: the loop is kept as written because {} not a variable #[grad] models (it was bound by a pattern or an initializer #[grad] does not look into), yet it comes to depend on `{name}` and reaches the result; bind it with `let mut name = <float expression>;` before the loop, or, for a `Vec` filled by `push`, write its type (`let mut name: Vec<f64> = Vec::new();`, or `Vec<T>` in a function generic over `T`)",
            held.join(", "),
            if held.len() == 1 { "it is" } else { "they are" },
        ),
        Construct::Branch(keyword) => format!(
            "#[grad] does not support `{keyword}` here yet: this value depends on `{name}` through it; branch with `if` on a condition, or `match` on a value that does not depend on `{name}`"
        ),
        Construct::Loop => format!(
            "#[grad] does not support loops that compute active values yet: this value depends on `{name}` through the loop; unroll it by hand"
        ),
        Construct::Closure => format!(
            "#[grad] differentiates a closure where the body calls it by name (`let f = |v| ..; f(x)`); this one depends on `{name}` and is used otherwise (passed on, returned or stored): call it, or write the computation inline"
        ),
        Construct::Chain(chain) => format!(
            "#[grad] cannot differentiate this iterator chain, `{chain}`: its result depends on `{name}`, and #[grad] reads a chain as the loop it stands for only from the sources and adapters README lists under \"iterator chains\" (`step_by` after `windows` and a chain over a collected `Vec` of `Vec`s are not among them); write it as a `for` loop over indices"
        ),
        Construct::Macro(mac) => format!(
            "#[grad] cannot differentiate through the macro call `{mac}!`: this value depends on `{name}` through it; compute the value with supported operations instead of a macro"
        ),
        Construct::Call(Some(callee)) if callee.starts_with(|c: char| c.is_ascii_uppercase()) => format!(
            "#[grad] cannot differentiate through `{callee}(..)`: it builds a tuple struct or an enum's variant, whose fields #[grad] does not follow, and what it is given depends on `{name}`; give the struct named fields (`struct {callee} {{ x: f64, y: f64 }}`, built as `{callee} {{ x: a, y: b }}` and read as `p.x`), or keep the values in variables"
        ),
        Construct::Call(Some(callee)) => format!(
            "#[grad] cannot differentiate the call to `{callee}` here: its result depends on `{name}` inside code kept as written (a value changed in place in a way #[grad] does not follow, or bound by a pattern it does not model); a function `{callee}` with `#[grad]` on it, call it in a `let` of its own that states the result's type (`let v: Vec<f64> = {callee}(..);`, `[f64; 3]` or a struct's) and change a copy of it (`let mut w = v.clone();`); a closure `{callee}` returning an array, a tuple or a struct, write it as a function with `#[grad]` (`fn {callee}(..) -> [f64; 2]`; a closure's value is differentiated when it is a float, or a list it ends with after plain `let`s, `[a, b]`, bound by a `let` of its own); or compute the value inline"
        ),
        Construct::Call(None) => format!(
            "#[grad] cannot differentiate this call: its result depends on `{name}`; call a float method or a runtime function, or compute the value inline"
        ),
    }
}

/// The refusal of a statement `recv.method(args);` kept as written that
/// may store a value carrying a derivative in a struct the macro models:
/// what to write instead. `None` for any other statement.
fn method_kept_as_written(tokens: &proc_macro2::TokenStream, name: &str) -> Option<String> {
    let syn::Stmt::Expr(syn::Expr::MethodCall(m), _) =
        syn::parse2::<syn::Stmt>(tokens.clone()).ok()?
    else {
        return None;
    };
    // `c.set(a * b)` of a `Cell` (a `RefCell`'s value through
    // `borrow_mut`): a value kept behind a shared reference; also a
    // struct's field, `m.v.set(..)`.
    let interior = |method: &syn::Ident, recv: &str| {
        ["set", "replace", "swap", "take", "update", "get_or_init"]
            .iter()
            .any(|i| method == i)
            .then(|| format!(
                "#[grad] cannot follow `{recv}.{method}(..)` here: what it is given depends on `{name}`, and it may keep it in `{recv}` (as a `Cell` does), where #[grad] cannot follow a value: keep the value in a variable instead (`let mut v = 0.0; .. v = ..;`), or in a struct's field (`s.v = ..`)"
            ))
    };
    if let syn::Expr::Field(_) = &*m.receiver {
        return interior(&m.method, &crate::diag::show(&m.receiver.to_token_stream()));
    }
    let syn::Expr::Path(p) = &*m.receiver else {
        return None;
    };
    let recv = p.path.get_ident()?.to_string();
    // The receiver as the user named it (`local_structs` calls the struct
    // it builds again for the call `<name>_recv`).
    let user_name = |n: &str| match n.rfind("_recv") {
        Some(at) if n[at + 5..].chars().all(|c| c == '_' || c.is_ascii_digit()) => {
            n[..at].to_string()
        }
        _ => n.to_string(),
    };
    let (recv, name) = (user_name(&recv), user_name(name));
    let method = &m.method;
    if recv == name {
        return Some(active_struct_method(&method.to_string()));
    }
    // A push into a `Vec` whose element type #[grad] does not see: also
    // one field's `Vec` of a `Vec` of structs (`desugar/struct_vecs.rs`
    // pushes each element field by field), given a call's result.
    // A row pushed into a `Vec` that `desugar/struct_vecs.rs` left whole.
    let row = matches!(
        m.args.first(),
        Some(syn::Expr::Array(_) | syn::Expr::Tuple(_) | syn::Expr::Repeat(_))
    );
    if method == "push" && row {
        return Some(rows_used_whole(&recv, "what is pushed depends", &name));
    }
    if let Some(msg) = interior(method, &recv) {
        return Some(msg);
    }
    if method == "push" {
        return Some(format!(
            "#[grad] cannot tell that what is pushed into `{recv}` is a float (a call's result, whose type it does not see), and it depends on `{name}`: bind the value with its type first (`let e: f64 = ..;`) and push that, or write the `Vec`'s type (`Vec<f64>`); in a `Vec` of structs, which #[grad] keeps as one `Vec` per field (`{recv}`), bind a field's value that way before the struct (`let e: f64 = b.energy();`, then `x: e` in it)"
        ));
    }
    Some(format!(
        "#[grad] cannot follow `{recv}.{method}(..)` here: what it is given depends on `{name}`, which it may keep in `{recv}`, and #[grad] follows `{recv}` by its fields only (it started from `Default::default()`, or its type is not seen); build `{recv}` with a struct literal (`let mut {recv} = S {{ .. }};`) or as a copy of a differentiated parameter, so that the call of a `#[grad]` method changing it (a struct writer, `fn {method}(&mut self, ..)`) is followed, or change its fields here (`{recv}.field += ..`)"
    ))
}

/// The refusal of a `Vec` of rows that `desugar/struct_vecs.rs` left
/// whole, `what` (its rows, what is pushed) depending on `name`, with
/// its verb.
fn rows_used_whole(recv: &str, what: &str, name: &str) -> String {
    format!(
        "#[grad] follows a `Vec` of rows (`[f64; N]` with `N` a literal, tuples of floats) as one float `Vec` per position where it is used only by position (`{recv}[i][0]`, `{recv}[i][d]`, `{recv}[i].0`, `p[0]` in `for p in &{recv}`), by `{recv}.len()`, by loops and chains over its rows, by a row read whole (`let r = {recv}[i];`) and handed whole to or from another such `Vec` (`{recv} = next;`, `std::mem::swap(&mut {recv}, &mut next)`); here `{recv}` is used otherwise (passed whole to a function, a method of `Vec`'s other than `push` and `len`, a row's method that may change it such as `{recv}[i].iter_mut()`, a part lent by `&mut`), and {what} on `{name}`: use it only in those ways (pass a function its rows one at a time, `f(&{recv}[i])`), or keep one `Vec<f64>` per position"
    )
}

/// The refusal of a method without #[grad] called on a struct whose fields
/// carry a derivative.
fn active_struct_method(method: &str) -> String {
    format!(
        "#[grad] cannot see what this does to the struct it is called on, whose fields depend on the differentiated inputs and reach the result: a method without `#[grad]` may change it (`&mut self`). Put `#[grad(wrt(self, ..))]` on the method and return the new value, `fn {method}(&self, ..) -> Self`, called as `s = s.{method}(..);`"
    )
}

/// The refusal of a local nested array `h` (as "`name`") whose elements
/// depend on `name`.
fn nested_message(h: &str, name: &str) -> String {
    // A nested array given whole to a struct's field (`self.p = [[..],
    // [..]];`), bound first to a name of the macro's (`lower/places.rs
    // field_copy`).
    if h.starts_with("`__") && h.ends_with("_field`") {
        return format!(
            "#[grad] models float arrays of one dimension, not nested ones yet, and this nested array is given whole to a struct's field; its elements come to depend on `{name}` and reach the result: keep the field flat (`p: [f64; 4]`, read and written as `p[i * 2 + j]`)"
        );
    }
    format!(
        "#[grad] models local float arrays of one dimension, not nested ones yet, and {h} is nested; its elements come to depend on `{name}` and reach the result: flatten it, as in `let mut m = vec![0.0; rows * cols];` read and written as `m[i * cols + j]`, or keep its rows in a `Vec` whose type is written, `let mut m: Vec<[f64; 2]> = vec![[a, b], [c, d]];` (a nested parameter, `&[Vec<f64>]` or `[[f64; 3]; 3]`, is differentiated)"
    )
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

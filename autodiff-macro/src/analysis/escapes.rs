//! Changes that leave the function unseen: a parameter taken by `&`
//! (`p: &P`, `&self`) changed by code kept as written, through a `Cell` or
//! a `RefCell` inside it, with values that carry a derivative.
//!
//! The caller reads the parameter afterwards as it left it, and treats a
//! call of a `#[grad]` function or method as leaving its shared parameters
//! as they were (`p.energy(x)` is `Op::GradMethod`, whose pullback gives
//! nothing back through a change of `p`). So such a change is refused here,
//! whether or not this function's own result reads it: a derivative would
//! otherwise be lost in the caller. A change with constants
//! (`self.calls.set(self.calls.get() + 1)`) carries nothing, and stays.
//!
//! What may change the parameter: code kept as written that the lowering
//! counts as changing it (a method called on it, a macro naming it, an
//! assignment through it), and a call kept as written that is lent it or
//! a part of it (`store(p, x);`, `p.c.replace(x)`, `q.c.set(x)` of `let q
//! = p;`). A call whose value carries a derivative is made through the
//! callee's #[grad] slots, and a #[grad] callee keeps this rule itself.

use std::collections::HashMap;

use quote::ToTokens;
use syn::visit::Visit;

use crate::analysis::activity::{Activity, Escapes, LentCheck};
use crate::desugar::internal::place_root;
use crate::diag::combine;
use crate::ir::*;

/// Errors at each piece of code kept as written that may change a shared
/// parameter with values computed from the active inputs.
///
/// Returns the calls kept as written of methods and functions that may be
/// the user's, lent such a parameter, which are let through only where
/// the callee has #[grad] (`Activity::lent_to_grad_callee`), and which of
/// `Function::lent_calls` are (`Activity::checked_lent_calls`).
pub fn check(f: &Function, a: &Activity, errors: &mut Option<syn::Error>) -> Escapes {
    // Each name that is, or lends, a shared parameter, with the parameter:
    // taken by `&`, or by `&mut` where its type is not one #[grad] follows
    // (a float, a float array and a `Differentiable` struct's writer are
    // written back, `Function::written`, `Function::lent`). Floats and
    // float arrays have no interior to change.
    let mut shared: HashMap<String, String> = f
        .params
        .iter()
        .filter(|p| match &p.ty {
            syn::Type::Reference(r) if r.mutability.is_none() => true,
            syn::Type::Reference(_) => f.value(p.value).ty == Ty::Unknown,
            // Shared by ownership (`s: Rc<RefCell<State>>`).
            ty => crate::lower::token_idents(ty.to_token_stream())
                .iter()
                .any(|n| n == "Rc" || n == "Arc"),
        })
        .filter(|p| !scalar_or_array(&f.value(p.value).ty))
        .map(|p| (p.ident.to_string(), p.ident.to_string()))
        .collect();
    if shared.is_empty() {
        return Escapes::default();
    }
    let mut defs_of = HashMap::new();
    f.body.walk(&mut |inst| {
        if let Inst::Def { dst, op, .. } = inst {
            defs_of.insert(*dst, op);
        }
    });
    // Names bound to the parameter or a part of it by reference (`let q =
    // p;`, `let c = &p.cache;`), in order.
    f.body.walk(&mut |inst| {
        let (name, place) = match inst {
            Inst::Def {
                dst,
                op: Op::Opaque { expr, .. },
                ..
            } => (f.value(*dst).name.clone(), Some(expr.clone())),
            Inst::Verbatim {
                kind: VerbatimKind::Let(l),
                ..
            } => (pattern_name(&l.pat), Some(l.init.clone())),
            _ => return,
        };
        if let (Some(name), Some(place)) = (name, place) {
            if let Some(p) = lent(&place, &shared, true).or_else(|| handed_out(&place, &shared)) {
                shared.insert(name, p);
            }
        }
    });
    // The shared parameter a value is, or is a part of.
    let root = |v: ValueId| -> Option<String> {
        let mut v = v;
        loop {
            let value = f.value(v);
            if scalar_or_array(&value.ty) {
                return None;
            }
            if let Some(p) = value.name.as_ref().and_then(|n| shared.get(n)) {
                return Some(p.clone());
            }
            match defs_of.get(&v)? {
                Op::Field { base, .. } => v = *base,
                // `&p.cache`, or `p` by another name; not `p.ys[k]`,
                // a copy of a part.
                Op::Opaque { expr, .. } => return lent(expr, &shared, false),
                _ => return None,
            }
        }
    };
    // Whether `v` carries a derivative from elsewhere than `p` itself:
    // `o.name.starts_with('X')` of a differentiated `o` gives `o` nothing
    // new (a struct changed with its own values is not followed).
    let apart: HashMap<&str, Vec<bool>> = f
        .params
        .iter()
        .filter(|q| q.active && shared.contains_key(&q.ident.to_string()))
        .map(|q| {
            let n = shared[&q.ident.to_string()].as_str();
            (n, crate::analysis::activity::varied_without(f, n))
        })
        .collect();
    let varied_apart = |p: &str, v: ValueId| match apart.get(p) {
        Some(varied) => varied[v.0],
        None => a.is_varied(v),
    };
    // The first value read that does.
    let varied_from = |reads: &Reads, p: &str| {
        reads
            .0
            .iter()
            .find(|(n, v)| shared.get(n).map(String::as_str) != Some(p) && varied_apart(p, *v))
            .map(|(n, _)| format!("`{n}`"))
    };
    // The first call in `e` lent a shared parameter and given a value
    // that carries a derivative from elsewhere, with that value's name.
    let lent_with = |e: &syn::Expr, reads: &Reads, kept: bool| -> Vec<(Lent, String)> {
        lent_to_calls(e, &shared, kept)
            .into_iter()
            .filter_map(|l| {
                let (n, _) = reads
                    .0
                    .iter()
                    .find(|(n, v)| l.given.contains(n) && varied_apart(&l.param, *v))?;
                let from = format!("`{n}`");
                Some((l, from))
            })
            .collect()
    };
    let mut opaque_checks = HashMap::new();
    let mut proofs = Vec::new();
    f.body.walk(&mut |inst| {
        let (p, from, at, callee) = match inst {
            Inst::Verbatim {
                defs,
                reads,
                tokens,
                kind,
            } => {
                // Where what it changes reaches the result,
                // `activity::check` has said so already.
                if defs.iter().any(|d| a.is_active(*d)) {
                    return;
                }
                let changed = defs.iter().find_map(|d| {
                    let p = f.value(*d).name.as_ref().and_then(|n| shared.get(n))?;
                    varied_apart(p, *d).then(|| p.clone())
                });
                let (p, callee) = match changed {
                    Some(p) => (p, None),
                    None => {
                        let expr = match kind {
                            VerbatimKind::Let(l) => Some(l.init.clone()),
                            VerbatimKind::Stmt => match syn::parse2::<syn::Stmt>(tokens.clone()) {
                                Ok(syn::Stmt::Expr(e, _)) => Some(e),
                                _ => None,
                            },
                            _ => None,
                        };
                        let Some((l, from)) =
                            expr.and_then(|e| lent_with(&e, reads, true).into_iter().next())
                        else {
                            return;
                        };
                        let (p, callee) = (l.param, l.callee);
                        let at = tokens.clone();
                        let msg = message(&p, &from, Some(&callee));
                        return combine(errors, syn::Error::new_spanned(at, msg));
                    }
                };
                let outside = read_outside_formatting(tokens);
                let reads = Reads(
                    reads
                        .0
                        .iter()
                        .filter(|(n, _)| outside.contains(n))
                        .cloned()
                        .collect(),
                );
                let Some(from) = varied_from(&reads, &p) else {
                    return;
                };
                (p, from, tokens.clone(), callee)
            }
            // A call inside an expression kept as written: checked where
            // the expression is, where the callee may have #[grad].
            Inst::Def {
                dst,
                op: Op::Opaque { expr, reads },
                ..
            } => {
                let lent = lent_with(expr, reads, false);
                match lent.iter().find(|(l, _)| l.check.is_none()) {
                    Some((l, from)) => (
                        l.param.clone(),
                        from.clone(),
                        quote::ToTokens::to_token_stream(expr),
                        Some(l.callee.clone()),
                    ),
                    None if lent.is_empty() => return,
                    None => {
                        let checks = lent.into_iter().filter_map(|(l, _)| l.check).collect();
                        opaque_checks.insert(*dst, checks);
                        return;
                    }
                }
            }
            Inst::Def { dst, op, .. } => {
                let (callee, at, operands): (String, _, Vec<&Operand>) = match op {
                    Op::Method {
                        name, recv, args, ..
                    }
                    | Op::GradMethod {
                        name, recv, args, ..
                    } if !matches!(op, Op::GradMethod { .. }) || !a.is_active(*dst) => {
                        let recv =
                            (!crate::rules::leaves_receiver(&name.to_string())).then_some(recv);
                        let at = quote::ToTokens::to_token_stream(name);
                        (name.to_string(), at, recv.into_iter().chain(args).collect())
                    }
                    Op::Call {
                        path,
                        args,
                        callee: crate::rules::Callee::Function,
                        ..
                    } if !a.is_active(*dst) => {
                        let at = quote::ToTokens::to_token_stream(path);
                        (crate::diag::show(&at), at, args.iter().collect())
                    }
                    _ => return,
                };
                let values: Vec<ValueId> = operands.iter().filter_map(|o| o.value()).collect();
                let Some(p) = values.iter().find_map(|v| root(*v)) else {
                    return;
                };
                let Some(from) = values
                    .iter()
                    .find(|v| varied_apart(&p, **v) && root(**v).as_ref() != Some(&p))
                else {
                    return;
                };
                // A method or a function that may be the user's: let
                // through only where it has #[grad] (`emit/forward.rs`),
                // which keeps this rule.
                if matches!(op, Op::GradMethod { .. } | Op::Call { .. }) {
                    proofs.push(*dst);
                    return;
                }
                let from = f
                    .value(*from)
                    .name
                    .as_ref()
                    .map_or_else(|| "the active inputs".to_string(), |n| format!("`{n}`"));
                (p, from, at, Some(callee))
            }
            _ => return,
        };
        combine(
            errors,
            syn::Error::new_spanned(at, message(&p, &from, callee.as_deref())),
        );
    });
    // `p0.m0(x)` left leaving `p0` as it was in code kept as written:
    // checked to have #[grad] where it is given such values.
    let lent_calls = f
        .lent_calls
        .iter()
        .enumerate()
        .filter(|(_, c)| c.given.0.iter().any(|(_, v)| varied_apart(&c.param, *v)))
        .map(|(k, _)| k)
        .collect();
    Escapes {
        proofs,
        lent_calls,
        opaque_checks,
    }
}

/// Floats, integers, `bool`s and float arrays: nothing inside them can
/// change behind a `&`.
fn scalar_or_array(ty: &Ty) -> bool {
    ty.is_float() || matches!(ty, Ty::Int | Ty::Bool) || ty.array().is_some()
}

/// The shared name `e` lends: `p` itself (a reference), `&p.part`, or,
/// where `receiver` (a method's receiver, lent by autoref), `p.part`.
fn lent(e: &syn::Expr, shared: &HashMap<String, String>, receiver: bool) -> Option<String> {
    let (place, by_ref) = match e {
        syn::Expr::Reference(r) => (&*r.expr, true),
        syn::Expr::Paren(p) => return lent(&p.expr, shared, receiver),
        e => (e, false),
    };
    let name = place_root(place)?;
    let whole = matches!(place, syn::Expr::Path(_));
    shared
        .get(&name)
        .filter(|_| whole || by_ref || receiver)
        .cloned()
}

/// The name a `let` binds with a plain pattern (`mut g`, `g: T`).
fn pattern_name(pat: &proc_macro2::TokenStream) -> Option<String> {
    let pat = syn::parse::Parser::parse2(syn::Pat::parse_single, pat.clone()).ok()?;
    let pat = match pat {
        syn::Pat::Type(t) => *t.pat,
        p => p,
    };
    match pat {
        syn::Pat::Ident(i) => Some(i.ident.to_string()),
        _ => None,
    }
}

/// The shared name whose inside `e` hands out: `p.log.borrow_mut()`,
/// `self.state.lock().unwrap()` (`rules::hands_out_interior`).
fn handed_out(e: &syn::Expr, shared: &HashMap<String, String>) -> Option<String> {
    let mut e = e;
    let mut handed = false;
    while let syn::Expr::MethodCall(m) = e {
        handed |= crate::rules::hands_out_interior(&m.method.to_string());
        e = &m.receiver;
    }
    lent(e, shared, true).filter(|_| handed)
}

/// A call in code kept as written that is lent a shared parameter.
struct Lent {
    /// The parameter.
    param: String,
    callee: String,
    /// The names its arguments (and receiver) mention.
    given: Vec<String>,
    /// How the generated code checks that the callee has #[grad], where it
    /// may have (a function of the user's by its path, a method that may
    /// be the user's on the parameter's place).
    check: Option<LentCheck>,
}

/// The calls in `e` lent a shared name: as an argument of a function or a
/// method, or as the receiver of a method that may change it.
/// `kept`: in a statement kept as written, where the lowering lets a method
/// that may be the user's on a parameter's place leave it as it was
/// (`Function::lent_calls`, checked apart).
fn lent_to_calls(e: &syn::Expr, shared: &HashMap<String, String>, kept: bool) -> Vec<Lent> {
    struct Find<'s> {
        shared: &'s HashMap<String, String>,
        kept: bool,
        /// The method call next visited is another's receiver.
        chained: bool,
        found: Vec<Lent>,
    }
    fn names<'e>(exprs: impl IntoIterator<Item = &'e syn::Expr>) -> Vec<String> {
        let tokens: proc_macro2::TokenStream = exprs
            .into_iter()
            .map(quote::ToTokens::to_token_stream)
            .collect();
        crate::lower::token_idents(tokens)
    }
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if let Some(param) = c.args.iter().find_map(|a| lent(a, self.shared, false)) {
                let check = match &*c.func {
                    syn::Expr::Path(p)
                        if p.qself.is_none()
                            && matches!(
                                crate::rules::resolve(&p.path),
                                crate::rules::Callee::Function
                            ) =>
                    {
                        Some(LentCheck::Call {
                            path: p.path.clone(),
                            args: c.args.iter().cloned().collect(),
                        })
                    }
                    _ => None,
                };
                self.found.push(Lent {
                    param,
                    callee: crate::diag::show(&quote::ToTokens::to_token_stream(&c.func)),
                    given: names(&c.args),
                    check,
                });
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            let name = m.method.to_string();
            let chained = std::mem::replace(&mut self.chained, false);
            let param = crate::lower::field_chain_root(&m.receiver)
                .is_some_and(|n| self.shared.get(&n) == Some(&n));
            if self.kept && param && crate::lower::may_leave_receiver(m, chained) {
                self.chained = matches!(&*m.receiver, syn::Expr::MethodCall(_));
                return syn::visit::visit_expr_method_call(self, m);
            }
            let recv = (!crate::rules::leaves_receiver(&name))
                .then(|| lent(&m.receiver, self.shared, true))
                .flatten();
            if let Some(param) =
                recv.or_else(|| m.args.iter().find_map(|a| lent(a, self.shared, false)))
            {
                let check =
                    crate::lower::may_leave_receiver(m, chained).then(|| LentCheck::Method {
                        recv: (*m.receiver).clone(),
                        method: m.method.clone(),
                        args: m.args.iter().cloned().collect(),
                    });
                self.found.push(Lent {
                    param,
                    callee: name,
                    given: names(std::iter::once(&*m.receiver).chain(&m.args)),
                    check,
                });
            }
            self.chained = matches!(&*m.receiver, syn::Expr::MethodCall(_));
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut find = Find {
        shared,
        kept,
        chained: false,
        found: Vec::new(),
    };
    find.visit_expr(e);
    find.found
}

fn message(p: &str, from: &str, callee: Option<&str>) -> String {
    let what = match callee {
        Some(c) => format!("`{c}` is kept as written and is lent `{p}`, which this function shares with its caller, with values computed from {from}: it may keep them in `{p}`"),
        None => format!("this code is kept as written and may change `{p}`, which this function shares with its caller, with values computed from {from}"),
    };
    format!(
        "#[grad] cannot follow this change of `{p}`: {what} (through `&mut`, or a `Cell` or `RefCell` inside), and a caller would read them without their derivative; return the value instead of storing it in `{p}`, or, if nothing is stored, use the call's result (a callee with #[grad] is then differentiated) or remove the call"
    )
}

/// The names `tokens` reads outside the formatting macros (`format!`,
/// `println!`, `write!`): what they are given becomes a string, which
/// carries no derivative.
fn read_outside_formatting(tokens: &proc_macro2::TokenStream) -> Vec<String> {
    use proc_macro2::TokenTree;
    let mut out = Vec::new();
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Ident(id) => {
                let formatting = matches!(
                    id.to_string().as_str(),
                    "format"
                        | "format_args"
                        | "print"
                        | "println"
                        | "eprint"
                        | "eprintln"
                        | "write"
                        | "writeln"
                        | "panic"
                );
                let bang =
                    matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
                if formatting && bang {
                    i += 3;
                    continue;
                }
                out.push(id.to_string());
            }
            TokenTree::Group(g) => out.extend(read_outside_formatting(&g.stream())),
            _ => {}
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::analysis::analyse;
    use crate::attr::Options;

    /// The error messages for `src`, or the number of calls let through
    /// only where the callee has #[grad].
    fn escapes(src: &str) -> Result<usize, String> {
        let f = crate::lower::lower_ok(&syn::parse_str(src).unwrap(), &Options::default()).unwrap();
        let a = analyse(&f).map_err(|e| e.to_string())?;
        let mut lent = a.checked_lent_calls().len();
        f.body.walk(&mut |inst| {
            if let crate::ir::Inst::Def { dst, .. } = inst {
                lent += usize::from(a.lent_to_grad_callee(*dst));
            }
        });
        Ok(lent)
    }

    #[test]
    fn a_change_with_active_values_is_refused_whether_or_not_the_result_reads_it() {
        for body in [
            "store(p, 2.0 * x); x * x",
            "let q = p; q.c.set(x); x * x",
            "let r = x * x; p.log.borrow_mut().push(r); r",
            "let mut g = p.log.borrow_mut(); g.push(x); x * x",
            "let c = &p.cache; c.set(x); x * x",
        ] {
            let src = format!("fn f(x: f64, p: &P) -> f64 {{ {body} }}");
            let e = escapes(&src).expect_err(body);
            assert!(
                e.contains("cannot follow this change of `p`"),
                "{body}: {e}"
            );
        }
        // Taken by `&mut`, of a type #[grad] does not follow: changed
        // directly.
        for body in ["p.last = x * x; x", "let y = x.sin(); p.all.push(y); y"] {
            let src = format!("fn f(x: f64, p: &mut Log) -> f64 {{ {body} }}");
            let e = escapes(&src).expect_err(body);
            assert!(
                e.contains("cannot follow this change of `p`"),
                "{body}: {e}"
            );
        }
    }

    #[test]
    fn changes_with_constants_and_reads_are_not() {
        for body in [
            "p.calls.set(p.calls.get() + 1); x * p.k",
            "let n = p.name.len() as f64; x * n",
            "helper(p.k, x) + x",
            "p.log.borrow_mut().push(format!(\"{x}\")); x",
        ] {
            let src = format!("fn f(x: f64, p: &P) -> f64 {{ {body} }}");
            assert_eq!(escapes(&src), Ok(0), "{body}");
        }
    }

    #[test]
    fn a_struct_shared_by_ownership_is_a_shared_parameter() {
        let src = "fn f(x: f64, s: Rc<RefCell<State>>) -> f64 { s.borrow_mut().last = x; x * x }";
        let e = escapes(src).expect_err("Rc");
        assert!(e.contains("cannot follow this change of `s`"), "{e}");
    }

    #[test]
    fn what_a_string_is_made_of_carries_no_derivative() {
        let src = "fn f(x: f64, log: &mut Vec<String>) -> f64 { log.push(format!(\"x = {}\", x)); x * x }";
        assert_eq!(escapes(src), Ok(0));
    }

    #[test]
    fn a_method_or_function_whose_value_is_dropped_must_have_grad() {
        let src =
            "fn f(x: f64, p: &P) -> f64 { let _a = p.energy(x); let _b = P::energy(p, x); x }";
        assert_eq!(escapes(src), Ok(2));
    }

    #[test]
    fn a_method_on_a_parameter_in_code_kept_as_written_must_have_grad() {
        // `set` may be a method of the user's: the generated code checks
        // it has #[grad] (a `Cell`'s has not: a compile error there).
        assert_eq!(
            escapes("fn f(x: f64, p: &P) -> f64 { p.c.set(x); x * x }"),
            Ok(1)
        );
        let looped = "fn f(x: f64, p: &P) -> f64 { for _ in 0..2 { let mut t = 0.0; t += p.inner.energy(x); } x * p.k }";
        assert_eq!(escapes(looped), Ok(1));
        // Given constants only: nothing to check.
        let constant = "fn f(x: f64, p: &P) -> f64 { for _ in 0..2 { p.tick(1.0); } x * p.k }";
        assert_eq!(escapes(constant), Ok(0));
    }
}

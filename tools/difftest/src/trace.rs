//! Which programs get `#[grad(trace)]`, and why the others do not.
//!
//! `#[grad(trace)]` also generates `f_trace(args) -> autodiff::Trace`. On
//! every program that has it, the harness (`templates/harness.rs`,
//! `check_trace`) checks, at each test point where `f_grad` passed:
//!
//! - `f_trace(x).value()` equals `f(x)` bit for bit: the trace's forward
//!   sweep is `_grad`'s, statement for statement, and the tape keeps the
//!   f64 it is given;
//! - its gradient agrees with `f_grad`'s to the oracle's tolerance (the
//!   tape adds contributions breadth-first from the output, `_grad` in
//!   reverse program order: not bit for bit). `Trace::gradient()` has one
//!   entry per input node: a scalar parameter under its name (`x0`), an
//!   array parameter one per element (`xs1[2]`), each once (adjoint 0 where
//!   it does not reach the output), and a struct parameter's field one per
//!   active read (`p0.f1`: any number of entries, summed here, none for a
//!   field not read on the way to the output). An element of a struct's
//!   `Vec` field is a node per read, named by the read as written
//!   (`p0.w[i * p0.n + j]`), not by the element: the nodes of `p0.w[..]`
//!   are summed together and checked against the sum of `f_grad`'s
//!   entries for `p0.w`. An input without a node must have an `f_grad`
//!   entry of exactly zero; a name that is no input, or a scalar or
//!   element that is more than one node, fails.
//!
//! A mismatch, a panic or crash only in `f_trace`, or a program that builds
//! without `trace` and not with it, is [`crate::driver::Class::TraceWrong`].
//!
//! The helper is under `trace` too: a traced function nests the traces of
//! the `#[grad]` functions it calls (`<callee>_trace_into`), so a callee
//! needs `trace` as well. Its own `helper_trace` is not called: it is
//! checked nested in `f_trace`, where its nodes read the caller's (a macro
//! that made a call one node, with its `_grad`'s partials, checked it
//! through those).

use crate::ast::*;
use crate::features::Features;

/// What `#[grad(trace)]` refuses with a compile error
/// (`autodiff-macro/src/emit/trace/`, `tests/ui/trace_refused.rs`), and
/// whether the generator writes it. Programs with a refused construct are
/// generated without `trace` ([`refused`]); every other program gets it.
///
/// - a kernel (`dot`, `matvec`, `softmax`, ...): the generator writes none
///   (`Expr` has no kernel call);
/// - a vector or tuple output: every generated function returns one `f64`
///   but the step function (`step(s: &[f64], k: f64) -> Vec<f64>`, feature
///   `step_call`), so a program with one is generated without `trace`;
/// - a custom `pullback`: the generator writes none;
/// - a nested array parameter, a reference to a part of a struct
///   (`&p.w`), a call returning a tuple: none written (struct fields are
///   read by value, `p0.f1`, `p0.w[k]`);
/// - a call of a method with `#[grad]` (`p0.m0(x)`, `self.m0(x)`,
///   features `methods`, `method_on_self`): written, so a program with
///   one is generated without `trace` (and the generator writes methods
///   only with a call of one in `f`);
/// - a block that keeps bindings the macro does not model (an
///   `Inst::Scope` holding a `let` kept as written): the only `let` the
///   macro keeps as written in generated programs is a closure with a
///   typed parameter (`let c = |v: f64| ..;`, feature `let_closure`), and
///   the generator puts those in statement lists (the body, loop bodies,
///   `if` branches: no scope of their own), never in a block expression
///   (`block_expr` blocks hold only `let t = <float expr>;`, which the
///   macro models, even untyped). [`refused`] still looks for one, so
///   that the rule is in the code should the generator ever write one.
///
/// - a call of a writer (`w0(&mut x, &mut y, e);`, feature
///   `float_writer`): written, so a program with one is generated without
///   `trace` (and the generator writes a writer only with a call of it);
/// - a function returning a `Result` or an `Option`, and a call of one
///   (`g0(x)?`, `g0(x).unwrap()`, feature `fallible_call`): written, so a
///   program with the fallible function (always called) is generated
///   without `trace`;
/// - a local struct built whole (`let q = P0 { f0: x, .. };` used whole,
///   feature `struct_values`: "cannot trace this operation" at its
///   `let`): written, so a program with one is generated without `trace`
///   (and the generator writes one mostly where a method is called
///   anyway).
///
/// A `#[grad]` function that a traced one calls needs `trace` too (no
/// refusal: the call names a `_trace_into` that does not exist): the
/// helper is traced with the main function.
///
/// - a function returning an array or a tuple (`g1(..) -> [f64; 2]`,
///   feature `array_call`: "cannot trace a function that returns a tuple
///   or a vector"): written, so a program calling one is generated without
///   `trace`.
///
/// - an array or a `Vec` a call returned passed on whole to another call
///   (`let d = mk0(x, y); rd0(d, z)`, feature `passed_whole`): `mk0`,
///   `tf0`, `vw0` return a vector, which `#[grad(trace)]` does not trace
///   (README: "Not traced yet, with an error that says so: .. vector
///   outputs"), so a program with one is generated without `trace`. A float passed on whole (`let
///   t = hf0(x, y); hf0(t, z)`) is traced.
///
/// - the struct another `#[grad]` call returns and its methods
///   (`made_struct`, `let p: P1 = make(a, b); p.energy()`,
///   `make(a, b).norm2()`): calls of methods with `#[grad]`, refused as
///   above, so a program with them is generated without `trace`.
///
/// - a call of a struct writer (`q.drift0(e);`, `kick0(&mut q, e);`,
///   feature `struct_writer`: "cannot trace this operation" at the call,
///   and at the `let` of the local struct it changes): written, so a
///   program with one is generated without `trace` (and the generator
///   writes struct writers only with a call of one, mostly where a method
///   is called anyway).
///
/// So the programs without `trace` are those that call a method or have a
/// step function, a writer, a fallible function, a local struct, a
/// function returning several floats or an array or `Vec` passed on whole
/// (the test below checks that every other program is traced, over 300
/// seeds), and,
/// with the feature `trace_int_field_cast` off, those whose `f` casts an
/// integer field of a differentiated struct (`p0.n as f64`: no refusal,
/// but `#[grad(trace)]` records the `usize` as an input node, a compile
/// error, `usize: autodiff::Float`; `_grad` is right).
pub const REFUSED: &[(&str, &str)] = &[
    (
        "a closure bound in a block expression",
        "#[grad(trace)] refuses a block that keeps bindings the macro does not model",
    ),
    (
        "a call of a method with #[grad]",
        "#[grad(trace)] refuses a method with #[grad] (\"cannot trace this operation\")",
    ),
    (
        "a #[grad] function returning Vec<f64>",
        "#[grad(trace)] refuses a vector output (the step function of `step_call`)",
    ),
    (
        "a call of a writer",
        "#[grad(trace)] cannot trace a call that writes a float through `&mut` yet (`float_writer`)",
    ),
    (
        "a fallible function or a call of one",
        "#[grad(trace)] traces functions that return their value, not a `Result` or an `Option`, and cannot trace a call of a function that may fail (`fallible_call`)",
    ),
    (
        "a local struct",
        "#[grad(trace)] refuses a local struct built whole (\"cannot trace this operation\" at its `let`, `struct_values`)",
    ),
    (
        "a #[grad] function returning an array or a tuple",
        "#[grad(trace)] cannot trace a function that returns a tuple or a vector (`array_call`)",
    ),
    (
        "an array or a Vec passed on whole",
        "#[grad(trace)] does not trace vector outputs, which the functions returning an array or a `Vec` passed on whole have (`passed_whole`)",
    ),
    (
        "a #[grad] function returning a struct",
        "#[grad(trace)] refuses a call of a method with #[grad], which is all `f` does with the struct `make` returns (`made_struct`)",
    ),
    (
        "a call of a struct writer",
        "#[grad(trace)] refuses a call of a struct writer (\"cannot trace this operation\" at `q.drift0(e);`, `kick0(&mut q, e);`; `struct_writer`)",
    ),
];

/// The construct of `p` that `#[grad(trace)]` refuses, if any: an entry
/// of [`REFUSED`].
pub fn refused(p: &Program) -> Option<&'static str> {
    let (mut closure, mut method) = (false, false);
    // A method of `P1` (`made_struct`) is that feature's reason.
    let made = |m: &str| p.made.iter().flat_map(|d| &d.methods).any(|g| g.name == m);
    for f in functions(p) {
        visit(f, &mut |e| match e {
            Expr::Block(b) => {
                closure |= b.stmts.iter().any(|s| matches!(s, Stmt::LetClosure { .. }));
            }
            Expr::Method(_, m, ..) if !made(m) => method = true,
            _ => {}
        });
    }
    if closure {
        Some(REFUSED[0].0)
    } else if method {
        Some(REFUSED[1].0)
    } else if !p.struct_writers.is_empty() {
        Some(REFUSED[9].0)
    } else if p.step.is_some() {
        Some(REFUSED[2].0)
    } else if p.writer.is_some() {
        Some(REFUSED[3].0)
    } else if p.fallible.is_some() || p.main.ret.fallible() {
        Some(REFUSED[4].0)
    } else if has_local_struct(p) {
        Some(REFUSED[5].0)
    } else if !p.multis.is_empty() {
        Some(REFUSED[6].0)
    } else if crate::features::passes_vectors_whole(p) {
        Some(REFUSED[7].0)
    } else if p.made.is_some() {
        Some(REFUSED[8].0)
    } else {
        None
    }
}

/// Whether a function of `p` declares a local struct (`struct_values`).
pub fn has_local_struct(p: &Program) -> bool {
    crate::ast::any_stmt(p, &|s| matches!(s, Stmt::LetStruct { .. }))
}

/// Whether a function of `p` casts an integer field of a struct it
/// differentiates (`p0.n as f64`, `self.n as f64`).
pub fn casts_int_field(p: &Program) -> bool {
    let mut found = false;
    for f in functions(p) {
        let active: Vec<String> = f
            .params
            .iter()
            .filter(|q| q.kind.active() && matches!(q.kind, PKind::Struct { .. } | PKind::Receiver))
            .map(|q| format!("{}.n", q.name))
            .collect();
        visit(f, &mut |e| {
            if let Expr::IntCast(i) = e {
                found |= mentions_int(i, &active);
            }
        });
    }
    found
}

/// Whether `i` reads one of the integer variables `names`.
fn mentions_int(i: &IExpr, names: &[String]) -> bool {
    match i {
        IExpr::Var(v) => names.contains(v),
        IExpr::Lit(_) | IExpr::Len(_) => false,
        IExpr::Add(a, b) | IExpr::Mul(a, b) => mentions_int(a, names) || mentions_int(b, names),
        IExpr::Rem(a, _) => mentions_int(a, names),
    }
}

/// Why `p`, generated with the features `f`, does not get `trace`, if it
/// does not.
pub fn untraced_reason(p: &Program, f: &Features) -> Option<&'static str> {
    if !f.has("trace") {
        return Some("feature `trace` off");
    }
    if let Some(r) = refused(p) {
        return Some(r);
    }
    if !f.has("trace_int_field_cast") && casts_int_field(p) {
        return Some("feature `trace_int_field_cast` off");
    }
    if !f.has("trace_assoc_fn") && p.helper_owner.is_some() {
        return Some("feature `trace_assoc_fn` off");
    }
    if !f.has("trace_filter") && crate::ast::filters_loops(p) {
        return Some("feature `trace_filter` off");
    }
    None
}

/// Whether `p` gets `#[grad(trace)]` as generated with `f`.
pub fn traceable(p: &Program, f: &Features) -> bool {
    untraced_reason(p, f).is_none()
}

/// Whether the functions of `p` are under `#[grad(trace)]` (decided by
/// [`crate::gen::generate`]; a shrunk program keeps its original's).
pub fn traced(p: &Program) -> bool {
    p.trace
}

/// How many of `programs` are not traced, by reason: `none`, or
/// `3 (reason), 1 (other reason)`.
pub fn untraced_reasons(programs: &[Program], f: &Features) -> String {
    count_reasons(programs.iter().filter(|p| !p.trace), |p| {
        untraced_reason(p, f).unwrap_or("not traced")
    })
}

/// How many of `programs` there are by `reason`: `none`, or `3 (reason),
/// 1 (other reason)` (the programs a check left out, and why).
pub(crate) fn count_reasons<'p>(
    programs: impl Iterator<Item = &'p Program>,
    reason: impl Fn(&Program) -> &'static str,
) -> String {
    let mut by: std::collections::BTreeMap<&str, usize> = Default::default();
    for p in programs {
        *by.entry(reason(p)).or_default() += 1;
    }
    if by.is_empty() {
        return "none".to_string();
    }
    by.iter()
        .map(|(r, n)| format!("{n} ({r})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The callees and the main function: all under `trace`, or none.
fn functions(p: &Program) -> impl Iterator<Item = &Func> {
    p.functions()
}

/// Every expression of `f`, statements' included.
fn visit(f: &Func, visit: &mut impl FnMut(&Expr)) {
    let mut body = f.body.clone();
    map_block(
        &mut body,
        &mut |e: &mut Expr| visit(e),
        &mut |_: &mut IExpr| {},
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::Features;

    #[test]
    fn every_program_without_a_method_call_is_traced() {
        let all = Features::all();
        let off = Features::without(&["trace"]).unwrap();
        let mut traced = 0;
        for seed in 0..300 {
            let p = crate::gen::generate(seed, &all);
            let calls = !p.methods.is_empty();
            let step = p.step.is_some();
            let writer = p.writer.is_some();
            let fallible = p.fallible.is_some() || p.main.ret.fallible();
            let local = has_local_struct(&p);
            let multi = !p.multis.is_empty();
            let whole = crate::features::passes_vectors_whole(&p);
            let made = p.made.is_some();
            let struct_writer = !p.struct_writers.is_empty();
            assert_eq!(
                p.trace,
                !calls
                    && !struct_writer
                    && !step
                    && !writer
                    && !fallible
                    && !local
                    && !multi
                    && !whole
                    && !made,
                "seed {seed}: {:?}",
                untraced_reason(&p, &all)
            );
            let expected = if calls {
                Some(REFUSED[1].0)
            } else if struct_writer {
                Some(REFUSED[9].0)
            } else if step {
                Some(REFUSED[2].0)
            } else if writer {
                Some(REFUSED[3].0)
            } else if fallible {
                Some(REFUSED[4].0)
            } else if local {
                Some(REFUSED[5].0)
            } else if multi {
                Some(REFUSED[6].0)
            } else if whole {
                Some(REFUSED[7].0)
            } else {
                made.then_some(REFUSED[8].0)
            };
            assert_eq!(refused(&p), expected, "seed {seed}");
            assert!(!crate::gen::generate(seed, &off).trace);
            traced += usize::from(p.trace);
        }
        // Methods, step functions, writers, fallible functions and local
        // structs are the exception: most programs are traced.
        assert!(traced > 200, "{traced} of 300 programs traced");
    }

    #[test]
    fn a_cast_of_an_integer_field_is_traced_with_its_feature_only() {
        let off = Features::without(&["trace_int_field_cast"]).unwrap();
        let (mut casts, mut seed) = (0, 0);
        while casts < 5 {
            let p = crate::gen::generate(seed, &off);
            if refused(&p).is_none() && casts_int_field(&p) {
                assert!(!p.trace, "seed {seed}");
                assert!(crate::gen::generate(seed, &Features::all()).trace);
                casts += 1;
            }
            seed += 1;
            assert!(
                seed < 5000,
                "only {casts} casts of an integer field in 5000 programs"
            );
        }
    }

    #[test]
    fn a_closure_in_a_block_expression_is_refused() {
        let mut p = crate::gen::generate(1, &Features::all());
        let closure = Stmt::LetClosure {
            name: "c".into(),
            param: "v".into(),
            body: Expr::Var("v".into()),
        };
        p.main.body.tail = Expr::Block(Box::new(Block {
            stmts: vec![closure],
            tail: p.main.body.tail.clone(),
        }));
        assert_eq!(refused(&p), Some(REFUSED[0].0));
    }
}

//! Which programs get a generic twin under `#[grad(hessian)]`, and why
//! the others do not; the directions `_hvp` is checked along.
//!
//! `#[grad(hessian)]` needs a function generic over its float type
//! (README, "Second order"), and the generated programs are of `f64`. So a
//! program that qualifies gets a second copy of every function, generic
//! (`f_gen<T: autodiff::Float + ..>`, `helper_gen`, `p0.m0_gen`, ...; how
//! it is written: `src/render/generic.rs`), `f_gen` under
//! `#[grad(hessian)]` and the others under `#[grad]`. It is the same
//! function: at `T = f64` its value is `f`'s, and its `_hessian` and
//! `_hvp` (which run `f_gen_grad` at the runtime's dual numbers) are the
//! second derivatives of `f`.
//!
//! The oracle is a twin of the bodies over a hyper-dual number
//! (`templates/hyper.rs`: num-dual's `HyperDual64`, with the rules it
//! lacks written on its public parts), the text of the first-order twin
//! with its `D` swapped; one pass seeded with `ε1 = e_i`, `ε2 = e_j` gives
//! `H_ij` exactly (forward mode twice, no differences), `n(n + 1)/2`
//! passes the matrix, and `ε2 = v` gives `(H·v)_i`. Its value must be
//! `f`'s bit for bit, its decisions the first-order twin's, and its
//! gradient (the ε1 parts) `f_grad`'s to the first-order tolerance; a
//! disagreement there is the tester's own (class `generator-bug`).
//!
//! On every program that has it, the harness (`templates/harness_hessian.rs`,
//! `check_hessian`) checks, at each test point where `f_grad` (and
//! `f_trace`, `f_jvp`) passed:
//!
//! - `f_gen_hessian`'s value equals `f`'s bit for bit (the same
//!   operations at `T = f64`: it holds), its gradient `f_grad`'s to the
//!   oracle's tolerance (`|a − b| ≤ 1e-9·max(|a|, |b|) + 1e-12 +
//!   1e-14·scale`);
//! - its matrix is symmetric to rounding, `|H_ij − H_ji| ≤ TOL`, and
//!   `f_gen_hvp` along each direction of [`directions`] (an axis, cycling
//!   over the inputs from point to point, and one uniform in [-1, 1]) has
//!   `f`'s value, `f_grad`'s gradient and `H·v` of that matrix, `|(Hv)_i −
//!   Σ_j H_ij v_j| ≤ TOL` with `Σ_j |H_ij v_j|` in the maximum. These hold
//!   everywhere (both run one forward-over-reverse sweep of one branch);
//! - where the oracle saw no tie (a decision taken at equality: `|0|`, a
//!   tie of `max`, a comparison of equal values; there the function is
//!   not twice differentiable) and its matrix is finite, each entry equals
//!   the oracle's `H_ij` and each `(H·v)_i` the oracle's, to `TOL`.
//!
//! `TOL` is `1e-8·max(|a|, |b|) + 1e-12 + 1e-13·scale`, `scale` the
//! largest magnitude the oracle's passes met (any part of any intermediate
//! number, and the cross terms of products, whose sums rounding is
//! relative to): forward over reverse (the macro) and forward over
//! forward (the oracle) add second-order terms in other orders, a loop's
//! many times over, so the relative tolerance is ten times the
//! gradient's, and the absolute term ten times that of the gradient's
//! comparison (1e-14 of the scale). In the batches of seeds 42, 7 and 2024
//! (100 programs each), 11 (300) and 2024 (500, the CI batch), 673
//! programs had a twin, checked at 2,016 test points (2,007 against the
//! oracle, 9 at a tie), and no second derivative came closer to its
//! tolerance than 1.7 % of it: the two agree to about 1e-10 relative,
//! where a wrong one is off by far more.
//!
//! The twins live in a second package of the generated crate's workspace
//! (`hessian/`, one module per program under `hessian`: its types, its
//! generic twin, the twins over `D` and over the hyper-dual numbers), built
//! by the same `cargo build` as the programs' crate: rustc checks a crate
//! on one core, so the two build side by side, and a compile error there
//! is the generic twin's own. Its binary runs after the programs' one, on
//! the programs that passed everything else there, at the test points
//! where `f_grad` passed (whose `f` value and `f_grad` gradient the
//! programs' binary hands over: `V` lines).
//!
//! A mismatch, or a panic or crash only in `f_gen_hessian`/`f_gen_hvp`, or
//! a compile error of the generic twin (kinds `hessian-refused: ..`,
//! `hessian-compile: ..`, `hessian-macro-panic`) is
//! [`crate::driver::Class::HessianWrong`] ("_hessian differs from the
//! oracle"). The self-test: with `DIFFTEST_PERTURB_HESSIAN=1` in the
//! tester's environment (the binary inherits it; `--self-test-hessian`
//! sets it), `f_gen_hessian`'s value is one bit off (programs `3k`), an
//! entry of its matrix off by 1e-3 relative (`3k + 1`), or `f_gen_hvp`'s
//! H·v (`3k + 2`), and every program under `hessian` must fail with
//! `hessian-value`, `hessian-asymmetric`/`hvp-product`/`hessian-matrix` or
//! `hvp-product` (those checks hold at every point, so no program escapes
//! at ties).

use crate::ast::*;
use crate::features::Features;
use std::collections::HashSet;

/// The most float inputs a program under `hessian` has (the issue's
/// bound: an `n × n` matrix takes `n(n + 1)/2` oracle passes per point).
pub const MAX_INPUTS: usize = 8;

/// What keeps a program out of `#[grad(hessian)]`, with why: what the
/// README says `#[grad(hessian)]` refuses (a function not generic over its
/// float type is what the twin is for), as the generator writes it, and
/// the bound on the inputs. Every other program gets the twin.
///
/// - `f` fallible (`f` returning `Result`/`Option`, feature
///   `fallible_call`): "a vector or fallible output" is refused. (A
///   fallible callee, `g0(..).unwrap()`, is taken and checked.)
/// - a local struct (`struct_values`): built from differentiated floats
///   and passed whole to `#[grad]` functions (`q.m0(e)`, `hp0(&q, e)`,
///   `q = q.st0(e)`), a differentiated struct in the callee, refused there
///   as above, and chained through a call ("a struct" among the arguments
///   whose second derivative a call would drop).
/// - a struct writer (`struct_writer`: `fn drift0(&mut self, dk0: f64)`,
///   `fn kick0(sp: &mut P0, kk0: f64)`, called on local structs of `f`):
///   `#[grad(hessian)]` refuses `&mut` parameters and a struct among the
///   differentiated parameters (README, "Second order"), which a writer
///   has both of, and the local structs it changes are refused as above.
/// - more than [`MAX_INPUTS`] float inputs, or none;
/// - the struct another call returns (`made_struct`): `P1`'s methods
///   differentiate their receiver, a struct, refused as above;
/// - with the feature `hessian_constant_output` off, a function returning
///   a tuple, or a writer, with an output that does not depend on its
///   inputs ([`has_constant_output`]), which did not compile generic
///   under `#[grad]` (a finding, fixed).
///
/// Taken, and checked: writers (`&mut` floats of a callee, not of `f`),
/// fallible callees unwrapped, calls returning arrays, tuples and `Vec`s,
/// results passed on whole, `#[checkpoint]` loops, constant structs and
/// enums, every loop, branch and chain form. A differentiated struct
/// parameter (`p0: &P0` in `wrt`, feature `struct_param`), which
/// `#[grad(hessian)]` refuses ("a struct .. among the differentiated
/// parameters"), is written as README says to write it: "a struct's
/// floats as parameters of their own", `f_gen(.., p0_f0: T, p0_f1: T,
/// p0_n: usize, p0_w: &[T])`, and its methods (`methods`,
/// `method_on_self`) as functions taking their receiver's so,
/// `m0_gen(p0_f0, .., x)`; a constant receiver (`const_receiver`) stays a
/// struct, its methods' twins constant in `self`.
pub const REFUSED: &[(&str, &str)] = &[
    (
        "a fallible f",
        "#[grad(hessian)] refuses a fallible function (`Result`, `Option`; `fallible_call`)",
    ),
    (
        "a local struct",
        "a local struct of differentiated floats is passed whole to #[grad] functions (`struct_values`): a struct among their differentiated parameters, refused by #[grad(hessian)]",
    ),
    (
        "more than 8 float inputs",
        "an n × n Hessian against n(n + 1)/2 oracle passes per point: the issue's bound of 8",
    ),
    ("no float input", "no second derivative to take"),
    (
        "a #[grad] function returning a struct",
        "`make(..) -> P1` and `P1`'s methods under `wrt(self)` (`made_struct`): a struct among the methods' differentiated parameters, refused by #[grad(hessian)], and a struct `make` returns to the caller's `_grad`",
    ),
    (
        "a struct writer",
        "#[grad(hessian)] refuses `&mut` parameters and a struct among the differentiated parameters, which a struct writer (`fn drift0(&mut self, ..)`, `fn kick0(sp: &mut P0, ..)`, `struct_writer`) has both of",
    ),
];

/// The construct of `p` that keeps it out of `#[grad(hessian)]`, if any:
/// an entry of [`REFUSED`].
pub fn refused(p: &Program) -> Option<&'static str> {
    let n = p.main.n_inputs();
    if p.main.ret.fallible() {
        Some(REFUSED[0].0)
    } else if !p.struct_writers.is_empty() {
        Some(REFUSED[5].0)
    } else if p.struct_fn.is_some() || crate::trace::has_local_struct(p) {
        Some(REFUSED[1].0)
    } else if n > MAX_INPUTS {
        Some(REFUSED[2].0)
    } else if n == 0 {
        Some(REFUSED[3].0)
    } else if p.made.is_some() {
        Some(REFUSED[4].0)
    } else {
        None
    }
}

/// Why `p`, generated with the features `f`, has no twin under
/// `#[grad(hessian)]`, if it has none.
pub fn unchecked_reason(p: &Program, f: &Features) -> Option<&'static str> {
    if !f.has("hessian") {
        return Some("feature `hessian` off");
    }
    if let Some(r) = refused(p) {
        return Some(r);
    }
    if !f.has("hessian_constant_output") && has_constant_output(p) {
        return Some("feature `hessian_constant_output` off");
    }
    None
}

/// Whether a function of `p` returning a tuple (`g2`, `array_call`), or
/// the writer (`float_writer`), has an output that does not depend on its
/// differentiated inputs ([`constant_output`]). In a generic function such
/// an output did not compile under `#[grad]` (E0283 "type annotations
/// needed" in the expansion): a finding, now fixed; without the feature
/// `hessian_constant_output` such programs have no twin.
pub fn has_constant_output(p: &Program) -> bool {
    p.multis
        .iter()
        .chain(&p.writer)
        .any(|g| matches!(g.ret, Ret::Tuple(_) | Ret::Unit) && constant_output(g))
}

/// The names an expression reads (a variable, an array, a struct's field by
/// its struct, a closure; in its blocks and calls too).
fn names_in(e: &Expr) -> Vec<String> {
    fn args_of(args: &[Arg], out: &mut Vec<String>) {
        for a in args {
            match a {
                Arg::A(n) | Arg::S(n) => out.push(n.clone()),
                Arg::W {
                    value: Whole::Var(n),
                    ..
                } => out.push(n.clone()),
                Arg::W {
                    value: Whole::Call(_, args),
                    ..
                } => args_of(args, out),
                // Floats and integers: their expressions are visited.
                Arg::F(_) | Arg::I(_) | Arg::B(_) => {}
            }
        }
    }
    let mut out = Vec::new();
    let mut e = e.clone();
    map_expr(
        &mut e,
        &mut |x: &mut Expr| match x {
            Expr::Var(v)
            | Expr::Index(v, _)
            | Expr::Sum(v)
            | Expr::CallClosure(v, _)
            | Expr::Field(v, _)
            | Expr::MapSum { arr: v, .. }
            | Expr::Fold { arr: v, .. } => out.push(v.clone()),
            Expr::ZipSum { a, b, .. } => out.extend([a.clone(), b.clone()]),
            Expr::Call(_, args)
            | Expr::Assoc(_, _, args)
            | Expr::ResultMethod { args, .. }
            | Expr::TryCall(_, args, _) => args_of(args, &mut out),
            Expr::Method(recv, _, args, _) => {
                out.push(recv.clone());
                args_of(args, &mut out);
            }
            _ => {}
        },
        &mut |_: &mut IExpr| {},
    );
    // `p0.w` is read through `p0`.
    out.into_iter()
        .map(|n| n.split('.').next().unwrap_or_default().to_string())
        .collect()
}

/// The assignments of `ss` (nested statements included): each target with
/// the names its value reads.
fn assignments(ss: &[Stmt], out: &mut Vec<(String, Vec<String>)>) {
    let all = |es: &[&Expr]| es.iter().flat_map(|e| names_in(e)).collect::<Vec<_>>();
    for s in ss {
        match s {
            Stmt::Let { name, init, .. } => out.push((name.clone(), names_in(init))),
            Stmt::Deferred { name, init, .. } => match init {
                DeferredInit::Direct(e) => out.push((name.clone(), names_in(e))),
                DeferredInit::Branch(_, a, b) => {
                    assignments(&a.stmts, out);
                    assignments(&b.stmts, out);
                    out.push((name.clone(), all(&[&a.tail, &b.tail])));
                }
            },
            Stmt::Assign { name, value, .. } => out.push((name.clone(), names_in(value))),
            Stmt::LetArr { name, init, .. } => {
                if let ArrInit::List { items, .. } = init {
                    out.push((name.clone(), all(&items.iter().collect::<Vec<_>>())));
                }
            }
            Stmt::LetClosure { name, body, .. } => out.push((name.clone(), names_in(body))),
            Stmt::Store { arr, value, .. } | Stmt::Push { arr, value } => {
                out.push((arr.clone(), names_in(value)))
            }
            Stmt::ArrAssign { dst, src } => match src {
                ArrSrc::Move(n) | ArrSrc::Copy(n) => out.push((dst.clone(), vec![n.clone()])),
                ArrSrc::Swap(n) => {
                    out.push((dst.clone(), vec![n.clone()]));
                    out.push((n.clone(), vec![dst.clone()]));
                }
                ArrSrc::Fill(e) => out.push((dst.clone(), names_in(e))),
                ArrSrc::List { items, .. } => {
                    out.push((dst.clone(), all(&items.iter().collect::<Vec<_>>())))
                }
                ArrSrc::Call(f, args) => {
                    let call = Expr::Call(f.clone(), args.clone());
                    out.push((dst.clone(), names_in(&call)));
                }
            },
            Stmt::WriterCall { name, lent, args } => {
                let call = Expr::Call(name.clone(), args.clone());
                let mut reads = names_in(&call);
                reads.extend(lent.iter().cloned());
                for l in lent {
                    out.push((l.clone(), reads.clone()));
                }
            }
            Stmt::LetTuple { names, init } => {
                let mut reads = Vec::new();
                for a in init.arms() {
                    assignments(&a.stmts, out);
                    reads.extend(all(&a.items.iter().collect::<Vec<_>>()));
                }
                for n in names {
                    out.push((n.clone(), reads.clone()));
                }
            }
            Stmt::LetCall { pat, func, args } => {
                let reads = names_in(&Expr::Call(func.clone(), args.clone()));
                let names = match pat {
                    CallPat::Whole(n) | CallPat::Passed(n) | CallPat::Made(n) => vec![n.clone()],
                    CallPat::Array(ns) | CallPat::Tuple(ns) => ns.clone(),
                };
                for n in names {
                    out.push((n, reads.clone()));
                }
            }
            Stmt::LetStruct { name, init, .. } => {
                let reads = match init {
                    StructInit::Lit(l) => all(&l.floats.iter().collect::<Vec<_>>()),
                    StructInit::Move(q) | StructInit::Clone(q) => vec![q.clone()],
                    StructInit::Update(given, q) => {
                        let mut r = all(&given.iter().map(|(_, e)| e).collect::<Vec<_>>());
                        r.push(q.clone());
                        r
                    }
                };
                out.push((name.clone(), reads));
            }
            Stmt::FieldAssign { name, value, .. } => out.push((name.clone(), names_in(value))),
            Stmt::StructStep { name, args, .. } => {
                let mut reads = names_in(&Expr::Call(String::new(), args.clone()));
                reads.push(name.clone());
                out.push((name.clone(), reads));
            }
            Stmt::ForEach { var, arr, body, .. } => {
                out.push((var.clone(), vec![arr.clone()]));
                assignments(body, out);
            }
            Stmt::WhileLet { var, src, body } => {
                if let WhileSrc::Iter { arr, .. } = src {
                    out.push((var.clone(), vec![arr.clone()]));
                }
                assignments(body, out);
            }
            Stmt::LetLoop {
                name, body, exit, ..
            } => {
                assignments(body, out);
                let mut reads = names_in(exit);
                breaks(body, &mut reads);
                out.push((name.clone(), reads));
            }
            Stmt::EnumMatch { name, arms, .. } => {
                for a in arms {
                    assignments(&a.stmts, out);
                }
                if let Some((n, _)) = name {
                    let values: Vec<&Expr> = arms.iter().filter_map(|a| a.value.as_ref()).collect();
                    out.push((n.clone(), all(&values)));
                }
            }
            Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Loop { body, .. } => {
                assignments(body, out)
            }
            Stmt::Labeled { body, .. } => assignments(std::slice::from_ref(&**body), out),
            Stmt::If { .. } | Stmt::Match { .. } => {
                for b in branches(s) {
                    assignments(b, out);
                }
            }
            Stmt::LetRef { name, target } => out.push((name.clone(), vec![target.clone()])),
            Stmt::Replace { old, target, src } => {
                out.extend(old.iter().map(|o| (o.clone(), vec![target.clone()])));
                out.push((target.clone(), vec![src.clone()]));
            }
            // A struct writer's call changes its target from the arguments.
            Stmt::StructWrite { target, args, .. } => {
                let mut reads = names_in(&Expr::Call(String::new(), args.clone()));
                reads.push(target.clone());
                out.push((target.clone(), reads));
            }
            Stmt::StructReplace { target, lit } => {
                out.push((target.clone(), all(&lit.floats.iter().collect::<Vec<_>>())))
            }
            Stmt::VecFieldAssign { target, src } => out.push((target.clone(), vec![src.clone()])),
            Stmt::Break
            | Stmt::Continue
            | Stmt::Return(_)
            | Stmt::ReturnVoid
            | Stmt::ReturnErr(_)
            | Stmt::BreakValue(_)
            | Stmt::BreakValueTo(..)
            | Stmt::BreakTo(_)
            | Stmt::ContinueTo(_)
            | Stmt::LetVec { .. } => {}
        }
    }
}

/// The names the `break e;` values of a `loop` read (not those of loops
/// inside it, which yield nothing).
fn breaks(ss: &[Stmt], out: &mut Vec<String>) {
    for s in ss {
        match s {
            Stmt::BreakValue(e) | Stmt::BreakValueTo(_, e) => out.extend(names_in(e)),
            Stmt::If { .. } | Stmt::Match { .. } | Stmt::EnumMatch { .. } => {
                for b in branches(s) {
                    breaks(b, out);
                }
            }
            _ => {}
        }
    }
}

/// Whether an output of `f` does not depend on its differentiated inputs:
/// an item of the tuple it returns, or a float a writer writes only with
/// values that do not (`*wm0 = C0.atan();`). A name depends on the inputs
/// if some assignment to it, anywhere, reads one that does
/// (flow-insensitively, as activity goes through loops).
pub fn constant_output(f: &Func) -> bool {
    let mut deps: HashSet<String> = f
        .params
        .iter()
        .filter(|q| q.kind.active())
        .map(|q| q.name.clone())
        .collect();
    let mut assigned = Vec::new();
    assignments(&f.body.stmts, &mut assigned);
    loop {
        let before = deps.len();
        for (target, reads) in &assigned {
            if reads.iter().any(|r| deps.contains(r)) {
                deps.insert(target.clone());
            }
        }
        if deps.len() == before {
            break;
        }
    }
    let depends = |e: &Expr| names_in(e).iter().any(|n| deps.contains(n));
    match f.ret {
        Ret::Tuple(_) => f.ret_items.iter().any(|e| !depends(e)),
        Ret::Unit => f
            .params
            .iter()
            .filter(|q| q.kind == PKind::MutScalar)
            .any(|q| {
                let writes: Vec<&Vec<String>> = assigned
                    .iter()
                    .filter(|(t, _)| *t == q.name)
                    .map(|(_, r)| r)
                    .collect();
                !writes.is_empty() && writes.iter().all(|r| !r.iter().any(|n| deps.contains(n)))
            }),
        _ => false,
    }
}

/// Whether `p` gets the twin as generated with `f`.
pub fn checkable(p: &Program, f: &Features) -> bool {
    unchecked_reason(p, f).is_none()
}

/// Whether `p` has the twin (decided by [`crate::gen::generate`]; a shrunk
/// program keeps its original's).
pub fn checked(p: &Program) -> bool {
    p.hessian
}

/// How many of `programs` have no twin, by reason: `none`, or `3
/// (reason), 1 (other reason)`.
pub fn unchecked_reasons(programs: &[Program], f: &Features) -> String {
    crate::trace::count_reasons(programs.iter().filter(|p| !p.hessian), |p| {
        unchecked_reason(p, f).unwrap_or("not under hessian")
    })
}

/// Directions per test point.
pub const DIRECTIONS: usize = 2;

/// The directions `f_gen_hvp` is checked along at test point `point` of
/// `p`, one entry per float input: the axis of input `point % n`, then
/// one uniform in [-1, 1] drawn from the point's bits (deterministic, and
/// the same in the reproducer).
pub fn directions(p: &Program, point: usize) -> Vec<Vec<f64>> {
    crate::jvp::directions_drawn(p, point, 0xBB67_AE85_84CA_A73B, &[1.0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_that_do_not_depend_on_the_inputs_are_found() {
        let x = |n: &str| Box::new(Expr::Var(n.to_string()));
        let lit = || Box::new(Expr::Lit(0.3, LitStyle::Plain));
        let tuple = |items: Vec<Expr>| Func {
            name: "g2".into(),
            params: vec![Param {
                name: "x".into(),
                kind: PKind::Scalar,
            }],
            body: Block {
                stmts: vec![Stmt::Let {
                    name: "a".into(),
                    mutable: false,
                    typed: false,
                    init: *lit(),
                }],
                tail: *lit(),
            },
            explicit_return: false,
            ret_arr: None,
            ret_struct: None,
            ret_items: items,
            ret: Ret::Tuple(2),
        };
        let sum = Expr::Bin(BinOp::Add, x("x"), x("a"));
        assert!(constant_output(&tuple(vec![*x("a"), sum.clone()])));
        assert!(!constant_output(&tuple(vec![sum.clone(), sum])));
        let mut writer = tuple(Vec::new());
        writer.ret = Ret::Unit;
        writer.params = vec![Param {
            name: "wm0".into(),
            kind: PKind::MutScalar,
        }];
        let assign = |value: Expr| Stmt::Assign {
            name: "wm0".into(),
            op: AOp::Set,
            value,
        };
        writer.body.stmts = vec![assign(*lit())];
        assert!(constant_output(&writer));
        writer.body.stmts = vec![assign(Expr::Bin(BinOp::Mul, x("wm0"), lit()))];
        assert!(!constant_output(&writer));
        writer.body.stmts = Vec::new();
        assert!(!constant_output(&writer), "never written: its entry value");
        // The feature keeps such programs under hessian.
        let off = Features::without(&["hessian_constant_output"]).unwrap();
        let (mut found, mut seed) = (0, 0);
        while found < 2 && seed < 3000 {
            let p = crate::gen::generate(seed, &off);
            if refused(&p).is_none() && has_constant_output(&p) {
                assert!(!p.hessian, "seed {seed}");
                assert!(crate::gen::generate(seed, &Features::all()).hessian);
                found += 1;
            }
            seed += 1;
        }
        assert_eq!(found, 2, "programs with a constant output in {seed} seeds");
    }

    #[test]
    fn every_program_without_a_refused_construct_is_under_hessian() {
        let all = Features::all();
        let off = Features::without(&["hessian"]).unwrap();
        let mut under = 0;
        for seed in 0..300 {
            let p = crate::gen::generate(seed, &all);
            let n = p.main.n_inputs();
            let refused_here = p.main.ret.fallible()
                || p.struct_fn.is_some()
                || crate::trace::has_local_struct(&p)
                || n > MAX_INPUTS
                || n == 0
                || p.made.is_some();
            assert_eq!(
                p.hessian,
                !refused_here,
                "seed {seed}: {:?}",
                unchecked_reason(&p, &all)
            );
            assert!(!crate::gen::generate(seed, &off).hessian);
            under += usize::from(p.hessian);
            for pt in 0..p.points.len() {
                let d = directions(&p, pt);
                assert_eq!(d, directions(&p, pt), "deterministic");
                assert_eq!(d.len(), DIRECTIONS);
                assert!(d.iter().all(|t| t.len() == n));
            }
        }
        assert!(under > 100, "{under} of 300 programs under hessian");
    }
}

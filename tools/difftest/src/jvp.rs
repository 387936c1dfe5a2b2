//! Which programs get `#[grad(jvp)]` (forward mode), and why the others do
//! not; the tangents `f_jvp` is checked along.
//!
//! `#[grad(jvp)]` also generates `f_jvp(args.., tangents..) -> (value,
//! tangent)`: one tangent per active parameter (every float and array
//! parameter, a struct named in `wrt`), in the parameter order, each of its
//! parameter's type (`d: f64`, `&[f64]`, `[f64; N]`, `&[f64; N]`,
//! `&Vec<f64>`, `&P0` whose float fields (`f0`, `w`) are tangents and whose
//! `n` is a copy). Only `f` gets `jvp`: `_jvp` calls the other `#[grad]`
//! functions (helper, methods, `hp0`) through their `_grad`, so their own
//! `_jvp` is not needed (`f_nockpt`, the copy of a checkpointed `f`, gets
//! it too, unused).
//!
//! On every program that has it, the harness (`templates/harness.rs`,
//! `check_jvp`) checks, at each test point where `f_grad` (and `f_trace`)
//! passed, along each direction of [`directions`] (three per point: an
//! axis, cycling over the inputs from point to point, and two random ones,
//! drawn from the point's bits, so the reproducer shows the same ones):
//!
//! - `f_jvp`'s value equals `f`'s bit for bit (it runs `f`'s code);
//! - its tangent `d` equals `f_grad`'s gradient dotted with the tangent,
//!   `s = Σ g_k t_k`, to
//!   `|d − s| ≤ 1e-9·max(|d|, |s|, Σ|g_k t_k|) + 1e-12 + 1e-14·max_k(scale_k·|t_k|)`
//!   (relative 1e-9, absolute 1e-12), `scale_k` the oracle's rounding
//!   scale of input k (the largest magnitude computed at the point, or the
//!   largest tangent the oracle's pass of input k added): forward mode
//!   adds the contributions in another order than reverse mode.
//!
//! A mismatch, or a panic or a crash only in `f_jvp`, is
//! [`crate::driver::Class::JvpWrong`] ("_jvp differs from _grad"); a rustc
//! error in the generated `_jvp` is the general "rustc error inside the
//! generated code" (a `#[grad]` error: "refused"). The self-test: with
//! `DIFFTEST_PERTURB_JVP=1` in the tester's environment (the binary
//! inherits it), every `f_jvp`'s value is one bit off (even programs) or
//! its tangent off by 1e-3 (odd ones), and every program under `jvp` must
//! fail with `jvp-value` / `jvp-tangent`.
//!
//! A finding of this check, fixed in the macro since (`_jvp` took the
//! tangent of `p0.n as f64` from the tangent struct's copy of `n`; tests/
//! jvp.rs `an_integer_fields_cast_has_no_tangent`), is checked like any
//! other program.

use crate::ast::*;
use crate::features::Features;

/// What `#[grad(jvp)]` refuses with a compile error (README, "Forward
/// mode"), as the generator writes it. Programs with one are generated
/// without `jvp` ([`refused`]); every other program gets it.
///
/// - a call returning a tuple or an array (`g1(..) -> [f64; 2]`,
///   `g2(..) -> (f64, f64)`, feature `array_call`) or a `Vec` (the step
///   function, `step_call`) or a struct (`q = q.st0(e)`, `struct_values`):
///   `f` calls every one the generator writes;
/// - a writer (`w0(&mut x, &mut y, e)`, `float_writer`), and a call of a
///   struct writer (`q.drift0(e);`, `kick0(&mut q, e);`, `struct_writer`:
///   "cannot take a call of a method, or of a writer, whose result is ..
///   a struct");
/// - a fallible function and a call of one (`fallible_call`: `f` returning
///   `Result`/`Option`, `g0(..)?`, `g0(..).unwrap()`);
/// - a function returning a struct (`st0`, which `f` calls: above), a
///   custom `pullback` (none written).
///
/// Taken, and checked: results passed on whole to another call (feature
/// `passed_whole`), floats (`let t = hf0(x, y); hf0(t, z)`) and arrays and
/// `Vec`s (`let d = mk0(x, y); rd0(d, z)`, `rv0(&vw0(&d, x), y)`).
/// `f_jvp` passes a vector result on through the callee's own `_jvp` (a
/// float one through its `_vjp`), so the functions of `passed_whole`
/// returning an array or a `Vec` get `jvp` too (src/render.rs
/// `with_jvp`). (Those of `array_call` and `step_call` are still left
/// out above, as when the macro refused them.)
pub const REFUSED: &[(&str, &str)] = &[
    (
        "a #[grad] function returning an array or a tuple",
        "#[grad(jvp)] refuses a call whose result is a tuple or an array (`array_call`)",
    ),
    (
        "a #[grad] function returning Vec<f64>",
        "#[grad(jvp)] refuses a call whose result is a vector (the step function of `step_call`)",
    ),
    (
        "a call of a writer",
        "#[grad(jvp)] refuses a call writing through `&mut` (`float_writer`)",
    ),
    (
        "a fallible function or a call of one",
        "#[grad(jvp)] refuses a fallible function and a fallible call (`fallible_call`)",
    ),
    (
        "a call of a method returning a struct",
        "#[grad(jvp)] refuses a call whose result is a struct (`q = q.st0(e)`, `struct_values`)",
    ),
    (
        "a call of a struct writer",
        "#[grad(jvp)] refuses a call of a struct writer, whose result is the struct's new value (`q.drift0(e);`, `kick0(&mut q, e);`; `struct_writer`)",
    ),
];

/// The construct of `p` that `#[grad(jvp)]` refuses, if any: an entry of
/// [`REFUSED`].
pub fn refused(p: &Program) -> Option<&'static str> {
    if !p.multis.is_empty() {
        Some(REFUSED[0].0)
    } else if p.step.is_some() {
        Some(REFUSED[1].0)
    } else if p.writer.is_some() {
        Some(REFUSED[2].0)
    } else if !p.struct_writers.is_empty() {
        Some(REFUSED[5].0)
    } else if p.fallible.is_some() || p.main.ret.fallible() {
        Some(REFUSED[3].0)
    } else if p.main.ret != Ret::Float || p.methods.iter().any(|m| m.ret == Ret::Struct) {
        Some(REFUSED[4].0)
    } else {
        None
    }
}

/// Why `p`, generated with the features `f`, does not get `jvp`, if it
/// does not.
pub fn unchecked_reason(p: &Program, f: &Features) -> Option<&'static str> {
    if !f.has("jvp") {
        return Some("feature `jvp` off");
    }
    if let Some(r) = refused(p) {
        return Some(r);
    }
    if !f.has("jvp_array_lent_as_slice") && lends_slices_whole(p) {
        return Some("feature `jvp_array_lent_as_slice` off");
    }
    if !f.has("jvp_filter") && filters_loops(p) {
        return Some("feature `jvp_filter` off");
    }
    if !f.has("jvp_path_method_arg") && gives_path_method_to_call(p) {
        return Some("feature `jvp_path_method_arg` off");
    }
    None
}

/// Whether a function of `p` gives a method called by its path directly
/// to another call as an argument (`free(P0::m0(p0, x))`, `p0.m0(P0::m0(p0,
/// x))`; `method_path`): under `jvp` the caller's `_jvp` calls the
/// method's `_jvp`, which it does not have (E0599, a finding:
/// jvp_path_method_as_argument.rs); the feature `jvp_path_method_arg`
/// switched off leaves such programs out of `jvp`.
pub fn gives_path_method_to_call(p: &Program) -> bool {
    fn direct(args: &[Arg]) -> bool {
        args.iter().any(|a| match a {
            Arg::F(Expr::Method(_, _, _, true)) => true,
            Arg::W {
                value: Whole::Call(_, inner),
                ..
            } => direct(inner),
            _ => false,
        })
    }
    let mut found = false;
    for f in p.functions() {
        let mut b = f.body.clone();
        map_block(
            &mut b,
            &mut |e: &mut Expr| {
                found |= match e {
                    Expr::Call(_, args)
                    | Expr::Method(_, _, args, _)
                    | Expr::Assoc(_, _, args)
                    | Expr::ResultMethod { args, .. }
                    | Expr::TryCall(_, args, _) => direct(args),
                    _ => false,
                }
            },
            &mut |_: &mut IExpr| {},
        );
        // Statements calling with arguments: `let d = g1(..);`, writers,
        // steps.
        let mut calls = Vec::new();
        stmt_args(&f.body.stmts, &mut calls);
        found |= calls.iter().any(|a| direct(a));
    }
    found
}

/// The arguments of the calls that statements of `ss` make themselves
/// (nested statements included): `let pat = g(args);`, `w0(.., args);`,
/// `u = step(args);`, `q = q.st0(args);`.
fn stmt_args(ss: &[Stmt], out: &mut Vec<Vec<Arg>>) {
    for s in ss {
        match s {
            Stmt::LetCall { args, .. }
            | Stmt::WriterCall { args, .. }
            | Stmt::StructStep { args, .. }
            | Stmt::ArrAssign {
                src: ArrSrc::Call(_, args),
                ..
            } => out.push(args.clone()),
            Stmt::For { body, .. }
            | Stmt::ForEach { body, .. }
            | Stmt::While { body, .. }
            | Stmt::WhileLet { body, .. }
            | Stmt::LetLoop { body, .. }
            | Stmt::Loop { body, .. } => stmt_args(body, out),
            Stmt::Labeled { body, .. } => stmt_args(std::slice::from_ref(&**body), out),
            Stmt::If { .. } | Stmt::Match { .. } | Stmt::EnumMatch { .. } => {
                for b in branches(s) {
                    stmt_args(b, out);
                }
            }
            _ => {}
        }
    }
}

/// Whether a function of `passed_whole` of `p` takes a slice (`vw0`,
/// `rv0`: `f` lends them arrays `mk0` returned, `&d`). Under `jvp`, an
/// array lent so to a vector function's `_jvp` (`vw0(&d, x)`), or to any
/// call in the arguments of one (`mk0(rv0(&d, x))`), did not compile
/// (E0277 "`&[f64; 2]: Given<Vec<f64>>` is not satisfied", fixed in
/// 452c5f5); the feature `jvp_array_lent_as_slice` switched off leaves
/// such programs out of `jvp`.
pub fn lends_slices_whole(p: &Program) -> bool {
    p.wholes.iter().any(|g| {
        g.params.iter().any(|q| {
            matches!(
                q.kind,
                PKind::Slice {
                    style: SliceStyle::Slice,
                    ..
                }
            )
        })
    })
}

/// Whether `p` gets `#[grad(jvp)]` as generated with `f`.
pub fn checkable(p: &Program, f: &Features) -> bool {
    unchecked_reason(p, f).is_none()
}

/// Whether `f` of `p` is under `#[grad(jvp)]` (decided by
/// [`crate::gen::generate`]; a shrunk program keeps its original's).
pub fn checked(p: &Program) -> bool {
    p.jvp
}

/// How many of `programs` are not under `jvp`, by reason: `none`, or
/// `3 (reason), 1 (other reason)`.
pub fn unchecked_reasons(programs: &[Program], f: &Features) -> String {
    crate::trace::count_reasons(programs.iter().filter(|p| !p.jvp), |p| {
        unchecked_reason(p, f).unwrap_or("not under jvp")
    })
}

/// Directions per test point.
pub const DIRECTIONS: usize = 3;

/// The tangents `f_jvp` is checked along at test point `point` of `p`,
/// one entry per float input (the layout of the point's floats and of
/// `f_grad`'s flattened gradient): the axis of input `point % n`, then
/// two directions uniform in [-1, 1] and [-2, 2], drawn from the point's
/// bits (deterministic, and the same in the reproducer).
pub fn directions(p: &Program, point: usize) -> Vec<Vec<f64>> {
    directions_drawn(p, point, 0x6A09_E667_F3BC_C908, &[1.0, 2.0])
}

/// The axis of input `point % n`, then one direction per span `w`, each
/// entry uniform in [-w, w], drawn from `salt` and the point's bits: the
/// directions of the `jvp` and `hessian` checks, each with its salt.
pub fn directions_drawn(p: &Program, point: usize, salt: u64, spans: &[f64]) -> Vec<Vec<f64>> {
    let n = p.main.n_inputs();
    let pt = &p.points[point.min(p.points.len().saturating_sub(1))];
    let mut seed = salt ^ point as u64;
    for f in &pt.floats {
        seed = crate::rng::splitmix64(&mut seed) ^ f.to_bits();
    }
    let mut rng = crate::rng::Rng::new(seed);
    let mut out = Vec::with_capacity(spans.len() + 1);
    if n > 0 {
        out.push(
            (0..n)
                .map(|k| f64::from(u8::from(k == point % n)))
                .collect(),
        );
    }
    for w in spans {
        out.push((0..n).map(|_| rng.uniform(-w, *w)).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_program_without_a_refused_construct_is_under_jvp() {
        let all = Features::all();
        let off = Features::without(&["jvp"]).unwrap();
        let mut under = 0;
        for seed in 0..300 {
            let p = crate::gen::generate(seed, &all);
            let refused_here = !p.multis.is_empty()
                || p.step.is_some()
                || p.writer.is_some()
                || !p.struct_writers.is_empty()
                || p.fallible.is_some()
                || p.main.ret != Ret::Float
                || p.methods.iter().any(|m| m.ret == Ret::Struct);
            assert_eq!(
                p.jvp,
                !refused_here,
                "seed {seed}: {:?}",
                unchecked_reason(&p, &all)
            );
            assert!(!crate::gen::generate(seed, &off).jvp);
            under += usize::from(p.jvp);
            let n = p.main.n_inputs();
            for pt in 0..p.points.len() {
                let d = directions(&p, pt);
                assert_eq!(d, directions(&p, pt), "deterministic");
                assert!(d.iter().all(|t| t.len() == n));
                if n > 0 {
                    assert_eq!(d[0].iter().filter(|v| **v == 1.0).count(), 1);
                }
            }
        }
        assert!(under > 150, "{under} of 300 programs under jvp");
    }
}

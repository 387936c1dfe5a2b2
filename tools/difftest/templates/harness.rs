//! Runs each program at its test points and prints one result line each:
//! `R <index> <class> <point> <detail>`, after `S <index>` when it starts,
//! `G <index>` before each call of `f_grad` and `T <index>` before each
//! call of `f_trace`, `J <index>` before each call of `f_jvp` (so that a
//! crash or a hang is blamed on the right program and the right function),
//! and `V <index> <point> <bits>` for the hessian check (`Prog::hessian`).
#![allow(warnings)]

use crate::dual::{largest_get, largest_tangent_take, trace_get, trace_reset, D};
use std::cell::RefCell;
use std::collections::HashSet;
use std::io::Write;

pub struct Prog {
    pub n_in: usize,
    pub plain: fn(&[f64], &[usize]) -> f64,
    pub grad: fn(&[f64], &[usize]) -> (f64, Vec<f64>),
    /// For a function with a `#[checkpoint(..)]` loop: `_grad` of the same
    /// function without the attribute, which `grad` must equal bit for bit.
    pub grad_nockpt: Option<fn(&[f64], &[usize]) -> (f64, Vec<f64>)>,
    /// The comparison with `grad_nockpt` tells 0.0 from -0.0 (otherwise
    /// zeros of either sign compare equal, every other value bit for bit).
    pub nockpt_zero_sign: bool,
    /// `f_trace`'s value and `Trace::gradient()`, for a program under
    /// `#[grad(trace)]`.
    pub trace: Option<fn(&[f64], &[usize]) -> (f64, Vec<(String, f64)>)>,
    /// `f_jvp(x, n, tangents)`, the tangents flattened as `x`, for a
    /// program under `#[grad(jvp)]` (src/jvp.rs).
    pub jvp: Option<fn(&[f64], &[usize], &[f64]) -> (f64, f64)>,
    /// Per test point, the tangents `f_jvp` is checked along (bits).
    pub jvp_dirs: &'static [&'static [&'static [u64]]],
    /// The program has a generic twin under `#[grad(hessian)]`, checked
    /// by the crate beside this one (`harness_hessian.rs`): each test
    /// point where `f_grad` passed is reported as `V <index> <point> <f's
    /// value and f_grad's gradient, as bits>` for it.
    pub hessian: bool,
    /// For a fallible `f` (returning `Result<f64, String>` or
    /// `Option<f64>`): `f`'s error and `f_grad`'s at a point (`None` where
    /// they succeed; an `Option`'s error is "None"). Where `f` fails,
    /// `f_grad` must fail with the same error, and nothing else is
    /// checked; where it succeeds, `plain`, `grad` and `dual` unwrap.
    pub errors: Option<(fn(&[f64], &[usize]) -> Option<String>, fn(&[f64], &[usize]) -> Option<String>)>,
    pub dual: fn(&[D], &[usize]) -> D,
    pub points: &'static [(&'static [u64], &'static [usize])],
    pub dir: &'static [u64],
    pub labels: &'static [&'static str],
}

/// Gradient entries agree when |g - o| <= REL * max(|g|, |o|) + ABS.
const REL: f64 = 1e-9;
const ABS: f64 = 1e-12;

thread_local! {
    static MSG: RefCell<String> = RefCell::new(String::new());
}

fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    MSG.with(|m| m.borrow_mut().clear());
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|_| MSG.with(|m| m.borrow().clone()))
}

pub fn main(progs: &[(usize, Prog)]) {
    std::panic::set_hook(Box::new(|info| {
        let p = info.payload();
        let msg = if let Some(s) = p.downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = p.downcast_ref::<String>() {
            s.clone()
        } else {
            "(non-string panic)".to_string()
        };
        let loc = info
            .location()
            .map(|l| format!(" (at {}:{})", l.file(), l.line()))
            .unwrap_or_default();
        MSG.with(|m| *m.borrow_mut() = format!("{msg}{loc}"));
    }));
    let skip: HashSet<usize> = std::env::args()
        .nth(1)
        .unwrap_or_default()
        .split(',')
        .filter_map(|s| s.parse().ok())
        .collect();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (idx, p) in progs {
        if skip.contains(idx) {
            continue;
        }
        let _ = writeln!(out, "S\t{idx}");
        let _ = out.flush();
        let (class, point, detail) = check(*idx, p, &mut out);
        let detail = detail.replace(['\t', '\n'], " ");
        let _ = writeln!(out, "R\t{idx}\t{class}\t{point}\t{detail}");
        let _ = out.flush();
    }
}

/// `a` and `b` agree to `REL`, beyond the rounding of sums whose terms
/// reach `scale` (the largest magnitude the function computes, or the
/// largest tangent the oracle's pass added): reverse mode adds a
/// variable's contributions in another order than forward mode, and
/// `(0.44 + 1e10) - 1e10` is not 0.44 in floating point.
fn close(a: f64, b: f64, scale: f64) -> bool {
    a == b || (a - b).abs() <= REL * a.abs().max(b.abs()) + ABS + 1e-14 * scale
}

fn bits(xs: &[u64]) -> Vec<f64> {
    xs.iter().map(|b| f64::from_bits(*b)).collect()
}

enum Taylor {
    Ok,
    NonSmooth,
    Fail(String),
}

fn trace_at(p: &Prog, x: &[f64], n: &[usize]) -> Option<u64> {
    let xd: Vec<D> = x.iter().map(|&v| D::c(v)).collect();
    trace_reset();
    catch(|| (p.dual)(&xd, n)).ok()?;
    Some(trace_get())
}

/// |f(x + h v) - f(x) - h <g, v>| must shrink as h^2: a coarse check,
/// independent of the oracle, for gross errors (the oracle's comparison is
/// the precise one). It is computed at h = 1e-2 .. 1e-8; among the ratios
/// r(h) / r(h / 10) of the four finest neighbours whose remainders are
/// both above the rounding noise (three times the remainder at the finest
/// h, at least 1e-14 (1 + |f|)), one must be at least 10^1.5 (about 100
/// for a right gradient, about 10 for a wrong one). The finest, not the
/// first: high curvature makes the coarse ones look quadratic, and some
/// functions turn at scales of 1e-5 (a loop amplifying a small
/// oscillation); one of four, so that neither a remainder where the h^2
/// and h^3 terms happen to cancel nor one touched by rounding decides. An h
/// whose segment crosses a kink or a branch (the twin's trace of decisions
/// changes along it) is not used, nor any coarser one (its segment holds
/// that crossing, though its end may have crossed back), nor the next
/// finer one (the expansion holds well inside the smooth piece, not at the
/// edge of it); nothing is checked when |f| exceeds 1e6,
/// a gradient entry 1e4 or an intermediate value 1e8 (rounding then
/// absorbs the input: `1e50 + x` does not change with x).
fn taylor(p: &Prog, x: &[f64], n: &[usize], y: f64, g: &[f64], dir: &[f64]) -> Taylor {
    if y.abs() > 1e6 || g.iter().any(|d| d.abs() > 1e4) {
        return Taylor::NonSmooth;
    }
    let Some(t0) = trace_at(p, x, n) else {
        return Taylor::NonSmooth;
    };
    if largest_get() > 1e8 {
        return Taylor::NonSmooth;
    }
    let gv: f64 = g.iter().zip(dir).map(|(a, b)| a * b).sum();
    let hs = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8];
    let mut r: [Option<f64>; 7] = [None; 7];
    // The finest h whose segment crosses a decision: it, every coarser h
    // and the next finer one are left out.
    let crossed = (0..hs.len()).rev().find(|&i| {
        let xh: Vec<f64> = x.iter().zip(dir).map(|(a, v)| a + hs[i] * v).collect();
        trace_at(p, &xh, n) != Some(t0)
    });
    for (i, h) in hs.iter().enumerate() {
        if crossed.is_some_and(|c| i <= c + 1) {
            continue;
        }
        let xh: Vec<f64> = x.iter().zip(dir).map(|(a, v)| a + h * v).collect();
        if let Ok(yh) = catch(|| (p.plain)(&xh, n)) {
            if yh.is_finite() {
                r[i] = Some((yh - y - h * gv).abs());
            }
        }
    }
    // The rounding noise: three times the remainder at the finest h (pure
    // rounding where the function is nearly linear, else a true h^2 term
    // that the coarser h exceed by 100 a decade), and at least
    // 1e-14 (1 + |f|). A wrong gradient's h term at the finest h is ten
    // times below its value at the next.
    let finest = r.iter().rev().flatten().next().copied().unwrap_or(0.0);
    let noise = (1e-14 * (1.0 + y.abs())).max(3.0 * finest);
    let text = || {
        r.iter()
            .map(|v| v.map_or("-".to_string(), |v| format!("{v:.3e}")))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let usable = |k: usize| r[k].filter(|v| *v > noise);
    let mut ratios: Vec<f64> = (0..hs.len() - 1)
        .filter_map(|k| Some(usable(k)? / usable(k + 1)?))
        .collect();
    if ratios.is_empty() {
        return if r.iter().all(|v| v.is_none()) { Taylor::NonSmooth } else { Taylor::Ok };
    }
    let last: Vec<f64> = ratios.split_off(ratios.len().saturating_sub(4));
    let best = last.iter().copied().fold(0.0, f64::max);
    if best >= 31.6 {
        Taylor::Ok
    } else {
        Taylor::Fail(format!(
            "remainders {} at h = 1e-2 .. 1e-8: ratios {:.1?} between the finest neighbours above noise {noise:.1e}, none near 100",
            text(),
            last
        ))
    }
}

fn taylor_text(t: &Taylor) -> String {
    match t {
        Taylor::Ok => "O(h^2) ok".into(),
        Taylor::NonSmooth => "skipped (not smooth along the segment, or ill-conditioned)".into(),
        Taylor::Fail(s) => format!("FAILS: {s}"),
    }
}

/// `f_trace` at a point where `f_grad` passed: its value must be `f`'s
/// (`y`) bit for bit, and its gradient `f_grad`'s (`g`) to the oracle's
/// tolerance (`scales`: per input, the scale `close` takes). Returns the
/// kind and the detail of a mismatch.
///
/// `Trace::gradient()` has one entry per input node, by name, in
/// `p.labels`' spelling: a scalar parameter under its name (`x0`) and an
/// array parameter one per element (`xs1[2]`), each exactly once (every
/// float parameter is in `wrt`, so every one is an input node, with
/// adjoint 0 where it does not reach the output); a struct parameter's
/// field one per active read (`p0.f1`: any number of entries, summed here,
/// and none for a field never read on the way to the output). An element
/// of a struct's `Vec` field is a node per read too, named by the read as
/// written (`p0.w[i * p0.n + j]`), not by the element: such a field is
/// checked whole, the sum of its nodes against the sum of `f_grad`'s
/// entries for it (labelled `p0.w[0]`, `p0.w[1]`, ..). An input without a
/// node must have an `f_grad` entry of exactly zero.
fn check_trace(
    idx: usize,
    p: &Prog,
    x: &[f64],
    n: &[usize],
    y: f64,
    g: &[f64],
    scales: &[f64],
    out: &mut impl Write,
) -> Option<(&'static str, String)> {
    let trace = p.trace?;
    let _ = writeln!(out, "T\t{idx}");
    let _ = out.flush();
    let (mut tv, mut tg) = match catch(|| trace(x, n)) {
        Ok(r) => r,
        Err(m) => return Some(("trace-panic", format!("f_trace panicked: {m}; f and f_grad did not"))),
    };
    if std::env::var_os("DIFFTEST_PERTURB_TRACE").is_some() {
        // The trace check's self-test: the value one bit off (even
        // programs, and those without an input node), or the first
        // gradient entry off by 1e-3 (odd programs), must be caught.
        match tg.first_mut() {
            Some((_, d)) if idx % 2 == 1 => *d += 1e-3 * (1.0 + d.abs()),
            _ => tv = f64::from_bits(tv.to_bits() ^ 1),
        }
    }
    let shown = || format!("f_trace's gradient {tg:?}; f_grad's {g:?}");
    if tv.to_bits() != y.to_bits() {
        return Some(("trace-value", format!("value of f_trace = {tv:?}, f = {y:?}; {}", shown())));
    }
    // A struct's `Vec` field (`p0.w` of the labels `p0.w[k]`), checked whole.
    let field = |l: &str| -> Option<String> {
        let (base, _) = l.split_once('[')?;
        base.contains('.').then(|| base.to_string())
    };
    let mut fields: Vec<(String, f64, f64, usize)> = Vec::new();
    for k in 0..p.n_in {
        if let Some(f) = field(p.labels[k]) {
            match fields.iter_mut().find(|(n, ..)| *n == f) {
                Some((_, g_sum, scale, _)) => {
                    *g_sum += g[k];
                    *scale = scale.max(scales[k]);
                }
                None => fields.push((f, g[k], scales[k], 0)),
            }
        }
    }
    let mut field_sums = vec![0.0; fields.len()];
    let mut sums: Vec<Option<f64>> = vec![None; p.n_in];
    let mut nodes = vec![0usize; p.n_in];
    let mut detail = String::new();
    for (name, d) in &tg {
        if let Some(i) = field(name).and_then(|f| fields.iter().position(|(n, ..)| *n == f)) {
            field_sums[i] += d;
            fields[i].3 += 1;
            continue;
        }
        match p.labels.iter().position(|l| l == name) {
            Some(k) => {
                sums[k] = Some(sums[k].unwrap_or(0.0) + d);
                nodes[k] += 1;
            }
            None => detail += &format!("input node `{name}` is no input of f; "),
        }
    }
    for k in 0..p.n_in {
        // Only a struct field (`p0.f1`) is an input node at each read.
        if nodes[k] > 1 && !p.labels[k].contains('.') {
            detail += &format!("{} input nodes `{}`, one expected; ", nodes[k], p.labels[k]);
        }
    }
    if !detail.is_empty() {
        return Some(("trace-inputs", format!("{detail}{}", shown())));
    }
    for (i, (f, g_sum, scale, n)) in fields.iter().enumerate() {
        let t = field_sums[i];
        let ok = if *n == 0 {
            // No node: f_grad's entries for the field must all be zero.
            p.labels.iter().zip(g).all(|(l, d)| field(l).as_deref() != Some(f.as_str()) || *d == 0.0)
        } else {
            close(t, *g_sum, *scale)
        };
        if !ok {
            detail += &format!("d/d{f} summed: f_trace = {t:?} ({n} nodes), f_grad = {g_sum:?}; ");
        }
    }
    for k in 0..p.n_in {
        if field(p.labels[k]).is_some() {
            continue;
        }
        match sums[k] {
            Some(d) if !close(d, g[k], scales[k]) => {
                detail += &format!("d/d{}: f_trace = {d:?}, f_grad = {:?}; ", p.labels[k], g[k]);
            }
            None if g[k] != 0.0 => {
                detail += &format!("d/d{}: f_trace has no input node, f_grad = {:?}; ", p.labels[k], g[k]);
            }
            _ => {}
        }
    }
    if !detail.is_empty() {
        return Some(("trace-grad", format!("{detail}{}", shown())));
    }
    None
}

/// `f_jvp` at a point where `f_grad` passed, along each of `dirs`: its
/// value must be `f`'s (`y`) bit for bit, and its tangent `d` the gradient
/// `g` dotted with the tangent `t`, `s = Σ g_k t_k`, to
/// `|d − s| ≤ REL·max(|d|, |s|, Σ|g_k t_k|) + ABS + 1e-14·max_k(scales_k·|t_k|)`
/// (`scales`: per input, the rounding scale `close` takes). Returns the
/// kind and the detail of a mismatch, or the number of directions checked.
fn check_jvp(
    idx: usize,
    p: &Prog,
    x: &[f64],
    n: &[usize],
    y: f64,
    g: &[f64],
    scales: &[f64],
    dirs: &[&[u64]],
    out: &mut impl Write,
) -> Result<usize, (&'static str, String)> {
    let Some(jvp) = p.jvp else { return Ok(0) };
    let perturb = std::env::var_os("DIFFTEST_PERTURB_JVP").is_some();
    for (di, tb) in dirs.iter().enumerate() {
        let t = bits(tb);
        let _ = writeln!(out, "J	{idx}");
        let _ = out.flush();
        let (mut v, mut d) = match catch(|| jvp(x, n, &t)) {
            Ok(r) => r,
            Err(m) => {
                return Err(("jvp-panic", format!("f_jvp panicked along t = {t:?}: {m}; f and f_grad did not")))
            }
        };
        if perturb {
            // The jvp check's self-test: the value one bit off (even
            // programs) or the tangent off by 1e-3 (odd ones).
            if idx % 2 == 1 {
                d += 1e-3 * (1.0 + d.abs());
            } else {
                v = f64::from_bits(v.to_bits() ^ 1);
            }
        }
        if v.to_bits() != y.to_bits() {
            return Err(("jvp-value", format!("value of f_jvp = {v:?}, f = {y:?} (along t = {t:?})")));
        }
        let s: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
        let mag: f64 = g.iter().zip(&t).map(|(a, b)| (a * b).abs()).sum();
        let sc = scales.iter().zip(&t).map(|(a, b)| a * b.abs()).fold(0.0, f64::max);
        let ok = d == s || (d - s).abs() <= REL * d.abs().max(s.abs()).max(mag) + ABS + 1e-14 * sc;
        if !ok {
            return Err((
                "jvp-tangent",
                format!(
                    "direction {di}: f_jvp's tangent = {d:?}, f_grad's gradient dotted with t = {s:?} (difference {:.3e}); t = {t:?}; f_grad's gradient {g:?}",
                    (d - s).abs()
                ),
            ));
        }
    }
    Ok(dirs.len())
}

fn check(idx: usize, p: &Prog, out: &mut impl Write) -> (&'static str, usize, String) {
    let dir = bits(p.dir);
    let mut checked = 0;
    let mut traced = 0;
    let mut jvp_points = 0;
    let mut jvp_dirs = 0;
    let mut failed = 0;
    for (pi, (xb, n)) in p.points.iter().enumerate() {
        let x = bits(xb);
        if let Some((error, grad_error)) = p.errors {
            let e = match catch(|| error(&x, n)) {
                Ok(e) => e,
                Err(m) => return ("genbug", pi, format!("f panicked: {m}")),
            };
            if let Some(e) = e {
                // f fails here: f_grad must fail with the same error.
                let _ = writeln!(out, "G\t{idx}");
                let _ = out.flush();
                let perturbed = std::env::var_os("DIFFTEST_PERTURB").is_some();
                match catch(|| grad_error(&x, n)) {
                    // The checker's self-test: an error other than f's must
                    // be caught too.
                    Ok(Some(ge)) if perturbed && ge == e => {
                        return ("wrong-error", pi, format!("f_grad failed with {ge:?} (perturbed to differ), f with {e:?}"))
                    }
                    Ok(Some(ge)) if ge == e => {
                        failed += 1;
                        continue;
                    }
                    Ok(Some(ge)) => {
                        return ("wrong-error", pi, format!("f_grad failed with {ge:?}, f with {e:?}"))
                    }
                    Ok(None) => {
                        return ("wrong-error", pi, format!("f_grad succeeded where f failed with {e:?}"))
                    }
                    Err(m) => {
                        return ("grad-panic", pi, format!("f_grad panicked: {m}; f failed with {e:?}"))
                    }
                }
            }
        }
        let y = match catch(|| (p.plain)(&x, n)) {
            Ok(y) => y,
            Err(m) => return ("genbug", pi, format!("f panicked: {m}")),
        };
        if !y.is_finite() {
            return ("rejected", pi, format!("f = {y:?}"));
        }
        let mut oracle = vec![0.0; p.n_in];
        // Per input, the largest tangent its pass added or subtracted.
        let mut tangents = vec![0.0; p.n_in];
        trace_reset();
        for k in 0..p.n_in {
            let xd: Vec<D> = x
                .iter()
                .enumerate()
                .map(|(j, &v)| D { v, d: if j == k { 1.0 } else { 0.0 } })
                .collect();
            largest_tangent_take();
            let r = match catch(|| (p.dual)(&xd, n)) {
                Ok(r) => r,
                Err(m) => return ("genbug", pi, format!("twin panicked: {m}")),
            };
            if r.v.to_bits() != y.to_bits() {
                return ("genbug", pi, format!("twin value {:?} differs from f = {y:?}", r.v));
            }
            oracle[k] = r.d;
            tangents[k] = largest_tangent_take();
        }
        // The largest magnitude computed at this point (the twin records
        // it as it runs).
        let scale = largest_get().max(y.abs());
        if oracle.iter().any(|o| !o.is_finite()) {
            return ("rejected", pi, format!("oracle derivative not finite: {oracle:?}"));
        }
        let _ = writeln!(out, "G\t{idx}");
        let _ = out.flush();
        let (v, mut g) = match catch(|| (p.grad)(&x, n)) {
            Ok(r) => r,
            Err(m) => return ("grad-panic", pi, format!("f_grad panicked: {m}; f = {y:?}")),
        };
        if g.len() != p.n_in {
            return ("genbug", pi, format!("{} gradient entries, expected {}", g.len(), p.n_in));
        }
        if let Some(reference) = p.grad_nockpt {
            // Checkpointing recomputes, and must give the recorded
            // gradient bit for bit.
            let (rv, rg) = match catch(|| reference(&x, n)) {
                Ok(r) => r,
                Err(m) => {
                    return ("grad-panic", pi, format!("f_nockpt_grad (f without #[checkpoint]) panicked: {m}; f and f_grad did not"))
                }
            };
            let zero_sign = p.nockpt_zero_sign;
            let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (!zero_sign && a == 0.0 && b == 0.0);
            if !same(v, rv) || rg.len() != g.len() || !g.iter().zip(&rg).all(|(a, b)| same(*a, *b)) {
                let mut detail = String::new();
                if !same(v, rv) {
                    detail += &format!("value: f_grad = {v:?}, f_nockpt_grad = {rv:?}; ");
                }
                for k in 0..g.len().min(rg.len()) {
                    if !same(g[k], rg[k]) {
                        let near = |d: f64| if close(d, oracle[k], scale.max(tangents[k])) { "agrees" } else { "disagrees" };
                        detail += &format!(
                            "d/d{}: f_grad = {:?} ({} with the oracle), f_nockpt_grad = {:?} ({}), oracle = {:?}; ",
                            p.labels[k], g[k], near(g[k]), rg[k], near(rg[k]), oracle[k]
                        );
                    }
                }
                return ("checkpoint", pi, format!("the checkpointed gradient differs from the one without #[checkpoint]: {detail}"));
            }
        }
        if std::env::var_os("DIFFTEST_PERTURB").is_some() {
            // The checker's self-test: a gradient off by 1e-3 must be caught.
            g[0] += 1e-3 * (1.0 + g[0].abs());
        }
        let bad: Vec<usize> = (0..p.n_in)
            .filter(|&k| !close(g[k], oracle[k], scale.max(tangents[k])))
            .collect();
        let mut detail = String::new();
        if v.to_bits() != y.to_bits() {
            detail += &format!("value of f_grad = {v:?}, f = {y:?}; ");
        }
        for &k in &bad {
            detail += &format!("d/d{}: f_grad = {:?}, oracle = {:?}; ", p.labels[k], g[k], oracle[k]);
        }
        let tg = taylor(p, &x, n, y, &g, &dir);
        if !detail.is_empty() {
            let to = taylor(p, &x, n, y, &oracle, &dir);
            detail += &format!(
                "Taylor check of f_grad's gradient: {}; of the oracle's: {}",
                taylor_text(&tg),
                taylor_text(&to)
            );
            let class = if v.to_bits() != y.to_bits() { "wrong-value" } else { "wrong-grad" };
            return (class, pi, detail);
        }
        match tg {
            Taylor::Ok => checked += 1,
            Taylor::NonSmooth => {}
            Taylor::Fail(s) => {
                return (
                    "taylor",
                    pi,
                    format!("f_grad agrees with the oracle ({g:?}) but the Taylor check fails: {s}"),
                )
            }
        }
        if p.trace.is_some() {
            let scales: Vec<f64> = tangents.iter().map(|t| scale.max(*t)).collect();
            if let Some((kind, detail)) = check_trace(idx, p, &x, n, y, &g, &scales, out) {
                return (kind, pi, detail);
            }
            traced += 1;
        }
        if p.jvp.is_some() {
            let scales: Vec<f64> = tangents.iter().map(|t| scale.max(*t)).collect();
            let dirs = p.jvp_dirs.get(pi).copied().unwrap_or(&[]);
            match check_jvp(idx, p, &x, n, y, &g, &scales, dirs, out) {
                Ok(k) => {
                    jvp_points += 1;
                    jvp_dirs += k;
                }
                Err((kind, detail)) => return (kind, pi, detail),
            }
        }
        if p.hessian {
            // f's value and f_grad's gradient, for the hessian check.
            let words: Vec<String> = std::iter::once(y)
                .chain(g.iter().copied())
                .map(|v| format!("{:016x}", v.to_bits()))
                .collect();
            let _ = writeln!(out, "V\t{idx}\t{pi}\t{}", words.join(" "));
        }
    }
    (
        "pass",
        0,
        format!(
            "taylor checked at {checked} of {} points; errors of f and f_grad compared at {failed}; f_jvp checked at {jvp_points} points along {jvp_dirs} directions; f_trace checked at {traced}",
            p.points.len()
        ),
    )
}

//! The hessian check's harness (src/hessian.rs), in the crate beside the
//! programs' one: runs each program's generic twin at the test points
//! where the programs' binary reported that `f_grad` passed (`V` lines,
//! handed over in a file: `f`'s value and `f_grad`'s gradient), and
//! prints `R <index> <class> <point> <detail>` per program, after `S
//! <index>` when it starts and `H <index>` before each call of
//! `f_gen_hessian` or `f_gen_hvp`.
#![allow(warnings)]

use crate::dual::{largest_get, largest_tangent_take, trace_get, trace_reset, D};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io::Write;

pub struct ProgH {
    pub n_in: usize,
    /// The twin over the dual numbers: the first-order oracle (the
    /// tolerances' scales, the trace of decisions).
    pub dual: fn(&[D], &[usize]) -> D,
    /// The twin over the hyper-dual numbers (the second-order oracle).
    pub hyper: fn(&[crate::hyper::D], &[usize]) -> crate::hyper::D,
    /// `f_gen_hessian(x, n)`: its value, its gradient flattened as `x`,
    /// its matrix.
    pub hessian: fn(&[f64], &[usize]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    /// `f_gen_hvp(x, n, v)`, `v` flattened as `x`: value, gradient, H·v.
    pub hvp: fn(&[f64], &[usize], &[f64]) -> (f64, Vec<f64>, Vec<f64>),
    pub points: &'static [(&'static [u64], &'static [usize])],
    /// Per test point, the directions `f_gen_hvp` is checked along (bits).
    pub hvp_dirs: &'static [&'static [&'static [u64]]],
    pub labels: &'static [&'static str],
}

/// Gradient entries agree when |g - o| <= REL * max(|g|, |o|) + ABS (as in
/// the programs' harness).
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

/// As the programs' harness: `a` and `b` agree to `REL` beyond the
/// rounding of sums whose terms reach `scale`.
fn close(a: f64, b: f64, scale: f64) -> bool {
    a == b || (a - b).abs() <= REL * a.abs().max(b.abs()) + ABS + 1e-14 * scale
}

fn bits(xs: &[u64]) -> Vec<f64> {
    xs.iter().map(|b| f64::from_bits(*b)).collect()
}

fn trace_at(dual: fn(&[D], &[usize]) -> D, x: &[f64], n: &[usize]) -> Option<u64> {
    let xd: Vec<D> = x.iter().map(|&v| D::c(v)).collect();
    trace_reset();
    catch(|| dual(&xd, n)).ok()?;
    Some(trace_get())
}

/// `args[1]`: the programs to skip; `args[2]`: the file of `V` lines (`f`'s
/// value and `f_grad`'s gradient per program and test point).
pub fn main(progs: &[(usize, ProgH)]) {
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
    let args: Vec<String> = std::env::args().collect();
    let skip: HashSet<usize> = args
        .get(1)
        .map(|s| s.split(',').filter_map(|s| s.parse().ok()).collect())
        .unwrap_or_default();
    let mut passed: HashMap<(usize, usize), (f64, Vec<f64>)> = HashMap::new();
    let text = args.get(2).and_then(|f| std::fs::read_to_string(f).ok()).unwrap_or_default();
    for line in text.lines() {
        let parts: Vec<&str> = line.split('\t').collect();
        if let ["V", i, pt, words] = parts.as_slice() {
            let vals: Vec<f64> = words
                .split(' ')
                .filter_map(|w| u64::from_str_radix(w, 16).ok())
                .map(f64::from_bits)
                .collect();
            if let (Ok(i), Ok(pt), Some((y, g))) = (i.parse(), pt.parse(), vals.split_first()) {
                passed.insert((i, pt), (*y, g.to_vec()));
            }
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (idx, p) in progs {
        if skip.contains(idx) {
            continue;
        }
        let _ = writeln!(out, "S\t{idx}");
        let _ = out.flush();
        let (class, point, detail) = check(*idx, p, &passed, &mut out);
        let detail = detail.replace(['\t', '\n'], " ");
        let _ = writeln!(out, "R\t{idx}\t{class}\t{point}\t{detail}");
        let _ = out.flush();
    }
}

/// The hessian check of one program at every test point the programs'
/// binary passed (`passed`: `f`'s value and `f_grad`'s gradient there).
fn check(
    idx: usize,
    p: &ProgH,
    passed: &HashMap<(usize, usize), (f64, Vec<f64>)>,
    out: &mut impl Write,
) -> (&'static str, usize, String) {
    let (mut points, mut oracle, mut ties, mut infinite, mut dirs_done) = (0, 0, 0, 0, 0);
    let mut worst: f64 = 0.0;
    for (pi, (xb, n)) in p.points.iter().enumerate() {
        let Some((y, g)) = passed.get(&(idx, pi)) else { continue };
        let x = bits(xb);
        if g.len() != p.n_in {
            return ("genbug", pi, format!("{} gradient entries handed over, expected {}", g.len(), p.n_in));
        }
        // The first-order oracle's rounding scales, as the programs'
        // harness computes them.
        let mut tangents = vec![0.0; p.n_in];
        trace_reset();
        for k in 0..p.n_in {
            let xd: Vec<D> = x
                .iter()
                .enumerate()
                .map(|(j, &v)| D { v, d: if j == k { 1.0 } else { 0.0 } })
                .collect();
            largest_tangent_take();
            if let Err(m) = catch(|| (p.dual)(&xd, n)) {
                return ("genbug", pi, format!("twin panicked: {m}"));
            }
            tangents[k] = largest_tangent_take();
        }
        let scale = largest_get().max(y.abs());
        let scales: Vec<f64> = tangents.iter().map(|t| scale.max(*t)).collect();
        let dirs = p.hvp_dirs.get(pi).copied().unwrap_or(&[]);
        match check_hessian(idx, p, &x, n, *y, g, &scales, dirs, out) {
            Ok((status, w)) => {
                points += 1;
                oracle += usize::from(status == Second2::Compared);
                ties += usize::from(status == Second2::Tie);
                infinite += usize::from(status == Second2::NotFinite);
                dirs_done += dirs.len();
                worst = worst.max(w);
            }
            Err((kind, detail)) => return (kind, pi, detail),
        }
    }
    (
        "pass",
        0,
        format!(
            "f_gen_hessian checked at {points} points ({oracle} against the oracle, {ties} at a tie, {infinite} not finite) with f_gen_hvp along {dirs_done} directions, largest difference from the oracle {worst:.3e} of its tolerance"
        ),
    )
}

/// Second derivatives agree when |a − b| ≤ REL2·max(|a|, |b|, mag) + ABS +
/// SCALE2·scale (src/hessian.rs: `mag` the sum of the magnitudes of an
/// H·v's terms, `scale` the largest magnitude the oracle's passes met).
const REL2: f64 = 1e-8;
const SCALE2: f64 = 1e-13;

fn close2(a: f64, b: f64, mag: f64, scale: f64) -> bool {
    a == b || (a - b).abs() <= REL2 * a.abs().max(b.abs()).max(mag) + ABS + SCALE2 * scale
}

/// |a − b| over its tolerance (`close2` holds below 1).
fn ratio2(a: f64, b: f64, mag: f64, scale: f64) -> f64 {
    if a == b {
        0.0
    } else {
        (a - b).abs() / (REL2 * a.abs().max(b.abs()).max(mag) + ABS + SCALE2 * scale)
    }
}

/// Equal, or both not a number.
fn same_or_nan(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// What the second-order oracle says at a point.
struct Second {
    /// `H_ij`, and the largest magnitude the pass of `(i, j)` met.
    h: Vec<Vec<f64>>,
    scale: Vec<Vec<f64>>,
    /// Decisions taken at a tie (the function is not twice differentiable
    /// there).
    ties: u64,
}

/// One pass of the hyper-dual twin with `ε1 = e1`, `ε2 = e2` (flattened as
/// `x`): the result and the largest magnitude it met. Its value must be
/// `f`'s (`y`) bit for bit, its trace of decisions the first-order
/// twin's (`trace`).
fn hyper_pass(
    hyper: fn(&[crate::hyper::D], &[usize]) -> crate::hyper::D,
    x: &[f64],
    n: &[usize],
    e1: &[f64],
    e2: &[f64],
    y: f64,
    trace: Option<u64>,
    ties: &mut u64,
) -> Result<(crate::hyper::D, f64), String> {
    let xs: Vec<crate::hyper::D> = (0..x.len()).map(|k| crate::hyper::D::seed(x[k], e1[k], e2[k])).collect();
    crate::hyper::reset();
    let r = catch(|| hyper(&xs, n)).map_err(|m| format!("the hyper-dual twin panicked: {m}"))?;
    if r.v().to_bits() != y.to_bits() {
        return Err(format!("the hyper-dual twin's value {:?} differs from f = {y:?}", r.v()));
    }
    if trace.is_some_and(|t| t != crate::hyper::trace_get()) {
        return Err("the hyper-dual twin took other branches than the dual one".to_string());
    }
    *ties += crate::hyper::ties();
    Ok((r, crate::hyper::largest()))
}

/// The oracle's Hessian at `x` (`n(n + 1)/2` passes), after checking that
/// its gradient (the ε1 parts) is `f_grad`'s `g` to the first-order
/// tolerance (`scales`).
fn hyper_hessian(
    p: &ProgH,
    hyper: fn(&[crate::hyper::D], &[usize]) -> crate::hyper::D,
    x: &[f64],
    n: &[usize],
    y: f64,
    g: &[f64],
    scales: &[f64],
) -> Result<Second, String> {
    let m = p.n_in;
    let trace = trace_at(p.dual, x, n);
    let mut second = Second { h: vec![vec![0.0; m]; m], scale: vec![vec![0.0; m]; m], ties: 0 };
    let unit = |k: usize| -> Vec<f64> { (0..m).map(|j| f64::from(u8::from(j == k))).collect() };
    for i in 0..m {
        for j in i..m {
            let (r, scale) = hyper_pass(hyper, x, n, &unit(i), &unit(j), y, trace, &mut second.ties)?;
            if i == j && !close(r.h.eps1, g[i], scales[i]) {
                return Err(format!(
                    "the hyper-dual twin's d/d{} = {:?} differs from f_grad's {:?} (and the dual twin's)",
                    p.labels[i], r.h.eps1, g[i]
                ));
            }
            second.h[i][j] = r.h.eps1eps2;
            second.h[j][i] = r.h.eps1eps2;
            second.scale[i][j] = scale;
            second.scale[j][i] = scale;
        }
    }
    Ok(second)
}

/// `f_gen_hessian` and `f_gen_hvp` of the generic twin at a point where
/// `f_grad` passed (src/hessian.rs): value `y` bit for bit, gradient `g`
/// to the first-order tolerance (`scales`), a symmetric matrix, `H·v` of
/// it along `dirs`, and, where the oracle saw no tie and is finite, the
/// oracle's matrix and H·v. Returns the kind and the detail of a mismatch
/// (`genbug` for the oracle's own), or whether the oracle was compared
/// (`Compared`) or not (`Tie`, `NotFinite`) and the largest second-order
/// difference over its tolerance.
fn check_hessian(
    idx: usize,
    p: &ProgH,
    x: &[f64],
    n: &[usize],
    y: f64,
    g: &[f64],
    scales: &[f64],
    dirs: &[&[u64]],
    out: &mut impl Write,
) -> Result<(Second2, f64), (&'static str, String)> {
    let (hessian, hvp, hyper) = (p.hessian, p.hvp, p.hyper);
    let m = p.n_in;
    let second = hyper_hessian(p, hyper, x, n, y, g, scales).map_err(|e| ("genbug", e))?;
    let finite = second.h.iter().flatten().all(|v| v.is_finite());
    let smooth = finite && second.ties == 0;
    let perturb = std::env::var_os("DIFFTEST_PERTURB_HESSIAN").is_some();
    let _ = writeln!(out, "H\t{idx}");
    let _ = out.flush();
    let (mut v, hg, mut h) = catch(|| hessian(x, n))
        .map_err(|m| ("hessian-panic", format!("f_gen_hessian panicked: {m}; f and f_grad did not")))?;
    if perturb {
        // The self-test: the value one bit off, or an entry of the matrix
        // off by 1e-3 (the H·v's: below).
        match idx % 3 {
            0 => v = f64::from_bits(v.to_bits() ^ 1),
            1 if !h.is_empty() && !h[m - 1].is_empty() => {
                let e = &mut h[m - 1][0];
                *e += 1e-3 * (1.0 + e.abs());
            }
            _ => {}
        }
    }
    let shown = |h: &[Vec<f64>]| format!("f_gen_hessian's matrix {h:?}; the oracle's {:?}", second.h);
    if v.to_bits() != y.to_bits() {
        return Err(("hessian-value", format!("value of f_gen_hessian = {v:?}, f = {y:?}")));
    }
    if hg.len() != m || h.len() != m || h.iter().any(|r| r.len() != m) {
        return Err(("hessian-shape", format!("{} gradient entries and a matrix of {} rows ({:?} columns), expected {m}", hg.len(), h.len(), h.iter().map(|r| r.len()).collect::<Vec<_>>())));
    }
    let mut detail = String::new();
    for k in 0..m {
        if !close(hg[k], g[k], scales[k]) {
            detail += &format!("d/d{}: f_gen_hessian = {:?}, f_grad = {:?}; ", p.labels[k], hg[k], g[k]);
        }
    }
    if !detail.is_empty() {
        return Err(("hessian-grad", detail));
    }
    if finite {
        // Not a number where the oracle's second derivatives are finite.
        for i in 0..m {
            for j in 0..m {
                if !h[i][j].is_finite() {
                    detail += &format!("H[{i}][{j}] = {:?}, oracle {:?}; ", h[i][j], second.h[i][j]);
                }
            }
        }
        if !detail.is_empty() {
            return Err(("hessian-nonfinite", format!("{detail}{}", shown(&h))));
        }
    }
    for i in 0..m {
        for j in 0..i {
            let s = second.scale[i][j];
            if !(same_or_nan(h[i][j], h[j][i]) || close2(h[i][j], h[j][i], 0.0, s)) {
                detail += &format!("H[{i}][{j}] = {:?}, H[{j}][{i}] = {:?}; ", h[i][j], h[j][i]);
            }
        }
    }
    if !detail.is_empty() {
        return Err(("hessian-asymmetric", format!("{detail}{}", shown(&h))));
    }
    let mut worst: f64 = 0.0;
    for (di, vb) in dirs.iter().enumerate() {
        let dir = bits(vb);
        let _ = writeln!(out, "H\t{idx}");
        let _ = out.flush();
        let (hv_v, hv_g, mut hv) = catch(|| hvp(x, n, &dir)).map_err(|m| {
            ("hessian-panic", format!("f_gen_hvp panicked along v = {dir:?}: {m}; f and f_grad did not"))
        })?;
        if perturb && idx % 3 == 2 && di == 0 {
            if let Some(e) = hv.first_mut() {
                *e += 1e-3 * (1.0 + e.abs());
            }
        }
        if hv_v.to_bits() != y.to_bits() {
            return Err(("hvp-value", format!("value of f_gen_hvp = {hv_v:?}, f = {y:?} (along v = {dir:?})")));
        }
        if hv_g.len() != m || hv.len() != m {
            return Err(("hessian-shape", format!("f_gen_hvp: {} gradient entries and {} of H·v, expected {m}", hv_g.len(), hv.len())));
        }
        for k in 0..m {
            if !close(hv_g[k], g[k], scales[k]) {
                detail += &format!("d/d{}: f_gen_hvp = {:?}, f_grad = {:?}; ", p.labels[k], hv_g[k], g[k]);
            }
        }
        if !detail.is_empty() {
            return Err(("hvp-grad", format!("along v = {dir:?}: {detail}")));
        }
        // H·v of f_gen_hessian's matrix, and of the oracle's passes.
        let mut oracle_hv = vec![0.0; m];
        let mut oracle_scale = vec![0.0; m];
        if smooth {
            let trace = trace_at(p.dual, x, n);
            let mut ties = 0;
            for i in 0..m {
                let e: Vec<f64> = (0..m).map(|j| f64::from(u8::from(j == i))).collect();
                let (r, scale) = hyper_pass(hyper, x, n, &e, &dir, y, trace, &mut ties).map_err(|e| ("genbug", e))?;
                oracle_hv[i] = r.h.eps1eps2;
                oracle_scale[i] = scale;
            }
        }
        for i in 0..m {
            let want: f64 = (0..m).map(|j| h[i][j] * dir[j]).sum();
            let mag: f64 = (0..m).map(|j| (h[i][j] * dir[j]).abs()).sum();
            let s = (0..m).map(|j| second.scale[i][j] * dir[j].abs()).fold(0.0, f64::max);
            if !(same_or_nan(hv[i], want) || close2(hv[i], want, mag, s)) {
                return Err((
                    "hvp-product",
                    format!(
                        "direction {di}: (H·v)[{i}] of f_gen_hvp = {:?}, of f_gen_hessian's matrix = {want:?}; v = {dir:?}; f_gen_hvp's H·v {hv:?}; {}",
                        hv[i],
                        shown(&h)
                    ),
                ));
            }
            if smooth {
                let o = oracle_hv[i];
                let mag: f64 = (0..m).map(|j| (second.h[i][j] * dir[j]).abs()).sum();
                let s = oracle_scale[i].max(s);
                worst = worst.max(ratio2(hv[i], o, mag, s));
                if !close2(hv[i], o, mag, s) {
                    return Err((
                        "hvp-oracle",
                        format!(
                            "direction {di}: (H·v)[{i}] of f_gen_hvp = {:?}, the oracle's = {o:?} (difference {:.3e}); v = {dir:?}; f_gen_hvp's H·v {hv:?}, the oracle's {oracle_hv:?}",
                            hv[i],
                            (hv[i] - o).abs()
                        ),
                    ));
                }
            }
        }
    }
    if smooth {
        for i in 0..m {
            for j in 0..m {
                let (a, o, s) = (h[i][j], second.h[i][j], second.scale[i][j]);
                worst = worst.max(ratio2(a, o, 0.0, s));
                if !close2(a, o, 0.0, s) {
                    detail += &format!("H[{i}][{j}] = {a:?}, oracle {o:?} (difference {:.3e}); ", (a - o).abs());
                }
            }
        }
        if !detail.is_empty() {
            return Err(("hessian-matrix", format!("{detail}{}", shown(&h))));
        }
    }
    let status = if smooth {
        Second2::Compared
    } else if finite {
        Second2::Tie
    } else {
        Second2::NotFinite
    };
    Ok((status, worst))
}

/// Whether the oracle's second derivatives were compared at a point.
#[derive(Clone, Copy, PartialEq)]
enum Second2 {
    Compared,
    /// A decision was taken at a tie.
    Tie,
    /// The oracle's matrix is not finite.
    NotFinite,
}


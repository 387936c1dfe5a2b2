//! Runs each program at its test points and prints one result line each:
//! `R <index> <class> <point> <detail>`, after `S <index>` when it starts
//! and `G <index>` before each call of `f_grad` (so that a crash or a hang
//! is blamed on the right program and the right function).
#![allow(warnings)]

use crate::dual::{trace_get, trace_reset, D};
use std::cell::RefCell;
use std::collections::HashSet;
use std::io::Write;

pub struct Prog {
    pub n_in: usize,
    pub plain: fn(&[f64], &[usize]) -> f64,
    pub grad: fn(&[f64], &[usize]) -> (f64, Vec<f64>),
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

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= REL * a.abs().max(b.abs()) + ABS
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

/// |f(x + h v) - f(x) - h <g, v>| must shrink as h^2: from h = 1e-3 to
/// h = 1e-4 by a factor of at least 10^1.5 (about 100 for a right
/// gradient, about 10 for a wrong one), unless it is below the rounding
/// noise 1e-10 (1 + |f|). Skipped when the segment crosses a kink or a
/// branch (the twin's trace of decisions changes along it), or when |f| or
/// a gradient entry exceeds 1e6.
fn taylor(p: &Prog, x: &[f64], n: &[usize], y: f64, g: &[f64], dir: &[f64]) -> Taylor {
    // Far outside the bounded programs the generator means to write, the
    // rounding of f64 swamps the h^2 term: inconclusive.
    if y.abs() > 1e6 || g.iter().any(|d| d.abs() > 1e6) {
        return Taylor::NonSmooth;
    }
    let t0 = trace_at(p, x, n);
    let gv: f64 = g.iter().zip(dir).map(|(a, b)| a * b).sum();
    let hs = [1e-2, 1e-3, 1e-4];
    let mut r = [0.0; 3];
    for (i, h) in hs.iter().enumerate() {
        let xh: Vec<f64> = x.iter().zip(dir).map(|(a, v)| a + h * v).collect();
        if t0.is_none() || trace_at(p, &xh, n) != t0 {
            return Taylor::NonSmooth;
        }
        let yh = match catch(|| (p.plain)(&xh, n)) {
            Ok(v) if v.is_finite() => v,
            _ => return Taylor::NonSmooth,
        };
        r[i] = (yh - y - h * gv).abs();
    }
    let noise = 1e-10 * (1.0 + y.abs());
    if r[2] <= noise {
        return Taylor::Ok;
    }
    let q = r[1] / r[2];
    if q >= 31.6 {
        Taylor::Ok
    } else {
        Taylor::Fail(format!(
            "remainders {:.3e} {:.3e} {:.3e} at h = 1e-2 1e-3 1e-4 (ratio {:.1}, expected ~100)",
            r[0], r[1], r[2], q
        ))
    }
}

fn taylor_text(t: &Taylor) -> String {
    match t {
        Taylor::Ok => "O(h^2) ok".into(),
        Taylor::NonSmooth => "skipped (not smooth along the segment, or |f| or |g| > 1e6)".into(),
        Taylor::Fail(s) => format!("FAILS: {s}"),
    }
}

fn check(idx: usize, p: &Prog, out: &mut impl Write) -> (&'static str, usize, String) {
    let dir = bits(p.dir);
    let mut checked = 0;
    for (pi, (xb, n)) in p.points.iter().enumerate() {
        let x = bits(xb);
        let y = match catch(|| (p.plain)(&x, n)) {
            Ok(y) => y,
            Err(m) => return ("genbug", pi, format!("f panicked: {m}")),
        };
        if !y.is_finite() {
            return ("rejected", pi, format!("f = {y:?}"));
        }
        let mut oracle = vec![0.0; p.n_in];
        for k in 0..p.n_in {
            let xd: Vec<D> = x
                .iter()
                .enumerate()
                .map(|(j, &v)| D { v, d: if j == k { 1.0 } else { 0.0 } })
                .collect();
            let r = match catch(|| (p.dual)(&xd, n)) {
                Ok(r) => r,
                Err(m) => return ("genbug", pi, format!("twin panicked: {m}")),
            };
            if r.v.to_bits() != y.to_bits() {
                return ("genbug", pi, format!("twin value {:?} differs from f = {y:?}", r.v));
            }
            oracle[k] = r.d;
        }
        if oracle.iter().any(|o| !o.is_finite()) {
            return ("rejected", pi, format!("oracle derivative not finite: {oracle:?}"));
        }
        let _ = writeln!(out, "G\t{idx}");
        let _ = out.flush();
        let (v, g) = match catch(|| (p.grad)(&x, n)) {
            Ok(r) => r,
            Err(m) => return ("grad-panic", pi, format!("f_grad panicked: {m}; f = {y:?}")),
        };
        if g.len() != p.n_in {
            return ("genbug", pi, format!("{} gradient entries, expected {}", g.len(), p.n_in));
        }
        let bad: Vec<usize> = (0..p.n_in).filter(|&k| !close(g[k], oracle[k])).collect();
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
    }
    ("pass", 0, format!("taylor checked at {checked} of {} points", p.points.len()))
}

//! The second-order oracle: `D`, a hyper-dual number `a + b·ε1 + c·ε2 +
//! d·ε1ε2` (ε1² = ε2² = 0), num-dual's `HyperDual64` behind the interface
//! the twin of each body is written against (`D::c`, the float methods,
//! the operators, `sigmoid`, `softplus`, `relu`). Seeded with `ε1 = e_i`
//! and `ε2 = e_j`, one pass of the twin gives the value, `∂f/∂x_i` (ε1),
//! `∂f/∂x_j` (ε2) and `∂²f/∂x_i∂x_j` (ε1ε2), exactly: no truncation, only
//! the rounding of the operations; with `ε2 = v` it gives `(H·v)_i`.
//!
//! num-dual computes every rule it has (`+ − × ÷`, `sin cos tan atan asinh
//! exp ln ln_1p sqrt cbrt recip powi powf`, `powd` for a power with a
//! differentiated exponent, `mul_add`, `atan` of a quotient for `atan2`);
//! the rules it does not have, or has in a form that overflows, are
//! written here with num-dual's chain rule on the public parts, `f(a) +
//! f'(a)·(b ε1 + c ε2) + (f'(a)·d + f''(a)·b·c) ε1ε2`: `abs`, `max`,
//! `min`, `relu` (pieces of the identity and constants), `hypot`
//! (num-dual's `sqrt(x² + y²)`), `sigmoid`, `softplus` (σ' = σ(1 − σ),
//! σ'' = σ'(1 − 2σ)), `tanh` (num-dual's is `sinh/cosh`, NaN past |x| ≈
//! 710: here t' = 1 − t², t'' = −2t(1 − t²)), and `atan2(y, x)` (num-dual's
//! is `atan(y/x)`, not finite at x = 0: here `atan(y/x)` or `−atan(x/y)`,
//! whichever divides by the larger, the same derivatives off the origin).
//! The value part of every result is then set to the
//! `f64` operation the plain function performs (num-dual's `powi` is
//! `x^(n−3)·x·x·x`, its `tanh` `sinh/cosh`, its `mul_add` unfused), so the
//! twin's value equals `f`'s bit for bit and it takes `f`'s branches.
//!
//! Like `dual.rs`, every decision that makes the function non-smooth is
//! hashed into a per-thread trace (the same codes, so the two oracles'
//! traces at a point must agree), and here also counted as a *tie* when it
//! is taken at equality between values whose derivatives differ (`|0|`, a
//! tie of `max`/`min`, `relu(0)`, a comparison of equal values, `atan2` on
//! its cut, each of an argument that moves with the seeded inputs): there
//! the function is not twice differentiable and the Hessian is not
//! compared. A tie of constants, or of two values with the same
//! derivatives (`x.max(x)`), is no kink.
#![allow(warnings)]

use num_dual::{DualNum, HyperDual64};
use std::cell::Cell;
use std::cmp::Ordering;
use std::ops::*;

thread_local! {
    static TRACE: Cell<u64> = Cell::new(0);
    static TIES: Cell<u64> = Cell::new(0);
    static LARGEST: Cell<f64> = Cell::new(0.0);
}

/// Resets the trace, the ties and the largest magnitude.
pub fn reset() {
    TRACE.with(|t| t.set(0xcbf2_9ce4_8422_2325));
    TIES.with(|t| t.set(0));
    LARGEST.with(|m| m.set(0.0));
}

/// The hash of the decisions since [`reset`] (as `dual::trace_get`).
pub fn trace_get() -> u64 {
    TRACE.with(|t| t.get())
}

/// How many decisions since [`reset`] were taken at a tie.
pub fn ties() -> u64 {
    TIES.with(|t| t.get())
}

/// The largest magnitude of any part (value, ε1, ε2, ε1ε2) of any number
/// computed since [`reset`], and of the cross terms of products and
/// quotients: the scale of the rounding of the second-order parts.
pub fn largest() -> f64 {
    LARGEST.with(|m| m.get())
}

fn record(bit: u64) {
    TRACE.with(|t| t.set((t.get() ^ (bit + 1)).wrapping_mul(0x100_0000_01b3)));
}

fn tie() {
    TIES.with(|t| t.set(t.get() + 1));
}

/// Whether the derivative parts of `a` and `b` differ: a tie between them
/// is a kink along the seeded directions.
fn apart(a: &HyperDual64, b: &HyperDual64) -> bool {
    a.eps1 != b.eps1 || a.eps2 != b.eps2 || a.eps1eps2 != b.eps1eps2
}

/// Whether `a` moves with the seeded inputs.
fn moving(a: &HyperDual64) -> bool {
    apart(a, &HyperDual64::from_re(a.re))
}

fn seen(x: f64) {
    if x.is_finite() {
        LARGEST.with(|m| m.set(m.get().max(x.abs())));
    }
}

fn seen_parts(h: &HyperDual64) {
    seen(h.re);
    seen(h.eps1);
    seen(h.eps2);
    seen(h.eps1eps2);
}

#[derive(Clone, Copy, Debug)]
pub struct D {
    pub h: HyperDual64,
}

/// `h` with the value part `re` (the plain function's own `f64` result).
fn with_re(mut h: HyperDual64, re: f64) -> D {
    h.re = re;
    seen_parts(&h);
    D { h }
}

/// num-dual's chain rule: `f(a) + f1·(b ε1 + c ε2) + (f1·d + f2·b·c) ε1ε2`.
fn chain(a: &HyperDual64, f0: f64, f1: f64, f2: f64) -> D {
    let h = HyperDual64::new(
        f0,
        a.eps1 * f1,
        a.eps2 * f1,
        a.eps1eps2 * f1 + a.eps1 * a.eps2 * f2,
    );
    seen(a.eps1eps2 * f1);
    seen(a.eps1 * a.eps2 * f2);
    with_re(h, f0)
}

impl D {
    pub fn c(v: f64) -> D {
        D { h: HyperDual64::from_re(v) }
    }
    /// An input: value `v`, ε1 part `e1`, ε2 part `e2`.
    pub fn seed(v: f64, e1: f64, e2: f64) -> D {
        D { h: HyperDual64::new(v, e1, e2, 0.0) }
    }
    pub fn v(&self) -> f64 {
        self.h.re
    }
    pub fn sin(self) -> D {
        with_re(self.h.sin(), self.h.re.sin())
    }
    pub fn cos(self) -> D {
        with_re(self.h.cos(), self.h.re.cos())
    }
    pub fn tan(self) -> D {
        with_re(self.h.tan(), self.h.re.tan())
    }
    pub fn tanh(self) -> D {
        let t = self.h.re.tanh();
        let d1 = 1.0 - t * t;
        chain(&self.h, t, d1, -2.0 * t * d1)
    }
    pub fn atan(self) -> D {
        with_re(self.h.atan(), self.h.re.atan())
    }
    pub fn asinh(self) -> D {
        with_re(self.h.asinh(), self.h.re.asinh())
    }
    pub fn exp(self) -> D {
        with_re(self.h.exp(), self.h.re.exp())
    }
    pub fn ln(self) -> D {
        with_re(self.h.ln(), self.h.re.ln())
    }
    pub fn ln_1p(self) -> D {
        with_re(self.h.ln_1p(), self.h.re.ln_1p())
    }
    pub fn sqrt(self) -> D {
        with_re(self.h.sqrt(), self.h.re.sqrt())
    }
    pub fn cbrt(self) -> D {
        with_re(self.h.cbrt(), self.h.re.cbrt())
    }
    pub fn recip(self) -> D {
        with_re(DualNum::recip(&self.h), self.h.re.recip())
    }
    pub fn powi(self, n: i32) -> D {
        with_re(self.h.powi(n), self.h.re.powi(n))
    }
    /// `x^e`: num-dual's `powf` for a constant exponent, its `powd`
    /// (`exp(e·ln x)`, the bases are positive) for one with derivatives.
    pub fn powf(self, e: D) -> D {
        let constant = e.h.eps1 == 0.0 && e.h.eps2 == 0.0 && e.h.eps1eps2 == 0.0;
        let h = if constant {
            self.h.powf(e.h.re)
        } else {
            self.h.powd(e.h)
        };
        with_re(h, self.h.re.powf(e.h.re))
    }
    pub fn abs(self) -> D {
        let x = self.h.re;
        record(if x > 0.0 { 1 } else if x < 0.0 { 2 } else { 3 });
        if x == 0.0 && moving(&self.h) {
            tie();
        }
        // |x| is x or −x: f1 = ±1 (0 at the kink, the runtime's
        // convention), f2 = 0.
        let s = if x > 0.0 { 1.0 } else if x < 0.0 { -1.0 } else { 0.0 };
        chain(&self.h, x.abs(), s, 0.0)
    }
    pub fn max(self, o: D) -> D {
        let (a, b) = (self.h.re, o.h.re);
        let h = if a > b {
            record(4);
            self.h
        } else if a < b {
            record(5);
            o.h
        } else {
            record(6);
            if apart(&self.h, &o.h) {
                tie();
            }
            (self.h + o.h) * 0.5
        };
        with_re(h, a.max(b))
    }
    pub fn min(self, o: D) -> D {
        let (a, b) = (self.h.re, o.h.re);
        let h = if a < b {
            record(7);
            self.h
        } else if a > b {
            record(8);
            o.h
        } else {
            record(9);
            if apart(&self.h, &o.h) {
                tie();
            }
            (self.h + o.h) * 0.5
        };
        with_re(h, a.min(b))
    }
    /// √(x² + y²) by num-dual, its value `f64::hypot`'s.
    pub fn hypot(self, o: D) -> D {
        let h = (self.h * self.h + o.h * o.h).sqrt();
        with_re(h, self.h.re.hypot(o.h.re))
    }
    /// `self` is y, `o` is x: `atan(y/x)` by num-dual where |x| ≥ |y|,
    /// else `−atan(x/y)` (atan2 differs from each by a constant), its value
    /// `f64::atan2`'s; the quadrant is recorded as `dual.rs` does, and a
    /// point on the cut (y = 0, x ≤ 0) is a tie.
    pub fn atan2(self, o: D) -> D {
        let q = |v: f64| if v > 0.0 { 0 } else if v < 0.0 { 1 } else { 2 };
        record(30 + q(self.h.re) * 3 + q(o.h.re));
        if self.h.re == 0.0 && o.h.re <= 0.0 && (moving(&self.h) || moving(&o.h)) {
            tie();
        }
        let h = if o.h.re.abs() >= self.h.re.abs() {
            (self.h / o.h).atan()
        } else {
            -(o.h / self.h).atan()
        };
        with_re(h, self.h.re.atan2(o.h.re))
    }
    pub fn mul_add(self, a: D, b: D) -> D {
        let h = self.h.mul_add(a.h, b.h);
        cross(&self.h, &a.h);
        with_re(h, self.h.re.mul_add(a.h.re, b.h.re))
    }
}

/// The cross terms of the product `a·b`'s ε1ε2 part.
fn cross(a: &HyperDual64, b: &HyperDual64) {
    seen(a.re * b.eps1eps2);
    seen(a.eps1 * b.eps2);
    seen(a.eps2 * b.eps1);
    seen(a.eps1eps2 * b.re);
}

/// σ(x), the runtime's value; σ' = σ(1 − σ), σ'' = σ'(1 − 2σ).
pub fn sigmoid(x: D) -> D {
    let s = autodiff::sigmoid(x.h.re);
    let d1 = s * (1.0 - s);
    chain(&x.h, s, d1, d1 * (1.0 - 2.0 * s))
}

/// softplus(x), the runtime's value; its derivatives σ and σ(1 − σ).
pub fn softplus(x: D) -> D {
    let s = autodiff::sigmoid(x.h.re);
    chain(&x.h, autodiff::softplus(x.h.re), s, s * (1.0 - s))
}

pub fn relu(x: D) -> D {
    let r = x.h.re;
    record(if r > 0.0 { 10 } else { 11 });
    if r == 0.0 && moving(&x.h) {
        tie();
    }
    if r > 0.0 {
        with_re(x.h, autodiff::relu(r))
    } else {
        D::c(autodiff::relu(r))
    }
}

impl Add for D {
    type Output = D;
    fn add(self, o: D) -> D {
        with_re(self.h + o.h, self.h.re + o.h.re)
    }
}
impl Sub for D {
    type Output = D;
    fn sub(self, o: D) -> D {
        with_re(self.h - o.h, self.h.re - o.h.re)
    }
}
impl Mul for D {
    type Output = D;
    fn mul(self, o: D) -> D {
        cross(&self.h, &o.h);
        with_re(self.h * o.h, self.h.re * o.h.re)
    }
}
impl Div for D {
    type Output = D;
    fn div(self, o: D) -> D {
        cross(&self.h, &o.h);
        with_re(self.h / o.h, self.h.re / o.h.re)
    }
}
impl Neg for D {
    type Output = D;
    fn neg(self) -> D {
        D { h: -self.h }
    }
}
impl AddAssign for D {
    fn add_assign(&mut self, o: D) {
        *self = *self + o;
    }
}
impl SubAssign for D {
    fn sub_assign(&mut self, o: D) {
        *self = *self - o;
    }
}
impl MulAssign for D {
    fn mul_assign(&mut self, o: D) {
        *self = *self * o;
    }
}
impl DivAssign for D {
    fn div_assign(&mut self, o: D) {
        *self = *self / o;
    }
}
impl std::iter::Sum for D {
    fn sum<I: Iterator<Item = D>>(it: I) -> D {
        it.fold(D::c(-0.0), |a, b| a + b)
    }
}
impl<'a> std::iter::Sum<&'a D> for D {
    fn sum<I: Iterator<Item = &'a D>>(it: I) -> D {
        it.fold(D::c(-0.0), |a, b| a + *b)
    }
}

/// A comparison's decision, recorded (and counted as a tie where the two
/// values are equal and their derivatives differ).
fn decide(code: u64, r: bool, a: &D, b: &D) -> bool {
    record(code + r as u64);
    if a.h.re == b.h.re && apart(&a.h, &b.h) {
        tie();
    }
    r
}

impl PartialEq for D {
    fn eq(&self, o: &D) -> bool {
        decide(12, self.h.re == o.h.re, self, o)
    }
}
impl PartialOrd for D {
    fn partial_cmp(&self, o: &D) -> Option<Ordering> {
        self.h.re.partial_cmp(&o.h.re)
    }
    fn lt(&self, o: &D) -> bool {
        decide(14, self.h.re < o.h.re, self, o)
    }
    fn le(&self, o: &D) -> bool {
        decide(16, self.h.re <= o.h.re, self, o)
    }
    fn gt(&self, o: &D) -> bool {
        decide(18, self.h.re > o.h.re, self, o)
    }
    fn ge(&self, o: &D) -> bool {
        decide(20, self.h.re >= o.h.re, self, o)
    }
}

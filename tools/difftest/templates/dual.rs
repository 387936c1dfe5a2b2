//! The oracle: a forward-mode dual number `D { v, d }` with exact
//! derivative rules, one pass per input. Its values are computed by the
//! same f64 operations in the same order as the plain function, so the
//! twin's value equals `f`'s bit for bit. Every decision that makes the
//! function non-smooth (comparisons, `abs`, `max`, `min`, `relu`) is
//! hashed into a per-thread trace (and the quadrant of `atan2`): two points with the same trace lie on
//! the same smooth piece, which the Taylor check requires.
#![allow(warnings)]

use std::cell::Cell;
use std::cmp::Ordering;
use std::ops::*;

thread_local! {
    static TRACE: Cell<u64> = Cell::new(0);
    static LARGEST: Cell<f64> = Cell::new(0.0);
    static LARGEST_TANGENT: Cell<f64> = Cell::new(0.0);
}

/// The largest magnitude of a tangent added or subtracted since the last
/// call, which resets it: forward mode rounds a sum of tangents to about
/// 1e-16 of its largest term, so where a huge tangent cancels (`s − (a +
/// s)`), the oracle itself is only that accurate, while reverse mode never
/// forms the sum.
pub fn largest_tangent_take() -> f64 {
    LARGEST_TANGENT.with(|m| m.replace(0.0))
}

fn seen_tangents(a: f64, b: f64) {
    LARGEST_TANGENT.with(|m| m.set(m.get().max(a.abs()).max(b.abs())));
}

pub fn trace_reset() {
    TRACE.with(|t| t.set(0xcbf2_9ce4_8422_2325));
    LARGEST.with(|m| m.set(0.0));
}

pub fn trace_get() -> u64 {
    TRACE.with(|t| t.get())
}

/// The largest magnitude of a value computed since `trace_reset`: beyond
/// about 1e8, adding a small input to it loses the input to rounding, and
/// the floating-point function's slope is no longer its derivative.
pub fn largest_get() -> f64 {
    LARGEST.with(|m| m.get())
}

fn seen(v: f64) -> f64 {
    LARGEST.with(|m| m.set(m.get().max(v.abs())));
    v
}

fn record(bit: u64) {
    TRACE.with(|t| t.set((t.get() ^ (bit + 1)).wrapping_mul(0x100_0000_01b3)));
}

#[derive(Clone, Copy, Debug, Default)]
pub struct D {
    pub v: f64,
    pub d: f64,
}

impl D {
    pub const fn c(v: f64) -> D {
        D { v, d: 0.0 }
    }
    pub fn sin(self) -> D {
        D { v: self.v.sin(), d: self.d * self.v.cos() }
    }
    pub fn cos(self) -> D {
        D { v: self.v.cos(), d: -self.d * self.v.sin() }
    }
    pub fn tan(self) -> D {
        let t = self.v.tan();
        D { v: t, d: self.d * (1.0 + t * t) }
    }
    pub fn tanh(self) -> D {
        let t = self.v.tanh();
        D { v: t, d: self.d * (1.0 - t * t) }
    }
    pub fn atan(self) -> D {
        D { v: self.v.atan(), d: self.d / (1.0 + self.v * self.v) }
    }
    pub fn asinh(self) -> D {
        D { v: self.v.asinh(), d: self.d / (self.v * self.v + 1.0).sqrt() }
    }
    pub fn exp(self) -> D {
        let e = seen(self.v.exp());
        D { v: e, d: self.d * e }
    }
    pub fn ln(self) -> D {
        D { v: self.v.ln(), d: self.d / self.v }
    }
    pub fn ln_1p(self) -> D {
        D { v: self.v.ln_1p(), d: self.d / (1.0 + self.v) }
    }
    pub fn sqrt(self) -> D {
        let s = self.v.sqrt();
        D { v: s, d: self.d / (2.0 * s) }
    }
    pub fn cbrt(self) -> D {
        let c = self.v.cbrt();
        D { v: c, d: self.d / (3.0 * c * c) }
    }
    pub fn recip(self) -> D {
        D { v: seen(self.v.recip()), d: -self.d / (self.v * self.v) }
    }
    pub fn abs(self) -> D {
        let s = if self.v > 0.0 { 1.0 } else if self.v < 0.0 { -1.0 } else { 0.0 };
        record(if self.v > 0.0 { 1 } else if self.v < 0.0 { 2 } else { 3 });
        D { v: self.v.abs(), d: s * self.d }
    }
    pub fn powi(self, n: i32) -> D {
        let d = if n == 0 { 0.0 } else { n as f64 * self.v.powi(n - 1) * self.d };
        D { v: seen(self.v.powi(n)), d }
    }
    pub fn powf(self, e: D) -> D {
        let v = seen(self.v.powf(e.v));
        let mut d = e.v * self.v.powf(e.v - 1.0) * self.d;
        if e.d != 0.0 {
            d += v * self.v.ln() * e.d;
        }
        D { v, d }
    }
    pub fn max(self, o: D) -> D {
        let d = if self.v > o.v {
            record(4);
            self.d
        } else if self.v < o.v {
            record(5);
            o.d
        } else {
            record(6);
            0.5 * (self.d + o.d)
        };
        D { v: self.v.max(o.v), d }
    }
    pub fn min(self, o: D) -> D {
        let d = if self.v < o.v {
            record(7);
            self.d
        } else if self.v > o.v {
            record(8);
            o.d
        } else {
            record(9);
            0.5 * (self.d + o.d)
        };
        D { v: self.v.min(o.v), d }
    }
    pub fn hypot(self, o: D) -> D {
        let h = self.v.hypot(o.v);
        D { v: h, d: (self.v * self.d + o.v * o.d) / h }
    }
    /// `self` is y, `o` is x.
    pub fn atan2(self, o: D) -> D {
        // The quadrant: atan2 jumps by 2π across the negative x axis and
        // between π and 0 along y = 0.
        let q = |v: f64| if v > 0.0 { 0 } else if v < 0.0 { 1 } else { 2 };
        record(30 + q(self.v) * 3 + q(o.v));
        let r = o.v * o.v + self.v * self.v;
        D { v: self.v.atan2(o.v), d: (o.v * self.d - self.v * o.d) / r }
    }
    pub fn mul_add(self, a: D, b: D) -> D {
        D { v: self.v.mul_add(a.v, b.v), d: self.d * a.v + self.v * a.d + b.d }
    }
}

pub fn sigmoid(x: D) -> D {
    let s = autodiff::sigmoid(x.v);
    D { v: s, d: x.d * s * (1.0 - s) }
}

pub fn softplus(x: D) -> D {
    D { v: autodiff::softplus(x.v), d: x.d * autodiff::sigmoid(x.v) }
}

pub fn relu(x: D) -> D {
    record(if x.v > 0.0 { 10 } else { 11 });
    D { v: autodiff::relu(x.v), d: if x.v > 0.0 { x.d } else { 0.0 } }
}

impl Add for D {
    type Output = D;
    fn add(self, o: D) -> D {
        seen_tangents(self.d, o.d);
        D { v: seen(self.v + o.v), d: self.d + o.d }
    }
}
impl Sub for D {
    type Output = D;
    fn sub(self, o: D) -> D {
        seen_tangents(self.d, o.d);
        D { v: seen(self.v - o.v), d: self.d - o.d }
    }
}
impl Mul for D {
    type Output = D;
    fn mul(self, o: D) -> D {
        D { v: seen(self.v * o.v), d: self.d * o.v + self.v * o.d }
    }
}
impl Div for D {
    type Output = D;
    fn div(self, o: D) -> D {
        D { v: seen(self.v / o.v), d: (self.d * o.v - self.v * o.d) / (o.v * o.v) }
    }
}
impl Neg for D {
    type Output = D;
    fn neg(self) -> D {
        D { v: -self.v, d: -self.d }
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
impl PartialEq for D {
    fn eq(&self, o: &D) -> bool {
        let r = self.v == o.v;
        record(12 + r as u64);
        r
    }
}
impl PartialOrd for D {
    fn partial_cmp(&self, o: &D) -> Option<Ordering> {
        self.v.partial_cmp(&o.v)
    }
    fn lt(&self, o: &D) -> bool {
        let r = self.v < o.v;
        record(14 + r as u64);
        r
    }
    fn le(&self, o: &D) -> bool {
        let r = self.v <= o.v;
        record(16 + r as u64);
        r
    }
    fn gt(&self, o: &D) -> bool {
        let r = self.v > o.v;
        record(18 + r as u64);
        r
    }
    fn ge(&self, o: &D) -> bool {
        let r = self.v >= o.v;
        record(20 + r as u64);
        r
    }
}

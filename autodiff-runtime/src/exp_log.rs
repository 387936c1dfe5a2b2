//! Exponentials and logarithms.

use crate::macros::unary_rule;
use crate::Float;

unary_rule!(
    /// d/dx eˣ = eˣ = y.
    exp, exp_pullback, |x, y| y
);
unary_rule!(
    /// d/dx 2ˣ = 2ˣ ln 2 = y ln 2.
    exp2, exp2_pullback, |x, y| y * T::LN_2()
);
unary_rule!(
    /// d/dx (eˣ − 1) = eˣ = y + 1.
    exp_m1, exp_m1_pullback, |x, y| y + T::one()
);
unary_rule!(
    /// d/dx ln x = 1/x; +∞ at 0 (where ln is −∞), NaN below.
    ln, ln_pullback, |x, y| x.recip()
);
unary_rule!(
    /// d/dx ln(1 + x) = 1/(1 + x).
    ln_1p, ln_1p_pullback, |x, y| (T::one() + x).recip()
);
unary_rule!(
    /// d/dx log₂ x = 1/(x ln 2).
    log2, log2_pullback, |x, y| (x * T::LN_2()).recip()
);
unary_rule!(
    /// d/dx log₁₀ x = 1/(x ln 10).
    log10, log10_pullback, |x, y| (x * T::LN_10()).recip()
);

/// `x.log(base)`, ln x / ln base.
#[inline]
pub fn log<T: Float>(x: T, base: T) -> T {
    x.log(base)
}

/// ∂/∂x log_b x = 1/(x ln b), ∂/∂b log_b x = −ln x/(b (ln b)²) = −y/(b ln b).
#[inline]
pub fn log_pullback<T: Float>(x: T, base: T, y: T, dy: T) -> (T, T) {
    let ln_b = base.ln();
    (dy / (x * ln_b), -dy * y / (base * ln_b))
}

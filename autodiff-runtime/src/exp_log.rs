//! Exponentials and logarithms.

use crate::macros::unary_rule;
use crate::Float;

unary_rule!(
    /// d/dx eˣ = eˣ = y.
    exp, exp_pullback, exp_pullback_unguarded, |x, y| y
);
unary_rule!(
    /// d/dx 2ˣ = 2ˣ ln 2 = y ln 2.
    exp2, exp2_pullback, exp2_pullback_unguarded, |x, y| y * T::LN_2()
);
unary_rule!(
    /// d/dx (eˣ − 1) = eˣ = y + 1.
    exp_m1, exp_m1_pullback, exp_m1_pullback_unguarded, |x, y| y + T::one()
);
unary_rule!(
    /// d/dx ln x = 1/x; +∞ at 0, where ln is −∞. Below 0, where ln is
    /// NaN, the formula is still evaluated (the value carries the NaN).
    ln, ln_pullback, ln_pullback_unguarded, |x, y| x.recip()
);
unary_rule!(
    /// d/dx ln(1 + x) = 1/(1 + x); +∞ at −1, where ln_1p is −∞.
    ln_1p, ln_1p_pullback, ln_1p_pullback_unguarded, |x, y| (T::one() + x).recip()
);
unary_rule!(
    /// d/dx log₂ x = 1/(x ln 2); +∞ at 0, as for `ln`.
    log2, log2_pullback, log2_pullback_unguarded, |x, y| (x * T::LN_2()).recip()
);
unary_rule!(
    /// d/dx log₁₀ x = 1/(x ln 10); +∞ at 0, as for `ln`.
    log10, log10_pullback, log10_pullback_unguarded, |x, y| (x * T::LN_10()).recip()
);

/// `x.log(base)`, ln x / ln base.
#[inline]
pub fn log<T: Float>(x: T, base: T) -> T {
    x.log(base)
}

/// ∂/∂x log_b x = 1/(x ln b), ∂/∂b log_b x = −ln x/(b (ln b)²) = −y/(b ln b)
/// (using the output y = ln x/ln b: one logarithm, of the base). At base 1
/// both are infinite or NaN, like the value.
#[inline]
pub fn log_pullback<T: Float>(x: T, base: T, y: T, dy: T) -> (T, T) {
    if dy == T::zero() {
        return (T::zero(), T::zero());
    }
    let ln_b = base.ln();
    (dy / (x * ln_b), -dy * y / (base * ln_b))
}

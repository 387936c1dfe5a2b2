//! Fused operations.

use crate::float::scale;
use crate::Float;

/// `a.mul_add(b, c)`, a·b + c with one rounding.
#[inline]
pub fn mul_add<T: Float>(a: T, b: T, c: T) -> T {
    a.mul_add(b, c)
}

/// ∂/∂a (ab + c) = b, ∂/∂b = a, ∂/∂c = 1.
#[inline]
pub fn mul_add_pullback<T: Float>(a: T, b: T, _c: T, _y: T, dy: T) -> (T, T, T) {
    (scale(dy, b), scale(dy, a), dy)
}

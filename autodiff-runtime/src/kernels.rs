//! Coarse-grained kernels over slices, each with its own pullback: called
//! from `#[grad]` code, they are differentiated by their rule, not by their
//! loops (the case studies on linear layers and softmax cross-entropy).
//!
//! Matrices are row-major slices. A pullback adds into the adjoints of the
//! array arguments it is given (`Some`), and skips the work for those it is
//! not (`None`, inactive arguments).

use crate::Float;

/// The dot product Σ aᵢ bᵢ (the shorter length counts).
#[inline]
pub fn dot<T: Float>(a: &[T], b: &[T]) -> T {
    a.iter().zip(b).fold(T::zero(), |s, (x, y)| s + *x * *y)
}

/// ∂/∂a = dy·b, ∂/∂b = dy·a.
pub fn dot_pullback<T: Float>(
    a: &[T],
    b: &[T],
    _y: T,
    dy: T,
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
) {
    if dy == T::zero() {
        // A path that does not reach the result: nothing, not 0·∞.
        return;
    }
    if let Some(da) = da {
        for (d, v) in da.iter_mut().zip(b) {
            *d += dy * *v;
        }
    }
    if let Some(db) = db {
        for (d, v) in db.iter_mut().zip(a) {
            *d += dy * *v;
        }
    }
}

/// y = M x for M with `rows` rows of `x.len()` columns.
///
/// # Panics
///
/// If `m.len() != rows * x.len()`.
pub fn matvec<T: Float>(m: &[T], x: &[T], rows: usize) -> Vec<T> {
    let cols = x.len();
    assert_eq!(
        m.len(),
        rows * cols,
        "matvec: a {rows}×{cols} matrix needs {} entries, not {}",
        rows * cols,
        m.len()
    );
    (0..rows)
        .map(|i| dot(&m[i * cols..(i + 1) * cols], x))
        .collect()
}

/// dM = ȳ xᵀ, dx = Mᵀ ȳ.
pub fn matvec_pullback<T: Float>(
    m: &[T],
    x: &[T],
    rows: usize,
    _y: &[T],
    dy: &[T],
    dm: Option<&mut [T]>,
    dx: Option<&mut [T]>,
) {
    let cols = x.len();
    if let Some(dm) = dm {
        for i in (0..rows).filter(|&i| dy[i] != T::zero()) {
            for j in 0..cols {
                dm[i * cols + j] += dy[i] * x[j];
            }
        }
    }
    if let Some(dx) = dx {
        for i in (0..rows).filter(|&i| dy[i] != T::zero()) {
            for j in 0..cols {
                dx[j] += m[i * cols + j] * dy[i];
            }
        }
    }
}

/// C = A B for A `n`×`k` and B `k`×`m`, all row-major.
///
/// # Panics
///
/// If the lengths do not match the shapes.
pub fn matmul<T: Float>(a: &[T], b: &[T], n: usize, k: usize, m: usize) -> Vec<T> {
    assert_eq!(a.len(), n * k, "matmul: A should be {n}×{k}");
    assert_eq!(b.len(), k * m, "matmul: B should be {k}×{m}");
    let mut c = vec![T::zero(); n * m];
    for i in 0..n {
        for p in 0..k {
            let aip = a[i * k + p];
            for j in 0..m {
                c[i * m + j] += aip * b[p * m + j];
            }
        }
    }
    c
}

/// dA = C̄ Bᵀ, dB = Aᵀ C̄.
#[allow(clippy::too_many_arguments)]
pub fn matmul_pullback<T: Float>(
    a: &[T],
    b: &[T],
    n: usize,
    k: usize,
    m: usize,
    _y: &[T],
    dy: &[T],
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
) {
    if let Some(da) = da {
        for i in 0..n {
            for p in 0..k {
                let mut s = T::zero();
                for j in (0..m).filter(|&j| dy[i * m + j] != T::zero()) {
                    s += dy[i * m + j] * b[p * m + j];
                }
                da[i * k + p] += s;
            }
        }
    }
    if let Some(db) = db {
        for i in 0..n {
            for p in 0..k {
                let aip = a[i * k + p];
                for j in (0..m).filter(|&j| dy[i * m + j] != T::zero()) {
                    db[p * m + j] += aip * dy[i * m + j];
                }
            }
        }
    }
}

/// ln Σ exp(xᵢ), computed as max + ln Σ exp(xᵢ − max): no overflow. The
/// empty sum gives −∞.
pub fn logsumexp<T: Float>(x: &[T]) -> T {
    let m = x.iter().copied().fold(T::neg_infinity(), T::max);
    if m == T::neg_infinity() || m == T::infinity() {
        return m;
    }
    m + x.iter().fold(T::zero(), |s, v| s + (*v - m).exp()).ln()
}

/// ∂/∂xᵢ = exp(xᵢ − y) = softmax(x)ᵢ.
pub fn logsumexp_pullback<T: Float>(x: &[T], y: T, dy: T, dx: Option<&mut [T]>) {
    if dy == T::zero() {
        return;
    }
    if let Some(dx) = dx {
        for (d, v) in dx.iter_mut().zip(x) {
            *d += dy * (*v - y).exp();
        }
    }
}

/// softmax(x)ᵢ = exp(xᵢ − logsumexp(x)).
pub fn softmax<T: Float>(x: &[T]) -> Vec<T> {
    let lse = logsumexp(x);
    x.iter().map(|v| (*v - lse).exp()).collect()
}

/// dxᵢ = yᵢ (ȳᵢ − Σⱼ yⱼ ȳⱼ).
pub fn softmax_pullback<T: Float>(_x: &[T], y: &[T], dy: &[T], dx: Option<&mut [T]>) {
    if let Some(dx) = dx {
        let inner = dot(y, dy);
        for i in 0..y.len() {
            dx[i] += y[i] * (dy[i] - inner);
        }
    }
}

/// The cross-entropy of softmax(logits) against the class `target`:
/// `logsumexp(logits) − logits[target]`, fused and stable.
///
/// # Panics
///
/// If `target` is out of range.
pub fn softmax_cross_entropy<T: Float>(logits: &[T], target: usize) -> T {
    logsumexp(logits) - logits[target]
}

/// The fused rule: dlogits = dy (softmax(logits) − onehot(target)).
pub fn softmax_cross_entropy_pullback<T: Float>(
    logits: &[T],
    target: usize,
    _y: T,
    dy: T,
    dlogits: Option<&mut [T]>,
) {
    if dy == T::zero() {
        return;
    }
    if let Some(d) = dlogits {
        let lse = logsumexp(logits);
        for (i, (g, v)) in d.iter_mut().zip(logits).enumerate() {
            let p = (*v - lse).exp();
            *g += dy * (p - if i == target { T::one() } else { T::zero() });
        }
    }
}

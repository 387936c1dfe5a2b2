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
    if m.primal_eq(T::neg_infinity()) || m.primal_eq(T::infinity()) {
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

// Tangents, for `#[grad(jvp)]`'s forward mode: the derivative of each
// kernel's value along the tangents of its array arguments (`None` for an
// argument without one). The bilinear kernels take it from themselves,
// the others from the derivatives their pullbacks use.

fn add_into<T: Float>(acc: &mut [T], part: Vec<T>) {
    for (a, p) in acc.iter_mut().zip(part) {
        *a += p;
    }
}

/// ⟨ȧ, b⟩ + ⟨a, ḃ⟩.
pub fn dot_tangent<T: Float>(a: &[T], b: &[T], _y: T, da: Option<&[T]>, db: Option<&[T]>) -> T {
    da.map_or(T::zero(), |da| dot(da, b)) + db.map_or(T::zero(), |db| dot(a, db))
}

/// Ṁ x + M ẋ.
pub fn matvec_tangent<T: Float>(
    m: &[T],
    x: &[T],
    rows: usize,
    y: &[T],
    dm: Option<&[T]>,
    dx: Option<&[T]>,
) -> Vec<T> {
    let mut out = vec![T::zero(); y.len()];
    if let Some(dm) = dm {
        add_into(&mut out, matvec(dm, x, rows));
    }
    if let Some(dx) = dx {
        add_into(&mut out, matvec(m, dx, rows));
    }
    out
}

/// Ȧ B + A Ḃ.
#[allow(clippy::too_many_arguments)]
pub fn matmul_tangent<T: Float>(
    a: &[T],
    b: &[T],
    n: usize,
    k: usize,
    m: usize,
    y: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> Vec<T> {
    let mut out = vec![T::zero(); y.len()];
    if let Some(da) = da {
        add_into(&mut out, matmul(da, b, n, k, m));
    }
    if let Some(db) = db {
        add_into(&mut out, matmul(a, db, n, k, m));
    }
    out
}

/// Σ softmax(x)ᵢ ẋᵢ.
pub fn logsumexp_tangent<T: Float>(x: &[T], y: T, dx: Option<&[T]>) -> T {
    dx.map_or(T::zero(), |dx| {
        x.iter()
            .zip(dx)
            .fold(T::zero(), |s, (v, d)| s + (*v - y).exp() * *d)
    })
}

/// yᵢ (ẋᵢ − Σⱼ yⱼ ẋⱼ): softmax's Jacobian is symmetric, so its tangent is
/// its pullback of ẋ.
pub fn softmax_tangent<T: Float>(x: &[T], y: &[T], dx: Option<&[T]>) -> Vec<T> {
    let mut out = vec![T::zero(); y.len()];
    if let Some(dx) = dx {
        softmax_pullback(x, y, dx, Some(&mut out));
    }
    out
}

/// Σ (softmax(logits)ᵢ − onehot(target)ᵢ) l̇ᵢ.
pub fn softmax_cross_entropy_tangent<T: Float>(
    logits: &[T],
    target: usize,
    y: T,
    dlogits: Option<&[T]>,
) -> T {
    dlogits.map_or(T::zero(), |dl| {
        let mut g = vec![T::zero(); logits.len()];
        softmax_cross_entropy_pullback(logits, target, y, T::one(), Some(&mut g));
        dot(&g, dl)
    })
}

#[cfg(test)]
mod tangent_tests {
    use super::*;

    /// A function of two arrays with an array value.
    type Of2 = dyn Fn(&[f64], &[f64]) -> Vec<f64>;

    /// Each kernel's tangent against central differences along a
    /// direction.
    #[test]
    fn tangents_against_central_differences() {
        let h = 1e-6;
        let a = [0.3, -1.2, 0.8, 2.0];
        let b = [1.1, 0.4, -0.6, 0.5];
        let da = [0.5, 0.25, -1.0, 0.3];
        let db = [-0.2, 0.7, 0.1, 1.5];
        let step = |x: &[f64], d: &[f64], s: f64| -> Vec<f64> {
            x.iter().zip(d).map(|(x, d)| x + s * d).collect()
        };
        let fd = |f: &Of2| -> Vec<f64> {
            let p = f(&step(&a, &da, h), &step(&b, &db, h));
            let m = f(&step(&a, &da, -h), &step(&b, &db, -h));
            p.iter().zip(&m).map(|(p, m)| (p - m) / (2.0 * h)).collect()
        };
        let close = |got: &[f64], want: &[f64]| {
            for (g, w) in got.iter().zip(want) {
                assert!(
                    (g - w).abs() < 1e-6 * (1.0 + w.abs()),
                    "{got:?} vs {want:?}"
                );
            }
        };
        let y = dot(&a, &b);
        close(
            &[dot_tangent(&a, &b, y, Some(&da), Some(&db))],
            &fd(&|a, b| vec![dot(a, b)]),
        );
        let y = matvec(&a, &b[..2], 2);
        close(
            &matvec_tangent(&a, &b[..2], 2, &y, Some(&da), Some(&db[..2])),
            &fd(&|a, b| matvec(a, &b[..2], 2)),
        );
        let y = matmul(&a, &b, 2, 2, 2);
        close(
            &matmul_tangent(&a, &b, 2, 2, 2, &y, Some(&da), Some(&db)),
            &fd(&|a, b| matmul(a, b, 2, 2, 2)),
        );
        let y = logsumexp(&a);
        close(
            &[logsumexp_tangent(&a, y, Some(&da))],
            &fd(&|a, _| vec![logsumexp(a)]),
        );
        let y = softmax(&a);
        close(&softmax_tangent(&a, &y, Some(&da)), &fd(&|a, _| softmax(a)));
        let y = softmax_cross_entropy(&a, 2);
        close(
            &[softmax_cross_entropy_tangent(&a, 2, y, Some(&da))],
            &fd(&|a, _| vec![softmax_cross_entropy(a, 2)]),
        );
        assert_eq!(dot_tangent(&a, &b, 0.0, None, None), 0.0);
    }
}

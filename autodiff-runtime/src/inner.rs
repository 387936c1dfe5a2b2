//! The inner product of two values of one shape ([`Inner`], re-exported
//! as `runtime::tangent::Inner`): a supertrait of `Float`, in a file of its
//! own that depends on nothing of the crate's but its tuple macro, so that
//! `float.rs` and `tangent.rs` (which uses `Float`) import no circle.

/// The inner product of two values of one shape, their float parts'
/// (`⟨a, b⟩ = Σ aᵢ bᵢ`, 0 for constants), in `f64`: what a struct's
/// gradient taken along its tangent is. Implemented for floats, the
/// constants `Differentiable` knows, arrays, `Vec`s, `Option`s, boxes,
/// and any struct with `#[derive(autodiff::Differentiable)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no inner product for #[grad(jvp)]",
    label = "a tangent of this type cannot be taken along a gradient",
    note = "derive it with `#[derive(autodiff::Differentiable)]`, which implements `autodiff::runtime::tangent::Inner` too"
)]
pub trait Inner {
    /// `⟨self, other⟩`.
    fn inner(&self, other: &Self) -> f64;
}

impl Inner for f64 {
    #[inline]
    fn inner(&self, other: &Self) -> f64 {
        self * other
    }
}

impl Inner for f32 {
    #[inline]
    fn inner(&self, other: &Self) -> f64 {
        f64::from(*self) * f64::from(*other)
    }
}

macro_rules! constant {
    ($($t:ty),*) => {$(
        impl Inner for $t {
            #[inline]
            fn inner(&self, _: &Self) -> f64 {
                0.0
            }
        }
    )*};
}

crate::differentiable::constant_types!(constant);

/// A tuple, part by part (as `Differentiable` adds them).
macro_rules! tuple_inner {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Inner),+> Inner for ($($t,)+) {
            #[inline]
            fn inner(&self, other: &Self) -> f64 {
                0.0 $(+ self.$i.inner(&other.$i))+
            }
        }
    };
}

crate::macros::for_tuples!(tuple_inner);

impl<T: Inner> Inner for [T] {
    fn inner(&self, other: &Self) -> f64 {
        assert_eq!(
            self.len(),
            other.len(),
            "a tangent has another length than its value"
        );
        self.iter().zip(other).map(|(a, b)| a.inner(b)).sum()
    }
}

impl<T: Inner, const N: usize> Inner for [T; N] {
    fn inner(&self, other: &Self) -> f64 {
        self[..].inner(&other[..])
    }
}

impl<T: Inner> Inner for Vec<T> {
    fn inner(&self, other: &Self) -> f64 {
        self[..].inner(&other[..])
    }
}

impl<T: Inner> Inner for Option<T> {
    fn inner(&self, other: &Self) -> f64 {
        match (self, other) {
            (Some(a), Some(b)) => a.inner(b),
            _ => 0.0,
        }
    }
}

impl<T: Inner + ?Sized> Inner for Box<T> {
    fn inner(&self, other: &Self) -> f64 {
        (**self).inner(other)
    }
}

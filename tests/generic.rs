//! Generic floats: `fn f<T: autodiff::Float>(..)` gets a generic `f_grad`;
//! float literals in the body need no conversion.

#![deny(warnings)]

use approx::assert_relative_eq;
use autodiff::{grad, Float};

#[grad]
fn rosenbrock<T: Float>(x: T, y: T) -> T {
    (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
}

#[grad]
fn generic_everything<T: Float>(xs: &[T], w: T, steps: usize) -> T {
    let mut s = 0.0;
    for &x in xs.iter() {
        s += x * w;
    }
    let mut k = 0;
    while k < steps {
        s = if s > 1.0 {
            s.sqrt()
        } else {
            autodiff::sigmoid(s) * 2.0
        };
        k += 1;
    }
    let squares = xs.iter().fold(0.0, |acc, &v| acc + v * v);
    s + squares * 0.5
}

#[test]
fn generic_functions_in_f32_and_f64() {
    let (v, dx, dy) = rosenbrock_grad(1.5f64, 2.0);
    assert_eq!(v, rosenbrock(1.5f64, 2.0));
    assert_eq!(dx, -2.0 * (1.0 - 1.5) - 400.0 * 1.5 * (2.0 - 2.25));
    assert_eq!(dy, 200.0 * (2.0 - 2.25));
    let (v32, dx32, dy32) = rosenbrock_grad(1.5f32, 2.0);
    assert_eq!(v32, rosenbrock(1.5f32, 2.0));
    assert_relative_eq!(dx32, dx as f32, max_relative = 1e-6);
    assert_relative_eq!(dy32, dy as f32, max_relative = 1e-6);

    let xs = [0.5, -0.25, 2.0];
    let (v, dxs, dw) = generic_everything_grad(&xs, 0.8f64, 3);
    assert_eq!(v, generic_everything(&xs, 0.8, 3));
    let h = 1e-6;
    let fd =
        (generic_everything(&xs, 0.8 + h, 3) - generic_everything(&xs, 0.8 - h, 3)) / (2.0 * h);
    assert_relative_eq!(dw, fd, max_relative = 1e-6);
    let xs32 = [0.5f32, -0.25, 2.0];
    let (v32, dxs32, _) = generic_everything_grad(&xs32, 0.8f32, 3);
    assert_relative_eq!(v32, v as f32, max_relative = 1e-5);
    for (a, b) in dxs32.iter().zip(&dxs) {
        assert_relative_eq!(*a, *b as f32, max_relative = 1e-4);
    }
}

/// `T::from_f64(2.0)`, the trait's own way to make a `T`, keeps its `f64`
/// argument: the literal inside is not converted to `T` (that was a type
/// error inside the generated code).
#[grad]
fn scaled_by_from_f64<T: Float>(x: T) -> T {
    x * T::from_f64(2.0) + (x * x) * <T as Float>::from_f64(-0.5) + 1.5
}

#[test]
fn from_f64_in_a_generic_function() {
    for x in [1.5f64, -0.25, 3.0] {
        let (v, d) = scaled_by_from_f64_grad(x);
        assert_eq!(v, scaled_by_from_f64(x));
        assert_eq!(d, 2.0 - x);
    }
    let (v, d) = scaled_by_from_f64_grad(0.5f32);
    assert_eq!((v, d), (2.375, 1.5));
}

/// A method of a generic `impl`: the float type parameter is the impl's,
/// its bound restated on the method for #[grad] to see.
pub struct Spring<T> {
    pub k: T,
}

impl<T: autodiff::Float> Spring<T> {
    #[autodiff::grad]
    fn energy(&self, x: T) -> T
    where
        T: autodiff::Float,
    {
        0.5 * self.k * x * x + x.sin()
    }
}

#[test]
fn a_method_of_a_generic_impl() {
    let s = Spring { k: 3.0f64 };
    let (v, d) = s.energy_grad(0.5);
    assert_eq!(v, s.energy(0.5));
    assert_eq!(d, 3.0 * 0.5 + 0.5f64.cos());
    let s = Spring { k: 2.0f32 };
    let (_, d) = s.energy_grad(1.0);
    assert_eq!(d, 2.0 + 1.0f32.cos());
}

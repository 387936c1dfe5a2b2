//! Compile-time reverse-mode automatic differentiation.
//!
//! Put [`grad`] on an ordinary Rust function and call the generated
//! `<name>_grad`, which returns the value and the exact gradient:
//!
//! ```
//! use autodiff::grad;
//!
//! #[grad]
//! fn f(x1: f64, x2: f64) -> f64 {
//!     (x1 - x2).powi(2) + (x1 + x2).cos()
//! }
//!
//! fn main() {
//!     let (y, dy_dx1, dy_dx2) = f_grad(1.0, 2.0);
//!     // y = 0.01001, dy_dx1 = -2.14112, dy_dx2 = 1.85888
//! #   assert!((y - 0.010_007_503_399_554_585).abs() < 1e-15);
//! #   assert!((dy_dx1 - (-2.0 - 3f64.sin())).abs() < 1e-15);
//! #   assert!((dy_dx2 - (2.0 - 3f64.sin())).abs() < 1e-15);
//! }
//! ```
//!
//! The macro lowers the function to a Wengert list while the crate compiles
//! and emits the reverse sweep as plain Rust; the primitive rules it calls
//! live in [`runtime`]. See the README for the supported subset.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use autodiff_macro::{checkpoint, grad, wengert, wengert_dot, Differentiable};

/// The primitive rules, value stacks and checking tools that generated code
/// and users' own rules rely on.
pub use autodiff_runtime as runtime;

pub use autodiff_runtime::{
    check_gradient, dot, log_sigmoid, logsumexp, matmul, matvec, relu, sigmoid, softmax,
    softmax_cross_entropy, softplus, Differentiable, Float, GradientCheck,
};

/// What a `#[grad(trace)]` function's `<name>_trace` returns: every
/// Wengert entry with its value and adjoint, and every step of the reverse
/// sweep ([`runtime::trace`]).
pub use autodiff_runtime::trace::Trace;

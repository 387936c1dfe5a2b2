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
//!
//! # Data-parallel gradients
//!
//! Generated functions keep no global state: each call's value stacks
//! are its own, their memory comes from a per-thread pool, so `_grad` may
//! run on many threads at once. To take a batch's gradient on every core,
//! write the loss summed over the points it is given, let each thread
//! call `_grad` on a chunk of the batch, and add the chunks' gradients
//! (values of the parameter's own type) with [`Differentiable`]'s
//! `zero_like` and `accumulate`. With [rayon](https://docs.rs/rayon):
//!
//! ```
//! use autodiff::{grad, Differentiable};
//! use rayon::prelude::*;
//!
//! #[derive(Differentiable, Clone)]
//! struct Linear {
//!     w: Vec<f64>,
//!     b: f64,
//! }
//!
//! /// The squared error summed over the points (rows of `xs`): the
//! /// chunks' losses, and their gradients, add up to the batch's.
//! #[grad(wrt(model))]
//! fn loss(model: &Linear, xs: &[f64], ys: &[f64]) -> f64 {
//!     let d = model.w.len();
//!     let mut total = 0.0;
//!     for p in 0..ys.len() {
//!         let mut y = model.b;
//!         for j in 0..d {
//!             y += model.w[j] * xs[p * d + j];
//!         }
//!         total += (y - ys[p]).powi(2);
//!     }
//!     total
//! }
//!
//! let model = Linear { w: vec![0.5, -0.25], b: 0.1 };
//! let xs: Vec<f64> = (0..2_000).map(|k| (k as f64 * 0.37).sin()).collect();
//! let ys: Vec<f64> = (0..1_000).map(|p| xs[2 * p] - 0.5 * xs[2 * p + 1]).collect();
//!
//! let chunk = 128; // points per task
//! let (l, g) = xs
//!     .par_chunks(chunk * 2)
//!     .zip(ys.par_chunks(chunk))
//!     .map(|(x, y)| loss_grad(&model, x, y))
//!     .reduce(
//!         || (0.0, model.zero_like()),
//!         |(la, mut ga), (lb, gb)| {
//!             ga.accumulate(&gb);
//!             (la + lb, ga)
//!         },
//!     );
//!
//! // One `_grad` over the whole batch gives the same, to rounding: the
//! // parallel sum adds the points in another order.
//! let (l1, g1) = loss_grad(&model, &xs, &ys);
//! assert!((l - l1).abs() <= 1e-9 * l1.abs());
//! assert!((g.b - g1.b).abs() <= 1e-9 * g1.b.abs().max(1.0));
//! for (a, b) in g.w.iter().zip(&g1.w) {
//!     assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0));
//! }
//!
//! // A gradient step on the mean loss.
//! let mut model = model;
//! model.scaled_add(-0.1 / ys.len() as f64, &g);
//! ```
//!
//! On 2 cores, a batch of 100,000 points through a small tanh network
//! took half the time of one `_grad` over it (1.98 to 2.07 ×, the
//! README's "Data-parallel gradients"); `examples/parallel_batch.rs`
//! trains a network this way.
//!
//! # nalgebra
//!
//! nalgebra's fixed-size vectors, matrices and points are parameters,
//! locals and outputs of `#[grad]` functions, and the gradient with
//! respect to one is a value of its type. A two-link arm's hand, fitted to
//! a target:
//!
//! ```
//! use autodiff::grad;
//! use nalgebra::{Matrix2, Vector2};
//!
//! #[grad(wrt(q))]
//! fn reach_error(q: Vector2<f64>, target: &Vector2<f64>) -> f64 {
//!     let (a, b) = (q.x, q.x + q.y);
//!     let shoulder = Matrix2::new(a.cos(), -a.sin(), a.sin(), a.cos());
//!     let elbow_turn = Matrix2::new(b.cos(), -b.sin(), b.sin(), b.cos());
//!     let hand = shoulder * Vector2::new(1.0, 0.0) + elbow_turn * Vector2::new(0.7, 0.0);
//!     (hand - target).norm_squared()
//! }
//!
//! let target = Vector2::new(0.9, 1.1);
//! let mut q = Vector2::new(0.3, 0.3);
//! for _ in 0..300 {
//!     let (_, dq) = reach_error_grad(q, &target); // dq: Vector2<f64>
//!     q -= dq * 0.2;
//! }
//! assert!(reach_error(q, &target) < 1e-12);
//! ```
//!
//! The macro computes with the values' entries, column by column, so
//! every rule it has applies; the README's "nalgebra" lists what it
//! takes, and the feature `nalgebra` makes these types [`Differentiable`].

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

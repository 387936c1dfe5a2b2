//! The generated gradient and Hessian in the `argmin` crate's solvers: the
//! extended Rosenbrock function in 10 dimensions behind argmin's
//! `CostFunction`, `Gradient` (from `rosenbrock_grad`) and `Hessian` (from
//! `rosenbrock_hessian`), minimised by L-BFGS (gradient only) and by a
//! trust-region Newton method (Steihaug's conjugate gradients on the exact
//! Hessian), both from (1.2, −0.5, 1.2, −0.5, ..) to the minimum at (1, ..,
//! 1): L-BFGS in 77 iterations; the trust region reaches it exactly within
//! 40 (argmin's trust region stops on its iteration count only, so it
//! runs its 60).
//!
//! Run with `cargo run --example argmin`.

use argmin::core::{CostFunction, Error, Executor, Gradient, Hessian, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use argmin::solver::trustregion::{Steihaug, TrustRegion};
use autodiff::{grad, Float};

/// Σ 100 (x[i+1] − x[i]²)² + (1 − x[i])², generic over its float type so
/// that `#[grad(hessian)]` can run its gradient at dual numbers.
#[grad(hessian)]
fn rosenbrock<T: Float>(x: &[T]) -> T {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}

/// The problem as argmin sees it: its parameter a `Vec<f64>`
/// (`argmin-math`'s `vec` backend), each trait one generated function.
struct Rosenbrock;

impl CostFunction for Rosenbrock {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        Ok(rosenbrock(x))
    }
}

impl Gradient for Rosenbrock {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, x: &Vec<f64>) -> Result<Vec<f64>, Error> {
        let (_, g) = rosenbrock_grad(x);
        Ok(g)
    }
}

impl Hessian for Rosenbrock {
    type Param = Vec<f64>;
    type Hessian = Vec<Vec<f64>>;
    fn hessian(&self, x: &Vec<f64>) -> Result<Vec<Vec<f64>>, Error> {
        let (_, _, h) = rosenbrock_hessian(x);
        Ok(h)
    }
}

/// The best point a run found, checked to be the minimum.
fn at_minimum(name: &str, iterations: u64, cost: f64, x: Option<&Vec<f64>>) -> Vec<f64> {
    let x = x.cloned().unwrap_or_default();
    println!("{name}: {iterations} iterations, f = {cost:.3e}, x = {x:.9?}");
    assert!(
        cost < 1e-14 && x.iter().all(|v| (v - 1.0).abs() < 1e-6),
        "{name} did not reach the minimum"
    );
    x
}

fn main() -> Result<(), Error> {
    let x0: Vec<f64> = (0..10)
        .map(|i| if i % 2 == 0 { 1.2 } else { -0.5 })
        .collect();

    let lbfgs = LBFGS::new(MoreThuenteLineSearch::new(), 7).with_tolerance_grad(1e-10)?;
    let run = Executor::new(Rosenbrock, lbfgs)
        .configure(|s| s.param(x0.clone()).max_iters(300))
        .run()?;
    let s = run.state();
    at_minimum(
        "L-BFGS",
        s.get_iter(),
        s.get_best_cost(),
        s.get_best_param(),
    );

    let newton = TrustRegion::new(Steihaug::new().with_max_iters(20));
    let run = Executor::new(Rosenbrock, newton)
        .configure(|s| s.param(x0).max_iters(60))
        .run()?;
    let s = run.state();
    at_minimum(
        "trust-region Newton",
        s.get_iter(),
        s.get_best_cost(),
        s.get_best_param(),
    );
    Ok(())
}

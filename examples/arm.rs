//! A two-link planar arm reaching for a target, written with nalgebra as
//! robotics code is: joint angles in a `Vector2`, each link's rotation a
//! `Matrix2`, the hand where the links end. `#[grad]` differentiates the
//! squared distance from the hand to the target with respect to the
//! angles, and gradient descent moves the joints until the hand is there.
//!
//! `cargo run --example arm`

use autodiff::grad;
use nalgebra::{Matrix2, Vector2};

/// The links' lengths, in metres.
const UPPER: f64 = 1.0;
const FORE: f64 = 0.7;

/// The squared distance from the hand to `target`, with a small penalty
/// on large angles, as a function of the joint angles `q` (radians): the
/// shoulder turns the upper arm by `q.x`, the elbow the forearm by `q.y`
/// more.
#[grad(wrt(q))]
fn reach_error(q: Vector2<f64>, target: &Vector2<f64>) -> f64 {
    let (a, b) = (q.x, q.x + q.y);
    let shoulder = Matrix2::new(a.cos(), -a.sin(), a.sin(), a.cos());
    let elbow_turn = Matrix2::new(b.cos(), -b.sin(), b.sin(), b.cos());
    let elbow = shoulder * Vector2::new(UPPER, 0.0);
    let hand = elbow + elbow_turn * Vector2::new(FORE, 0.0);
    (hand - target).norm_squared() + 1e-4 * q.norm_squared()
}

/// Where the hand is, for printing.
fn hand(q: &Vector2<f64>) -> Vector2<f64> {
    let (a, b) = (q.x, q.x + q.y);
    Vector2::new(
        UPPER * a.cos() + FORE * b.cos(),
        UPPER * a.sin() + FORE * b.sin(),
    )
}

fn main() {
    let target = Vector2::new(0.9, 1.1);
    let mut q = Vector2::new(0.3, 0.3);

    // The generated gradient against central differences, once.
    let (_, dq) = reach_error_grad(q, &target);
    let h = 1e-6;
    for k in 0..2 {
        let (mut up, mut down) = (q, q);
        up[k] += h;
        down[k] -= h;
        let fd = (reach_error(up, &target) - reach_error(down, &target)) / (2.0 * h);
        assert!((dq[k] - fd).abs() < 1e-7, "∂/∂q[{k}]: {} vs {fd}", dq[k]);
    }

    let rate = 0.2;
    for step in 0..=300 {
        let (e, dq) = reach_error_grad(q, &target);
        if step % 50 == 0 {
            let p = hand(&q);
            println!(
                "step {step:3}: angles ({:+.4}, {:+.4}) rad, hand at ({:.4}, {:.4}), error {e:.3e}",
                q.x, q.y, p.x, p.y
            );
        }
        // `dq` is a `Vector2<f64>`, like `q`.
        q -= dq * rate;
    }
    // A minimum: the gradient vanishes; the hand stops short of the
    // target only by what the penalty on the angles asks.
    let (_, dq) = reach_error_grad(q, &target);
    let miss = (hand(&q) - target).norm();
    println!(
        "the hand is {miss:.2e} m from the target, |∇| = {:.1e}",
        dq.norm()
    );
    assert!(dq.norm() < 1e-8 && miss < 1e-3, "did not converge");
}

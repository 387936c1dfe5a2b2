// `Vector2::new(..)` alone might be a type of the user's own: #[grad]
// takes it for nalgebra's only once the function names a nalgebra type
// with its float type; the error says how.
use autodiff::grad;
use nalgebra::Vector2;

#[grad]
fn reach(q1: f64, q2: f64) -> f64 {
    let hand = Vector2::new(q1.cos() + q2.cos(), q1.sin() + q2.sin());
    hand.norm_squared()
}

fn main() {}

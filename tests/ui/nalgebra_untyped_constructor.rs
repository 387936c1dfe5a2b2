// `Vector2::new(..)` alone might be a type of the user's own: #[grad]
// takes it for nalgebra's only once the function names a nalgebra type
// with its float type, and refuses to guess here, saying how to name
// either (the rest of the macro would take it for a call of a function
// of the user's and fail in rustc with nalgebra's types in the message).
use autodiff::grad;
use nalgebra::Vector2;

#[grad]
fn reach(q1: f64, q2: f64) -> f64 {
    let hand = Vector2::new(q1.cos() + q2.cos(), q1.sin() + q2.sin());
    hand.norm_squared()
}

fn main() {}

// A function generic over two types is refused: one type parameter, the
// float type, is supported.
use autodiff::{grad, Float};

#[grad]
fn f<T: Float, U: Float>(x: T, scale: U) -> T {
    x * T::from_f64(scale.to_f64())
}

fn main() {}

// `x.to_f64()` of a value with a derivative takes the value out of the
// float type: the derivative (and, under `hessian`, the dual numbers) would
// be lost, so it is refused where a derivative would pass through it.
use autodiff::Float;

#[autodiff::grad(hessian)]
fn frozen<T: Float>(x: T) -> T {
    let c = T::from_f64(x.to_f64());
    x * x * c
}

fn main() {}

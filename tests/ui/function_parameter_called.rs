// A function given as a parameter, called on active values (trial 5
// r82: refused with a message about code changed in place, suggesting
// what the code already did). The message says the body is not seen and
// what to write.
use autodiff::grad;

#[grad]
fn euler<F: Fn([f64; 2]) -> [f64; 2]>(f: &F, y: [f64; 2], h: f64) -> [f64; 2] {
    let k: [f64; 2] = f(y);
    [y[0] + h * k[0], y[1] + h * k[1]]
}

#[grad]
fn simpson<F: Fn(f64) -> f64>(f: F, a: f64, b: f64) -> f64 {
    let m = 0.5 * (a + b);
    (b - a) / 6.0 * (f(a) + 4.0 * f(m) + f(b))
}

fn main() {}

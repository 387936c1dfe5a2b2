// A struct parameter named in `wrt` must be `Differentiable`: rustc says
// so at the parameter, and what to write.
use autodiff::grad;

pub struct Config {
    pub k: f64,
}

#[grad(wrt(c, x))]
fn f(c: &Config, x: f64) -> f64 {
    c.k * x
}

fn main() {}

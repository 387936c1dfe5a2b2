// A variable whose initialiser is kept as written, lent to a `#[grad]`
// function: the refusal says that the variable is not followed, not that a
// reference was made to point elsewhere (trial 12 r1097).
use autodiff::grad;

#[grad]
fn sumsq(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>()
}

#[grad]
fn f(xs: &[f64]) -> f64 {
    let a: Vec<f64> = xs.iter().skip(1).step_by(2).copied().collect();
    sumsq(&a)
}

fn main() {}

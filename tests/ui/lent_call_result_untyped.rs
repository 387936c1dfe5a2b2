// A variable lent by `&mut` to a writer whose value comes from a call
// needs its type written: without it the macro keeps it as written.
use autodiff::grad;

#[grad]
fn sq(x: f64) -> f64 {
    x * x
}

#[grad]
fn step(x: &mut f64, v: &mut f64, dt: f64) {
    *v -= *x * dt;
    *x += *v * dt;
}

#[grad]
fn f(x0: f64, t: f64) -> f64 {
    let mut x = sq(x0);
    let mut v = t;
    step(&mut x, &mut v, 0.1);
    x + v
}

fn main() {}

// A float array declared inside a branch, or after a `break` or `return`
// inside a loop (which puts the rest of the body in a branch): one error
// at its `let`, which says where to declare it, and none for its uses.
use autodiff::grad;

#[grad]
fn after_break(xs: &[f64], x0: f64) -> f64 {
    let mut s = 0.5;
    let mut k = 0;
    loop {
        k += 1;
        if k > 3 {
            break;
        }
        let mut v = vec![x0 - 2.0, x0.min(1.0), s];
        v[1] += x0 * xs[0];
        s *= (v[(k + 2) % 3] * x0).atan();
    }
    s
}

#[grad]
fn after_return(xs: &[f64], x0: f64) -> f64 {
    let mut s = 0.5;
    for &y in xs {
        if y > 3.0 {
            return x0;
        }
        s += y * x0;
    }
    let mut v: [f64; 3] = [x0, x0 * x0, 1.0];
    v[1] = v[2];
    s + v[1] + v[0]
}

fn main() {}

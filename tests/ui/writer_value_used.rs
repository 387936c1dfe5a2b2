// A writer (`&mut self`) whose call's value is used, `let _u = q.turn(w);`:
// the generated code does not follow the change, so the struct is lent to
// it by `&` and the call is a compile error at the method, never a
// derivative lost (it was one: the gradient through `w` came out zero).
// Called as a statement of its own, `q.turn(w);`, it is differentiated.
use autodiff::{grad, Differentiable};

#[derive(Clone, Differentiable)]
struct Robot {
    th: f64,
}

impl Robot {
    #[grad]
    fn turn(&mut self, a: f64) {
        self.th += a;
    }
}

#[grad(wrt(w))]
fn run(w: f64) -> f64 {
    let mut r = Robot { th: 0.5 };
    let _u = r.turn(w);
    r.th.sin()
}

// The same on a copy of a parameter.
#[grad(wrt(w, r0))]
fn run_copy(w: f64, r0: &Robot) -> f64 {
    let mut q = r0.clone();
    let _u = q.turn(w);
    q.th.sin()
}

fn main() {}

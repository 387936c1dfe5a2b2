// A struct taken by `&` may still change inside (a `Cell`). A caller reads
// it after a call as the call left it, and treats a #[grad] function or
// method as leaving it as it was; so a change with a value that carries a
// derivative is refused where it is made, even when this function's own
// result does not read it (before, `remember` compiled, and a caller that
// read `c.last` after `p.remember(x)` got 0 for that part of its
// gradient).
use std::cell::Cell;

pub struct Memo {
    pub k: f64,
    pub last: Cell<f64>,
}

fn store(m: &Memo, v: f64) {
    m.last.set(v);
}

impl Memo {
    #[autodiff::grad(wrt(x))]
    pub fn remember(&self, x: f64) -> f64 {
        let y = self.k * x.sin();
        self.last.set(x);
        y
    }

    pub fn note(&self, v: f64) -> f64 {
        self.last.replace(v)
    }
}

#[autodiff::grad(wrt(x))]
fn replaced(x: f64, m: &Memo) -> f64 {
    let _old = m.last.replace(x);
    x * x
}

#[autodiff::grad(wrt(x))]
fn stored_by_a_helper(x: f64, m: &Memo) -> f64 {
    store(m, 2.0 * x);
    x * x
}

#[autodiff::grad(wrt(x))]
fn through_another_name(x: f64, m: &Memo) -> f64 {
    let same = m;
    same.last.set(x);
    x * x
}

#[autodiff::grad(wrt(x))]
fn method_without_grad(x: f64, m: &Memo) -> f64 {
    let _before = m.note(x);
    x * x
}


#[autodiff::grad(wrt(x))]
fn in_a_loop_kept_as_written(x: f64, m: &Memo) -> f64 {
    for _ in 0..2 {
        let mut t = 0.0;
        t += m.note(x);
        let _ = t;
    }
    x * m.k
}

fn main() {}

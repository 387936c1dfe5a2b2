// A function without #[grad], lent a struct the function takes by `&` and
// given a value that carries a derivative, whose value nothing reads: it
// may keep the value in the struct (a `Cell`), where a caller would read
// it without its derivative. A function with #[grad] never does, so the
// call is let through only where the callee has #[grad]: here rustc finds
// none of its generated functions.
pub struct Memo {
    pub last: std::cell::Cell<f64>,
}

fn stored(m: &Memo, v: f64) -> f64 {
    m.last.replace(v)
}

#[autodiff::grad(wrt(x))]
fn function_without_grad(x: f64, m: &Memo) -> f64 {
    let _before = stored(m, x);
    x * x
}

// Inside a condition kept as written (`&&`), the same.
#[autodiff::grad(wrt(x))]
fn in_a_condition(x: f64, m: &Memo) -> f64 {
    if x > 0.0 && stored(m, x) > 1.0 {
        x
    } else {
        2.0 * x
    }
}

fn main() {}

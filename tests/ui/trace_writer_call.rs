// A call of a writer, `update(&mut s, y)`, is differentiated by `_grad`
// but not traced yet.
#[autodiff::grad]
fn update(x: &mut f64, y: f64) {
    *x *= y;
}

#[autodiff::grad(trace)]
fn f(s0: f64, y: f64) -> f64 {
    let mut s = s0;
    update(&mut s, y);
    s
}

fn main() {}

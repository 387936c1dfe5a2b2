// A struct of a type #[grad] does not follow (no `Differentiable`), taken
// by `&mut` and changed with a value that carries a derivative: the caller
// reads it after the call, without that derivative (before, `caller`
// below compiled and its gradient missed the `s.last` term: 1.0 where 2.0
// is right). Refused where the change is made. What a string is made of
// carries none, so logging stays.
pub struct Log {
    pub last: f64,
    pub lines: Vec<String>,
}

#[autodiff::grad(wrt(x))]
fn square(x: f64, s: &mut Log) -> f64 {
    let y = x * x;
    s.lines.push(format!("square({x}) = {y}"));
    s.last = y;
    y
}

#[autodiff::grad(wrt(x))]
fn caller(x: f64) -> f64 {
    let mut s = Log {
        last: 0.0,
        lines: Vec::new(),
    };
    let y = square(x, &mut s);
    y + s.last
}

fn main() {}

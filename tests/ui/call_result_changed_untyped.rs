// A call's result changed in place without its type stated: it may be an
// array or a `Vec` (or a struct), so the macro cannot make it a local
// array; the message says to write the type, as in the typed version,
// which works.
#[autodiff::grad]
fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[autodiff::grad]
fn f(a: [f64; 3], b: [f64; 3], k: f64) -> f64 {
    let mut d = sub(a, b);
    d[0] += k;
    d[0] * d[1] + d[2]
}

fn main() {}

// A `Vec` filled by `push` and popped (`while let Some(v) = st.pop()`):
// `pop` is not followed; the message says so, and to read it by index in
// a reverse loop (which works: tests/loop_shapes.rs), not to write the
// type the `let` already writes.
use autodiff::grad;
#[grad]
fn f(x: &[f64], w: f64) -> f64 {
    let mut st: Vec<f64> = Vec::new();
    for &t in x {
        st.push(t * w);
    }
    let mut s = 0.0;
    while let Some(v) = st.pop() {
        s = s * 0.5 + v;
    }
    s
}
fn main() { println!("{:?}", f_grad(&[1.0, 2.0, 3.0], 0.5)); }

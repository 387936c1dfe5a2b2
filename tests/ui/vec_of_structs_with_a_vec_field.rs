// A `Vec` of structs with a field that holds a `Vec`: kept as written
// (an element built again would move that field out), so where a
// derivative passes through it, refused with a message that says why.
use autodiff::grad;
#[derive(Clone, autodiff::Differentiable)]
struct Fit { a: f64, #[differentiable(constant)] data: Vec<f64> }
impl Fit {
    #[grad(wrt(self))]
    fn loss(&self) -> f64 { self.a * self.data[0] }
}
#[grad]
fn train(a0: f64) -> f64 {
    let fs = vec![Fit { a: a0, data: vec![1.0, 2.0] }];
    fs[0].loss()
}
fn main() {}

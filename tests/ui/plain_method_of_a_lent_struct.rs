// A method without #[grad], called on a struct the function borrows
// (`net: &Mlp`) with values that carry a derivative: the error is at the
// method and says to put #[grad] on it.
use autodiff::grad;

struct Mlp {
    w: Vec<f64>,
}

impl Mlp {
    fn forward(&self, x: &[f64]) -> Vec<f64> {
        x.iter().zip(&self.w).map(|(a, b)| (a * b).tanh()).collect()
    }
}

#[grad(wrt(input))]
fn loss(input: &[f64], net: &Mlp) -> f64 {
    let out = net.forward(input);
    out.iter().map(|o| o * o).sum::<f64>()
}

fn main() {}

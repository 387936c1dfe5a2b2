// A reference to a part of a differentiated struct bound by `let` (passed
// straight to a call, `neuron(&net.layers[0], x)`, it is differentiated):
// one error at the reference, which says what to write instead.
use autodiff::grad;

#[derive(Clone, autodiff::Differentiable)]
struct Layer {
    w: Vec<f64>,
    b: f64,
}

#[derive(Clone, autodiff::Differentiable)]
struct Net {
    layers: Vec<Layer>,
}

#[grad(wrt(l, x))]
fn neuron(l: &Layer, x: &[f64]) -> f64 {
    l.b + l.w[0] * x[0]
}

#[grad(wrt(net, x))]
fn net_out(net: &Net, x: &[f64]) -> f64 {
    let first = &net.layers[0];
    neuron(first, x)
}

fn main() {}

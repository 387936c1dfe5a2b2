// A part of a differentiated struct passed by reference to a call: one
// error at the argument, which says what to pass instead.
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
    neuron(&net.layers[0], x)
}

fn main() {}

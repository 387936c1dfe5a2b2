//! Struct fields of any type: a differentiated struct's integer fields are
//! read as the constants they are (in index arithmetic, loop bounds and
//! casts), and a constant struct's `Vec` and `String` fields are read in
//! place, never moved out of the reference. Exact values where they exist,
//! central differences elsewhere (h = 1e-6, relative tolerance 1e-6).

use approx::assert_relative_eq;
use autodiff::{grad, relu, Differentiable};

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Dense {
    w: Vec<f64>,
    rows: usize,
    cols: usize,
    bias: bool,
    b: f64,
}

/// Σ_i tanh(Σ_j w[i·cols + j] x[j] + b): the README's layer shape, its
/// integer fields in the index, the loop bounds and a cast.
#[grad(wrt(l))]
fn layer_sum(l: &Dense, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..l.rows {
        let mut z = 0.0;
        for j in 0..l.cols {
            z += l.w[i * l.cols + j] * x[j];
        }
        if l.bias {
            z += l.b;
        }
        s += z.tanh();
    }
    s / l.rows as f64
}

#[test]
fn integer_and_bool_fields_of_a_differentiated_struct_are_constants() {
    let l = Dense {
        w: vec![0.5, -1.0, 2.0, 0.3, 0.1, -0.7],
        rows: 2,
        cols: 3,
        bias: true,
        b: 0.25,
    };
    let x = [1.0, 2.0, -0.5];
    let (v, d) = layer_sum_grad(&l, &x);
    assert_eq!(v, layer_sum(&l, &x));
    // The constant fields are copied into the gradient.
    assert_eq!((d.rows, d.cols, d.bias), (2, 3, true));
    let h = 1e-6;
    for k in 0..6 {
        let (mut a, mut b) = (l.clone(), l.clone());
        a.w[k] += h;
        b.w[k] -= h;
        let fd = (layer_sum(&a, &x) - layer_sum(&b, &x)) / (2.0 * h);
        assert_relative_eq!(d.w[k], fd, max_relative = 1e-6);
    }
    let (mut a, mut b) = (l.clone(), l.clone());
    a.b += h;
    b.b -= h;
    let fd = (layer_sum(&a, &x) - layer_sum(&b, &x)) / (2.0 * h);
    assert_relative_eq!(d.b, fd, max_relative = 1e-6);
}

struct Data {
    ys: Vec<f64>,
    name: String,
}

/// A constant struct passed by reference: its `Vec` field's `len()` as a
/// loop bound, its elements read by index, its `String`'s length.
#[grad]
fn weighted(w: &[f64], data: &Data) -> f64 {
    let mut total = 0.0;
    for p in 0..data.ys.len() {
        total += w[0] * data.ys[p] * w[1];
    }
    total * data.name.len() as f64
}

#[test]
fn a_constant_structs_fields_are_read_in_place() {
    let data = Data {
        ys: vec![1.0, -2.0, 3.0],
        name: "abcd".to_string(),
    };
    let w = [0.7, -0.4];
    let (v, d) = weighted_grad(&w, &data);
    // 4 · w0 w1 Σ y = 4 · 2 · w0 w1
    assert_eq!(v, weighted(&w, &data));
    assert_relative_eq!(d[0], 8.0 * w[1], max_relative = 1e-15);
    assert_relative_eq!(d[1], 8.0 * w[0], max_relative = 1e-15);
}

#[grad]
fn shifted(x: f64) -> f64 {
    x * x - 1.0
}

/// A runtime function of a callee's result, whose float type only the
/// callee's signature states.
#[grad]
fn relu_of_a_call(x: f64) -> f64 {
    relu(shifted(x)) + relu(shifted(x * 0.5))
}

#[test]
fn a_runtime_function_of_a_callees_result() {
    // x = 1.7: the first relu passes, the second (x/2 = 0.85) is cut.
    let (v, d) = relu_of_a_call_grad(1.7);
    assert_eq!(v, 1.7 * 1.7 - 1.0);
    assert_eq!(d, 2.0 * 1.7);
}

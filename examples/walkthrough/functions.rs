//! The walkthrough's built-in functions: plain Rust under
//! `#[grad(trace, hessian)]`, whose generated `<name>_trace` gives every
//! number the page shows and `<name>_hessian` the second derivatives. The
//! page shows each function's source as written here. Each is generic over
//! the float type (`T: Float`), which second order needs: `_hessian` runs
//! the reverse sweep at dual numbers.

use autodiff::{grad, Float, Trace};

/// A built-in function the page can step through.
pub struct Builtin {
    /// The Rust function's name, used in URLs (`?f=rosenbrock`).
    pub name: &'static str,
    /// What it computes, in a line.
    pub title: &'static str,
    /// What to watch for while stepping through it.
    pub about: &'static str,
    /// Its parameters, in order: one input field each.
    pub params: &'static [&'static str],
    /// Where the page starts.
    pub start: &'static [f64],
    /// The gradient-descent step size the page proposes.
    pub rate: f64,
    /// The generated `_trace`, taking the parameters in order.
    pub trace: fn(&[f64]) -> Trace,
    /// The function itself, at `f64`.
    pub value: fn(&[f64]) -> f64,
    /// The generated `_hessian`'s matrix.
    pub hessian: fn(&[f64]) -> Vec<Vec<f64>>,
    /// The gradient from its formula, worked out by hand and written once
    /// here, for the page to compare with.
    pub analytic: fn(&[f64]) -> Vec<f64>,
    /// Whether its body is in the language of typed functions (no loop),
    /// so that typing it gives the same trace.
    pub typeable: bool,
}

impl Builtin {
    /// The function's source as written in this file, from its
    /// `#[grad(trace)]` line to its closing brace.
    pub fn source(&self) -> &'static str {
        let file = include_str!("functions.rs");
        let head = format!("\nfn {}<", self.name);
        let Some(at) = file.find(&head) else {
            return "";
        };
        let start = file[..at].rfind("#[grad").unwrap_or(at + 1);
        let end = file[at..].find("\n}\n").map_or(file.len(), |e| at + e + 2);
        &file[start..end]
    }
}

/// Every built-in function, the first one shown first.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "f",
        title: "(x1 − x2)² + cos(x1 + x2)",
        about: "The reference text's walk-through. x1 and x2 each feed two operations (fan-out): their adjoints receive two contributions, which add.",
        params: &["x1", "x2"],
        start: &[1.0, 2.0],
        rate: 0.1,
        trace: |v| f_trace(v[0], v[1]),
        value: |v| f(v[0], v[1]),
        hessian: |v| f_hessian(v[0], v[1]).3,
        analytic: |v| {
            let s = (v[0] + v[1]).sin();
            vec![2.0 * (v[0] - v[1]) - s, -2.0 * (v[0] - v[1]) - s]
        },
        typeable: true,
    },
    Builtin {
        name: "neuron",
        title: "a logistic neuron's loss on one example",
        about: "A branch: the stable softplus(−z) takes one arm for z > 0 and the other below. Only the arm that ran is in the trace; descend a few steps and watch the arm change.",
        params: &["w", "b"],
        start: &[-1.0, 0.5],
        rate: 1.0,
        trace: |v| neuron_trace(v[0], v[1]),
        value: |v| neuron(v[0], v[1]),
        hessian: |v| neuron_hessian(v[0], v[1]).3,
        // d/dz softplus(−z) = −σ(−z) = σ(z) − 1, and z = 1.5 w + b.
        analytic: |v| {
            let z = 1.5 * v[0] + v[1];
            let dz = 1.0 / (1.0 + (-z).exp()) - 1.0;
            vec![1.5 * dz, dz]
        },
        typeable: true,
    },
    Builtin {
        name: "line_fit",
        title: "squared error of the line w·x + b on three points",
        about: "A loop, unrolled: each iteration's nodes carry i = 0, 1, 2. w and b are read in every iteration, so their adjoints sum one contribution per iteration.",
        params: &["w", "b"],
        start: &[0.0, 0.0],
        rate: 0.05,
        trace: |v| line_fit_trace(v[0], v[1]),
        value: |v| line_fit(v[0], v[1]),
        hessian: |v| line_fit_hessian(v[0], v[1]).3,
        // Σ 2 r_i (x_i, 1), r_i = w x_i + b − y_i.
        analytic: |v| {
            let mut g = vec![0.0, 0.0];
            for (x, y) in XS.iter().zip(YS) {
                let r = v[0] * x + v[1] - y;
                g[0] += 2.0 * r * x;
                g[1] += 2.0 * r;
            }
            g
        },
        typeable: false,
    },
    Builtin {
        name: "rosenbrock",
        title: "Rosenbrock's banana, (1 − x)² + 100 (y − x²)²",
        about: "A badly conditioned valley: gradient descent needs a small step, and the gradient is steep across the valley and flat along it. The Hessian shows why: one curvature is hundreds of times the other.",
        params: &["x", "y"],
        start: &[-1.2, 1.0],
        rate: 0.001,
        trace: |v| rosenbrock_trace(v[0], v[1]),
        value: |v| rosenbrock(v[0], v[1]),
        hessian: |v| rosenbrock_hessian(v[0], v[1]).3,
        analytic: |v| {
            let (x, y) = (v[0], v[1]);
            vec![
                -2.0 * (1.0 - x) - 400.0 * x * (y - x * x),
                200.0 * (y - x * x),
            ]
        },
        typeable: true,
    },
    Builtin {
        name: "chain",
        title: "a chain of eight layers, checkpointed every four",
        about: "The reference text's case 9: eight layers x ← tanh(w·x + 0.5). The gradient keeps only the states before layers 0 and 4; the reverse sweep computes layers 0 to 3 again from the first before it reverses them. Their rows say so, and the reverse sweep shows the recomputation where it happens.",
        params: &["w", "x0"],
        start: &[0.9, 0.3],
        rate: 0.5,
        trace: |v| chain_trace(v[0], v[1]),
        value: |v| chain(v[0], v[1]),
        hessian: |v| chain_hessian(v[0], v[1]).3,
        // Forward derivatives through the recurrence: x' = (1 − x²)(w·x'
        // + ∂(w·x)/∂p), with x'(w) = 0 and x'(x0) = 1 at the start.
        analytic: |v| {
            let (w, mut x) = (v[0], v[1]);
            let (mut dw, mut dx0) = (0.0, 1.0);
            for _ in 0..LAYERS {
                let next = (w * x + 0.5).tanh();
                let slope = 1.0 - next * next;
                (dw, dx0) = (slope * (x + w * dw), slope * w * dx0);
                x = next;
            }
            vec![dw, dx0]
        },
        typeable: false,
    },
];

/// The first text's numeric walk-through.
#[grad(trace, hessian)]
fn f<T: Float>(x1: T, x2: T) -> T {
    (x1 - x2).powi(2) + (x1 + x2).cos()
}

/// The cross-entropy of a logistic neuron for the input 1.5 with label 1,
/// softplus(−z) for z = w·1.5 + b, computed without overflow on either
/// side of 0.
#[grad(trace, hessian)]
fn neuron<T: Float>(w: T, b: T) -> T {
    let z = w * 1.5 + b;
    if z > 0.0 {
        (-z).exp().ln_1p()
    } else {
        -z + z.exp().ln_1p()
    }
}

/// The data `line_fit` fits: y ≈ 1.5·x + 1.
const XS: [f64; 3] = [0.0, 1.0, 2.0];
const YS: [f64; 3] = [1.0, 2.5, 4.0];

/// The sum of squared residuals of the line w·x + b.
#[grad(trace, hessian)]
fn line_fit<T: Float>(w: T, b: T) -> T {
    let mut loss = 0.0;
    for i in 0..3 {
        let (x, y) = (T::from_f64(XS[i]), T::from_f64(YS[i]));
        let r = w * x + b - y;
        loss += r * r;
    }
    loss
}

/// Rosenbrock's function, minimum 0 at (1, 1).
#[grad(trace, hessian)]
fn rosenbrock<T: Float>(x: T, y: T) -> T {
    (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
}

/// How many layers `chain` has.
const LAYERS: usize = 8;

/// Eight layers x ← tanh(w·x + 0.5) from x0, the loop checkpointed: the
/// gradient stores the state every four layers and computes the layers
/// in between again in its reverse sweep.
#[grad(trace, hessian)]
fn chain<T: Float>(w: T, x0: T) -> T {
    let mut x = x0;
    #[checkpoint(every = 4)]
    for _layer in 0..LAYERS {
        x = (w * x + 0.5).tanh();
    }
    x
}

/// The built-in function named `name`.
pub fn find(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

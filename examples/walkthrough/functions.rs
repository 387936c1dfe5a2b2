//! The walkthrough's built-in functions: plain Rust under
//! `#[grad(trace)]`, whose generated `<name>_trace` gives every number the
//! page shows. The page shows each function's source as written here.

use autodiff::{grad, Trace};

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
}

impl Builtin {
    /// The function's source as written in this file, from its
    /// `#[grad(trace)]` line to its closing brace.
    pub fn source(&self) -> &'static str {
        let file = include_str!("functions.rs");
        let head = format!("\nfn {}(", self.name);
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
    },
    Builtin {
        name: "neuron",
        title: "a logistic neuron's loss on one example",
        about: "A branch: the stable softplus(−z) takes one arm for z > 0 and the other below. Only the arm that ran is in the trace; descend a few steps and watch the arm change.",
        params: &["w", "b"],
        start: &[-1.0, 0.5],
        rate: 1.0,
        trace: |v| neuron_trace(v[0], v[1]),
    },
    Builtin {
        name: "line_fit",
        title: "squared error of the line w·x + b on three points",
        about: "A loop, unrolled: each iteration's nodes carry i = 0, 1, 2. w and b are read in every iteration, so their adjoints sum one contribution per iteration.",
        params: &["w", "b"],
        start: &[0.0, 0.0],
        rate: 0.05,
        trace: |v| line_fit_trace(v[0], v[1]),
    },
    Builtin {
        name: "rosenbrock",
        title: "Rosenbrock's banana, (1 − x)² + 100 (y − x²)²",
        about: "A badly conditioned valley: gradient descent needs a small step, and the gradient is steep across the valley and flat along it.",
        params: &["x", "y"],
        start: &[-1.2, 1.0],
        rate: 0.001,
        trace: |v| rosenbrock_trace(v[0], v[1]),
    },
];

/// The first text's numeric walk-through.
#[grad(trace)]
fn f(x1: f64, x2: f64) -> f64 {
    (x1 - x2).powi(2) + (x1 + x2).cos()
}

/// The cross-entropy of a logistic neuron for the input 1.5 with label 1,
/// softplus(−z) for z = w·1.5 + b, computed without overflow on either
/// side of 0.
#[grad(trace)]
fn neuron(w: f64, b: f64) -> f64 {
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
#[grad(trace)]
fn line_fit(w: f64, b: f64) -> f64 {
    let mut loss = 0.0;
    for i in 0..3 {
        let (x, y) = (XS[i], YS[i]);
        let r = w * x + b - y;
        loss += r * r;
    }
    loss
}

/// Rosenbrock's function, minimum 0 at (1, 1).
#[grad(trace)]
fn rosenbrock(x: f64, y: f64) -> f64 {
    (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
}

/// The built-in function named `name`.
pub fn find(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

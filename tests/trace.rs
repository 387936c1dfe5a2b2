//! `#[grad(trace)]`: `<name>_trace` records each Wengert entry with its
//! value and local derivatives, and the reverse accumulation step by step.
//! Its gradient is `_grad`'s, and seed 001's walkthrough is its table.

// Index loops, as users write them.
#![allow(clippy::needless_range_loop)]

use approx::assert_relative_eq;
use autodiff::runtime::trace::Frame;
use autodiff::{grad, Float};

/// Seed 001's function: (x1 − x2)² + cos(x1 + x2).
#[grad(trace)]
fn f(x1: f64, x2: f64) -> f64 {
    (x1 - x2).powi(2) + (x1 + x2).cos()
}

#[test]
fn seed_001_walkthrough_at_1_2_line_by_line() {
    let t = f_trace(1.0, 2.0);
    let (y, d1, d2) = f_grad(1.0, 2.0);
    assert_eq!(t.value(), y);
    // The seed's names: temporaries t1..t4, numbered as the trace records
    // them, and the output y.
    // Forward values: t1 = -1, t2 = 1, t3 = 3, t4 = cos 3, y ≈ 0.01001.
    let forward: Vec<(String, f64)> = t.nodes.iter().map(|n| (n.label.clone(), n.value)).collect();
    let expected = [
        ("x1", 1.0),
        ("x2", 2.0),
        ("t1", -1.0),
        ("t2", 1.0),
        ("t3", 3.0),
        ("t4", 3f64.cos()),
        ("y", 1.0 + 3f64.cos()),
    ];
    assert_eq!(forward.len(), expected.len());
    for ((name, value), (want, v)) in forward.iter().zip(expected) {
        assert_eq!((name.as_str(), *value), (want, v));
    }
    // The reverse accumulation, in the seed's order: g_parent += g_child ·
    // ∂child/∂parent, with its value.
    let s3 = -(3f64.sin());
    let seed = [
        ("y", "t2", 1.0, 1.0),
        ("y", "t4", 1.0, 1.0),
        ("t2", "t1", 1.0, -2.0),
        ("t4", "t3", 1.0, s3),
        ("t1", "x1", -2.0, 1.0),
        ("t1", "x2", -2.0, -1.0),
        ("t3", "x1", s3, 1.0),
        ("t3", "x2", s3, 1.0),
    ];
    assert_eq!(t.steps.len(), seed.len());
    for (step, (child, parent, g, partial)) in t.steps.iter().zip(seed) {
        assert_eq!(t.node(step.child).label, child);
        assert_eq!(t.node(step.parent).label, parent);
        assert_eq!(step.child_adjoint, g);
        assert_eq!(step.partial, partial);
        assert_eq!(step.contribution, g * partial);
    }
    // The gradient is _grad's, bit for bit: (-2 - sin 3, 2 - sin 3).
    assert_eq!(
        t.gradient(),
        vec![("x1".to_string(), d1), ("x2".to_string(), d2)]
    );
    assert_relative_eq!(d1, -2.0 - 3f64.sin(), epsilon = 1e-15);
    assert_relative_eq!(d2, 2.0 - 3f64.sin(), epsilon = 1e-15);
    // Each entry's working, as the seed writes it: t2 = t1² = (−1)² with
    // ∂t2/∂t1 = 2t1, ∂t4/∂t3 = −sin(t3) = −sin 3.
    let working = |label: &str| t.working(t.find(label).unwrap().id).unwrap();
    assert_eq!(working("t1").arithmetic, "1 - 2");
    assert_eq!(working("t2").formula, "t1^2");
    assert_eq!(working("t2").arithmetic, "(-1)^2");
    assert_eq!(working("t2").partials[0].formula, "2 · t1");
    assert_eq!(working("t4").partials[0].formula, "-sin(t3)");
    assert_eq!(working("t4").partials[0].arithmetic, "-sin(3)");
    assert_eq!(working("y").formula, "t2 + t4");
    // The printed tables show the seed's numbers.
    let shown = t.to_string();
    assert!(shown.contains("-2.14112"), "{shown}");
    assert!(shown.contains("1.85888"), "{shown}");
}

/// A shared intermediate, a runtime function, a constant and a `let` with a
/// user name: the names are the user's.
#[grad(trace)]
fn neuron(w: f64, x: f64, b: f64) -> f64 {
    let z = w * x + b;
    let a = autodiff::sigmoid(z);
    a * a + 0.5 * z
}

#[grad(trace)]
fn helper(u: f64, v: f64) -> f64 {
    u * v.exp()
}

/// A call to another `#[grad(trace)]` function: the callee's own entries,
/// nested in a call frame, then the call's node under the caller's name.
#[grad(trace)]
fn caller(x: f64, y: f64) -> f64 {
    let h = helper(x, y);
    h.ln() + x.sin()
}

#[grad(trace)]
fn single(x: f32, y: f32) -> f32 {
    (x * y).tanh() - x / y
}

#[grad(trace)]
fn generic<T: Float>(x: T) -> T {
    x * x.sqrt() + T::from_f64(2.0) * x
}

#[test]
fn the_gradient_of_a_trace_is_the_gradients_over_the_domain() {
    for k in 0..25 {
        let (p, q, r) = (
            -2.0 + 0.17 * k as f64,
            0.3 + 0.11 * k as f64,
            1.0 - 0.07 * k as f64,
        );
        let (v, dw, dx, db) = neuron_grad(p, q, r);
        let t = neuron_trace(p, q, r);
        assert_eq!(t.value(), v);
        let g: Vec<f64> = t.gradient().into_iter().map(|(_, d)| d).collect();
        assert_eq!(g, vec![dw, dx, db]);
        assert!(t.find("z").is_some() && t.find("a").is_some());

        let (v, dx, dy) = caller_grad(q, r);
        let t = caller_trace(q, r);
        assert_eq!(t.value(), v);
        let g: Vec<f64> = t.gradient().into_iter().map(|(_, d)| d).collect();
        assert_relative_eq!(g[0], dx, max_relative = 1e-15);
        assert_relative_eq!(g[1], dy, max_relative = 1e-15);
        let h = t.find("h").expect("the call's node");
        assert_eq!(h.op, "call helper");
        assert_eq!(h.partials, vec![1.0]);
        assert!(h.frames.is_empty(), "the call's node is the caller's");
        // Its input is the callee's result, computed inside the call frame
        // from the caller's own input nodes.
        let inside = t.node(h.inputs[0]);
        assert_eq!(inside.frames, vec![Frame::call("helper")]);
        assert_eq!(inside.value, q * r.exp());
        let (x, y) = (t.find("x").unwrap().id, t.find("y").unwrap().id);
        let nested: Vec<_> = t.nodes.iter().filter(|n| !n.frames.is_empty()).collect();
        assert!(nested
            .iter()
            .all(|n| n.frames == vec![Frame::call("helper")]));
        assert!(nested.iter().any(|n| n.inputs.contains(&x)));
        assert!(nested.iter().any(|n| n.inputs.contains(&y)));
        assert_eq!(t.inputs().count(), 2, "the callee adds no inputs");

        let (v, dx, dy) = single_grad(p as f32, q as f32);
        let t = single_trace(p as f32, q as f32);
        assert_eq!(t.value(), v as f64);
        // The tape keeps f64s: it accumulates the f32 partials in f64, so
        // the gradient agrees to f32's precision, not bit for bit.
        let g: Vec<f64> = t.gradient().into_iter().map(|(_, d)| d).collect();
        assert_relative_eq!(g[0], dx as f64, max_relative = 1e-6);
        assert_relative_eq!(g[1], dy as f64, max_relative = 1e-6);

        let (v, dx) = generic_grad(q);
        let t = generic_trace(q);
        assert_eq!((t.value(), t.gradient()[0].1), (v, dx));
    }
}

#[test]
fn fan_out_gives_one_step_per_use() {
    let t = neuron_trace(0.5, -1.0, 0.25);
    let z = t.find("z").expect("z").id;
    // z feeds the sigmoid and 0.5·z: two steps into g_z.
    assert_eq!(t.steps.iter().filter(|s| s.parent == z).count(), 2);
    let dot = t.to_dot();
    assert!(dot.starts_with("digraph"), "{dot}");
}

/// A loop over a slice, unrolled on the tape: one node per iteration.
#[grad(trace)]
fn sum_of_squares(xs: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        s += xs[i] * xs[i] * c;
    }
    s.sqrt()
}

/// A branch per iteration, a local array written and read back, and a
/// `while` loop with a break.
#[grad(trace)]
fn mixed(xs: &[f64], a: f64) -> f64 {
    let mut v = vec![0.0; xs.len()];
    for i in 0..xs.len() {
        if xs[i] > 0.0 {
            v[i] = xs[i] * a;
        } else {
            v[i] = a.sin();
        }
    }
    let mut acc = 1.0;
    let mut k = 0;
    while k < v.len() {
        acc *= 1.0 + v[k];
        if acc > 100.0 {
            break;
        }
        k += 1;
    }
    acc
}

#[derive(Clone, autodiff::Differentiable)]
pub struct Params {
    pub w: f64,
    pub b: f64,
}

/// A struct's fields appear by name.
#[grad(trace, wrt(p, x))]
fn affine(p: &Params, x: f64) -> f64 {
    (p.w * x + p.b).tanh()
}

#[test]
fn loops_branches_and_arrays_are_traced_with_the_gradient_of_grad() {
    let xs = [0.5, -1.25, 2.0];
    let (v, dxs, dc) = sum_of_squares_grad(&xs, 0.7);
    let t = sum_of_squares_trace(&xs, 0.7);
    assert_eq!(t.value(), v);
    let g = t.gradient();
    let names: Vec<&str> = g.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["xs[0]", "xs[1]", "xs[2]", "c"]);
    for (k, d) in dxs.iter().enumerate() {
        assert_relative_eq!(g[k].1, *d, max_relative = 1e-15);
    }
    assert_relative_eq!(g[3].1, dc, max_relative = 1e-15);
    // One iteration frame per element, numbered 0, 1, 2.
    let shown = t.to_string();
    assert!(shown.contains("i=2"), "{shown}");

    for xs in [
        [0.5, -1.25, 2.0, 0.1],
        [3.0, 4.0, 5.0, 6.0],
        [-1.0, -2.0, -0.5, -3.0],
    ] {
        for a in [-0.8, 0.3, 1.7] {
            let (v, dxs, da) = mixed_grad(&xs, a);
            let t = mixed_trace(&xs, a);
            assert_eq!(t.value(), v, "{xs:?} {a}");
            let g = t.gradient();
            for (k, d) in dxs.iter().enumerate() {
                assert_relative_eq!(g[k].1, *d, max_relative = 1e-14, epsilon = 1e-300);
            }
            assert_relative_eq!(g[4].1, da, max_relative = 1e-14);
        }
    }
    let t = mixed_trace(&[0.5, -1.25, 2.0, 0.1], 0.3);
    let shown = t.to_string();
    assert!(shown.contains("then") && shown.contains("else"), "{shown}");

    let p = Params { w: 0.4, b: -0.2 };
    let (v, dp, dx) = affine_grad(&p, 1.5);
    let t = affine_trace(&p, 1.5);
    assert_eq!(t.value(), v);
    assert_eq!(t.adjoint_of("p.w"), Some(dp.w));
    assert_eq!(t.adjoint_of("p.b"), Some(dp.b));
    assert_eq!(t.adjoint_of("x"), Some(dx));
}

/// The static graph the macro derives, without values: a node per entry,
/// an edge per operand, φ nodes for a loop's variables.
#[test]
fn the_wengert_list_as_dot() {
    let dot = autodiff::wengert_dot!(f);
    assert!(dot.starts_with("digraph \"f\" {"), "{dot}");
    assert!(dot.contains("\"t0\" [label=\"t0 = x1 - x2\""), "{dot}");
    assert!(
        dot.contains("\"x1\" -> \"t0\";") && dot.contains("\"x1\" -> \"t2\";"),
        "{dot}"
    );
    let looped = autodiff::wengert_dot!(sum_of_squares);
    assert!(looped.contains("φ("), "{looped}");
    // Where Graphviz is installed, it reads both.
    for text in [dot, looped] {
        let child = std::process::Command::new("dot")
            .arg("-Tsvg")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn();
        let Ok(mut child) = child else {
            println!("graphviz is not installed: the DOT is checked by its shape only");
            return;
        };
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes())
            .expect("write");
        let out = child.wait_with_output().expect("dot runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// ln(eᵃ + eᵇ) with its own rule, called from a traced function: a
/// function with a custom pullback is one node in the caller's trace, with
/// the partials its `_grad` gives.
#[grad(pullback = logaddexp_rule)]
fn logaddexp(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    m + ((a - m).exp() + (b - m).exp()).ln()
}

fn logaddexp_rule(a: f64, b: f64, value: f64, seed: f64) -> (f64, f64) {
    (seed * (a - value).exp(), seed * (b - value).exp())
}

/// Two levels of traced calls and a custom pullback: `outer` calls
/// `middle`, which calls `helper` (traced) and `logaddexp` (custom).
#[grad(trace)]
fn middle(x: f64, w: &[f64; 2]) -> f64 {
    let s = logaddexp(w[0] * x, 2.0);
    helper(s, w[1]) + s
}

#[grad(trace)]
fn outer(x: f64, w: &[f64; 2]) -> f64 {
    let m = middle(x, w);
    m * middle(0.5, w)
}

#[test]
fn calls_nest_the_callees_trace() {
    for (x, w) in [(0.3, [1.2, -0.4]), (-1.5, [0.1, 0.9]), (2.0, [-0.7, 0.2])] {
        let (v, dx, dw) = outer_grad(x, &w);
        let t = outer_trace(x, &w);
        assert_eq!(t.value(), v);
        let g: Vec<f64> = t.gradient().into_iter().map(|(_, d)| d).collect();
        assert_eq!(g.len(), 3, "x, w[0], w[1]: the callees add no inputs");
        assert_relative_eq!(g[0], dx, max_relative = 1e-14);
        assert_relative_eq!(g[1], dw[0], max_relative = 1e-14, epsilon = 1e-15);
        assert_relative_eq!(g[2], dw[1], max_relative = 1e-14, epsilon = 1e-15);

        // Each call of `middle` is a frame; inside it, `helper`'s entries
        // are a frame of their own, and `logaddexp` is one node.
        let depth = |n: &autodiff::runtime::trace::Node| n.frames.len();
        let in_helper: Vec<_> = t
            .nodes
            .iter()
            .filter(|n| n.frames == vec![Frame::call("middle"), Frame::call("helper")])
            .collect();
        assert!(!in_helper.is_empty());
        let custom: Vec<_> = t.nodes.iter().filter(|n| n.name == "logaddexp").collect();
        assert_eq!(custom.len(), 2, "one per call of middle");
        // Its partials: one per float parameter, the constant 2.0 a node too.
        assert!(custom
            .iter()
            .all(|n| depth(n) == 1 && n.partials.len() == 2));
        // The constant argument 0.5 is a constant node inside the second
        // call, not an input.
        assert!(t
            .nodes
            .iter()
            .any(|n| n.op == "const" && n.value == 0.5 && n.frames == vec![Frame::call("middle")]));
    }
    // The tables print the nested entries.
    let shown = outer_trace(0.3, &[1.2, -0.4]).to_string();
    assert!(shown.contains("helper"), "{shown}");
}

/// The reference texts' case 9: a chain of eight layers, checkpointed
/// every two. The trace shows each segment the reverse sweep computes
/// again from its stored state as a frame of its own.
#[grad(trace, wrt(w, x))]
fn checkpointed_chain(w: &[f64], x: f64) -> f64 {
    let mut y = x;
    #[checkpoint(every = 2)]
    for l in 0..8 {
        y = (w[l] * y + 0.1).tanh();
    }
    y
}

#[test]
fn a_checkpointed_loop_shows_its_recomputation_as_frames() {
    use autodiff::runtime::trace::Frame;
    let w = [0.9, -1.1, 0.7, 1.3, -0.8, 1.0, 0.6, -1.2];
    let trace = checkpointed_chain_trace(&w, 0.5);
    let (y, dw, dx) = checkpointed_chain_grad(&w, 0.5);
    assert_eq!(trace.value().to_bits(), y.to_bits());
    assert_eq!(trace.adjoint_of("x").map(f64::to_bits), Some(dx.to_bits()));
    let _ = dw;
    // Every node of iteration l: in the frame of its segment, recomputed
    // from the state stored before the segment, except the last segment's,
    // which the forward sweep records.
    let mut seen = [false; 8];
    for node in &trace.nodes {
        let Some(l) = node.frames.iter().find_map(|f| match f {
            Frame::Iteration { index, .. } => Some(*index),
            _ => None,
        }) else {
            continue;
        };
        seen[l] = true;
        let segment = node.frames.iter().find_map(|f| match f {
            Frame::Recomputed {
                from, to, restored, ..
            } => Some((*from, *to, *restored)),
            _ => None,
        });
        let start = l / 2 * 2;
        if l < 6 {
            assert_eq!(segment, Some((start, start + 2, start)), "layer {l}");
            // The segment's frame holds the iteration's.
            let outer = node
                .frames
                .iter()
                .position(|f| matches!(f, Frame::Recomputed { .. }));
            let inner = node
                .frames
                .iter()
                .position(|f| matches!(f, Frame::Iteration { .. }));
            assert!(outer < inner);
        } else {
            assert_eq!(segment, None, "layer {l}");
        }
    }
    assert_eq!(seen, [true; 8]);
    let shown = trace.to_string();
    assert!(shown.contains("recomputed from l = 4"), "{shown}");
    // The reverse sweep says where it computes a segment again.
    assert!(
        shown.contains("recompute l = 2..4 from the state stored before l = 2"),
        "{shown}"
    );
    assert!(trace
        .to_json()
        .contains("\"kind\":\"recomputed\",\"label\":\"l\",\"from\":2,\"to\":4,\"restored\":2"));
}

/// The stable softplus(−z) of a logistic neuron, generic: two arms of
/// different lengths, a literal beside a generic float.
#[grad(trace)]
fn softplus_loss<T: Float>(w: T, b: T) -> T {
    let z = w * 1.5 + b;
    if z > 0.0 {
        (-z).exp().ln_1p()
    } else {
        -z + z.exp().ln_1p()
    }
}

#[test]
fn temporaries_are_numbered_without_gaps_and_each_arm_from_the_same_number() {
    let shown = |t: &autodiff::Trace| -> Vec<(String, String)> {
        t.nodes
            .iter()
            .map(|n| (n.label.clone(), n.expr.clone()))
            .collect()
    };
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    // z > 0: the then arm, t2..t4.
    let then = softplus_loss_trace(1.0, 0.5);
    assert_eq!(
        shown(&then),
        pairs(&[
            ("w", "w"),
            ("b", "b"),
            ("t1", "w * 1.5"),
            ("z", "t1 + b"),
            ("t2", "-z"),
            ("t3", "t2.exp()"),
            ("t4", "t3.ln_1p()"),
        ])
    );
    // z < 0: the else arm counts from t2 too.
    let other = softplus_loss_trace(-1.0, 0.5);
    assert_eq!(
        shown(&other)[4..],
        pairs(&[
            ("t2", "-z"),
            ("t3", "z.exp()"),
            ("t4", "t3.ln_1p()"),
            ("t5", "t2 + t4"),
        ])[..]
    );
    // A generic function's literal is shown as written, and works out.
    let w = then.working(then.find("t1").unwrap().id).unwrap();
    assert_eq!(
        (w.formula.as_str(), w.arithmetic.as_str()),
        ("w · 1.5", "1 · 1.5")
    );
    // An output computed by an entry of its own, named by nobody, is y.
    assert_eq!(f_trace(1.0, 2.0).output().label, "y");
}

/// A spring whose energy is traced as a method.
#[derive(Clone, Copy, autodiff::Differentiable)]
pub struct Spring {
    pub k: f64,
    pub rest: f64,
}

impl Spring {
    /// The receiver constant: its fields are written out where read.
    #[grad(trace)]
    pub fn energy(&self, x: f64) -> f64 {
        0.5 * self.k * (x - self.rest).powi(2)
    }

    /// The receiver differentiated: its fields are inputs.
    #[grad(trace, wrt(self, x))]
    pub fn stretched(&self, x: f64) -> f64 {
        self.k * (x - self.rest).powi(2)
    }
}

#[test]
fn a_method_is_traced_with_its_receiver() {
    let s = Spring { k: 2.0, rest: 1.0 };
    let t = s.energy_trace(3.0);
    let (v, dx) = s.energy_grad(3.0);
    assert_eq!((t.value(), t.gradient()), (v, vec![("x".to_string(), dx)]));
    let shown: Vec<&str> = t.nodes.iter().map(|n| n.expr.as_str()).collect();
    assert_eq!(
        shown,
        ["x", "x - self.rest", "t1.powi(2)", "(0.5 * self.k) * t2"]
    );
    let w = t.working(t.output().id).unwrap();
    assert_eq!(w.formula, "(0.5 * self.k) · t2");
    assert_eq!(w.arithmetic, "1 · 4");

    let t = s.stretched_trace(3.0);
    let (v, ds, dx) = s.stretched_grad(3.0);
    assert_eq!(t.value(), v);
    assert_eq!(t.adjoint_of("self.k"), Some(ds.k));
    assert_eq!(t.adjoint_of("self.rest"), Some(ds.rest));
    assert_eq!(t.adjoint_of("x"), Some(dx));
}

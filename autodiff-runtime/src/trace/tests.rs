//! The tape driven by hand, exactly as `#[grad(trace)]`'s generated code
//! drives it, and its tables; the renderings are `render_tests.rs`'s.

use super::*;
use crate::{arith, power, trig};

/// Seed 001's f(x1, x2) = (x1 − x2)² + cos(x1 + x2), recorded as generated
/// code records it: each partial from the runtime's own pullback at dy = 1.
pub(super) fn seed_001(x1: f64, x2: f64) -> Trace {
    let mut tape = Tape::new("f");
    let n_x1 = tape.input("x1", x1);
    let n_x2 = tape.input("x2", x2);
    let t1 = arith::sub(x1, x2);
    let d = arith::sub_pullback(x1, x2, t1, 1.0);
    let n_t1 = tape.node("t1", "sub", "x1 - x2", &[n_x1, n_x2], &[d.0, d.1], t1);
    let t2 = power::powi(t1, 2);
    let d = power::powi_pullback(t1, 2, t2, 1.0);
    let n_t2 = tape.node("t2", "powi", "t1.powi(2)", &[n_t1], &[d], t2);
    let t3 = arith::add(x1, x2);
    let d = arith::add_pullback(x1, x2, t3, 1.0);
    let n_t3 = tape.node("t3", "add", "x1 + x2", &[n_x1, n_x2], &[d.0, d.1], t3);
    let t4 = trig::cos(t3);
    let d = trig::cos_pullback(t3, t4, 1.0);
    let n_t4 = tape.node("t4", "cos", "cos(t3)", &[n_t3], &[d], t4);
    let y = arith::add(t2, t4);
    let d = arith::add_pullback(t2, t4, y, 1.0);
    let n_y = tape.node("y", "add", "t2 + t4", &[n_t2, n_t4], &[d.0, d.1], y);
    tape.finish(n_y)
}

#[test]
fn seed_001_forward_values() {
    let trace = seed_001(1.0, 2.0);
    let values: Vec<(&str, f64)> = trace
        .nodes
        .iter()
        .map(|n| (n.label.as_str(), n.value))
        .collect();
    assert_eq!(
        values,
        [
            ("x1", 1.0),
            ("x2", 2.0),
            ("t1", -1.0),
            ("t2", 1.0),
            ("t3", 3.0),
            ("t4", 3f64.cos()),
            ("y", 1.0 + 3f64.cos())
        ]
    );
    assert_eq!(format_number(trace.value_of("t4").unwrap(), 5), "-0.98999");
    assert_eq!(format_number(trace.value(), 5), "0.01001");
    assert_eq!(trace.output().label, "y");
    assert_eq!(trace.node(NodeId(2)).partials, [1.0, -1.0]);
    assert_eq!(trace.node(NodeId(3)).partials, [-2.0]);
    assert_eq!(trace.node(NodeId(5)).partials, [-(3f64.sin())]);
}

#[test]
fn seed_001_reverse_lines_are_the_seeds() {
    let trace = seed_001(1.0, 2.0);
    let lines: Vec<String> = trace.steps.iter().map(|s| s.to_string()).collect();
    // The walk-through's reverse accumulation, line by line, in its order:
    // parents of y, of t2, of t4, of t1, of t3.
    assert_eq!(
        lines,
        [
            "g_t2 += g_y · ∂y/∂t2 = 1 · 1 = 1",
            "g_t4 += g_y · ∂y/∂t4 = 1 · 1 = 1",
            "g_t1 += g_t2 · ∂t2/∂t1 = 1 · -2 = -2",
            "g_t3 += g_t4 · ∂t4/∂t3 = 1 · -0.14112 = -0.14112",
            "g_x1 += g_t1 · ∂t1/∂x1 = -2 · 1 = -2",
            "g_x2 += g_t1 · ∂t1/∂x2 = -2 · -1 = 2",
            "g_x1 += g_t3 · ∂t3/∂x1 = -0.14112 · 1 = -0.14112",
            "g_x2 += g_t3 · ∂t3/∂x2 = -0.14112 · 1 = -0.14112",
        ]
    );
    let order: Vec<&str> = trace
        .reverse_order
        .iter()
        .map(|id| trace.node(*id).label.as_str())
        .collect();
    assert_eq!(order, ["y", "t2", "t4", "t1", "t3", "x1", "x2"]);
    // The running totals after the last steps are the gradient.
    assert_eq!(format_number(trace.steps[6].parent_adjoint, 5), "-2.14112");
    assert_eq!(format_number(trace.steps[7].parent_adjoint, 5), "1.85888");
    assert_eq!(trace.steps[3].contribution, -(3f64.sin()));
}

#[test]
fn seed_001_gradient() {
    let trace = seed_001(1.0, 2.0);
    let gradient = trace.gradient();
    assert_eq!(gradient.len(), 2);
    assert_eq!(gradient[0].0, "x1");
    assert_eq!(gradient[1].0, "x2");
    assert!((gradient[0].1 - (-2.0 - 3f64.sin())).abs() <= 1e-15);
    assert!((gradient[1].1 - (2.0 - 3f64.sin())).abs() <= 1e-15);
    assert_eq!(trace.adjoint_of("t1"), Some(-2.0));
    assert_eq!(trace.adjoint_of("y"), Some(1.0));
    assert_eq!(trace.adjoint_of("nothing"), None);
    // At another point, the analytic gradient again.
    let trace = seed_001(-0.7, 2.5);
    let (t1, t3) = (-0.7 - 2.5, -0.7 + 2.5_f64);
    assert!((trace.adjoint_of("x1").unwrap() - (2.0 * t1 - t3.sin())).abs() <= 1e-15);
    assert!((trace.adjoint_of("x2").unwrap() - (-2.0 * t1 - t3.sin())).abs() <= 1e-15);
}

#[test]
fn seed_001_tables() {
    let text = seed_001(1.0, 2.0).to_string();
    let expected = "\
f(x1 = 1, x2 = 2)

forward sweep
  node  operation   value     local derivatives
  x1    input       1
  x2    input       2
  t1    x1 - x2     -1        ∂t1/∂x1 = 1, ∂t1/∂x2 = -1
  t2    t1.powi(2)  1         ∂t2/∂t1 = -2
  t3    x1 + x2     3         ∂t3/∂x1 = 1, ∂t3/∂x2 = 1
  t4    cos(t3)     -0.98999  ∂t4/∂t3 = -0.14112
  y     t2 + t4     0.01001   ∂y/∂t2 = 1, ∂y/∂t4 = 1

reverse sweep
  g_y = 1
  parents of y (t2, t4):
    g_t2 += g_y · ∂y/∂t2 = 1 · 1 = 1
    g_t4 += g_y · ∂y/∂t4 = 1 · 1 = 1
  parents of t2 (t1):
    g_t1 += g_t2 · ∂t2/∂t1 = 1 · -2 = -2
  parents of t4 (t3):
    g_t3 += g_t4 · ∂t4/∂t3 = 1 · -0.14112 = -0.14112
  parents of t1 (x1, x2):
    g_x1 += g_t1 · ∂t1/∂x1 = -2 · 1 = -2
    g_x2 += g_t1 · ∂t1/∂x2 = -2 · -1 = 2
  parents of t3 (x1, x2):
    g_x1 += g_t3 · ∂t3/∂x1 = -0.14112 · 1 = -0.14112   → g_x1 = -2.14112
    g_x2 += g_t3 · ∂t3/∂x2 = -0.14112 · 1 = -0.14112   → g_x2 = 1.85888

gradient
  ∂y/∂x1 = -2.14112
  ∂y/∂x2 = 1.85888
";
    assert_eq!(text, expected, "\n{text}");
    // A precision in the format gives more decimals.
    let precise = format!("{:.8}", seed_001(1.0, 2.0));
    assert!(precise.contains("∂y/∂x1 = -2.14112001"), "{precise}");
}

#[test]
fn fan_out_accumulates_and_unused_nodes_get_nothing() {
    let trace = seed_001(1.0, 2.0);
    let x1 = trace.find("x1").unwrap().id;
    assert_eq!(trace.children(x1), [NodeId(2), NodeId(4)]);
    let into_x1: Vec<&Step> = trace.steps.iter().filter(|s| s.parent == x1).collect();
    assert_eq!(into_x1.len(), 2);
    assert_eq!(
        into_x1[1].parent_adjoint,
        into_x1[0].contribution + into_x1[1].contribution
    );

    // u = x·x reads x twice; v = sin(x) is computed but not returned.
    let x = 0.75_f64;
    let mut tape = Tape::new("g");
    let n_x = tape.input("x", x);
    let u = arith::mul(x, x);
    let d = arith::mul_pullback(x, x, u, 1.0);
    let n_u = tape.node("u", "mul", "x * x", &[n_x, n_x], &[d.0, d.1], u);
    let v = trig::sin(x);
    let n_v = tape.node(
        "v",
        "sin",
        "sin(x)",
        &[n_x],
        &[trig::sin_pullback(x, v, 1.0)],
        v,
    );
    let w = arith::mul(v, 2.0);
    let n_w = tape.node("w", "mul", "v * 2", &[n_v], &[2.0], w);
    let trace = tape.finish(n_u);
    assert_eq!(
        trace.steps.len(),
        2,
        "only u's two reads of x: {:?}",
        trace.steps
    );
    assert_eq!(trace.adjoint_of("x"), Some(2.0 * x));
    for unused in [n_v, n_w] {
        assert_eq!(trace.node(unused).adjoint, 0.0);
        assert!(!trace.reaches_output(trace.node(unused)));
        assert!(trace
            .steps
            .iter()
            .all(|s| s.child != unused && s.parent != unused));
    }
    assert_eq!(trace.reverse_order, [NodeId(1), NodeId(0)]);
    #[cfg(feature = "render")]
    {
        assert!(trace.to_dot().contains("style=\"rounded,dashed\""));
        assert!(trace.to_svg().contains("class=\"node unused\""));
    }
}

#[test]
fn an_infinite_partial_on_a_zero_adjoint_gives_zero() {
    // y = 0·sqrt(x) at x = 0: sqrt'(0) = ∞, but g_sqrt = 0.
    let mut tape = Tape::new("h");
    let x = tape.input("x", 0.0_f64);
    let s = tape.node("s", "sqrt", "sqrt(x)", &[x], &[f64::INFINITY], 0.0);
    let y = tape.node("y", "mul", "s * 0", &[s], &[0.0], 0.0);
    let trace = tape.finish(y);
    assert_eq!(trace.adjoint_of("x"), Some(0.0));
    assert!(trace.to_string().contains("= 0 · inf = 0"));
    #[cfg(feature = "render")]
    assert!(trace.to_json().contains("\"partial\":\"Infinity\""));
}

/// A loop of two iterations, the first taking one arm and the second the
/// other, then a call: as generated code would enter and leave frames.
pub(super) fn with_frames() -> Trace {
    let mut tape = Tape::new("looped");
    let a = tape.input("a", 2.0_f32);
    let mut s = tape.node("s", "copy", "a", &[a], &[1.0_f32], 2.0);
    let mut sv = 2.0_f32;
    for i in 0..2 {
        tape.enter(Frame::iteration("i", i));
        let arm = if i == 0 { "then" } else { "else" };
        tape.enter(Frame::arm("if i == 0", arm));
        let next = if i == 0 { sv * sv } else { sv + 1.0 };
        let partial = if i == 0 { 2.0 * sv } else { 1.0 };
        let expr = if i == 0 { "s * s" } else { "s + 1" };
        s = tape.node("s", "mul", expr, &[s], &[partial], next);
        sv = next;
        tape.leave();
        tape.leave();
    }
    tape.enter(Frame::call("sq"));
    let x = tape.node("x", "copy", "s", &[s], &[1.0_f32], sv);
    let r = tape.node("r", "mul", "x * x", &[x, x], &[sv, sv], sv * sv);
    tape.leave();
    let out = tape.node("out", "call sq", "sq(s)", &[r], &[1.0_f32], sv * sv);
    tape.finish(out)
}

#[test]
fn frames_label_iterations_arms_and_calls() {
    let trace = with_frames();
    let labels: Vec<&str> = trace.nodes.iter().map(|n| n.label.as_str()).collect();
    assert_eq!(
        labels,
        ["a", "s", "s[i=0]", "s[i=1]", "sq::x", "sq::r", "out"]
    );
    assert_eq!(
        trace.nodes[2].frames,
        [Frame::iteration("i", 0), Frame::arm("if i == 0", "then")]
    );
    assert_ne!(trace.nodes[2].scopes[0], trace.nodes[3].scopes[0]);
    assert_eq!(trace.nodes[4].frames, [Frame::call("sq")]);
    // d/da ((a² + 1)²) = 2(a² + 1)·2a = 40 at a = 2.
    assert_eq!(trace.adjoint_of("a"), Some(40.0));
    assert_eq!(trace.find("s[i=1]").unwrap().value, 5.0);

    let text = trace.to_string();
    assert!(
        text.contains("\n  s[i=0]   s * s      4      if i == 0: then  ∂s[i=0]/∂s = 4\n"),
        "{text}"
    );
    assert!(text.contains("if i == 0: then"), "{text}");
    assert!(text.contains("if i == 0: else"), "{text}");
    assert!(text.contains("\n  call sq"), "{text}");
    assert!(text.contains("\n    sq::x"), "{text}");
    assert!(
        text.contains("g_s[i=1] += g_sq::x · ∂sq::x/∂s[i=1] = 10 · 1 = 10"),
        "{text}"
    );
}

#[test]
fn a_shadowed_name_is_primed() {
    let mut tape = Tape::new("shadow");
    let x = tape.input("x", 1.0_f64);
    let x2 = tape.node("x", "mul", "x * 2", &[x], &[2.0], 2.0);
    let trace = tape.finish(x2);
    assert_eq!(trace.nodes[1].label, "x′");
    assert_eq!(
        trace.steps[0].to_string(),
        "g_x += g_x′ · ∂x′/∂x = 1 · 2 = 2"
    );
    assert_eq!(trace.gradient(), [("x".to_owned(), 2.0)]);
}

#[test]
fn seeded_vector_outputs() {
    // (u, v) = (a·b, a + b) seeded with (1, 10): aᵀJ.
    let (a, b) = (3.0_f64, 4.0_f64);
    let mut tape = Tape::new("pair");
    let na = tape.input("a", a);
    let nb = tape.input("b", b);
    let u = tape.node("u", "mul", "a * b", &[na, nb], &[b, a], a * b);
    let v = tape.node("v", "add", "a + b", &[na, nb], &[1.0, 1.0], a + b);
    let trace = tape.finish_seeded(&[u, v], &[1.0, 10.0]);
    assert_eq!(
        trace.gradient(),
        [("a".to_owned(), 4.0 + 10.0), ("b".to_owned(), 3.0 + 10.0)]
    );
    assert_eq!(trace.outputs, [(u, 1.0), (v, 10.0)]);
    assert!(trace.to_string().contains("  g_u = 1\n  g_v = 10\n"));
    // An output that another output reads is processed after it.
    let mut tape = Tape::new("chain");
    let x = tape.input("x", 2.0_f64);
    let y = tape.node("y", "mul", "x * 3", &[x], &[3.0], 6.0);
    let z = tape.node("z", "mul", "y * 5", &[y], &[5.0], 30.0);
    let trace = tape.finish_seeded(&[y, z], &[1.0, 1.0]);
    assert_eq!(trace.reverse_order, [z, y, x]);
    assert_eq!(trace.adjoint_of("x"), Some(3.0 * 6.0));
}

#[test]
fn input_arrays_and_struct_fields() {
    let mut tape = Tape::new("dot");
    let xs = tape.input_array("xs", &[1.0_f64, 2.0, 3.0]);
    let w = tape.input("p.w", 0.5_f64);
    let mut acc = tape.node("t0", "mul", "p.w * xs[0]", &[w, xs[0]], &[1.0, 0.5], 0.5);
    for (i, x) in xs.iter().enumerate().skip(1) {
        let v = (i + 1) as f64;
        acc = tape.node(
            "t",
            "add",
            "t + p.w * xs[i]",
            &[acc, w, *x],
            &[1.0, v, 0.5],
            0.0,
        );
    }
    let trace = tape.finish(acc);
    let names: Vec<String> = trace.gradient().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["xs[0]", "xs[1]", "xs[2]", "p.w"]);
    assert_eq!(trace.adjoint_of("p.w"), Some(1.0 + 2.0 + 3.0));
    assert_eq!(trace.adjoint_of("xs[2]"), Some(0.5));
}

#[test]
#[should_panic(expected = "one partial per input")]
fn partials_must_match_inputs() {
    let mut tape = Tape::new("bad");
    let x = tape.input("x", 1.0_f64);
    tape.node("y", "mul", "x * x", &[x, x], &[2.0], 1.0);
}

#[test]
fn numbers_print_readably() {
    assert_eq!(format_number(-2.0, 5), "-2");
    assert_eq!(format_number(0.010_007_503_399_554_585, 5), "0.01001");
    assert_eq!(format_number(-1e-9, 5), "-1e-9");
    assert_eq!(format_number(1.5e-9, 3), "1.5e-9");
    assert_eq!(format_number(2.5e12, 5), "2.5e12");
    assert_eq!(format_number(-0.000_001, 5), "-1e-6");
    assert_eq!(format_number(-0.0, 5), "0");
    assert_eq!(format_number(f64::NAN, 5), "NaN");
    assert_eq!(format_number(f64::NEG_INFINITY, 5), "-inf");
}

//! The tape driven by hand, exactly as `#[grad(trace)]`'s generated code
//! drives it, and every rendering checked.

use super::*;
use crate::{arith, power, trig};

/// Seed 001's f(x1, x2) = (x1 − x2)² + cos(x1 + x2), recorded as generated
/// code records it: each partial from the runtime's own pullback at dy = 1.
fn seed_001(x1: f64, x2: f64) -> Trace {
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
    assert!(trace.to_dot().contains("style=\"rounded,dashed\""));
    assert!(trace.to_svg().contains("class=\"node unused\""));
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
    assert!(trace.to_json().contains("\"partial\":\"Infinity\""));
}

/// A loop of two iterations, the first taking one arm and the second the
/// other, then a call: as generated code would enter and leave frames.
fn with_frames() -> Trace {
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

    let dot = trace.to_dot();
    assert_eq!(dot.matches("subgraph cluster_").count(), 5, "{dot}");
    assert!(dot.contains("label=\"i = 1\""), "{dot}");
    assert!(dot.contains("label=\"call sq\""), "{dot}");
    check_dot(&dot);
    check_xml(&trace.to_svg());
    check_json(&trace.to_json());
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

#[test]
fn json_escapes_and_numbers() {
    assert_eq!(
        json_string("a\"b\\c\nd\u{1}é"),
        "\"a\\\"b\\\\c\\nd\\u0001é\""
    );
    assert_eq!(json_number(1.0), "1.0");
    assert_eq!(json_number(-0.1), "-0.1");
    assert_eq!(json_number(1e-300), "1e-300");
    assert_eq!(json_number(f64::NAN), "\"NaN\"");
    assert_eq!(json_number(f64::INFINITY), "\"Infinity\"");
    for v in [0.1, -2.141_120_008_059_867, 1e21, 5e-324, f64::MAX] {
        assert_eq!(json_number(v).parse::<f64>().unwrap(), v);
    }
    // Names with quotes and backslashes survive.
    let mut tape = Tape::new("q\"uote\\");
    let x = tape.input("x\"", 1.0_f64);
    let trace = tape.finish(x);
    let json = trace.to_json();
    let value = check_json(&json);
    assert_eq!(
        value.get("function").and_then(Json::as_str),
        Some("q\"uote\\")
    );
    check_dot(&trace.to_dot());
    check_xml(&trace.to_svg());
}

#[test]
fn json_of_seed_001() {
    let trace = seed_001(1.0, 2.0);
    let value = check_json(&trace.to_json());
    let nodes = value.get("nodes").and_then(Json::as_array).unwrap();
    assert_eq!(nodes.len(), 7);
    assert_eq!(nodes[0].get("name").and_then(Json::as_str), Some("x1"));
    assert_eq!(
        nodes[0].get("adjoint").and_then(Json::as_f64),
        Some(-2.0 - 3f64.sin())
    );
    assert_eq!(nodes[6].get("output"), Some(&Json::Bool(true)));
    let steps = value.get("steps").and_then(Json::as_array).unwrap();
    assert_eq!(steps.len(), 8);
    assert_eq!(
        steps[2].get("text").and_then(Json::as_str),
        Some("g_t1 += g_t2 · ∂t2/∂t1 = 1 · -2 = -2")
    );
    assert_eq!(
        steps[6].get("parent_adjoint").and_then(Json::as_f64),
        Some(-2.0 - 3f64.sin())
    );
    let gradient = value.get("gradient").and_then(Json::as_array).unwrap();
    assert_eq!(
        gradient[1].get("value").and_then(Json::as_f64),
        Some(2.0 - 3f64.sin())
    );
    assert_eq!(
        value.get("value").and_then(Json::as_f64),
        Some(1.0 + 3f64.cos())
    );
}

#[test]
fn dot_of_seed_001() {
    let dot = seed_001(1.0, 2.0).to_dot();
    let graph = check_dot(&dot);
    assert_eq!(graph.nodes.len(), 7);
    // One edge per dependency; x1 and x2 fan out to t1 and t3.
    assert_eq!(graph.edges.len(), 8);
    let out_of = |n: &str| graph.edges.iter().filter(|(a, _)| a == n).count();
    assert_eq!(out_of("n0"), 2);
    assert_eq!(out_of("n1"), 2);
    assert!(
        dot.contains("n0 [label=\"x1\\nvalue 1\\nadjoint -2.14112\", fillcolor=\"#dbeafe\"];"),
        "{dot}"
    );
    assert!(dot.contains("n6 [label=\"y = t2 + t4\\nvalue 0.01001\\nadjoint 1\", fillcolor=\"#fde68a\", peripheries=2];"));
    assert!(dot.contains("n3 -> n6 [label=\"∂ 1\"];"));
    run_graphviz(&dot);
    run_graphviz(&with_frames().to_dot());
}

#[test]
fn layout_of_seed_001() {
    let trace = seed_001(1.0, 2.0);
    let layout = trace.layout();
    assert_eq!(layout, trace.layout(), "deterministic");
    let layers: Vec<usize> = layout.nodes.iter().map(|n| n.layer).collect();
    assert_eq!(layers, [0, 0, 1, 2, 1, 2, 3]);
    check_layout(&trace, &layout);
    let svg = trace.to_svg();
    check_xml(&svg);
    assert_eq!(svg.matches(" id=\"node-").count(), 7);
    assert_eq!(svg.matches("<path class=\"edge\"").count(), 8);
    assert!(svg.contains(">t4 = cos(t3)</text>"));
    assert!(svg.contains(">adjoint -2.14112</text>"));
}

#[test]
fn layout_routes_long_edges_and_orders_layers() {
    let trace = with_frames();
    let layout = trace.layout();
    check_layout(&trace, &layout);
    // a (layer 0) → s (1) → s[i=0] (2) → s[i=1] (3) → sq::x (4) → sq::r
    // (5) → out (6): a chain, so one box per layer at one height.
    let ys: Vec<f64> = layout.nodes.iter().map(|n| n.y).collect();
    assert!(ys.iter().all(|y| (y - ys[0]).abs() < 1e-9), "{ys:?}");
    // An edge across two layers bends through a point between them.
    let mut tape = Tape::new("skip");
    let x = tape.input("x", 1.0_f64);
    let a = tape.node("a", "sin", "sin(x)", &[x], &[1.0], 1.0);
    let b = tape.node("b", "sin", "sin(a)", &[a], &[1.0], 1.0);
    let c = tape.node("c", "add", "b + x", &[b, x], &[1.0, 1.0], 1.0);
    let trace = tape.finish(c);
    let layout = trace.layout();
    check_layout(&trace, &layout);
    let long = layout
        .edges
        .iter()
        .find(|e| e.from == x && e.to == c)
        .unwrap();
    assert_eq!(long.points.len(), 4);
}

/// Boxes of one layer do not overlap; every edge goes from its operand's
/// right side to its result's left side, rightwards.
fn check_layout(trace: &Trace, layout: &Layout) {
    assert_eq!(layout.nodes.len(), trace.nodes.len());
    for a in &layout.nodes {
        assert!(
            a.x >= 0.0
                && a.y >= 0.0
                && a.x + a.width <= layout.width
                && a.y + a.height <= layout.height
        );
        for b in &layout.nodes {
            if a.id < b.id && a.layer == b.layer {
                assert!(
                    a.y + a.height <= b.y || b.y + b.height <= a.y,
                    "{a:?} overlaps {b:?}"
                );
            }
        }
    }
    let edges: usize = trace.nodes.iter().map(|n| n.inputs.len()).sum();
    assert_eq!(layout.edges.len(), edges);
    for e in &layout.edges {
        let (from, to) = (&layout.nodes[e.from.0], &layout.nodes[e.to.0]);
        assert!(from.layer < to.layer);
        assert_eq!(e.points.len(), to.layer - from.layer + 1);
        assert_eq!(e.points[0].0, from.x + from.width);
        assert_eq!(e.points.last().unwrap().0, to.x);
        assert!(e.points.windows(2).all(|w| w[0].0 < w[1].0));
    }
}

/// `dot -Tsvg` on the graph, where Graphviz is installed.
fn run_graphviz(dot: &str) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let Ok(mut child) = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        eprintln!(
            "graphviz's `dot` is not on PATH: the DOT was checked by the parser in this test only"
        );
        return;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(dot.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stderr.trim().is_empty(),
        "dot failed: {stderr}\n{dot}"
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("<svg"));
}

// ---- Small checkers: a DOT parser, a JSON parser, an XML balance check.

struct DotGraph {
    nodes: Vec<String>,
    edges: Vec<(String, String)>,
}

fn dot_tokens(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '"' {
            let mut tok = String::from("\"");
            i += 1;
            while chars[i] != '"' {
                if chars[i] == '\\' {
                    tok.push(chars[i]);
                    i += 1;
                }
                tok.push(chars[i]);
                i += 1;
            }
            out.push(tok);
            i += 1;
        } else if c == '-' && chars.get(i + 1) == Some(&'>') {
            out.push("->".into());
            i += 2;
        } else if "{}[];=,".contains(c) {
            out.push(c.to_string());
            i += 1;
        } else {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                i += 1;
            }
            assert!(i > start, "unexpected {c:?} in DOT");
            out.push(chars[start..i].iter().collect());
        }
    }
    out
}

/// Parses the DOT subset `to_dot` writes (statements: `a = b`, `node [..]`,
/// `edge [..]`, `id [..]`, `a -> b [..]`, `subgraph id { .. }`) and checks
/// that every edge joins declared nodes.
fn check_dot(dot: &str) -> DotGraph {
    let toks = dot_tokens(dot);
    let mut graph = DotGraph {
        nodes: Vec::new(),
        edges: Vec::new(),
    };
    assert_eq!(toks[0], "digraph");
    assert!(toks[1].starts_with('"'));
    assert_eq!(toks[2], "{");
    let mut i = 3;
    let mut depth = 1;
    let attrs = |i: &mut usize| {
        if toks[*i] == "[" {
            *i += 1;
            while toks[*i] != "]" {
                assert!(toks[*i + 1] == "=", "attribute {} has no value", toks[*i]);
                *i += 3;
                if toks[*i] == "," {
                    *i += 1;
                }
            }
            *i += 1;
        }
    };
    while depth > 0 {
        let t = &toks[i];
        if t == "}" {
            depth -= 1;
            i += 1;
        } else if t == "subgraph" {
            assert_eq!(toks[i + 2], "{");
            depth += 1;
            i += 3;
        } else if t == "node" || t == "edge" {
            i += 1;
            attrs(&mut i);
            assert_eq!(toks[i], ";");
            i += 1;
        } else if toks[i + 1] == "=" {
            i += 3;
            assert_eq!(toks[i], ";");
            i += 1;
        } else if toks[i + 1] == "->" {
            graph.edges.push((t.clone(), toks[i + 2].clone()));
            i += 3;
            attrs(&mut i);
            assert_eq!(toks[i], ";");
            i += 1;
        } else {
            graph.nodes.push(t.clone());
            i += 1;
            attrs(&mut i);
            assert_eq!(toks[i], ";", "after node {t}");
            i += 1;
        }
    }
    assert_eq!(i, toks.len(), "tokens after the graph");
    for (a, b) in &graph.edges {
        assert!(
            graph.nodes.contains(a) && graph.nodes.contains(b),
            "edge {a} -> {b}"
        );
    }
    graph
}

/// A parsed JSON value.
#[derive(Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }
    fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(v) => Some(*v),
            _ => None,
        }
    }
    fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(v) => Some(v),
            _ => None,
        }
    }
}

fn check_json(s: &str) -> Json {
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let value = parse_json(&chars, &mut i);
    assert_eq!(i, chars.len(), "trailing characters in JSON");
    value
}

fn parse_json(c: &[char], i: &mut usize) -> Json {
    let word = |i: &mut usize, w: &str, v: Json| {
        let got: String = c[*i..*i + w.len()].iter().collect();
        assert_eq!(got, w);
        *i += w.len();
        v
    };
    match c[*i] {
        'n' => word(i, "null", Json::Null),
        't' => word(i, "true", Json::Bool(true)),
        'f' => word(i, "false", Json::Bool(false)),
        '"' => Json::String(parse_json_string(c, i)),
        '[' => {
            *i += 1;
            let mut items = Vec::new();
            while c[*i] != ']' {
                items.push(parse_json(c, i));
                if c[*i] == ',' {
                    *i += 1;
                    assert_ne!(c[*i], ']', "trailing comma");
                }
            }
            *i += 1;
            Json::Array(items)
        }
        '{' => {
            *i += 1;
            let mut fields = Vec::new();
            while c[*i] != '}' {
                let key = parse_json_string(c, i);
                assert_eq!(c[*i], ':');
                *i += 1;
                fields.push((key, parse_json(c, i)));
                if c[*i] == ',' {
                    *i += 1;
                    assert_ne!(c[*i], '}', "trailing comma");
                }
            }
            *i += 1;
            Json::Object(fields)
        }
        _ => {
            let start = *i;
            while *i < c.len() && "+-0123456789.eE".contains(c[*i]) {
                *i += 1;
            }
            let text: String = c[start..*i].iter().collect();
            assert!(
                !text.starts_with('+') && !text.starts_with('.'),
                "not a JSON number: {text}"
            );
            Json::Number(
                text.parse()
                    .unwrap_or_else(|_| panic!("not a number: {text:?}")),
            )
        }
    }
}

fn parse_json_string(c: &[char], i: &mut usize) -> String {
    assert_eq!(c[*i], '"');
    *i += 1;
    let mut out = String::new();
    while c[*i] != '"' {
        assert!(
            c[*i] as u32 >= 0x20,
            "raw control character in a JSON string"
        );
        if c[*i] == '\\' {
            *i += 1;
            match c[*i] {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                '"' | '\\' | '/' => out.push(c[*i]),
                'u' => {
                    let hex: String = c[*i + 1..*i + 5].iter().collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap());
                    *i += 4;
                }
                other => panic!("bad escape \\{other}"),
            }
        } else {
            out.push(c[*i]);
        }
        *i += 1;
    }
    *i += 1;
    out
}

/// Every tag closed in order, attributes quoted, no raw `<` or `&` in
/// text.
fn check_xml(s: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = s;
    while let Some(open) = rest.find('<') {
        let text = &rest[..open];
        assert!(!text.contains('>'), "stray > in {text:?}");
        for (k, _) in text.match_indices('&') {
            let entity = &text[k..text[k..].find(';').map_or(text.len(), |e| k + e + 1)];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&entity),
                "bad entity {entity}"
            );
        }
        let close = rest[open..].find('>').expect("unclosed tag") + open;
        let tag = &rest[open + 1..close];
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "unbalanced quotes in <{tag}>"
        );
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "closing {name}");
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap().to_owned());
        }
        rest = &rest[close + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert!(s.starts_with("<svg"));
}

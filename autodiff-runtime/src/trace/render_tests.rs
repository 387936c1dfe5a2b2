//! Every rendering of a trace checked (feature `render`): DOT parsed and
//! given to Graphviz where it is installed, the SVG parsed as XML, the
//! layout's geometry, JSON parsed back.

use super::tests::{seed_001, with_frames};
use super::*;
use serde_json::Value as Json;

#[test]
fn frames_render_as_clusters() {
    let trace = with_frames();
    let dot = trace.to_dot();
    assert_eq!(dot.matches("subgraph cluster_").count(), 5, "{dot}");
    assert!(dot.contains("label=\"i = 1\""), "{dot}");
    assert!(dot.contains("label=\"call sq\""), "{dot}");
    check_dot(&dot);
    check_xml(&trace.to_svg());
    let json = check_json(&trace.to_json());
    let frames = json.get("nodes").and_then(Json::as_array).unwrap()[2]
        .get("frames")
        .and_then(Json::as_array)
        .unwrap();
    assert_eq!(
        frames[0].get("kind").and_then(Json::as_str),
        Some("iteration")
    );
    assert_eq!(frames[0].get("index").and_then(Json::as_f64), Some(0.0));
    assert_eq!(frames[1].get("arm").and_then(Json::as_str), Some("then"));
}

#[test]
fn json_escapes_and_numbers() {
    let number = |v: f64| serde_json::to_string(&JsonNumber(v)).unwrap();
    assert_eq!(number(1.0), "1.0");
    assert_eq!(number(-0.1), "-0.1");
    assert_eq!(number(1e-300), "1e-300");
    assert_eq!(number(f64::NAN), "\"NaN\"");
    assert_eq!(number(f64::INFINITY), "\"Infinity\"");
    assert_eq!(number(f64::NEG_INFINITY), "\"-Infinity\"");
    for v in [0.1, -2.141_120_008_059_867, 1e21, 5e-324, f64::MAX] {
        assert_eq!(number(v).parse::<f64>().unwrap(), v);
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
    assert_eq!(value, serde_json::to_value(&trace).unwrap());
    let nodes = value.get("nodes").and_then(Json::as_array).unwrap();
    assert_eq!(nodes.len(), 7);
    assert_eq!(nodes[0].get("input"), Some(&Json::Bool(true)));
    assert_eq!(nodes[0].get("scopes"), None);
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

/// `x * x`: two edges between the same two nodes.
fn square() -> Trace {
    let mut tape = Tape::new("square");
    let x = tape.input("x", 3.0_f64);
    let y = tape.node("y", "mul", "x * x", &[x, x], &[3.0, 3.0], 9.0);
    tape.finish(y)
}

/// `s * s + s`: twin edges, and a third edge out of `s` past them.
fn square_plus() -> Trace {
    let mut tape = Tape::new("square_plus");
    let s = tape.input("s", -1.25_f64);
    let t = tape.node("t1", "mul", "s * s", &[s, s], &[-1.25, -1.25], 1.5625);
    let y = tape.node("y", "add", "t1 + s", &[t, s], &[1.0, 1.0], 0.3125);
    tape.finish(y)
}

/// One value read by three nodes, which one node sums.
fn three_readers() -> Trace {
    let mut tape = Tape::new("three");
    let x = tape.input("x", 0.5_f64);
    let a = tape.node("a", "sin", "sin(x)", &[x], &[0.5f64.cos()], 0.5f64.sin());
    let b = tape.node("b", "cos", "cos(x)", &[x], &[-(0.5f64.sin())], 0.5f64.cos());
    let c = tape.node("c", "exp", "exp(x)", &[x], &[0.5f64.exp()], 0.5f64.exp());
    let y = tape.node("y", "sum", "a + b + c", &[a, b, c], &[1.0, 1.0, 1.0], 2.0);
    tape.finish(y)
}

/// 40 nodes: a chain, each third node also reading the one three back and
/// each fifth the input (long edges across many layers).
fn chain_40() -> Trace {
    let mut tape = Tape::new("chain");
    let x = tape.input("x", 0.75_f64);
    let mut nodes = vec![x];
    for i in 1..40 {
        let mut inputs = vec![nodes[i - 1]];
        if i % 3 == 0 {
            inputs.push(nodes[i - 3]);
        }
        if i % 5 == 0 {
            inputs.push(x);
        }
        let partials: Vec<f64> = (0..inputs.len())
            .map(|k| (i as f64 * 0.37 + k as f64).sin() * 10f64.powi(k as i32 - 1))
            .collect();
        let name = format!("t{i}");
        let expr = format!("f{}(..)", inputs.len());
        nodes.push(tape.node(&name, "f", &expr, &inputs, &partials, i as f64 / 7.0));
    }
    tape.finish(nodes[39])
}

/// Two inputs read by 12 nodes of one layer, which one node sums.
fn wide_12() -> Trace {
    let mut tape = Tape::new("wide");
    let x = tape.input("x", 1.5_f64);
    let y = tape.input("y", -0.5_f64);
    let layer: Vec<NodeId> = (0..12)
        .map(|i| {
            let name = format!("w{i}");
            let p = [(i as f64).cos(), -(i as f64) / 3.0];
            tape.node(&name, "mul", "x * y", &[x, y], &p, i as f64)
        })
        .collect();
    let ones = vec![1.0_f64; 12];
    let out = tape.node("out", "sum", "w0 + .. + w11", &layer, &ones, 66.0);
    tape.finish(out)
}

/// A pseudo-random DAG of `n` nodes (a linear congruential generator from
/// `seed`): 1 to 3 inputs, then nodes reading 1 to 3 earlier ones (the
/// same one twice at times), partials of every size.
fn random_dag(seed: u64, n: usize) -> Trace {
    let mut state = seed;
    let mut next = move |m: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) % m as u64) as usize
    };
    let mut tape = Tape::new("random");
    let inputs = 1 + next(3);
    let mut nodes: Vec<NodeId> = (0..inputs)
        .map(|i| tape.input(&format!("x{i}"), i as f64 + 0.5))
        .collect();
    for i in inputs..n {
        let count = 1 + next(3);
        // Mostly recent nodes, some far back.
        let reads: Vec<NodeId> = (0..count)
            .map(|_| {
                let back = if next(4) == 0 {
                    next(i)
                } else {
                    next(3.min(i))
                };
                nodes[i - 1 - back]
            })
            .collect();
        let partials: Vec<f64> = (0..count)
            .map(|_| match next(5) {
                0 => 1.0,
                1 => -(next(1000) as f64) / 7.0,
                2 => next(100) as f64 * 1e-7,
                3 => (next(1000) as f64).exp(),
                _ => next(50) as f64 - 25.0,
            })
            .collect();
        let name = format!("t{i}");
        let value = next(1000) as f64 / 13.0;
        nodes.push(tape.node(&name, "op", "op(..)", &reads, &partials, value));
    }
    tape.finish(nodes[n - 1])
}

/// One node reading `x` five times (`x * x * x * x * x` as one entry):
/// more twins than fit one above the other on the box's side.
fn five_twins() -> Trace {
    let mut tape = Tape::new("fifth");
    let x = tape.input("x", 1.1_f64);
    let p = [1.4641_f64; 5];
    let y = tape.node("y", "mul", "x * x * x * x * x", &[x; 5], &p, 1.61051);
    tape.finish(y)
}

/// An array input, a constant argument, a node that reaches no output,
/// two seeded outputs, one of which reads the other.
fn arrays_and_outputs() -> Trace {
    let mut tape = Tape::new("mixed");
    let xs = tape.input_array("xs", &[1.0_f64, 2.0, 3.0]);
    let c = tape.argument(&[], "c", 0.5_f64);
    let dot = tape.node(
        "d",
        "dot",
        "xs[0]·xs[1] + xs[2]·c",
        &[xs[0], xs[1], xs[2], c],
        &[2.0, 1.0, 0.5, 3.0],
        3.5,
    );
    let unused = tape.node(
        "u",
        "sin",
        "sin(xs[0])",
        &[xs[0]],
        &[1f64.cos()],
        1f64.sin(),
    );
    let _ = tape.node("w", "mul", "u * u", &[unused, unused], &[2.0, 2.0], 0.7);
    let e = tape.node("e", "exp", "exp(d)", &[dot], &[3.5f64.exp()], 3.5f64.exp());
    tape.finish_seeded(&[dot, e], &[1.0, -2.0])
}

/// One edge whose label is wider than the plain gap between its boxes.
fn wide_label() -> Trace {
    let mut tape = Tape::new("tiny");
    let x = tape.input("x", 1e-300_f64);
    let y = tape.node("y", "sq", "x * x", &[x], &[-2.345_678e-300], 1e-300);
    tape.finish(y)
}

#[test]
fn a_label_wider_than_the_gap_widens_it() {
    let trace = wide_label();
    let layout = trace.layout();
    check_all(&trace, &layout);
    let label = layout.edges[0].label;
    let gap = layer_gaps(&layout)[0];
    assert!(label.2 > 100.0 && gap >= label.2 + 14.0, "{gap} {label:?}");
    // No more than one step past what it needs.
    assert!(gap < label.2 + 14.0 + 16.0, "{gap} {label:?}");
}

#[test]
fn twin_edges_are_apart_with_their_labels() {
    for trace in [square(), square_plus(), with_frames()] {
        let layout = trace.layout();
        check_all(&trace, &layout);
        let mut twins = 0;
        for (i, a) in layout.edges.iter().enumerate() {
            for b in &layout.edges[i + 1..] {
                if (a.from, a.to) == (b.from, b.to) {
                    twins += 1;
                    // Apart by more than a label's height all along.
                    for (p, q) in a.points.iter().zip(&b.points) {
                        assert!((p.1 - q.1).abs() >= 18.0, "{a:?} {b:?}");
                    }
                }
            }
        }
        assert_eq!(twins, 1, "{}", trace.function);
    }
    // x * x: the two labels one above the other, each on its own edge.
    let trace = square();
    let layout = trace.layout();
    let [a, b] = &layout.edges[..] else {
        panic!("{layout:?}")
    };
    assert_eq!(a.label_text, "∂ 3");
    assert!(a.label.1 + a.label.3 <= b.label.1 || b.label.1 + b.label.3 <= a.label.1);
}

#[test]
fn labels_meet_no_label_and_no_box() {
    let mut traces = vec![
        seed_001(1.0, 2.0),
        seed_001(-3.5, 1e-3),
        with_frames(),
        square(),
        square_plus(),
        three_readers(),
        chain_40(),
        wide_12(),
        five_twins(),
        arrays_and_outputs(),
        wide_label(),
    ];
    for seed in 1..=12 {
        traces.push(random_dag(seed, 6 + (seed as usize * 7) % 30));
    }
    for trace in &traces {
        check_all(trace, &trace.layout());
    }
}

#[test]
fn layout_stays_compact() {
    // Seed 001's labels fit in the plain gaps: nothing widened.
    let layout = seed_001(1.0, 2.0).layout();
    let gaps = layer_gaps(&layout);
    assert!(gaps.iter().all(|g| (g - 100.0).abs() < 1e-9), "{gaps:?}");
    // Neither do the wide layer's, the three readers' nor the chain's
    // need more than a little.
    for trace in [wide_12(), three_readers(), chain_40(), square_plus()] {
        let layout = trace.layout();
        let gaps = layer_gaps(&layout);
        assert!(
            gaps.iter().all(|&g| g <= 164.0),
            "{}: {gaps:?}",
            trace.function
        );
    }
}

/// The space between the widest box of each layer and the next layer.
fn layer_gaps(layout: &Layout) -> Vec<f64> {
    let depth = layout.nodes.iter().map(|n| n.layer + 1).max().unwrap_or(0);
    (1..depth)
        .map(|l| {
            let right = layout
                .nodes
                .iter()
                .filter(|n| n.layer == l - 1)
                .map(|n| n.x + n.width)
                .fold(0.0, f64::max);
            let left = layout.nodes.iter().find(|n| n.layer == l).unwrap().x;
            left - right
        })
        .collect()
}

/// The layout's geometry, its labels, and the SVG drawn from it.
fn check_all(trace: &Trace, layout: &Layout) {
    assert_eq!(layout, &trace.layout(), "deterministic");
    check_layout(trace, layout);
    check_labels(trace, layout);
    let svg = layout.to_svg(trace);
    check_xml(&svg);
    check_svg_text(layout, &svg);
}

type Rect = (f64, f64, f64, f64);

fn overlaps(a: Rect, b: Rect) -> bool {
    a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
}

/// Whether the segment from `a` to `b` meets the rectangle `r` (sampled
/// finely: a test needs no exact clipping).
fn meets(r: Rect, a: (f64, f64), b: (f64, f64)) -> bool {
    (0..=1000).any(|i| {
        let t = i as f64 / 1000.0;
        let (px, py) = (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1));
        px > r.0 && px < r.0 + r.2 && py > r.1 && py < r.1 + r.3
    })
}

/// Each label holds its edge's local derivative, lies against its edge,
/// lies inside the drawing, and meets no other label and no box.
fn check_labels(trace: &Trace, layout: &Layout) {
    let boxes: Vec<Rect> = layout
        .nodes
        .iter()
        .map(|n| (n.x, n.y, n.width, n.height))
        .collect();
    for (i, e) in layout.edges.iter().enumerate() {
        let partial = trace.node(e.to).partials[e.input];
        assert_eq!(e.label_text, format!("∂ {}", format_number(partial, 5)));
        let (x, y, w, h) = e.label;
        // Room for 12-px monospace text (0.6 em a character).
        assert!(w >= e.label_text.chars().count() as f64 * 7.2 && h >= 15.0);
        assert!(
            x >= 0.0 && y >= 0.0 && x + w <= layout.width && y + h <= layout.height,
            "{}: label outside the drawing {e:?}",
            trace.function
        );
        // Against its edge: 2 px from it where nearest, never crossed by it.
        let line_at = |px: f64| {
            e.points.windows(2).find_map(|s| {
                let (a, b) = (s[0], s[1]);
                let t = (px - a.0) / (b.0 - a.0);
                (0.0..=1.0).contains(&t).then_some(a.1 + t * (b.1 - a.1))
            })
        };
        let gap = [x, x + w]
            .iter()
            .filter_map(|&px| line_at(px))
            .chain(
                e.points
                    .iter()
                    .filter(|p| p.0 > x && p.0 < x + w)
                    .map(|p| p.1),
            )
            .map(|ly| (ly - (y + h)).abs().min((ly - y).abs()))
            .fold(f64::INFINITY, f64::min);
        assert!(
            (gap - 2.0).abs() < 1e-6,
            "{}: label not against its edge {e:?}",
            trace.function
        );
        assert!(
            !e.points
                .windows(2)
                .any(|s| meets((x + 0.5, y + 0.5, w - 1.0, h - 1.0), s[0], s[1])),
            "{}: edge through its own label {e:?}",
            trace.function
        );
        for (b, n) in boxes.iter().zip(&layout.nodes) {
            assert!(
                !overlaps(e.label, *b),
                "{}: label of {:?}→{:?} on the box of {:?}",
                trace.function,
                e.from,
                e.to,
                n.id
            );
        }
        for f in &layout.edges[i + 1..] {
            assert!(
                !overlaps(e.label, f.label),
                "{}: labels meet: {e:?} {f:?}",
                trace.function
            );
        }
    }
}

/// The value of the attribute `name` of the tag `tag`.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(&tag[start..start + tag[start..].find('"')?])
}

/// Every text at least 12 px (a node's 13 px), and each label's text
/// drawn inside its rectangle.
fn check_svg_text(layout: &Layout, svg: &str) {
    let root = &svg[..svg.find('>').unwrap()];
    let default: f64 = attribute(root, "font-size").unwrap().parse().unwrap();
    assert!(default >= 13.0);
    let mut partials = Vec::new();
    let mut texts = 0;
    for (k, _) in svg.match_indices("<text") {
        let tag = &svg[k..k + svg[k..].find('>').unwrap()];
        let size: f64 = attribute(tag, "font-size").map_or(default, |s| s.parse().unwrap());
        let class = attribute(tag, "class").unwrap();
        let least = if class == "partial" { 12.0 } else { 13.0 };
        assert!(size >= least, "{tag}");
        texts += 1;
        if class == "partial" {
            let at = |name| attribute(tag, name).unwrap().parse::<f64>().unwrap();
            partials.push((at("x"), at("y")));
        }
    }
    assert_eq!(texts, 3 * layout.nodes.len() + layout.edges.len());
    for (e, (x, y)) in layout.edges.iter().zip(partials) {
        let (lx, ly, w, h) = e.label;
        assert!((x - (lx + w / 2.0)).abs() < 0.06, "{e:?}");
        assert!(y > ly + 10.0 && y < ly + h, "{e:?}");
    }
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

/// `s` parsed as JSON (serde_json), and the same as the trace's
/// `Serialize` form gives.
fn check_json(s: &str) -> Json {
    serde_json::from_str(s).unwrap()
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

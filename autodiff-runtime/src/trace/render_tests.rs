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

//! The trace as a Graphviz DOT graph.

use std::fmt::Write as _;

use super::display::{format_number, DEFAULT_DECIMALS};
use super::{Frame, Node, Trace};

/// `s` as the inside of a DOT double-quoted string: `"` and `\` escaped,
/// line breaks as `\n`.
pub(crate) fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// How a frame is named in a cluster's label.
pub(crate) fn frame_title(frame: &Frame) -> String {
    match frame {
        Frame::Iteration { label, index } => format!("{label} = {index}"),
        Frame::Arm { label, arm } => format!("{label}: {arm}"),
        Frame::Call { function } => format!("call {function}"),
        Frame::Recomputed {
            label,
            from,
            to,
            restored,
        } => format!("{label} = {from}..{to}, recomputed from {label} = {restored}"),
    }
}

/// The lines a node's box shows: the entry, its value, its adjoint.
pub(crate) fn node_lines(node: &Node, decimals: usize) -> [String; 3] {
    let head = if node.is_input {
        node.label.clone()
    } else {
        format!("{} = {}", node.label, node.expr)
    };
    [
        head,
        format!("value {}", format_number(node.value, decimals)),
        format!("adjoint {}", format_number(node.adjoint, decimals)),
    ]
}

impl Trace {
    /// The trace as a Graphviz DOT `digraph`, laid out left to right: one
    /// node per Wengert entry (`n0`, `n1`, ... by [`NodeId`](super::NodeId)), labelled
    /// with the entry, its value and its adjoint; one edge per dependency,
    /// from operand to result, labelled with the local derivative, so a
    /// value read twice (fan-out) has several edges out. Inputs are blue,
    /// outputs yellow with a double border, and nodes that do not reach
    /// an output grey and dashed. Loop iterations, arms and calls are
    /// nested clusters. `dot -Tsvg` draws it.
    pub fn to_dot(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "digraph \"{}\" {{", dot_escape(&self.function));
        out.push_str("  rankdir=LR;\n");
        out.push_str("  node [shape=box, style=\"rounded,filled\", fillcolor=\"white\", fontname=\"monospace\", fontsize=11];\n");
        out.push_str("  edge [fontname=\"monospace\", fontsize=9, color=\"#555555\"];\n");
        let all: Vec<&Node> = self.nodes.iter().collect();
        let mut clusters = 0;
        self.write_scope(&mut out, &all, 0, 1, &mut clusters);
        for node in &self.nodes {
            for (k, p) in node.inputs.iter().enumerate() {
                let partial = format_number(node.partials[k], DEFAULT_DECIMALS);
                let _ = writeln!(
                    out,
                    "  n{} -> n{} [label=\"{}\"];",
                    p.0,
                    node.id.0,
                    dot_escape(&format!("∂ {partial}"))
                );
            }
        }
        out.push_str("}\n");
        out
    }

    /// Writes the nodes of `nodes` that are directly at frame depth
    /// `depth`, and a cluster for each frame entry below it.
    fn write_scope(
        &self,
        out: &mut String,
        nodes: &[&Node],
        depth: usize,
        indent: usize,
        clusters: &mut usize,
    ) {
        let pad = "  ".repeat(indent);
        let mut groups: Vec<(usize, Vec<&Node>)> = Vec::new();
        for node in nodes {
            match node.scopes.get(depth) {
                None => self.write_node(out, node, &pad),
                Some(scope) => match groups.iter_mut().find(|(s, _)| s == scope) {
                    Some((_, members)) => members.push(node),
                    None => groups.push((*scope, vec![node])),
                },
            }
        }
        for (_, members) in groups {
            *clusters += 1;
            let title = frame_title(&members[0].frames[depth]);
            let _ = writeln!(out, "{pad}subgraph cluster_{} {{", clusters);
            let _ = writeln!(
                out,
                "{pad}  label=\"{}\"; style=\"rounded,dashed\"; color=\"#888888\"; fontname=\"monospace\"; fontsize=10;",
                dot_escape(&title)
            );
            self.write_scope(out, &members, depth + 1, indent + 1, clusters);
            let _ = writeln!(out, "{pad}}}");
        }
    }

    fn write_node(&self, out: &mut String, node: &Node, pad: &str) {
        let label = dot_escape(&node_lines(node, DEFAULT_DECIMALS).join("\n"));
        let is_output = self.outputs.iter().any(|(o, _)| *o == node.id);
        let style = if is_output {
            ", fillcolor=\"#fde68a\", peripheries=2"
        } else if node.is_input {
            ", fillcolor=\"#dbeafe\""
        } else if !self.reaches_output(node) {
            ", style=\"rounded,dashed\", fontcolor=\"#777777\", color=\"#999999\""
        } else {
            ""
        };
        let _ = writeln!(out, "{pad}n{} [label=\"{label}\"{style}];", node.id.0);
    }
}

//! The laid-out graph as SVG.

use std::fmt::Write as _;

use super::layout::{LABEL_BASELINE, LABEL_FONT_SIZE, LINE_HEIGHT, NODE_FONT_SIZE, PAD_X, PAD_Y};
use super::{Layout, Trace};

/// `s` with `&`, `<`, `>`, `"` and `'` as XML entities.
pub(crate) fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

impl Layout {
    /// The layout as a standalone SVG document drawn with presentation
    /// attributes, which a page's CSS can override through the classes:
    /// each node a `<g class="node" id="node-3" data-id="3">` (also
    /// `input`, `output`, `unused` for a node that does not reach an
    /// output) holding a `rect` and three `text`s of classes `label`,
    /// `value` and `adjoint`; each edge a `<path class="edge" id="edge-3-5"
    /// data-from data-to data-input>` with an arrow, and a `<text
    /// class="partial" data-from data-to data-input>` with its local
    /// derivative, in the rectangle [`LayoutEdge::label`](super::LayoutEdge::label)
    /// that the layout keeps for it. Node text is 13 px, labels 12 px.
    pub fn to_svg(&self, trace: &Trace) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"trace-graph\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"ui-monospace, Menlo, Consolas, monospace\" font-size=\"{NODE_FONT_SIZE}\">",
            w = self.width,
            h = self.height
        );
        out.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"9\" markerHeight=\"9\" markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#666\"/></marker></defs>");
        out.push_str("<g class=\"edges\">");
        for edge in &self.edges {
            let mut d = String::new();
            for (i, (x, y)) in edge.points.iter().enumerate() {
                let _ = write!(d, "{}{x:.1},{y:.1}", if i == 0 { "M" } else { " L" });
            }
            let _ = write!(
                out,
                "<path class=\"edge\" id=\"edge-{f}-{t}-{k}\" data-from=\"{f}\" data-to=\"{t}\" data-input=\"{k}\" d=\"{d}\" fill=\"none\" stroke=\"#666\" stroke-width=\"1.3\" marker-end=\"url(#arrow)\"/>",
                f = edge.from.0,
                t = edge.to.0,
                k = edge.input
            );
            let (x, y, w, _) = edge.label;
            let _ = write!(
                out,
                "<text class=\"partial\" data-from=\"{f}\" data-to=\"{t}\" data-input=\"{k}\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"{LABEL_FONT_SIZE}\" fill=\"#475569\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">{}</text>",
                x + w / 2.0,
                y + LABEL_BASELINE,
                xml_escape(&edge.label_text),
                f = edge.from.0,
                t = edge.to.0,
                k = edge.input
            );
        }
        out.push_str("</g><g class=\"nodes\">");
        for node in &self.nodes {
            let tn = trace.node(node.id);
            let output = trace.outputs.iter().any(|(o, _)| *o == node.id);
            let (class, fill, stroke) = if output {
                ("node output", "#fef3c7", "#b45309")
            } else if tn.is_input {
                ("node input", "#dbeafe", "#1d4ed8")
            } else if !trace.reaches_output(tn) {
                ("node unused", "#f1f5f9", "#94a3b8")
            } else {
                ("node", "#ffffff", "#334155")
            };
            let _ = write!(
                out,
                "<g class=\"{class}\" id=\"node-{id}\" data-id=\"{id}\"><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"6\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.5\"/>",
                id = node.id.0,
                x = node.x,
                y = node.y,
                w = node.width,
                h = node.height
            );
            let frames: Vec<String> = tn.frames.iter().map(super::dot::frame_title).collect();
            let _ = write!(
                out,
                "<title>{}</title>",
                xml_escape(&if frames.is_empty() {
                    tn.label.clone()
                } else {
                    format!("{} ({})", tn.label, frames.join(", "))
                })
            );
            for (i, (class, line)) in ["label", "value", "adjoint"]
                .iter()
                .zip(&node.lines)
                .enumerate()
            {
                let _ = write!(
                    out,
                    "<text class=\"{class}\" x=\"{:.1}\" y=\"{:.1}\" fill=\"{}\">{}</text>",
                    node.x + PAD_X,
                    node.y + PAD_Y + LINE_HEIGHT * (i as f64 + 0.78),
                    if i == 0 { "#0f172a" } else { "#334155" },
                    xml_escape(line)
                );
            }
            out.push_str("</g>");
        }
        out.push_str("</g></svg>");
        out
    }
}

impl Trace {
    /// The graph drawn as SVG by [`Trace::layout`] and
    /// [`Layout::to_svg`]: no Graphviz needed.
    pub fn to_svg(&self) -> String {
        self.layout().to_svg(self)
    }
}

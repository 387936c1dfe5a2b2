//! The trace as text: a forward table and a reverse table, like the
//! reference text's numeric walk-through.

use std::fmt::{self, Display, Formatter, Write as _};

use super::{Frame, Node, Step, Trace};

/// How many decimals the tables print unless the format asks (`{:.8}`).
pub(crate) const DEFAULT_DECIMALS: usize = 5;

/// `v` rounded to `decimals` decimals, trailing zeros dropped (`-2`,
/// `-0.14112`); in scientific notation where that would print 0 for a
/// value that is not, or where the value is 10⁷ or more (`1.5e-9`);
/// `NaN`, `inf` and `-inf` as such.
pub fn format_number(v: f64, decimals: usize) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v == 0.0 {
        return "0".into();
    }
    let tiny = v.abs() < 0.5 * 10f64.powi(-(decimals.min(300) as i32));
    if tiny || v.abs() >= 1e7 {
        let s = format!("{:.*e}", decimals.max(1), v);
        let (mantissa, exponent) = s.split_once('e').unwrap_or((&s, "0"));
        return format!("{}e{exponent}", trim_zeros(mantissa));
    }
    let s = trim_zeros(&format!("{v:.decimals$}")).to_owned();
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Prints `g_p += g_c · ∂c/∂p = g_c · partial = contribution`, numbers to
/// five decimals unless the format gives a precision.
impl Display for Step {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let d = f.precision().unwrap_or(DEFAULT_DECIMALS);
        let (c, p) = (self.child_label(), self.parent_label());
        write!(
            f,
            "g_{p} += g_{c} · ∂{c}/∂{p} = {} · {} = {}",
            format_number(self.child_adjoint, d),
            format_number(self.partial, d),
            format_number(self.contribution, d)
        )
    }
}

/// The two tables: the forward sweep (each node, its operation, value and
/// local derivatives, loop iterations in the node's label `s[i=2]`, the
/// arm taken in a column of its own, a called function's nodes indented
/// under a `call` line), then the reverse sweep (the seed, then for each
/// node processed its accumulation steps, with the running total where a
/// parent had already received), then the gradient. Numbers have five
/// decimals unless the format gives a precision (`{:.10}`).
impl Display for Trace {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let d = f.precision().unwrap_or(DEFAULT_DECIMALS);
        let out = render(self, d);
        f.write_str(&out)
    }
}

fn call_depth(node: &Node) -> usize {
    node.frames
        .iter()
        .filter(|fr| matches!(fr, Frame::Call { .. }))
        .count()
}

fn arms(node: &Node) -> String {
    let arms: Vec<String> = node
        .frames
        .iter()
        .filter_map(|fr| match fr {
            Frame::Arm { label, arm } => Some(format!("{label}: {arm}")),
            Frame::Recomputed {
                label, restored, ..
            } => Some(format!("recomputed from {label} = {restored}")),
            _ => None,
        })
        .collect();
    arms.join(", ")
}

fn partials(trace: &Trace, node: &Node, d: usize) -> String {
    let parts: Vec<String> = node
        .inputs
        .iter()
        .zip(&node.partials)
        .map(|(p, v)| {
            let p = &trace.node(*p).label;
            format!("∂{}/∂{p} = {}", node.label, format_number(*v, d))
        })
        .collect();
    parts.join(", ")
}

fn width(s: &str) -> usize {
    s.chars().count()
}

fn pad(s: &str, w: usize) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(width(s))))
}

fn render(trace: &Trace, d: usize) -> String {
    let mut out = String::new();
    let params: Vec<String> = trace
        .inputs()
        .map(|n| format!("{} = {}", n.name, format_number(n.value, d)))
        .collect();
    let _ = writeln!(out, "{}({})", trace.function, params.join(", "));

    // Forward: one row per node, call lines between.
    let show_arms = trace.nodes.iter().any(|n| !arms(n).is_empty());
    let recomputed = trace.nodes.iter().any(|n| {
        n.frames
            .iter()
            .any(|f| matches!(f, Frame::Recomputed { .. }))
    });
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut header = vec!["node".to_owned(), "operation".into(), "value".into()];
    if show_arms {
        header.push(if recomputed { "where" } else { "arm" }.into());
    }
    header.push("local derivatives".into());
    rows.push(header);
    let mut calls: Vec<usize> = Vec::new();
    for node in &trace.nodes {
        // A call line where a node enters a call scope it was not in.
        let scopes: Vec<usize> = node
            .frames
            .iter()
            .zip(&node.scopes)
            .filter(|(fr, _)| matches!(fr, Frame::Call { .. }))
            .map(|(_, s)| *s)
            .collect();
        let common = calls
            .iter()
            .zip(&scopes)
            .take_while(|(a, b)| a == b)
            .count();
        let call_names = node.frames.iter().filter_map(|fr| match fr {
            Frame::Call { function } => Some(function.as_str()),
            _ => None,
        });
        for (depth, function) in call_names.enumerate().skip(common) {
            let mut row = vec![format!("{}call {function}", "  ".repeat(depth))];
            row.resize(rows[0].len(), String::new());
            rows.push(row);
        }
        calls = scopes;
        let mut row = vec![
            format!("{}{}", "  ".repeat(call_depth(node)), node.label),
            if node.is_input {
                "input".into()
            } else {
                node.expr.clone()
            },
            format_number(node.value, d),
        ];
        if show_arms {
            row.push(arms(node));
        }
        row.push(partials(trace, node, d));
        rows.push(row);
    }
    let _ = writeln!(out, "\nforward sweep");
    write_table(&mut out, &rows);

    // Reverse: seeds, then each processed node's steps.
    let _ = writeln!(out, "\nreverse sweep");
    for (o, seed) in &trace.outputs {
        let _ = writeln!(
            out,
            "  g_{} = {}",
            trace.node(*o).label,
            format_number(*seed, d)
        );
    }
    let mut i = 0;
    let mut segment: Option<&Frame> = None;
    for c in &trace.reverse_order {
        let node = trace.node(*c);
        let count = node.inputs.len();
        if count == 0 {
            continue;
        }
        // A checkpointed loop's segment: computed again before its steps.
        let here = node
            .frames
            .iter()
            .find(|f| matches!(f, Frame::Recomputed { .. }));
        if here != segment {
            if let Some(Frame::Recomputed {
                label,
                from,
                to,
                restored,
            }) = here
            {
                let _ = writeln!(
                    out,
                    "  recompute {label} = {from}..{to} from the state stored before {label} = {restored} (the forward sweep's values)"
                );
            }
            segment = here;
        }
        let parents: Vec<&str> = node
            .inputs
            .iter()
            .map(|p| trace.node(*p).label.as_str())
            .collect();
        let _ = writeln!(out, "  parents of {} ({}):", node.label, parents.join(", "));
        for step in &trace.steps[i..i + count] {
            let line = format!("{step:.d$}");
            if step.parent_adjoint != step.contribution {
                let total = format_number(step.parent_adjoint, d);
                let _ = writeln!(out, "    {line}   → g_{} = {total}", step.parent_label());
            } else {
                let _ = writeln!(out, "    {line}");
            }
        }
        i += count;
    }

    // The gradient.
    let _ = writeln!(out, "\ngradient");
    let y = trace
        .outputs
        .first()
        .map_or("y", |(o, _)| trace.node(*o).label.as_str());
    for node in trace.inputs() {
        let g = format_number(node.adjoint, d);
        let _ = writeln!(out, "  ∂{y}/∂{} = {g}", node.label);
    }
    out
}

fn write_table(out: &mut String, rows: &[Vec<String>]) {
    let columns = rows[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| width(&r[c])).max().unwrap_or(0))
        .collect();
    for row in rows {
        let mut line = String::from(" ");
        for (c, cell) in row.iter().enumerate() {
            line.push(' ');
            line.push_str(&pad(cell, widths[c]));
            line.push(' ');
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

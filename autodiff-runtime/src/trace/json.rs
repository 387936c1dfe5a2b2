//! The trace as JSON, written by hand (the runtime has no dependencies).

use std::fmt::Write as _;

use super::{Frame, Trace};

/// `s` as a JSON string literal, quotes included: `"` and `\` escaped,
/// control characters as `\n`, `\t`, ... or `\u00XX`; everything else
/// (UTF-8) as it is.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `v` as a JSON value: a number that reads back as the same `f64`
/// (Rust's shortest round-trip form), or, since JSON has no NaN or
/// infinity, the strings `"NaN"`, `"Infinity"` and `"-Infinity"` (which
/// JavaScript's `Number(..)` reads back).
pub fn json_number(v: f64) -> String {
    if v.is_nan() {
        "\"NaN\"".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "\"Infinity\""
        } else {
            "\"-Infinity\""
        }
        .into()
    } else {
        format!("{v:?}")
    }
}

fn list<T>(items: impl IntoIterator<Item = T>, f: impl Fn(T) -> String) -> String {
    let items: Vec<String> = items.into_iter().map(f).collect();
    format!("[{}]", items.join(","))
}

fn frame_json(frame: &Frame) -> String {
    match frame {
        Frame::Iteration { label, index } => {
            format!(
                "{{\"kind\":\"iteration\",\"label\":{},\"index\":{index}}}",
                json_string(label)
            )
        }
        Frame::Arm { label, arm } => {
            format!(
                "{{\"kind\":\"arm\",\"label\":{},\"arm\":{}}}",
                json_string(label),
                json_string(arm)
            )
        }
        Frame::Call { function } => {
            format!(
                "{{\"kind\":\"call\",\"function\":{}}}",
                json_string(function)
            )
        }
        Frame::Recomputed {
            label,
            from,
            to,
            restored,
        } => {
            format!(
                "{{\"kind\":\"recomputed\",\"label\":{},\"from\":{from},\"to\":{to},\"restored\":{restored}}}",
                json_string(label)
            )
        }
    }
}

impl Trace {
    /// The trace as one JSON object:
    ///
    /// - `function`: the name; `value`: the first output's value;
    /// - `outputs`: `[{"node": id, "seed": g}]`;
    /// - `nodes`: in forward order, each `{"id", "name", "label", "op",
    ///   "expr", "input": bool, "output": bool, "reaches_output": bool,
    ///   "inputs": [id], "partials": [number], "value", "adjoint",
    ///   "frames": [{"kind": "iteration", "label", "index"} | {"kind":
    ///   "arm", "label", "arm"} | {"kind": "call", "function"}]}`;
    /// - `steps`: in reverse order, each `{"child", "parent", "input",
    ///   "child_adjoint", "partial", "contribution", "parent_adjoint",
    ///   "text"}`, where `text` is the step as [`Display`](std::fmt::Display)
    ///   prints it (`g_t1 += g_t2 · ∂t2/∂t1 = 1 · -2 = -2`);
    /// - `reverse_order`: the ids in the order the reverse sweep
    ///   processed them;
    /// - `gradient`: `[{"name", "node", "value"}]`, one per input.
    ///
    /// Numbers are written so that they read back as the same `f64`; a
    /// value that is not finite is the string `"NaN"`, `"Infinity"` or
    /// `"-Infinity"` (see [`json_number`]).
    pub fn to_json(&self) -> String {
        let nodes = list(&self.nodes, |n| {
            format!(
                "{{\"id\":{},\"name\":{},\"label\":{},\"op\":{},\"expr\":{},\"input\":{},\"output\":{},\"reaches_output\":{},\"inputs\":{},\"partials\":{},\"value\":{},\"adjoint\":{},\"frames\":{}}}",
                n.id.0,
                json_string(&n.name),
                json_string(&n.label),
                json_string(&n.op),
                json_string(&n.expr),
                n.is_input,
                self.outputs.iter().any(|(o, _)| *o == n.id),
                self.reaches_output(n),
                list(&n.inputs, |p| p.0.to_string()),
                list(&n.partials, |p| json_number(*p)),
                json_number(n.value),
                json_number(n.adjoint),
                list(&n.frames, frame_json),
            )
        });
        let steps = list(&self.steps, |s| {
            format!(
                "{{\"child\":{},\"parent\":{},\"input\":{},\"child_adjoint\":{},\"partial\":{},\"contribution\":{},\"parent_adjoint\":{},\"text\":{}}}",
                s.child.0,
                s.parent.0,
                s.input,
                json_number(s.child_adjoint),
                json_number(s.partial),
                json_number(s.contribution),
                json_number(s.parent_adjoint),
                json_string(&s.to_string()),
            )
        });
        let outputs = list(&self.outputs, |(o, seed)| {
            format!("{{\"node\":{},\"seed\":{}}}", o.0, json_number(*seed))
        });
        let gradient = list(self.inputs(), |n| {
            format!(
                "{{\"name\":{},\"node\":{},\"value\":{}}}",
                json_string(&n.name),
                n.id.0,
                json_number(n.adjoint)
            )
        });
        let value = self
            .outputs
            .first()
            .map_or(f64::NAN, |(o, _)| self.node(*o).value);
        format!(
            "{{\"function\":{},\"value\":{},\"outputs\":{outputs},\"nodes\":{nodes},\"steps\":{steps},\"reverse_order\":{},\"gradient\":{gradient}}}",
            json_string(&self.function),
            json_number(value),
            list(&self.reverse_order, |id| id.0.to_string()),
        )
    }
}

//! The trace as JSON, through `serde` (feature `render`): `Serialize` is
//! derived on [`NodeId`], [`Frame`], [`Node`] and [`Step`]; a [`Trace`]
//! serialises as the object [`Trace::to_json`] describes, its nodes and
//! steps with what the trace knows of them beside their fields.

use serde::ser::{Serialize, SerializeSeq, Serializer};

use super::{Node, NodeId, Step, Trace, Working};

/// A float as the trace's JSON writes it: a number that reads back as the
/// same `f64` (the shortest round-trip form), or, since JSON has no NaN or
/// infinity, the strings `"NaN"`, `"Infinity"` and `"-Infinity"` (which
/// JavaScript's `Number(..)` reads back). For JSON of one's own beside a
/// trace (the walkthrough page's server).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JsonNumber(pub f64);

impl Serialize for JsonNumber {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            v if v.is_nan() => s.serialize_str("NaN"),
            v if v == f64::INFINITY => s.serialize_str("Infinity"),
            v if v == f64::NEG_INFINITY => s.serialize_str("-Infinity"),
            v => s.serialize_f64(v),
        }
    }
}

/// `serialize_with` for a float field.
pub(super) fn number<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    JsonNumber(*v).serialize(s)
}

/// `serialize_with` for a list of floats.
pub(super) fn numbers<S: Serializer>(vs: &[f64], s: S) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(vs.len()))?;
    for v in vs {
        seq.serialize_element(&JsonNumber(*v))?;
    }
    seq.end()
}

/// A node with what the trace knows of it.
#[derive(serde::Serialize)]
struct NodeView<'a> {
    #[serde(flatten)]
    node: &'a Node,
    output: bool,
    reaches_output: bool,
    working: Option<Working>,
}

/// A step with its line as [`Display`](std::fmt::Display) prints it.
#[derive(serde::Serialize)]
struct StepView<'a> {
    #[serde(flatten)]
    step: &'a Step,
    text: String,
}

#[derive(serde::Serialize)]
struct OutputView {
    node: NodeId,
    seed: JsonNumber,
}

#[derive(serde::Serialize)]
struct GradientView<'a> {
    name: &'a str,
    node: NodeId,
    value: JsonNumber,
}

#[derive(serde::Serialize)]
struct TraceView<'a> {
    function: &'a str,
    value: JsonNumber,
    outputs: Vec<OutputView>,
    nodes: Vec<NodeView<'a>>,
    steps: Vec<StepView<'a>>,
    reverse_order: &'a [NodeId],
    gradient: Vec<GradientView<'a>>,
}

impl Serialize for Trace {
    /// The object [`Trace::to_json`] writes.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let nodes = self.nodes.iter().map(|n| NodeView {
            node: n,
            output: self.outputs.iter().any(|(o, _)| *o == n.id),
            reaches_output: self.reaches_output(n),
            working: self.working(n.id),
        });
        let steps = self.steps.iter().map(|step| StepView {
            step,
            text: step.to_string(),
        });
        let outputs = self.outputs.iter().map(|&(node, seed)| OutputView {
            node,
            seed: JsonNumber(seed),
        });
        let gradient = self.inputs().map(|n| GradientView {
            name: &n.name,
            node: n.id,
            value: JsonNumber(n.adjoint),
        });
        let value = self
            .outputs
            .first()
            .map_or(f64::NAN, |(o, _)| self.node(*o).value);
        TraceView {
            function: &self.function,
            value: JsonNumber(value),
            outputs: outputs.collect(),
            nodes: nodes.collect(),
            steps: steps.collect(),
            reverse_order: &self.reverse_order,
            gradient: gradient.collect(),
        }
        .serialize(s)
    }
}

impl Trace {
    /// The trace as one JSON object (its [`Serialize`] form):
    ///
    /// - `function`: the name; `value`: the first output's value;
    /// - `outputs`: `[{"node": id, "seed": g}]`;
    /// - `nodes`: in forward order, each `{"id", "name", "label", "op",
    ///   "expr", "input": bool, "output": bool, "reaches_output": bool,
    ///   "inputs": [id], "partials": [number], "value", "adjoint",
    ///   "frames": [{"kind": "iteration", "label", "index"} | {"kind":
    ///   "arm", "label", "arm"} | {"kind": "call", "function"} | {"kind":
    ///   "recomputed", "label", "from", "to", "restored"}], "working":
    ///   null | {"formula", "arithmetic", "partials": [{"formula",
    ///   "arithmetic"}]}}` ([`Trace::working`]: `x1 - x2`, `1 - 2`, one
    ///   partial per input);
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
    /// `"-Infinity"`.
    pub fn to_json(&self) -> String {
        // Every key is a string and every number is written (NaN and the
        // infinities as strings), so serde_json has nothing to refuse.
        serde_json::to_string(self).expect("a trace always serialises")
    }
}

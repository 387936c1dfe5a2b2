//! A recorded evaluation of a function and its reverse sweep, for people to
//! read: "see the derivative".
//!
//! `#[grad(trace)]` generates, beside `<name>_grad`, a `<name>_trace` with
//! the same parameters. It runs the function's forward sweep and tells a
//! [`Tape`] about every entry of the Wengert list as it is computed (its
//! name, operation, operands, local derivatives and value); [`Tape::finish`]
//! then runs the reverse accumulation from the output and returns a
//! [`Trace`]: every node with its forward value and final adjoint, and
//! every accumulation step `g_p += g_c · ∂c/∂p` in the order the reverse
//! sweep takes them. Nothing of this exists in `<name>_grad`: the trace
//! costs nothing unless `_trace` is called.
//!
//! A [`Trace`] prints as two tables, forward and reverse
//! ([`Display`](std::fmt::Display)). With the feature `render` (off by
//! default: generated code never calls it), it also renders to Graphviz
//! DOT (`Trace::to_dot`), to JSON through `serde` (`Trace::to_json`, and
//! `serde::Serialize` for `Trace` and its parts) and to an SVG drawing laid
//! out here, without Graphviz (`Trace::layout`, `Trace::to_svg`).
//!
//! Driving a tape by hand, exactly as generated code does for
//! `f(x1, x2) = (x1 − x2)² + cos(x1 + x2)`, the numeric walk-through of
//! the reference text:
//!
//! ```
//! use autodiff_runtime::trace::Tape;
//! use autodiff_runtime::{arith, power, trig};
//!
//! let (x1, x2) = (1.0_f64, 2.0_f64);
//! let mut tape = Tape::new("f");
//! let n_x1 = tape.input("x1", x1);
//! let n_x2 = tape.input("x2", x2);
//! let t1 = arith::sub(x1, x2);
//! let d = arith::sub_pullback(x1, x2, t1, 1.0);
//! let n_t1 = tape.node("t1", "sub", "x1 - x2", &[n_x1, n_x2], &[d.0, d.1], t1);
//! let t2 = power::powi(t1, 2);
//! let d = power::powi_pullback(t1, 2, t2, 1.0);
//! let n_t2 = tape.node("t2", "powi", "t1.powi(2)", &[n_t1], &[d], t2);
//! let t3 = arith::add(x1, x2);
//! let d = arith::add_pullback(x1, x2, t3, 1.0);
//! let n_t3 = tape.node("t3", "add", "x1 + x2", &[n_x1, n_x2], &[d.0, d.1], t3);
//! let t4 = trig::cos(t3);
//! let d = trig::cos_pullback(t3, t4, 1.0);
//! let n_t4 = tape.node("t4", "cos", "cos(t3)", &[n_t3], &[d], t4);
//! let y = arith::add(t2, t4);
//! let d = arith::add_pullback(t2, t4, y, 1.0);
//! let n_y = tape.node("y", "add", "t2 + t4", &[n_t2, n_t4], &[d.0, d.1], y);
//! let trace = tape.finish(n_y);
//!
//! assert_eq!(trace.adjoint_of("x1"), Some(-2.0 - 3f64.sin()));
//! assert_eq!(trace.steps[0].to_string(), "g_t2 += g_y · ∂y/∂t2 = 1 · 1 = 1");
//! println!("{trace}"); // the forward and reverse tables
//! ```

mod display;
#[cfg(feature = "render")]
mod dot;
#[cfg(feature = "render")]
mod json;
#[cfg(feature = "render")]
mod layout;
#[cfg(all(test, feature = "render"))]
mod render_tests;
#[cfg(feature = "render")]
mod svg;
mod tape;
#[cfg(test)]
mod tests;
mod working;

pub use display::format_number;
#[cfg(feature = "render")]
pub use json::JsonNumber;
#[cfg(feature = "render")]
pub use layout::{Layout, LayoutEdge, LayoutNode};
pub use tape::{Tape, Traced};
pub use working::{PartialWorking, Working};

/// A node of a [`Trace`]: its index in [`Trace::nodes`] (and the order in
/// which the forward sweep computed it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "render", derive(serde::Serialize))]
pub struct NodeId(pub usize);

/// Where in the function's control flow a node was computed: generated
/// code [`enter`](Tape::enter)s a frame at the start of a loop iteration,
/// a branch's arm or a call, and [`leave`](Tape::leave)s it at its end.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "render",
    derive(serde::Serialize),
    serde(tag = "kind", rename_all = "lowercase")
)]
pub enum Frame {
    /// Iteration `index` (counted from 0) of the loop whose variable or
    /// label is `label` (`i` in `for i in 0..n`).
    Iteration {
        /// The loop's variable, or a name for the loop.
        label: String,
        /// Which iteration, from 0 in the order the forward sweep ran them.
        index: usize,
    },
    /// The arm `arm` taken by the branch `label` (`if x > 0`, `then`).
    Arm {
        /// The branch as the user reads it, e.g. its condition.
        label: String,
        /// The arm that ran: `then`, `else`, or a `match` pattern.
        arm: String,
    },
    /// A call of the `#[grad]` function `function`: the nodes inside are
    /// the callee's own trace.
    Call {
        /// The callee's name.
        function: String,
    },
    /// Iterations `from..to` of the checkpointed loop `label`
    /// (`#[checkpoint]`), which its gradient does not keep from the forward
    /// sweep: the reverse sweep computes them again, from the state stored
    /// before iteration `restored` (running `restored..from` unrecorded
    /// first), records them, and reverses them. Their values are the
    /// forward sweep's, bit for bit. Iterations outside such a frame are
    /// recorded by the forward sweep itself.
    Recomputed {
        /// The loop's variable, or a name for the loop.
        label: String,
        /// The first iteration recomputed.
        from: usize,
        /// One past the last.
        to: usize,
        /// The iteration whose stored state the recomputation starts from.
        restored: usize,
    },
}

impl Frame {
    /// Iteration `index` of the loop `label`.
    pub fn iteration(label: &str, index: usize) -> Frame {
        Frame::Iteration {
            label: label.to_owned(),
            index,
        }
    }

    /// The arm `arm` of the branch `label`.
    pub fn arm(label: &str, arm: &str) -> Frame {
        Frame::Arm {
            label: label.to_owned(),
            arm: arm.to_owned(),
        }
    }

    /// A call of `function`.
    pub fn call(function: &str) -> Frame {
        Frame::Call {
            function: function.to_owned(),
        }
    }

    /// Iterations `from..to` of the checkpointed loop `label`, computed
    /// again from the state stored before iteration `restored`.
    pub fn recomputed(label: &str, from: usize, to: usize, restored: usize) -> Frame {
        Frame::Recomputed {
            label: label.to_owned(),
            from,
            to,
            restored,
        }
    }
}

/// One entry of the Wengert list as it was computed.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "render", derive(serde::Serialize))]
pub struct Node {
    /// Its index in [`Trace::nodes`].
    pub id: NodeId,
    /// The value's name: the user's (`s`, `x1`, `p.w`, `xs[0]`) or a
    /// temporary's (`t1`).
    pub name: String,
    /// A name unique in the trace, used in the tables, the graph and the
    /// reverse steps: `name`, prefixed by the calls it is in (`g::x`),
    /// suffixed by its loop iterations (`s[i=2]`), and primed (`x′`) when
    /// an earlier node already had that label (a shadowed name).
    pub label: String,
    /// The rule: `input` for an input, otherwise what generated code said
    /// (`sub`, `powi`, `cos`, `call g`, `load`).
    pub op: String,
    /// The entry as the user reads it, operands by name (`x1 - x2`); the
    /// name itself for an input.
    pub expr: String,
    /// The active operands, in order (constants are not nodes).
    pub inputs: Vec<NodeId>,
    /// `∂value/∂inputs[k]`, one per input, in the same order.
    #[cfg_attr(feature = "render", serde(serialize_with = "json::numbers"))]
    pub partials: Vec<f64>,
    /// The forward value.
    #[cfg_attr(feature = "render", serde(serialize_with = "json::number"))]
    pub value: f64,
    /// The final adjoint `∂output/∂value` (0 for a node that does not
    /// reach the output).
    #[cfg_attr(feature = "render", serde(serialize_with = "json::number"))]
    pub adjoint: f64,
    /// The frames the node was computed in, outermost first.
    pub frames: Vec<Frame>,
    /// For each of `frames`, which entry of it this is: a number unique
    /// among all frames the tape entered, so that two iterations, or two
    /// calls of one function, are told apart even with equal frames.
    #[cfg_attr(feature = "render", serde(skip))]
    pub scopes: Vec<usize>,
    /// Whether this is an input (a parameter, an element of one, or a
    /// field of a struct parameter).
    #[cfg_attr(feature = "render", serde(rename = "input"))]
    pub is_input: bool,
    /// The operands of the rule, in the rule's order, constants too
    /// (`t1.powi(2)`: `t1` and `2`), as [`Tape::operands`] recorded them;
    /// empty for an input, a constant, a call or a node recorded without
    /// them. [`Trace::working`] writes the entry's arithmetic from them.
    #[cfg_attr(feature = "render", serde(skip))]
    pub operands: Vec<Operand>,
}

/// An operand of a node's rule (see [`Node::operands`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    /// As the entry reads it: a constant's text (`1.5`, `XS[i]`, `x` for
    /// a value that is no node), or the operand's name where it is one of
    /// the node's inputs.
    pub text: String,
    /// Its value when the entry was computed.
    pub value: f64,
    /// Which of the node's [`inputs`](Node::inputs) it is, `None` for a
    /// constant.
    pub input: Option<usize>,
}

/// One accumulation of the reverse sweep: `g_parent += g_child ·
/// ∂child/∂parent`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "render", derive(serde::Serialize))]
pub struct Step {
    /// The node whose adjoint is passed back (it reads `parent`).
    pub child: NodeId,
    /// The node that receives.
    pub parent: NodeId,
    /// Which of the child's inputs `parent` is.
    pub input: usize,
    /// `g_child`, final when the step runs.
    #[cfg_attr(feature = "render", serde(serialize_with = "json::number"))]
    pub child_adjoint: f64,
    /// `∂child/∂parent`, the local derivative.
    #[cfg_attr(feature = "render", serde(serialize_with = "json::number"))]
    pub partial: f64,
    /// `g_child · ∂child/∂parent`, exactly 0 when `g_child` is 0 (the
    /// runtime's [`scale`](crate::float::scale) convention: an infinite
    /// partial on an unused path gives no NaN).
    #[cfg_attr(feature = "render", serde(serialize_with = "json::number"))]
    pub contribution: f64,
    /// `g_parent` after this step.
    #[cfg_attr(feature = "render", serde(serialize_with = "json::number"))]
    pub parent_adjoint: f64,
    /// The labels, copied here so that a step prints by itself.
    #[cfg_attr(feature = "render", serde(skip))]
    names: (String, String),
}

/// A function's evaluation and reverse sweep, recorded: what a `_trace`
/// function returns. See the [module documentation](self).
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The function's name.
    pub function: String,
    /// Every node in the order the forward sweep computed it; a node's
    /// [`NodeId`] is its index here.
    pub nodes: Vec<Node>,
    /// Every accumulation of the reverse sweep, in order.
    pub steps: Vec<Step>,
    /// The order in which the reverse sweep processed nodes: each
    /// processed node's steps are consecutive in `steps`.
    pub reverse_order: Vec<NodeId>,
    /// The outputs and the adjoints they were seeded with (one output with
    /// seed 1 for a scalar function).
    pub outputs: Vec<(NodeId, f64)>,
}

impl Trace {
    /// The first output (the function's result for a scalar function).
    ///
    /// # Panics
    ///
    /// If the trace was finished with no output.
    pub fn output(&self) -> &Node {
        &self.nodes[self.outputs[0].0 .0]
    }

    /// The value of the first output: what the function returned.
    pub fn value(&self) -> f64 {
        self.output().value
    }

    /// The node `id`.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0]
    }

    /// The input nodes, in the order the parameters were recorded.
    pub fn inputs(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter().filter(|n| n.is_input)
    }

    /// The gradient: each input node's name and final adjoint, in order.
    pub fn gradient(&self) -> Vec<(String, f64)> {
        self.inputs().map(|n| (n.name.clone(), n.adjoint)).collect()
    }

    /// The node whose label is `name`, or else the first whose name is.
    pub fn find(&self, name: &str) -> Option<&Node> {
        self.nodes
            .iter()
            .find(|n| n.label == name)
            .or_else(|| self.nodes.iter().find(|n| n.name == name))
    }

    /// The final adjoint of the node [`find`](Trace::find) returns.
    pub fn adjoint_of(&self, name: &str) -> Option<f64> {
        self.find(name).map(|n| n.adjoint)
    }

    /// The forward value of the node [`find`](Trace::find) returns.
    pub fn value_of(&self, name: &str) -> Option<f64> {
        self.find(name).map(|n| n.value)
    }

    /// The nodes that read `id`, in order: more than one is fan-out.
    pub fn children(&self, id: NodeId) -> Vec<NodeId> {
        self.nodes
            .iter()
            .filter(|n| n.inputs.contains(&id))
            .map(|n| n.id)
            .collect()
    }

    /// The steps that the reverse sweep ran while processing `id`.
    pub fn steps_of(&self, id: NodeId) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(move |s| s.child == id)
    }

    /// Whether `node` reaches an output, so that the reverse sweep
    /// processed it (it is in [`reverse_order`](Trace::reverse_order)).
    pub fn reaches_output(&self, node: &Node) -> bool {
        self.reverse_order.contains(&node.id)
    }
}

impl Step {
    /// The label of the child, which passes its adjoint back.
    pub fn child_label(&self) -> &str {
        &self.names.0
    }

    /// The label of the parent, which receives.
    pub fn parent_label(&self) -> &str {
        &self.names.1
    }
}

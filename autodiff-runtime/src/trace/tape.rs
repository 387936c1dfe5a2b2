//! The tape generated code drives, and the reverse accumulation.

use std::collections::VecDeque;

use super::{Frame, Node, NodeId, Operand, Step, Trace};
use crate::Float;

/// What generated code drives: it records each Wengert entry as the
/// forward sweep computes it, then [`finish`](Tape::finish) runs the
/// reverse accumulation.
#[derive(Clone, Debug)]
pub struct Tape {
    function: String,
    nodes: Vec<Node>,
    frames: Vec<Frame>,
    scopes: Vec<usize>,
    entered: usize,
}

impl Tape {
    /// An empty tape for the function `function`.
    pub fn new(function: &str) -> Tape {
        Tape {
            function: function.to_owned(),
            nodes: Vec::new(),
            frames: Vec::new(),
            scopes: Vec::new(),
            entered: 0,
        }
    }

    /// A float parameter (or a struct field read as an input, named
    /// `p.w`): an input node.
    pub fn input<T: Traced>(&mut self, name: &str, value: T) -> NodeId {
        match T::IS_FLOAT {
            true => self.push(name, "input", name, &[], &[], value.traced(), true),
            // An integer or a `bool` read from a struct (`p.n`): a
            // constant of the trace, not one of its inputs.
            false => self.push(name, "constant", name, &[], &[], value.traced(), false),
        }
    }

    /// A float array parameter: one input node per element, named
    /// `xs[0]`, `xs[1]`, ...
    pub fn input_array<T: Float>(&mut self, name: &str, values: &[T]) -> Vec<NodeId> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| self.input(&format!("{name}[{i}]"), *v))
            .collect()
    }

    /// A float parameter of a function whose trace runs inside a caller's
    /// (`<name>_trace_into`): the caller's node for the argument
    /// (`given`, one node), or, where the caller passed a constant
    /// (`given` empty), a constant node. The caller's own `_trace` passes
    /// the input nodes it made.
    pub fn argument<T: Float>(&mut self, given: &[NodeId], name: &str, value: T) -> NodeId {
        match given {
            [node] => *node,
            _ => self.push(name, "const", name, &[], &[], Float::to_f64(value), false),
        }
    }

    /// A float array parameter of a function traced inside a caller: the
    /// caller's nodes for its elements, or constant nodes where it has
    /// none (`given` of another length).
    pub fn argument_array<T: Float>(
        &mut self,
        given: &[NodeId],
        name: &str,
        values: &[T],
    ) -> Vec<NodeId> {
        if given.len() == values.len() {
            return given.to_vec();
        }
        values
            .iter()
            .enumerate()
            .map(|(i, v)| self.argument(&[], &format!("{name}[{i}]"), *v))
            .collect()
    }

    /// One Wengert entry. `name`: the value's name (the user's `s`, or
    /// `t1`, `t2` for temporaries); `op`: the rule (`sub`, `powi`, `cos`,
    /// `mul`, `call g`, `load`); `expr`: the entry as the user reads it,
    /// operands by name (`x1 - x2`, `t1.powi(2)`, `cos(t3)`); `inputs`:
    /// the nodes of its active operands (constants are not nodes; they
    /// appear in `expr`); `partials`: ∂value/∂inputs\[k\] for each input,
    /// same order (generated code computes them with the runtime's own
    /// pullback at dy = 1); `value`: the forward value (a float, or an
    /// integer whose type the source does not state, `l.rows * l.cols`
    /// of a struct's fields, with zero partials). The node records
    /// the current frames (loop iteration, arm, call).
    ///
    /// # Panics
    ///
    /// If `partials` and `inputs` differ in length, or an input is not a
    /// node of this tape: generated code never does either.
    pub fn node<T: Traced>(
        &mut self,
        name: &str,
        op: &str,
        expr: &str,
        inputs: &[NodeId],
        partials: &[T],
        value: T,
    ) -> NodeId {
        assert_eq!(
            inputs.len(),
            partials.len(),
            "one partial per input of {name}"
        );
        let partials: Vec<f64> = partials.iter().map(|p| p.traced()).collect();
        self.push(name, op, expr, inputs, &partials, value.traced(), false)
    }

    /// The operands of `node`'s rule, in the rule's order, each with its
    /// text, its value and whether it is one of the node's inputs (the
    /// inputs in the order [`node`](Tape::node) was given them): for
    /// `t1.powi(2)`, `[("t1", -1.0, true), ("2", 2.0, false)]`. Generated
    /// code records them after each rule's node, so that
    /// [`Trace::working`] can show the entry's arithmetic and each local
    /// derivative's rule; a list that does not match the node's inputs
    /// is ignored.
    pub fn operands(&mut self, node: NodeId, operands: &[(&str, f64, bool)]) {
        let Some(n) = self.nodes.get_mut(node.0) else {
            return;
        };
        if operands.iter().filter(|o| o.2).count() != n.inputs.len() {
            return;
        }
        let mut next = 0;
        n.operands = operands
            .iter()
            .map(|&(text, value, is_input)| Operand {
                text: text.to_owned(),
                value,
                input: is_input.then(|| {
                    next += 1;
                    next - 1
                }),
            })
            .collect();
    }

    /// Enters a frame (a loop iteration, a branch's arm, a call): the
    /// nodes recorded until the matching [`leave`](Tape::leave) are in it.
    pub fn enter(&mut self, frame: Frame) {
        self.frames.push(frame);
        self.scopes.push(self.entered);
        self.entered += 1;
    }

    /// Leaves the innermost frame.
    ///
    /// # Panics
    ///
    /// If no frame is entered.
    pub fn leave(&mut self) {
        self.frames
            .pop()
            .expect("Tape::leave without a matching enter");
        self.scopes.pop();
    }

    /// Runs the reverse accumulation from `output` (adjoint 1) and returns
    /// the trace.
    pub fn finish(self, output: NodeId) -> Trace {
        self.finish_seeded(&[output], &[1.0])
    }

    /// A vector output, or a chosen seed: the adjoints the outputs start
    /// with (`seeds[k]` for `outputs[k]`).
    ///
    /// The reverse order: a node is processed only after every node that
    /// reads it (its children) that can reach an output, breadth-first
    /// from the outputs (a FIFO queue of ready nodes, parents of one node
    /// taken in input order). Processing a node emits one [`Step`] per
    /// input. Nodes that cannot reach an output keep adjoint 0 and emit no
    /// step.
    ///
    /// # Panics
    ///
    /// If `outputs` and `seeds` differ in length or name a node that is
    /// not on this tape.
    pub fn finish_seeded(self, outputs: &[NodeId], seeds: &[f64]) -> Trace {
        assert_eq!(outputs.len(), seeds.len(), "one seed per output");
        let mut nodes = self.nodes;
        label_nodes(&mut nodes);
        let n = nodes.len();
        // Which nodes reach an output: walk the inputs back from them.
        let mut reaches = vec![false; n];
        let mut stack: Vec<usize> = outputs.iter().map(|o| o.0).collect();
        while let Some(i) = stack.pop() {
            if !std::mem::replace(&mut reaches[i], true) {
                stack.extend(nodes[i].inputs.iter().map(|p| p.0));
            }
        }
        // A node is ready when every read of it by a node that reaches an
        // output has passed its adjoint back.
        let mut pending = vec![0usize; n];
        for node in nodes.iter().filter(|node| reaches[node.id.0]) {
            for p in &node.inputs {
                pending[p.0] += 1;
            }
        }
        let mut queued = vec![false; n];
        let mut queue = VecDeque::new();
        for (o, seed) in outputs.iter().zip(seeds) {
            nodes[o.0].adjoint += seed;
            if pending[o.0] == 0 && !queued[o.0] {
                queued[o.0] = true;
                queue.push_back(o.0);
            }
        }
        let mut steps = Vec::new();
        let mut reverse_order = Vec::new();
        while let Some(c) = queue.pop_front() {
            reverse_order.push(NodeId(c));
            let g_c = nodes[c].adjoint;
            for k in 0..nodes[c].inputs.len() {
                let p = nodes[c].inputs[k].0;
                let partial = nodes[c].partials[k];
                // The runtime's 0·∞ = 0 convention, as every pullback.
                let contribution = crate::float::scale(g_c, partial);
                nodes[p].adjoint += contribution;
                steps.push(Step {
                    child: NodeId(c),
                    parent: NodeId(p),
                    input: k,
                    child_adjoint: g_c,
                    partial,
                    contribution,
                    parent_adjoint: nodes[p].adjoint,
                    names: (nodes[c].label.clone(), nodes[p].label.clone()),
                });
                pending[p] -= 1;
                if pending[p] == 0 && !queued[p] {
                    queued[p] = true;
                    queue.push_back(p);
                }
            }
        }
        Trace {
            function: self.function,
            nodes,
            steps,
            reverse_order,
            outputs: outputs.iter().copied().zip(seeds.iter().copied()).collect(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        name: &str,
        op: &str,
        expr: &str,
        inputs: &[NodeId],
        partials: &[f64],
        value: f64,
        is_input: bool,
    ) -> NodeId {
        let id = NodeId(self.nodes.len());
        for p in inputs {
            assert!(p.0 < id.0, "{name} reads {p:?}, which is not on the tape");
        }
        self.nodes.push(Node {
            id,
            name: name.to_owned(),
            label: String::new(),
            op: op.to_owned(),
            expr: expr.to_owned(),
            inputs: inputs.to_vec(),
            partials: partials.to_vec(),
            value,
            adjoint: 0.0,
            frames: self.frames.clone(),
            scopes: self.scopes.clone(),
            is_input,
            operands: Vec::new(),
        });
        id
    }
}

/// Sets every node's [`Node::label`]: calls as a prefix, loop iterations
/// as a suffix, primes for a label already taken.
fn label_nodes(nodes: &mut [Node]) {
    let mut taken = std::collections::HashSet::new();
    for node in nodes.iter_mut() {
        let mut label = String::new();
        let mut iterations = Vec::new();
        for frame in &node.frames {
            match frame {
                Frame::Call { function } => {
                    label.push_str(function);
                    label.push_str("::");
                }
                Frame::Iteration { label, index } => iterations.push(format!("{label}={index}")),
                Frame::Arm { .. } | Frame::Recomputed { .. } => {}
            }
        }
        label.push_str(&node.name);
        if !iterations.is_empty() {
            label = format!("{label}[{}]", iterations.join(","));
        }
        while !taken.insert(label.clone()) {
            label.push('′');
        }
        node.label = label;
    }
}

/// A value a trace can record where a struct's field is read: a float (an
/// input of the trace), or an integer or a `bool` (a constant of it, as
/// its derivative is zero).
pub trait Traced: Copy {
    /// Whether it is a float.
    const IS_FLOAT: bool;
    /// Its value, as the trace keeps it.
    fn traced(self) -> f64;
}

impl<T: Float> Traced for T {
    const IS_FLOAT: bool = true;
    #[inline]
    fn traced(self) -> f64 {
        Float::to_f64(self)
    }
}

macro_rules! traced_integer {
    ($($t:ty),*) => {$(
        impl Traced for $t {
            const IS_FLOAT: bool = false;
            #[inline]
            #[allow(clippy::cast_precision_loss, clippy::cast_lossless)]
            fn traced(self) -> f64 {
                self as f64
            }
        }
    )*};
}

traced_integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl Traced for bool {
    const IS_FLOAT: bool = false;
    #[inline]
    fn traced(self) -> f64 {
        f64::from(u8::from(self))
    }
}

//! Differentiation: the reverse sweep, in IR terms.
//!
//! The forward sweep is the function's own Wengert list (values are in SSA
//! form, so every intermediate the reverse sweep needs is still there). The
//! reverse sweep visits the active entries in reverse order and, for each,
//! adds the pullback of its rule into the adjoints of its active operands:
//! always `+=`, so fan-out sums. The adjoint of the returned value is seeded
//! with one.

use crate::analysis::activity::Activity;
use crate::diag::combine;
use crate::ir::*;
use crate::rules::{self, Arg, Rule};

mod assigned;
mod entries;
mod increments;
mod loops;
mod queries;

pub use assigned::crossed;
use queries::branch_reads;
pub use queries::{accumulated_in, contributions, reads_in, vjp_args_in};

pub(crate) use loops::only_elements;

/// A loop's integer counter `header`, advanced by `step` each iteration
/// (`next = header + step`), with `out` its value after the loop. The
/// reverse iteration k (counting from the last) has `header = out −
/// (k + 1)·step`.
#[derive(Clone, Debug)]
pub struct Counter {
    pub header: ValueId,
    pub out: ValueId,
    pub step: Operand,
}

/// One step of the reverse sweep.
// A function holds few of them, built once: the loop variant's size is
// no cost worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum AdjStmt {
    /// `d_src += d_dst`, converted to `src`'s float type when the entry was
    /// a cast between float types.
    Copy {
        dst: ValueId,
        src: ValueId,
        cast: Option<FloatTy>,
    },
    /// The reverse of a branch: the same arm runs, its merges' adjoints
    /// first, then its entries backwards.
    Branch {
        selector: Selector,
        /// For a `match`, the value holding the arm that ran.
        arm_index: Option<ValueId>,
        arms: Vec<Vec<AdjStmt>>,
        /// Per arm, the arrays declared in it: their adjoints are declared
        /// at the start of the reverse arm, in their shape.
        locals: Vec<Vec<ValueId>>,
        /// What declaring those adjoints reads (a `vec![v; n]`'s `n`).
        local_reads: Vec<ValueId>,
        /// Per arm, what its forward arm passes out as `Some(..)`
        /// (`Function::arm_wrapped`): what the reverse arm may take out.
        wrapped: Vec<Vec<ValueId>>,
    },
    /// The reverse of a loop: its iterations backwards, each popping the
    /// values `pushes` (pushed by the forward sweep in this order), with the
    /// adjoints of `locals` fresh, after moving the carried adjoints from the
    /// headers to the `next` values.
    Loop {
        id: usize,
        kind: LoopKind,
        /// The count of iterations, where the reverse sweep walks that many
        /// instead of the range.
        trips: Option<ValueId>,
        carried: Vec<CarriedAdjoint>,
        locals: Vec<ValueId>,
        pushes: Vec<ValueId>,
        /// Values of the iteration computed again at the start of each
        /// reverse iteration instead of being recorded, in forward order.
        recompute: Vec<ValueId>,
        /// What computing them again reads from before the loop.
        recompute_reads: Vec<ValueId>,
        /// The range loop's index, when the reverse iteration needs it.
        index_read: Option<ValueId>,
        /// Integer counters the loop advances by a constant (`l += 1`) and
        /// the reverse iteration reads: stepped back from their value
        /// after the loop instead of recorded.
        counters: Vec<Counter>,
        /// Every value one iteration defines.
        iteration: Vec<ValueId>,
        /// Adjoint elements `d_array[index]` that the iterations only add
        /// into, at an index they do not change: kept in a register across
        /// the loop (read before it, written back after it), so that the
        /// sum does not go through memory at every iteration.
        registers: Vec<(ValueId, Operand)>,
        body: Vec<AdjStmt>,
    },
    /// `d_array[index] += d_dst`: the reverse of a load.
    Element {
        array: ValueId,
        index: Vec<Operand>,
        dst: ValueId,
    },
    /// `(_, g..) = path_vjp(args.., d_dst)`, then each active argument's
    /// adjoint takes its gradient: the reverse of a call returning a
    /// tuple. `targets`: per argument with a slot in the callee's `_vjp`,
    /// the adjoint that receives it. `writer`: the call of a writer
    /// (`Op::VjpCall::mutated`), through its `__autodiff_mut_slots_<name>`.
    Vjp {
        dst: ValueId,
        path: syn::Path,
        args: Vec<Operand>,
        borrowed: Vec<bool>,
        targets: Vec<Option<ValueId>>,
        writer: bool,
        /// A method's: `args[0]` is its receiver.
        method: bool,
        /// A fallible callee's (`Op::VjpCall::exit`): its `_vjp` returns a
        /// `Result` or an `Option`, which succeeded in the forward sweep.
        fallible: bool,
    },
    /// `d_a += d_dst.f` for each field `f` built from an active `a`: the
    /// reverse of building a struct whole (`Op::Construct`); with a `base`,
    /// `d_base += d_dst` but for the fields named (`named`).
    Fields {
        dst: ValueId,
        fields: Vec<(syn::Member, ValueId)>,
        base: Option<(ValueId, Vec<syn::Member>)>,
    },
    /// `d_base.a[i].b += d_dst` (through `Differentiable::accumulate`):
    /// the reverse of reading a part of a composite parameter.
    Project {
        base: ValueId,
        path: Vec<Step>,
        dst: ValueId,
    },
    /// `d_value += d_array[index]; d_array[index] = 0`: the reverse of a
    /// store, which overwrote the element; without the zeroing where the
    /// stored value was the element plus a term (`zeroes: false`, see
    /// `increments.rs`).
    Store {
        array: ValueId,
        index: Vec<Operand>,
        value: Option<ValueId>,
        zeroes: bool,
    },
    /// `d_value += d_array[position]`: the reverse of a push.
    Pushed {
        array: ValueId,
        position: ValueId,
        value: Option<ValueId>,
    },
    /// The reverse of an array's creation from `items`: each item's adjoint
    /// takes its element's (`filled`: the one item fills every element).
    Spread {
        array: ValueId,
        items: Vec<Option<ValueId>>,
        filled: bool,
        /// `vec![v; n]` grown by pushes afterwards: `n`, the elements `v`
        /// filled (the adjoint has the pushed ones after them, which are
        /// not `v`'s).
        len: Option<Operand>,
    },
    /// `kernel_pullback(args.., y, dy, d_arrays..)`: `targets` per array
    /// argument, `Some` where it is active.
    Kernel {
        kernel: &'static crate::rules::Kernel,
        args: Vec<KernelOperand>,
        dst: ValueId,
        targets: Vec<Option<ValueId>>,
    },
    /// `d_arg += d_dst * partial` for each active argument of a call to a
    /// `#[grad]` function, whose `_grad` gave the partials in the forward
    /// sweep.
    Chain {
        dst: ValueId,
        parts: Vec<(ValueId, ValueId)>,
    },
    /// `(g0, g1, ..) = rule_pullback(args.., dst, d_dst)`, then `d_t += g`
    /// for each float argument with an active target; or, for a unary
    /// rule whose forward entry computed its derivative (`partial`),
    /// `d_x += scale(d_dst, partial)`, reading nothing else.
    Pullback {
        rule: &'static Rule,
        dst: ValueId,
        args: Vec<Operand>,
        /// Per float argument of the rule, the adjoint that receives it.
        targets: Vec<Option<ValueId>>,
        partial: Option<ValueId>,
    },
}

/// An active carried variable of a loop, with the adjoints it moves:
/// `d_header += d_out` before the reverse loop, `d_next += d_header` at the
/// start of each reverse iteration, `d_init += d_header` after it.
#[derive(Debug)]
pub struct CarriedAdjoint {
    pub header: ValueId,
    pub out: Option<ValueId>,
    pub next: Option<ValueId>,
    pub init: Option<ValueId>,
}

/// The differentiated function.
pub struct Gradient {
    /// The reverse sweep, in execution order.
    pub reverse: Vec<AdjStmt>,
    /// The differentiated parameters and the active values, in forward
    /// order: each gets an adjoint.
    pub adjoints: Vec<ValueId>,
    /// The value whose adjoint is seeded with one, if the output is active.
    pub seed: Option<ValueId>,
    /// The values whose adjoints are declared in their value's shape
    /// (`zero_like(&v)`): those whose type the source does not state.
    /// The reverse sweep reads them, so they are at hand where their
    /// adjoints are declared.
    pub shaped: std::collections::HashSet<ValueId>,
    /// The adjoints whose first contribution is an assignment: declared
    /// without a value (see `assigned.rs`).
    pub assigned: std::collections::HashSet<ValueId>,
    /// The loops' carried headers whose adjoint the reverse iteration
    /// does not zero after moving it on: the body's first contribution to
    /// it is an assignment.
    pub restarted: std::collections::HashSet<ValueId>,
}

/// Whether `v`'s adjoint starts as `zero_like(&v)`: the source does not
/// state its type, which may not even be a float (a field, a call's
/// result, a constant), so rustc decides it from the value. A float whose
/// width only the context fixes (a literal, an element of `vec![0.0; n]`)
/// needs no value at hand: its adjoint starts as an unsuffixed `0.0`, whose
/// width rustc infers from the adjoints it meets, as it infers the value's
/// from the values it meets.
pub fn is_shaped(f: &Function, v: ValueId) -> bool {
    match &f.value(v).ty {
        Ty::Unknown => true,
        // A part passed by reference (`&net.layers[k]`): its adjoint is
        // `zero_like(part)`, so the reference is at hand where it is
        // declared, as a parameter is.
        Ty::Composite(_) => f.value(v).kind == ValueKind::Def,
        _ => false,
    }
}

/// Whether some projection reads a part of `v` (`t.w[i]`): its adjoint
/// is then a zero of its shape before the first contribution.
pub(super) fn projected(f: &Function, v: ValueId) -> bool {
    let mut found = false;
    f.body.walk(&mut |inst| {
        if let Inst::Def {
            op: Op::Project { base, .. },
            ..
        } = inst
        {
            found |= *base == v;
        }
    });
    found
}

/// Whether some struct is built from `v` with fields changed (`Self {
/// active: false, ..v }`, a writer's assignments one after another): the
/// fields not named pass their adjoints into `v`'s, which is then a zero
/// of its shape before the first contribution.
pub(super) fn updated(f: &Function, v: ValueId) -> bool {
    let mut found = false;
    f.body.walk(&mut |inst| {
        if let Inst::Def {
            op: Op::Construct { base: Some(b), .. },
            ..
        } = inst
        {
            found |= *b == v;
        }
    });
    found
}

/// Builds the reverse sweep; errors for active operations without a rule.
pub fn differentiate(f: &Function, a: &Activity) -> Result<Gradient, syn::Error> {
    let mut cx = Cx {
        f,
        a,
        reverse: Vec::new(),
        adjoints: Vec::new(),
        shaped: std::collections::HashSet::new(),
        errors: None,
        fixed: fixed(f),
        arm_exports: f.arm_exports(),
    };
    // Every differentiated parameter has a gradient slot, also when the
    // output does not depend on it (its gradient is then zero).
    cx.adjoints
        .extend(f.params.iter().filter(|p| p.active).map(|p| p.value));
    cx.block(&f.body);
    cx.reverse.reverse();
    let mut reverse = std::mem::take(&mut cx.reverse);
    cx.increments(&mut reverse);
    // A scalar output's adjoint starts at one; a vector output's from the
    // caller's seed.
    let seed = match f.output {
        Output::Scalar => f.ret.value().filter(|v| a.is_active(*v)),
        _ => None,
    };
    if let Some(e) = cx.errors {
        return Err(e);
    }
    let mut g = Gradient {
        shaped: Default::default(),
        reverse,
        adjoints: cx.adjoints,
        seed,
        assigned: Default::default(),
        restarted: Default::default(),
    };
    let found = assigned::first_assigned(f, &g);
    g.assigned = found.assigned;
    g.restarted = found.restarted;
    // An adjoint in its value's shape needs that value at hand (a loop
    // header's: the value the loop leaves, see `Function::shaping_value`),
    // unless its first contribution gives it its shape (a struct built
    // for a call, whose adjoint starts as the callee's gradient of it).
    g.shaped = cx.shaped;
    g.shaped.extend(
        g.adjoints
            .iter()
            .copied()
            .filter(|v| is_shaped(f, *v) && !g.assigned.contains(v))
            .map(|v| f.shaping_value(v)),
    );
    Ok(g)
}

struct Cx<'f> {
    f: &'f Function,
    a: &'f Activity,
    /// Built in forward order, reversed at the end.
    reverse: Vec<AdjStmt>,
    adjoints: Vec<ValueId>,
    /// See [`Gradient::shaped`].
    shaped: std::collections::HashSet<ValueId>,
    errors: Option<syn::Error>,
    /// See [`fixed`].
    fixed: std::collections::HashSet<ValueId>,
    /// What branch arms pass out wrapped (`Function::arm_exports`).
    arm_exports: ArmExports,
}

/// The values whose adjoints start other than at zero or receive
/// contributions outside the statements of the block that defines them:
/// the outputs (seeded) and every loop's carried values at the end of an
/// iteration (they take the header's adjoint as the reverse iteration
/// starts).
fn fixed(f: &Function) -> std::collections::HashSet<ValueId> {
    let mut out: std::collections::HashSet<ValueId> = f.outputs().into_iter().collect();
    out.extend(f.ret.value());
    f.body.walk(&mut |inst| {
        if let Inst::Loop(l) = inst {
            out.extend(l.carried.iter().filter_map(|c| c.next.value()));
        }
    });
    out
}

impl Cx<'_> {
    pub(super) fn block(&mut self, block: &Block) {
        for inst in &block.insts {
            match inst {
                Inst::Def { dst, op, span, .. } if self.a.is_active(*dst) => {
                    self.adjoints.push(*dst);
                    if let Some(stmt) = self.entry(*dst, op, *span) {
                        self.reverse.push(stmt);
                    }
                }
                Inst::Scope(b) => self.block(b),
                Inst::Branch(br) => self.branch(br),
                Inst::Loop(l) => self.lower_loop(l),
                Inst::Store {
                    array,
                    index,
                    value,
                } if self.a.is_active(*array) => {
                    let value = self.target(value);
                    self.reverse.push(AdjStmt::Store {
                        array: *array,
                        index: index.clone(),
                        value,
                        zeroes: true,
                    });
                }
                Inst::Push {
                    array,
                    position,
                    value,
                } if self.a.is_active(*array) => {
                    let value = self.target(value);
                    self.reverse.push(AdjStmt::Pushed {
                        array: *array,
                        position: *position,
                        value,
                    });
                }
                _ => {}
            }
        }
    }

    /// The reverse of a branch: per arm, the merges' adjoints flow into
    /// that arm's operands, then the arm's own entries run backwards. Only
    /// emitted when some merge or entry inside is active.
    pub(super) fn branch(&mut self, br: &Branch) {
        let outer = std::mem::take(&mut self.reverse);
        let mut arms = Vec::new();
        let mut locals = Vec::new();
        let mut local_reads = Vec::new();
        let wrapped: Vec<Vec<ValueId>> = self.f.arms_wrapped(&br.arms, &self.arm_exports);
        for (i, arm) in br.arms.iter().enumerate() {
            let before = self.adjoints.len();
            self.block(arm);
            let results = self.f.arm_vector_results(arm);
            // The arrays declared in the arm (not in a loop inside it, whose
            // locals the loop took), and the structs built in it for a
            // call, whose adjoint starts in the arm (from the callee's
            // gradient, or, read in parts, as a zero of the struct built).
            // Structs built and calls' vector results in the arm, also in
            // its blocks (a tuple's `if` arm assigns in one): their
            // adjoints in their shape, from what the arm passed out.
            let mut declared: Vec<ValueId> = Vec::new();
            for (dst, op) in arm.straight_defs() {
                let built = matches!(op, Op::Construct { .. });
                if built || results.contains(&dst) {
                    let needs_value = !built || projected(self.f, dst) || updated(self.f, dst);
                    if self.a.is_active(dst) && needs_value {
                        local_reads.push(dst);
                        // Its zero is in its shaping value's shape (a
                        // struct a `return`'s branch in the arm merges,
                        // `Function::shaping_value`): at hand too.
                        let shape = self.f.shaping_value(dst);
                        if shape != dst {
                            local_reads.push(shape);
                        }
                    }
                    declared.push(dst);
                }
            }
            // Arrays declared in the arm, or copied there (`let r =
            // q.clone();` of a local `Vec`): what their zeros read.
            let arrays: Vec<ValueId> = arm
                .insts
                .iter()
                .filter_map(|inst| match inst {
                    Inst::Def {
                        dst,
                        op: Op::NewArray(_) | Op::Copy(Operand::Value(_)),
                        ..
                    } if self.f.value(*dst).ty.array().is_some() => {
                        if self.a.is_active(*dst) {
                            local_reads.extend(zeros_read(self.f, *dst));
                        }
                        Some(*dst)
                    }
                    _ => None,
                })
                .collect();
            declared.extend(arrays);
            // Any other struct's adjoint shaped by a struct the arm makes
            // (a loop's carried copy of a parameter, `let mut q =
            // p0.clone(); for .. { q.step(dt); }`): declared in the arm,
            // where that struct is.
            let made_here = arm.defined_anywhere();
            for &v in &self.adjoints[before..] {
                let composite = self.f.value(v).ty.composite().is_some();
                if !composite || declared.contains(&v) || !made_here.contains(&v) {
                    continue;
                }
                let shape = self.f.shaping_value(v);
                if made_here.contains(&shape) {
                    if self.a.is_active(v) {
                        local_reads.push(shape);
                    }
                    declared.push(v);
                }
            }
            let mut k = before;
            while k < self.adjoints.len() {
                if declared.contains(&self.adjoints[k]) {
                    self.adjoints.remove(k);
                } else {
                    k += 1;
                }
            }
            let declared: Vec<ValueId> = declared
                .into_iter()
                .filter(|v| self.a.is_active(*v))
                .collect();
            locals.push(declared);
            for m in &br.merges {
                if self.a.is_active(m.dst) {
                    if let Some(src) = self.target(&m.arms[i]) {
                        self.reverse.push(AdjStmt::Copy {
                            dst: m.dst,
                            src,
                            cast: None,
                        });
                    }
                }
            }
            let mut stmts = std::mem::take(&mut self.reverse);
            stmts.reverse();
            self.increments(&mut stmts);
            arms.push(stmts);
        }
        self.reverse = outer;
        for m in &br.merges {
            if self.a.is_active(m.dst) {
                self.adjoints.push(m.dst);
            }
        }
        if arms.iter().any(|a| !a.is_empty()) {
            // Pushed in forward order and reversed with the rest: each arm
            // is already in reverse order.
            self.reverse.push(AdjStmt::Branch {
                selector: br.selector.clone(),
                arm_index: br.arm_index,
                arms,
                locals,
                local_reads,
                wrapped,
            });
        }
    }

    /// The increments of a block's reverse, `stmts` (`increments.rs`);
    /// the adjoints they leave unused are declared no more.
    pub(super) fn increments(&mut self, stmts: &mut Vec<AdjStmt>) {
        let dropped = increments::increments(stmts, &self.fixed);
        self.adjoints.retain(|v| !dropped.contains(v));
    }

    pub(super) fn error(&mut self, e: syn::Error) {
        combine(&mut self.errors, e);
    }
}

#[cfg(test)]
mod tests;

/// What the zeros of an array declared in an arm read from the forward
/// sweep (`emit::Emitter::local_array_zeros` writes them, both from
/// `Block::zero_length`): a declared length's value, nothing for a literal
/// or a fixed shape, else the array.
pub(super) fn zeros_read(f: &Function, v: ValueId) -> Option<ValueId> {
    match f.body.zero_length(v, &f.values) {
        ZeroLength::Declared(len) => len.value(),
        ZeroLength::Items(_) => None,
        ZeroLength::Of(w) => match f.value(w).ty.array() {
            Some(ArrayTy {
                shape: Shape::Fixed(_),
                ..
            }) => None,
            _ => Some(w),
        },
    }
}

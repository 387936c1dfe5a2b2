//! The reverse of a loop: what each iteration records or recomputes,
//! the carried adjoints, and the iterations run backwards.

use super::*;

impl Cx<'_> {
    /// The reverse of a loop. Adjoints of the body's values are fresh in
    /// every iteration; those of the headers carry from one iteration to the
    /// one before. What the body's reverse reads of the iteration's own
    /// values is what the forward sweep must push (to-be-recorded analysis):
    /// values from before the loop are still there, and the index of a
    /// `for` loop is recomputed by walking the range backwards.
    pub(super) fn lower_loop(&mut self, l: &Loop) {
        let active_carried: Vec<CarriedAdjoint> = l
            .carried
            .iter()
            .filter(|c| self.a.is_active(c.header))
            .map(|c| CarriedAdjoint {
                header: c.header,
                out: Some(c.out).filter(|o| self.a.is_active(*o)),
                next: self.target(&c.next),
                init: self.target(&c.init),
            })
            .collect();
        let outer_reverse = std::mem::take(&mut self.reverse);
        let outer_adjoints = std::mem::take(&mut self.adjoints);
        self.block(&l.body);
        let mut body = std::mem::take(&mut self.reverse);
        body.reverse();
        self.increments(&mut body);
        let iteration = l.iteration_defines();
        self.settle_partials(&mut body, l, &iteration);
        let locals = std::mem::replace(&mut self.adjoints, outer_adjoints);
        self.reverse = outer_reverse;
        for c in &active_carried {
            self.adjoints.push(c.header);
            self.adjoints.extend(c.out);
        }
        if body.is_empty() && active_carried.is_empty() {
            return;
        }
        let mut reads = std::collections::HashSet::new();
        reads_in(&body, &mut reads);
        // A carried value of a type the source does not state (a call's
        // `Vec`, `h = layer.forward(&a)`) may change its length from one
        // iteration to the next: the value the iteration starts from is
        // recorded, so that its adjoint is reset in that shape
        // (`emit::reset_carried`).
        for c in &active_carried {
            if is_shaped(self.f, c.header) && self.f.value(c.header).ty.composite().is_none() {
                reads.insert(c.header);
            }
        }
        // An adjoint in its value's shape needs the value; not a struct
        // built for a call, whose adjoint starts as the callee's gradient
        // of it (unless something else adds in first: a projection of
        // it, or the struct it is a field of, `Rig { body: Body { .. } }`).
        let assigned = super::assigned::built_assigned_in(self.f, &body, &locals);
        let from_slot = |v: &ValueId| {
            self.f.built_fields(*v).is_some()
                && !super::projected(self.f, *v)
                && assigned.contains(v)
        };
        for v in locals
            .iter()
            .copied()
            .filter(|v| is_shaped(self.f, *v) && !from_slot(v))
        {
            let shape = self.f.shaping_value(v);
            reads.insert(shape);
            self.shaped.insert(shape);
        }
        // An array of the iteration gets a fresh adjoint of its length
        // (`Block::zero_length`): as declared, or, for a `Vec` grown by
        // `push` (filled by it, or declared with a length and grown), the
        // array's own; a copy's, its source's, unless it grew.
        for v in locals
            .iter()
            .filter(|v| self.f.value(**v).ty.array().is_some())
        {
            reads.extend(super::zeros_read(self.f, *v));
        }
        // The index of a range loop is recomputed by walking the range
        // backwards, unless the loop can stop early.
        let index = match (&l.kind, l.trips) {
            (LoopKind::Range { index, .. }, None) => *index,
            _ => None,
        };
        // Values cheaper to compute again than to record: reads of arrays
        // the function never writes, integer arithmetic, negation, casts
        // and copies, on
        // values the reverse iteration has (from before the loop, the
        // index, or computed again themselves).
        let mutated = self.f.mutated_arrays();
        // The entries of the body's scopes too: a closure inlined at its
        // call runs once per iteration like the body's own.
        let defs = l.body.straight_defs();
        let mut recomputable: Vec<ValueId> = Vec::new();
        for &(dst, op) in &defs {
            let cheap = self.cheap(dst, op, l, &iteration, &mutated, true);
            // A value the reverse iteration reads anyway is recorded, so
            // it is at hand too (a counter used as an index, say).
            let available = op.operands().iter().all(|v| {
                !iteration.contains(v)
                    || Some(*v) == index
                    || recomputable.contains(v)
                    || reads.contains(v)
            });
            if cheap && available {
                recomputable.push(dst);
            }
        }
        // Those that some pullback reads, and what they need, in order.
        let mut needed: std::collections::HashSet<ValueId> = reads
            .iter()
            .copied()
            .filter(|v| recomputable.contains(v))
            .collect();
        for v in recomputable.iter().rev() {
            if needed.contains(v) {
                if let Some((_, op)) = defs.iter().find(|(dst, _)| dst == v) {
                    needed.extend(
                        op.operands()
                            .into_iter()
                            .filter(|o| recomputable.contains(o)),
                    );
                }
            }
        }
        let recompute: Vec<ValueId> = recomputable
            .iter()
            .copied()
            .filter(|v| needed.contains(v))
            .collect();
        // What computing them again reads from outside the iteration.
        let mut recompute_reads: Vec<ValueId> = Vec::new();
        for (dst, op) in &defs {
            if recompute.contains(dst) {
                recompute_reads
                    .extend(op.operands().into_iter().filter(|o| !iteration.contains(o)));
            }
        }
        let index_read = index
            .filter(|i| reads.contains(i) || recompute.iter().any(|v| self.reads_value(l, *v, *i)));
        let counters: Vec<Counter> = match (&l.kind, l.trips, &l.exit) {
            (LoopKind::Range { .. }, None, None) => l
                .stepped_counters(self.f)
                .filter(|(c, _)| reads.contains(&c.header))
                .map(|(c, step)| Counter {
                    header: c.header,
                    out: c.out,
                    step: step.clone(),
                })
                .collect(),
            _ => Vec::new(),
        };
        recompute_reads.extend(counters.iter().map(|c| c.out));
        let pushes = iteration
            .iter()
            .copied()
            .filter(|v| {
                reads.contains(v)
                    && Some(*v) != index
                    && !recompute.contains(v)
                    && !counters.iter().any(|c| c.header == *v)
            })
            .collect();
        let registers = registers(l, &body, &locals);
        self.reverse.push(AdjStmt::Loop {
            registers,
            id: l.id,
            kind: l.kind.clone(),
            trips: l.trips,
            carried: active_carried,
            locals,
            pushes,
            recompute,
            recompute_reads,
            index_read,
            counters,
            iteration,
            body,
        });
    }

    /// Whether computing `dst = op` of loop `l`'s body again costs less than
    /// recording it, given its operands at hand; a sum, difference or
    /// product of floats only with `flops`.
    fn cheap(
        &self,
        dst: ValueId,
        op: &Op,
        l: &Loop,
        iteration: &[ValueId],
        mutated: &std::collections::HashSet<ValueId>,
        flops: bool,
    ) -> bool {
        match op {
            Op::Load { array, .. } => {
                !iteration.contains(array)
                    && (!mutated.contains(array) || self.frozen_for(*array, l.id))
            }
            // A sum, difference or product of floats: one operation again,
            // where recording it is a store and a load.
            Op::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul, ..) if flops => true,
            Op::Binary(..) => matches!(self.f.value(dst).ty, Ty::Int),
            Op::Unary(..) => true,
            // A copy of an array the function writes to (a snapshot) holds
            // what the array held then: recorded, not copied again.
            Op::Copy(Operand::Value(a)) if self.f.value(*a).ty.array().is_some() => {
                !mutated.contains(a) || self.frozen_for(*a, l.id)
            }
            Op::Cast(..) | Op::Copy(_) => true,
            // A reference to a part of an array or a struct (`&q[a..b]`
            // lent to a call) is taken again where what it views still
            // holds the same: recorded, it would keep a borrow on the
            // stack, which outlives a local array.
            Op::Project {
                base, by_ref: true, ..
            } => {
                !iteration.contains(base)
                    && (!mutated.contains(base) || self.frozen_for(*base, l.id))
            }
            _ => false,
        }
    }

    /// Inside a loop, a `sin`/`cos` computed with its derivative has the
    /// derivative recorded instead of its input only where the input would
    /// be recorded for that pullback alone: where the reverse iteration has
    /// the input anyway (from before the loop, the index, computed again),
    /// records it for another pullback, or another derivative of it would
    /// be recorded too, recording the derivative would grow the stack, so
    /// the pullback reads the input as a plain rule does.
    fn settle_partials(&self, body: &mut [AdjStmt], l: &Loop, iteration: &[ValueId]) {
        let mut with_partial = Vec::new();
        partial_pullbacks(body, &mut with_partial);
        let mutated = self.f.mutated_arrays();
        let index = match &l.kind {
            LoopKind::Range { index, .. } => *index,
            LoopKind::While { .. } => None,
        };
        // What the rest of the reverse body reads, and how many of these
        // pullbacks share each input: two derivatives of one input would
        // take two entries where the input takes one.
        let mut others = std::collections::HashSet::new();
        reads_without_partials(body, &mut others);
        let sharing = |x: ValueId| with_partial.iter().filter(|(_, y)| *y == Some(x)).count();
        let mut plain = Vec::new();
        for (dst, x) in &with_partial {
            let recorded = x.is_some_and(|x| {
                iteration.contains(&x)
                    && Some(x) != index
                    && !l.body.straight_defs().iter().any(|(dst, op)| {
                        // Not a product or a sum: one push of the
                        // derivative is cheaper than a `cos` again.
                        *dst == x && self.cheap(*dst, op, l, iteration, &mutated, false)
                    })
                    && !others.contains(&x)
                    && sharing(x) == 1
            });
            if !recorded {
                plain.push(*dst);
            }
        }
        drop_partials(body, &plain);
    }

    /// Whether every write to `array` comes before the statement that
    /// holds loop `id`, in the block that declares the array: the array
    /// then keeps, until the reverse sweep, the values the loop read, and a
    /// load in the loop can be computed again instead of recorded. The
    /// block is the function's body, or the body of an enclosing loop (one
    /// array per iteration: that loop then records the array itself, once
    /// per iteration, moved onto its stack, instead of each of its reads).
    pub(super) fn frozen_for(&self, array: ValueId, id: usize) -> bool {
        let holds_loop = |inst: &Inst| {
            let mut found = false;
            inst.walk(&mut |i| {
                if let Inst::Loop(l) = i {
                    found |= l.id == id;
                }
            });
            found
        };
        let writes = |inst: &Inst| {
            let mut found = false;
            inst.walk(&mut |i| found |= i.changed_arrays().contains(&array));
            found
        };
        let declares = |insts: &[Inst]| {
            insts
                .iter()
                .any(|i| matches!(i, Inst::Def { dst, .. } if *dst == array))
        };
        // The block that declares the array, and the statements before the
        // one that holds the loop.
        let mut block = None;
        if declares(&self.f.body.insts) || self.f.params.iter().any(|p| p.value == array) {
            block = Some(&self.f.body);
        } else {
            self.f.body.walk(&mut |i| {
                if let Inst::Loop(outer) = i {
                    if declares(&outer.body.insts) {
                        block = Some(&outer.body);
                    }
                }
            });
        }
        let Some(block) = block else {
            return false;
        };
        let top = &block.insts;
        let Some(at) = top.iter().position(holds_loop) else {
            return false;
        };
        let declared = declares(&top[..at]) || self.f.params.iter().any(|p| p.value == array);
        declared && !top[at..].iter().any(writes)
    }

    pub(super) fn reads_value(&self, l: &Loop, v: ValueId, x: ValueId) -> bool {
        l.body
            .straight_defs()
            .iter()
            .any(|(dst, op)| *dst == v && op.operands().contains(&x))
    }
}

/// The `(dst, input)` of the pullbacks that read a derivative computed
/// with the value, in `stmts` and their branches (not in nested loops,
/// which settled theirs).
fn partial_pullbacks(stmts: &[AdjStmt], out: &mut Vec<(ValueId, Option<ValueId>)>) {
    for s in stmts {
        match s {
            AdjStmt::Pullback {
                dst,
                args,
                partial: Some(_),
                ..
            } => out.push((*dst, args.first().and_then(Operand::value))),
            AdjStmt::Branch { arms, .. } => arms.iter().for_each(|a| partial_pullbacks(a, out)),
            _ => {}
        }
    }
}

/// What `stmts` read, but for the pullbacks that read a derivative.
fn reads_without_partials(stmts: &[AdjStmt], out: &mut std::collections::HashSet<ValueId>) {
    for s in stmts {
        match s {
            AdjStmt::Pullback {
                partial: Some(_), ..
            } => {}
            AdjStmt::Branch { arms, .. } => {
                branch_reads(s, out);
                arms.iter().for_each(|a| reads_without_partials(a, out));
            }
            other => reads_in(std::slice::from_ref(other), out),
        }
    }
}

/// Makes the pullbacks of `dsts` read their inputs instead of a derivative.
fn drop_partials(stmts: &mut [AdjStmt], dsts: &[ValueId]) {
    for s in stmts {
        match s {
            AdjStmt::Pullback { dst, partial, .. } if dsts.contains(dst) => *partial = None,
            AdjStmt::Branch { arms, .. } => arms.iter_mut().for_each(|a| drop_partials(a, dsts)),
            _ => {}
        }
    }
}

/// The adjoint elements of loop `l`'s reverse that can live in a register
/// across it: `d_a[i]` where every statement of the reverse body (at any
/// depth) that touches `d_a` is an `Element` adding into `d_a[i]`, with the
/// same `i`, defined before the loop. The register holds `d_a[i]` itself
/// (read before the loop, written back after it), so the sum is the same,
/// bit for bit, as adding into memory.
fn registers(l: &Loop, body: &[AdjStmt], locals: &[ValueId]) -> Vec<(ValueId, Operand)> {
    let mut defined = l.body.defined_anywhere();
    defined.extend(l.iteration_defines());
    let mut elements: Vec<(ValueId, Operand)> = Vec::new();
    elements_in(body, &mut elements);
    let mut out: Vec<(ValueId, Operand)> = Vec::new();
    for (array, index) in elements {
        let invariant = match index.value() {
            Some(v) => !defined.contains(&v),
            None => true,
        };
        let key = |(a, i): &(ValueId, Operand)| *a == array && i.same(&index);
        if !invariant || locals.contains(&array) || out.iter().any(key) {
            continue;
        }
        let only_there = body.iter().all(|s| {
            only_elements(
                s,
                array,
                &|i: &[Operand], _| matches!(i, [only] if only.same(&index)),
            )
        });
        if only_there {
            out.push((array, index));
        }
    }
    out
}

/// The single-index adjoint elements added into in `stmts`, at any depth.
fn elements_in(stmts: &[AdjStmt], out: &mut Vec<(ValueId, Operand)>) {
    for s in stmts {
        match s {
            AdjStmt::Element { array, index, .. } => {
                if let [i] = index.as_slice() {
                    out.push((*array, i.clone()));
                }
            }
            AdjStmt::Branch { arms, .. } => arms.iter().for_each(|a| elements_in(a, out)),
            AdjStmt::Loop { body, .. } => elements_in(body, out),
            _ => {}
        }
    }
}

/// Whether `s` leaves `d_array` alone, or only adds into elements of it,
/// each of which `allowed` accepts (given its index and the load it is the
/// reverse of).
pub(crate) fn only_elements(
    s: &AdjStmt,
    array: ValueId,
    allowed: &dyn Fn(&[Operand], ValueId) -> bool,
) -> bool {
    match s {
        AdjStmt::Element {
            array: a,
            index: i,
            dst,
        } => *dst != array && (*a != array || allowed(i, *dst)),
        AdjStmt::Branch { arms, locals, .. } => {
            !locals.iter().flatten().any(|v| *v == array)
                && arms
                    .iter()
                    .all(|a| a.iter().all(|s| only_elements(s, array, allowed)))
        }
        AdjStmt::Loop {
            carried,
            locals,
            body,
            ..
        } => {
            !locals.contains(&array)
                && !carried.iter().any(|c| {
                    c.header == array
                        || c.out == Some(array)
                        || c.next == Some(array)
                        || c.init == Some(array)
                })
                && body.iter().all(|s| only_elements(s, array, allowed))
        }
        AdjStmt::Copy { dst, src, .. } => *dst != array && *src != array,
        AdjStmt::Vjp { dst, targets, .. } | AdjStmt::Kernel { dst, targets, .. } => {
            *dst != array && !targets.contains(&Some(array))
        }
        AdjStmt::Pullback {
            dst,
            targets,
            partial,
            ..
        } => *dst != array && !targets.contains(&Some(array)) && *partial != Some(array),
        AdjStmt::Project { base, dst, .. } => *base != array && *dst != array,
        AdjStmt::Fields { dst, fields, base } => {
            *dst != array
                && !fields.iter().any(|(_, t)| *t == array)
                && !matches!(base, Some((b, _)) if *b == array)
        }
        AdjStmt::Store {
            array: a, value, ..
        }
        | AdjStmt::Pushed {
            array: a, value, ..
        } => *a != array && *value != Some(array),
        AdjStmt::Spread {
            array: a, items, ..
        } => *a != array && !items.contains(&Some(array)),
        AdjStmt::Chain { dst, parts } => {
            *dst != array && !parts.iter().any(|(t, p)| *t == array || *p == array)
        }
    }
}

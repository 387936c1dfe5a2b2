//! Walking the IR's regions: what an operation, an instruction, a block, a
//! loop or a branch defines and reads, and the function-wide sets the passes ask
//! for (every value read by the forward sweep, every value defined, the
//! arrays written). A new region kind is added here and in the verifier,
//! not in every pass.

use super::*;

impl Op {
    /// A call's operands paired with their slots (`Op::Call::partials`,
    /// `Op::GradMethod::partials`, the receiver first): what each argument
    /// receives from the callee's gradient. Empty for any other operation.
    pub fn call_slots(&self) -> Vec<(Operand, Option<ValueId>)> {
        match self {
            Op::Call { args, partials, .. } => {
                args.iter().cloned().zip(partials.iter().copied()).collect()
            }
            Op::GradMethod {
                recv,
                args,
                partials,
                ..
            } => std::iter::once(recv)
                .chain(args)
                .cloned()
                .zip(partials.iter().copied())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The operation forward mode and traces take: a call whose result is
    /// passed on whole, as the call it was lowered as (`Op::VjpCall::whole`),
    /// any other as it is.
    pub fn forward_form(&self) -> &Op {
        match self {
            Op::VjpCall {
                whole: Some(call), ..
            } => call,
            other => other,
        }
    }

    /// The values an operation defines besides its result: the partials of
    /// a call to a `#[grad]` function, the derivative of a method computed
    /// with its value.
    pub fn partials(&self) -> Vec<ValueId> {
        match self {
            Op::Call { partials, .. } | Op::GradMethod { partials, .. } => {
                partials.iter().flatten().copied().collect()
            }
            Op::Method { partial, .. } => partial.iter().copied().collect(),
            _ => Vec::new(),
        }
    }

    /// The values a derivative can flow back into: the operands, less the
    /// indices of a load or a projection and a kernel's sizes, which are
    /// integers whatever their type says (`m.w[i * m.cols + j]` with `cols`
    /// a struct's `usize` field: the index has no derivative).
    pub fn derivative_operands(&self) -> Vec<ValueId> {
        match self {
            Op::Load { array, .. } => vec![*array],
            Op::Project { base, .. } => vec![*base],
            Op::Field { from, .. } => from.value().into_iter().collect(),
            Op::Kernel { args, .. } => args.iter().filter_map(KernelOperand::array).collect(),
            // An element of a value the macro does not model, `data.ys[i]`:
            // what only its index reads carries no derivative into it.
            Op::Opaque { expr, reads } => {
                let mut e = expr;
                while let syn::Expr::Paren(p) = e {
                    e = &p.expr;
                }
                let syn::Expr::Index(ix) = e else {
                    return reads.values();
                };
                let mut base = std::collections::HashSet::new();
                crate::desugar::internal::collect_idents(
                    quote::ToTokens::to_token_stream(&ix.expr),
                    &mut base,
                );
                reads
                    .0
                    .iter()
                    .filter(|(n, _)| base.contains(n))
                    .map(|(_, v)| *v)
                    .collect()
            }
            _ => self.operands(),
        }
    }

    /// The values this operation reads.
    pub fn operands(&self) -> Vec<ValueId> {
        match self {
            Op::Copy(a) | Op::Unary(_, a) | Op::Cast(a, _) => a.value().into_iter().collect(),
            Op::Binary(_, a, b) => a.value().into_iter().chain(b.value()).collect(),
            Op::Method { recv, args, .. } | Op::GradMethod { recv, args, .. } => {
                std::iter::once(recv)
                    .chain(args)
                    .filter_map(Operand::value)
                    .collect()
            }
            Op::Call { args, .. } | Op::VjpCall { args, .. } => {
                args.iter().filter_map(Operand::value).collect()
            }
            Op::Opaque { reads, .. } => reads.values(),
            Op::Load { array, index } => std::iter::once(*array)
                .chain(index.iter().filter_map(Operand::value))
                .collect(),
            Op::NewArray(init) => init.operands(),
            Op::Construct { fields, base, .. } => fields
                .iter()
                .filter_map(|(_, o)| o.value())
                .chain(*base)
                .collect(),
            Op::Field { base, from, .. } => std::iter::once(*base).chain(from.value()).collect(),
            Op::Project { base, path, .. } => std::iter::once(*base)
                .chain(path.iter().flat_map(Step::values))
                .collect(),
            Op::Kernel { args, .. } => args
                .iter()
                .flat_map(|a| match a {
                    KernelOperand::Array(v) => vec![*v],
                    KernelOperand::Place { base, path } => std::iter::once(*base)
                        .chain(path.iter().flat_map(Step::values))
                        .collect(),
                    KernelOperand::Value(o) => o.value().into_iter().collect(),
                })
                .collect(),
        }
    }
}

impl Inst {
    /// The blocks a region holds, in the order they run: a scope's block,
    /// a branch's arms, a `while` loop's condition then its body. The one
    /// place that knows a region's shape, for the passes that only recurse.
    pub fn blocks(&self) -> Vec<&Block> {
        match self {
            Inst::Scope(b) => vec![b],
            Inst::Branch(br) => br.arms.iter().collect(),
            Inst::Loop(l) => match &l.kind {
                LoopKind::While { cond_block, .. } => vec![cond_block, &l.body],
                LoopKind::Range { .. } => vec![&l.body],
            },
            _ => Vec::new(),
        }
    }

    /// [`Inst::blocks`], to change them in place.
    pub fn blocks_mut(&mut self) -> Vec<&mut Block> {
        match self {
            Inst::Scope(b) => vec![b],
            Inst::Branch(br) => br.arms.iter_mut().collect(),
            Inst::Loop(l) => match &mut l.kind {
                LoopKind::While { cond_block, .. } => vec![cond_block, &mut l.body],
                LoopKind::Range { .. } => vec![&mut l.body],
            },
            _ => Vec::new(),
        }
    }

    /// The modelled arrays this instruction itself changes.
    pub fn changed_arrays(&self) -> Vec<ValueId> {
        match self {
            Inst::Store { array, .. } | Inst::Push { array, .. } => vec![*array],
            _ => Vec::new(),
        }
    }

    /// Calls `f` on this instruction and every one nested in it.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Inst)) {
        f(self);
        for b in self.blocks() {
            b.walk(f);
        }
    }
}

impl Loop {
    /// The values the loop itself defines and that outlive it: the values
    /// after it, and a `while` loop's trip count.
    pub fn defines(&self) -> impl Iterator<Item = ValueId> + '_ {
        self.carried.iter().map(|c| c.out).chain(self.trips)
    }

    /// The integer counters the loop advances by a constant: each carried
    /// variable whose next value is `header + step` (`l += 1`), the
    /// addition at the top level of the body, with its step.
    pub fn stepped_counters<'a>(
        &'a self,
        f: &'a Function,
    ) -> impl Iterator<Item = (&'a Carried, &'a Operand)> + 'a {
        self.carried
            .iter()
            .filter(|c| matches!(f.value(c.header).ty, Ty::Int))
            .filter_map(|c| {
                let next = c.next.value()?;
                let step = self.body.insts.iter().find_map(|inst| match inst {
                    Inst::Def {
                        dst,
                        op: Op::Binary(BinOp::Add, a, b),
                        ..
                    } if *dst == next => match (a, b) {
                        (Operand::Value(h), k @ Operand::Const(_))
                        | (k @ Operand::Const(_), Operand::Value(h))
                            if *h == c.header =>
                        {
                            Some(k)
                        }
                        _ => None,
                    },
                    _ => None,
                })?;
                Some((c, step))
            })
    }

    /// The values one iteration defines: the headers, the index and every
    /// value of the body (a nested loop's own values included).
    pub fn iteration_defines(&self) -> Vec<ValueId> {
        let mut out: Vec<ValueId> = self.carried.iter().map(|c| c.header).collect();
        match &self.kind {
            LoopKind::Range { index, .. } => out.extend(*index),
            LoopKind::While { cond_block, .. } => out.extend(cond_block.defines()),
        }
        out.extend(self.body.defines());
        out
    }
}

impl Branch {
    /// The values the branch itself defines: its merges and arm index.
    pub fn defines(&self) -> impl Iterator<Item = ValueId> + '_ {
        self.merges.iter().map(|m| m.dst).chain(self.arm_index)
    }
}

impl Block {
    /// How the array `v`, defined in this block, starts.
    pub fn array_init(&self, v: ValueId) -> Option<&ArrayInit> {
        let mut found = None;
        self.walk(&mut |inst| {
            if let Inst::Def {
                dst,
                op: Op::NewArray(init),
                ..
            } = inst
            {
                if *dst == v {
                    found = Some(init);
                }
            }
        });
        found
    }

    /// Whether `v`, defined in this block, is a sub-slice lent from an
    /// array that is not a parameter (`&q[a..b]` of a local `q` given to
    /// a call): a loop that records it records a copy of what it views
    /// (a borrow on the stack would outlive the array, and forbid
    /// writing it).
    pub fn lent_from_local(&self, v: ValueId, f: &Function) -> bool {
        let mut found = false;
        self.walk(&mut |inst| {
            if let Inst::Def {
                dst,
                op: Op::Project {
                    base, by_ref: true, ..
                },
                ..
            } = inst
            {
                if *dst == v
                    && !matches!(f.value(*base).kind, ValueKind::Param(_))
                    && matches!(&f.value(v).ty, Ty::Composite(c) if c.holder == Holder::Slice)
                {
                    found = true;
                }
            }
        });
        found
    }

    /// The array `v` is a copy of (`let r = q.clone();` of a local `Vec`),
    /// followed to the first array that is not a copy: its adjoint has that
    /// array's length (a copy only grows, by pushes, after it is taken).
    pub fn copied_from(&self, v: ValueId) -> ValueId {
        match self.copy_source(v) {
            Some(src) if src != v => self.copied_from(src),
            _ => v,
        }
    }

    /// The value `v` is a copy of where this block, at any depth, makes
    /// it (`Op::Copy` of a value); `None` where it makes no such copy.
    pub fn copy_source(&self, v: ValueId) -> Option<ValueId> {
        let mut found = None;
        self.walk(&mut |inst| {
            if let Inst::Def {
                dst,
                op: Op::Copy(Operand::Value(src)),
                ..
            } = inst
            {
                if *dst == v {
                    found = Some(*src);
                }
            }
        });
        found
    }

    /// Where the zeros of the adjoint of `v`, an array declared in a loop
    /// body or an arm, take their length from in the reverse sweep (which
    /// has only what was passed out or recorded): the array's declared
    /// length, or, for a copy no push grows, its source's; the array
    /// itself where pushes grow it past what it was declared with
    /// (`vec![0.0; n]` then `push`).
    pub fn zero_length(&self, v: ValueId, values: &[Value]) -> ZeroLength<'_> {
        let pushed = self.pushed_to(v);
        let source = self.copied_from(v);
        if source != v && values[source.0].ty.array().is_some() && !pushed {
            return self.zero_length(source, values);
        }
        if pushed {
            return ZeroLength::Of(v);
        }
        match self.array_init(v) {
            Some(ArrayInit::Filled { len, .. }) => ZeroLength::Declared(len),
            Some(ArrayInit::List {
                items,
                is_vec: true,
            }) => ZeroLength::Items(items.len()),
            _ => ZeroLength::Of(v),
        }
    }

    /// Calls `f` on every value the forward sweep reads here, once per
    /// read: operands of every instruction, what code kept as written
    /// reads, conditions, merges, carried values, stored and pushed values.
    pub fn each_use(&self, f: &mut impl FnMut(ValueId)) {
        for inst in &self.insts {
            match inst {
                Inst::Def { op, .. } => op.operands().into_iter().for_each(&mut *f),
                Inst::Verbatim { reads, .. } => reads.values().into_iter().for_each(&mut *f),
                Inst::Scope(b) => b.each_use(f),
                Inst::Branch(br) => {
                    match &br.selector {
                        Selector::If(c) => c.value().into_iter().for_each(&mut *f),
                        Selector::Match {
                            scrutinee, reads, ..
                        } => {
                            scrutinee.value().into_iter().for_each(&mut *f);
                            reads.values().into_iter().for_each(&mut *f);
                        }
                    }
                    for m in &br.merges {
                        m.arms.iter().filter_map(Operand::value).for_each(&mut *f);
                    }
                    br.arms.iter().for_each(|arm| arm.each_use(f));
                }
                Inst::Loop(l) => {
                    for c in &l.carried {
                        c.init.value().into_iter().for_each(&mut *f);
                        c.next.value().into_iter().for_each(&mut *f);
                        f(c.header);
                    }
                    match &l.kind {
                        LoopKind::Range { range, .. } => {
                            range.operands().into_iter().for_each(&mut *f)
                        }
                        LoopKind::While {
                            cond_block, cond, ..
                        } => {
                            cond_block.each_use(f);
                            cond.value().into_iter().for_each(&mut *f);
                        }
                    }
                    if let Some(c) = l.checkpoint.as_ref().and_then(|c| c.count.value()) {
                        f(c);
                    }
                    l.body.each_use(f);
                }
                Inst::Store {
                    array,
                    index,
                    value,
                } => {
                    f(*array);
                    index.iter().filter_map(Operand::value).for_each(&mut *f);
                    value.value().into_iter().for_each(&mut *f);
                }
                Inst::Push {
                    array,
                    position,
                    value,
                } => {
                    f(*array);
                    f(*position);
                    value.value().into_iter().for_each(&mut *f);
                }
            }
        }
    }

    /// Whether something pushes onto the array `v`.
    pub fn pushed_to(&self, v: ValueId) -> bool {
        let mut found = false;
        self.walk(&mut |inst| {
            found |= matches!(inst, Inst::Push { array, .. } if *array == v);
        });
        found
    }

    /// The entries that run exactly once each time the block runs, in
    /// order: its own and those of the scopes in it (a closure's body
    /// inlined at its call, a block expression), not those of its loops or
    /// branches.
    pub fn straight_defs(&self) -> Vec<(ValueId, &Op)> {
        let mut out = Vec::new();
        self.straight_defs_into(&mut out);
        out
    }

    fn straight_defs_into<'a>(&'a self, out: &mut Vec<(ValueId, &'a Op)>) {
        for inst in &self.insts {
            match inst {
                Inst::Def { dst, op, .. } => out.push((*dst, op)),
                Inst::Scope(b) => b.straight_defs_into(out),
                _ => {}
            }
        }
    }

    /// The values the block defines that outlive one loop iteration: at any
    /// depth, but of a loop only what it defines itself (its body's values
    /// live one iteration).
    pub fn defines(&self) -> Vec<ValueId> {
        let mut out = Vec::new();
        self.defines_into(&mut out);
        out
    }

    fn defines_into(&self, out: &mut Vec<ValueId>) {
        for inst in &self.insts {
            match inst {
                Inst::Def { dst, op, .. } => {
                    out.push(*dst);
                    out.extend(op.partials());
                }
                Inst::Verbatim { defs, .. } => out.extend(defs),
                Inst::Branch(br) => {
                    br.arms.iter().for_each(|arm| arm.defines_into(out));
                    out.extend(br.defines());
                }
                Inst::Loop(l) => out.extend(l.defines()),
                Inst::Scope(b) => b.defines_into(out),
                Inst::Push { position, .. } => out.push(*position),
                Inst::Store { .. } => {}
            }
        }
    }

    /// Every value an instruction of the block binds, at any depth (a
    /// nested loop's iterations and values after it, a branch's merges).
    pub fn defined_anywhere(&self) -> std::collections::HashSet<ValueId> {
        let mut out = std::collections::HashSet::new();
        self.walk(&mut |inst| match inst {
            Inst::Def { dst, op, .. } => {
                out.insert(*dst);
                out.extend(op.partials());
            }
            Inst::Verbatim { defs, .. } => out.extend(defs.iter().copied()),
            Inst::Branch(br) => out.extend(br.defines()),
            Inst::Loop(l) => {
                out.extend(l.defines());
                out.extend(l.iteration_defines());
            }
            Inst::Push { position, .. } => {
                out.insert(*position);
            }
            Inst::Scope(_) | Inst::Store { .. } => {}
        });
        out
    }

    /// Visits every instruction, regions included, in forward order.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Inst)) {
        for inst in &self.insts {
            inst.walk(f);
        }
    }
}

impl Function {
    /// The name of a float type in this function: `f64`, `f32`, its type
    /// parameter, or `_` where the source does not state it (valid where
    /// the generated code writes a type: a `let`'s, a turbofish).
    pub fn float_ident(&self, t: FloatTy) -> syn::Ident {
        match (t, &self.generic) {
            (FloatTy::F32, _) => syn::Ident::new("f32", proc_macro2::Span::call_site()),
            (FloatTy::Generic, Some(g)) => g.clone(),
            // Not stated: rustc's to infer, so it is not named.
            (FloatTy::Inferred, _) => syn::Ident::new("_", proc_macro2::Span::call_site()),
            _ => syn::Ident::new("f64", proc_macro2::Span::call_site()),
        }
    }

    /// The values the function returns: the float, a tuple's elements, or
    /// the array.
    pub fn outputs(&self) -> Vec<ValueId> {
        match &self.output {
            Output::Tuple(elems) => elems.iter().filter_map(Operand::value).collect(),
            Output::Scalar | Output::Array(_) | Output::Struct(_) => {
                self.ret.value().into_iter().collect()
            }
        }
    }

    pub fn value(&self, id: ValueId) -> &Value {
        &self.values[id.0]
    }

    /// Whether some loop is checkpointed (`#[checkpoint]`).
    pub fn has_checkpoint(&self) -> bool {
        let mut found = false;
        self.body.walk(&mut |inst| {
            found |= matches!(inst, Inst::Loop(l) if l.checkpoint.is_some());
        });
        found
    }

    /// The modelled arrays that some instruction changes (a store, a
    /// push, a whole assignment).
    pub fn mutated_arrays(&self) -> std::collections::HashSet<ValueId> {
        let mut out = std::collections::HashSet::new();
        self.body
            .walk(&mut |inst| out.extend(inst.changed_arrays()));
        out
    }

    /// The values the forward sweep may change in place: the modelled
    /// arrays some instruction changes, and the structs built for a method
    /// to be called on (a method of the user's, which code that carries no
    /// derivative runs as written, may take `&mut self`).
    pub fn changed_in_place(&self) -> std::collections::HashSet<ValueId> {
        let mut called = std::collections::HashSet::new();
        let mut built = std::collections::HashSet::new();
        self.body.walk(&mut |inst| match inst {
            Inst::Def {
                dst,
                op: Op::Construct { .. },
                ..
            } => {
                built.insert(*dst);
            }
            Inst::Def {
                op:
                    Op::GradMethod {
                        recv: Operand::Value(r),
                        ..
                    }
                    | Op::Method {
                        recv: Operand::Value(r),
                        ..
                    },
                ..
            } => {
                called.insert(*r);
            }
            // A method called as written (`t.hit();`).
            Inst::Verbatim { reads, .. }
            | Inst::Def {
                op: Op::Opaque { reads, .. },
                ..
            } => called.extend(reads.values()),
            _ => {}
        });
        let mut out = self.mutated_arrays();
        out.extend(called.intersection(&built));
        out
    }

    /// The values the forward sweep reads: operands of every instruction,
    /// what code kept as written reads, and the returned value.
    pub fn forward_uses(&self) -> std::collections::HashSet<ValueId> {
        let mut out = std::collections::HashSet::new();
        self.body.each_use(&mut |v| {
            out.insert(v);
        });
        out.extend(self.ret.value());
        out
    }

    /// The values the function defines: parameters and every value an
    /// instruction of the body binds. Lowering may allocate others that it
    /// then drops.
    pub fn defined(&self) -> std::collections::HashSet<ValueId> {
        let mut out = self.body.defined_anywhere();
        out.extend(self.params.iter().map(|p| p.value));
        out
    }

    /// The value whose type an adjoint of `v` takes when `v`'s own value
    /// is not at hand where the adjoint is declared: a loop's header lives
    /// one iteration of that loop, and its adjoint outside it, so the
    /// header is shaped by the value the loop leaves (the same variable,
    /// of the same type).
    ///
    /// A struct passed out of a branch arm likewise takes the shape of
    /// the value after the branch (a struct writer's in a loop in an arm,
    /// `if c { for .. { q.step(dt); } }`): the same variable, of the same
    /// struct type, where the arm's own is not at hand.
    pub fn shaping_value(&self, v: ValueId) -> ValueId {
        let mut out = v;
        for _ in 0..64 {
            let at = out;
            let mut next = at;
            let composite = self.value(at).ty.composite().is_some();
            self.body.walk(&mut |inst| match inst {
                Inst::Loop(l) => {
                    if let Some(c) = l.carried.iter().find(|c| c.header == at) {
                        next = c.out;
                    }
                }
                Inst::Branch(br) if composite => {
                    let defined_in_arm = br.arms.iter().any(|a| a.defined_anywhere().contains(&at));
                    if let Some(m) = br
                        .merges
                        .iter()
                        .find(|m| defined_in_arm && m.arms.iter().any(|o| o.value() == Some(at)))
                    {
                        next = m.dst;
                    }
                }
                _ => {}
            });
            // A struct a loop starts from, made in the loop's block, has
            // the shape of what the loop carries out (`let mut q =
            // p0.clone(); for .. { q.step(dt); }` in a branch arm), which
            // outlives the loop there.
            if next == at && composite {
                if let Some(o) = self.body.carried_out_beside(at) {
                    next = o;
                }
            }
            if next == at {
                break;
            }
            out = next;
        }
        out
    }
}

impl Block {
    /// What a loop carries out from `v` where `v` is made in the block the
    /// loop is in (a definition, a merge, a loop's out), at any depth.
    fn carried_out_beside(&self, v: ValueId) -> Option<ValueId> {
        let made_here = self.insts.iter().any(|inst| match inst {
            Inst::Def { dst, .. } => *dst == v,
            Inst::Branch(br) => br.merges.iter().any(|m| m.dst == v),
            Inst::Loop(l) => l.carried.iter().any(|c| c.out == v),
            _ => false,
        });
        if made_here {
            let out = self.insts.iter().find_map(|inst| match inst {
                Inst::Loop(l) => l
                    .carried
                    .iter()
                    .find(|c| c.init.value() == Some(v))
                    .map(|c| c.out),
                _ => None,
            });
            if out.is_some() {
                return out;
            }
        }
        self.insts.iter().find_map(|inst| match inst {
            Inst::Scope(b) => b.carried_out_beside(v),
            Inst::Branch(br) => br.arms.iter().find_map(|a| a.carried_out_beside(v)),
            Inst::Loop(l) => l.body.carried_out_beside(v),
            _ => None,
        })
    }
}

/// What an array's adjoint zeros take their length from
/// ([`Block::zero_length`]).
pub enum ZeroLength<'a> {
    /// `vec![v; n]`: `n`.
    Declared(&'a Operand),
    /// `vec![a, b, ..]`: the count of its items.
    Items(usize),
    /// The array itself (its type's length when fixed).
    Of(ValueId),
}

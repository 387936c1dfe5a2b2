//! Calls whose result is read in parts: `let d = sub(&a, &b); d[0]`,
//! `let s = step(&state); s.v`. Such a call returns an array, a `Vec` or a
//! struct, which its callee's expansion differentiates through its `_vjp`
//! slots (`emit/slots.rs`), not `_grad`'s. The lowering cannot know what a
//! callee returns when it meets the call; it lowers it as an `Op::Call`,
//! lets its result be read by projection (`Lowerer::call_results`), and
//! this pass, at the end, turns each call whose result some projection
//! reads into an `Op::VjpCall`: the reverse sweep seeds the callee's
//! `_vjp` with the result's adjoint, into which every projection added.
//! So does a call whose result flows, through a copy, a branch's merge or
//! a loop's state, into a value read in parts; and one whose result is
//! only passed on whole to other calls (`passed_on_whole`), which could
//! be a float or a vector as far as this function sees. A call read as a
//! float stays a call through `_grad`.
//!
//! The reverse sweep calls a `_vjp` with the call's arguments: an array
//! argument that the function changes afterwards (a loop's state passed to
//! `step(state)`, then overwritten) is passed as a copy taken at the call
//! (`snapshot_arguments`), so that the callee differentiates at the values
//! it saw, not at those the array holds at the end.

use std::collections::{HashMap, HashSet};

use proc_macro2::Span;

use crate::ir::*;

/// Turns the calls in `body` whose results some projection reads, or
/// that the source says are vectors (`vector`), into vector-Jacobian
/// calls.
pub(super) fn read_in_parts(
    body: &mut Block,
    calls: &HashSet<ValueId>,
    vector: &HashSet<ValueId>,
    (values, outputs): (&[Value], &[ValueId]),
) -> Option<syn::Error> {
    let mut bases = vector.clone();
    projection_bases(body, &mut bases);
    // What flows whole into a value read in parts (a merge of calls, a
    // loop's state a call gave) is read in parts too.
    let mut uses: HashMap<ValueId, Vec<Use>> = HashMap::new();
    uses_in(body, &mut uses);
    loop {
        let more: Vec<ValueId> = uses
            .iter()
            .filter(|(v, us)| {
                !bases.contains(v)
                    && us
                        .iter()
                        .any(|u| matches!(u, Use::Into(t) if t.iter().any(|t| bases.contains(t))))
            })
            .map(|(v, _)| *v)
            .collect();
        if more.is_empty() {
            break;
        }
        bases.extend(more);
    }
    let parts: HashSet<ValueId> = calls.intersection(&bases).copied().collect();
    let whole: HashSet<ValueId> = passed_on_whole(body, calls, values, outputs)
        .difference(&parts)
        .copied()
        .collect();
    if parts.is_empty() && whole.is_empty() {
        return None;
    }
    to_vjp(body, &parts, &whole);
    element_of_floats(body, &parts, values)
}

/// The calls whose result the function only passes on whole, as an
/// argument of other `#[grad]` calls (`let arm = sub(&r, &p); cross(arm,
/// f)`, `cross(sub(&b, &a), f)`), also by way of a copy (`let x = d;`), a
/// branch's merge (`let k = if c { rot(v) } else { stretch(v) };
/// len2(k)`) or a loop's carried variable (`let mut s = start(q); for .. {
/// s = step(s, w); } energy(s)`): nothing here says whether it is a float
/// or a vector, so the call goes through the callee's `_vjp` slots, which
/// every `#[grad]` function has (`emit/scalar_vjp.rs`), seeded with the
/// result's adjoint in the shape rustc finds (a zero like the result). A
/// result whose type the source states, or that anything else reads
/// (arithmetic, a part, the output), keeps the call as it is.
fn passed_on_whole(
    body: &Block,
    calls: &HashSet<ValueId>,
    values: &[Value],
    outputs: &[ValueId],
) -> HashSet<ValueId> {
    let mut uses: HashMap<ValueId, Vec<Use>> = HashMap::new();
    uses_in(body, &mut uses);
    for v in outputs {
        uses.entry(*v).or_default().push(Use::Other);
    }
    // The greatest set of values of a type the source does not state
    // whose every use passes them on whole, to a call or to such a value.
    let mut whole: HashSet<ValueId> = uses
        .iter()
        .filter(|(v, us)| {
            values[v.0].ty == Ty::Unknown && us.iter().any(|u| !matches!(u, Use::Kept))
        })
        .map(|(v, _)| *v)
        .collect();
    loop {
        let out: Vec<ValueId> = whole
            .iter()
            .copied()
            .filter(|v| {
                !uses[v].iter().all(|u| match u {
                    Use::Argument | Use::Kept => true,
                    Use::Into(targets) => targets.iter().all(|t| whole.contains(t)),
                    Use::Other => false,
                })
            })
            .collect();
        if out.is_empty() {
            break;
        }
        for v in out {
            whole.remove(&v);
        }
    }
    calls.intersection(&whole).copied().collect()
}

/// How a value is read.
enum Use {
    /// An argument of a `#[grad]` call, whole.
    Argument,
    /// Passed on whole into these values: a copy, a branch's merge, a
    /// loop's carried variable (its header and its value after the loop).
    Into(Vec<ValueId>),
    /// Read by code kept as written (a loop that changes nothing the
    /// macro follows, `for _ in 0..4 { let a = rd(d, y); }`), which needs
    /// its value only, whatever its shape.
    Kept,
    /// Anything else.
    Other,
}

/// Every read of every value in `block`, by kind.
fn uses_in(block: &Block, out: &mut HashMap<ValueId, Vec<Use>>) {
    let push = |v: ValueId, u: Use, out: &mut HashMap<ValueId, Vec<Use>>| {
        out.entry(v).or_default().push(u)
    };
    for inst in &block.insts {
        match inst {
            Inst::Def { dst, op, .. } => {
                // A writer's call passes on whole what it does not lend
                // (`axpy(&mut w, a, &g)`: `g`), whose slot its `_vjp` gives.
                let (args, lent): (Option<&Vec<Operand>>, &[usize]) = match op {
                    Op::Call {
                        callee: crate::rules::Callee::Function,
                        args,
                        mutated: None,
                        ..
                    }
                    | Op::GradMethod { args, .. } => (Some(args), &[]),
                    Op::VjpCall { args, mutated, .. } => (Some(args), mutated),
                    _ => (None, &[]),
                };
                let passed: Vec<ValueId> = args
                    .map(|a| {
                        a.iter()
                            .enumerate()
                            .filter(|(k, _)| !lent.contains(k))
                            .filter_map(|(_, a)| a.value())
                            .collect()
                    })
                    .unwrap_or_default();
                for v in op.operands() {
                    let u = match op {
                        Op::Copy(_) => Use::Into(vec![*dst]),
                        // A struct's field built from it, whose adjoint
                        // gives the field's back whole (`Body { pos:
                        // add2(b.pos, v) }`, `self.vel = add2(..)`).
                        Op::Construct { fields, .. }
                            if fields.iter().any(|(_, f)| f.value() == Some(v)) =>
                        {
                            Use::Argument
                        }
                        _ if passed.contains(&v) => Use::Argument,
                        _ => Use::Other,
                    };
                    push(v, u, out);
                }
            }
            Inst::Branch(br) => {
                for m in &br.merges {
                    for a in m.arms.iter().filter_map(Operand::value) {
                        push(a, Use::Into(vec![m.dst]), out);
                    }
                }
                let mut other = Vec::new();
                match &br.selector {
                    Selector::If(c) => other.extend(c.value()),
                    Selector::Match {
                        scrutinee, reads, ..
                    } => {
                        other.extend(scrutinee.value());
                        other.extend(reads.values());
                    }
                }
                for v in other {
                    push(v, Use::Other, out);
                }
                for arm in &br.arms {
                    uses_in(arm, out);
                }
            }
            Inst::Loop(l) => {
                for c in &l.carried {
                    for o in [&c.init, &c.next] {
                        if let Some(v) = o.value() {
                            push(v, Use::Into(vec![c.header, c.out]), out);
                        }
                    }
                }
                // The loop's own reads besides its carried values: its
                // bounds or condition, a checkpoint count.
                let mut plain: Vec<ValueId> = Vec::new();
                match &l.kind {
                    LoopKind::Range { range, .. } => plain.extend(range.operands()),
                    LoopKind::While {
                        cond_block, cond, ..
                    } => {
                        uses_in(cond_block, out);
                        plain.extend(cond.value());
                    }
                }
                plain.extend(l.checkpoint.as_ref().and_then(|c| c.count.value()));
                for v in plain {
                    push(v, Use::Other, out);
                }
                uses_in(&l.body, out);
            }
            Inst::Scope(inner) => uses_in(inner, out),
            Inst::Verbatim { reads, .. } => {
                for v in reads.values() {
                    push(v, Use::Kept, out);
                }
            }
            other => {
                let mut reads = Vec::new();
                Block {
                    insts: vec![other.clone()],
                }
                .each_use(&mut |v| reads.push(v));
                for v in reads {
                    push(v, Use::Other, out);
                }
            }
        }
    }
}

/// A call's result read in parts (an array or a struct) that is also an
/// item of an array taken to hold floats for being a call's result
/// (`lower/arrays.rs`, `vec![b; 2]`): an error at the array.
fn element_of_floats(
    body: &Block,
    parts: &HashSet<ValueId>,
    values: &[Value],
) -> Option<syn::Error> {
    let mut out = None;
    body.walk(&mut |inst| {
        let Inst::Def {
            dst,
            op: Op::NewArray(init),
            span,
            ..
        } = inst
        else {
            return;
        };
        let inferred = matches!(&values[dst.0].ty, Ty::Array(a) if a.elem == FloatTy::Inferred);
        let items: Vec<&Operand> = match init {
            ArrayInit::Filled { value, .. } | ArrayInit::Repeat { value, .. } => vec![value],
            ArrayInit::List { items, .. } => items.iter().collect(),
            ArrayInit::Empty { .. } => Vec::new(),
        };
        let part = items.iter().filter_map(|o| o.value()).find(|v| parts.contains(v));
        if let (true, Some(p), None) = (inferred, part, &out) {
            let name = values[p.0].name.clone().unwrap_or_else(|| "this call's result".into());
            out = Some(syn::Error::new(*span, format!(
                "#[grad] models local arrays of floats, and this one holds `{name}`, a call's result that is an array or a struct (it is read in parts elsewhere): keep such results in variables of their own, `let {name} = ..;`, and read their parts where the floats are needed"
            )));
        }
    });
    out
}

/// The values some projection (or a kernel's place, or a method of the
/// user's) reads from.
fn projection_bases(block: &Block, out: &mut HashSet<ValueId>) {
    for inst in &block.insts {
        match inst {
            Inst::Def {
                op: Op::Project { base, .. },
                ..
            } => {
                out.insert(*base);
            }
            Inst::Def {
                op: Op::Kernel { args, .. },
                ..
            } => {
                for a in args {
                    if let KernelOperand::Place { base, .. } = a {
                        out.insert(*base);
                    }
                }
            }
            // The receiver of a method of the user's (`let h =
            // g.posterior(x); h.log_pdf(x)`): a struct, whose gradient the
            // method's slot gives.
            Inst::Def {
                op:
                    Op::GradMethod {
                        recv: Operand::Value(base),
                        ..
                    },
                ..
            } => {
                out.insert(*base);
            }
            _ => {}
        }
        for b in inst.blocks() {
            projection_bases(b, out);
        }
    }
}

/// Gives every vector-Jacobian call an argument of its own for each
/// modelled array it reads that the function writes to: a copy taken just
/// before the call (`Op::Copy` of the array), which the reverse sweep
/// reads, and whose adjoint goes back into the array's at the call.
pub(crate) fn snapshot_arguments(body: &mut Block, values: &mut Vec<Value>) {
    let written = written_arrays(body);
    snapshot_in(body, values, &written);
}

/// The modelled arrays some instruction changes.
fn written_arrays(body: &Block) -> HashSet<ValueId> {
    let mut out = HashSet::new();
    body.walk(&mut |inst| out.extend(inst.changed_arrays()));
    out
}

fn snapshot_in(block: &mut Block, values: &mut Vec<Value>, written: &HashSet<ValueId>) {
    let mut insts = Vec::with_capacity(block.insts.len());
    for mut inst in std::mem::take(&mut block.insts) {
        for b in inst.blocks_mut() {
            snapshot_in(b, values, written);
        }
        if let Inst::Def {
            op: Op::VjpCall { args, borrowed, .. },
            ..
        } = &mut inst
        {
            own_references(&mut insts, args, borrowed, values);
        }
        // The arrays the call reads, in place in its operands.
        let (args, span): (Vec<&mut ValueId>, Span) = match &mut inst {
            Inst::Def {
                op: Op::VjpCall { args, .. },
                span,
                ..
            } => (
                args.iter_mut()
                    .filter_map(|a| match a {
                        Operand::Value(v) => Some(v),
                        Operand::Const(_) => None,
                    })
                    .collect(),
                *span,
            ),
            Inst::Def {
                op: Op::Kernel { args, .. },
                span,
                ..
            } => (
                args.iter_mut()
                    .filter_map(|a| match a {
                        KernelOperand::Array(v) => Some(v),
                        _ => None,
                    })
                    .collect(),
                *span,
            ),
            _ => (Vec::new(), Span::call_site()),
        };
        // One copy per array, however many operands read it.
        let mut copies: Vec<(ValueId, ValueId)> = Vec::new();
        for arg in args {
            let a = *arg;
            if !written.contains(&a) {
                continue;
            }
            if let Some((_, copy)) = copies.iter().find(|(x, _)| *x == a) {
                *arg = *copy;
                continue;
            }
            let original = values[a.0].clone();
            values.push(Value {
                name: original.name.as_ref().map(|n| format!("{n}_arg")),
                ty: original.ty,
                kind: ValueKind::Def,
                span: original.span,
            });
            let copy = ValueId(values.len() - 1);
            insts.push(Inst::Def {
                dst: copy,
                op: Op::Copy(Operand::Value(a)),
                written: None,
                span,
            });
            copies.push((a, copy));
            *arg = copy;
        }
        insts.push(inst);
    }
    block.insts = insts;
}

/// A `_vjp`'s argument `&v` of a variable the macro does not model
/// (`gather(&idx, x)`, `idx: Vec<usize>`), which the function changes
/// afterwards: the reverse sweep would borrow it past the change, so the
/// call takes a copy of it (`ToOwned::to_owned(&idx)`), borrowed.
fn own_references(before: &mut [Inst], args: &[Operand], borrowed: &mut [bool], values: &[Value]) {
    let changed = |v: &ValueId| {
        let value = &values[v.0];
        value.kind == ValueKind::Opaque
            && values
                .iter()
                .filter(|w| w.kind == ValueKind::Opaque && w.name == value.name)
                .count()
                > 1
    };
    for (k, arg) in args.iter().enumerate() {
        let Some(t) = arg.value() else { continue };
        for inst in before.iter_mut().rev() {
            let Inst::Def {
                dst,
                op: Op::Opaque { expr, reads },
                ..
            } = inst
            else {
                continue;
            };
            if *dst != t {
                continue;
            }
            if let syn::Expr::Reference(r) = expr {
                if r.mutability.is_none() && reads.values().iter().any(changed) {
                    let inner = &r.expr;
                    *expr = syn::parse_quote!(::std::borrow::ToOwned::to_owned(&#inner));
                    if let Some(b) = borrowed.get_mut(k) {
                        *b = true;
                    }
                }
            }
            break;
        }
    }
}

fn to_vjp(block: &mut Block, parts: &HashSet<ValueId>, whole: &HashSet<ValueId>) {
    for inst in &mut block.insts {
        if let Inst::Def { dst, op, .. } = inst {
            if parts.contains(dst) || whole.contains(dst) {
                let whole = whole.contains(dst).then(|| Box::new(op.clone()));
                match op {
                    Op::Call {
                        path,
                        args,
                        borrowed,
                        exit,
                        mutated: None,
                        ..
                    } => {
                        *op = Op::VjpCall {
                            path: path.clone(),
                            args: std::mem::take(args),
                            borrowed: std::mem::take(borrowed),
                            mutated: Vec::new(),
                            original: None,
                            method: false,
                            exit: exit.take(),
                            whole,
                        };
                    }
                    // `s.step(dt)` read in parts: the receiver first.
                    Op::GradMethod {
                        name,
                        recv,
                        args,
                        borrowed,
                        exit,
                        ..
                    } => {
                        *op = Op::VjpCall {
                            path: name.clone().into(),
                            args: std::iter::once(recv.clone())
                                .chain(std::mem::take(args))
                                .collect(),
                            borrowed: std::iter::once(false)
                                .chain(std::mem::take(borrowed))
                                .collect(),
                            mutated: Vec::new(),
                            original: None,
                            method: true,
                            exit: exit.take(),
                            whole,
                        };
                    }
                    _ => {}
                }
            }
        }
        for b in inst.blocks_mut() {
            to_vjp(b, parts, whole);
        }
    }
}

//! Calls whose result is read in parts: `let d = sub(&a, &b); d[0]`,
//! `let s = step(&state); s.v`. Such a call returns an array, a `Vec` or a
//! struct, which its callee's expansion differentiates through its `_vjp`
//! slots (`emit/slots.rs`), not `_grad`'s. The lowering cannot know what a
//! callee returns when it meets the call; it lowers it as an `Op::Call`,
//! lets its result be read by projection (`Lowerer::call_results`), and
//! this pass, at the end, turns each call whose result some projection
//! reads into an `Op::VjpCall`: the reverse sweep seeds the callee's
//! `_vjp` with the result's adjoint, into which every projection added.
//! A call read only as a whole value stays a call through `_grad`.

use std::collections::HashSet;

use crate::ir::*;

/// Turns the calls in `body` whose results some projection reads, or
/// that the source says are vectors (`vector`), into vector-Jacobian
/// calls.
pub(super) fn read_in_parts(body: &mut Block, calls: &HashSet<ValueId>, vector: &HashSet<ValueId>) {
    let mut bases = vector.clone();
    projection_bases(body, &mut bases);
    let parts: HashSet<ValueId> = calls.intersection(&bases).copied().collect();
    if !parts.is_empty() {
        to_vjp(body, &parts);
    }
}

/// The values some projection (or a kernel's place) reads from.
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
            _ => {}
        }
        for b in inst.blocks() {
            projection_bases(b, out);
        }
    }
}

fn to_vjp(block: &mut Block, parts: &HashSet<ValueId>) {
    for inst in &mut block.insts {
        if let Inst::Def { dst, op, .. } = inst {
            if parts.contains(dst) {
                if let Op::Call {
                    path,
                    args,
                    borrowed,
                    ..
                } = op
                {
                    *op = Op::VjpCall {
                        path: path.clone(),
                        args: std::mem::take(args),
                        borrowed: std::mem::take(borrowed),
                    };
                }
            }
        }
        for b in inst.blocks_mut() {
            to_vjp(b, parts);
        }
    }
}

//! What a differentiated function's reverse sweep accumulates, reads and
//! pushes: the queries the emitter asks of a [`Gradient`].

use std::collections::{HashMap, HashSet};

use super::*;

/// Calls `f` on every statement of `stmts`, and of the loop bodies and
/// branch arms inside them, outer statements first.
fn each(stmts: &[AdjStmt], f: &mut impl FnMut(&AdjStmt)) {
    for s in stmts {
        f(s);
        match s {
            AdjStmt::Loop { body, .. } => each(body, f),
            AdjStmt::Branch { arms, .. } => arms.iter().for_each(|arm| each(arm, f)),
            _ => {}
        }
    }
}

/// The values a place's index steps read (`w[i].b[j]`: `i`, `j`).
fn indices(path: &[Step]) -> impl Iterator<Item = ValueId> + '_ {
    path.iter().flat_map(Step::values)
}

impl Gradient {
    /// The calls chained through a callee's `_grad` (`AdjStmt::Chain`):
    /// each call's value, and the arguments its slots go into.
    pub fn chains(&self) -> Vec<(ValueId, Vec<ValueId>)> {
        let mut out = Vec::new();
        each(&self.reverse, &mut |s| {
            if let AdjStmt::Chain { dst, parts } = s {
                out.push((*dst, parts.iter().map(|(t, _)| *t).collect()));
            }
        });
        out
    }

    /// Per loop, the values its forward iterations push.
    pub fn pushes(&self) -> HashMap<usize, Vec<ValueId>> {
        let mut out = HashMap::new();
        each(&self.reverse, &mut |s| {
            if let AdjStmt::Loop { id, pushes, .. } = s {
                out.insert(*id, pushes.clone());
            }
        });
        out
    }

    /// Whether a step of the sweep has an unguarded variant: a rule's
    /// pullback (`rules::has_unguarded`), a derivative computed with its
    /// value, or a callee's partial chained; so that a first attempt
    /// without the guard can be faster.
    pub fn has_unguarded_pullback(&self) -> bool {
        let mut found = false;
        each(&self.reverse, &mut |s| match s {
            AdjStmt::Pullback {
                partial: Some(_), ..
            }
            | AdjStmt::Chain { .. } => found = true,
            AdjStmt::Pullback {
                rule,
                partial: None,
                ..
            } => found |= crate::rules::has_unguarded(rule),
            _ => {}
        });
        found
    }

    /// The primal values the reverse sweep reads: operands and results of
    /// pullbacks, and branch conditions.
    pub fn reads(&self) -> HashSet<ValueId> {
        let mut out = HashSet::new();
        reads_in(&self.reverse, &mut out);
        out.extend(self.shaped.iter().copied());
        out
    }
}

/// Per adjoint, how many contributions `stmts` make to it, at any depth
/// (`accumulated_in`, counted).
pub fn contributions(stmts: &[AdjStmt]) -> HashMap<ValueId, usize> {
    let mut all = Vec::new();
    accumulated_in(stmts, &mut all);
    let mut out = HashMap::new();
    for v in all {
        *out.entry(v).or_default() += 1;
    }
    out
}

/// The value arguments of the `_vjp` calls in `stmts`, also in the loops
/// and branch arms inside them (`AdjStmt::Vjp::args`).
pub fn vjp_args_in(stmts: &[AdjStmt]) -> HashSet<ValueId> {
    let mut out = HashSet::new();
    each(stmts, &mut |s| {
        if let AdjStmt::Vjp { args, .. } = s {
            out.extend(args.iter().filter_map(Operand::value));
        }
    });
    out
}

pub fn accumulated_in(stmts: &[AdjStmt], out: &mut Vec<ValueId>) {
    for s in stmts {
        match s {
            AdjStmt::Copy { src, .. } => out.push(*src),
            AdjStmt::Pullback { targets, .. } => out.extend(targets.iter().flatten()),
            AdjStmt::Branch { arms, .. } => arms.iter().for_each(|arm| accumulated_in(arm, out)),
            AdjStmt::Element { array, .. } => out.push(*array),
            AdjStmt::Project { base, .. } => out.push(*base),
            AdjStmt::Fields { fields, base, .. } => {
                out.extend(fields.iter().map(|(_, t)| *t));
                out.extend(base.as_ref().map(|(b, _)| *b));
            }
            AdjStmt::Vjp { targets, .. } => out.extend(targets.iter().flatten()),
            AdjStmt::Store { array, value, .. } | AdjStmt::Pushed { array, value, .. } => {
                out.push(*array);
                out.extend(*value);
            }
            AdjStmt::Spread { items, .. } => out.extend(items.iter().flatten()),
            AdjStmt::Kernel { targets, .. } => out.extend(targets.iter().flatten()),
            AdjStmt::Chain { parts, .. } => out.extend(parts.iter().map(|(t, _)| *t)),
            AdjStmt::Loop { carried, body, .. } => {
                for c in carried {
                    out.push(c.header);
                    out.extend(c.init);
                    out.extend(c.next);
                }
                accumulated_in(body, out);
            }
        }
    }
}

pub fn reads_in(stmts: &[AdjStmt], out: &mut HashSet<ValueId>) {
    for s in stmts {
        match s {
            AdjStmt::Copy { .. } => {}
            AdjStmt::Pullback {
                partial: Some(p), ..
            } => {
                out.insert(*p);
            }
            AdjStmt::Pullback {
                rule,
                dst,
                args,
                targets,
                partial: None,
            } => {
                if rule.reads(args.len(), targets) {
                    out.insert(*dst);
                }
                for (i, a) in args.iter().enumerate() {
                    if rule.reads(i, targets) {
                        out.extend(a.value());
                    }
                }
            }
            AdjStmt::Branch { arms, .. } => {
                branch_reads(s, out);
                arms.iter().for_each(|arm| reads_in(arm, out));
            }
            AdjStmt::Element { index, .. } | AdjStmt::Store { index, .. } => {
                out.extend(index.iter().filter_map(Operand::value));
            }
            AdjStmt::Pushed { position, .. } => {
                out.insert(*position);
            }
            AdjStmt::Vjp { args, .. } => out.extend(args.iter().filter_map(Operand::value)),
            AdjStmt::Project { path, .. } => {
                out.extend(indices(path));
            }
            AdjStmt::Spread { len, .. } => out.extend(len.iter().filter_map(Operand::value)),
            AdjStmt::Fields { .. } => {}
            AdjStmt::Chain { parts, .. } => out.extend(parts.iter().map(|(_, p)| *p)),
            AdjStmt::Kernel { args, dst, .. } => {
                out.insert(*dst);
                for a in args {
                    match a {
                        KernelOperand::Array(v) => {
                            out.insert(*v);
                        }
                        KernelOperand::Place { base, path } => {
                            out.insert(*base);
                            out.extend(indices(path));
                        }
                        KernelOperand::Value(o) => out.extend(o.value()),
                    }
                }
            }
            AdjStmt::Loop {
                kind,
                trips,
                body,
                recompute_reads,
                ..
            } => {
                out.extend(recompute_reads.iter().copied());
                match (trips, kind) {
                    (Some(t), _) => {
                        out.insert(*t);
                    }
                    (None, LoopKind::Range { range, .. }) => out.extend(range.operands()),
                    (None, LoopKind::While { .. }) => {}
                }
                reads_in(body, out);
            }
        }
    }
}

/// What a reverse branch reads itself, besides its arms: the condition or
/// the arm that ran, and the lengths of the arrays declared in its arms.
pub(super) fn branch_reads(s: &AdjStmt, out: &mut HashSet<ValueId>) {
    if let AdjStmt::Branch {
        selector,
        arm_index,
        local_reads,
        ..
    } = s
    {
        if let Selector::If(Operand::Value(c)) = selector {
            out.insert(*c);
        }
        out.extend(*arm_index);
        out.extend(local_reads.iter().copied());
    }
}

//! First contributions assigned: an adjoint whose block first touches it
//! with an unconditional contribution starts from that contribution
//! (`d_t = e`) instead of from zero (`d_t = 0.0; ..; d_t += e`).
//!
//! The two differ only in the sign of a zero (`0.0 + -0.0` is `0.0`), but
//! LLVM may not fold `0.0 + e` into `e` for that very reason, so a reverse
//! loop built of `+=` on fresh adjoints pays one addition per adjoint and
//! iteration that a hand-written gradient does not. Tapenade and Enzyme
//! assign first contributions the same way.
//!
//! An adjoint qualifies when, in the statement list of the block that
//! declares it (the function's body or a loop's iteration), the first
//! statement that reads or writes it at any depth adds into it directly
//! (`Copy`, a rule's pullback, a store's or push's value, a spread item,
//! a chain into a float) and a later statement reads it. The emitter then
//! declares it without a value (`let mut d_t: f64;`) and writes that first
//! contribution as `=`; rustc's definite-initialisation check stands
//! behind the analysis.

use std::collections::HashSet;

use super::*;

/// What `first_assigned` finds: see [`Gradient::assigned`] and
/// [`Gradient::restarted`].
pub struct Assigned {
    pub assigned: HashSet<ValueId>,
    pub restarted: HashSet<ValueId>,
}

/// The adjoints whose first contribution is written as an assignment.
pub fn first_assigned(f: &Function, g: &Gradient) -> Assigned {
    let mut out = Assigned {
        assigned: HashSet::new(),
        restarted: HashSet::new(),
    };
    let built = built_structs(f);
    let candidate = |v: &ValueId| {
        let ty = &f.value(*v).ty;
        (matches!(ty, Ty::Float(_) | Ty::FloatLit) && !is_shaped(f, *v) || built.contains(v))
            && g.seed != Some(*v)
            && !f.outputs().contains(v)
    };
    let declared: HashSet<ValueId> = g.adjoints.iter().copied().filter(candidate).collect();
    let params = f.params.iter().map(|p| p.value).collect();
    out.assigned
        .extend(scan(&g.reverse, &declared, &params, &built));
    // The structs built in a branch arm for a call: their adjoint starts
    // where the arm's reverse does.
    each_arm(&g.reverse, &mut |locals, arm| {
        let declared = locals
            .iter()
            .copied()
            .filter(|v| built.contains(v))
            .collect();
        out.assigned
            .extend(scan(arm, &declared, &HashSet::new(), &built));
    });
    each_loop(&g.reverse, &mut |locals, carried, body| {
        let mut reads = HashSet::new();
        body.iter().for_each(|s| adjoint_reads(s, &mut reads));
        // A carried variable's value at the end of the iteration takes the
        // header's adjoint before the body runs: `d_next = d_header`
        // where it is fresh, in a loop whose transfer is one move per
        // variable (`crossed`).
        let simple = !crossed(carried);
        let next = |v: &ValueId| carried.iter().any(|c| c.next == Some(*v));
        for v in locals.iter().filter(|v| next(v)) {
            if simple && candidate(v) && reads.contains(v) {
                out.assigned.insert(*v);
            }
        }
        let declared = locals
            .iter()
            .copied()
            .filter(|v| candidate(v) && !next(v))
            .collect();
        out.assigned
            .extend(scan(body, &declared, &HashSet::new(), &built));
        // The header's adjoint, zeroed by the transfer, then first added
        // into by the body: assigned there instead, where something reads
        // it afterwards (the next reverse iteration's transfer, or the
        // initial value's adjoint after the loop).
        if simple {
            let headers: HashSet<ValueId> = carried
                .iter()
                .filter(|c| c.next != Some(c.header) && (c.next.is_some() || c.init.is_some()))
                .map(|c| c.header)
                .filter(candidate)
                .collect();
            out.restarted.extend(scan(body, &headers, &headers, &built));
        }
    });
    out
}

/// The structs built whole for a call (`Op::Construct`): their adjoint
/// starts as the callee's gradient of them (`runtime::call::chained`),
/// which gives it its shape, where that is its first contribution.
/// The structs built in a loop's iteration (`locals`) whose adjoint
/// starts as its first contribution in the reverse iteration `body` (the
/// callee's gradient of a struct built for a call), as
/// [`first_assigned`] finds them: their adjoint needs no value to take
/// its shape from. Any other's starts as a zero of its shape.
pub fn built_assigned_in(f: &Function, body: &[AdjStmt], locals: &[ValueId]) -> HashSet<ValueId> {
    let built = built_structs(f);
    let declared = locals
        .iter()
        .copied()
        .filter(|v| built.contains(v))
        .collect();
    scan(body, &declared, &HashSet::new(), &built)
}

fn built_structs(f: &Function) -> HashSet<ValueId> {
    let mut out = HashSet::new();
    f.body.walk(&mut |inst| {
        if let Inst::Def {
            dst,
            op: Op::Construct { .. },
            ..
        } = inst
        {
            out.insert(*dst);
        }
    });
    out
}

/// Whether some carried variable's header is another's value at the end
/// of the iteration: the reverse iteration then moves the headers'
/// adjoints through temporaries, all at once.
pub fn crossed(carried: &[CarriedAdjoint]) -> bool {
    carried.iter().any(|c| {
        carried
            .iter()
            .any(|d| c.next == Some(d.header) && c.header != d.header)
    })
}

/// Calls `f` with the adjoints declared in each arm of every reverse
/// branch in `stmts`, at any depth, and the arm.
fn each_arm(stmts: &[AdjStmt], f: &mut impl FnMut(&[ValueId], &[AdjStmt])) {
    for s in stmts {
        match s {
            AdjStmt::Branch { arms, locals, .. } => {
                for (arm, declared) in arms.iter().zip(locals) {
                    f(declared, arm);
                    each_arm(arm, f);
                }
            }
            AdjStmt::Loop { body, .. } => each_arm(body, f),
            _ => {}
        }
    }
}

/// Calls `f` with the declared adjoints, the carried adjoints and the body
/// of every reverse loop in `stmts`, at any depth.
fn each_loop(stmts: &[AdjStmt], f: &mut impl FnMut(&[ValueId], &[CarriedAdjoint], &[AdjStmt])) {
    for s in stmts {
        match s {
            AdjStmt::Loop {
                locals,
                carried,
                body,
                ..
            } => {
                f(locals, carried, body);
                each_loop(body, f);
            }
            AdjStmt::Branch { arms, .. } => arms.iter().for_each(|a| each_loop(a, f)),
            _ => {}
        }
    }
}

/// The adjoints of `declared` (zero where `stmts` start) that `stmts`
/// first touch with a direct contribution and read afterwards
/// (`returned`: read after them, as the parameters' gradients are).
fn scan(
    stmts: &[AdjStmt],
    declared: &HashSet<ValueId>,
    returned: &HashSet<ValueId>,
    built: &HashSet<ValueId>,
) -> HashSet<ValueId> {
    let mut out = HashSet::new();
    let mut touched: HashSet<ValueId> = HashSet::new();
    let mut first: Vec<(usize, ValueId)> = Vec::new();
    for (k, s) in stmts.iter().enumerate() {
        for v in direct(s, built) {
            if declared.contains(&v) && !touched.contains(&v) && !first.iter().any(|(_, w)| *w == v)
            {
                first.push((k, v));
            }
        }
        touches(s, &mut touched);
    }
    for (k, v) in first {
        let mut later = HashSet::new();
        for s in &stmts[k + 1..] {
            adjoint_reads(s, &mut later);
        }
        if later.contains(&v) || returned.contains(&v) {
            out.insert(v);
        }
    }
    out
}

/// The adjoints `s` adds into with a plain `+=` at its own level, which
/// the emitter can write as `=`; a `_vjp`'s gradient, only into a struct
/// built for the call (`built`).
fn direct(s: &AdjStmt, built: &HashSet<ValueId>) -> Vec<ValueId> {
    match s {
        AdjStmt::Copy {
            src,
            cast: None | Some(FloatTy::F32 | FloatTy::F64 | FloatTy::Generic),
            ..
        } => vec![*src],
        AdjStmt::Pullback { targets, .. } => targets.iter().flatten().copied().collect(),
        AdjStmt::Store { value, .. } | AdjStmt::Pushed { value, .. } => {
            value.iter().copied().collect()
        }
        AdjStmt::Spread { items, .. } => items.iter().flatten().copied().collect(),
        AdjStmt::Chain { parts, .. } => parts.iter().map(|(t, _)| *t).collect(),
        AdjStmt::Vjp { targets, .. } => targets
            .iter()
            .flatten()
            .copied()
            .filter(|t| built.contains(t))
            .collect(),
        _ => Vec::new(),
    }
}

/// Every adjoint `s` reads or writes, at any depth.
fn touches(s: &AdjStmt, out: &mut HashSet<ValueId>) {
    let mut written = Vec::new();
    accumulated_in(std::slice::from_ref(s), &mut written);
    out.extend(written);
    adjoint_reads(s, out);
}

/// The adjoints `s` reads, at any depth.
fn adjoint_reads(s: &AdjStmt, out: &mut HashSet<ValueId>) {
    match s {
        AdjStmt::Copy { dst, .. }
        | AdjStmt::Pullback { dst, .. }
        | AdjStmt::Element { dst, .. }
        | AdjStmt::Vjp { dst, .. }
        | AdjStmt::Project { dst, .. }
        | AdjStmt::Fields { dst, .. }
        | AdjStmt::Chain { dst, .. }
        | AdjStmt::Kernel { dst, .. } => {
            out.insert(*dst);
        }
        AdjStmt::Store { array, .. }
        | AdjStmt::Pushed { array, .. }
        | AdjStmt::Spread { array, .. } => {
            out.insert(*array);
        }
        AdjStmt::Branch { arms, .. } => arms.iter().flatten().for_each(|s| adjoint_reads(s, out)),
        AdjStmt::Loop {
            carried,
            registers,
            body,
            ..
        } => {
            for c in carried {
                out.insert(c.header);
                out.extend(c.out);
            }
            out.extend(registers.iter().map(|(a, _)| *a));
            body.iter().for_each(|s| adjoint_reads(s, out));
        }
    }
}

//! Increments: the reverse of `a[i] += e` without taking the element's
//! adjoint out and putting it back.
//!
//! `a[i] += e` is a load, an addition and a store:
//!
//! ```text
//! l = a[i]; v = l + e; a[i] = v
//! ```
//!
//! and its reverse, in reverse order, is
//!
//! ```text
//! d_v += d_a[i]; d_a[i] = 0     the store: take the element's adjoint
//! d_l += d_v; d_e += d_v        the addition
//! d_a[i] += d_l                 the load: add it back
//! ```
//!
//! When `d_v` and `d_l` receive nothing else and nothing between touches
//! `d_a`, the element ends as it began (`0 + d_l` is `d_a[i]`, up to the
//! sign of a zero), so the store takes a copy and leaves the element in
//! place, and the load's step and `d_l` go: `d_v = d_a[i]; d_e += d_v`,
//! Tapenade's reverse of an increment. In an inner loop this saves a
//! store, a load and an addition per element (LLVM cannot fold `0.0 + x`
//! into `x`). The chain from `v` to `l` may pass through copies and
//! additions or subtractions whose pullback hands the adjoint on
//! unchanged (`rules::passes_dy`).

use std::collections::{HashMap, HashSet};

use super::*;

/// Rewrites the increments of `stmts`, the reverse of one block, whose
/// loops and branches are rewritten already; returns the values whose
/// adjoints it left without a use, to be declared no more. Run on each
/// block as it is differentiated, before a loop decides what to record:
/// what a removed step read need not be recorded. `fixed`: the values
/// whose adjoints start other than at zero or receive contributions
/// outside the block's statements (seeded outputs, a loop's carried
/// values, which take the header's adjoint), never part of a chain.
pub(super) fn increments(stmts: &mut Vec<AdjStmt>, fixed: &HashSet<ValueId>) -> HashSet<ValueId> {
    // Every contribution to a value of the block is in its reverse.
    let mut counts = contributions(stmts);
    counts.retain(|v, _| !fixed.contains(v));
    let mut dropped = HashSet::new();
    let mut at = 0;
    while at < stmts.len() {
        match increment_at(stmts, at, &counts) {
            // Looked at again: the store may have gone.
            Some(chain) => apply(stmts, chain, &mut dropped),
            None => at += 1,
        }
    }
    dropped
}

/// An increment found: the store at `store`, the steps handing its
/// value's adjoint on (`links`, in order), and the load's step at
/// `element`.
struct Chain {
    store: usize,
    links: Vec<usize>,
    element: usize,
}

/// The increment whose store is `stmts[store]`, if it is one.
fn increment_at(
    stmts: &[AdjStmt],
    store: usize,
    counts: &HashMap<ValueId, usize>,
) -> Option<Chain> {
    let AdjStmt::Store {
        array,
        index,
        value: Some(v),
        zeroes: true,
    } = &stmts[store]
    else {
        return None;
    };
    // One contribution, from the chain, onto a zero.
    let once = |v: ValueId| counts.get(&v).copied() == Some(1);
    let mut links = Vec::new();
    let mut cur = *v;
    let mut pos = store;
    loop {
        if !once(cur) {
            return None;
        }
        // The one step that reads `d_cur`: the reverse of `cur`'s entry.
        let next = pos
            + 1
            + stmts[pos + 1..]
                .iter()
                .position(|s| reads(s) == Some(cur))?;
        // Nothing on the way touches the array's adjoint.
        let alone = stmts[pos + 1..next]
            .iter()
            .all(|s| only_elements(s, *array, &|_, _| false));
        if !alone {
            return None;
        }
        match &stmts[next] {
            AdjStmt::Element {
                array: a, index: i, ..
            } if a == array
                && i.len() == index.len()
                && i.iter().zip(index).all(|(x, y)| x.same(y)) =>
            {
                return Some(Chain {
                    store,
                    links,
                    element: next,
                });
            }
            AdjStmt::Copy {
                src, cast: None, ..
            } => cur = *src,
            AdjStmt::Pullback {
                rule,
                args,
                targets,
                partial: None,
                ..
            } => {
                let k = (0..targets.len()).find(|k| {
                    crate::rules::passes_dy(rule, *k)
                        && targets[*k].is_some()
                        && args[*k].value() == targets[*k]
                })?;
                let s = targets[k]?;
                // Not also another argument (`l + l`).
                if targets.iter().filter(|t| **t == Some(s)).count() != 1 {
                    return None;
                }
                cur = s;
            }
            _ => return None,
        }
        links.push(next);
        pos = next;
    }
}

/// The adjoint a step reads, where it reads exactly one scalar adjoint:
/// its entry's result's.
fn reads(s: &AdjStmt) -> Option<ValueId> {
    match s {
        AdjStmt::Copy { dst, .. }
        | AdjStmt::Pullback { dst, .. }
        | AdjStmt::Element { dst, .. } => Some(*dst),
        _ => None,
    }
}

/// The store keeps the element's adjoint in place; the load's step goes,
/// and with it the contribution it read, and every step left with nothing
/// to do, back along the chain.
fn apply(stmts: &mut Vec<AdjStmt>, chain: Chain, dropped: &mut HashSet<ValueId>) {
    let Chain {
        store,
        links,
        element,
    } = chain;
    let mut gone = vec![element];
    if let AdjStmt::Store { zeroes, .. } = &mut stmts[store] {
        *zeroes = false;
    }
    // Back from the load: cut the contribution to the value the load's
    // step read; a step left without any contribution goes too, and the
    // value it read with it.
    let AdjStmt::Element { dst: mut cut, .. } = stmts[element] else {
        return;
    };
    for at in links.into_iter().rev().chain([store]) {
        dropped.insert(cut);
        let empty = match &mut stmts[at] {
            AdjStmt::Copy { dst, .. } => {
                cut = *dst;
                true
            }
            AdjStmt::Pullback { dst, targets, .. } => {
                for t in targets.iter_mut() {
                    if *t == Some(cut) {
                        *t = None;
                    }
                }
                cut = *dst;
                targets.iter().all(Option::is_none)
            }
            AdjStmt::Store { value, .. } => {
                *value = None;
                true
            }
            _ => false,
        };
        if !empty {
            break;
        }
        gone.push(at);
    }
    gone.sort_unstable();
    for at in gone.into_iter().rev() {
        stmts.remove(at);
    }
}

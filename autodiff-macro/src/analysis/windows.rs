//! Bounds-check windows: an analysis of range loops for the code generator.
//!
//! In `for j in 0..n { .. xs[base + j] .. }` every iteration checks
//! `base + j < xs.len()`: a branch the optimiser cannot remove, which also
//! stops it from vectorising the loop. A hand-written gradient avoids it with
//! iterators or a sub-slice. For such a load, the generated code takes the
//! slice once before the loop, `let xs_win = &xs[min(base, len)..][..n];`,
//! and reads `xs_win[j]` (written `xs_win[t - base]` where the user's index
//! `t = base + j` is a value of its own: the optimiser folds the
//! subtraction). The window has length `n`, so the check of `j` against it
//! goes away.
//!
//! The window panics before the loop where the loop would have panicked in
//! the iteration that reads past the end. That is the same outcome only when
//! the loop reaches that iteration and does nothing observable before it, so
//! windows are taken only in loops that run their whole range (no `break`,
//! no `return`) and copy no statement verbatim (no logging, no calls made
//! for their effect). An empty range takes an empty window and never panics.

use std::collections::{HashMap, HashSet};

use crate::ir::{BinOp, Function, Inst, Loop, LoopKind, Op, Operand, Shape, ValueId};

/// The start of a window: an integer expression that does not change
/// across the loop's iterations.
#[derive(Clone, Debug)]
pub enum Base {
    /// A constant, or a value defined before the loop.
    Operand(Operand),
    /// Integer arithmetic the loop body recomputes each iteration from
    /// values defined before the loop (`p * d` in `xs[p * d + j]`):
    /// hoisted out of the loop as an expression.
    Binary(BinOp, Box<Base>, Box<Base>),
}

impl Base {
    /// The values the expression reads.
    pub fn leaves(&self) -> Vec<ValueId> {
        match self {
            Base::Operand(o) => o.value().into_iter().collect(),
            Base::Binary(_, a, b) => a.leaves().into_iter().chain(b.leaves()).collect(),
        }
    }
}

/// One window of a read-only array over a loop's range.
#[derive(Clone, Debug)]
pub struct Window {
    pub array: ValueId,
    /// Where the window starts in the array: `None` for 0.
    pub base: Option<Base>,
    /// The range's start, when it is not 0: the window's length is that of
    /// `start..end`, and a load by the loop index is at `j - start`.
    pub start: Option<Operand>,
    /// For a window read at a counter the loop advances by one (`l += 1`):
    /// the counter's value after the loop. The reverse sweep, which may not
    /// have the counter's start, takes the window from there back.
    pub counter_out: Option<ValueId>,
    /// The loads that read through the window, with how each spells its
    /// index.
    pub loads: Vec<(ValueId, At)>,
}

/// How a load through a window spells its index.
#[derive(Clone, Debug)]
pub enum At {
    /// The loop index `j`: at `j - start`.
    Index,
    /// `iv = x + j`: at `iv - x - start`.
    Offset(ValueId, Operand),
    /// A counter `h` advanced by one each iteration: at `h - base`.
    Counter(ValueId),
}

/// The windows of a loop, or none when the loop may stop early, has a
/// statement copied verbatim, or its range is not `start..end` with a
/// start that does not change across the loop.
pub fn plan(f: &Function, l: &Loop, mutated: &HashSet<ValueId>) -> Vec<Window> {
    let LoopKind::Range {
        index: Some(j),
        range,
    } = &l.kind
    else {
        return Vec::new();
    };
    if range.inclusive || !range.adaptors.is_empty() || l.trips.is_some() || l.exit.is_some() {
        return Vec::new();
    }
    let inside: HashSet<ValueId> = l.iteration_defines().into_iter().collect();
    let start = match &range.start {
        o if o.is_int(0) => None,
        Operand::Value(v) if inside.contains(v) => return Vec::new(),
        o => Some(o.clone()),
    };
    let mut verbatim = false;
    let mut defs: HashMap<ValueId, &Op> = HashMap::new();
    l.body.walk(&mut |inst| match inst {
        Inst::Verbatim { .. } => verbatim = true,
        Inst::Def { dst, op, .. } => {
            defs.insert(*dst, op);
        }
        _ => {}
    });
    if verbatim {
        return Vec::new();
    }
    // Counters advanced by one each iteration from a start the loop does
    // not change: header, start, value after the loop.
    let counters: Vec<(ValueId, Operand, ValueId)> = l
        .stepped_counters(f)
        .filter(|(c, step)| {
            step.is_int(1) && !matches!(c.init.value(), Some(v) if inside.contains(&v))
        })
        .map(|(c, _)| (c.header, c.init.clone(), c.out))
        .collect();
    // Only the loads every iteration makes: in an arm or a nested loop, a
    // load may not run (a nested range may be empty), and a window taken
    // for it would panic where the loop does not.
    let mut loads: Vec<(ValueId, ValueId, &Operand)> = Vec::new();
    unconditional_loads(&l.body, &mut loads);
    let mut windows: Vec<Window> = Vec::new();
    for (dst, array, index) in loads {
        let flat = matches!(
            f.value(array).ty.array(),
            Some(a) if !matches!(a.shape, Shape::Nested)
        );
        // An array made inside the loop, at any depth (a nested loop's
        // body, an arm), does not exist before it.
        if mutated.contains(&array) || inside.contains(&array) || defs.contains_key(&array) || !flat
        {
            continue;
        }
        let Some(iv) = index.value() else { continue };
        let from_start = |b: Option<Base>| match (b, &start) {
            (b, None) => b,
            (None, Some(s)) => Some(Base::Operand(s.clone())),
            (Some(b), Some(s)) => Some(Base::Binary(
                BinOp::Add,
                Box::new(b),
                Box::new(Base::Operand(s.clone())),
            )),
        };
        let (base, at, counter_out) = if iv == *j {
            (from_start(None), At::Index, None)
        } else if let Some((h, init, out)) = counters.iter().find(|(h, ..)| *h == iv) {
            (
                Some(Base::Operand(init.clone())),
                At::Counter(*h),
                Some(*out),
            )
        } else {
            let Some(Op::Binary(BinOp::Add, a, b)) = defs.get(&iv) else {
                continue;
            };
            let x = match (a.value() == Some(*j), b.value() == Some(*j)) {
                (true, false) => b,
                (false, true) => a,
                _ => continue,
            };
            match invariant(x, &inside, &defs, 4) {
                Some(base) => (from_start(Some(base)), At::Offset(iv, x.clone()), None),
                None => continue,
            }
        };
        let same = windows.iter_mut().find(|w| {
            w.array == array
                && w.counter_out == counter_out
                && match (&w.base, &base) {
                    (None, None) => true,
                    (Some(p), Some(q)) => same_base(p, q),
                    _ => false,
                }
        });
        match same {
            Some(w) => w.loads.push((dst, at)),
            None => windows.push(Window {
                array,
                base,
                start: start.clone(),
                counter_out,
                loads: vec![(dst, at)],
            }),
        }
    }
    windows
}

/// The single-index loads of `block` outside its arms and nested loops.
fn unconditional_loads<'a>(
    block: &'a crate::ir::Block,
    out: &mut Vec<(ValueId, ValueId, &'a Operand)>,
) {
    for inst in &block.insts {
        match inst {
            Inst::Def {
                dst,
                op: Op::Load { array, index },
                ..
            } => {
                if let [i] = index.as_slice() {
                    out.push((*dst, *array, i));
                }
            }
            Inst::Scope(b) => unconditional_loads(b, out),
            _ => {}
        }
    }
}

/// `x` as an expression of values defined before the loop, if it is one.
fn invariant(
    x: &Operand,
    inside: &HashSet<ValueId>,
    defs: &HashMap<ValueId, &Op>,
    depth: usize,
) -> Option<Base> {
    let v = match x.value() {
        None => return Some(Base::Operand(x.clone())),
        Some(v) if !inside.contains(&v) => return Some(Base::Operand(x.clone())),
        Some(v) => v,
    };
    match defs.get(&v) {
        Some(Op::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), a, b)) if depth > 0 => {
            let a = invariant(a, inside, defs, depth - 1)?;
            let b = invariant(b, inside, defs, depth - 1)?;
            Some(Base::Binary(*op, Box::new(a), Box::new(b)))
        }
        _ => None,
    }
}

fn same_base(p: &Base, q: &Base) -> bool {
    match (p, q) {
        (Base::Operand(Operand::Value(a)), Base::Operand(Operand::Value(b))) => a == b,
        (Base::Operand(Operand::Const(a)), Base::Operand(Operand::Const(b))) => {
            quote::quote!(#a).to_string() == quote::quote!(#b).to_string()
        }
        (Base::Binary(o, a1, b1), Base::Binary(p, a2, b2)) => {
            o == p && same_base(a1, a2) && same_base(b1, b2)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loops(src: &str) -> Vec<(Function, Vec<Window>)> {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        let f = crate::lower::lower_ok(&item, &crate::attr::Options::default()).unwrap();
        let mutated = f.mutated_arrays();
        let mut out = Vec::new();
        f.body.walk(&mut |inst| {
            if let Inst::Loop(l) = inst {
                out.push(plan(&f, l, &mutated));
            }
        });
        out.into_iter().map(|w| (f.clone(), w)).collect()
    }

    #[test]
    fn an_offset_index_gets_a_hoisted_base() {
        let found = loops(
            "fn f(w: &[f64], xs: &[f64], n: usize) -> f64 {
                let d = w.len();
                let mut t = 0.0;
                for p in 0..n {
                    for j in 0..d {
                        t += w[j] * xs[p * d + j];
                    }
                }
                t
            }",
        );
        // The outer loop reads nothing by `p` alone; the inner one reads
        // `w` by `j` and `xs` from `p * d`.
        assert!(found[0].1.is_empty());
        let inner = &found[1].1;
        assert_eq!(inner.len(), 2);
        assert!(inner[0].base.is_none());
        assert!(matches!(
            inner[1].base,
            Some(Base::Binary(BinOp::Mul, _, _))
        ));
    }

    #[test]
    fn no_window_where_the_loop_may_stop_or_writes_the_array() {
        let found = loops(
            "fn f(x: &[f64]) -> f64 {
                let mut y = vec![0.0; 3];
                let mut t = 0.0;
                for j in 0..x.len() {
                    if x[j] > 1.0 { break; }
                    t += x[j];
                }
                for j in 0..3 {
                    y[j] = t;
                    t += y[j];
                }
                t
            }",
        );
        assert!(found.iter().all(|(_, w)| w.is_empty()));
    }

    #[test]
    fn a_range_from_a_start_and_a_counter_get_windows_of_the_range_length() {
        let found = loops(
            "fn f(x: &[f64], n: usize) -> f64 {
                let mut t = 0.0;
                let mut l = 2;
                for i in 0..n {
                    for j in i + 1..n {
                        t += x[j] * x[l];
                        l += 1;
                    }
                }
                t
            }",
        );
        let inner = &found[1].1;
        assert_eq!(inner.len(), 2, "{inner:?}");
        // `x[j]`: from the range's start, `j - start` into the window.
        assert!(inner[0].start.is_some() && inner[0].counter_out.is_none());
        assert!(matches!(inner[0].loads[0].1, At::Index));
        // `x[l]`: from the counter's start, as long as the range.
        assert!(inner[1].start.is_some() && inner[1].counter_out.is_some());
        assert!(matches!(inner[1].loads[0].1, At::Counter(_)));
    }

    #[test]
    fn no_window_for_a_load_that_an_iteration_may_not_make() {
        // `w[i]` is read only when the inner range is not empty, and only
        // in one arm: a window over `0..n` would panic when `w` is shorter
        // than `n` and the reads never happen.
        let found = loops(
            "fn f(w: &[f64], x: &[f64], n: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n {
                    for j in 0..x.len() {
                        s += w[i] * x[j];
                    }
                    if s > 1.0 {
                        s += w[i];
                    }
                }
                s
            }",
        );
        assert!(found[0].1.is_empty());
        assert_eq!(found[1].1.len(), 1, "the inner loop's own `x[j]`");
    }
}

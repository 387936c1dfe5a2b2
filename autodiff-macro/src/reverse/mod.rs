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
pub use queries::{accumulated_in, contributions};
use queries::{branch_reads, reads_in};

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
    /// the adjoint that receives it.
    Vjp {
        dst: ValueId,
        path: syn::Path,
        args: Vec<Operand>,
        borrowed: Vec<bool>,
        targets: Vec<Option<ValueId>>,
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
    };
    // Every differentiated parameter has a gradient slot, also when the
    // output does not depend on it (its gradient is then zero).
    cx.adjoints
        .extend(f.params.iter().filter(|p| p.active).map(|p| p.value));
    cx.block(&f.body);
    cx.reverse.reverse();
    let mut reverse = std::mem::take(&mut cx.reverse);
    cx.increments(&mut reverse);
    // An adjoint in its value's shape needs that value at hand (a loop
    // header's: the value the loop leaves, see `Function::shaping_value`).
    cx.shaped.extend(
        cx.adjoints
            .iter()
            .copied()
            .filter(|v| is_shaped(f, *v))
            .map(|v| f.shaping_value(v)),
    );
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
        shaped: cx.shaped,
        reverse,
        adjoints: cx.adjoints,
        seed,
        assigned: Default::default(),
        restarted: Default::default(),
    };
    let found = assigned::first_assigned(f, &g);
    g.assigned = found.assigned;
    g.restarted = found.restarted;
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
        for (i, arm) in br.arms.iter().enumerate() {
            let before = self.adjoints.len();
            self.block(arm);
            // The arrays declared in the arm (not in a loop inside it, whose
            // locals the loop took).
            let declared: Vec<ValueId> = arm
                .insts
                .iter()
                .filter_map(|inst| match inst {
                    Inst::Def {
                        dst,
                        op: Op::NewArray(init),
                        ..
                    } if self.f.value(*dst).ty.array().is_some() => {
                        if self.a.is_active(*dst) {
                            match init {
                                ArrayInit::Filled {
                                    len: Operand::Value(n),
                                    ..
                                } => local_reads.push(*n),
                                ArrayInit::Filled { .. }
                                | ArrayInit::Repeat { .. }
                                | ArrayInit::List { .. } => {}
                                ArrayInit::Empty { .. } => local_reads.push(*dst),
                            }
                        }
                        Some(*dst)
                    }
                    _ => None,
                })
                .collect();
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
mod tests {
    use super::*;
    use crate::attr::Options;

    fn grad(src: &str) -> Result<(Function, Gradient), syn::Error> {
        let f = crate::lower::lower_ok(&syn::parse_str(src).unwrap(), &Options::default())?;
        let a = crate::analysis::activity::analyse(&f)?;
        let g = differentiate(&f, &a)?;
        Ok((f, g))
    }

    fn rule_names(g: &Gradient) -> Vec<&'static str> {
        g.reverse
            .iter()
            .map(|s| match s {
                AdjStmt::Copy { .. } => "copy",
                AdjStmt::Pullback { rule, .. } => rule.name,
                AdjStmt::Branch { .. } => "branch",
                AdjStmt::Loop { .. } => "loop",
                AdjStmt::Element { .. } => "element",
                AdjStmt::Project { .. } => "project",
                AdjStmt::Vjp { .. } => "vjp",
                AdjStmt::Store { .. } => "store",
                AdjStmt::Pushed { .. } => "pushed",
                AdjStmt::Spread { .. } => "spread",
                AdjStmt::Kernel { .. } => "kernel",
                AdjStmt::Chain { .. } => "chain",
            })
            .collect()
    }

    #[test]
    fn reverse_sweep_runs_backwards() {
        let (_, g) =
            grad("fn f(x1: f64, x2: f64) -> f64 { (x1 - x2).powi(2) + (x1 + x2).cos() }").unwrap();
        assert_eq!(rule_names(&g), ["add", "cos", "add", "powi", "sub"]);
        assert!(g.seed.is_some());
    }

    #[test]
    fn an_arms_array_gets_its_adjoint_in_the_reverse_arm() {
        let (f, g) = grad(
            "fn f(x: f64, n: usize) -> f64 { if n > 1 { let v = vec![x; n]; v[0] * v[1] } else { x } }",
        )
        .unwrap();
        let Some(AdjStmt::Branch {
            locals,
            local_reads,
            ..
        }) = g
            .reverse
            .iter()
            .find(|s| matches!(s, AdjStmt::Branch { .. }))
        else {
            panic!("no reverse branch");
        };
        assert_eq!(locals.len(), 2);
        let [v] = locals[0].as_slice() else {
            panic!("the then-arm declares one array: {locals:?}");
        };
        assert_eq!(f.value(*v).name.as_deref(), Some("v"));
        assert!(locals[1].is_empty());
        // Not declared with the function's adjoints; its length is read.
        assert!(!g.adjoints.contains(v));
        assert_eq!(local_reads.len(), 1);
        assert_eq!(f.value(local_reads[0]).name.as_deref(), Some("n"));
    }

    #[test]
    fn fan_out_gives_several_contributions() {
        let (f, g) = grad("fn f(x: f64, y: f64) -> f64 { x * x + x * y }").unwrap();
        let x = f.params[0].value;
        let mut all = Vec::new();
        accumulated_in(&g.reverse, &mut all);
        assert_eq!(all.iter().filter(|v| **v == x).count(), 3);
        assert!(contributions(&g.reverse).contains_key(&x));
    }

    #[test]
    fn inactive_operands_get_no_target() {
        let (_, g) = grad("fn f(x: f64) -> f64 { x.powf(2.5) }").unwrap();
        match &g.reverse[0] {
            AdjStmt::Pullback { targets, .. } => assert_eq!(targets.len(), 2),
            other => panic!("{other:?}"),
        }
        assert!(matches!(&g.reverse[0], AdjStmt::Pullback { targets, .. } if targets[1].is_none()));
    }

    #[test]
    fn unknown_methods_are_refused_together() {
        let err = grad("fn f(x: f64) -> f64 { x.frobnicate() + x.wobble() }")
            .err()
            .unwrap();
        assert_eq!(err.into_iter().count(), 2);
    }

    #[test]
    fn calls_chain_through_the_callee_partials() {
        let (f, g) = grad("fn f(x: f64, n: i32) -> f64 { helper(x, 2.0, n) * x }").unwrap();
        let chain = g.reverse.iter().find_map(|s| match s {
            AdjStmt::Chain { parts, .. } => Some(parts.clone()),
            _ => None,
        });
        let parts = chain.expect("a chain step");
        assert_eq!(parts.len(), 1, "only x is active");
        assert_eq!(parts[0].0, f.params[0].value);
    }

    #[test]
    fn unknown_code_off_the_path_is_fine() {
        assert!(grad("fn f(x: f64) -> f64 { let _s = x.frobnicate(); x }").is_ok());
    }

    #[test]
    fn parameters_the_output_ignores_still_get_a_gradient() {
        let (f, g) = grad("fn f(x: f64, y: f64) -> f64 { let _s = y.sin(); x * 2.0 }").unwrap();
        assert!(g.adjoints.contains(&f.params[1].value));
        assert!(!contributions(&g.reverse).contains_key(&f.params[1].value));
        let (f, g) = grad("fn f(x: f64) -> f64 { 1.0 }").unwrap();
        assert_eq!(g.adjoints, [f.params[0].value]);
        assert!(g.seed.is_none());
    }

    /// The statements of `stmts` at any depth.
    fn flat(stmts: &[AdjStmt]) -> Vec<&AdjStmt> {
        let mut out = Vec::new();
        for s in stmts {
            out.push(s);
            match s {
                AdjStmt::Loop { body, .. } => out.extend(flat(body)),
                AdjStmt::Branch { arms, .. } => arms.iter().for_each(|a| out.extend(flat(a))),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn an_increment_keeps_the_adjoint_element_in_place() {
        let (f, g) = grad(
            "fn f(x: &[f64], e: f64) -> f64 { let mut a = vec![0.0; 3]; \
             for j in 0..3 { a[j] += x[j] * e; } a[0] * a[1] * a[2] }",
        )
        .unwrap();
        let a = f
            .values
            .iter()
            .position(|v| v.name.as_deref() == Some("a"))
            .map(ValueId)
            .unwrap();
        let stmts = flat(&g.reverse);
        let stores: Vec<bool> = stmts
            .iter()
            .filter_map(|s| match s {
                AdjStmt::Store { array, zeroes, .. } if *array == a => Some(*zeroes),
                _ => None,
            })
            .collect();
        assert_eq!(stores, [false], "one store, keeping the element");
        // The loop's load of `a[j]` adds nothing back; the three loads
        // after the loop do.
        let loop_body = stmts.iter().find_map(|s| match s {
            AdjStmt::Loop { body, .. } => Some(body),
            _ => None,
        });
        assert!(!loop_body
            .unwrap()
            .iter()
            .any(|s| matches!(s, AdjStmt::Element { array, .. } if *array == a)));
        // The load's value has no adjoint left to declare.
        let Some(AdjStmt::Loop { locals, .. }) =
            stmts.iter().find(|s| matches!(s, AdjStmt::Loop { .. }))
        else {
            panic!("no loop");
        };
        assert!(locals
            .iter()
            .all(|v| contributions(&g.reverse).contains_key(v)));
    }

    #[test]
    fn a_stored_value_carried_on_is_not_an_increment() {
        let (_, g) = grad(
            "fn f(x: &[f64; 3], w: f64) -> f64 { let mut a = [x[0], x[1], x[2]]; let mut s = 0.0; \
             for j in 0..3 { s = a[j] + s * w; a[j] = s; } a[0] + a[1] + a[2] + s }",
        )
        .unwrap();
        assert!(flat(&g.reverse)
            .iter()
            .all(|s| !matches!(s, AdjStmt::Store { zeroes: false, .. })));
        // Nor an increment whose load reads another element.
        let (_, g) = grad(
            "fn f(x: &[f64; 3]) -> f64 { let mut a = [x[0], x[1], x[2]]; a[1] = a[0] + x[2]; a[1] * a[0] }",
        )
        .unwrap();
        assert!(flat(&g.reverse)
            .iter()
            .all(|s| !matches!(s, AdjStmt::Store { zeroes: false, .. })));
    }

    #[test]
    fn first_contributions_are_assigned() {
        let (f, g) = grad("fn f(x: f64, y: f64) -> f64 { let p = x * y; p + x }").unwrap();
        let p = f
            .values
            .iter()
            .position(|v| v.name.as_deref() == Some("p"))
            .map(ValueId)
            .unwrap();
        let (x, y) = (f.params[0].value, f.params[1].value);
        // `d_p` and `d_x` from the addition, `d_y` from the product.
        assert!(g.assigned.contains(&p) && g.assigned.contains(&x) && g.assigned.contains(&y));
        // Not the seed, nor a value a branch touches first.
        assert!(!g.assigned.contains(&g.seed.unwrap()));
        let (f, g) =
            grad("fn f(x: f64, c: bool) -> f64 { let mut s = x * 2.0; if c { s = s * x; } s }")
                .unwrap();
        assert!(!g.assigned.contains(&f.params[0].value));
        // A carried value's adjoint is assigned from the header's as the
        // reverse iteration starts; the header's, zeroed then, is
        // assigned by the body's first contribution instead.
        let (_, g) =
            grad("fn f(x: f64) -> f64 { let mut s = x; for _ in 0..3 { s = s.sin(); } s }")
                .unwrap();
        let carried: Vec<(ValueId, Option<ValueId>)> = flat(&g.reverse)
            .iter()
            .filter_map(|s| match s {
                AdjStmt::Loop { carried, .. } => Some(
                    carried
                        .iter()
                        .map(|c| (c.header, c.next))
                        .collect::<Vec<_>>(),
                ),
                _ => None,
            })
            .flatten()
            .collect();
        let [(header, Some(next))] = carried.as_slice() else {
            panic!("one carried variable: {carried:?}");
        };
        assert!(g.assigned.contains(next) && !g.assigned.contains(header));
        assert!(g.restarted.contains(header));
        // Not where headers cross (one's next value is another's header):
        // those move all at once, through temporaries.
        let c = |h: usize, n: usize| CarriedAdjoint {
            header: ValueId(h),
            out: None,
            next: Some(ValueId(n)),
            init: None,
        };
        assert!(super::crossed(&[c(1, 2), c(2, 1)]));
        assert!(!super::crossed(&[c(1, 3), c(2, 4)]));
        assert!(!super::crossed(&[c(1, 1)]));
    }

    #[test]
    fn float_casts_are_followed() {
        let (_, g) = grad("fn f(x: f32) -> f64 { (x as f64).sin() }").unwrap();
        assert!(matches!(
            g.reverse[1],
            AdjStmt::Copy {
                cast: Some(FloatTy::F32),
                ..
            }
        ));
    }
}

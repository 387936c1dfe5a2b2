//! What the function's values are, asked of the whole function: types the
//! source states, calls' results read in parts, structs built whole, and
//! what a branch's arms pass out wrapped in an `Option`.

use super::*;

impl Function {
    /// Whether the function computes with both `f32` and `f64`: then an
    /// adjoint may have to pass from one to the other (a callee taking
    /// both, `runtime::call::Adjoint`), and a trace keeps its partials as
    /// `f64`s.
    pub fn mixes_floats(&self) -> bool {
        let has = |t: FloatTy| self.values.iter().any(|v| v.ty.float() == Some(t));
        has(FloatTy::F32) && has(FloatTy::F64)
    }

    /// Whether the source states `v`'s type as a flat array of floats
    /// (`let diff: [T; 2] = sub2(a, b);`, `let u: Vec<f64> = ..;`) where
    /// the macro does not model it as an array (a call's result): a
    /// callee's gradient for it is chained element by element.
    pub fn stated_flat_array(&self, v: ValueId) -> bool {
        fn flat(ty: &syn::Type) -> bool {
            let elem = match ty {
                syn::Type::Array(a) => &*a.elem,
                other => match vec_elem(other) {
                    Some(t) => t,
                    None => return false,
                },
            };
            // A float: `f64`, `f32` or the type parameter, a bare name.
            matches!(elem, syn::Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some())
        }
        let mut out = false;
        self.body.walk(&mut |inst| {
            if let Inst::Def {
                dst,
                written: Some(w),
                ..
            } = inst
            {
                if *dst == v {
                    out |= w.ty.as_ref().is_some_and(flat);
                }
            }
        });
        out
    }

    /// The values the function owns, made here: arrays built (`vec![..]`,
    /// `[..]`, `Vec::new()`), structs built whole, calls' results, and
    /// the function's copies (a snapshot `wv_arg = wv` given to a call;
    /// a copy of a reference gives a reference again). Not a parameter,
    /// which may be a reference (`xs: &[f64; 3]`), nor a name for a part
    /// of one.
    pub fn owned_values(&self) -> std::collections::HashSet<ValueId> {
        let mut out = std::collections::HashSet::new();
        self.body.walk(&mut |inst| {
            if let Inst::Def { dst, op, .. } = inst {
                if matches!(
                    op,
                    Op::NewArray(_)
                        | Op::Copy(_)
                        | Op::Construct { .. }
                        | Op::Call { .. }
                        | Op::VjpCall { .. }
                        | Op::GradMethod { .. }
                ) {
                    out.insert(*dst);
                }
            }
        });
        out
    }

    /// The results of calls read in parts: vector-Jacobian calls that are
    /// not writers' (their value is not the floats lent) nor passed on
    /// whole (of a shape this function does not see): structs, arrays,
    /// `Vec`s, tuples, whose parts read the same through a reference.
    pub fn parts_results(&self) -> std::collections::HashSet<ValueId> {
        let mut out = std::collections::HashSet::new();
        self.body.walk(&mut |inst| {
            if let Inst::Def {
                dst,
                op:
                    Op::VjpCall {
                        mutated,
                        whole: None,
                        original: None,
                        ..
                    },
                ..
            } = inst
            {
                if mutated.is_empty() {
                    out.insert(*dst);
                }
            }
        });
        out
    }

    /// The results of vector-Jacobian calls and the structs built whole,
    /// in `arm`'s own code and its blocks (not in a branch or a loop in
    /// it), with the structs its loops carry out
    /// (`let mut q = p0.clone(); for .. { q.step(dt); }` in an arm) and
    /// its branches merge (a copy changed after a loop that may `return`):
    /// values of types the macro cannot make a placeholder of.
    pub fn arm_vector_results(&self, arm: &Block) -> Vec<ValueId> {
        let mut out: Vec<ValueId> = arm
            .straight_defs()
            .into_iter()
            .filter(|(_, op)| matches!(op, Op::VjpCall { .. } | Op::Construct { .. }))
            .map(|(dst, _)| dst)
            .collect();
        fn loops_out(f: &Function, b: &Block, out: &mut Vec<ValueId>) {
            for inst in &b.insts {
                match inst {
                    Inst::Loop(l) => out.extend(
                        l.carried
                            .iter()
                            .map(|c| c.out)
                            .filter(|v| f.value(*v).ty.composite().is_some()),
                    ),
                    // A struct a branch in the arm merges (`q` after a
                    // `return`'s branch changed it): no other arm has one.
                    Inst::Branch(br) => out.extend(
                        br.merges
                            .iter()
                            .map(|m| m.dst)
                            .filter(|v| f.value(*v).ty.composite().is_some()),
                    ),
                    Inst::Scope(inner) => loops_out(f, inner, out),
                    _ => {}
                }
            }
        }
        loops_out(self, arm, &mut out);
        out
    }

    /// The fields of the struct `v` builds whole (`Op::Construct`), if it
    /// is one.
    pub fn built_fields(&self, v: ValueId) -> Option<Vec<(syn::Member, Operand)>> {
        let mut out = None;
        self.body.walk(&mut |inst| {
            if let Inst::Def {
                dst,
                op: Op::Construct { fields, .. },
                ..
            } = inst
            {
                if *dst == v {
                    out = Some(fields.clone());
                }
            }
        });
        out
    }

    /// What branch arms pass out as `Some(value)`, the others `None`,
    /// for want of a struct to make a placeholder of (the reverse arm takes
    /// them back out, `runtime::call::exported`): the slots
    /// (`Op::Call::partials`) of structs built whole in the arm for a call
    /// there, and the results of vector-Jacobian calls made in the arm (a
    /// struct, `s = s.scaled(k)` in an `if`). Computed once per function
    /// by its emitters: each branch reads it.
    pub fn arm_exports(&self) -> ArmExports {
        let made_in_arms = self.defined_in_arms();
        let mut all = std::collections::HashSet::new();
        self.body.walk(&mut |inst| {
            if let Inst::Branch(br) = inst {
                for arm in &br.arms {
                    all.extend(self.arm_wrapped(arm, &made_in_arms));
                }
            }
        });
        ArmExports { made_in_arms, all }
    }

    /// The values defined inside some branch arm, at any depth: each
    /// outermost arm once (what it defines covers the arms nested in it),
    /// so that a chain of `else if`s costs its size, not its size squared.
    fn defined_in_arms(&self) -> std::collections::HashSet<ValueId> {
        fn outermost(block: &Block, out: &mut std::collections::HashSet<ValueId>) {
            for inst in &block.insts {
                match inst {
                    Inst::Branch(br) => {
                        for arm in &br.arms {
                            out.extend(arm.defined_anywhere());
                        }
                    }
                    other => {
                        for b in other.blocks() {
                            outermost(b, out);
                        }
                    }
                }
            }
        }
        let mut out = std::collections::HashSet::new();
        outermost(&self.body, &mut out);
        out
    }

    /// [`Self::arm_exports`] of each of a branch's arms: what it defines
    /// in its own code and blocks (a branch nested in it passes out its
    /// own).
    pub fn arms_wrapped(&self, arms: &[Block], exports: &ArmExports) -> Vec<Vec<ValueId>> {
        arms.iter()
            .map(|arm| self.arm_wrapped(arm, &exports.made_in_arms))
            .collect()
    }

    fn arm_wrapped(
        &self,
        arm: &Block,
        made_in_arms: &std::collections::HashSet<ValueId>,
    ) -> Vec<ValueId> {
        let mut out = self.arm_vector_results(arm);
        let defs = arm.straight_defs();
        // A struct the arm makes otherwise (a copy of a call's result,
        // `*self = self.fallen(dt); self.v *= k;`, `best = c;`): the
        // other arms have no value of its type at hand, and its type
        // need not be `Default`.
        out.extend(
            defs.iter()
                .filter(|(dst, op)| {
                    matches!(self.value(*dst).ty, Ty::Composite(_)) && matches!(op, Op::Copy(_))
                })
                .map(|(dst, _)| *dst),
        );
        let built: Vec<ValueId> = defs
            .iter()
            .filter(|(_, op)| matches!(op, Op::Construct { .. }))
            .map(|(dst, _)| *dst)
            .collect();
        // A value of a type the source does not state (a call's result,
        // `seg(t, r).length()`, `let p: P1 = make(a); if c { p.energy() }`,
        // `P1::energy(&q)`), made in the arm or before it: its slot may be
        // the gradient of a struct, which no placeholder is of. So is the
        // slot of a struct some branch arm made (`if c { q.step(dt);
        // q.energy() }`, also in a branch nested in that arm): the other
        // arms of an enclosing branch have no value in its shape at hand.
        for (_, op) in defs {
            for (a, p) in op.call_slots() {
                if let (Some(a), Some(p)) = (a.value(), p) {
                    let made_in_arm =
                        matches!(self.value(a).ty, Ty::Composite(_)) && made_in_arms.contains(&a);
                    if built.contains(&a) || self.value(a).ty == Ty::Unknown || made_in_arm {
                        out.push(p);
                    }
                }
            }
        }
        out
    }

    /// What `scope` defines that is read after it, where all of it is
    /// integers and `bool`s (a filter's test, `let kept: bool = { bindings;
    /// test };`, `desugar/iterators.rs`): code that runs once, as written
    /// (`_jvp`, `_trace`), may keep the scope a block of its own that
    /// passes them out. `None` where a float or anything else leaves it.
    pub fn scope_escapes(&self, scope: &Block) -> Option<Vec<ValueId>> {
        let out = self.scope_outputs(scope);
        out.iter()
            .all(|v| matches!(self.value(*v).ty, Ty::Bool | Ty::Int))
            .then_some(out)
    }

    /// What `scope` defines that is read after it, of any type, in the
    /// order of definition.
    pub fn scope_outputs(&self, scope: &Block) -> Vec<ValueId> {
        let defined = scope.defined_anywhere();
        let mut inside: std::collections::HashMap<ValueId, usize> = Default::default();
        scope.each_use(&mut |v| *inside.entry(v).or_default() += 1);
        let mut everywhere: std::collections::HashMap<ValueId, usize> = Default::default();
        self.body
            .each_use(&mut |v| *everywhere.entry(v).or_default() += 1);
        for v in self.outputs() {
            *everywhere.entry(v).or_default() += 1;
        }
        let mut out: Vec<ValueId> = defined
            .into_iter()
            .filter(|v| {
                everywhere.get(v).copied().unwrap_or(0) > inside.get(v).copied().unwrap_or(0)
            })
            .collect();
        out.sort_by_key(|v| v.0);
        out
    }
}

/// What the branch arms of one function pass out wrapped
/// ([`Function::arm_exports`]).
#[derive(Clone, Debug, Default)]
pub struct ArmExports {
    /// The values defined inside some branch arm, at any depth.
    made_in_arms: std::collections::HashSet<ValueId>,
    /// What some arm passes out as `Some(..)`.
    pub all: std::collections::HashSet<ValueId>,
}

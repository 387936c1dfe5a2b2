//! Differentiation: the reverse sweep, in IR terms.
//!
//! The forward sweep is the function's own Wengert list (values are in SSA
//! form, so every intermediate the reverse sweep needs is still there). The
//! reverse sweep visits the active entries in reverse order and, for each,
//! adds the pullback of its rule into the adjoints of its active operands:
//! always `+=`, so fan-out sums. The adjoint of the returned value is seeded
//! with one.

use crate::activity::Activity;
use crate::attr::combine;
use crate::ir::*;
use crate::rules::{self, Arg, Rule};

/// One step of the reverse sweep.
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
    },
    /// `(g0, g1, ..) = rule_pullback(args.., dst, d_dst)`, then `d_t += g`
    /// for each float argument with an active target.
    Pullback {
        rule: &'static Rule,
        dst: ValueId,
        args: Vec<Operand>,
        /// Per float argument of the rule, the adjoint that receives it.
        targets: Vec<Option<ValueId>>,
    },
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
}

impl Gradient {
    /// The adjoints that receive at least one contribution.
    pub fn accumulated(&self) -> Vec<ValueId> {
        let mut out = Vec::new();
        accumulated_in(&self.reverse, &mut out);
        out
    }

    /// The primal values the reverse sweep reads: operands and results of
    /// pullbacks, and branch conditions.
    pub fn reads(&self) -> std::collections::HashSet<ValueId> {
        let mut out = std::collections::HashSet::new();
        reads_in(&self.reverse, &mut out);
        out
    }
}

fn accumulated_in(stmts: &[AdjStmt], out: &mut Vec<ValueId>) {
    for s in stmts {
        match s {
            AdjStmt::Copy { src, .. } => out.push(*src),
            AdjStmt::Pullback { targets, .. } => out.extend(targets.iter().flatten()),
            AdjStmt::Branch { arms, .. } => arms.iter().for_each(|arm| accumulated_in(arm, out)),
        }
    }
}

fn reads_in(stmts: &[AdjStmt], out: &mut std::collections::HashSet<ValueId>) {
    for s in stmts {
        match s {
            AdjStmt::Copy { .. } => {}
            AdjStmt::Pullback { dst, args, .. } => {
                out.insert(*dst);
                out.extend(args.iter().filter_map(Operand::value));
            }
            AdjStmt::Branch {
                selector,
                arms,
                arm_index,
                ..
            } => {
                if let Selector::If(Operand::Value(c)) = selector {
                    out.insert(*c);
                }
                out.extend(*arm_index);
                arms.iter().for_each(|arm| reads_in(arm, out));
            }
        }
    }
}

/// Builds the reverse sweep; errors for active operations without a rule.
pub fn differentiate(f: &Function, a: &Activity) -> Result<Gradient, syn::Error> {
    let mut cx = Cx {
        f,
        a,
        reverse: Vec::new(),
        adjoints: Vec::new(),
        errors: None,
    };
    // Every differentiated parameter has a gradient slot, also when the
    // output does not depend on it (its gradient is then zero).
    cx.adjoints
        .extend(f.params.iter().filter(|p| p.active).map(|p| p.value));
    cx.block(&f.body);
    cx.reverse.reverse();
    let seed = f.ret.value().filter(|v| a.is_active(*v));
    match cx.errors {
        Some(e) => Err(e),
        None => Ok(Gradient {
            reverse: cx.reverse,
            adjoints: cx.adjoints,
            seed,
        }),
    }
}

struct Cx<'f> {
    f: &'f Function,
    a: &'f Activity,
    /// Built in forward order, reversed at the end.
    reverse: Vec<AdjStmt>,
    adjoints: Vec<ValueId>,
    errors: Option<syn::Error>,
}

impl Cx<'_> {
    fn block(&mut self, block: &Block) {
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
                _ => {}
            }
        }
    }

    /// The reverse of a branch: per arm, the merges' adjoints flow into
    /// that arm's operands, then the arm's own entries run backwards. Only
    /// emitted when some merge or entry inside is active.
    fn branch(&mut self, br: &Branch) {
        let outer = std::mem::take(&mut self.reverse);
        let mut arms = Vec::new();
        for (i, arm) in br.arms.iter().enumerate() {
            self.block(arm);
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
            });
        }
    }

    fn target(&self, o: &Operand) -> Option<ValueId> {
        o.value().filter(|v| self.a.is_active(*v))
    }

    /// The reverse-sweep step of one active entry.
    fn entry(&mut self, dst: ValueId, op: &Op, span: proc_macro2::Span) -> Option<AdjStmt> {
        match op {
            Op::Copy(src) => Some(AdjStmt::Copy {
                dst,
                src: self.target(src)?,
                cast: None,
            }),
            Op::Cast(src, ty) => {
                let src_v = self.target(src)?;
                match (self.f.value(src_v).ty.float(), self.f.value(dst).ty.float()) {
                    (Some(from), Some(to)) => Some(AdjStmt::Copy {
                        dst,
                        src: src_v,
                        cast: (from != to).then_some(from),
                    }),
                    _ => {
                        self.error(syn::Error::new_spanned(
                            ty,
                            "#[grad] can only differentiate casts between `f32` and `f64`",
                        ));
                        None
                    }
                }
            }
            Op::Unary(op, a) => match rules::unary(*op) {
                Some(rule) => self.pullback(rule, dst, vec![a.clone()], span),
                None => {
                    self.error(syn::Error::new(
                        span,
                        "#[grad] cannot differentiate `!`: it is not a float operation",
                    ));
                    None
                }
            },
            Op::Binary(op, a, b) => match rules::binary(*op) {
                Some(rule) => self.pullback(rule, dst, vec![a.clone(), b.clone()], span),
                None => {
                    self.error(syn::Error::new(span, format!(
                        "#[grad] cannot differentiate the operator `{}`: it is not a float operation; use `+ - * / %` on floats",
                        op.symbol()
                    )));
                    None
                }
            },
            Op::Method { name, recv, args } => match rules::method(&name.to_string()) {
                Some(rule) => {
                    let all = std::iter::once(recv.clone())
                        .chain(args.iter().cloned())
                        .collect();
                    self.pullback(rule, dst, all, name.span())
                }
                None => {
                    self.error(syn::Error::new(name.span(), format!(
                        "#[grad] has no derivative rule for the method `{name}`: the float methods it differentiates are {}",
                        rules::method_names()
                    )));
                    None
                }
            },
            Op::Call { path, args } => {
                let last = path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                let segs = path.segments.len();
                let first = path
                    .segments
                    .first()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                let rule = if crate::lower::is_runtime_function(path) {
                    rules::function(&last)
                } else if segs == 2 && (first == "f64" || first == "f32") {
                    rules::method(&last)
                } else {
                    None
                };
                match rule {
                    Some(rule) => self.pullback(rule, dst, args.clone(), span),
                    None => {
                        let shown = quote::ToTokens::to_token_stream(path)
                            .to_string()
                            .replace(' ', "");
                        self.error(syn::Error::new_spanned(path, format!(
                            "#[grad] cannot differentiate the call to `{shown}`: it only differentiates float methods and its runtime functions (sigmoid, relu, softplus, log_sigmoid); inline the function's body here"
                        )));
                        None
                    }
                }
            }
            // Refused by activity analysis.
            Op::Opaque { .. } => None,
        }
    }

    fn pullback(
        &mut self,
        rule: &'static Rule,
        dst: ValueId,
        args: Vec<Operand>,
        span: proc_macro2::Span,
    ) -> Option<AdjStmt> {
        if args.len() != rule.args.len() {
            self.error(syn::Error::new(
                span,
                format!(
                    "`{}` takes {} argument(s) here, not {}",
                    rule.name,
                    rule.args.len(),
                    args.len()
                ),
            ));
            return None;
        }
        let targets = args
            .iter()
            .zip(rule.args)
            .filter(|(_, kind)| **kind == Arg::Float)
            .map(|(o, _)| self.target(o))
            .collect();
        Some(AdjStmt::Pullback {
            rule,
            dst,
            args,
            targets,
        })
    }

    fn error(&mut self, e: syn::Error) {
        combine(&mut self.errors, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::Options;

    fn grad(src: &str) -> Result<(Function, Gradient), syn::Error> {
        let f = crate::lower::lower_ok(&syn::parse_str(src).unwrap(), &Options::default())?;
        let a = crate::activity::analyse(&f)?;
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
    fn fan_out_gives_several_contributions() {
        let (f, g) = grad("fn f(x: f64, y: f64) -> f64 { x * x + x * y }").unwrap();
        let x = f.params[0].value;
        assert_eq!(g.accumulated().iter().filter(|v| **v == x).count(), 3);
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
    fn unknown_methods_and_calls_are_refused_together() {
        let err = grad("fn f(x: f64) -> f64 { x.frobnicate() + helper(x) }")
            .err()
            .unwrap();
        assert_eq!(err.into_iter().count(), 2);
    }

    #[test]
    fn unknown_code_off_the_path_is_fine() {
        assert!(grad("fn f(x: f64) -> f64 { let _s = x.frobnicate(); x }").is_ok());
    }

    #[test]
    fn parameters_the_output_ignores_still_get_a_gradient() {
        let (f, g) = grad("fn f(x: f64, y: f64) -> f64 { let _s = y.sin(); x * 2.0 }").unwrap();
        assert!(g.adjoints.contains(&f.params[1].value));
        assert!(!g.accumulated().contains(&f.params[1].value));
        let (f, g) = grad("fn f(x: f64) -> f64 { 1.0 }").unwrap();
        assert_eq!(g.adjoints, [f.params[0].value]);
        assert!(g.seed.is_none());
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

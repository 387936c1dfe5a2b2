//! Activity analysis: which values carry a derivative.
//!
//! A value is *varied* when it depends, through operations that can carry a
//! derivative, on an active parameter; it is *useful* when the returned
//! value depends on it. Only values that are both — *active* — get an
//! adjoint; everything else is inactive code that the forward sweep runs as
//! written and the reverse sweep never touches.
//!
//! Code kept as written (an opaque expression, a verbatim statement) has no
//! derivative rule. Where it is active, the derivative would be lost, so
//! this pass refuses it, once, at the place where active data enters it.

use crate::attr::combine;
use crate::ir::*;

/// The result of the analysis, indexed by [`ValueId`].
pub struct Activity {
    varied: Vec<bool>,
    useful: Vec<bool>,
}

impl Activity {
    pub fn is_active(&self, v: ValueId) -> bool {
        self.varied[v.0] && self.useful[v.0]
    }
}

/// Runs the analysis; errors where active data flows through code the
/// macro cannot differentiate.
pub fn analyse(f: &Function) -> Result<Activity, syn::Error> {
    let n = f.values.len();
    let mut varied = vec![false; n];
    for p in &f.params {
        varied[p.value.0] = p.active;
    }
    forward(&f.body, f, &mut varied);
    let mut useful = vec![false; n];
    if let Operand::Value(v) = f.ret {
        useful[v.0] = true;
    }
    backward(&f.body, f, &mut useful);
    let activity = Activity { varied, useful };
    let mut errors = None;
    check(&f.body, f, &activity, &mut errors);
    match errors {
        Some(e) => Err(e),
        None => Ok(activity),
    }
}

fn forward(block: &Block, f: &Function, varied: &mut [bool]) {
    for inst in &block.insts {
        match inst {
            Inst::Def { dst, op, .. } => {
                let carries = !matches!(f.value(*dst).ty, Ty::Int | Ty::Bool);
                varied[dst.0] = carries && op.operands().iter().any(|v| varied[v.0]);
            }
            Inst::Verbatim { defs, reads, .. } => {
                let any = reads.values().iter().any(|v| varied[v.0]);
                for d in defs {
                    varied[d.0] = any;
                }
            }
            Inst::Scope(b) => forward(b, f, varied),
        }
    }
}

fn backward(block: &Block, f: &Function, useful: &mut [bool]) {
    for inst in block.insts.iter().rev() {
        match inst {
            Inst::Def { dst, op, .. } => {
                // Integers and booleans have no derivative to pass back.
                let carries = !matches!(f.value(*dst).ty, Ty::Int | Ty::Bool);
                if useful[dst.0] && carries {
                    for v in op.operands() {
                        useful[v.0] = true;
                    }
                }
            }
            Inst::Verbatim { defs, reads, .. } => {
                if defs.iter().any(|d| useful[d.0]) {
                    for v in reads.values() {
                        useful[v.0] = true;
                    }
                }
            }
            Inst::Scope(b) => backward(b, f, useful),
        }
    }
}

/// Whether active data enters here from a modelled value (rather than
/// through an opaque variable, which is refused where it was made).
fn enters_from_model(reads: &Reads, f: &Function, a: &Activity) -> Option<String> {
    reads
        .0
        .iter()
        .find(|(_, v)| a.varied[v.0] && f.value(*v).kind != ValueKind::Opaque)
        .map(|(n, _)| n.clone())
}

fn check(block: &Block, f: &Function, a: &Activity, errors: &mut Option<syn::Error>) {
    for inst in &block.insts {
        match inst {
            Inst::Def {
                dst,
                op: Op::Opaque { expr, reads },
                ..
            } if a.is_active(*dst) => {
                if let Some(name) = enters_from_model(reads, f, a) {
                    combine(
                        errors,
                        syn::Error::new_spanned(expr, opaque_message(expr, &name)),
                    );
                }
            }
            Inst::Verbatim {
                defs,
                reads,
                tokens,
                kind,
            } if defs.iter().any(|d| a.is_active(*d)) => {
                if let Some(name) = enters_from_model(reads, f, a) {
                    let held: Vec<String> = defs
                        .iter()
                        .filter_map(|d| f.value(*d).name.as_ref())
                        .map(|n| format!("`{n}`"))
                        .collect();
                    let destructures = matches!(kind, VerbatimKind::Let(l) if syn::parse2::<syn::Ident>(l.pat.clone()).is_err());
                    let msg = if destructures {
                        format!(
                            "#[grad] cannot differentiate through this destructuring `let`: {} depend on `{name}` and reach the result; bind each value with a `let` of its own",
                            held.join(", ")
                        )
                    } else {
                        format!(
                            "#[grad] cannot differentiate through {}: it holds a value of a type #[grad] does not model, computed from `{name}`, and the result depends on it; keep active values in `f64`/`f32` variables",
                            held.join(", ")
                        )
                    };
                    combine(errors, syn::Error::new_spanned(tokens, msg));
                }
            }
            Inst::Scope(b) => check(b, f, a, errors),
            _ => {}
        }
    }
}

fn opaque_message(expr: &syn::Expr, name: &str) -> String {
    match expr {
        syn::Expr::Macro(m) => {
            let mac = m.mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            format!(
                "#[grad] cannot differentiate through the macro call `{mac}!`: its result depends on `{name}`; compute the value with supported operations instead of a macro"
            )
        }
        syn::Expr::Call(_) => format!(
            "#[grad] cannot differentiate this call: its result depends on `{name}`; call a supported primitive, or compute the value inline"
        ),
        _ => format!(
            "#[grad] cannot differentiate through this expression: its result depends on `{name}`, and #[grad] only follows derivatives through float arithmetic, float methods and its runtime functions; rewrite it with those"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::Options;

    fn analyse_src(src: &str) -> (Function, Result<Activity, syn::Error>) {
        let f = crate::lower::lower(&syn::parse_str(src).unwrap(), &Options::default()).unwrap();
        let a = analyse(&f);
        (f, a)
    }

    fn active_names(f: &Function, a: &Activity) -> Vec<String> {
        (0..f.values.len())
            .filter(|i| a.is_active(ValueId(*i)))
            .map(|i| f.values[i].name.clone().unwrap_or_else(|| format!("%{i}")))
            .collect()
    }

    #[test]
    fn values_off_the_path_to_the_output_are_inactive() {
        let (f, a) = analyse_src("fn f(x: f64, y: f64) -> f64 { let unused = y.sin(); let c = 3.0_f64.sqrt(); let out = x * c; out }");
        let a = a.unwrap();
        assert_eq!(active_names(&f, &a), ["x", "out"]);
    }

    #[test]
    fn comparisons_and_integer_casts_cut_the_derivative() {
        let (f, a) = analyse_src(
            "fn f(x: f64) -> f64 { let k = x as i64; let b = x > 0.0; (k as f64) * x }",
        );
        let a = a.unwrap();
        assert_eq!(active_names(&f, &a), ["x", "%4"]);
        let _ = f;
    }

    #[test]
    fn wrt_limits_the_active_inputs() {
        let item = syn::parse_str("fn f(x: f64, y: f64) -> f64 { x * y }").unwrap();
        let f = crate::lower::lower(
            &item,
            &Options {
                wrt: Some(vec![syn::parse_str("y").unwrap()]),
            },
        )
        .unwrap();
        let a = analyse(&f).unwrap();
        assert_eq!(active_names(&f, &a), ["y", "%2"]);
    }

    #[test]
    fn opaque_code_on_the_active_path_is_refused_once() {
        let (_, a) = analyse_src(
            "fn f(x: f64) -> f64 { let v = vec![x, 2.0]; let w = v.clone(); w[0] * x }",
        );
        let err = a.err().expect("refused");
        assert_eq!(err.into_iter().count(), 1);
    }

    #[test]
    fn opaque_code_off_the_active_path_is_accepted() {
        let (_, a) = analyse_src("fn f(x: f64) -> f64 { let v = vec![x, 2.0]; println!(\"{v:?}\"); let c = v.len() as f64; x * c }");
        assert!(a.is_ok(), "{}", a.err().unwrap());
    }
}

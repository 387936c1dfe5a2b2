//! Arguments whose derivative comes only through `as` casts of values
//! whose type the source does not state (`(p.n as f64) * k`, `p.n` a
//! field of a differentiated struct). Such a value may be an integer,
//! whose cast carries no derivative, or a float, whose cast does: only
//! rustc knows. Passed to a parameter its callee leaves constant, the
//! argument is checked in the forward sweep against each cast's source
//! (`runtime::call::through_cast`: an integer passes, a float is the
//! usual "carries a derivative" error at the argument), and the reverse
//! sweep scales it by the slot's partial or zero
//! (`runtime::call::scale_through_cast`).

use std::collections::HashMap;

use crate::analysis::activity::Activity;
use crate::ir::{Function, Inst, Op, Operand, Ty, ValueId};

/// For each argument of a call to another `#[grad]` function whose
/// derivative comes only through casts (sums, differences, products,
/// negations and copies of them, and values that carry no derivative):
/// the sources of those casts. Computed once per function; the emitters
/// look arguments up in it.
pub fn through_casts(f: &Function, a: &Activity) -> HashMap<ValueId, Vec<ValueId>> {
    let mut defs = HashMap::new();
    let mut arguments = Vec::new();
    f.body.walk(&mut |inst| {
        if let Inst::Def { dst, op, .. } = inst {
            defs.insert(*dst, op);
            arguments.extend(op.call_slots().into_iter().filter_map(|(o, _)| o.value()));
            // A call through the callee's `_vjp` (its result passed on
            // whole): its slots come in the reverse sweep, checked in the
            // forward one all the same (`emit/slots.rs`, `vjp_cast_check`).
            if let Op::VjpCall { args, mutated, .. } = op {
                if mutated.is_empty() {
                    arguments.extend(args.iter().filter_map(Operand::value));
                }
            }
        }
    });
    arguments
        .into_iter()
        .filter_map(|v| Some((v, cast_sources(f, a, &defs, v)?)))
        .collect()
}

/// The sources of the casts that `v`'s derivative comes through, when it
/// comes through nothing else; `None` otherwise, or when `v` is not
/// active.
fn cast_sources(
    f: &Function,
    a: &Activity,
    defs: &HashMap<ValueId, &Op>,
    v: ValueId,
) -> Option<Vec<ValueId>> {
    if !a.is_active(v) {
        return None;
    }
    let mut sources = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![v];
    while let Some(u) = todo.pop() {
        if !a.is_active(u) || !seen.insert(u) {
            continue;
        }
        match defs.get(&u)? {
            Op::Cast(Operand::Value(s), _) if f.value(*s).ty == Ty::Unknown => {
                if !sources.contains(s) {
                    sources.push(*s);
                }
            }
            Op::Copy(o) | Op::Unary(_, o) | Op::Cast(o, _) => todo.extend(o.value()),
            Op::Binary(_, l, r) => todo.extend(l.value().into_iter().chain(r.value())),
            _ => return None,
        }
    }
    (!sources.is_empty()).then_some(sources)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::Options;

    /// The cast sources of each call argument of `src`'s calls, in order.
    fn sources(src: &str) -> Vec<Option<Vec<String>>> {
        let opts: Options = crate::attr::parse("wrt(p, y)".parse().unwrap()).unwrap();
        let f = crate::lower::lower_ok(&syn::parse_str(src).unwrap(), &opts).unwrap();
        let a = crate::analysis::analyse(&f).unwrap();
        let casts = through_casts(&f, &a);
        let mut out = Vec::new();
        f.body.walk(&mut |inst| {
            if let Inst::Def {
                op: Op::Call { args, partials, .. },
                ..
            } = inst
            {
                if !partials.is_empty() {
                    out.extend(args.iter().map(|o| {
                        let s = casts.get(&o.value()?)?;
                        Some(s.iter().map(|s| format!("{:?}", f.value(*s).ty)).collect())
                    }));
                }
            }
        });
        out
    }

    #[test]
    fn only_casts_of_unstated_types() {
        let got = sources(
            "fn f(p: &P, y: f64) -> f64 { g(y, (p.n as f64) * 2.0 - 1.0, (p.n as f64) * y, p.a) }",
        );
        // `y` is a float; the second argument comes through a cast of a
        // field only; the third through `y` too; the fourth is no cast.
        assert_eq!(got, [None, Some(vec!["Unknown".to_string()]), None, None]);
    }
}

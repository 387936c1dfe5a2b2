//! A `match` whose arms jump, rewritten as an `if` is: each arm a branch
//! that gets the statements after the `match` unless it ends with a jump,
//! its pattern, its guard and the scrutinee kept as written, so the
//! scrutinee is evaluated once, and moved only where it was.

use super::{collect_names, Jumps};

/// `match` followed by `rest`, rewritten: the `match` that replaces both.
/// `None` where a jump stands in the scrutinee or a guard, where a pattern
/// binds a name that `rest` mentions, or where an arm cannot be rewritten.
pub(super) fn rewrite(
    m: &syn::ExprMatch,
    rest: &[syn::Stmt],
    mut jumps: Jumps,
) -> Option<syn::Stmt> {
    if jumps.hides(&m.expr)
        || m.arms
            .iter()
            .any(|a| a.guard.as_ref().is_some_and(|(_, g)| jumps.hides(g)))
    {
        return None;
    }
    // An arm's pattern that binds a name `rest` mentions (`Some(x) => s +=
    // x, None => break } s *= x;`) would hide the variable from `rest` in
    // that arm; and where `rest` goes into another arm, the lowering, which
    // passes an arm's bindings out of the `match` under their own names,
    // would hide it there too.
    if hides_a_name_of(m, rest) {
        return None;
    }
    let mut new = m.clone();
    for arm in &mut new.arms {
        *arm.body = crate::desugar::expr_of(jumps.branch(own(&arm.body), rest)?);
        arm.comma = None;
    }
    Some(syn::Stmt::Expr(syn::Expr::Match(new), None))
}

/// An arm's statements: a block's, or its expression (`3 => break,`).
fn own(body: &syn::Expr) -> Vec<syn::Stmt> {
    match body {
        syn::Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.stmts.clone(),
        e => vec![syn::Stmt::Expr(e.clone(), None)],
    }
}

/// Whether a pattern of `m` binds a name that `rest` mentions.
fn hides_a_name_of(m: &syn::ExprMatch, rest: &[syn::Stmt]) -> bool {
    let mut used = std::collections::HashSet::new();
    for s in rest {
        crate::desugar::internal::collect_idents(quote::ToTokens::to_token_stream(s), &mut used);
    }
    m.arms.iter().any(|arm| {
        let mut bound = Vec::new();
        collect_names(&arm.pat, &mut bound);
        bound.iter().any(|b| used.contains(b))
    })
}

#[cfg(test)]
mod tests {
    use crate::desugar::jumps::rewrite_jumps;
    use quote::ToTokens;

    /// The loop body `body` rewritten, as text, and whether it breaks.
    fn rewritten(body: syn::Block, returns: bool) -> Option<(String, bool)> {
        let flag: syn::Ident = syn::parse_quote!(__broke1);
        let ret: syn::Ident = syn::parse_quote!(__ret);
        let returned: syn::Ident = syn::parse_quote!(__returned);
        let mut breaks = false;
        let stmts = rewrite_jumps(
            &body.stmts,
            &mut breaks,
            returns.then_some((&ret, &returned)),
            &flag,
        )?;
        let block = syn::Block {
            brace_token: Default::default(),
            stmts,
        };
        Some((block.to_token_stream().to_string(), breaks))
    }

    fn text(b: syn::Block) -> String {
        b.to_token_stream().to_string()
    }

    #[test]
    fn arms_end_with_jumps_and_the_rest_goes_into_the_others() {
        let (got, breaks) = rewritten(
            syn::parse_quote!({
                match i % 3 {
                    0 => s += x,
                    1 => {
                        if s > 5.0 {
                            break;
                        }
                        s *= x;
                    }
                    _ => continue,
                }
                s -= 1.0;
            }),
            false,
        )
        .unwrap();
        assert!(breaks);
        let want = text(syn::parse_quote!({
            match i % 3 {
                0 => {
                    s += x;
                    s -= 1.0;
                }
                1 => {
                    if s > 5.0 {
                        __broke1 = true;
                    } else {
                        s *= x;
                        s -= 1.0;
                    }
                }
                _ => {}
            }
        }));
        assert_eq!(got, want);
    }

    #[test]
    fn guards_patterns_and_the_scrutinee_stay_as_written() {
        let (got, breaks) = rewritten(
            syn::parse_quote!({
                match state.next() {
                    State::Done => break,
                    State::Go(v) if v > 2.0 => return s,
                    State::Go(v) => s += v * x,
                }
            }),
            true,
        )
        .unwrap();
        assert!(breaks);
        let want = text(syn::parse_quote!({
            match state.next() {
                State::Done => {
                    __broke1 = true;
                }
                State::Go(v) if v > 2.0 => {
                    __ret = s;
                    __returned = true;
                    __broke1 = true;
                }
                State::Go(v) => {
                    s += v * x;
                }
            }
        }));
        assert_eq!(got, want);
    }

    #[test]
    fn if_let_is_its_match_and_a_match_nests_in_an_if() {
        let (got, _) = rewritten(
            syn::parse_quote!({
                if let Some(v) = o {
                    s += v;
                } else {
                    break;
                }
                if s > 1.0 {
                    match k {
                        0 => continue,
                        _ => {}
                    }
                }
                s *= x;
            }),
            false,
        )
        .unwrap();
        let want = text(syn::parse_quote!({
            match o {
                Some(v) => {
                    s += v;
                    if s > 1.0 {
                        match k {
                            0 => {}
                            _ => {
                                s *= x;
                            }
                        }
                    } else {
                        s *= x;
                    }
                }
                _ => {
                    __broke1 = true;
                }
            }
        }));
        assert_eq!(got, want);
    }

    #[test]
    fn a_panicking_arm_does_not_get_the_rest() {
        let (got, _) = rewritten(
            syn::parse_quote!({
                match k {
                    0 => break,
                    1 => unreachable!(),
                    _ => {}
                }
                s *= x;
            }),
            false,
        )
        .unwrap();
        let want = text(syn::parse_quote!({
            match k {
                0 => {
                    __broke1 = true;
                }
                1 => {
                    unreachable!();
                }
                _ => {
                    s *= x;
                }
            }
        }));
        assert_eq!(got, want);
    }

    #[test]
    fn a_match_whose_value_is_assigned_assigns_in_each_arm_that_does_not_jump() {
        let body = syn::parse_quote!({
            s = match k {
                0 => break,
                _ => s * x,
            };
        });
        let want = text(syn::parse_quote!({
            match k {
                0 => {
                    __broke1 = true;
                }
                _ => {
                    s = s * x;
                }
            }
        }));
        assert_eq!(rewritten(body, false), Some((want, true)));
    }

    #[test]
    fn jumps_elsewhere_are_refused() {
        for body in [
            syn::parse_quote!({
                match k {
                    0 if { break } => {}
                    _ => s *= x,
                }
            }),
            syn::parse_quote!({
                match k {
                    0 => break 'outer,
                    _ => s *= x,
                }
            }),
            // The arm's `x` would hide the parameter `s *= x` reads.
            syn::parse_quote!({
                match o {
                    Some(x) => s += x,
                    None => break,
                }
                s *= x;
            }),
            syn::parse_quote!({
                match o {
                    Some(x) => {
                        s += x;
                        continue;
                    }
                    None => {}
                }
                s *= x;
            }),
        ] {
            assert_eq!(rewritten(body, false), None);
        }
    }
}

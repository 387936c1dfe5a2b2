//! Unit tests of the differentiation passes.

use super::*;
use crate::attr::Options;

fn grad(src: &str) -> Result<(Function, Gradient), syn::Error> {
    let f = crate::lower::lower_ok(&syn::parse_str(src).unwrap(), &Options::default())?;
    let a = crate::analysis::analyse(&f)?;
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
            AdjStmt::Fields { .. } => "fields",
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
    let a = named(&f, "a");
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
    let p = named(&f, "p");
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
        grad("fn f(x: f64) -> f64 { let mut s = x; for _ in 0..3 { s = s.sin(); } s }").unwrap();
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

/// The value the source names `name`.
fn named(f: &Function, name: &str) -> ValueId {
    f.values
        .iter()
        .position(|v| v.name.as_deref() == Some(name))
        .map(ValueId)
        .unwrap_or_else(|| panic!("no value named {name}"))
}

/// The pushes of every loop of the reverse sweep, nested ones included.
fn all_pushes(g: &Gradient) -> Vec<ValueId> {
    flat(&g.reverse)
        .iter()
        .filter_map(|s| match s {
            AdjStmt::Loop { pushes, .. } => Some(pushes.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn a_closures_entries_in_a_loop_are_recomputed_like_the_bodys_own() {
    // The closure's body, with the element it is given, is inlined as a
    // scope in the loop's body: the load of `x` is as cheap to compute
    // again there as it is written out in the body.
    let inlined = "fn f(x: &[f64]) -> f64 { x.iter().map(|v| v * v).sum() }";
    let written = "fn f(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() { let v = x[i]; s += v * v; }
        s
    }";
    for src in [inlined, written] {
        let (_, g) = grad(src).unwrap();
        assert_eq!(all_pushes(&g), [], "{src}");
        let recomputed = flat(&g.reverse)
            .iter()
            .any(|s| matches!(s, AdjStmt::Loop { recompute, .. } if !recompute.is_empty()));
        assert!(recomputed, "{src}");
    }
}

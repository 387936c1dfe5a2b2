//! Unit tests of the lowering: small functions and the IR they give.

use super::*;
use crate::attr::Options;

fn lower_src(src: &str) -> Result<Function, syn::Error> {
    lower_ok(&syn::parse_str(src).unwrap(), &Options::default())
}

fn defs(f: &Function) -> Vec<String> {
    let mut out = Vec::new();
    f.body.walk(&mut |inst| {
        if let Inst::Def { dst, op, .. } = inst {
            let name = f
                .value(*dst)
                .name
                .clone()
                .unwrap_or_else(|| format!("%{}", dst.0));
            let kind = match op {
                Op::Copy(_) => "copy".to_string(),
                Op::Unary(o, _) => format!("{o:?}"),
                Op::Binary(o, ..) => o.symbol().to_string(),
                Op::Method { name, .. } => format!(".{name}"),
                Op::Call { path, .. } => path.to_token_stream().to_string(),
                Op::Cast(..) => "as".to_string(),
                Op::Opaque { .. } => "opaque".to_string(),
                Op::Load { .. } => "load".to_string(),
                Op::Project { .. } => "project".to_string(),
                Op::VjpCall { path, .. } => path.to_token_stream().to_string(),
                Op::NewArray(_) => "array".to_string(),
                Op::Kernel { kernel, .. } => kernel.name.to_string(),
                Op::GradMethod { name, .. } => format!(".{name}_grad"),
                Op::Construct { .. } => "construct".to_string(),
                Op::Field { .. } => "field".to_string(),
            };
            out.push(format!("{name}={kind}"));
        }
    });
    out
}

#[test]
fn straight_line_becomes_one_entry_per_operation() {
    let f =
        lower_src("fn f(x1: f64, x2: f64) -> f64 { (x1 - x2).powi(2) + (x1 + x2).cos() }").unwrap();
    let unnamed = |d: &str| d.split_once('=').unwrap().1.to_string();
    assert_eq!(
        defs(&f).iter().map(|d| unnamed(d)).collect::<Vec<_>>(),
        ["-", ".powi", "+", ".cos", "+"]
    );
    assert_eq!(f.params.len(), 2);
    assert!(f.params.iter().all(|p| p.active));
}

#[test]
fn shadowing_and_reassignment_make_new_values() {
    let f =
        lower_src("fn f(x: f64) -> f64 { let mut s = x * 2.0; s += x; let s = s * s; s }").unwrap();
    assert_eq!(defs(&f), ["s=*", "s=+", "s=*"]);
    let named: Vec<ValueId> = f
        .values
        .iter()
        .enumerate()
        .filter(|(_, v)| v.name.as_deref() == Some("s"))
        .map(|(i, _)| ValueId(i))
        .collect();
    assert_eq!(named.len(), 3, "three distinct values named s");
    assert!(matches!(f.ret, Operand::Value(v) if v == named[2]));
}

#[test]
fn literals_and_constants_stay_inline() {
    let f =
        lower_src("fn f(x: f64) -> f64 { let c = 2.0_f64; x * c + std::f64::consts::PI }").unwrap();
    assert_eq!(
        defs(&f),
        ["c=copy", "%3=*", "%4=+"].map(|s| s
            .replace("%3", &format!("%{}", 2))
            .replace("%4", &format!("%{}", 3)))
    );
}

#[test]
fn casts_and_integers_are_typed() {
    let f = lower_src("fn f(x: f64, n: i32) -> f64 { let k = n * 2; x * k as f64 }").unwrap();
    let k = f
        .values
        .iter()
        .find(|v| v.name.as_deref() == Some("k"))
        .unwrap();
    assert_eq!(k.ty, Ty::Int);
    assert!(!f.params[1].active);
}

#[test]
fn unmodelled_lets_are_verbatim() {
    let f = lower_src("fn f(x: f64) -> f64 { let v = vec![\"a\", \"b\"]; x * v.len() as f64 }")
        .unwrap();
    assert!(matches!(f.body.insts[0], Inst::Verbatim { ref defs, .. } if defs.len() == 1));
}

#[test]
fn float_arrays_are_modelled() {
    let f =
        lower_src("fn f(x: &[f64]) -> f64 { let mut z = vec![0.0; 2]; z[1] = x[0]; z[1] * 2.0 }")
            .unwrap();
    assert!(matches!(
        f.value(f.params[0].value).ty,
        Ty::Array(ArrayTy {
            shape: Shape::Vec,
            ..
        })
    ));
    let kinds: Vec<&str> = f
        .body
        .insts
        .iter()
        .map(|i| match i {
            Inst::Def {
                op: Op::NewArray(_),
                ..
            } => "new",
            Inst::Def {
                op: Op::Load { .. },
                ..
            } => "load",
            Inst::Store { .. } => "store",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["new", "load", "store", "load", "other"]);
}

#[test]
fn every_error_is_reported() {
    let err = lower_src("fn f(x: f64) -> f64 { let s = 0.0; let a = { return 1.0; }; let b = (|| s += 1.0)(); let c = &mut s; x }").unwrap_err();
    assert_eq!(err.into_iter().count(), 3);
}

#[test]
fn loops_and_closures_off_the_active_path_are_kept_as_written() {
    let f = lower_src("fn f(x: f64, n: usize) -> f64 { let k = if n > 2 { 1.0 } else { 2.0 }; let w: Vec<f64> = (0..n).map(|i| i as f64).collect(); for i in 0..n { println!(\"{i}\"); } x * k }").unwrap();
    let verbatim = f
        .body
        .insts
        .iter()
        .filter(|i| matches!(i, Inst::Verbatim { .. }))
        .count();
    // The vector is a value whose type rustc decides (a method chain
    // the macro names but does not differentiate); the loop is kept as
    // written.
    assert_eq!(verbatim, 1, "the loop");
    assert!(
        matches!(f.body.insts[1], Inst::Branch(_)),
        "the `if` is a branch"
    );
}

#[test]
fn branches_merge_what_their_arms_assign() {
    let f = lower_src("fn f(x: f64) -> f64 { let mut s = x; let t; if x > 0.0 { s = s * 2.0; t = 1.0; } else { t = 2.0; } s + t }").unwrap();
    let Inst::Branch(br) = &f.body.insts[2] else {
        panic!("a branch")
    };
    let merged: Vec<&str> = br
        .merges
        .iter()
        .map(|m| f.value(m.dst).name.as_deref().unwrap())
        .collect();
    assert_eq!(merged, ["s", "t"]);
    let Inst::Def { dst: s_before, .. } = &f.body.insts[0] else {
        panic!("s = x")
    };
    assert!(
        matches!(br.merges[0].arms[1], Operand::Value(v) if v == *s_before),
        "s is unchanged on the else arm"
    );
}

#[test]
fn guard_clauses_take_the_rest_as_else() {
    let f =
        lower_src("fn f(x: f64) -> f64 { if x < 0.0 { return -x; } let y = x * 2.0; y }").unwrap();
    let Inst::Branch(br) = &f.body.insts[1] else {
        panic!("a branch")
    };
    assert_eq!(br.arms.len(), 2);
    assert!(matches!(f.ret, Operand::Value(v) if v == br.merges[0].dst));
}

#[test]
fn wrt_must_name_float_parameters() {
    let item = syn::parse_str("fn f(x: f64, n: i32) -> f64 { x }").unwrap();
    let options = Options {
        wrt: Some(vec![
            syn::parse_str("n").unwrap(),
            syn::parse_str("z").unwrap(),
        ]),
        ..Options::default()
    };
    assert_eq!(
        lower_ok(&item, &options).unwrap_err().into_iter().count(),
        2
    );
}

#[test]
fn format_captures_are_reads() {
    assert_eq!(format_captures("\"x = {x} {{y}} {z:.3} {0}\""), ["x", "z"]);
}

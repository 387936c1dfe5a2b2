//! Activity analysis: which values carry a derivative.
//!
//! A value is *varied* when it depends, through operations that can carry a
//! derivative, on an active parameter; it is *useful* when the returned
//! value depends on it. Only values that are both — *active* — get an
//! adjoint; everything else is inactive code that the forward sweep runs as
//! written and the reverse sweep never touches.
//!
//! What refuses code kept as written where it is active is
//! `analysis/refusals/`; what escapes to the caller, `analysis/escapes.rs`;
//! `analysis/mod.rs` runs the three.

use crate::ir::*;

/// The result of the analysis, indexed by [`ValueId`].
pub struct Activity {
    varied: Vec<bool>,
    useful: Vec<bool>,
    /// Calls of methods and functions kept as written (their value carries
    /// no derivative) lent a struct the function takes by `&` and given
    /// values that carry a derivative: let through only where the callee
    /// has #[grad] (`analysis/escapes.rs`).
    lent: std::collections::HashSet<ValueId>,
    /// The indices of `Function::lent_calls` checked to have #[grad].
    lent_calls: Vec<usize>,
    /// Per expression kept as written, its calls checked to have #[grad].
    opaque_checks: std::collections::HashMap<ValueId, Vec<LentCheck>>,
}

impl Activity {
    pub fn is_active(&self, v: ValueId) -> bool {
        self.varied[v.0] && self.useful[v.0]
    }

    /// Whether `v` depends on an active input, whether or not it reaches
    /// the output.
    pub fn is_varied(&self, v: ValueId) -> bool {
        self.varied[v.0]
    }

    /// The calls of `Function::lent_calls` given values that carry a
    /// derivative: their methods must have #[grad] (`analysis/escapes.rs`).
    pub fn checked_lent_calls(&self) -> &[usize] {
        &self.lent_calls
    }

    /// The calls inside the expression kept as written defining `v` whose
    /// callees must have #[grad] (`analysis/escapes.rs`).
    pub fn opaque_checks(&self, v: ValueId) -> &[LentCheck] {
        self.opaque_checks.get(&v).map_or(&[], Vec::as_slice)
    }

    /// Whether `v` is the value of a call kept as written whose callee
    /// must have #[grad] (`analysis/escapes.rs`).
    pub fn lent_to_grad_callee(&self, v: ValueId) -> bool {
        self.lent.contains(&v)
    }

    /// The analysis with what `analysis/escapes.rs` lets through where the
    /// callee has #[grad].
    pub fn with_escapes(mut self, escapes: Escapes) -> Self {
        self.lent = escapes.proofs.into_iter().collect();
        self.lent_calls = escapes.lent_calls;
        self.opaque_checks = escapes.opaque_checks;
        self
    }
}

/// What `analysis/escapes.rs` lets through where the callee has #[grad],
/// which the generated code checks.
#[derive(Default)]
pub struct Escapes {
    /// Calls kept as written (`Op::GradMethod`, `Op::Call`) lent a shared
    /// parameter, by value.
    pub proofs: Vec<ValueId>,
    /// The indices of `Function::lent_calls` given values that carry a
    /// derivative.
    pub lent_calls: Vec<usize>,
    /// Per expression kept as written, its calls lent a shared parameter.
    pub opaque_checks: std::collections::HashMap<ValueId, Vec<LentCheck>>,
}

/// A call inside an expression kept as written (`while k < 3 && P::m(p,
/// a) < 0.8`) lent a struct the function takes by `&` and given values
/// that carry a derivative: the generated code checks, where the
/// expression is, that its callee has #[grad] (`emit/slots.rs`).
#[derive(Clone, Debug)]
pub enum LentCheck {
    /// `path(args..)`.
    Call {
        path: syn::Path,
        args: Vec<syn::Expr>,
    },
    /// `recv.method(args..)`.
    Method {
        recv: syn::Expr,
        method: syn::Ident,
        args: Vec<syn::Expr>,
    },
}

/// Which values are varied and which useful; what `analysis/escapes.rs`
/// lets through is added by [`Activity::with_escapes`].
pub fn dependences(f: &Function) -> Activity {
    let n = f.values.len();
    let varied = varied_from(f, |_| true);
    let mut useful = vec![false; n];
    // The outputs: the returned float, a tuple's elements, or the
    // returned array.
    for v in f.outputs() {
        useful[v.0] = true;
    }
    loop {
        let before = useful.iter().filter(|u| **u).count();
        backward(&f.body, f, &mut useful);
        if useful.iter().filter(|u| **u).count() == before {
            break;
        }
    }
    Activity {
        varied,
        useful,
        lent: Default::default(),
        lent_calls: Vec::new(),
        opaque_checks: Default::default(),
    }
}

/// The names of `Vec`s kept as written whose elements are integers or
/// `bool`s by what fills them: one push of an integer or `bool` literal
/// (`v.push(0)`, `v.push(false)`), of a comparison or a logical operation
/// (`v.push(i == 0)`, `!on`), of a cast to an integer type, or of integer
/// arithmetic of those and of the integer variables the statement reads
/// (`v.push(i * 2)`, `i` a range loop's index), or a `vec![..]` of one
/// (`vec![0; n]`, `vec![true, false]`). Rust gives a `Vec` one element
/// type, and none of these is a float, so such a `Vec` holds no
/// derivative, whatever is stored into it later (a `Vec` of structs'
/// integer field written back after a writer, `ps_n[k] = t.n;`,
/// `desugar/struct_vecs.rs`).
fn integer_vecs(f: &Function) -> std::collections::HashSet<String> {
    /// Whether `e` is an integer or a `bool`, `int` saying which names
    /// hold one.
    fn never_float(e: &syn::Expr, int: &dyn Fn(&syn::Ident) -> bool) -> bool {
        use syn::BinOp as B;
        match e {
            syn::Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => !matches!(i.suffix(), "f32" | "f64"),
                syn::Lit::Bool(_) => true,
                _ => false,
            },
            syn::Expr::Path(p) => p.path.get_ident().is_some_and(int),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => never_float(&u.expr, int),
            // A float has no `!`.
            syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Not(_)),
            syn::Expr::Binary(b) => match b.op {
                B::Eq(_)
                | B::Ne(_)
                | B::Lt(_)
                | B::Le(_)
                | B::Gt(_)
                | B::Ge(_)
                | B::And(_)
                | B::Or(_) => true,
                _ => never_float(&b.left, int) && never_float(&b.right, int),
            },
            syn::Expr::Cast(c) => crate::ir::is_int_type(&c.ty),
            syn::Expr::MethodCall(m) => m.method == "len" && m.args.is_empty(),
            syn::Expr::Paren(p) => never_float(&p.expr, int),
            _ => false,
        }
    }
    fn listed(e: &syn::Expr, int: &dyn Fn(&syn::Ident) -> bool) -> bool {
        let syn::Expr::Macro(m) = e else {
            return false;
        };
        if !m.mac.path.is_ident("vec") {
            return false;
        }
        let first = m.mac.parse_body_with(|input: syn::parse::ParseStream| {
            let e: syn::Expr = input.parse()?;
            let _: proc_macro2::TokenStream = input.parse()?;
            Ok(e)
        });
        first.is_ok_and(|e| never_float(&e, int))
    }
    let mut out = std::collections::HashSet::new();
    f.body.walk(&mut |inst| {
        let Inst::Verbatim {
            tokens,
            kind,
            reads,
            ..
        } = inst
        else {
            return;
        };
        let int = |name: &syn::Ident| {
            reads
                .0
                .iter()
                .any(|(n, v)| name == n && matches!(f.value(*v).ty, Ty::Int | Ty::Bool))
        };
        match kind {
            VerbatimKind::Let(l) if listed(&l.init, &int) => {
                if let Ok(syn::Pat::Ident(p)) =
                    syn::parse::Parser::parse2(syn::Pat::parse_single, l.pat.clone())
                {
                    out.insert(p.ident.to_string());
                }
            }
            VerbatimKind::Stmt => {
                if let Ok(syn::Stmt::Expr(syn::Expr::MethodCall(m), _)) =
                    syn::parse2::<syn::Stmt>(tokens.clone())
                {
                    let pushed =
                        m.method == "push" && m.args.len() == 1 && never_float(&m.args[0], &int);
                    if let (true, syn::Expr::Path(p)) = (pushed, &*m.receiver) {
                        if let Some(name) = p.path.get_ident() {
                            out.insert(name.to_string());
                        }
                    }
                }
            }
            _ => {}
        }
    });
    out
}

/// Which values depend on the active parameters `counted` keeps.
fn varied_from(f: &Function, counted: impl Fn(&Param) -> bool) -> Vec<bool> {
    let integers = integer_vecs(f);
    let mut varied = vec![false; f.values.len()];
    // What an integer `Vec` holds never carries a derivative.
    let holds: Vec<bool> = f
        .values
        .iter()
        .map(|v| !v.name.as_ref().is_some_and(|n| integers.contains(n)))
        .collect();
    for p in &f.params {
        varied[p.value.0] = p.active && counted(p);
    }
    // Arrays are memory, not SSA values: a store makes the whole array
    // varied, also for loads written before it, so both passes run to a
    // fixed point.
    loop {
        let before = varied.iter().filter(|v| **v).count();
        forward(&f.body, f, &mut varied, &holds);
        if varied.iter().filter(|v| **v).count() == before {
            break;
        }
    }
    varied
}

/// Which values depend on the active parameters other than `param`: what
/// a call is given from elsewhere than the struct it is lent
/// (`analysis/escapes.rs`).
pub fn varied_without(f: &Function, param: &str) -> Vec<bool> {
    varied_from(f, |p| p.ident != param)
}

fn forward(block: &Block, f: &Function, varied: &mut [bool], holds: &[bool]) {
    for inst in &block.insts {
        match inst {
            // Each value is defined once, so "varied" only ever turns on.
            // Assigning instead of or-ing here reset an array, at its
            // definition, to what its initial value makes it, on every
            // pass: a load that comes before the store that makes the array
            // varied (in a loop: reading last iteration's value) stayed
            // constant, and its derivative was dropped.
            Inst::Def { dst, op, .. } => {
                let carries = !matches!(f.value(*dst).ty, Ty::Int | Ty::Bool);
                // An index does not make what it reads varied
                // (`v7[p.n % 3]` of a constant array `v7`).
                varied[dst.0] |= carries && op.derivative_operands().iter().any(|v| varied[v.0]);
            }
            Inst::Verbatim { defs, reads, .. } => {
                let any = reads.values().iter().any(|v| varied[v.0]);
                for d in defs {
                    varied[d.0] |= any && holds[d.0];
                }
            }
            Inst::Scope(b) => forward(b, f, varied, holds),
            Inst::Store { array, value, .. } | Inst::Push { array, value, .. } => {
                if value.value().is_some_and(|v| varied[v.0]) {
                    varied[array.0] = true;
                }
            }
            Inst::Loop(l) => {
                // A fixed point: what the body makes varied flows back into
                // the headers of the next iteration.
                // An integer or `bool` carried (a struct's counter field
                // read back from a call) carries no derivative.
                let carries = |c: &Carried| !matches!(f.value(c.header).ty, Ty::Int | Ty::Bool);
                loop {
                    let mut changed = false;
                    for c in &l.carried {
                        let v = c.init.value().is_some_and(|v| varied[v.0])
                            || c.next.value().is_some_and(|v| varied[v.0]);
                        if v && carries(c) && !varied[c.header.0] {
                            varied[c.header.0] = true;
                            changed = true;
                        }
                    }
                    if let LoopKind::While { cond_block, .. } = &l.kind {
                        forward(cond_block, f, varied, holds);
                    }
                    forward(&l.body, f, varied, holds);
                    for c in &l.carried {
                        let v = c.next.value().is_some_and(|v| varied[v.0]);
                        if v && carries(c) && !varied[c.header.0] {
                            varied[c.header.0] = true;
                            changed = true;
                        }
                    }
                    // A variable kept as written, read in the body as it
                    // was before the loop, is what the iteration before
                    // left in it (`Loop::opaque_carried`).
                    for (before, last) in &l.opaque_carried {
                        if varied[last.0] && !varied[before.0] {
                            varied[before.0] = true;
                            changed = true;
                        }
                    }
                    if !changed {
                        break;
                    }
                }
                for c in &l.carried {
                    varied[c.out.0] = varied[c.header.0];
                }
            }
            Inst::Branch(br) => {
                for arm in &br.arms {
                    forward(arm, f, varied, holds);
                }
                for m in &br.merges {
                    let carries = !matches!(f.value(m.dst).ty, Ty::Int | Ty::Bool);
                    varied[m.dst.0] |= carries
                        && m.arms
                            .iter()
                            .filter_map(Operand::value)
                            .any(|v| varied[v.0]);
                }
            }
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
                    for v in op.derivative_operands() {
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
            Inst::Store { array, value, .. } | Inst::Push { array, value, .. } => {
                if useful[array.0] {
                    if let Some(v) = value.value() {
                        useful[v.0] = true;
                    }
                }
            }
            Inst::Loop(l) => {
                for c in &l.carried {
                    useful[c.header.0] |= useful[c.out.0];
                }
                // A fixed point: a header used in the body makes the value
                // the previous iteration left in it useful.
                loop {
                    let before = useful.iter().filter(|u| **u).count();
                    for c in &l.carried {
                        if useful[c.header.0] {
                            for v in [&c.init, &c.next].into_iter().filter_map(Operand::value) {
                                useful[v.0] = true;
                            }
                        }
                    }
                    for (first, last) in &l.opaque_carried {
                        useful[last.0] |= useful[first.0];
                    }
                    backward(&l.body, f, useful);
                    if let LoopKind::While { cond_block, .. } = &l.kind {
                        backward(cond_block, f, useful);
                    }
                    if useful.iter().filter(|u| **u).count() == before {
                        break;
                    }
                }
            }
            Inst::Branch(br) => {
                for m in &br.merges {
                    let carries = !matches!(f.value(m.dst).ty, Ty::Int | Ty::Bool);
                    if useful[m.dst.0] && carries {
                        for v in m.arms.iter().filter_map(Operand::value) {
                            useful[v.0] = true;
                        }
                    }
                }
                for arm in &br.arms {
                    backward(arm, f, useful);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyse;
    use crate::attr::Options;

    fn analyse_src(src: &str) -> (Function, Result<Activity, syn::Error>) {
        let f = crate::lower::lower_ok(&syn::parse_str(src).unwrap(), &Options::default()).unwrap();
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
        let f = crate::lower::lower_ok(
            &item,
            &Options {
                wrt: Some(vec![syn::parse_str("y").unwrap()]),
                ..Options::default()
            },
        )
        .unwrap();
        let a = analyse(&f).unwrap();
        assert_eq!(active_names(&f, &a), ["y", "%2"]);
    }

    #[test]
    fn opaque_code_on_the_active_path_is_refused_once() {
        let (_, a) = analyse_src(
            "fn f(x: f64) -> f64 { let v = vec![x, 2.0]; let w = v.iter().map(|e| e * 2.0).collect::<std::collections::VecDeque<f64>>(); w[0] * x }",
        );
        let err = a.err().expect("refused");
        assert_eq!(err.into_iter().count(), 1);
    }

    #[test]
    fn a_value_kept_as_written_that_a_loop_carries_into_its_next_iteration_is_refused() {
        // `p` is read at the top of each iteration as what the iteration
        // before left in it: made from `q`, it carries a derivative.
        let (_, a) = analyse_src(
            "fn f(q: f64) -> f64 { let mut p = [[1.0, 0.0], [0.0, 1.0]]; let mut out = 0.0; for _ in 0..2 { let a = p[0][0] + q; p = [[a * q, 0.0], [0.0, 1.0]]; out += a; } out }",
        );
        assert!(a.is_err(), "the dependence through `p` was dropped");
        // Changed from constants only, it is a constant in every iteration.
        let (_, a) = analyse_src(
            "fn f(q: f64) -> f64 { let mut p = [[1.0, 0.0], [0.0, 1.0]]; let mut out = 0.0; for k in 0..2 { let a = p[0][0] + q; p = [[k as f64, 0.0], [0.0, 1.0]]; out += a; } out }",
        );
        assert!(a.is_ok(), "{}", a.err().unwrap());
    }

    #[test]
    fn opaque_code_off_the_active_path_is_accepted() {
        let (_, a) = analyse_src("fn f(x: f64) -> f64 { let v = vec![x, 2.0]; println!(\"{v:?}\"); let c = v.len() as f64; x * c }");
        assert!(a.is_ok(), "{}", a.err().unwrap());
    }
}

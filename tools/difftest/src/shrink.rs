//! The shrinker: from a failing program, candidates each one edit smaller
//! (a statement deleted, an `if` replaced by a branch, a loop inlined,
//! unrolled or run fewer times, a subexpression replaced by one of its
//! operands, a parameter or `1.0`, an unused parameter, constant or helper
//! dropped, one test point kept). Candidates that are ill-formed or leave
//! the documented subset ([`crate::check::validate`]) are dropped; the
//! rest are built and run together in one crate, a batch at a time, and
//! the smallest that still fails in the same class (and kind) is kept.
//! Repeats until no candidate fails: the result is 1-minimal for these
//! edits.

use crate::ast::*;
use crate::check::validate;
use crate::driver::{Class, Crate, Outcome};
use crate::render;
use std::collections::HashSet;

/// Candidates built per crate build.
const BATCH: usize = 48;

pub fn same_failure(a: &Outcome, b: &Outcome) -> bool {
    a.class == b.class
        && match a.class {
            Class::Wrong
            | Class::Refused
            | Class::GeneratedCodeError
            | Class::TraceWrong
            | Class::JvpWrong
            | Class::HessianWrong => a.kind == b.kind,
            _ => true,
        }
}

/// Shrinks `p`, which failed with `o`; returns the smallest program found
/// and its outcome.
pub fn shrink(c: &Crate, p: &Program, o: &Outcome, verbose: bool) -> (Program, Outcome) {
    let mut best = p.clone();
    let mut best_o = o.clone();
    let mut seen: HashSet<String> = HashSet::new();
    seen.insert(key(&best));
    let mut builds = 0;
    loop {
        let mut cands: Vec<Program> = candidates(&best, best_o.point)
            .into_iter()
            .filter(|q| seen.insert(key(q)))
            .collect();
        cands.sort_by_key(|q| q.size());
        let mut improved = false;
        for chunk in cands.chunks(BATCH) {
            builds += 1;
            let outs = c.evaluate(chunk);
            if let Some((q, qo)) = chunk
                .iter()
                .zip(outs)
                .filter(|(_, qo)| same_failure(o, qo))
                .min_by_key(|(q, _)| q.size())
            {
                best = q.clone();
                best_o = qo;
                improved = true;
                if verbose {
                    eprintln!(
                        "difftest: shrink build {builds}: {} nodes ({} candidates)",
                        best.size(),
                        cands.len()
                    );
                }
                break;
            }
        }
        if !improved {
            return (best, best_o);
        }
    }
}

fn key(p: &Program) -> String {
    let pts: Vec<String> = p.points.iter().map(|pt| format!("{pt:?}")).collect();
    format!("{}{}", render::user_code(p, ""), pts.join(";"))
}

/// Every program one edit away from `p` that is well-formed and smaller.
pub fn candidates(p: &Program, failing_point: usize) -> Vec<Program> {
    let mut out = Vec::new();
    let size = p.size();
    let mut push = |q: Program| {
        if q.size() < size && validate(&q).is_ok() {
            out.push(q);
        }
    };
    // Program-level edits.
    if p.points.len() > 1 {
        let mut q = p.clone();
        q.points = vec![p.points[failing_point.min(p.points.len() - 1)].clone()];
        push(q);
    }
    let main_text = render::func(&p.main, render::Mode::Plain);
    // The helper's and the methods' text.
    let helper_text: String = p
        .functions()
        .filter(|f| f.name != p.main.name)
        .map(|h| render::func(h, render::Mode::Plain))
        .collect();
    if let Some(h) = &p.helper {
        if !mentions(&main_text, &h.name) {
            let mut q = p.clone();
            q.helper = None;
            q.helper_owner = None;
            push(q);
        }
    }
    if let Some(st) = &p.step {
        if !mentions(&main_text, &st.name) {
            let mut q = p.clone();
            q.step = None;
            push(q);
        }
    }
    if let Some(w) = &p.writer {
        if !mentions(&main_text, &w.name) {
            let mut q = p.clone();
            q.writer = None;
            push(q);
        }
    }
    if let Some(g) = &p.fallible {
        if !mentions(&main_text, &g.name) {
            let mut q = p.clone();
            q.fallible = None;
            push(q);
        }
    }
    if let Some(h) = &p.struct_fn {
        if !mentions(&main_text, &h.name) {
            let mut q = p.clone();
            q.struct_fn = None;
            push(q);
        }
    }
    // A function of `passed_whole` no other calls.
    for (k, g) in p.wholes.iter().enumerate() {
        if !mentions(&main_text, &g.name) {
            let mut q = p.clone();
            q.wholes.remove(k);
            push(q);
        }
    }
    // `P1` and its functions where `f` calls none (`made_struct`).
    if p.made.is_some() && !mentions(&main_text, MADE_FN) {
        let mut q = p.clone();
        q.made = None;
        push(q);
    }
    if p.main.ret.fallible() {
        // `f` returning `f64` (valid only without a `?` left in it).
        let mut q = p.clone();
        q.main.ret = Ret::Float;
        push(q);
    }
    // A struct writer no other function calls (on a receiver, by its path
    // or as a free function).
    for (k, w) in p.struct_writers.iter().enumerate() {
        let (call, path, free) = (
            format!(".{}(", w.name),
            format!("::{}(", w.name),
            format!("{}(", w.name),
        );
        let called = p.functions().any(|f| {
            let text = render::func(f, render::Mode::Plain);
            f.name != w.name
                && (text.contains(&call)
                    || text.contains(&path)
                    || (!w.is_method() && mentions(&text, &w.name) && text.contains(&free)))
        });
        if !called {
            let mut q = p.clone();
            q.struct_writers.remove(k);
            push(q);
        }
    }
    // A method no other function calls (on a receiver or by its path).
    for (k, m) in p.methods.iter().enumerate() {
        let (call, path) = (format!(".{}(", m.name), format!("::{}(", m.name));
        let called = std::iter::once(&p.main)
            .chain(p.methods.iter())
            .chain(p.struct_writers.iter())
            .chain(p.struct_fn.iter())
            .any(|f| {
                let text = render::func(f, render::Mode::Plain);
                f.name != m.name && (text.contains(&call) || text.contains(&path))
            });
        if !called {
            let mut q = p.clone();
            q.methods.remove(k);
            push(q);
        }
    }
    for (k, (name, v)) in p.consts.iter().enumerate() {
        let mut q = p.clone();
        q.consts.remove(k);
        if mentions(&main_text, name) || mentions(&helper_text, name) {
            let v = *v;
            let name = name.clone();
            map_program_exprs(&mut q, &mut |e| {
                if *e == Expr::Const(name.clone()) {
                    *e = Expr::Lit(v, LitStyle::Plain);
                }
            });
        }
        push(q);
    }
    let n_float_params = p.main.params.iter().filter(|p| p.kind.width() > 0).count();
    let mut offset = 0;
    let mut int_pos = 0;
    for (k, prm) in p.main.params.iter().enumerate() {
        let width = prm.kind.width();
        let is_int = matches!(prm.kind, PKind::Int { .. });
        if !mentions(&main_text, &prm.name) && (width == 0 || n_float_params > 1) {
            let mut q = p.clone();
            q.main.params.remove(k);
            for pt in &mut q.points {
                if is_int {
                    pt.ints.remove(int_pos);
                } else {
                    pt.floats.drain(offset..offset + width);
                }
            }
            if !is_int {
                q.dir.drain(offset..offset + width);
            }
            push(q);
        }
        offset += width;
        if is_int {
            int_pos += 1;
        }
    }
    // Edits inside the bodies, site by site.
    for kind in KINDS {
        for target in 0.. {
            let mut q = p.clone();
            let mut ed = Ed {
                kind: *kind,
                target,
                count: 0,
                done: false,
                param: None,
            };
            ed.program(&mut q);
            if !ed.done {
                break;
            }
            push(q);
        }
    }
    out
}

/// Whether `text` uses the identifier `name`.
fn mentions(text: &str, name: &str) -> bool {
    let bytes = text.as_bytes();
    let is_id = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut start = 0;
    while let Some(pos) = text[start..].find(name) {
        let i = start + pos;
        let j = i + name.len();
        let before = i == 0 || !is_id(bytes[i - 1]);
        let after = j >= bytes.len() || !is_id(bytes[j]);
        // Not the function's own name in its signature.
        if before && after {
            let line_start = text[..i].rfind('\n').map_or(0, |k| k + 1);
            let line = &text[line_start..];
            let in_signature =
                line.starts_with("pub fn ") && text[line_start..i].find('(').is_some();
            if !in_signature {
                return true;
            }
        }
        start = j;
    }
    false
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    DelStmt,
    IfThen,
    IfElse,
    DropElse,
    Inline,
    Unroll,
    Trip,
    WhileCond,
    Deferred,
    DropCkpt,
    MatchArm(usize),
    DropArm,
    TupleLets,
    TupleBlock,
    Child(usize),
    Lit,
    Param,
    CondSide(usize),
    IndexZero,
}

const KINDS: &[Kind] = &[
    Kind::DelStmt,
    Kind::IfThen,
    Kind::IfElse,
    Kind::DropElse,
    Kind::Inline,
    Kind::Unroll,
    Kind::Trip,
    Kind::WhileCond,
    Kind::Deferred,
    Kind::DropCkpt,
    Kind::MatchArm(0),
    Kind::MatchArm(1),
    Kind::MatchArm(2),
    Kind::MatchArm(3),
    Kind::MatchArm(4),
    Kind::DropArm,
    Kind::TupleLets,
    Kind::TupleBlock,
    Kind::Child(0),
    Kind::Child(1),
    Kind::Child(2),
    Kind::Child(3),
    Kind::Lit,
    Kind::Param,
    Kind::CondSide(0),
    Kind::CondSide(1),
    Kind::IndexZero,
];

/// Applies edit `kind` at its `target`-th site.
struct Ed {
    kind: Kind,
    target: usize,
    count: usize,
    done: bool,
    /// The first scalar parameter of the function being walked.
    param: Option<String>,
}

impl Ed {
    /// Counts a site; true when it is the one to edit.
    fn site(&mut self) -> bool {
        if self.done {
            return false;
        }
        let hit = self.count == self.target;
        self.count += 1;
        hit
    }

    fn program(&mut self, p: &mut Program) {
        for f in p.functions_mut() {
            self.func(f);
        }
    }

    fn func(&mut self, f: &mut Func) {
        self.param = f
            .params
            .iter()
            .find(|p| p.kind == PKind::Scalar)
            .map(|p| p.name.clone());
        self.stmts(&mut f.body.stmts);
        self.expr(&mut f.body.tail);
    }

    fn stmts(&mut self, v: &mut Vec<Stmt>) {
        let mut i = 0;
        while i < v.len() {
            if self.done {
                return;
            }
            if self.list_edit(v, i) {
                self.done = true;
                return;
            }
            self.stmt(&mut v[i]);
            i += 1;
        }
    }

    fn list_edit(&mut self, v: &mut Vec<Stmt>, i: usize) -> bool {
        let kind = self.kind;
        match kind {
            Kind::DelStmt if self.site() => {
                v.remove(i);
                return true;
            }
            Kind::IfThen | Kind::IfElse | Kind::DropElse => {
                if let Stmt::If { then, els, .. } = &v[i] {
                    let branch = match self.kind {
                        Kind::IfThen => Some(then.clone()),
                        _ => els.clone(),
                    };
                    if let Some(b) = branch {
                        if self.site() {
                            if self.kind == Kind::DropElse {
                                if let Stmt::If { els, .. } = &mut v[i] {
                                    *els = None;
                                }
                            } else {
                                v.splice(i..=i, b);
                            }
                            return true;
                        }
                    }
                }
            }
            Kind::Inline => {
                if let Some(body) = inline_once(&v[i]) {
                    if self.site() {
                        v.splice(i..=i, body);
                        return true;
                    }
                }
            }
            Kind::Unroll => {
                if let Some(body) = unroll(&v[i]) {
                    if self.site() {
                        v.splice(i..=i, body);
                        return true;
                    }
                }
            }
            Kind::Trip => {
                let ok = match &v[i] {
                    Stmt::For { range, .. } => {
                        matches!(range.hi, IExpr::Lit(h) if h > 0)
                    }
                    Stmt::While { limit, .. } | Stmt::Loop { limit, .. } => *limit > 1,
                    _ => false,
                };
                if ok && self.site() {
                    match &mut v[i] {
                        Stmt::For { range, .. } => {
                            if let IExpr::Lit(h) = &mut range.hi {
                                *h -= 1;
                            }
                        }
                        Stmt::While { limit, .. } | Stmt::Loop { limit, .. } => *limit -= 1,
                        _ => {}
                    }
                    return true;
                }
            }
            Kind::WhileCond => {
                if let Stmt::While { cond: Some(_), .. } = &v[i] {
                    if self.site() {
                        if let Stmt::While { cond, .. } = &mut v[i] {
                            *cond = None;
                        }
                        return true;
                    }
                }
            }
            Kind::DropCkpt => {
                if let Stmt::For { ckpt: Some(_), .. } = &v[i] {
                    if self.site() {
                        if let Stmt::For { ckpt, .. } = &mut v[i] {
                            *ckpt = None;
                        }
                        return true;
                    }
                }
            }
            Kind::MatchArm(j) => {
                if let Stmt::Match { arms, default, .. } = &v[i] {
                    let arm = match arms.get(j) {
                        Some((_, b)) => b.clone(),
                        None if j == arms.len() => default.clone(),
                        None => return false,
                    };
                    if self.site() {
                        v.splice(i..=i, arm);
                        return true;
                    }
                }
            }
            Kind::DropArm => {
                if let Stmt::Match { arms, .. } = &v[i] {
                    for k in 0..arms.len() {
                        if self.site() {
                            if let Stmt::Match { arms, .. } = &mut v[i] {
                                arms.remove(k);
                            }
                            return true;
                        }
                    }
                }
            }
            Kind::TupleLets => {
                if let Stmt::LetTuple { names, init } = &v[i] {
                    if self.site() {
                        let arm = init.arms()[0].clone();
                        let mut lets = arm.stmts;
                        for (name, e) in names.iter().zip(arm.items) {
                            lets.push(Stmt::Let {
                                name: name.clone(),
                                mutable: false,
                                typed: false,
                                init: e,
                            });
                        }
                        v.splice(i..=i, lets);
                        return true;
                    }
                }
            }
            Kind::TupleBlock => {
                if let Stmt::LetTuple { init, .. } = &v[i] {
                    if !matches!(init, TupleInit::Block(_)) && self.site() {
                        if let Stmt::LetTuple { init, .. } = &mut v[i] {
                            *init = TupleInit::Block(init.arms()[0].clone());
                        }
                        return true;
                    }
                }
            }
            Kind::Deferred => {
                if let Stmt::Deferred { name, init, typed } = &v[i] {
                    if self.site() {
                        let e = match init {
                            DeferredInit::Direct(e) => e.clone(),
                            DeferredInit::Branch(_, a, _) => a.tail.clone(),
                        };
                        v[i] = Stmt::Let {
                            name: name.clone(),
                            mutable: false,
                            typed: *typed,
                            init: e,
                        };
                        return true;
                    }
                }
            }
            _ => {}
        }
        false
    }

    fn stmt(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Let { init, .. } => self.expr(init),
            Stmt::LetClosure { body, .. } => self.expr(body),
            Stmt::Deferred { init, .. } => match init {
                DeferredInit::Direct(e) => self.expr(e),
                DeferredInit::Branch(c, a, b) => {
                    self.cond(c);
                    self.block(a);
                    self.block(b);
                }
            },
            Stmt::Assign { value, .. } => self.expr(value),
            Stmt::LetArr { init, .. } => {
                if let ArrInit::List { items, .. } = init {
                    for e in items {
                        self.expr(e);
                    }
                }
            }
            Stmt::Store { idx, value, .. } => {
                self.index(idx);
                self.expr(value);
            }
            Stmt::ArrAssign { src, .. } => match src {
                ArrSrc::Move(_) | ArrSrc::Swap(_) | ArrSrc::Copy(_) => {}
                ArrSrc::Fill(e) => self.expr(e),
                ArrSrc::List { items, .. } => {
                    for e in items {
                        self.expr(e);
                    }
                }
                ArrSrc::Call(_, args) => {
                    for a in args {
                        if let Arg::F(e) = a {
                            self.expr(e);
                        }
                    }
                }
            },
            Stmt::LetVec { .. } => {}
            Stmt::Push { value, .. } => self.expr(value),
            Stmt::If { cond, then, els } => {
                self.cond(cond);
                self.stmts(then);
                if let Some(e) = els {
                    self.stmts(e);
                }
            }
            Stmt::Break | Stmt::Continue | Stmt::ReturnVoid | Stmt::ReturnErr(_) => {}
            Stmt::Return(e) => self.expr(e),
            Stmt::WriterCall { args, .. } => {
                for a in args {
                    if let Arg::F(e) = a {
                        self.expr(e);
                    }
                }
            }
            Stmt::Match { arms, default, .. } => {
                for (_, b) in arms {
                    self.stmts(b);
                }
                self.stmts(default);
            }
            Stmt::LetTuple { init, .. } => {
                if let TupleInit::If(c, ..) = init {
                    self.cond(c);
                }
                for a in init.arms_mut() {
                    self.stmts(&mut a.stmts);
                    for e in &mut a.items {
                        self.expr(e);
                    }
                }
            }
            Stmt::LetStruct { init, .. } => match init {
                StructInit::Lit(l) => {
                    for e in &mut l.floats {
                        self.expr(e);
                    }
                    if let Some((n, w)) = &mut l.grid {
                        self.index(n);
                        match w {
                            VecInit::List(items) => {
                                for e in items {
                                    self.expr(e);
                                }
                            }
                            VecInit::Fill(e, _) => self.expr(e),
                            VecInit::ToVec(_) | VecInit::Clone(_) | VecInit::Var(_) => {}
                        }
                    }
                }
                StructInit::Update(given, _) => {
                    for (_, e) in given {
                        self.expr(e);
                    }
                }
                StructInit::Move(_) | StructInit::Clone(_) => {}
            },
            Stmt::FieldAssign { value, .. } => self.expr(value),
            Stmt::StructStep { args, .. } => {
                for a in args {
                    if let Arg::F(e) = a {
                        self.expr(e);
                    }
                }
            }
            Stmt::For { body, .. } | Stmt::ForEach { body, .. } | Stmt::Loop { body, .. } => {
                self.stmts(body)
            }
            Stmt::While { cond, body, .. } => {
                if let Some(c) = cond {
                    self.cond(c);
                }
                self.stmts(body);
            }
            Stmt::LetCall { args, .. } => self.args(args),
            Stmt::LetLoop { body, exit, .. } => {
                self.stmts(body);
                self.expr(exit);
            }
            Stmt::BreakValue(e) | Stmt::BreakValueTo(_, e) => self.expr(e),
            Stmt::Labeled { body, .. } => self.stmt(body),
            Stmt::BreakTo(_) | Stmt::ContinueTo(_) => {}
            Stmt::EnumMatch { arms, .. } => {
                for a in arms {
                    self.stmts(&mut a.stmts);
                    if let Some(v) = &mut a.value {
                        self.expr(v);
                    }
                }
            }
            Stmt::WhileLet { body, .. } => self.stmts(body),
            Stmt::LetRef { .. } | Stmt::Replace { .. } | Stmt::VecFieldAssign { .. } => {}
            Stmt::StructWrite { args, .. } => self.args(args),
            Stmt::StructReplace { lit, .. } => {
                for e in &mut lit.floats {
                    self.expr(e);
                }
            }
        }
    }

    /// A call's arguments, and those of the calls nested in values passed
    /// on whole.
    fn args(&mut self, args: &mut [Arg]) {
        for a in args {
            match a {
                Arg::F(e) => self.expr(e),
                Arg::I(i) => self.index(i),
                Arg::W {
                    value: Whole::Call(_, inner),
                    ..
                } => self.args(inner),
                Arg::B(_) | Arg::A(_) | Arg::S(_) | Arg::W { .. } => {}
            }
        }
    }

    fn block(&mut self, b: &mut Block) {
        self.stmts(&mut b.stmts);
        self.expr(&mut b.tail);
    }

    fn index(&mut self, i: &mut IExpr) {
        if self.kind == Kind::IndexZero && !matches!(i, IExpr::Lit(_)) && self.site() {
            *i = IExpr::Lit(0);
            self.done = true;
        }
    }

    fn cond(&mut self, c: &mut Cond) {
        if self.done {
            return;
        }
        if let Kind::CondSide(j) = self.kind {
            if let Cond::And(a, b) | Cond::Or(a, b) = c {
                if self.site() {
                    *c = if j == 0 { (**a).clone() } else { (**b).clone() };
                    self.done = true;
                    return;
                }
            }
        }
        match c {
            Cond::F(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            Cond::I(..) | Cond::B(..) => {}
            Cond::And(a, b) | Cond::Or(a, b) => {
                self.cond(a);
                self.cond(b);
            }
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        if self.done {
            return;
        }
        let replacement = match self.kind {
            Kind::Child(j) => children(e).get(j).cloned(),
            Kind::Lit if !matches!(e, Expr::Lit(..)) => Some(Expr::Lit(1.0, LitStyle::Plain)),
            Kind::Param if !matches!(e, Expr::Var(_)) => self.param.clone().map(Expr::Var),
            _ => None,
        };
        if let Some(r) = replacement {
            if self.site() {
                *e = r;
                self.done = true;
                return;
            }
        }
        match e {
            Expr::Lit(..) | Expr::Var(_) | Expr::Const(_) | Expr::Sum(_) | Expr::Field(..) => {}
            Expr::IntCast(_) => {}
            Expr::Index(_, i) => self.index(i),
            Expr::Neg(a) | Expr::Un(_, a, _) | Expr::Ml(_, a) => self.expr(a),
            Expr::Bin(_, a, b) | Expr::Bi(_, a, b, _) => {
                self.expr(a);
                self.expr(b);
            }
            Expr::MulAdd(a, b, c) => {
                self.expr(a);
                self.expr(b);
                self.expr(c);
            }
            Expr::If(c, a, b) => {
                self.cond(c);
                self.block(a);
                self.block(b);
            }
            Expr::Match(_, arms, d) => {
                for (_, a) in arms {
                    self.expr(a);
                }
                self.expr(d);
            }
            Expr::Call(_, args)
            | Expr::Method(_, _, args, _)
            | Expr::Assoc(_, _, args)
            | Expr::ResultMethod { args, .. }
            | Expr::TryCall(_, args, _) => self.args(args),
            Expr::MapSum { body, .. } | Expr::ZipSum { body, .. } | Expr::CallClosure(_, body) => {
                self.expr(body)
            }
            Expr::Fold { init, body, .. } => {
                self.expr(init);
                self.expr(body);
            }
            Expr::Block(b) => self.block(b),
            Expr::RangeSum { body, .. } => self.expr(body),
            Expr::RangeFold { init, body, .. } => {
                self.expr(init);
                self.expr(body);
            }
        }
    }
}

/// The float operands an expression could be replaced by.
fn children(e: &Expr) -> Vec<Expr> {
    match e {
        Expr::Neg(a) | Expr::Un(_, a, _) | Expr::Ml(_, a) => vec![(**a).clone()],
        Expr::Bin(_, a, b) | Expr::Bi(_, a, b, _) => vec![(**a).clone(), (**b).clone()],
        Expr::MulAdd(a, b, c) => vec![(**a).clone(), (**b).clone(), (**c).clone()],
        Expr::If(_, a, b) => vec![a.tail.clone(), b.tail.clone()],
        Expr::Match(_, arms, d) => arms
            .iter()
            .map(|(_, a)| a.clone())
            .chain(std::iter::once((**d).clone()))
            .collect(),
        Expr::Call(_, args)
        | Expr::Method(_, _, args, _)
        | Expr::Assoc(_, _, args)
        | Expr::ResultMethod { args, .. }
        | Expr::TryCall(_, args, _) => args
            .iter()
            .filter_map(|a| match a {
                Arg::F(e) => Some(e.clone()),
                _ => None,
            })
            .collect(),
        Expr::Fold { init, .. } => vec![(**init).clone()],
        Expr::Block(b) => vec![b.tail.clone()],
        _ => vec![],
    }
}

/// The loop's body run once, its variables bound to their first values;
/// `None` when the body jumps out of the loop itself.
fn inline_once(s: &Stmt) -> Option<Vec<Stmt>> {
    match s {
        Stmt::For {
            var, range, body, ..
        } if !has_own_jump(body) => {
            let first = if range.rev {
                return None;
            } else {
                range.lo.clone()
            };
            Some(subst_int_stmts(body, var, &first))
        }
        Stmt::ForEach {
            idx,
            var,
            arr,
            body,
            filter: None,
            held: None,
        } if !has_own_jump(body) => Some(bind_element(idx, var, arr, body, 0)),
        Stmt::While { counter, body, .. } | Stmt::Loop { counter, body, .. }
            if !has_own_jump(body) =>
        {
            Some(subst_int_stmts(body, counter, &IExpr::Lit(1)))
        }
        _ => None,
    }
}

fn bind_element(idx: &Option<String>, var: &str, arr: &str, body: &[Stmt], k: u64) -> Vec<Stmt> {
    let mut out = vec![Stmt::Let {
        name: var.to_string(),
        mutable: false,
        typed: false,
        init: Expr::Index(arr.to_string(), IExpr::Lit(k)),
    }];
    let body = match idx {
        Some(i) => subst_int_stmts(body, i, &IExpr::Lit(k)),
        None => body.to_vec(),
    };
    out.extend(body);
    out
}

/// A range loop with literal bounds and at most 4 iterations, unrolled.
fn unroll(s: &Stmt) -> Option<Vec<Stmt>> {
    match s {
        Stmt::For {
            var, range, body, ..
        } if !has_own_jump(body) => {
            let (IExpr::Lit(lo), IExpr::Lit(hi)) = (&range.lo, &range.hi) else {
                return None;
            };
            let end = if range.inclusive { hi + 1 } else { *hi };
            let mut vals: Vec<u64> = (*lo..end.max(*lo))
                .step_by(range.step.unwrap_or(1) as usize)
                .collect();
            if range.rev {
                vals.reverse();
            }
            if vals.len() > 4 {
                return None;
            }
            Some(
                vals.iter()
                    .flat_map(|v| subst_int_stmts(body, var, &IExpr::Lit(*v)))
                    .collect(),
            )
        }
        _ => None,
    }
}

fn subst_int_stmts(body: &[Stmt], name: &str, by: &IExpr) -> Vec<Stmt> {
    let mut b = body.to_vec();
    for s in &mut b {
        map_stmt(s, &mut |_| {}, &mut |i| subst_int(i, name, by));
    }
    b
}

fn subst_int(i: &mut IExpr, name: &str, by: &IExpr) {
    match i {
        IExpr::Var(v) if v == name => *i = by.clone(),
        IExpr::Add(a, b) | IExpr::Mul(a, b) => {
            subst_int(a, name, by);
            subst_int(b, name, by);
        }
        IExpr::Rem(a, _) => subst_int(a, name, by),
        _ => {}
    }
}

fn map_program_exprs(p: &mut Program, f: &mut impl FnMut(&mut Expr)) {
    let mut noop = |_: &mut IExpr| {};
    for func in p.functions_mut() {
        map_block(&mut func.body, f, &mut noop);
    }
}

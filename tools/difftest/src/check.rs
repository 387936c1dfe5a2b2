//! Well-formedness of a program: names in scope, mutability, and the
//! placement rules of the README (`break`/`continue` at the end of an `if`
//! branch in a loop body, `return` in guard clauses and in loops at the top
//! level, arrays declared at the top level of the body or of a loop body).
//! The generator's output must pass; the shrinker keeps only candidates
//! that do, so a shrunk program is still inside the documented subset.

use crate::ast::*;
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq)]
enum K {
    F {
        mutable: bool,
    },
    I,
    A {
        writable: bool,
    },
    /// A closure bound by `let`.
    C,
    /// A `bool`.
    B,
    /// A struct parameter (or `self`) with this many float fields,
    /// differentiated or not.
    S(u64, bool),
    /// A constant struct of `Vec`s (`data0`).
    Data,
    /// The enum parameter (`enum_match`).
    E,
    /// An array (`vec` false) or a `Vec` of `len` floats a call returned,
    /// bound by `let` to be passed on whole (`passed_whole`).
    W {
        vec: bool,
        len: u64,
    },
    /// A reference to a float, `let r = &x;` (`float_ref`): read only as
    /// an operand of arithmetic or a float method's receiver.
    R,
    /// What `make` returned, `let p: P1 = make(..);` (`made_struct`).
    M,
    /// A local struct of the type `P0` (`struct_values`): its number of
    /// float fields, whether it has `n` and `w`, whether it is `mut`, and
    /// whether it is whole (no `w` moved out of it by `P0 { .., ..q }`).
    L {
        fields: u64,
        grid: bool,
        mutable: bool,
        whole: bool,
    },
    /// The struct a struct writer changes (`struct_writer`): `self` of a
    /// method taking `&mut self`, or its `sp: &mut P0`; its number of float
    /// fields and whether it has `n` and `w`.
    Lent {
        fields: u64,
        grid: bool,
    },
}

#[derive(Clone, Copy)]
struct Ctx {
    loops: usize,
    top: bool,
    loop_top: bool,
    loops_at_top: bool,
    in_helper: bool,
    /// Directly in the body of a `loop` whose value a `let` binds
    /// (`loop_value`): its jumps are `break e;`, not `break;`.
    value_loop: bool,
}

struct V<'a> {
    p: &'a Program,
    frames: Vec<HashMap<String, K>>,
    /// Arrays a `for` loop around iterates over: not writable there.
    frozen: Vec<String>,
    /// How many of the program's methods the function may call (a method
    /// those before it, the main function all).
    callable: usize,
    /// Local arrays: the number of loops around their declaration.
    depth: HashMap<String, usize>,
    /// The `Vec`s declared `Vec::new()`: the only arrays pushed to.
    pushable: Vec<String>,
    /// What the function being checked returns.
    ret: Ret,
    /// Number of closure bodies around (no `?` there).
    in_closure: usize,
    /// The labels of the loops around (`labels`).
    labels: Vec<String>,
    /// The labels of the value loops around (`loop_value`).
    value_labels: Vec<String>,
    /// The layout of the struct a function of `made_struct` builds or
    /// takes as `self` (`P1`), while it is checked; otherwise `P0`'s.
    made_layout: Option<(u64, Option<Grid>)>,
    /// The elements of the filtered loops around (`filter_names`): `&f64`s.
    filtered: Vec<String>,
    /// How many of the program's struct writers the function may call (a
    /// writer those before it, every other function all).
    sw_callable: usize,
    /// The local arrays of the function: whether each is a `Vec`, and its
    /// length (a `Vec` moved into a struct's `w` must be one of its
    /// grid's length).
    shapes: HashMap<String, (bool, u64)>,
}

pub fn validate(p: &Program) -> Result<(), String> {
    let mut v = V {
        p,
        frames: Vec::new(),
        frozen: Vec::new(),
        callable: 0,
        depth: HashMap::new(),
        pushable: Vec::new(),
        ret: Ret::Float,
        in_closure: 0,
        labels: Vec::new(),
        value_labels: Vec::new(),
        made_layout: None,
        filtered: Vec::new(),
        sw_callable: p.struct_writers.len(),
        shapes: HashMap::new(),
    };
    if let Some(h) = &p.helper {
        // Floats (at least one differentiated), integers and `bool`s, then
        // at most one slice, last.
        let rest = match h.params.split_last() {
            Some((l, rest)) if matches!(l.kind, PKind::Slice { .. }) => rest,
            _ => &h.params[..],
        };
        let plain = |k: &PKind| {
            matches!(
                k,
                PKind::Scalar | PKind::ConstScalar | PKind::Int { .. } | PKind::Bool
            )
        };
        if !rest.iter().all(|p| plain(&p.kind)) || !rest.iter().any(|p| p.kind == PKind::Scalar) {
            return Err("helper with a parameter other than floats, integers, bools and a last slice, or no float to differentiate".into());
        }
        v.func(h, true)?;
    }
    if !p.methods.is_empty()
        && !matches!(
            p.main.params.iter().find(|q| q.name == "p0"),
            Some(Param {
                kind: PKind::Struct { .. },
                ..
            })
        )
    {
        return Err("methods without the struct parameter `p0` of their type".into());
    }
    for (k, m) in p.methods.iter().enumerate() {
        let [recv, rest @ ..] = &m.params[..] else {
            return Err(format!("method `{}` without parameters", m.name));
        };
        let plain = |k: &PKind| matches!(k, PKind::Scalar | PKind::ConstScalar | PKind::Int { .. });
        if recv.kind != PKind::Receiver || !rest.iter().all(|p| plain(&p.kind)) {
            return Err(format!(
                "method `{}` other than `(&self, floats, integers)`",
                m.name
            ));
        }
        if p.methods[..k].iter().any(|o| o.name == m.name) {
            return Err(format!("two methods `{}`", m.name));
        }
        v.callable = k;
        v.func(m, true)?;
    }
    if let Some(st) = &p.step {
        // `step(s: &[f64], k: f64, ..) -> Vec<f64>`: a slice, then floats,
        // returning a local array.
        let ok = matches!(
            st.params.split_first(),
            Some((s, rest)) if matches!(s.kind, PKind::Slice { .. })
                && !rest.is_empty()
                && rest.iter().all(|q| q.kind == PKind::Scalar)
        );
        if !ok || st.ret_arr.is_none() {
            return Err("a step function other than `(&[f64], f64..) -> Vec<f64>`".into());
        }
        v.func(st, true)?;
    }
    if p.main.ret_arr.is_some() || p.helper.as_ref().is_some_and(|h| h.ret_arr.is_some()) {
        return Err("a function other than the step function returning an array".into());
    }
    if let Some(w) = &p.writer {
        // `w(a: &mut f64, b: &mut f64, .., k: f64, ..)`, returning nothing.
        let muts = w
            .params
            .iter()
            .take_while(|q| q.kind == PKind::MutScalar)
            .count();
        let rest = &w.params[muts..];
        if muts < 2
            || rest.is_empty()
            || !rest.iter().all(|q| q.kind == PKind::Scalar)
            || w.ret != Ret::Unit
            || w.ret_arr.is_some()
        {
            return Err(
                "a writer other than `(&mut f64, &mut f64.., f64..)` returning nothing".into(),
            );
        }
        v.func(w, true)?;
    }
    if let Some(g) = &p.fallible {
        let ok = g.params.iter().any(|q| q.kind == PKind::Scalar)
            && g.params
                .iter()
                .all(|q| matches!(q.kind, PKind::Scalar | PKind::Int { .. }))
            && g.ret.fallible()
            && g.ret_arr.is_none();
        if !ok {
            return Err("a fallible function other than `(f64.., usize..) -> Result<f64, String>` or `Option<f64>`".into());
        }
        v.func(g, true)?;
    }
    for g in &p.multis {
        // `g1(a: f64, ..) -> [f64; N]`, `g2(..) -> (f64, f64)`: floats.
        let ok = !g.params.is_empty()
            && g.params.iter().all(|q| q.kind == PKind::Scalar)
            && matches!(g.ret, Ret::Array(_) | Ret::Tuple(_));
        if !ok {
            return Err(format!(
                "`{}` other than `(f64..) -> [f64; N]` or `(f64, f64)`",
                g.name
            ));
        }
        v.func(g, true)?;
    }
    for g in &p.wholes {
        // Floats and arrays (`[f64; N]`, `&[f64; N]`, `&[f64]`), returning a
        // float, an array or a `Vec` (a local array); the array parameters
        // all of one length.
        let ok = g.params.iter().any(|q| q.kind == PKind::Scalar)
            && g.params
                .iter()
                .all(|q| matches!(q.kind, PKind::Scalar | PKind::Slice { .. }))
            && matches!(g.ret, Ret::Float | Ret::Array(_))
            && (g.ret_arr.is_none() || g.ret == Ret::Float)
            && (g.ret_arr.is_none() || slice_len(g).is_some());
        if !ok {
            return Err(format!(
                "`{}` other than `(f64.., arrays..) -> f64`, `[f64; N]` or `Vec<f64>`",
                g.name
            ));
        }
        if p.functions().filter(|f| f.name == g.name).count() != 1 {
            return Err(format!("two functions `{}`", g.name));
        }
        v.func(g, true)?;
    }
    if !p.struct_writers.is_empty() && p.main.struct_param().is_none() {
        return Err("struct writers without the struct parameter `p0` of their type".into());
    }
    for (k, w) in p.struct_writers.iter().enumerate() {
        // `drift(&mut self, f64.., usize..)` or `kick(sp: &mut P0, f64..,
        // usize..)`, returning nothing, each name once.
        let ok = match w.params.split_first() {
            Some((lent, rest)) => {
                matches!(lent.kind, PKind::MutReceiver | PKind::MutStruct)
                    && (lent.kind == PKind::MutStruct) == (lent.name != "self")
                    && rest
                        .iter()
                        .all(|q| matches!(q.kind, PKind::Scalar | PKind::Int { .. }))
            }
            None => false,
        };
        if !ok || w.ret != Ret::Unit || w.ret_arr.is_some() || w.ret_struct.is_some() {
            return Err(format!(
                "a struct writer `{}` other than `(&mut self | sp: &mut P0, f64.., usize..)` returning nothing",
                w.name
            ));
        }
        if p.functions().filter(|f| f.name == w.name).count() != 1 {
            return Err(format!("two functions `{}`", w.name));
        }
        v.callable = p.methods.len();
        v.sw_callable = k;
        v.func(w, true)?;
    }
    v.sw_callable = p.struct_writers.len();
    if let Some(h) = &p.struct_fn {
        // `hp0(hp: &P0, h0: f64, ..)`: a `P0` named in `wrt`, then floats.
        let ok = match h.params.split_first() {
            Some((s, rest)) => {
                s.name == STRUCT_FN_PARAM
                    && layout_of(&s.kind).is_some()
                    && layout_of(&s.kind) == p.main.struct_param().and_then(|q| layout_of(&q.kind))
                    && matches!(s.kind, PKind::Struct { fixed: None, .. })
                    && !rest.is_empty()
                    && rest.iter().all(|q| q.kind == PKind::Scalar)
            }
            None => false,
        };
        if !ok || h.ret != Ret::Float || h.ret_arr.is_some() || h.ret_struct.is_some() {
            return Err(format!(
                "a struct function other than `({STRUCT_FN_PARAM}: &P0, f64..) -> f64`"
            ));
        }
        v.func(h, true)?;
    }
    for f in p.functions() {
        let named = |o: &Option<Func>| o.as_ref().is_some_and(|g| g.name == f.name);
        if f.ret_struct.is_some() != matches!(f.ret, Ret::Struct | Ret::Made) {
            return Err(format!("`{}` returns a struct it does not build", f.name));
        }
        let ok = match f.ret {
            Ret::Struct => p.methods.iter().any(|m| m.name == f.name),
            Ret::Float => true,
            Ret::Unit => named(&p.writer) || p.struct_writers.iter().any(|w| w.name == f.name),
            Ret::Result | Ret::Option => named(&p.fallible) || f.name == p.main.name,
            Ret::Array(n) | Ret::Tuple(n) => {
                p.multis.iter().chain(&p.wholes).any(|g| g.name == f.name)
                    && f.ret_items.len() == n as usize
            }
            Ret::Made => p.made.as_ref().is_some_and(|m| m.make.name == f.name),
        };
        if !ok {
            return Err(format!("`{}` returns {:?}", f.name, f.ret));
        }
    }
    if let Some(m) = &p.made {
        v.made(m)?;
    }
    match (&p.helper_owner, &p.helper) {
        (None, _) => {}
        (Some(o), Some(_)) if o == UNIT_TY => {}
        (Some(o), Some(_))
            if p.main
                .struct_param()
                .is_some_and(|q| struct_ty(&q.name) == *o) => {}
        (Some(o), _) => {
            return Err(format!(
                "a helper in the `impl` of `{o}`, no type of the program"
            ))
        }
    }
    v.callable = p.methods.len();
    if p.main.params.iter().any(|q| {
        matches!(
            q.kind,
            PKind::ConstScalar
                | PKind::Bool
                | PKind::Receiver
                | PKind::MutReceiver
                | PKind::MutStruct
        )
    }) {
        return Err("the main function with a parameter that only callees take".into());
    }
    v.func(&p.main, false)?;
    let n = p.main.n_inputs();
    if p.dir.len() != n {
        return Err("direction of the wrong length".into());
    }
    if p.points.is_empty() {
        return Err("no test point".into());
    }
    for pt in &p.points {
        if pt.floats.len() != n || pt.ints.len() != p.main.n_ints() {
            return Err("test point of the wrong shape".into());
        }
    }
    Ok(())
}

impl V<'_> {
    /// The functions of `made_struct`: `make(f64..) -> P1` building a
    /// `P1`, and methods of `P1` taking `&self` alone, returning a float,
    /// each name once.
    fn made(&mut self, m: &Made) -> Result<(), String> {
        let make = &m.make;
        if make.name != MADE_FN
            || make.params.is_empty()
            || !make.params.iter().all(|q| q.kind == PKind::Scalar)
            || make.ret != Ret::Made
        {
            return Err(format!("a `{MADE_FN}` other than `(f64..) -> {MADE_TY}`"));
        }
        for (k, g) in m.methods.iter().enumerate() {
            let ok = matches!(&g.params[..], [q] if q.kind == PKind::Receiver)
                && g.ret == Ret::Float
                && !m.methods[..k].iter().any(|o| o.name == g.name);
            if !ok {
                return Err(format!(
                    "a method `{}` of `{MADE_TY}` other than `(&self) -> f64`",
                    g.name
                ));
            }
        }
        // Their `self` and literals are `P1`s; they call no method of `P0`.
        self.made_layout = Some((m.fields, None));
        self.callable = 0;
        let r = m.functions().try_for_each(|g| self.func(g, true));
        self.made_layout = None;
        r
    }

    fn func(&mut self, f: &Func, in_helper: bool) -> Result<(), String> {
        self.frames.clear();
        self.depth.clear();
        self.shapes.clear();
        self.pushable.clear();
        self.ret = f.ret;
        self.in_closure = 0;
        let mut top = HashMap::new();
        for p in &f.params {
            let (fields, grid, active) = match &p.kind {
                PKind::Struct {
                    fields,
                    grid,
                    fixed,
                } => (*fields, *grid, fixed.is_none()),
                PKind::Receiver | PKind::MutReceiver | PKind::MutStruct => match self.layout() {
                    Some((fields, grid)) => (fields, grid, true),
                    None => return Err("a method without a struct type".into()),
                },
                _ => (0, None, false),
            };
            let k = match p.kind {
                PKind::Scalar | PKind::ConstScalar => K::F { mutable: false },
                PKind::MutScalar => K::F { mutable: true },
                PKind::Int { .. } => K::I,
                PKind::Bool => K::B,
                PKind::Slice { .. } => K::A { writable: false },
                PKind::Struct { .. } | PKind::Receiver => K::S(fields, active),
                PKind::MutReceiver | PKind::MutStruct => K::Lent {
                    fields,
                    grid: grid.is_some(),
                },
                PKind::Data { .. } => {
                    top.insert(format!("{}.ys", p.name), K::A { writable: false });
                    K::Data
                }
                PKind::Enum { .. } => K::E,
            };
            if grid.is_some() {
                top.insert(format!("{}.n", p.name), K::I);
                top.insert(format!("{}.w", p.name), K::A { writable: false });
            }
            top.insert(p.name.clone(), k);
        }
        self.frames.push(top);
        let ctx = Ctx {
            loops: 0,
            top: true,
            loop_top: false,
            loops_at_top: true,
            in_helper,
            value_loop: false,
        };
        self.stmts(&f.body.stmts, ctx)?;
        for e in &f.ret_items {
            self.expr(e, ctx)?;
        }
        match &f.ret_struct {
            Some(l) => self.struct_lit(l, ctx)?,
            None if !f.ret_items.is_empty() => {}
            None if f.ret != Ret::Unit => self.expr(&f.body.tail, ctx)?,
            None => {}
        }
        if let Some(a) = &f.ret_arr {
            if !self.arr(a)? || self.depth.get(a) != Some(&0) {
                return Err(format!("returns `{a}`, not a local array of the body"));
            }
        }
        self.frames.pop();
        Ok(())
    }

    fn lookup(&self, name: &str) -> Option<&K> {
        self.frames.iter().rev().find_map(|f| f.get(name))
    }

    fn declare(&mut self, name: &str, k: K) {
        self.frames
            .last_mut()
            .expect("frame")
            .insert(name.to_string(), k);
    }

    fn float(&self, name: &str) -> Result<bool, String> {
        match self.lookup(name) {
            Some(K::F { mutable }) => Ok(*mutable),
            _ => Err(format!("`{name}` is not a float variable in scope")),
        }
    }

    fn arr(&self, name: &str) -> Result<bool, String> {
        match self.lookup(name) {
            Some(K::A { writable }) => Ok(*writable),
            _ => Err(format!("`{name}` is not an array in scope")),
        }
    }

    /// A local array that may be written here.
    fn writable(&self, name: &str) -> Result<(), String> {
        if !self.arr(name)? {
            return Err(format!("write into parameter `{name}`"));
        }
        if self.frozen.iter().any(|f| f == name) {
            return Err(format!("write into `{name}` while a loop iterates over it"));
        }
        Ok(())
    }

    fn iexpr(&self, e: &IExpr) -> Result<(), String> {
        match e {
            IExpr::Lit(_) => Ok(()),
            IExpr::Var(v) => match self.lookup(v) {
                Some(K::I) => Ok(()),
                _ => Err(format!("`{v}` is not an integer in scope")),
            },
            IExpr::Len(a) => self.arr(a).map(|_| ()),
            IExpr::Add(a, b) | IExpr::Mul(a, b) => {
                self.iexpr(a)?;
                self.iexpr(b)
            }
            IExpr::Rem(a, m) => {
                if *m == 0 {
                    return Err("% 0".into());
                }
                self.iexpr(a)
            }
        }
    }

    fn cond(&mut self, c: &Cond, ctx: Ctx) -> Result<(), String> {
        match c {
            Cond::F(_, a, b) => {
                self.expr(a, ctx)?;
                self.expr(b, ctx)
            }
            Cond::I(_, a, b) => {
                self.iexpr(a)?;
                self.iexpr(b)
            }
            Cond::B(b, _) => match self.lookup(b) {
                Some(K::B) => Ok(()),
                _ => Err(format!("`{b}` is not a bool in scope")),
            },
            Cond::And(a, b) | Cond::Or(a, b) => {
                self.cond(a, ctx)?;
                self.cond(b, ctx)
            }
        }
    }

    /// Whether the struct `name` is a constant of the function.
    fn constant_struct(&self, name: &str) -> bool {
        matches!(self.lookup(name), Some(K::S(_, false) | K::Data))
    }

    /// The float fields and grid of the struct type `P0`, if the program
    /// has one (its main function's struct parameter `p0`).
    fn layout(&self) -> Option<(u64, Option<Grid>)> {
        self.made_layout
            .or_else(|| self.p.main.struct_param().and_then(|q| layout_of(&q.kind)))
    }

    /// `name` is a whole local struct in scope (`mut` if `mutable`).
    /// A loop over the `Vec` holding the local struct `q`
    /// (`struct_vec_loops`): whole, reading a field it has, counting where
    /// it enumerates, not filtered otherwise.
    fn held_loop(
        &self,
        q: &str,
        how: &Held,
        k: u64,
        counted: bool,
        filter: &Option<Filter>,
    ) -> Result<(), String> {
        self.local_struct(q, false)?;
        let Some((fields, _)) = self.layout() else {
            return Err(format!("loop over `{q}` without a struct type"));
        };
        if k >= fields || matches!(how, Held::Filter(f, ..) if *f >= fields) {
            return Err(format!("loop over `{q}` reads no field of it"));
        }
        if filter.is_some() || counted != matches!(how, Held::EnumSkip(_) | Held::RevEnumTake(_)) {
            return Err(format!(
                "loop over `{q}` counts where it does not enumerate"
            ));
        }
        Ok(())
    }

    fn local_struct(&self, name: &str, mutable: bool) -> Result<(), String> {
        // Lent to a loop over the `Vec` holding it (`struct_vec_loops`).
        if mutable && self.frozen.iter().any(|f| f == name) {
            return Err(format!("`{name}` changed while a loop iterates over it"));
        }
        match self.lookup(name) {
            Some(K::L {
                whole: true,
                mutable: m,
                ..
            }) if *m || !mutable => Ok(()),
            _ => Err(format!(
                "`{name}` is no whole{} local struct in scope",
                if mutable { " `mut`" } else { "" }
            )),
        }
    }

    /// `v` moved into a struct's `w`: a local `Vec` of the grid's length,
    /// declared in this loop body (not moved again by a later iteration),
    /// gone after.
    fn move_vec(&mut self, v: &str, ctx: Ctx) -> Result<(), String> {
        let len = self.layout().and_then(|(_, g)| g).map(|g| g.len());
        self.writable(v)?;
        if self.shapes.get(v).map(|&(vec, l)| (vec, Some(l))) != Some((true, len)) {
            return Err(format!("`{v}` is no `Vec` as long as the grid"));
        }
        if self.depth.get(v) != Some(&ctx.loops) {
            return Err(format!("`{v}` moved out of an outer scope"));
        }
        for f in self.frames.iter_mut().rev() {
            if f.remove(v).is_some() {
                break;
            }
        }
        Ok(())
    }

    /// A local struct moved (or its `w` moved out) must be declared in this
    /// block: not moved again by a later iteration, not maybe moved after
    /// a branch.
    fn moved_here(&self, name: &str) -> Result<(), String> {
        if self.frames.last().is_some_and(|f| f.contains_key(name)) {
            Ok(())
        } else {
            Err(format!("`{name}` moved out of an outer block"))
        }
    }

    /// The values of a struct literal of the type `P0`: one per float
    /// field, and `n` and `w` (as long as the grid) with a grid.
    fn struct_lit(&mut self, l: &StructLit, ctx: Ctx) -> Result<(), String> {
        let Some((fields, grid)) = self.layout() else {
            return Err("a struct literal without a struct type".into());
        };
        if l.floats.len() as u64 != fields || l.grid.is_some() != grid.is_some() {
            return Err("a struct literal not naming every field once".into());
        }
        for e in &l.floats {
            self.expr(e, ctx)?;
        }
        if let (Some((n, w)), Some(g)) = (&l.grid, grid) {
            self.iexpr(n)?;
            match w {
                VecInit::ToVec(a) | VecInit::Clone(a) | VecInit::Var(a) => {
                    self.arr(a)?;
                }
                VecInit::List(items) => {
                    if items.len() as u64 != g.len() {
                        return Err("a struct's `w` not as long as its grid".into());
                    }
                    for e in items {
                        self.expr(e, ctx)?;
                    }
                }
                VecInit::Fill(e, len) => {
                    if *len != g.len() {
                        return Err("a struct's `w` not as long as its grid".into());
                    }
                    self.expr(e, ctx)?;
                }
            }
        }
        Ok(())
    }

    /// The arguments of a call of a function with parameters `params`,
    /// one each, of its kind; a constant for a float it leaves out of its
    /// `wrt`.
    fn args(&mut self, params: &[Param], args: &[Arg], ctx: Ctx) -> Result<(), String> {
        if params.len() != args.len() {
            return Err("call with the wrong number of arguments".into());
        }
        for (p, a) in params.iter().zip(args) {
            match (&p.kind, a) {
                (PKind::Scalar, Arg::F(e)) => self.expr(e, ctx)?,
                (PKind::ConstScalar, Arg::F(e)) => {
                    if !is_constant(e, &|s: &str| self.constant_struct(s)) {
                        return Err(format!(
                            "an argument for `{}`, left out of the callee's `wrt`, that is not a constant",
                            p.name
                        ));
                    }
                    self.expr(e, ctx)?;
                }
                // (Its bound, the parameter's largest value, is the
                // generator's to keep, as lengths are.)
                (PKind::Int { .. }, Arg::I(i)) => self.iexpr(i)?,
                (PKind::Bool, Arg::B(_)) => {}
                // (An array parameter of the caller's as it is, or a
                // reference to a local array: a slice.)
                (
                    PKind::Slice {
                        style: SliceStyle::Slice,
                        ..
                    },
                    Arg::A(arr),
                ) => {
                    self.arr(arr)?;
                }
                (PKind::Slice { len, style }, Arg::W { by_ref, value }) => {
                    let (vec, n) = self.whole(value, ctx)?;
                    let fits = match style {
                        SliceStyle::Array => !by_ref && !vec,
                        SliceStyle::ArrayRef => *by_ref && !vec,
                        SliceStyle::Slice => *by_ref,
                        SliceStyle::VecRef => false,
                    };
                    if !fits || n != *len {
                        return Err(format!(
                            "a value passed on whole that does not fit `{}`",
                            p.name
                        ));
                    }
                }
                (PKind::Struct { .. }, Arg::S(q)) => {
                    self.local_struct(q, false)?;
                    if layout_of(&p.kind) != self.layout() {
                        return Err(format!("`&{q}` for `{}` of another type", p.name));
                    }
                }
                _ => return Err(format!("an argument of the wrong kind for `{}`", p.name)),
            }
        }
        Ok(())
    }

    /// A value passed on whole: whether it is a `Vec`, and its length.
    fn whole(&mut self, w: &Whole, ctx: Ctx) -> Result<(bool, u64), String> {
        match w {
            Whole::Var(n) => match self.lookup(n) {
                Some(K::W { vec, len }) => Ok((*vec, *len)),
                _ => Err(format!("`{n}` is no call's array result in scope")),
            },
            Whole::Call(f, args) => {
                let g = self
                    .p
                    .wholes
                    .iter()
                    .find(|g| &g.name == f && !ctx.in_helper)
                    .ok_or_else(|| format!("no function `{f}` to pass on whole"))?;
                let shape = match (g.ret, &g.ret_arr) {
                    (Ret::Array(n), None) => (false, n),
                    (Ret::Float, Some(_)) => (true, slice_len(g).unwrap_or(0)),
                    _ => return Err(format!("`{f}(..)` passed on whole returns a float")),
                };
                self.args(&g.params, args, ctx)?;
                Ok(shape)
            }
        }
    }

    fn block(&mut self, b: &Block, ctx: Ctx) -> Result<(), String> {
        let inner = Ctx {
            top: false,
            loop_top: false,
            ..ctx
        };
        self.frames.push(HashMap::new());
        for s in &b.stmts {
            if !matches!(s, Stmt::Let { .. }) {
                return Err("a block expression with a statement other than `let`".into());
            }
        }
        self.stmts(&b.stmts, inner)?;
        self.expr(&b.tail, inner)?;
        self.frames.pop();
        Ok(())
    }

    fn closure(&mut self, vars: &[&str], body: &Expr, ctx: Ctx) -> Result<(), String> {
        self.frames.push(HashMap::new());
        for v in vars {
            self.declare(v, K::F { mutable: false });
        }
        self.in_closure += 1;
        let r = self.expr(body, ctx);
        self.in_closure -= 1;
        r?;
        self.frames.pop();
        Ok(())
    }

    fn expr(&mut self, e: &Expr, ctx: Ctx) -> Result<(), String> {
        match e {
            Expr::Lit(v, _) => {
                if v.is_finite() {
                    Ok(())
                } else {
                    Err("non-finite literal".into())
                }
            }
            Expr::Var(v) => self.float(v).map(|_| ()),
            Expr::Field(p, k) => match self.lookup(p) {
                Some(K::S(n, _) | K::L { fields: n, .. } | K::Lent { fields: n, .. }) if k < n => {
                    Ok(())
                }
                _ => Err(format!("`{p}.f{k}` is not a field of a struct parameter")),
            },
            Expr::Const(c) => {
                if self.p.consts.iter().any(|(n, _)| n == c) {
                    Ok(())
                } else {
                    Err(format!("no const `{c}`"))
                }
            }
            Expr::IntCast(i) => self.iexpr(i),
            // A reference (`float_ref`) as an operand or a receiver.
            Expr::Un(_, a, false) => self.operand(a, ctx),
            Expr::Bin(_, a, b) => {
                self.operand(a, ctx)?;
                self.operand(b, ctx)
            }
            Expr::Neg(a) | Expr::Un(_, a, _) | Expr::Ml(_, a) => self.expr(a, ctx),
            Expr::Bi(_, a, b, _) => {
                self.expr(a, ctx)?;
                self.expr(b, ctx)
            }
            Expr::MulAdd(a, b, c) => {
                self.expr(a, ctx)?;
                self.expr(b, ctx)?;
                self.expr(c, ctx)
            }
            Expr::Index(a, i) => {
                self.arr(a)?;
                self.iexpr(i)
            }
            Expr::If(c, a, b) => {
                self.cond(c, ctx)?;
                self.block(a, ctx)?;
                self.block(b, ctx)
            }
            Expr::Match(i, arms, d) => {
                self.iexpr(i)?;
                for (pats, a) in arms {
                    if pats.is_empty() {
                        return Err("match arm without pattern".into());
                    }
                    self.expr(a, ctx)?;
                }
                self.expr(d, ctx)
            }
            Expr::CallClosure(c, a) => {
                if !matches!(self.lookup(c), Some(K::C)) {
                    return Err(format!("`{c}` is not a closure in scope"));
                }
                self.expr(a, ctx)
            }
            Expr::Call(f, args) => {
                let h = self
                    .p
                    .helper
                    .iter()
                    .chain(&self.p.struct_fn)
                    .chain(
                        self.p
                            .wholes
                            .iter()
                            .filter(|g| g.ret == Ret::Float && g.ret_arr.is_none()),
                    )
                    .find(|h| &h.name == f && !ctx.in_helper)
                    .ok_or_else(|| format!("no function `{f}` to call"))?;
                self.args(&h.params, args, ctx)
            }
            Expr::TryCall(f, args, how) => {
                let g = self
                    .p
                    .fallible
                    .as_ref()
                    .filter(|g| &g.name == f && !ctx.in_helper)
                    .ok_or_else(|| format!("no fallible function `{f}` to call"))?;
                if self.in_closure > 0 {
                    return Err(format!("a call of `{f}` in a closure"));
                }
                if *how == Try::Question && self.ret != g.ret {
                    return Err(format!(
                        "`{f}(..)?` in a function returning {:?}, `{f}` {:?}",
                        self.ret, g.ret
                    ));
                }
                self.args(&g.params, args, ctx)
            }
            Expr::Method(recv, name, args, _) if matches!(self.lookup(recv), Some(K::M)) => {
                let made = self.p.made.as_ref().expect("a result of `make` in scope");
                if !made.methods.iter().any(|m| &m.name == name) || !args.is_empty() {
                    return Err(format!("no method `{name}()` of `{MADE_TY}` to call"));
                }
                Ok(())
            }
            Expr::ResultMethod { func, args, method } => {
                let made = self
                    .p
                    .made
                    .as_ref()
                    .filter(|m| &m.make.name == func && !ctx.in_helper)
                    .ok_or_else(|| format!("no function `{func}` returning a struct to call"))?;
                if !made.methods.iter().any(|m| &m.name == method) {
                    return Err(format!("no method `{method}()` of `{MADE_TY}` to call"));
                }
                self.args(&made.make.params, args, ctx)
            }
            Expr::Assoc(ty, f, args) => {
                let h = self
                    .p
                    .helper
                    .as_ref()
                    .filter(|h| &h.name == f && self.p.helper_owner.as_ref() == Some(ty))
                    .filter(|_| !ctx.in_helper)
                    .ok_or_else(|| format!("no function `{ty}::{f}` to call"))?;
                self.args(&h.params, args, ctx)
            }
            Expr::Method(recv, name, args, _) => {
                if !matches!(
                    self.lookup(recv),
                    Some(K::S(..) | K::L { whole: true, .. } | K::Lent { .. })
                ) {
                    return Err(format!("`{recv}` is no struct to call `{name}` on"));
                }
                let m = self.p.methods[..self.callable]
                    .iter()
                    .find(|m| &m.name == name && m.ret == Ret::Float)
                    .ok_or_else(|| format!("no method `{name}` returning a float to call"))?;
                self.args(&m.params[1..], args, ctx)
            }
            Expr::Sum(a) => self.arr(a).map(|_| ()),
            Expr::MapSum { arr, var, body, .. } => {
                self.arr(arr)?;
                self.closure(&[var], body, ctx)
            }
            Expr::ZipSum {
                a, b, va, vb, body, ..
            } => {
                self.arr(a)?;
                self.arr(b)?;
                self.closure(&[va, vb], body, ctx)
            }
            Expr::Fold {
                arr,
                init,
                acc,
                var,
                body,
                ..
            } => {
                self.arr(arr)?;
                self.expr(init, ctx)?;
                self.closure(&[acc, var], body, ctx)
            }
            Expr::Block(b) => self.block(b, ctx),
            Expr::RangeSum {
                range, var, body, ..
            } => self.range_closure(range, None, var, body, ctx),
            Expr::RangeFold {
                range,
                init,
                acc,
                var,
                body,
            } => {
                self.expr(init, ctx)?;
                self.range_closure(range, Some(acc), var, body, ctx)
            }
        }
    }

    /// An operand of arithmetic or a float method's receiver: any float
    /// expression, or a reference of `float_ref`, which Rust reads as its
    /// float there.
    fn operand(&mut self, e: &Expr, ctx: Ctx) -> Result<(), String> {
        match e {
            Expr::Var(v) if matches!(self.lookup(v), Some(K::R)) => Ok(()),
            _ => self.expr(e, ctx),
        }
    }

    /// The closure of a chain over a range of integers: `var` an integer,
    /// `acc` a float.
    fn range_closure(
        &mut self,
        range: &Range,
        acc: Option<&str>,
        var: &str,
        body: &Expr,
        ctx: Ctx,
    ) -> Result<(), String> {
        self.iexpr(&range.lo)?;
        self.iexpr(&range.hi)?;
        if range.step == Some(0) || (range.inclusive && range.step.is_some() && range.rev) {
            return Err("a range that is not Rust".into());
        }
        self.frames.push(HashMap::new());
        self.declare(var, K::I);
        if let Some(a) = acc {
            self.declare(a, K::F { mutable: false });
        }
        self.in_closure += 1;
        let r = self.expr(body, ctx);
        self.in_closure -= 1;
        r?;
        self.frames.pop();
        Ok(())
    }

    fn stmts(&mut self, ss: &[Stmt], ctx: Ctx) -> Result<(), String> {
        for s in ss {
            self.stmt(s, ctx)?;
        }
        Ok(())
    }

    /// A branch of an `if` at `ctx`: its last statement may be a jump when
    /// the `if` sits where the README allows one.
    fn branch(&mut self, ss: &[Stmt], ctx: Ctx) -> Result<(), String> {
        let inner = Ctx {
            top: false,
            loop_top: false,
            ..ctx
        };
        self.frames.push(HashMap::new());
        let (last, init) = match ss.split_last() {
            Some((l, i)) => (Some(l), i),
            None => (None, ss),
        };
        self.stmts(init, inner)?;
        match last {
            Some(Stmt::Break) if ctx.value_loop => {
                return Err("`break;` in a `loop` whose value a `let` binds".into());
            }
            Some(Stmt::BreakValue(e)) if ctx.value_loop && ctx.loop_top => self.expr(e, inner)?,
            Some(Stmt::BreakValue(_)) => {
                return Err("`break e;` outside the end of an `if` branch of a value loop".into());
            }
            Some(Stmt::BreakValueTo(l, e))
                if ctx.loop_top && ctx.loops > 0 && self.value_labels.contains(l) =>
            {
                self.expr(e, inner)?
            }
            Some(Stmt::BreakValueTo(l, _)) => {
                return Err(format!(
                    "a valued jump to `'{l}` outside the end of an `if` branch of a loop inside its value loop"
                ));
            }
            Some(Stmt::BreakTo(l) | Stmt::ContinueTo(l))
                if ctx.loop_top && ctx.loops > 0 && self.labels.contains(l) => {}
            Some(Stmt::BreakTo(l) | Stmt::ContinueTo(l)) => {
                return Err(format!(
                    "a jump to `'{l}` outside the end of an `if` branch of a loop inside it"
                ));
            }
            Some(Stmt::Break) | Some(Stmt::Continue) if !(ctx.loop_top && ctx.loops > 0) => {
                return Err(
                    "`break`/`continue` outside the end of an `if` branch of a loop body".into(),
                );
            }
            Some(Stmt::Break) | Some(Stmt::Continue) => {}
            Some(Stmt::Return(e)) => {
                let ok = ctx.top || (ctx.loop_top && ctx.loops_at_top && !ctx.in_helper);
                if !ok
                    || matches!(
                        self.ret,
                        Ret::Unit | Ret::Struct | Ret::Array(_) | Ret::Tuple(_)
                    )
                {
                    return Err("`return` where the README does not allow it".into());
                }
                self.expr(e, inner)?;
            }
            // A writer's guard clause.
            Some(Stmt::ReturnVoid) if ctx.top && self.ret == Ret::Unit => {}
            // The fallible function's guard clause.
            Some(Stmt::ReturnErr(_)) if ctx.top && self.ret.fallible() => {}
            Some(Stmt::ReturnVoid | Stmt::ReturnErr(_)) => {
                return Err("`return;` or `return Err(..)` other than in a guard clause of a writer or a fallible function".into());
            }
            Some(s) => self.stmt(s, inner)?,
            None => {}
        }
        self.frames.pop();
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, ctx: Ctx) -> Result<(), String> {
        match s {
            Stmt::Let {
                name,
                mutable,
                init,
                ..
            } => {
                self.expr(init, ctx)?;
                self.declare(name, K::F { mutable: *mutable });
            }
            Stmt::LetClosure { name, param, body } => {
                // It borrows what it reads until its last call: only
                // variables nothing assigns afterwards, and no arrays.
                let mut bad = None;
                visit_exprs(body, &mut |e| match e {
                    Expr::Var(v)
                        if v != param
                            && !matches!(self.lookup(v), Some(K::F { mutable: false })) =>
                    {
                        bad = Some(format!(
                            "closure `{name}` reads `{v}`, not an immutable float"
                        ));
                    }
                    Expr::Index(..)
                    | Expr::Sum(_)
                    | Expr::MapSum { .. }
                    | Expr::ZipSum { .. }
                    | Expr::Fold { .. }
                    | Expr::Call(..)
                    | Expr::Method(..)
                    | Expr::Assoc(..)
                    | Expr::ResultMethod { .. }
                    | Expr::CallClosure(..) => {
                        bad = Some(format!("closure `{name}` reads an array or calls"));
                    }
                    _ => {}
                });
                if let Some(b) = bad {
                    return Err(b);
                }
                self.closure(&[param], body, ctx)?;
                self.declare(name, K::C);
            }
            Stmt::Deferred { name, init, .. } => {
                match init {
                    DeferredInit::Direct(e) => self.expr(e, ctx)?,
                    DeferredInit::Branch(c, a, b) => {
                        self.cond(c, ctx)?;
                        self.block(a, ctx)?;
                        self.block(b, ctx)?;
                    }
                }
                self.declare(name, K::F { mutable: false });
            }
            Stmt::Assign { name, value, .. } => {
                if !self.float(name)? {
                    return Err(format!("assignment to immutable `{name}`"));
                }
                self.expr(value, ctx)?;
            }
            Stmt::LetArr { name, init, .. } => {
                if !(ctx.top || ctx.loop_top) {
                    return Err("array declared inside a block or branch".into());
                }
                if let ArrInit::List { items, .. } = init {
                    for e in items {
                        self.expr(e, ctx)?;
                    }
                }
                if init.is_empty() {
                    return Err("empty array".into());
                }
                self.declare(name, K::A { writable: true });
                self.depth.insert(name.clone(), ctx.loops);
                let vec = match init {
                    ArrInit::Fill { vec, .. } | ArrInit::List { vec, .. } => *vec,
                };
                self.shapes.insert(name.clone(), (vec, init.len()));
            }
            Stmt::Store {
                arr, idx, value, ..
            } => {
                self.writable(arr)?;
                self.iexpr(idx)?;
                self.expr(value, ctx)?;
            }
            Stmt::If { cond, then, els } => {
                self.cond(cond, ctx)?;
                self.branch(then, ctx)?;
                if let Some(e) = els {
                    self.branch(e, ctx)?;
                }
            }
            Stmt::Break
            | Stmt::Continue
            | Stmt::Return(_)
            | Stmt::ReturnVoid
            | Stmt::ReturnErr(_)
            | Stmt::BreakValue(_)
            | Stmt::BreakValueTo(..)
            | Stmt::BreakTo(_)
            | Stmt::ContinueTo(_) => {
                return Err("a jump that is not the last statement of an `if` branch".into())
            }
            Stmt::LetCall {
                pat: CallPat::Passed(n),
                func,
                args,
            } => {
                let g = self
                    .p
                    .wholes
                    .iter()
                    .find(|g| &g.name == func && !ctx.in_helper)
                    .ok_or_else(|| format!("no function `{func}` to pass on whole"))?;
                self.args(&g.params, args, ctx)?;
                let k = match (g.ret, &g.ret_arr) {
                    (Ret::Array(len), None) => K::W { vec: false, len },
                    (Ret::Float, Some(_)) => K::W {
                        vec: true,
                        len: slice_len(g).unwrap_or(0),
                    },
                    _ => K::F { mutable: false },
                };
                self.declare(n, k);
            }
            Stmt::LetCall {
                pat: CallPat::Made(n),
                func,
                args,
            } => {
                let made = self
                    .p
                    .made
                    .as_ref()
                    .filter(|m| &m.make.name == func && !ctx.in_helper)
                    .ok_or_else(|| format!("no function `{func}` returning a struct to call"))?;
                self.args(&made.make.params, args, ctx)?;
                self.declare(n, K::M);
            }
            Stmt::LetCall { pat, func, args } => {
                let g = self
                    .p
                    .multis
                    .iter()
                    .find(|g| &g.name == func && !ctx.in_helper)
                    .ok_or_else(|| format!("no function `{func}` returning floats to call"))?;
                self.args(&g.params, args, ctx)?;
                match (pat, g.ret) {
                    (CallPat::Whole(n), Ret::Array(_)) => self.declare(n, K::A { writable: false }),
                    (CallPat::Array(ns), Ret::Array(k)) | (CallPat::Tuple(ns), Ret::Tuple(k))
                        if ns.len() == k as usize =>
                    {
                        for (j, n) in ns.iter().enumerate() {
                            if ns[..j].contains(n) {
                                return Err(format!("`{n}` bound twice"));
                            }
                            self.declare(n, K::F { mutable: false });
                        }
                    }
                    _ => return Err(format!("a pattern that does not fit `{func}`'s result")),
                }
            }
            Stmt::LetLoop {
                name,
                counter,
                body,
                exit,
                label,
                ..
            } => {
                if let Some(l) = label {
                    if self.labels.contains(l) || self.value_labels.contains(l) {
                        return Err(format!("label `'{l}` shadows another"));
                    }
                }
                self.frames.push(HashMap::new());
                self.declare(counter, K::I);
                let inner = Ctx {
                    loops: ctx.loops + 1,
                    top: false,
                    loop_top: true,
                    loops_at_top: ctx.loops_at_top && (ctx.top || ctx.loop_top),
                    in_helper: ctx.in_helper,
                    value_loop: true,
                };
                // The exit `if k > N { break e; }` ends the body: `e` sees
                // what the body declares.
                self.frames.push(HashMap::new());
                self.value_labels.extend(label.clone());
                let r = self.stmts(body, inner);
                if label.is_some() {
                    self.value_labels.pop();
                }
                r?;
                self.expr(exit, inner)?;
                self.frames.pop();
                self.frames.pop();
                self.declare(name, K::F { mutable: false });
            }
            Stmt::Labeled { label, body } => {
                if !matches!(
                    **body,
                    Stmt::For { .. }
                        | Stmt::ForEach { .. }
                        | Stmt::While { .. }
                        | Stmt::Loop { .. }
                        | Stmt::WhileLet { .. }
                ) {
                    return Err(format!("label `'{label}` on no loop"));
                }
                if self.labels.contains(label) {
                    return Err(format!("label `'{label}` shadows another"));
                }
                self.labels.push(label.clone());
                let r = self.stmt(body, ctx);
                self.labels.pop();
                r?;
            }
            Stmt::EnumMatch { name, scrut, arms } => {
                if !matches!(self.lookup(scrut), Some(K::E)) {
                    return Err(format!("`{scrut}` is no enum to match"));
                }
                let has = |p: &EnumPat| arms.iter().any(|a| &a.pat == p);
                let c = arms.iter().any(|a| matches!(a.pat, EnumPat::C(_)));
                if !(has(&EnumPat::Wild) || (has(&EnumPat::A) && has(&EnumPat::B) && c)) {
                    return Err("a match on the enum that misses a variant".into());
                }
                let inner = Ctx {
                    top: false,
                    loop_top: false,
                    ..ctx
                };
                for a in arms {
                    self.frames.push(HashMap::new());
                    if let EnumPat::C(c) = &a.pat {
                        self.declare(c, K::F { mutable: false });
                    }
                    match (&a.value, name) {
                        (Some(v), Some(_)) => {
                            self.stmts(&a.stmts, inner)?;
                            self.expr(v, inner)?;
                        }
                        (None, None) => self.branch(&a.stmts, ctx)?,
                        _ => return Err("an arm's value without a `let`, or none".into()),
                    }
                    self.frames.pop();
                }
                if let Some((n, _)) = name {
                    self.declare(n, K::F { mutable: false });
                }
            }
            Stmt::WhileLet { var, src, body } => {
                let frozen = match src {
                    WhileSrc::Pop { .. } => None,
                    WhileSrc::Iter { arr, .. } => {
                        self.arr(arr)?;
                        Some(arr.clone())
                    }
                };
                self.frames.push(HashMap::new());
                match src {
                    WhileSrc::Pop { .. } => self.declare(var, K::I),
                    WhileSrc::Iter { .. } => self.declare(var, K::F { mutable: false }),
                }
                self.frozen.extend(frozen.clone());
                let r = self.loop_body(body, ctx);
                if frozen.is_some() {
                    self.frozen.pop();
                }
                r?;
                self.frames.pop();
            }
            Stmt::WriterCall { name, lent, args } => {
                let w = self
                    .p
                    .writer
                    .as_ref()
                    .filter(|w| &w.name == name && !ctx.in_helper)
                    .ok_or_else(|| format!("no writer `{name}` to call"))?;
                let muts = w
                    .params
                    .iter()
                    .filter(|q| q.kind == PKind::MutScalar)
                    .count();
                if lent.len() != muts {
                    return Err(format!("`{name}` lent {} floats, not {muts}", lent.len()));
                }
                for (k, l) in lent.iter().enumerate() {
                    if !self.float(l)? {
                        return Err(format!("`&mut {l}` of an immutable float"));
                    }
                    if lent[..k].contains(l) {
                        return Err(format!("`{l}` lent twice"));
                    }
                }
                // Borrowed for the call: no argument may read it.
                for a in args {
                    if let Arg::F(e) = a {
                        let mut reads = false;
                        visit_vars(e, &mut |v| reads |= lent.iter().any(|l| l == v));
                        if reads {
                            return Err(format!(
                                "an argument of `{name}` reads a float lent to it"
                            ));
                        }
                    }
                }
                self.args(&w.params[muts..], args, ctx)?;
            }
            Stmt::Match {
                scrut,
                arms,
                default,
            } => {
                self.iexpr(scrut)?;
                for (pat, body) in arms {
                    self.frames.push(HashMap::new());
                    match pat {
                        MatchPat::Lits(l) if l.is_empty() => {
                            return Err("match arm without pattern".into())
                        }
                        MatchPat::Lits(_) => {}
                        MatchPat::Guard { bind, .. } => self.declare(bind, K::I),
                    }
                    self.branch(body, ctx)?;
                    self.frames.pop();
                }
                self.branch(default, ctx)?;
            }
            Stmt::LetTuple { names, init } => {
                match init {
                    TupleInit::If(c, ..) => self.cond(c, ctx)?,
                    TupleInit::Match(i, arms, _) => {
                        self.iexpr(i)?;
                        if arms.iter().any(|(p, _)| p.is_empty()) {
                            return Err("match arm without pattern".into());
                        }
                    }
                    TupleInit::Block(_) => {}
                }
                for (k, n) in names.iter().enumerate() {
                    if names[..k].contains(n) {
                        return Err(format!("`{n}` bound twice in one tuple"));
                    }
                }
                let inner = Ctx {
                    top: false,
                    loop_top: false,
                    ..ctx
                };
                for a in init.arms() {
                    if a.items.len() != names.len() {
                        return Err("a tuple of the wrong length".into());
                    }
                    if !a.stmts.iter().all(|s| matches!(s, Stmt::Let { .. })) {
                        return Err("a tuple's arm with a statement other than `let`".into());
                    }
                    self.frames.push(HashMap::new());
                    self.stmts(&a.stmts, inner)?;
                    for e in &a.items {
                        self.expr(e, inner)?;
                    }
                    self.frames.pop();
                }
                for n in names {
                    self.declare(n, K::F { mutable: false });
                }
            }
            Stmt::ArrAssign { dst, src } => {
                self.writable(dst)?;
                match src {
                    ArrSrc::Move(n) | ArrSrc::Swap(n) | ArrSrc::Copy(n) => {
                        if n == dst {
                            return Err(format!("`{dst}` replaced by itself"));
                        }
                        if !matches!(src, ArrSrc::Copy(_)) {
                            self.writable(n)?;
                        } else {
                            self.arr(n)?;
                        }
                        if matches!(src, ArrSrc::Move(_)) {
                            // Moved: declared in this loop body (not moved
                            // again in a later iteration), gone after.
                            if self.depth.get(n) != Some(&ctx.loops) {
                                return Err(format!("`{n}` moved out of an outer scope"));
                            }
                            for f in self.frames.iter_mut().rev() {
                                if f.remove(n).is_some() {
                                    break;
                                }
                            }
                        }
                    }
                    ArrSrc::Fill(e) => self.expr(e, ctx)?,
                    ArrSrc::List { items, .. } => {
                        for e in items {
                            self.expr(e, ctx)?;
                        }
                    }
                    ArrSrc::Call(f, args) => {
                        let st = self
                            .p
                            .step
                            .as_ref()
                            .filter(|st| &st.name == f && !ctx.in_helper)
                            .ok_or_else(|| format!("no step function `{f}` to call"))?;
                        self.args(&st.params, args, ctx)?;
                    }
                }
            }
            Stmt::LetVec { name, .. } => {
                if !(ctx.top || ctx.loop_top) {
                    return Err("`Vec::new()` declared inside a block or branch".into());
                }
                self.declare(name, K::A { writable: true });
                self.depth.insert(name.clone(), ctx.loops);
                self.pushable.push(name.clone());
            }
            Stmt::Push { arr, value } => {
                self.writable(arr)?;
                if !self.pushable.contains(arr) {
                    return Err(format!("push to `{arr}`, not declared `Vec::new()`"));
                }
                self.expr(value, ctx)?;
            }
            Stmt::LetStruct {
                name,
                mutable,
                init,
                ..
            } => {
                let Some((fields, grid)) = self.layout() else {
                    return Err(format!("local struct `{name}` without a struct type"));
                };
                match init {
                    StructInit::Lit(l) => self.struct_lit(l, ctx)?,
                    // A copy of a local struct, or of a differentiated
                    // struct parameter (`p0.clone()`, `struct_writer`).
                    StructInit::Clone(q) => {
                        if !matches!(self.lookup(q), Some(K::S(_, true))) {
                            self.local_struct(q, false)?;
                        }
                    }
                    StructInit::Move(q) => {
                        self.local_struct(q, false)?;
                        self.moved_here(q)?;
                        let top = self.frames.last_mut().expect("frame");
                        top.remove(q);
                        top.remove(&format!("{q}.w"));
                    }
                    StructInit::Update(given, q) => {
                        self.local_struct(q, false)?;
                        if given.is_empty() {
                            return Err(format!("`..{q}` with no field given"));
                        }
                        for (j, (k, e)) in given.iter().enumerate() {
                            if *k >= fields || given[..j].iter().any(|(o, _)| o == k) {
                                return Err(format!("field `f{k}` given twice or of no struct"));
                            }
                            self.expr(e, ctx)?;
                        }
                        if grid.is_some() {
                            // Its `w` moved out: only its floats are left.
                            self.moved_here(q)?;
                            let top = self.frames.last_mut().expect("frame");
                            top.remove(&format!("{q}.w"));
                            if let Some(K::L { whole, .. }) = top.get_mut(q) {
                                *whole = false;
                            }
                        }
                    }
                }
                self.declare(
                    name,
                    K::L {
                        fields,
                        grid: grid.is_some(),
                        mutable: *mutable,
                        whole: true,
                    },
                );
                if grid.is_some() {
                    self.declare(&format!("{name}.w"), K::A { writable: false });
                }
            }
            Stmt::FieldAssign {
                name, field, value, ..
            } => {
                // A `let mut` local struct's, or that of the struct a
                // writer changes.
                if !matches!(self.lookup(name), Some(K::Lent { .. })) {
                    self.local_struct(name, true)?;
                }
                match self.lookup(name) {
                    Some(K::L { fields, .. } | K::Lent { fields, .. }) if field < fields => {}
                    _ => return Err(format!("`{name}.f{field}` is no field")),
                }
                self.expr(value, ctx)?;
            }
            Stmt::StructWrite {
                target,
                writer,
                args,
                method,
                path,
            } => {
                let w = self.p.struct_writers[..self.sw_callable]
                    .iter()
                    .find(|w| &w.name == writer)
                    .ok_or_else(|| format!("no struct writer `{writer}` to call"))?;
                if w.is_method() != *method || (*path && !method) {
                    return Err(format!("`{writer}` called otherwise than it is written"));
                }
                // The struct a writer changes, or a `let mut` local one.
                if !matches!(self.lookup(target), Some(K::Lent { .. })) {
                    self.local_struct(target, true)?;
                }
                self.args(&w.params[1..], args, ctx)?;
                // Lent by `&mut` as an argument, the struct is borrowed for
                // the call: no argument reads it (on a receiver, the
                // borrow starts after the arguments).
                if (!method || *path) && args.iter().any(|a| arg_reads_struct(a, target)) {
                    return Err(format!(
                        "an argument of `{writer}` reads `{target}`, lent to it"
                    ));
                }
            }
            Stmt::StructReplace { target, lit } => {
                let Some(K::Lent { grid, .. }) = self.lookup(target).cloned() else {
                    return Err(format!("`*{target} = ..` of no struct a writer changes"));
                };
                self.struct_lit(lit, ctx)?;
                if let Some((_, VecInit::Var(v))) = &lit.grid {
                    self.move_vec(v, ctx)?;
                }
                debug_assert_eq!(grid, lit.grid.is_some());
            }
            Stmt::VecFieldAssign { target, src } => {
                if !matches!(self.lookup(target), Some(K::Lent { grid: true, .. })) {
                    return Err(format!(
                        "`{target}.w = ..` of no struct with a grid a writer changes"
                    ));
                }
                self.move_vec(src, ctx)?;
            }
            Stmt::StructStep { name, method, args } => {
                self.local_struct(name, true)?;
                let m = self
                    .p
                    .methods
                    .iter()
                    .find(|m| &m.name == method && m.ret == Ret::Struct)
                    .ok_or_else(|| format!("no method `{method}` returning a struct"))?;
                self.args(&m.params[1..], args, ctx)?;
            }
            Stmt::For {
                var,
                range,
                body,
                ckpt,
            } => {
                if let Some(c) = ckpt {
                    self.iexpr(&c.count)?;
                    if !ctx.top || ctx.in_helper {
                        return Err("#[checkpoint] on a loop not at the top level of `f`".into());
                    }
                    if range.rev || range.step.is_some() {
                        return Err(
                            "#[checkpoint] on a range walked otherwise than forwards".into()
                        );
                    }
                    if has_own_break(body) || has_return(body) {
                        return Err("#[checkpoint] on a loop that can stop early".into());
                    }
                }
                self.iexpr(&range.lo)?;
                self.iexpr(&range.hi)?;
                if range.step == Some(0) {
                    return Err("step_by(0)".into());
                }
                if range.inclusive && range.step.is_some() && range.rev {
                    return Err("`(a..=b).step_by(k).rev()` is not Rust".into());
                }
                self.frames.push(HashMap::new());
                self.declare(var, K::I);
                self.loop_body(body, ctx)?;
                self.frames.pop();
            }
            Stmt::ForEach {
                idx,
                var,
                arr,
                body,
                filter,
                held,
            } => {
                match held {
                    Some((how, k)) => self.held_loop(arr, how, *k, idx.is_some(), filter)?,
                    None => {
                        self.arr(arr)?;
                    }
                }
                if let Some(f) = filter {
                    self.filter(f, idx.is_some())?;
                    self.filtered.push(var.clone());
                }
                self.frames.push(HashMap::new());
                self.declare(var, K::F { mutable: false });
                if let Some(i) = idx {
                    self.declare(i, K::I);
                }
                self.frozen.push(arr.clone());
                let r = self.loop_body(body, ctx);
                self.frozen.pop();
                if filter.is_some() {
                    self.filtered.pop();
                }
                r?;
                self.frames.pop();
            }
            Stmt::LetRef { name, target } => {
                if ctx.in_helper || self.float(target)? || self.filtered.contains(target) {
                    return Err(format!("`&{target}` of no immutable float of `f`"));
                }
                self.declare(name, K::R);
            }
            Stmt::Replace { old, target, src } => {
                if ctx.in_helper || !self.float(target)? {
                    return Err(format!(
                        "`std::mem::replace` of `{target}`, no `let mut` float of `f`"
                    ));
                }
                if src == target {
                    return Err(format!("`{target}` replaced by itself"));
                }
                self.float(src)?;
                if let Some(o) = old {
                    self.declare(o, K::F { mutable: false });
                }
            }
            Stmt::While {
                counter,
                cond,
                body,
                ..
            } => {
                self.frames.push(HashMap::new());
                self.declare(counter, K::I);
                if let Some(c) = cond {
                    self.cond(c, ctx)?;
                }
                self.loop_body(body, ctx)?;
                self.frames.pop();
            }
            Stmt::Loop { counter, body, .. } => {
                self.frames.push(HashMap::new());
                self.declare(counter, K::I);
                self.loop_body(body, ctx)?;
                self.frames.pop();
            }
        }
        Ok(())
    }

    /// A loop's filter (`filter_names`): on `enumerate()`, its element
    /// compared with a literal or a float no statement changes (the
    /// closure borrows it), not a reference.
    fn filter(&mut self, f: &Filter, enumerated: bool) -> Result<(), String> {
        if !enumerated || (f.index.is_none() && f.element.is_none()) {
            return Err("a filter other than on `enumerate()`, or of no test".into());
        }
        if f.index.is_some_and(|(m, _, _)| m == Some(0)) {
            return Err("% 0".into());
        }
        match f.element.as_ref().map(|(_, e)| e) {
            None | Some(Expr::Lit(..)) => Ok(()),
            Some(Expr::Var(v)) if !self.float(v)? && !self.filtered.contains(v) => Ok(()),
            Some(_) => Err("a filter's element compared with what may change".into()),
        }
    }

    fn loop_body(&mut self, body: &[Stmt], ctx: Ctx) -> Result<(), String> {
        let inner = Ctx {
            loops: ctx.loops + 1,
            top: false,
            loop_top: true,
            loops_at_top: ctx.loops_at_top && (ctx.top || ctx.loop_top),
            in_helper: ctx.in_helper,
            value_loop: false,
        };
        self.frames.push(HashMap::new());
        self.stmts(body, inner)?;
        self.frames.pop();
        Ok(())
    }
}

/// The length of the arrays a function of `passed_whole` takes: that of
/// its first array parameter (a `Vec` it returns is as long).
fn slice_len(g: &Func) -> Option<u64> {
    g.params.iter().find_map(|q| match q.kind {
        PKind::Slice { len, .. } => Some(len),
        _ => None,
    })
}

/// Whether the statements contain a `break` of the loop around them (not
/// of a loop inside them).
fn has_own_break(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Break => true,
        Stmt::If { .. } | Stmt::Match { .. } => branches(s).into_iter().any(|b| has_own_break(b)),
        _ => false,
    })
}

/// Whether a call's argument reads the struct `q` (a field, an element of
/// its `w`, a method called on it, `&q` given to a call).
pub(crate) fn arg_reads_struct(a: &Arg, q: &str) -> bool {
    let w = format!("{q}.w");
    let n = format!("{q}.n");
    let found = std::cell::Cell::new(false);
    let mut e = match a {
        Arg::F(e) => e.clone(),
        Arg::I(i) => Expr::IntCast(i.clone()),
        Arg::S(s) => return s == q,
        Arg::B(_) | Arg::A(_) | Arg::W { .. } => return false,
    };
    map_expr(
        &mut e,
        &mut |x: &mut Expr| match x {
            Expr::Field(s, _) | Expr::Method(s, ..) if s == q => found.set(true),
            Expr::Index(a, _) | Expr::Sum(a) if *a == w => found.set(true),
            Expr::Call(_, args) | Expr::Assoc(_, _, args)
                if args.iter().any(|a| matches!(a, Arg::S(s) if s == q)) =>
            {
                found.set(true)
            }
            _ => {}
        },
        &mut |i: &mut IExpr| {
            if let IExpr::Var(v) | IExpr::Len(v) = i {
                if *v == n || *v == w {
                    found.set(true);
                }
            }
        },
    );
    found.get()
}

/// The float fields and grid of a struct parameter's kind.
fn layout_of(k: &PKind) -> Option<(u64, Option<Grid>)> {
    match k {
        PKind::Struct { fields, grid, .. } => Some((*fields, *grid)),
        _ => None,
    }
}

//! The random program generator: functions strictly inside the subset the
//! README documents, each construct behind a feature of [`Features`].
//!
//! Values stay bounded: a variable updated in a loop is updated through a
//! squashing function (`tanh`, `sin`, `atan`, ...), by a bounded factor or
//! a bounded increment; `ln`, `sqrt`, `powf`, `/` see positive arguments
//! (`x*x + c`); `exp` sees squashed ones. Indices are in range by
//! construction (each integer variable carries its largest value).

use crate::ast::*;
use crate::features::Features;
use crate::rng::Rng;

mod calls;
mod enums;
mod fallible;
mod filters;
mod held_loops;
mod jumps;
mod labels;
mod locals;
mod loop_value;
mod made;
mod passed;
mod paths;
mod ranges;
mod struct_writers;
mod structs;
mod tuples;
mod while_let;
mod writers;

use fallible::Callee;
use structs::Local;

/// The program of seed `seed` with the features `f`.
pub fn generate(seed: u64, f: &Features) -> Program {
    let mut g = G {
        rng: Rng::new(seed),
        side: Rng::new(seed ^ 0x5D0F_A3C1_77E2_9B4D),
        more: Rng::new(seed ^ 0x3C6E_F372_FE94_F82B),
        wr: Rng::new(seed ^ 0xA54F_F53A_5F1D_36F1),
        f,
        next: 0,
        consts: Vec::new(),
        helper: None,
        frames: Vec::new(),
        closure: 0,
        in_helper: false,
        locals: Vec::new(),
        frozen: Vec::new(),
        closure_vars: Vec::new(),
        in_call: 0,
        opaque: Vec::new(),
        immutable_captures: false,
        structs: Vec::new(),
        bools: Vec::new(),
        grid: None,
        layout: None,
        method_calls: Vec::new(),
        call_first: false,
        first_call: None,
        arms: 0,
        returned: false,
        loops: 0,
        must_reach: Vec::new(),
        vecs: Vec::new(),
        step: None,
        step_len: None,
        step_called: false,
        in_ckpt: false,
        float_params: Vec::new(),
        plan: None,
        ret: Ret::Float,
        writer: None,
        writer_called: false,
        fallible: None,
        fallible_called: false,
        sv: false,
        sv_methods: Vec::new(),
        struct_fn: None,
        sv_fn_called: false,
        step_method: None,
        sv_stepped: false,
        struct_step: None,
        held_next: false,
        in_logic: 0,
        no_whole_use: 0,
        multis: Vec::new(),
        multi_called: Vec::new(),
        wholes: Vec::new(),
        in_fold_init: 0,
        in_tuple_arm: 0,
        whole_loops: Vec::new(),
        enum_param: None,
        in_while_let: 0,
        made: None,
        made_called: false,
        refs_ok: false,
        replace_ok: false,
        filters_ok: false,
        filtered: Vec::new(),
        dead_refs: Vec::new(),
        sw_in: false,
        sw_sigs: Vec::new(),
        sw_called: Vec::new(),
        sw_lent: None,
        sw_plan: None,
        top_loop: false,
        loop_arms: 0,
        in_items: false,
    };
    let mut p = g.program();
    p.seed = seed;
    paths::call_owned_helper(&mut p);
    // `xs[i].sin()` becomes `(xs[i] + 0.0).sin()` without
    // `element_receiver`; `data0.ys[k].sin()` and `p0.f1.sin()` of a
    // constant struct (in path form too) without `const_method_in_loop`
    // (#[grad] keeps a method of a part of a value it does not model as
    // written: see `field_loop`).
    let elements = !f.has("element_receiver");
    let constant_fields = !f.has("const_method_in_loop");
    for func in p
        .helper
        .iter_mut()
        .chain(p.methods.iter_mut())
        .chain(p.wholes.iter_mut())
        .chain(std::iter::once(&mut p.main))
    {
        let constant: Vec<String> = func
            .params
            .iter()
            .filter(|q| {
                matches!(
                    q.kind,
                    PKind::Struct { fixed: Some(_), .. } | PKind::Data { .. }
                )
            })
            .map(|q| q.name.clone())
            .collect();
        let is_constant = |s: &str| constant.iter().any(|c| c == s);
        let mut fix = |e: &mut Expr| {
            let (recv, path) = match e {
                Expr::Un(_, a, path) | Expr::Bi(_, a, _, path) => (a, *path),
                Expr::MulAdd(a, _, _) => (a, false),
                _ => return,
            };
            let wrap = match &**recv {
                Expr::Index(a, _) if a.split_once('.').is_some_and(|(s, _)| is_constant(s)) => {
                    constant_fields || (elements && !path)
                }
                Expr::Index(..) => elements && !path,
                Expr::Field(s, _) => constant_fields && is_constant(s),
                _ => false,
            };
            if wrap {
                let inner = std::mem::replace(&mut **recv, Expr::Lit(0.0, LitStyle::Plain));
                **recv = Expr::Bin(
                    BinOp::Add,
                    Box::new(inner),
                    Box::new(Expr::Lit(0.0, LitStyle::Plain)),
                );
            }
        };
        let mut noop = |_: &mut IExpr| {};
        map_block(&mut func.body, &mut fix, &mut noop);
    }
    p.trace = crate::trace::traceable(&p, f);
    p.jvp = crate::jvp::checkable(&p, f);
    p.ckpt_zero_sign = f.has("checkpoint_zero_sign");
    p.hessian = crate::hessian::checkable(&p, f);
    p.gen_style = GenStyle {
        vec_literals: f.has("hessian_vec_literal"),
        path_form: f.has("hessian_path_form"),
        vec_param: f.has("hessian_vec_param"),
        literal_args: f.has("hessian_literal_args"),
    };
    p
}

#[derive(Default, Clone)]
struct Frame {
    /// Float variables: name, mutable.
    floats: Vec<(String, bool)>,
    /// Integer variables: name, largest value.
    ints: Vec<(String, u64)>,
    /// Arrays: name, length, kind.
    arrs: Vec<(String, u64, ArrKind)>,
    /// Closures bound by `let`.
    closures: Vec<String>,
    /// The float variables of `floats` declared with their type written
    /// (`let x: f64`, as a `let` of a literal is rendered): the only ones
    /// lent to a writer (`float_writer`).
    written: Vec<String>,
    /// Local structs (`struct_values`).
    structs: Vec<Local>,
    /// Results bound by `let` to be passed on whole (`passed_whole`):
    /// name, what they are.
    wholes: Vec<(String, passed::Shape)>,
    /// References to floats, `let r = &x;` (`float_ref`): `&f64`s, read as
    /// floats only where Rust reads a reference so; with the float each
    /// borrows.
    refs: Vec<(String, String)>,
    /// Structs `make` returned, `let p: P1 = make(..);` (`made_struct`),
    /// with the branch arms around their `let` ([`G::arms`], and whether
    /// after a `return`).
    made: Vec<(String, usize, bool)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ArrKind {
    /// An array parameter.
    Param,
    /// A local array: the only kind written (with `Pushed`).
    Local,
    /// A `Vec::new()` filled by `push`, its length that of the frame's
    /// entry at least (more pushes may follow, in loops and branches): read
    /// and written below that length, never a loop's bound, a call's
    /// slice or replaced whole.
    Pushed,
    /// A struct's `Vec` field (`p0.w`, `self.w`, `data0.ys`): read by
    /// index, its `.len()` a loop bound; `constant` where the struct is.
    Field { constant: bool },
    /// A local struct's `w` (`q.w`, `struct_values`): read by index only.
    StructW,
    /// An array a call returned, `let d = g1(..);` (`array_call`): read
    /// by index only.
    Returned,
}

#[derive(Clone, Copy)]
struct Ctx {
    /// Number of loops around.
    loops: usize,
    /// Directly in the function body.
    top: bool,
    /// Directly in a loop body (not inside an `if` there).
    loop_top: bool,
    /// Every loop around sits directly in the body or directly in the body
    /// of such a loop: a `return` may go there.
    loops_at_top: bool,
    /// Number of `if` branches around.
    ifs: usize,
}

const TOP: Ctx = Ctx {
    loops: 0,
    top: true,
    loop_top: false,
    loops_at_top: true,
    ifs: 0,
};

struct G<'a> {
    rng: Rng,
    /// A stream of its own for `passed_whole`'s decision and functions:
    /// a program without them is the one the seed gave before the feature
    /// (the fixed-seed batches keep their programs).
    side: Rng,
    /// Likewise for the decisions of `method_path`, `assoc_fn`,
    /// `made_struct`, `mem_replace`, `filter_names` and `float_ref`, and
    /// the functions of `made_struct`.
    more: Rng,
    /// Likewise for the decision of `struct_writer` and its writers.
    wr: Rng,
    f: &'a Features,
    next: usize,
    consts: Vec<String>,
    /// The helper: its name and its parameters (a slice, if any, last).
    helper: Option<(String, Vec<Param>)>,
    frames: Vec<Frame>,
    /// Inside a closure body: no statements, calls or reductions.
    closure: usize,
    in_helper: bool,
    /// Float variables declared at the top level of the body being
    /// generated, in order: the tail reads them.
    locals: Vec<String>,
    /// Local arrays a `for` loop around iterates: not written there.
    frozen: Vec<String>,
    /// The parameters of the closures around.
    closure_vars: Vec<(String, bool)>,
    /// Number of helper calls whose arguments are being generated.
    in_call: usize,
    /// Variables declared without a type whose value comes from a user
    /// `const` or a call: #[grad] cannot see their type.
    opaque: Vec<String>,
    /// Generating a closure bound by `let`: it reads only immutable
    /// variables (it borrows them until its last call).
    immutable_captures: bool,
    /// The function's struct parameters (or `self`), with their number of
    /// float fields and whether they are differentiated.
    structs: Vec<(String, u64, bool)>,
    /// The function's `bool` parameters.
    bools: Vec<String>,
    /// The struct (`p0`, `self`) of the function whose `n: usize` and
    /// `w: Vec<f64>` it reads.
    grid: Option<(String, Grid)>,
    /// The struct type's float fields and grid: what `self` is.
    layout: Option<(u64, Option<Grid>)>,
    /// The methods the function being generated may call: receiver,
    /// name, parameters (without the receiver).
    method_calls: Vec<(String, String, Vec<Param>)>,
    /// The body starts with `let a = <method call>;`, which the tail
    /// reads (`m1` calls `self.m0`, and `f` a method of `p0`, whenever
    /// there are methods), outside any branch arm.
    call_first: bool,
    /// That variable.
    first_call: Option<String>,
    /// Number of branch arms around the code being generated: `if` arms,
    /// `match` arms, and the rest of a loop body after a jump or of a
    /// `loop` after its `if k > N { break; }`.
    arms: usize,
    /// A `return` was generated: the rest of the function is an arm.
    returned: bool,
    /// Number of loops around the code being generated.
    loops: usize,
    /// Variables the tail reads whatever it picks.
    must_reach: Vec<String>,
    /// The local arrays declared as `Vec`s (`vec![..]`), not `[..]`.
    vecs: Vec<String>,
    /// The step function (`step_call`): its name, its parameters (a
    /// slice, then floats) and the length of the arrays it takes.
    step: Option<(String, Vec<Param>, u64)>,
    /// Generating the step function's body: the length of its arrays.
    step_len: Option<u64>,
    /// `f` calls the step function.
    step_called: bool,
    /// Generating the body of a `#[checkpoint(..)]` loop: no `return`, no
    /// `break` out of it.
    in_ckpt: bool,
    /// The float parameters of the function being generated (float
    /// syntax to #[grad], in a pushed value).
    float_params: Vec<String>,
    /// The state array that the loop body being generated replaces
    /// (`array_state`, `step_call`), taken by [`G::loop_body`].
    plan: Option<Plan>,
    /// What the function being generated returns.
    ret: Ret,
    /// The writer (`float_writer`): its name and parameters (the floats
    /// it takes by `&mut` first).
    writer: Option<(String, Vec<Param>)>,
    /// `f` calls the writer.
    writer_called: bool,
    /// The fallible function (`fallible_call`).
    fallible: Option<Callee>,
    /// `f` calls the fallible function.
    fallible_called: bool,
    /// `f` has local structs of `P0` (`struct_values`).
    sv: bool,
    /// The methods of `P0` returning a float, without the receiver: what
    /// `f` may call on a local struct.
    sv_methods: Vec<(String, Vec<Param>)>,
    /// `hp0(hp: &P0, ..)`: its name and its parameters after `hp`.
    struct_fn: Option<(String, Vec<Param>)>,
    /// `f` calls `hp0`.
    sv_fn_called: bool,
    /// `st0(&self, x: f64) -> Self`: its name and its parameters after
    /// `self`.
    step_method: Option<(String, Vec<Param>)>,
    /// `f` calls `st0`.
    sv_stepped: bool,
    /// The `let mut` local struct that the loop being generated steps,
    /// `q = q.st0(e);`, taken by [`G::loop_body`].
    struct_step: Option<String>,
    /// The next loop walks a `Vec` of structs (`struct_vec_loops`): set
    /// right after one is declared.
    held_next: bool,
    /// Generating an operand of `&&` or `||` (a `while`'s condition
    /// follows `k < N &&`).
    in_logic: usize,
    /// Generating code that uses no local struct whole.
    no_whole_use: usize,
    /// The functions returning several floats (`array_call`): name,
    /// parameters, what they return.
    multis: Vec<(String, Vec<Param>, Ret)>,
    /// Those `f` calls.
    multi_called: Vec<String>,
    /// The functions of `passed_whole`: name, parameters, what they
    /// return.
    wholes: Vec<(String, Vec<Param>, passed::Shape)>,
    /// Generating the initial value of a `fold` (`passed_whole_in_fold`).
    in_fold_init: usize,
    /// Generating an arm of a tuple from branches (`passed_whole_in_tuple`).
    in_tuple_arm: usize,
    /// The number of loops around each result bound to be passed on whole
    /// (`passed_whole_into_loop`).
    whole_loops: Vec<(String, usize)>,
    /// The enum parameter of the function being generated (`enum_match`).
    enum_param: Option<String>,
    /// Generating the body of a `while let` (`while_let`): no array
    /// declared or changed there.
    in_while_let: usize,
    /// The struct of `made_struct`: what `f` may call.
    made: Option<made::Sig>,
    /// `f` calls `make`.
    made_called: bool,
    /// The program binds references to floats (`float_ref`).
    refs_ok: bool,
    /// The program replaces floats with `std::mem::replace` (`mem_replace`).
    replace_ok: bool,
    /// The program filters its `for` loops over `enumerate()`
    /// (`filter_names`).
    filters_ok: bool,
    /// The elements of the filtered loops around (`filter_names`): `&f64`s.
    filtered: Vec<String>,
    /// References of `float_ref` no longer read: the float they borrow was
    /// shadowed (without `ref_shadowed`).
    dead_refs: Vec<String>,
    /// Generating a function that holds structs for the struct writers
    /// and calls them (`struct_writer`: `f`, `hp0`).
    sw_in: bool,
    /// The struct writers generated so far: what may be called.
    sw_sigs: Vec<struct_writers::Sig>,
    /// The struct writers called (by `f`, `hp0` or another writer).
    sw_called: Vec<String>,
    /// The struct the struct writer being generated changes: `self`, `sp`.
    sw_lent: Option<String>,
    /// The `let mut` local struct whose writers the loop being generated
    /// calls at the start of its body, taken by [`G::loop_body`].
    sw_plan: Option<String>,
    /// Generating the body of a loop at the top level of the function's
    /// body (not after a `return`), nested in nothing.
    top_loop: bool,
    /// [`G::arms`] where the body of the loop being generated starts.
    loop_arms: usize,
    /// Telling whether the items of an array literal show their type
    /// ([`G::anchored`]).
    in_items: bool,
}

/// A local array carried across the iterations of a loop: replaced at the
/// end of each iteration (or reset at its start).
#[derive(Clone)]
struct Plan {
    state: String,
    len: u64,
    vec: bool,
    how: How,
}

#[derive(Clone)]
enum How {
    /// `let mut next = vec![0.0; n];` in the body, filled element by
    /// element, then `state = next;`.
    Move,
    /// `next`, declared before the loop, filled, then
    /// `std::mem::swap(&mut state, &mut next);`.
    Swap(String),
    /// `next` filled (declared in the body if `None`), then
    /// `state.copy_from_slice(&next);`.
    Copy(Option<String>),
    /// `state.fill(v);` at the start of the body (or its end).
    Fill(bool),
    /// `state = [a, b];` of the old state's elements.
    List,
    /// `state = step(&state, k);`
    Step,
}

const NICE: &[f64] = &[
    0.5, 1.5, 2.0, 0.25, 3.0, 0.1, 0.75, 1.0, 0.3, 1.25, 0.8, 2.5,
];

impl G<'_> {
    /// The integer patterns of one `match` arm: one or two of `vals`,
    /// drawn out of it, in order.
    fn arm_patterns(&mut self, vals: &mut Vec<u64>) -> Vec<u64> {
        let mut pats = Vec::new();
        for _ in 0..self.rng.range(1, 2) {
            if vals.is_empty() {
                break;
            }
            let j = self.rng.below(vals.len());
            pats.push(vals.remove(j));
        }
        pats.sort();
        pats
    }

    fn has(&self, name: &str) -> bool {
        self.f.has(name)
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next - 1)
    }

    // ------------------------------------------------------------ scopes

    fn push(&mut self) {
        self.frames.push(Frame::default());
    }

    fn pop(&mut self) {
        self.frames.pop();
    }

    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a frame")
    }

    fn declare_float(&mut self, name: &str, mutable: bool) {
        self.frame().floats.push((name.to_string(), mutable));
    }

    /// Visible closures bound by `let`.
    fn closures(&self) -> Vec<String> {
        self.frames
            .iter()
            .flat_map(|f| f.closures.iter().cloned())
            .collect()
    }

    /// `let name = |v: f64| body;`: a body of the parameter and immutable
    /// variables, at least the parameter.
    fn let_closure(&mut self, out: &mut Vec<Stmt>) {
        let name = self.fresh("c");
        let param = self.fresh("v");
        self.push();
        self.declare_float(&param, false);
        self.closure += 1;
        self.immutable_captures = true;
        self.closure_vars.push((param.clone(), false));
        let mut body = self.expr(2);
        self.closure_vars.pop();
        self.immutable_captures = false;
        self.closure -= 1;
        self.pop();
        if !mentions_var(&body, &param) {
            body = Expr::Bin(BinOp::Mul, Self::b(body), Self::b(Expr::Var(param.clone())));
        }
        // Bounded however often it is applied to its own results.
        let body = self.squash(body);
        out.push(Stmt::LetClosure {
            name: name.clone(),
            param,
            body,
        });
        self.frame().closures.push(name);
    }

    /// Visible float variables, innermost declaration of each name.
    fn floats(&self) -> Vec<(String, bool)> {
        let mut out: Vec<(String, bool)> = Vec::new();
        for fr in self.frames.iter().rev() {
            for (n, m) in fr.floats.iter().rev() {
                if !out.iter().any(|(o, _)| o == n) {
                    out.push((n.clone(), *m));
                }
            }
        }
        out
    }

    fn mutables(&self) -> Vec<String> {
        self.floats()
            .into_iter()
            .filter(|(_, m)| *m)
            .map(|(n, _)| n)
            .collect()
    }

    fn ints(&self) -> Vec<(String, u64)> {
        self.frames.iter().flat_map(|f| f.ints.clone()).collect()
    }

    /// Visible arrays (name, length) that `keep` keeps, given the name and
    /// the kind.
    fn arrs_where(&self, keep: impl Fn(&str, ArrKind) -> bool) -> Vec<(String, u64)> {
        self.frames
            .iter()
            .flat_map(|f| f.arrs.iter())
            .filter(|(n, _, k)| keep(n, *k))
            .map(|(n, l, _)| (n.clone(), *l))
            .collect()
    }

    /// Visible arrays, parameters and locals (iterated, summed, passed to
    /// the helper); `writable` only local arrays.
    fn arrs(&self, writable: bool) -> Vec<(String, u64)> {
        let frozen = |n: &str| self.frozen.iter().any(|f| f == n);
        self.arrs_where(|n, k| match k {
            ArrKind::Local | ArrKind::Pushed => !writable || !frozen(n),
            ArrKind::Param => !writable,
            ArrKind::Field { .. } | ArrKind::StructW | ArrKind::Returned => false,
        })
    }

    /// Arrays a `for` loop may iterate over: parameters, and locals with
    /// `for_local_array`.
    fn iterable_arrs(&self) -> Vec<(String, u64)> {
        let locals = self.has("for_local_array");
        self.arrs_where(|_, k| k == ArrKind::Param || (locals && k == ArrKind::Local))
    }

    /// Arrays that may be read: locals and structs' fields always,
    /// parameters with `slice_index`.
    fn readable_arrs(&self) -> Vec<(String, u64)> {
        let params_ok = self.has("slice_index");
        self.arrs_where(|_, k| k != ArrKind::Param || params_ok)
    }

    /// The `Vec` fields of constant structs in scope (`data0.ys`, the `w`
    /// of a constant `p0`).
    fn constant_arrs(&self) -> Vec<(String, u64)> {
        self.arrs_where(|_, k| k == ArrKind::Field { constant: true })
    }

    /// The `Vec` fields of constant structs without a grid: `data0.ys`.
    fn data_arrs(&self) -> Vec<(String, u64)> {
        let w = self.grid.as_ref().map(|(s, _)| format!("{s}.w"));
        self.arrs_where(|n, k| matches!(k, ArrKind::Field { .. }) && Some(n) != w.as_deref())
    }

    // ------------------------------------------------------------ program

    fn program(&mut self) -> Program {
        let mut consts = Vec::new();
        if self.has("user_const") || self.has("const_init") {
            for _ in 0..self.rng.range(1, 2) {
                let name = format!("C{}", consts.len());
                let v = self.nice_or_random();
                consts.push((name.clone(), v));
                self.consts.push(name);
            }
        }
        let helper = if self.has("helper_call") && self.rng.chance(0.4) {
            let params = self.helper_params();
            self.in_helper = true;
            let budget = self.rng.range(1, 4);
            let h = self.func("helper", params.clone(), budget);
            self.in_helper = false;
            self.helper = Some(("helper".to_string(), params));
            Some(h)
        } else {
            None
        };
        let step = if self.has("step_call") && self.rng.chance(0.13) {
            Some(self.step_func())
        } else {
            None
        };
        // The struct parameter first: the methods are its type's.
        let strukt = self.struct_param();
        self.layout = match &strukt {
            Some(Param {
                kind: PKind::Struct { fields, grid, .. },
                ..
            }) => Some((*fields, *grid)),
            _ => None,
        };
        let mut methods = match &strukt {
            Some(p) if self.has("methods") && self.rng.chance(0.5) => self.methods(&p.kind),
            _ => Vec::new(),
        };
        // A writer's call, a fallible function and its call are not traced
        // (src/trace.rs): they go mostly where a method call (`f` calls
        // every method) already keeps `trace` off, so that most programs
        // stay traced.
        let odds = if methods.is_empty() { 0.02 } else { 0.45 };
        // Functions returning `[f64; N]` and `(f64, f64)` (`array_call`),
        // not traced either.
        let multi_odds = if methods.is_empty() { 0.06 } else { 0.45 };
        let multis = if self.has("array_call") && self.rng.chance(multi_odds) {
            self.multi_funcs()
        } else {
            Vec::new()
        };
        // Functions whose results `f` passes on whole (`passed_whole`):
        // of floats (traced, under `jvp`), or of arrays and `Vec`s (not),
        // those only where a method call (`f` calls each) keeps `trace`
        // off anyway.
        let untraced = !methods.is_empty();
        let whole_odds = if untraced { 0.7 } else { 0.25 };
        let wholes = if self.has("passed_whole") && self.side.chance(whole_odds) {
            std::mem::swap(&mut self.rng, &mut self.side);
            let wholes = self.whole_funcs(untraced);
            std::mem::swap(&mut self.rng, &mut self.side);
            wholes
        } else {
            Vec::new()
        };
        // The constructs of this stream (`more`): decided per program, so
        // that a program without them is the one the seed gave before.
        self.refs_ok = self.has("float_ref") && self.more.chance(0.3);
        self.replace_ok = self.has("mem_replace") && self.more.chance(0.35);
        // Filtered loops are not traced (`trace_filter`): mostly where a
        // method call keeps `trace` off anyway.
        let filter_odds = if methods.is_empty() { 0.25 } else { 0.8 };
        self.filters_ok = self.has("filter_names") && self.more.chance(filter_odds);
        // `P1` and `make` (`made_struct`): not traced nor under `hessian`,
        // so mostly where a method call keeps `trace` off anyway.
        let made_odds = if methods.is_empty() { 0.02 } else { 0.5 };
        let made = if self.has("made_struct") && self.more.chance(made_odds) {
            std::mem::swap(&mut self.rng, &mut self.more);
            let made = self.made_funcs();
            std::mem::swap(&mut self.rng, &mut self.more);
            Some(made)
        } else {
            None
        };
        // Struct writers of `P0` (`struct_writer`), from a stream of their
        // own: not traced, not under `jvp` nor `hessian`, so mostly where
        // something else (a method call, ..) keeps `trace` off anyway, and
        // seldom beside arrays passed on whole, which are under `jvp`
        // otherwise.
        let untraced = !methods.is_empty() || !multis.is_empty() || made.is_some();
        let vectors = wholes
            .iter()
            .any(|g| g.ret_arr.is_some() || matches!(g.ret, Ret::Array(_)));
        let sw_odds = if !untraced {
            0.03
        } else if vectors && multis.is_empty() && step.is_none() {
            0.1
        } else {
            0.75
        };
        let mut struct_writers =
            if strukt.is_some() && self.has("struct_writer") && self.wr.chance(sw_odds) {
                std::mem::swap(&mut self.rng, &mut self.wr);
                let ws = self.struct_writer_funcs(&methods);
                std::mem::swap(&mut self.rng, &mut self.wr);
                ws
            } else {
                Vec::new()
            };
        let writer = if self.has("float_writer") && self.rng.chance(odds) {
            Some(self.writer_func())
        } else {
            None
        };
        // What `f` returns: `Result<f64, String>` or `Option<f64>` where
        // it calls the fallible function with `?`.
        let (fallible, main_ret) = if self.has("fallible_call") && self.rng.chance(odds) {
            let (g, main_ret) = self.fallible_func();
            (Some(g), main_ret)
        } else {
            (None, Ret::Float)
        };
        // Local structs of `P0` (`struct_values`), not traced either: with
        // `hp0(hp: &P0, ..)` and, for a type of floats, `st0(&self, x) ->
        // Self` (src/gen/structs.rs).
        let float_methods: Vec<(String, Vec<Param>)> = methods
            .iter()
            .map(|m| (m.name.clone(), m.params[1..].to_vec()))
            .collect();
        let sv_odds = if methods.is_empty() { 0.03 } else { 0.7 };
        let sv = self.has("struct_values") && self.layout.is_some() && self.rng.chance(sv_odds);
        let struct_fn = if sv && self.rng.chance(0.7) {
            // `hp0` holds structs for the writers too.
            self.sw_in = !struct_writers.is_empty();
            let h = self.struct_fn_func();
            self.sw_in = false;
            Some(h)
        } else {
            None
        };
        if sv && self.rng.chance(0.8) {
            methods.push(self.step_method_func());
        }

        let mut params = Vec::new();
        for k in 0..self.rng.range(1, 4) {
            params.push(Param {
                name: format!("x{k}"),
                kind: PKind::Scalar,
            });
        }
        let mut styles = Vec::new();
        if self.has("slice_params") {
            styles.push(SliceStyle::Slice);
        }
        if self.has("array_params") {
            styles.push(SliceStyle::Array);
            styles.push(SliceStyle::ArrayRef);
        }
        if self.has("vec_params") {
            styles.push(SliceStyle::VecRef);
        }
        if !styles.is_empty() && self.rng.chance(0.6) {
            for k in 0..self.rng.range(1, 2) {
                let style = *self.rng.pick(&styles);
                params.push(Param {
                    name: format!("xs{k}"),
                    kind: PKind::Slice {
                        len: self.rng.range(2, 5) as u64,
                        style,
                    },
                });
            }
        }
        params.extend(strukt);
        if self.has("const_struct_vec") && self.rng.chance(0.3) {
            let ys = (0..self.rng.range(2, 5))
                .map(|_| self.nice_or_random())
                .collect();
            params.push(Param {
                name: "data0".to_string(),
                kind: PKind::Data { ys },
            });
        }
        if self.has("enum_match") && self.rng.chance(0.2) {
            params.push(Param {
                name: "mode0".to_string(),
                kind: PKind::Enum {
                    payload: self.nice_or_random(),
                },
            });
        }
        if self.has("int_params") && self.rng.chance(0.5) {
            params.push(Param {
                name: "n0".to_string(),
                kind: PKind::Int {
                    max: self.rng.range(2, 5) as u64,
                },
            });
        }
        // Parameters in a random order.
        for i in (1..params.len()).rev() {
            let j = self.rng.below(i + 1);
            params.swap(i, j);
        }
        let budget = self.rng.range(3, 10);
        // `f` calls the methods on `p0`, in its first statement at least.
        self.method_calls = float_methods
            .iter()
            .map(|(m, ps)| ("p0".to_string(), m.clone(), ps.clone()))
            .collect();
        self.call_first = !float_methods.is_empty();
        self.ret = main_ret;
        self.sv = sv;
        self.sv_methods = float_methods;
        self.sw_in = !struct_writers.is_empty();
        self.sw_called.clear();
        let main = self.func("f", params, budget);
        self.sw_in = false;
        self.sv = false;
        self.sv_methods.clear();
        self.ret = Ret::Float;
        self.method_calls.clear();
        self.call_first = false;
        // `hp0` and `st0` where `f` calls them.
        let struct_fn = struct_fn.filter(|_| self.sv_fn_called);
        self.struct_fn = None;
        if !self.sv_stepped {
            methods.retain(|m| m.ret != Ret::Struct);
        }
        self.step_method = None;
        // A step function, writer or fallible function `f` does not call
        // is left out.
        let step = step.filter(|_| self.step_called);
        self.step = None;
        let writer = writer.filter(|_| self.writer_called);
        self.writer = None;
        let fallible = fallible.filter(|_| self.fallible_called);
        self.fallible = None;
        let called = std::mem::take(&mut self.multi_called);
        let multis: Vec<Func> = multis
            .into_iter()
            .filter(|g| called.contains(&g.name))
            .collect();
        self.multis.clear();
        let wholes = passed::called(&main, wholes);
        self.wholes.clear();
        let made = made.filter(|_| self.made_called);
        self.made = None;
        self.made_called = false;
        // The struct writers `f` or `hp0` call (and those they call).
        let roots: Vec<&Func> = std::iter::once(&main).chain(struct_fn.iter()).collect();
        let called = struct_writers::reached(&roots, &struct_writers);
        struct_writers.retain(|w| called.contains(&w.name));
        self.sw_called.clear();
        self.sw_sigs.clear();
        // The helper an associated function (`assoc_fn`): of `P0` where the
        // program has the type, else of a unit struct; mostly where a method
        // call keeps `trace` off anyway (`trace_assoc_fn`).
        let assoc_odds = if methods.is_empty() { 0.04 } else { 0.5 };
        let helper_owner =
            (helper.is_some() && self.has("assoc_fn") && self.more.chance(assoc_odds)).then(|| {
                if main.struct_param().is_some() {
                    struct_ty("p0")
                } else {
                    UNIT_TY.to_string()
                }
            });

        let n_in = main.n_inputs();
        let mut points = Vec::new();
        for _ in 0..3 {
            let floats = (0..n_in)
                .map(|_| (self.rng.uniform(-1.5, 1.5) * 1000.0).round() / 1000.0)
                .collect();
            let ints = main
                .params
                .iter()
                .filter_map(|p| match p.kind {
                    PKind::Int { max } => Some(self.rng.range(0, max as usize) as u64),
                    // The variant: `A`, `B` or `C(payload)`.
                    PKind::Enum { .. } => Some(self.rng.range(0, 2) as u64),
                    _ => None,
                })
                .collect();
            points.push(Point { floats, ints });
        }
        let dir = (0..n_in).map(|_| self.rng.uniform(-1.0, 1.0)).collect();
        Program {
            seed: 0,
            consts,
            helper,
            methods,
            main,
            step,
            writer,
            fallible,
            struct_fn,
            multis,
            wholes,
            made,
            struct_writers,
            helper_owner,
            points,
            dir,
            trace: false,
            jvp: false,
            ckpt_zero_sign: false,
            hessian: false,
            gen_style: GenStyle::default(),
        }
    }

    /// The step function of `step_call`: `step(ss0: &[f64], sk0: f64, ..)
    /// -> Vec<f64>`, its body a few statements, then `let mut v = vec![0.0;
    /// n]; for i in 0..ss0.len() { v[i] = .. ss0[i] ..; } v`, each element
    /// a bounded function of the old one.
    fn step_func(&mut self) -> Func {
        let len = self.rng.range(2, 4) as u64;
        let mut params = vec![Param {
            name: "ss0".to_string(),
            kind: PKind::Slice {
                len,
                style: SliceStyle::Slice,
            },
        }];
        for k in 0..self.rng.range(1, 2) {
            params.push(Param {
                name: format!("sk{k}"),
                kind: PKind::Scalar,
            });
        }
        self.in_helper = true;
        self.step_len = Some(len);
        let budget = self.rng.range(0, 2);
        let f = self.func("step", params.clone(), budget);
        self.step_len = None;
        self.in_helper = false;
        self.step = Some(("step".to_string(), params, len));
        f
    }

    /// The step function's result (or `vw0`'s, `passed_whole`): a new
    /// `Vec` of the old state's length, filled by a loop over `src`, the
    /// slice it takes.
    fn step_out(&mut self, len: u64, src: &str, stmts: &mut Vec<Stmt>) -> String {
        let out = self.fresh("v");
        let typed = !self.has("untyped_array") || self.rng.chance(0.5);
        stmts.push(Stmt::LetArr {
            name: out.clone(),
            typed,
            init: ArrInit::Fill { len, vec: true },
        });
        if !self.has("for_range") {
            for k in 0..len {
                let old = Expr::Index(src.to_string(), IExpr::Lit(k));
                let value = self.carry(old);
                stmts.push(Stmt::Store {
                    arr: out.clone(),
                    idx: IExpr::Lit(k),
                    op: AOp::Set,
                    value,
                });
            }
            return out;
        }
        self.push();
        self.loops += 1;
        let i = self.fresh("i");
        self.frame().ints.push((i.clone(), len - 1));
        let old = Expr::Index(src.to_string(), IExpr::Var(i.clone()));
        let value = self.carry(old);
        self.loops -= 1;
        self.pop();
        stmts.push(Stmt::For {
            var: i.clone(),
            range: Self::upto(IExpr::Len(src.to_string())),
            body: vec![Stmt::Store {
                arr: out.clone(),
                idx: IExpr::Var(i),
                op: AOp::Set,
                value,
            }],
            ckpt: None,
        });
        out
    }

    /// A bounded new value of a state element `old`, however often it is
    /// applied: `squash(old * c + e)` or `old * c + squash(e)`, `c < 1`.
    fn carry(&mut self, old: Expr) -> Expr {
        let c = Expr::Lit(*self.rng.pick(&[0.5, 0.9, 0.25]), LitStyle::Plain);
        let e = self.expr(1);
        let scaled = Expr::Bin(BinOp::Mul, Self::b(old), Self::b(c));
        if self.rng.chance(0.5) {
            self.squash(Expr::Bin(BinOp::Add, Self::b(scaled), Self::b(e)))
        } else {
            let e = self.squash(e);
            Expr::Bin(BinOp::Add, Self::b(scaled), Self::b(e))
        }
    }

    fn nice_or_random(&mut self) -> f64 {
        if self.rng.chance(0.6) {
            *self.rng.pick(NICE)
        } else {
            (self.rng.uniform(-2.0, 2.0) * 100.0).round() / 100.0
        }
    }

    /// The helper's parameters: one to three floats `h0..`, maybe a
    /// `usize` `nh0` (`call_int_args`), a `bool` `hb0` (`call_bool_args`)
    /// and a float `hc0` left out of its `wrt` (`call_const_param`), in a
    /// random order, and maybe a slice `hs0` (`helper_array`), last.
    fn helper_params(&mut self) -> Vec<Param> {
        let arity = self.rng.range(1, 3);
        let mut params: Vec<Param> = (0..arity)
            .map(|k| Param {
                name: format!("h{k}"),
                kind: PKind::Scalar,
            })
            .collect();
        if self.has("call_int_args") && self.rng.chance(0.5) {
            let max = self.rng.range(1, 4) as u64;
            params.push(Param {
                name: "nh0".to_string(),
                kind: PKind::Int { max },
            });
        }
        if self.has("call_bool_args") && self.rng.chance(0.4) {
            params.push(Param {
                name: "hb0".to_string(),
                kind: PKind::Bool,
            });
        }
        if self.has("call_const_param") && self.rng.chance(0.4) {
            params.push(Param {
                name: "hc0".to_string(),
                kind: PKind::ConstScalar,
            });
        }
        for i in (1..params.len()).rev() {
            let j = self.rng.below(i + 1);
            params.swap(i, j);
        }
        if self.has("helper_array") && self.rng.chance(0.5) {
            params.push(Param {
                name: "hs0".to_string(),
                kind: PKind::Slice {
                    len: self.rng.range(2, 3) as u64,
                    style: SliceStyle::Slice,
                },
            });
        }
        params
    }

    /// The struct parameter `p0: &P0`, if any: differentiated
    /// (`struct_param`) or a constant of fixed values (`const_receiver`,
    /// under a bare `#[grad]`), with `n: usize` and `w: Vec<f64>`
    /// (`struct_int_field`).
    fn struct_param(&mut self) -> Option<Param> {
        let active_ok = self.has("struct_param");
        let constant_ok = self.has("const_receiver");
        if !(active_ok || constant_ok) || !self.rng.chance(0.4) {
            return None;
        }
        let fields = self.rng.range(1, 3) as u64;
        let grid = (self.has("struct_int_field") && self.rng.chance(0.5)).then(|| Grid {
            rows: self.rng.range(1, 3) as u64,
            n: self.rng.range(1, 3) as u64,
        });
        let constant = !active_ok || (constant_ok && self.rng.chance(0.3));
        let fixed = constant.then(|| {
            (0..fields + grid.map_or(0, |g| g.len()))
                .map(|_| self.nice_or_random())
                .collect()
        });
        Some(Param {
            name: "p0".to_string(),
            kind: PKind::Struct {
                fields,
                grid,
                fixed,
            },
        })
    }

    /// The methods of `P0` (`strukt`, the kind of `p0`): `m0(&self, x: f64)`
    /// under `wrt(self, x)`, then, with `method_on_self`, maybe `m1(&self,
    /// ..)` under `wrt(self)`, whose other parameters (a float `kc0`, a
    /// `usize` `nm0`) are constants, calling `self.m0(..)`.
    fn methods(&mut self, strukt: &PKind) -> Vec<Func> {
        let PKind::Struct { fields, grid, .. } = strukt else {
            return Vec::new();
        };
        self.layout = Some((*fields, *grid));
        let recv = Param {
            name: "self".to_string(),
            kind: PKind::Receiver,
        };
        self.in_helper = true;
        let budget = self.rng.range(1, 3);
        let x = Param {
            name: "x".to_string(),
            kind: PKind::Scalar,
        };
        let m0 = self.func("m0", vec![recv.clone(), x], budget);
        let mut out = vec![m0];
        if self.has("method_on_self") && self.rng.chance(0.6) {
            let mut params = vec![recv];
            if self.rng.chance(0.5) {
                params.push(Param {
                    name: "kc0".to_string(),
                    kind: PKind::ConstScalar,
                });
            }
            if self.rng.chance(0.4) {
                let max = self.rng.range(1, 3) as u64;
                params.push(Param {
                    name: "nm0".to_string(),
                    kind: PKind::Int { max },
                });
            }
            self.method_calls = vec![(
                "self".to_string(),
                "m0".to_string(),
                out[0].params[1..].to_vec(),
            )];
            self.call_first = true;
            let budget = self.rng.range(1, 3);
            out.push(self.func("m1", params, budget));
            self.method_calls.clear();
            self.call_first = false;
        }
        self.in_helper = false;
        out
    }

    fn func(&mut self, name: &str, params: Vec<Param>, budget: usize) -> Func {
        self.frames.clear();
        self.locals.clear();
        self.opaque.clear();
        self.structs.clear();
        self.bools.clear();
        self.grid = None;
        self.vecs.clear();
        self.enum_param = params
            .iter()
            .find(|p| matches!(p.kind, PKind::Enum { .. }))
            .map(|p| p.name.clone());
        self.float_params = params
            .iter()
            .filter(|p| matches!(p.kind, PKind::Scalar | PKind::ConstScalar))
            .map(|p| p.name.clone())
            .collect();
        self.push();
        for p in &params {
            match &p.kind {
                PKind::Scalar | PKind::ConstScalar => self.declare_float(&p.name, false),
                PKind::MutScalar => self.declare_float(&p.name, true),
                PKind::Int { max } => self.frame().ints.push((p.name.clone(), *max)),
                PKind::Bool => self.bools.push(p.name.clone()),
                PKind::Slice { len, .. } => {
                    self.frame()
                        .arrs
                        .push((p.name.clone(), *len, ArrKind::Param))
                }
                PKind::Struct {
                    fields,
                    grid,
                    fixed,
                } => self.declare_struct(&p.name, *fields, *grid, fixed.is_none()),
                PKind::Data { ys } => {
                    let arr = format!("{}.ys", p.name);
                    let len = ys.len() as u64;
                    let kind = ArrKind::Field { constant: true };
                    self.frame().arrs.push((arr, len, kind));
                }
                PKind::Receiver | PKind::MutReceiver | PKind::MutStruct => {
                    let (fields, grid) = self.layout.expect("a method of the struct");
                    let name = if p.kind == PKind::MutStruct {
                        p.name.as_str()
                    } else {
                        "self"
                    };
                    self.declare_struct(name, fields, grid, true);
                }
                PKind::Enum { .. } => {}
            }
        }
        self.arms = 0;
        self.returned = false;
        self.loops = 0;
        self.must_reach.clear();
        let mut stmts = Vec::new();
        if self.call_first {
            let name = self.fresh("a");
            let init = self.method_call(1);
            let typed = self.annotate(&name, &init);
            stmts.push(Stmt::Let {
                name: name.clone(),
                mutable: false,
                typed,
                init,
            });
            self.declare_float(&name, false);
            self.first_call = Some(name);
        }
        // Often a local struct first (`struct_values`).
        if self.sv_here() && self.rng.chance(0.5) {
            self.let_struct(TOP, &mut stmts);
        }
        // The fallible function's guard clause `if c { return Err(..); }`,
        // before the computation (reading the parameters) or after it.
        let guard_first = self.fails_here() && self.rng.chance(0.5);
        if guard_first {
            stmts.push(self.fail_guard());
        }
        match self.ret {
            Ret::Unit if self.sw_lent.is_some() => stmts.extend(self.struct_writer_body()),
            Ret::Unit => stmts.extend(self.writer_body()),
            _ => stmts.extend(self.stmt_list(TOP, budget)),
        }
        if self.fails_here() && !guard_first {
            stmts.push(self.fail_guard());
        }
        let (tail, ret_arr) = match self.step_len {
            Some(len) => {
                let src = params[0].name.clone();
                let out = self.step_out(len, &src, &mut stmts);
                (Expr::Lit(0.0, LitStyle::Plain), Some(out))
            }
            // A writer has no tail, a method returning a struct that.
            None if matches!(self.ret, Ret::Unit | Ret::Struct) => {
                (Expr::Lit(0.0, LitStyle::Plain), None)
            }
            None => (self.tail(), None),
        };
        // A function returning several floats: the tail one of them.
        let ret_items = match self.ret {
            Ret::Array(n) | Ret::Tuple(n) => self.multi_items(tail.clone(), n),
            _ => Vec::new(),
        };
        // `make` (`made_struct`): the tail one of its struct's fields.
        let made_items = match self.ret {
            Ret::Made => self.made_items(tail.clone()),
            _ => Vec::new(),
        };
        let tail = if ret_items.is_empty() && made_items.is_empty() {
            tail
        } else {
            Expr::Lit(0.0, LitStyle::Plain)
        };
        let ret_struct = match self.ret {
            Ret::Struct => Some(self.step_lit(&mut stmts)),
            Ret::Made => Some(StructLit {
                floats: made_items,
                grid: None,
            }),
            _ => None,
        };
        self.pop();
        Func {
            name: name.to_string(),
            params,
            body: Block { stmts, tail },
            explicit_return: ret_arr.is_none()
                && matches!(self.ret, Ret::Float | Ret::Result | Ret::Option)
                && self.has("explicit_return")
                && self.rng.chance(0.2),
            ret_arr,
            ret_struct,
            ret_items,
            ret: self.ret,
        }
    }

    /// A struct parameter (or `self`): its float fields, and its grid's
    /// `n` (an integer) and `w` (an array).
    fn declare_struct(&mut self, name: &str, fields: u64, grid: Option<Grid>, active: bool) {
        self.structs.push((name.to_string(), fields, active));
        if let Some(g) = grid {
            self.frame().ints.push((format!("{name}.n"), g.n));
            let kind = ArrKind::Field { constant: !active };
            self.frame().arrs.push((format!("{name}.w"), g.len(), kind));
            self.grid = Some((name.to_string(), g));
        }
    }

    /// The result: the variables of the body, so that what the statements
    /// computed reaches it, plus array elements and one expression.
    fn tail(&mut self) -> Expr {
        let mut terms: Vec<Expr> = Vec::new();
        let visible: Vec<String> = self.floats().into_iter().map(|(n, _)| n).collect();
        let mut names: Vec<String> = self
            .locals
            .iter()
            .filter(|n| visible.contains(n))
            .cloned()
            .collect();
        names.dedup();
        let keep = names.len().saturating_sub(5);
        for n in names.drain(keep..) {
            terms.push(Expr::Var(n));
        }
        for (a, len) in self.arrs(true) {
            let i = self.rng.below(len as usize) as u64;
            terms.push(Expr::Index(a, IExpr::Lit(i)));
        }
        if let Some(n) = self.first_call.take() {
            terms.push(Expr::Var(n));
        }
        for n in std::mem::take(&mut self.must_reach) {
            if visible.contains(&n) {
                terms.push(Expr::Var(n));
            }
        }
        terms.extend(self.struct_reads());
        terms.push(self.expr(2));
        let mut e = terms.remove(0);
        for t in terms {
            let t = if self.rng.chance(0.3) {
                Expr::Bin(BinOp::Mul, Box::new(t), Box::new(self.lit()))
            } else {
                t
            };
            let op = if self.rng.chance(0.8) {
                BinOp::Add
            } else {
                BinOp::Sub
            };
            e = Expr::Bin(op, Box::new(e), Box::new(t));
        }
        e
    }

    // ------------------------------------------------------------ statements

    fn stmt_list(&mut self, ctx: Ctx, n: usize) -> Vec<Stmt> {
        let mut out = Vec::new();
        for _ in 0..n {
            self.stmt(ctx, &mut out);
        }
        out
    }

    fn stmt(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let loops_ok = if ctx.loops == 0 {
            ctx.ifs == 0 || self.has("loop_in_if")
        } else {
            self.has("nested_loops")
                && ctx.loops < 2 + usize::from(self.rng.chance(0.1))
                && (ctx.ifs == 0 || self.has("loop_in_if"))
        } && !self.in_helper;
        let helper_loops = self.in_helper && ctx.loops == 0 && ctx.ifs == 0;
        let has_mut = !self.mutables().is_empty();
        let arrays_here = (ctx.top || ctx.loop_top)
            && self.in_while_let == 0
            && (self.has("local_vec") || self.has("local_array"))
            && (ctx.loops == 0 || self.has("array_in_loop"))
            && !self.in_helper;
        let has_arr = !self.arrs(true).is_empty();
        let has_iter_arr = !self.iterable_arrs().is_empty();
        let field_loops =
            (self.grid.is_some() || !self.loop_data(ctx).is_empty()) && (loops_ok || helper_loops);
        let w = [
            /* 0 let */ 10,
            /* 1 shadow */
            if self.has("shadowing") && !self.floats().is_empty() {
                2
            } else {
                0
            },
            /* 2 assign */ if has_mut { 6 } else { 0 },
            /* 3 deferred */ if self.has("let_deferred") { 1 } else { 0 },
            /* 4 if */
            if self.has("if_stmt") && ctx.ifs < 2 {
                3
            } else {
                0
            },
            /* 5 guard */
            if self.has("guard_return")
                && ctx.top
                && self.step_len.is_none()
                && matches!(self.ret, Ret::Float | Ret::Result | Ret::Option | Ret::Unit)
            {
                2
            } else {
                0
            },
            /* 6 for range */
            if self.has("for_range") && (loops_ok || helper_loops) {
                4
            } else {
                0
            },
            /* 7 for each */
            if (self.has("for_slice") || self.has("for_enumerate")) && loops_ok && has_iter_arr {
                3
            } else {
                0
            },
            /* 8 while */
            if self.has("while_loop") && loops_ok {
                2
            } else {
                0
            },
            /* 9 loop */
            if self.has("loop_break") && loops_ok {
                2
            } else {
                0
            },
            /* 10 array */ if arrays_here { 2 } else { 0 },
            /* 11 store */ if has_arr { 3 } else { 0 },
            /* 12 let closure */
            if self.has("let_closure") && !self.in_helper {
                1
            } else {
                0
            },
            /* 13 loop over a struct's field */ if field_loops { 3 } else { 0 },
            /* 14 an array replaced whole */
            if !self.in_helper
                && !self.state_arrs().is_empty()
                && (self.has("array_state") || self.step.is_some())
            {
                2
            } else {
                0
            },
            /* 15 Vec::new() */
            if self.has("vec_push")
                && (ctx.top || ctx.loop_top)
                && !self.in_helper
                && self.in_while_let == 0
            {
                2
            } else {
                0
            },
            /* 16 push */
            if self.has("vec_push") && !self.pushables().is_empty() {
                3
            } else {
                0
            },
            /* 17 writer call */
            if !self.writer_callable(ctx) {
                0
            } else if self.writer_called {
                3
            } else {
                12
            },
            /* 18 let (a, b) = .. */
            if self.has("tuple_from_branches") {
                1
            } else {
                0
            },
            /* 19 let q = P0 { .. } */
            if !self.struct_decl_ok(ctx) {
                0
            } else if self.local_structs().is_empty() {
                5
            } else {
                2
            },
            /* 20 a local struct used */
            if self.sv_here() && !self.local_structs().is_empty() {
                5
            } else {
                0
            },
            /* 21 let [a, b] = g1(..) */
            if self.multis.is_empty() || self.in_helper {
                0
            } else if self.multi_called.is_empty() {
                8
            } else {
                2
            },
            /* 22 let r = loop { .. break e; .. } */
            if self.has("loop_value") && loops_ok {
                2
            } else {
                0
            },
            /* 23 'outer: for .. { for .. { break 'outer; } } */
            if self.has("labels") && loops_ok && ctx.loops <= 1 {
                2
            } else {
                0
            },
            /* 24 match mode0 { .. } */
            if self.enum_param.is_some() && !self.in_helper {
                4
            } else {
                0
            },
            /* 25 while let Some(v) = .. */
            if self.has("while_let") && loops_ok {
                2
            } else {
                0
            },
            /* 26 let d = mk0(..); .. rd0(d, x) .. */
            if !self.wholes_here(ctx) {
                0
            } else if self.whole_vars(|_| true).is_empty() {
                8
            } else {
                3
            },
            /* 27 let r = &x; */
            if self.ref_targets().is_empty() { 0 } else { 2 },
            /* 28 let old = std::mem::replace(&mut cur, next); */
            if self.replace_targets(ctx).is_empty() {
                0
            } else {
                4
            },
            /* 29 let p: P1 = make(..); */
            if !self.made_here() {
                0
            } else if self.made_locals().is_empty() {
                5
            } else {
                2
            },
            /* 30 q.drift0(e); kick0(&mut q, e); */
            self.sw_weight(ctx),
        ];
        match self.rng.weighted(&w) {
            0 => self.let_stmt(ctx, out),
            1 => {
                // Not the element of a filtered loop, a `&f64` the
                // renderer reads as `*x` (`filter_names`).
                let fl: Vec<(String, bool)> = self
                    .floats()
                    .into_iter()
                    .filter(|(n, _)| !self.filtered.contains(n))
                    .collect();
                if fl.is_empty() {
                    return;
                }
                let (name, _) = self.rng.pick(&fl).clone();
                self.shadowing(&name);
                let mutable = self.has("let_mut") && self.rng.chance(0.3);
                let init = self.bounded_update(Expr::Var(name.clone()), ctx);
                let typed = self.annotate(&name, &init);
                out.push(Stmt::Let {
                    name: name.clone(),
                    mutable,
                    typed,
                    init,
                });
                self.declare_float(&name, mutable);
                if ctx.top {
                    self.locals.push(name);
                }
            }
            2 => self.assign(ctx, out),
            3 => {
                let name = self.fresh("a");
                let init = if self.has("if_stmt") && self.rng.chance(0.7) {
                    let c = self.cond(1);
                    self.arms += 1;
                    let a = self.expr_block(ctx, 2);
                    let b = self.expr_block(ctx, 2);
                    self.arms -= 1;
                    DeferredInit::Branch(Box::new(c), Box::new(a), Box::new(b))
                } else {
                    DeferredInit::Direct(self.expr(2))
                };
                let typed = {
                    let probe = match &init {
                        DeferredInit::Direct(e) => e.clone(),
                        DeferredInit::Branch(_, a, b) => {
                            if self.anchored(&a.tail) {
                                a.tail.clone()
                            } else {
                                b.tail.clone()
                            }
                        }
                    };
                    self.annotate(&name, &probe)
                };
                out.push(Stmt::Deferred {
                    name: name.clone(),
                    typed,
                    init,
                });
                self.declare_float(&name, false);
                if ctx.top {
                    self.locals.push(name);
                }
            }
            4 => self.if_stmt(ctx, out),
            5 => {
                let cond = self.cond(2);
                self.arms += 1;
                let e = self.expr(2);
                self.arms -= 1;
                out.push(Stmt::If {
                    cond,
                    then: vec![Stmt::Return(e)],
                    els: None,
                });
                self.returned = true;
            }
            6..=9 => self.loop_stmt(ctx, out),
            10 => self.array_decl(ctx, out),
            11 => self.store(ctx, out),
            12 => self.let_closure(out),
            13 => self.field_loop(ctx, out),
            14 => self.whole_array(ctx, out),
            15 => self.vec_decl(ctx, out),
            16 => self.push_stmt(ctx, out),
            17 => self.writer_call(ctx, out),
            18 => self.let_tuple(ctx, out),
            19 => self.let_struct(ctx, out),
            20 => self.struct_stmt(ctx, out),
            21 => self.let_call(ctx, out),
            22 => self.let_loop(ctx, out),
            23 => self.labeled_loops(ctx, out),
            24 => self.enum_match(ctx, out),
            25 => self.while_let(ctx, out),
            26 => self.let_passed(ctx, out),
            27 => self.let_ref(out),
            28 => self.replace(ctx, out),
            29 => self.let_made(ctx, out),
            30 => self.sw_stmt(ctx, out),
            _ => unreachable!(),
        }
    }

    fn let_stmt(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let name = self.fresh("a");
        let mutable = self.has("let_mut") && self.rng.chance(0.45);
        let init =
            if mutable && self.has("const_init") && !self.consts.is_empty() && self.rng.chance(0.3)
            {
                Expr::Const(self.rng.pick(&self.consts).clone())
            } else if mutable && self.rng.chance(0.3) {
                self.lit()
            } else {
                self.expr(3)
            };
        let typed = self.annotate(&name, &init);
        out.push(Stmt::Let {
            name: name.clone(),
            mutable,
            typed,
            init,
        });
        self.declare_float(&name, mutable);
        if ctx.top {
            self.locals.push(name);
        }
    }

    /// Whether `let name = init` is written `let name: f64 = init`. Without
    /// `untyped_opaque_let`, always when #[grad] could not see the type
    /// otherwise (the value comes from a user `const` or a call); records
    /// `name` as opaque when it stays without a type.
    fn annotate(&mut self, name: &str, init: &Expr) -> bool {
        let mut typed = self.has("let_typed") && self.rng.chance(0.3);
        let opaque = is_typed(init) && !self.anchored(init);
        if opaque && !self.has("untyped_opaque_let") {
            typed = true;
        }
        if opaque && !self.has("const_field_untyped_let") && self.reads_constant_struct(init) {
            typed = true;
        }
        self.opaque.retain(|n| n != name);
        if opaque && !typed {
            self.opaque.push(name.to_string());
        }
        let written = &mut self.frame().written;
        written.retain(|n| n != name);
        if typed || !is_typed(init) {
            written.push(name.to_string());
        }
        typed
    }

    /// Whether `e` reads a constant struct (`p0.f1` of a constant `p0`,
    /// `data0.ys[k]`).
    fn reads_constant_struct(&self, e: &Expr) -> bool {
        let mut found = false;
        visit_exprs(e, &mut |x| match x {
            Expr::Field(p, _) => found |= self.constant_struct(p),
            Expr::Index(a, _) => {
                found |= a.split_once('.').is_some_and(|(p, _)| {
                    self.constant_struct(p) || self.data_arrs().iter().any(|(d, _)| d == a)
                })
            }
            _ => {}
        });
        found
    }

    /// Whether the type of `e` shows in its tokens to a macro that does not
    /// know the types of constants and calls: a parameter, a variable of
    /// known type, an array element, a cast ...
    fn anchored(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(..)
            | Expr::Const(_)
            | Expr::Field(..)
            | Expr::Call(..)
            | Expr::TryCall(..)
            | Expr::Method(..)
            | Expr::Assoc(..)
            | Expr::ResultMethod { .. } => false,
            Expr::Var(v) => !self.opaque.contains(v),
            // Its parameter is typed `f64`, and its body reads it.
            Expr::CallClosure(..) => true,
            // An element of a parameter's or a local's array; not of a
            // struct's field (`data0.ys[k]`), whose type is the struct's;
            // in an array's items, not of an array a call returned (`let d
            // = g1(..);`), whose type #[grad] does not see either.
            Expr::Index(a, _) => {
                let returned = || {
                    !self
                        .arrs_where(|n, k| n == a && k == ArrKind::Returned)
                        .is_empty()
                };
                !(a.contains('.') || (self.in_items && returned()))
            }
            Expr::IntCast(_)
            | Expr::Sum(_)
            | Expr::MapSum { .. }
            | Expr::ZipSum { .. }
            | Expr::Fold { .. }
            | Expr::RangeSum { .. }
            | Expr::RangeFold { .. } => true,
            Expr::Neg(a) | Expr::Ml(_, a) | Expr::MulAdd(a, _, _) => self.anchored(a),
            Expr::Un(_, a, path) => *path || self.anchored(a),
            Expr::Bi(_, a, b, path) => *path || self.anchored(a) || self.anchored(b),
            Expr::Bin(_, a, b) => self.anchored(a) || self.anchored(b),
            Expr::If(_, a, b) => self.anchored(&a.tail) || self.anchored(&b.tail),
            Expr::Match(_, arms, d) => {
                self.anchored(d) || arms.iter().any(|(_, e)| self.anchored(e))
            }
            Expr::Block(b) => self.anchored(&b.tail),
        }
    }

    /// A new value for `old` (a variable, a local struct's field) that
    /// stays bounded however often it runs.
    fn bounded_update(&mut self, old: Expr, ctx: Ctx) -> Expr {
        let e = self.expr(2);
        if ctx.loops == 0 {
            return Expr::Bin(BinOp::Add, Box::new(old), Box::new(e));
        }
        let s = self.squash(e);
        if self.rng.chance(0.5) {
            s
        } else {
            let c = Expr::Lit(*self.rng.pick(&[0.5, 0.9, 0.25]), LitStyle::Plain);
            Expr::Bin(
                BinOp::Add,
                Box::new(Expr::Bin(BinOp::Mul, Box::new(old), Box::new(c))),
                Box::new(s),
            )
        }
    }

    fn assign(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let muts = self.mutables();
        if muts.is_empty() {
            return;
        }
        let name = self.rng.pick(&muts).clone();
        let compound = self.has("compound_assign");
        let ops: Vec<AOp> = if compound {
            let mut v = vec![AOp::Set, AOp::Add, AOp::Add, AOp::Sub, AOp::Mul];
            if self.has("division") {
                v.push(AOp::Div);
            }
            v
        } else {
            vec![AOp::Set]
        };
        let op = *self.rng.pick(&ops);
        let value = self.update_value(Expr::Var(name.clone()), op, ctx);
        out.push(Stmt::Assign { name, op, value });
    }

    /// The right-hand side of `target op= value`, bounded in loops.
    fn update_value(&mut self, target: Expr, op: AOp, ctx: Ctx) -> Expr {
        match op {
            AOp::Set => self.bounded_update(target, ctx),
            AOp::Add | AOp::Sub => {
                let e = self.expr(2);
                if ctx.loops > 0 && self.mentions_mutable(&e) {
                    self.squash(e)
                } else {
                    e
                }
            }
            AOp::Mul => {
                if ctx.loops > 0 {
                    if self.rng.chance(0.5) {
                        Expr::Lit(*self.rng.pick(&[0.5, 0.9, 1.1]), LitStyle::Plain)
                    } else {
                        let e = self.expr(1);
                        self.squash(e)
                    }
                } else {
                    self.expr(2)
                }
            }
            AOp::Div => self.positive(),
        }
    }

    /// Whether `e` reads a mutable variable (or a `let mut` local
    /// struct).
    fn mentions_mutable(&self, e: &Expr) -> bool {
        let muts = self.mutables();
        let mut found = false;
        visit_vars(e, &mut |v| {
            if muts.iter().any(|m| m == v) {
                found = true;
            }
        });
        found || self.reads_mutable_struct(e)
    }

    fn if_stmt(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let inner = Ctx {
            top: false,
            loop_top: false,
            ifs: ctx.ifs + 1,
            ..ctx
        };
        let cond = self.cond(2);
        let then = self.branch(inner);
        let els = if self.rng.chance(0.6) {
            if self.has("else_if") && self.rng.chance(0.3) {
                let mut e = Vec::new();
                self.arms += 1;
                self.if_stmt(ctx, &mut e);
                self.arms -= 1;
                Some(e)
            } else {
                Some(self.branch(inner))
            }
        } else {
            None
        };
        out.push(Stmt::If { cond, then, els });
    }

    /// The statements of a branch arm.
    fn branch(&mut self, ctx: Ctx) -> Vec<Stmt> {
        self.arms += 1;
        self.push();
        let n = self.rng.range(1, 2);
        let mut v = Vec::new();
        for _ in 0..n {
            if !self.mutables().is_empty() && self.rng.chance(0.6) {
                self.assign(ctx, &mut v);
            } else {
                self.stmt(ctx, &mut v);
            }
        }
        self.pop();
        self.arms -= 1;
        v
    }

    fn array_decl(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let mut kinds = Vec::new();
        if self.has("local_vec") {
            kinds.push(true);
        }
        if self.has("local_array") {
            kinds.push(false);
        }
        let vec = *self.rng.pick(&kinds);
        let name = self.fresh("v");
        let init = if self.has("array_literal") && self.rng.chance(0.35) {
            let n = self.rng.range(2, 3);
            // A local struct used inside a macro is refused (README).
            let guard = usize::from(vec);
            self.no_whole_use += guard;
            let items = (0..n).map(|_| self.expr(1)).collect();
            self.no_whole_use -= guard;
            ArrInit::List { items, vec }
        } else {
            let len = if self.rng.chance(0.5) {
                // As long as an array parameter, to be indexed by its loops.
                match self.arrs(false).first() {
                    Some((_, l)) => *l,
                    None => self.rng.range(2, 5) as u64,
                }
            } else {
                self.rng.range(2, 5) as u64
            };
            ArrInit::Fill { len, vec }
        };
        let len = init.len();
        // Items that are all constants or calls (no item whose type
        // #[grad] can see): the README asks for the array's type.
        self.in_items = true;
        let opaque_items = match &init {
            ArrInit::List { items, .. } => {
                items.iter().any(is_typed) && !items.iter().any(|e| self.anchored(e))
            }
            ArrInit::Fill { .. } => false,
        };
        self.in_items = false;
        let typed = if !self.has("untyped_array") || opaque_items {
            true
        } else {
            self.has("let_typed") && self.rng.chance(0.5)
        };
        out.push(Stmt::LetArr {
            name: name.clone(),
            typed,
            init,
        });
        if vec {
            self.vecs.push(name.clone());
        }
        self.frame().arrs.push((name, len, ArrKind::Local));
        for _ in 0..self.rng.range(0, 2) {
            self.store(ctx, out);
        }
    }

    /// `let mut v = vec![0.0; len];` (`[0.0; len]` unless `vec`), as
    /// [`Self::array_decl`] declares them, for a loop's state.
    fn fill_decl(&mut self, name: &str, len: u64, vec: bool, out: &mut Vec<Stmt>) {
        let typed = !self.has("untyped_array") || (self.has("let_typed") && self.rng.chance(0.5));
        out.push(Stmt::LetArr {
            name: name.to_string(),
            typed,
            init: ArrInit::Fill { len, vec },
        });
        if vec {
            self.vecs.push(name.to_string());
        }
        self.frame()
            .arrs
            .push((name.to_string(), len, ArrKind::Local));
    }

    /// The local arrays that may be replaced whole here (declared `vec![..]`
    /// or `[..]`, not iterated by a loop around): name, length, a `Vec`.
    fn state_arrs(&self) -> Vec<(String, u64, bool)> {
        self.arrs_where(|n, k| k == ArrKind::Local && !self.frozen.iter().any(|f| f == n))
            .into_iter()
            .map(|(n, l)| {
                let v = self.vecs.contains(&n);
                (n, l, v)
            })
            .collect()
    }

    /// Whether `dst = step(&dst, ..)` fits an array of this shape.
    fn step_fits(&self, len: u64, vec: bool) -> bool {
        vec && !self.in_helper && self.step.as_ref().is_some_and(|(_, _, l)| *l == len)
    }

    /// `dst = step(&dst, e..)`.
    fn step_call(&mut self, dst: &str) -> ArrSrc {
        let (name, params, _) = self.step.clone().expect("a step function");
        let mut args = vec![Arg::A(dst.to_string())];
        args.extend(
            self.call_args(&params[1..], 2)
                .expect("no slice among the step's floats"),
        );
        self.step_called = true;
        ArrSrc::Call(name, args)
    }

    /// The value of `dst.fill(..)`: a literal, or a bounded expression
    /// not reading `dst` (borrowed for the call).
    fn fill_value(&mut self, dst: &str) -> Expr {
        if self.rng.chance(0.3) {
            let e = self.expr(1);
            if !reads_arr(&e, dst) {
                return self.squash(e);
            }
        }
        self.lit()
    }

    /// `[a, b, ..]` for `dst = [a, b, ..]`, of `dst`'s old elements: `dst[j]`,
    /// `-dst[j]`, a bounded function of one, or a bounded expression.
    fn list_items(&mut self, dst: &str, len: u64) -> Vec<Expr> {
        (0..len)
            .map(|_| {
                let j = IExpr::Lit(self.rng.below(len as usize) as u64);
                let old = Expr::Index(dst.to_string(), j);
                match self.rng.below(4) {
                    0 => old,
                    1 => Expr::Neg(Self::b(old)),
                    2 => self.carry(old),
                    _ => {
                        let e = self.expr(1);
                        self.squash(e)
                    }
                }
            })
            .collect()
    }

    /// A local array replaced whole, anywhere: `u.fill(v)`, `s = [..]`,
    /// `u.copy_from_slice(&w)`, `std::mem::swap(&mut u, &mut w)`,
    /// `u = step(&u, ..)`.
    fn whole_array(&mut self, _ctx: Ctx, out: &mut Vec<Stmt>) {
        let arrs = self.state_arrs();
        if arrs.is_empty() {
            return;
        }
        let (dst, len, vec) = self.rng.pick(&arrs).clone();
        let same_len: Vec<String> = arrs
            .iter()
            .filter(|(n, l, _)| *n != dst && *l == len)
            .map(|(n, ..)| n.clone())
            .collect();
        let same_shape: Vec<String> = arrs
            .iter()
            .filter(|(n, l, v)| *n != dst && *l == len && *v == vec)
            .map(|(n, ..)| n.clone())
            .collect();
        let mut kinds = Vec::new();
        if self.has("array_state") {
            kinds.push(0);
            if !vec {
                kinds.push(1);
            }
            if !same_len.is_empty() {
                kinds.push(2);
            }
            if !same_shape.is_empty() {
                kinds.push(3);
            }
        }
        if self.step_fits(len, vec) {
            kinds.push(4);
        }
        if kinds.is_empty() {
            return;
        }
        let src = match *self.rng.pick(&kinds) {
            0 => ArrSrc::Fill(self.fill_value(&dst)),
            1 => ArrSrc::List {
                items: self.list_items(&dst, len),
                vec: false,
            },
            2 => ArrSrc::Copy(self.rng.pick(&same_len).clone()),
            3 => ArrSrc::Swap(self.rng.pick(&same_shape).clone()),
            _ => self.step_call(&dst),
        };
        out.push(Stmt::ArrAssign { dst, src });
    }

    /// The `Vec::new()`s pushed to that are in scope (not iterated by a
    /// loop around).
    fn pushables(&self) -> Vec<(String, u64)> {
        self.arrs_where(|n, k| k == ArrKind::Pushed && !self.frozen.iter().any(|f| f == n))
    }

    /// Whether the float syntax of `e` shows #[grad] that it is a float (a
    /// float literal, a cast, a float method, a float parameter): what an
    /// untyped `Vec::new()` needs in one of its pushes.
    fn shows_float(&self, e: &Expr) -> bool {
        let mut found = false;
        visit_exprs(e, &mut |x| {
            found |= match x {
                Expr::Lit(..) | Expr::IntCast(_) | Expr::MulAdd(..) => true,
                Expr::Un(_, _, path) | Expr::Bi(_, _, _, path) => !path,
                Expr::Var(v) => self.float_params.contains(v),
                _ => false,
            }
        });
        found
    }

    /// A value pushed in a loop: bounded where it reads what the loop
    /// changes.
    fn push_value(&mut self, ctx: Ctx) -> Expr {
        let e = self.expr(2);
        if ctx.loops > 0 && (self.mentions_mutable(&e) || self.reads_local(&e)) {
            self.squash(e)
        } else {
            e
        }
    }

    /// `r.push(e);` to a `Vec::new()` in scope.
    fn push_stmt(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let vs = self.pushables();
        if vs.is_empty() {
            return;
        }
        let arr = self.rng.pick(&vs).0.clone();
        let value = self.push_value(ctx);
        out.push(Stmt::Push { arr, value });
    }

    /// `let mut r = Vec::new();` (typed `Vec<f64>` unless a pushed value
    /// shows a float), filled by pushes in a loop (maybe one in a branch)
    /// or one after the other; in a loop body, read before it goes.
    fn vec_decl(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let name = self.fresh("r");
        let at = out.len();
        out.push(Stmt::LetVec {
            name: name.clone(),
            typed: true,
        });
        let loop_ok = if ctx.loops == 0 {
            self.has("for_range")
        } else {
            self.has("nested_loops") && ctx.loops < 3
        };
        let mut values = Vec::new();
        let min_len = if loop_ok && self.rng.chance(0.6) {
            let m = self.rng.range(1, 3) as u64;
            let inner = Ctx {
                loops: ctx.loops + 1,
                top: false,
                loop_top: true,
                loops_at_top: ctx.loops_at_top && ctx.ifs == 0,
                ifs: 0,
            };
            self.push();
            self.loops += 1;
            let j = self.fresh("i");
            self.frame().ints.push((j.clone(), m - 1));
            let v = self.push_value(inner);
            values.push(v.clone());
            let mut body = vec![Stmt::Push {
                arr: name.clone(),
                value: v,
            }];
            if self.has("if_stmt") && self.rng.chance(0.3) {
                let cond = self.cond(1);
                self.arms += 1;
                let v = self.push_value(inner);
                self.arms -= 1;
                values.push(v.clone());
                body.push(Stmt::If {
                    cond,
                    then: vec![Stmt::Push {
                        arr: name.clone(),
                        value: v,
                    }],
                    els: None,
                });
            }
            self.loops -= 1;
            self.pop();
            out.push(Stmt::For {
                var: j,
                range: Self::upto(IExpr::Lit(m)),
                body,
                ckpt: None,
            });
            m
        } else {
            let m = self.rng.range(1, 2) as u64;
            for _ in 0..m {
                let v = self.push_value(ctx);
                values.push(v.clone());
                out.push(Stmt::Push {
                    arr: name.clone(),
                    value: v,
                });
            }
            m
        };
        // #[grad] needs a push showing float syntax; rustc, a first push
        // of type `f64` (not `{float}`) for the method calls on elements.
        let shows = values.iter().any(|v| self.shows_float(v)) && is_typed(&values[0]);
        let typed = !shows || (self.has("let_typed") && self.rng.chance(0.3));
        out[at] = Stmt::LetVec {
            name: name.clone(),
            typed,
        };
        self.frame()
            .arrs
            .push((name.clone(), min_len, ArrKind::Pushed));
        if ctx.loops > 0 {
            let read = if self.rng.chance(0.5) {
                Expr::Sum(name.clone())
            } else {
                let i = self.index(min_len);
                Expr::Index(name, i)
            };
            if let Some(s) = self.accumulate(read) {
                out.push(s);
            }
        }
    }

    /// Whether `e` reads a local array (an element, or through a chain).
    fn reads_local(&self, e: &Expr) -> bool {
        let locals = self.arrs(true);
        let local = |a: &str| locals.iter().any(|(n, _)| n == a);
        let mut found = false;
        visit_exprs(e, &mut |x| match x {
            Expr::Index(a, _) | Expr::Sum(a) => found |= local(a),
            Expr::MapSum { arr, .. } | Expr::Fold { arr, .. } => found |= local(arr),
            Expr::ZipSum { a, b, .. } => found |= local(a) || local(b),
            _ => {}
        });
        found
    }

    fn store(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let arrs = self.arrs(true);
        if arrs.is_empty() {
            return;
        }
        let (arr, len) = self.rng.pick(&arrs).clone();
        let idx = self.index(len);
        let ops: Vec<AOp> = if self.has("compound_assign") {
            vec![AOp::Set, AOp::Add, AOp::Add, AOp::Sub, AOp::Mul]
        } else {
            vec![AOp::Set]
        };
        let op = *self.rng.pick(&ops);
        let value = match op {
            AOp::Set if ctx.loops > 0 => {
                let e = self.expr(2);
                self.squash(e)
            }
            AOp::Mul if ctx.loops > 0 => {
                let e = self.expr(1);
                self.squash(e)
            }
            AOp::Add | AOp::Sub if ctx.loops > 0 => {
                let e = self.expr(2);
                if self.mentions_mutable(&e) || self.reads_local_array(&e) {
                    self.squash(e)
                } else {
                    e
                }
            }
            _ => self.expr(2),
        };
        out.push(Stmt::Store {
            arr,
            idx,
            op,
            value,
        });
    }

    fn reads_local_array(&self, e: &Expr) -> bool {
        let locals = self.arrs(true);
        let mut found = false;
        visit_exprs(e, &mut |x| {
            if let Expr::Index(a, _) = x {
                if locals.iter().any(|(n, _)| n == a) {
                    found = true;
                }
            }
        });
        found
    }

    /// Makes sure a loop has an accumulator to update: a `let mut` before it.
    fn ensure_accumulator(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        if self.has("let_mut") && (self.mutables().is_empty() || self.rng.chance(0.3)) {
            let name = self.fresh("s");
            let init = if self.has("const_init") && !self.consts.is_empty() && self.rng.chance(0.4)
            {
                Expr::Const(self.rng.pick(&self.consts).clone())
            } else if self.rng.chance(0.6) {
                Expr::Lit(0.0, LitStyle::Plain)
            } else {
                self.leaf()
            };
            let typed = self.annotate(&name, &init);
            out.push(Stmt::Let {
                name: name.clone(),
                mutable: true,
                typed,
                init,
            });
            self.declare_float(&name, true);
            if ctx.top {
                self.locals.push(name);
            }
        }
    }

    fn loop_stmt(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        self.ensure_accumulator(ctx, out);
        self.lend_ahead(ctx, out);
        // `#[checkpoint(..)]` on a `for` over a range at the top level of
        // `f`, not after a `return` (which puts the rest of the body in a
        // branch).
        let ckpt = self.has("checkpoint")
            && self.has("for_range")
            && ctx.top
            && !self.in_helper
            && !self.returned
            && self.rng.chance(0.4);
        let plan = if (self.has("array_state") || self.step.is_some())
            && !self.in_helper
            && self.rng.chance(if ckpt || self.step.is_some() {
                0.6
            } else {
                0.3
            }) {
            self.plan(ctx, out)
        } else {
            None
        };
        // A loop over an array does not replace it.
        let carried: Vec<String> = match &plan {
            Some(p) => match &p.how {
                How::Swap(n) | How::Copy(Some(n)) => vec![p.state.clone(), n.clone()],
                _ => vec![p.state.clone()],
            },
            None => Vec::new(),
        };
        let iterable: Vec<(String, u64)> = self
            .iterable_arrs()
            .into_iter()
            .filter(|(a, _)| !carried.contains(a))
            .collect();
        let mut kinds = Vec::new();
        if self.has("for_range") {
            kinds.push(0);
        }
        if !self.in_helper && !ckpt {
            if !iterable.is_empty() {
                if self.has("for_slice") {
                    kinds.push(1);
                }
                if self.has("for_enumerate") {
                    kinds.push(2);
                }
            }
            if self.has("while_loop") {
                kinds.push(3);
            }
            if self.has("loop_break") {
                kinds.push(4);
            }
        }
        if kinds.is_empty() {
            return;
        }
        // A loop over a `Vec` of structs (`struct_vec_loops`), drawn from
        // the stream of the features added with it.
        let held = self.has("struct_vec_loops")
            && !self.in_helper
            && !ckpt
            && plan.is_none()
            && self.sw_plan.is_none()
            && self.struct_step.is_none()
            && self.sv_here()
            && !self.held_vecs().is_empty()
            && (std::mem::take(&mut self.held_next) || self.more.chance(0.3));
        let kind = match held {
            true => 5,
            false => *self.rng.pick(&kinds),
        };
        let inner = Ctx {
            loops: ctx.loops + 1,
            top: false,
            loop_top: true,
            loops_at_top: ctx.loops_at_top && ctx.ifs == 0,
            ifs: 0,
        };
        self.push();
        self.loops += 1;
        self.plan = plan;
        let (outer_top_loop, outer_arms) = (self.top_loop, self.loop_arms);
        self.top_loop = ctx.top && !self.returned;
        self.loop_arms = self.arms;
        let stmt = match kind {
            0 => {
                let var = self.fresh("i");
                let (mut range, mut max) = self.range();
                let ckpt = ckpt.then(|| {
                    // Walked forwards; often long enough for the schedule
                    // to store and restore several states.
                    range.rev = false;
                    range.step = None;
                    if self.rng.chance(0.5) {
                        let hi = self.rng.range(3, 8) as u64;
                        range.hi = IExpr::Lit(hi);
                        max = if range.inclusive { hi } else { hi - 1 };
                    }
                    self.ckpt_count()
                });
                self.frame().ints.push((var.clone(), max));
                let outer = self.in_ckpt;
                self.in_ckpt |= ckpt.is_some();
                let body = self.loop_body(inner);
                self.in_ckpt = outer;
                // #[checkpoint] refuses a loop that changes nothing it
                // stores.
                let ckpt = ckpt.filter(|_| changes_outer(&body));
                Stmt::For {
                    var,
                    range,
                    body,
                    ckpt,
                }
            }
            1 | 2 => {
                let arrs = iterable;
                let (arr, len) = self.rng.pick(&arrs).clone();
                let filter = if kind == 2 {
                    self.loop_filter(len)
                } else {
                    None
                };
                let var = self.fresh("y");
                self.declare_float(&var, false);
                let idx = if kind == 2 {
                    let i = self.fresh("j");
                    self.frame().ints.push((i.clone(), len - 1));
                    Some(i)
                } else {
                    None
                };
                self.frozen.push(arr.clone());
                let filtered = filter.is_some();
                if filtered {
                    self.filtered.push(var.clone());
                }
                let body = self.loop_body(inner);
                if filtered {
                    self.filtered.pop();
                }
                self.frozen.pop();
                Stmt::ForEach {
                    idx,
                    var,
                    arr,
                    body,
                    filter,
                    held: None,
                }
            }
            5 => self.held_loop(inner),
            3 => {
                let counter = self.fresh("k");
                let limit = self.rng.range(1, 6) as u64;
                self.frame().ints.push((counter.clone(), limit));
                let cond = if self.rng.chance(0.6) {
                    // After `k < N &&`.
                    self.in_logic += 1;
                    let c = self.cond(1);
                    self.in_logic -= 1;
                    Some(c)
                } else {
                    None
                };
                let body = self.loop_body(inner);
                Stmt::While {
                    counter,
                    limit,
                    cond,
                    body,
                }
            }
            _ => {
                let counter = self.fresh("k");
                let limit = self.rng.range(1, 6) as u64;
                self.frame().ints.push((counter.clone(), limit + 1));
                // The body comes after `if k > N { break; }`: an arm.
                self.arms += 1;
                let body = self.loop_body(inner);
                self.arms -= 1;
                Stmt::Loop {
                    counter,
                    limit,
                    body,
                }
            }
        };
        self.top_loop = outer_top_loop;
        self.loop_arms = outer_arms;
        self.loops -= 1;
        self.pop();
        out.push(stmt);
    }

    /// The constant structs' `Vec` fields a loop may run over here:
    /// anywhere with `const_method_in_loop`, else at the top level of the
    /// body only ([`Self::field_loop`]).
    fn loop_data(&self, ctx: Ctx) -> Vec<(String, u64)> {
        if ctx.top || self.has("const_method_in_loop") {
            self.data_arrs()
        } else {
            Vec::new()
        }
    }

    /// A loop reading a struct's `Vec` field: over the grid, `for i in
    /// 0..R { for j in 0..p0.n { .. s += p0.w[i * p0.n + j] * e; } }` (one
    /// loop, its row a literal, where no loop may nest), or over a
    /// constant struct's field, `for k in 0..data0.ys.len() { .. s +=
    /// data0.ys[k] * e; }`. Without `const_method_in_loop` the latter's
    /// body is the accumulation alone, into a new variable that the tail
    /// reads, and it is at the top level of the body: then no loop that
    /// #[grad] keeps as written (for the `.len()` in its header) reads an
    /// active value while nothing active comes out of it, which made
    /// `data0` look changed by the loop before c41d441.
    fn field_loop(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) {
        let data = self.loop_data(ctx);
        let grid = match (&self.grid, data.is_empty()) {
            (Some(g), true) => Some(g.clone()),
            (Some(g), false) if self.rng.chance(0.5) => Some(g.clone()),
            _ => None,
        };
        let inner = |loops: usize| Ctx {
            loops,
            top: false,
            loop_top: true,
            loops_at_top: ctx.loops_at_top && ctx.ifs == 0,
            ifs: 0,
        };
        let Some((s, g)) = grid else {
            if data.is_empty() {
                return;
            }
            let (arr, len) = self.rng.pick(&data).clone();
            let free = self.has("const_method_in_loop");
            let acc = if free {
                self.ensure_accumulator(ctx, out);
                None
            } else {
                let name = self.fresh("s");
                out.push(Stmt::Let {
                    name: name.clone(),
                    mutable: true,
                    typed: true,
                    init: Expr::Lit(0.0, LitStyle::Plain),
                });
                self.frame().written.push(name.clone());
                self.declare_float(&name, true);
                self.must_reach.push(name.clone());
                Some(name)
            };
            self.push();
            self.loops += 1;
            let k = self.fresh("i");
            self.frame().ints.push((k.clone(), len - 1));
            let read = Expr::Index(arr.clone(), IExpr::Var(k.clone()));
            let body = match acc {
                None => {
                    let mut body = self.loop_body(inner(ctx.loops + 1));
                    body.extend(self.accumulate_after(read, &body));
                    body
                }
                Some(name) => vec![self.accumulate_into(name, read)],
            };
            self.loops -= 1;
            self.pop();
            out.push(Stmt::For {
                var: k,
                range: Self::upto(IExpr::Len(arr)),
                body,
                ckpt: None,
            });
            return;
        };
        self.ensure_accumulator(ctx, out);
        let nested = self.has("nested_loops") && ctx.loops == 0;
        let loops = ctx.loops + 1 + usize::from(nested);
        self.loops += 1 + usize::from(nested);
        self.push();
        let row = if nested {
            let i = self.fresh("i");
            self.frame().ints.push((i.clone(), g.rows - 1));
            IExpr::Var(i)
        } else {
            IExpr::Lit(self.rng.below(g.rows as usize) as u64)
        };
        self.push();
        let j = self.fresh("i");
        self.frame().ints.push((j.clone(), g.n - 1));
        let n = IExpr::Var(format!("{s}.n"));
        let idx = IExpr::Add(
            Box::new(IExpr::Mul(Box::new(row.clone()), Box::new(n.clone()))),
            Box::new(IExpr::Var(j.clone())),
        );
        let mut body = self.loop_body(inner(loops));
        body.extend(self.accumulate_after(Expr::Index(format!("{s}.w"), idx), &body));
        self.pop();
        let cols = Stmt::For {
            var: j,
            range: Self::upto(n),
            body,
            ckpt: None,
        };
        self.pop();
        self.loops -= 1 + usize::from(nested);
        out.push(match row {
            IExpr::Var(i) => Stmt::For {
                var: i,
                range: Self::upto(IExpr::Lit(g.rows)),
                body: vec![cols],
                ckpt: None,
            },
            _ => cols,
        });
    }

    /// `0..hi`
    fn upto(hi: IExpr) -> Range {
        Range {
            lo: IExpr::Lit(0),
            hi,
            inclusive: false,
            rev: false,
            step: None,
        }
    }

    /// [`Self::accumulate`] at the end of a loop body `body`: in an arm
    /// after a jump.
    fn accumulate_after(&mut self, read: Expr, body: &[Stmt]) -> Option<Stmt> {
        let jumps = usize::from(has_own_jump(body) || has_return(body));
        self.arms += jumps;
        let s = self.accumulate(read);
        self.arms -= jumps;
        s
    }

    /// `s += read * e` (or `s = s + ..`) into a mutable variable, bounded
    /// where it reads one; nothing without a mutable variable.
    fn accumulate(&mut self, read: Expr) -> Option<Stmt> {
        let muts = self.mutables();
        if muts.is_empty() {
            return None;
        }
        let name = self.rng.pick(&muts).clone();
        Some(self.accumulate_into(name, read))
    }

    /// `name += read * e` (or `name = name + ..`), bounded where it reads a
    /// mutable variable.
    fn accumulate_into(&mut self, name: String, read: Expr) -> Stmt {
        let e = self.expr(1);
        let mut value = Expr::Bin(BinOp::Mul, Self::b(read), Self::b(e));
        if self.mentions_mutable(&value) {
            value = self.squash(value);
        }
        if self.has("compound_assign") {
            Stmt::Assign {
                name,
                op: AOp::Add,
                value,
            }
        } else {
            let value = Expr::Bin(BinOp::Add, Self::b(Expr::Var(name.clone())), Self::b(value));
            Stmt::Assign {
                name,
                op: AOp::Set,
                value,
            }
        }
    }

    /// A range and the largest value its variable takes.
    fn range(&mut self) -> (Range, u64) {
        let ints = self.ints();
        let free = self.has("const_method_in_loop");
        let arrs = self.arrs_where(|_, k| {
            !matches!(k, ArrKind::Pushed | ArrKind::StructW | ArrKind::Returned)
                && (free || k != ArrKind::Field { constant: true })
        });
        let mut his: Vec<(IExpr, u64)> = vec![];
        let lit = self.rng.range(1, 4) as u64;
        his.push((IExpr::Lit(lit), lit));
        for (n, max) in &ints {
            // `usize` parameters, and a struct's `n`.
            if n.starts_with('n') || n.ends_with(".n") {
                his.push((IExpr::Var(n.clone()), *max));
            }
        }
        for (a, len) in &arrs {
            his.push((IExpr::Len(a.clone()), *len));
        }
        let (hi, hi_max) = self.rng.pick(&his).clone();
        let forms = self.has("range_forms");
        let inclusive = forms && matches!(hi, IExpr::Lit(_)) && self.rng.chance(0.2);
        let step = if forms && self.rng.chance(0.15) {
            Some(self.rng.range(2, 3) as u64)
        } else {
            None
        };
        // `(a..=b).step_by(k)` is not double-ended: no `.rev()` after it.
        let rev = forms && !(inclusive && step.is_some()) && self.rng.chance(0.2);
        // A range starting at an outer loop's index: `for j in i..n`.
        let outer: Vec<&(String, u64)> = ints.iter().filter(|(n, _)| n.starts_with('i')).collect();
        let lo = if forms && !outer.is_empty() && self.rng.chance(0.3) {
            IExpr::Var(self.rng.pick(&outer).0.clone())
        } else if self.rng.chance(0.15) {
            IExpr::Lit(1)
        } else {
            IExpr::Lit(0)
        };
        let max = if inclusive {
            hi_max
        } else {
            hi_max.saturating_sub(1)
        };
        (
            Range {
                lo,
                hi,
                inclusive,
                rev,
                step,
            },
            max,
        )
    }

    /// `every = K` or `snapshots = S` of a `#[checkpoint(..)]`: a literal,
    /// or `n0 + 1` of a `usize` parameter.
    fn ckpt_count(&mut self) -> Ckpt {
        let every = self.rng.chance(0.5);
        let params: Vec<String> = self
            .ints()
            .into_iter()
            .map(|(n, _)| n)
            .filter(|n| n.starts_with('n') && !n.contains('.'))
            .collect();
        let count = if !params.is_empty() && self.rng.chance(0.3) {
            let n = self.rng.pick(&params).clone();
            IExpr::Add(Box::new(IExpr::Var(n)), Box::new(IExpr::Lit(1)))
        } else {
            IExpr::Lit(self.rng.range(1, if every { 4 } else { 3 }) as u64)
        };
        Ckpt { every, count }
    }

    /// The state a loop carries across its iterations (`array_state`,
    /// `step_call`): a local array in scope, or one declared here before
    /// the loop, and how the loop replaces it.
    fn plan(&mut self, ctx: Ctx, out: &mut Vec<Stmt>) -> Option<Plan> {
        let declare_ok = (ctx.top || ctx.loop_top)
            && self.in_while_let == 0
            && (ctx.loops == 0 || self.has("array_in_loop"))
            && (self.has("local_vec") || self.has("local_array"));
        let mut arrs = self.state_arrs();
        // A state the step function takes, if none is in scope yet.
        let step_state = self.step.is_some()
            && self.has("local_vec")
            && !arrs.iter().any(|(_, l, v)| self.step_fits(*l, *v));
        if declare_ok && (arrs.is_empty() || step_state || self.rng.chance(0.4)) {
            let mut shapes = Vec::new();
            if self.has("local_vec") {
                shapes.push(true);
            }
            if self.has("local_array") {
                shapes.push(false);
            }
            let step_len = self.step.as_ref().map(|(_, _, l)| *l);
            let (vec, len) = match step_len {
                Some(l) if self.has("local_vec") && self.rng.chance(0.7) => (true, l),
                _ => (*self.rng.pick(&shapes), self.rng.range(2, 4) as u64),
            };
            let name = self.fresh("v");
            self.fill_decl(&name, len, vec, out);
            // Its first state.
            for k in 0..len {
                if self.rng.chance(0.6) {
                    let value = self.expr(2);
                    out.push(Stmt::Store {
                        arr: name.clone(),
                        idx: IExpr::Lit(k),
                        op: AOp::Set,
                        value,
                    });
                }
            }
            arrs = vec![(name, len, vec)];
        }
        if arrs.is_empty() {
            return None;
        }
        let (state, len, vec) = self.rng.pick(&arrs).clone();
        let mut hows = Vec::new();
        if self.has("array_state") {
            hows.extend([How::Move, How::Copy(None), How::Fill(self.rng.chance(0.5))]);
            let other = arrs
                .iter()
                .find(|(n, l, v)| *n != state && *l == len && *v == vec)
                .map(|(n, ..)| n.clone());
            match other {
                Some(n) => {
                    hows.push(How::Swap(n.clone()));
                    hows.push(How::Copy(Some(n)));
                }
                None if declare_ok => {
                    let n = self.fresh("v");
                    self.fill_decl(&n, len, vec, out);
                    hows.push(How::Swap(n.clone()));
                    hows.push(How::Copy(Some(n)));
                }
                None => {}
            }
            if !vec && len <= 4 {
                hows.push(How::List);
            }
        }
        if self.step_fits(len, vec) {
            // As often as all the others.
            let n = hows.len().max(1);
            hows.extend(std::iter::repeat_n(How::Step, n));
        }
        if hows.is_empty() {
            return None;
        }
        let how = self.rng.pick(&hows).clone();
        Some(Plan {
            state,
            len,
            vec,
            how,
        })
    }

    /// `next[i] = ..` for every element, each a bounded function of the
    /// state's element `state[i]` (or its neighbour's): in a loop, or one
    /// store each.
    fn fill_next(&mut self, next: &str, state: &str, len: u64, ctx: Ctx, body: &mut Vec<Stmt>) {
        let neighbour = self.rng.chance(0.3);
        let loop_ok = self.has("nested_loops") && ctx.loops < 3;
        if loop_ok && self.rng.chance(0.7) {
            self.push();
            self.loops += 1;
            let i = self.fresh("i");
            self.frame().ints.push((i.clone(), len - 1));
            let idx = if neighbour {
                IExpr::Rem(
                    Box::new(IExpr::Add(
                        Box::new(IExpr::Var(i.clone())),
                        Box::new(IExpr::Lit(1)),
                    )),
                    len,
                )
            } else {
                IExpr::Var(i.clone())
            };
            let value = self.carry(Expr::Index(state.to_string(), idx));
            self.loops -= 1;
            self.pop();
            let hi = match self.rng.below(3) {
                0 => IExpr::Lit(len),
                1 => IExpr::Len(state.to_string()),
                _ => IExpr::Len(next.to_string()),
            };
            body.push(Stmt::For {
                var: i.clone(),
                range: Self::upto(hi),
                body: vec![Stmt::Store {
                    arr: next.to_string(),
                    idx: IExpr::Var(i),
                    op: AOp::Set,
                    value,
                }],
                ckpt: None,
            });
        } else {
            for k in 0..len {
                let j = if neighbour { (k + 1) % len } else { k };
                let value = self.carry(Expr::Index(state.to_string(), IExpr::Lit(j)));
                body.push(Stmt::Store {
                    arr: next.to_string(),
                    idx: IExpr::Lit(k),
                    op: AOp::Set,
                    value,
                });
            }
        }
    }

    /// What comes before the statements of a loop body replacing `p`'s
    /// state: the next state declared and filled, or the state reset.
    fn plan_prologue(&mut self, p: &Plan, ctx: Ctx, body: &mut Vec<Stmt>) -> Option<String> {
        match &p.how {
            How::Move | How::Copy(None) => {
                let next = self.fresh("v");
                let vec = if matches!(p.how, How::Move) || !self.has("local_array") {
                    p.vec
                } else {
                    self.has("local_vec") && self.rng.chance(0.5)
                };
                self.fill_decl(&next, p.len, vec, body);
                self.fill_next(&next, &p.state, p.len, ctx, body);
                Some(next)
            }
            How::Swap(next) | How::Copy(Some(next)) => {
                self.fill_next(next, &p.state, p.len, ctx, body);
                Some(next.clone())
            }
            How::Fill(true) => {
                let v = self.fill_value(&p.state);
                body.push(Stmt::ArrAssign {
                    dst: p.state.clone(),
                    src: ArrSrc::Fill(v),
                });
                None
            }
            How::Fill(false) | How::List | How::Step => None,
        }
    }

    /// The statement that ends a loop body replacing `p`'s state.
    fn plan_epilogue(&mut self, p: &Plan, next: Option<String>) -> Option<Stmt> {
        let src = match &p.how {
            How::Move => ArrSrc::Move(next?),
            How::Swap(_) => ArrSrc::Swap(next?),
            How::Copy(_) => ArrSrc::Copy(next?),
            How::Fill(true) => return None,
            How::Fill(false) => ArrSrc::Fill(self.fill_value(&p.state)),
            How::List => ArrSrc::List {
                items: self.list_items(&p.state, p.len),
                vec: false,
            },
            How::Step => self.step_call(&p.state),
        };
        Some(Stmt::ArrAssign {
            dst: p.state.clone(),
            src,
        })
    }

    fn loop_body(&mut self, ctx: Ctx) -> Vec<Stmt> {
        let plan = self.plan.take();
        let mut body = Vec::new();
        if self.has("array_in_loop") && self.rng.chance(0.15) {
            self.array_decl(ctx, &mut body);
        }
        let next = match &plan {
            Some(p) => self.plan_prologue(p, ctx, &mut body),
            None => None,
        };
        // A local struct's time step (`struct_values`), its writers'
        // calls (`struct_writer`).
        self.planned_step(ctx, &mut body);
        self.planned_writes(&mut body);
        // Jumps, each at the end of an `if` branch, at random places among
        // the statements (generated in place, so they see what is in scope).
        let inner = ctx.loops >= 2;
        let brk = if inner {
            self.has("break_in_inner_loop")
        } else {
            self.has("break")
        };
        let cont = if inner {
            self.has("continue_in_inner_loop")
        } else {
            self.has("continue")
        };
        let ret = ctx.loops_at_top
            && if inner {
                self.has("return_in_nested_loop")
            } else {
                self.has("return_in_loop")
            }
            && !self.in_helper
            && !self.in_ckpt;
        // No `break` out of a checkpointed loop (at the top level).
        let brk = brk && !(self.in_ckpt && ctx.loops == 1);
        let n = self.rng.range(1, 3);
        let mut jumps: Vec<(usize, u8)> = Vec::new();
        if brk && self.rng.chance(0.3) {
            jumps.push((self.rng.range(0, n), 0));
        }
        if cont && self.rng.chance(0.25) {
            jumps.push((self.rng.range(0, n), 1));
        }
        if ret && self.rng.chance(0.25) {
            jumps.push((self.rng.range(0, n), 2));
        }
        // A `match` whose arms jump (`jump_in_match`); `return` only from
        // a loop at the top level of the body.
        let match_ret = ret && !inner;
        if self.has("jump_in_match") && (brk || cont || match_ret) && self.rng.chance(0.15) {
            jumps.push((self.rng.range(0, n), 3));
        }
        // The rest of the body after a jump is a branch arm.
        let arms = self.arms;
        for k in 0..=n {
            for &(at, j) in &jumps {
                if at == k {
                    let s = if j == 3 {
                        self.jump_match(ctx, brk, cont, match_ret)
                    } else {
                        Some(self.jump_if(ctx, j))
                    };
                    if let Some(s) = s {
                        body.push(s);
                        self.arms += 1;
                    }
                }
            }
            if k == n {
                break;
            }
            if !self.mutables().is_empty() && self.rng.chance(0.5) {
                self.assign(ctx, &mut body);
            } else {
                self.stmt(ctx, &mut body);
            }
        }
        if let Some(p) = &plan {
            body.extend(self.plan_epilogue(p, next));
        }
        self.arms = arms;
        body
    }

    /// `if c { [s;] break; }` (or `continue`, `return e`), sometimes with
    /// the jump in the `else` branch.
    fn jump_if(&mut self, ctx: Ctx, kind: u8) -> Stmt {
        let cond = self.cond(1);
        let bctx = Ctx {
            loop_top: false,
            ifs: ctx.ifs + 1,
            ..ctx
        };
        let mut branch = Vec::new();
        self.arms += 1;
        if self.rng.chance(0.3) {
            self.push();
            self.assign(bctx, &mut branch);
            self.pop();
        }
        branch.push(match kind {
            0 => Stmt::Break,
            1 => Stmt::Continue,
            _ => Stmt::Return(self.return_value()),
        });
        self.arms -= 1;
        self.returned |= kind == 2;
        if self.rng.chance(0.2) {
            let other = self.branch(bctx);
            Stmt::If {
                cond,
                then: other,
                els: Some(branch),
            }
        } else {
            Stmt::If {
                cond,
                then: branch,
                els: None,
            }
        }
    }

    // ------------------------------------------------------------ expressions

    fn lit(&mut self) -> Expr {
        let v = self.nice_or_random();
        self.lit_of(v)
    }

    fn lit_of(&mut self, v: f64) -> Expr {
        let style = if self.has("literal_spellings") && self.rng.chance(0.3) {
            *self
                .rng
                .pick(&[LitStyle::Dot, LitStyle::Exp, LitStyle::Suffix])
        } else {
            LitStyle::Plain
        };
        Expr::Lit(v, style)
    }

    fn index(&mut self, len: u64) -> IExpr {
        let ints = self.value_ints();
        self.index_among(len, ints)
    }

    /// An index below `len` from the integer variables `ints`.
    fn index_among(&mut self, len: u64, ints: Vec<(String, u64)>) -> IExpr {
        let fitting: Vec<&(String, u64)> = ints.iter().filter(|(_, m)| *m < len).collect();
        let r = self.rng.below(10);
        if !fitting.is_empty() && r < 6 {
            IExpr::Var(self.rng.pick(&fitting).0.clone())
        } else if !ints.is_empty() && r < 8 {
            let v = IExpr::Var(self.rng.pick(&ints).0.clone());
            let c = self.rng.below(len as usize) as u64;
            let inner = if c == 0 {
                v
            } else {
                IExpr::Add(Box::new(v), Box::new(IExpr::Lit(c)))
            };
            IExpr::Rem(Box::new(inner), len)
        } else {
            IExpr::Lit(self.rng.below(len as usize) as u64)
        }
    }

    /// `a[i]` of an array of length `len`: the grid's `w` by row and
    /// column.
    fn element(&mut self, a: String, len: u64) -> Expr {
        let i = match &self.grid {
            Some((s, g)) if a == format!("{s}.w") => {
                let (s, g) = (s.clone(), *g);
                self.grid_index(&s, g)
            }
            _ => self.index(len),
        };
        Expr::Index(a, i)
    }

    /// `i * s.n + j` with `i` below the grid's rows and `j` below its `n`:
    /// integer variables that fit (an index of the loops around), or
    /// literals.
    fn grid_index(&mut self, s: &str, g: Grid) -> IExpr {
        let ints = self.ints();
        let below = |m: u64| -> Vec<String> {
            ints.iter()
                .filter(|(_, max)| *max < m)
                .map(|(n, _)| n.clone())
                .collect()
        };
        let (rows, cols) = (below(g.rows), below(g.n));
        let row = if !rows.is_empty() && self.rng.chance(0.7) {
            IExpr::Var(self.rng.pick(&rows).clone())
        } else {
            IExpr::Lit(self.rng.below(g.rows as usize) as u64)
        };
        let col = if !cols.is_empty() && self.rng.chance(0.7) {
            IExpr::Var(self.rng.pick(&cols).clone())
        } else {
            IExpr::Lit(self.rng.below(g.n as usize) as u64)
        };
        let n = IExpr::Var(format!("{s}.n"));
        IExpr::Add(
            Box::new(IExpr::Mul(Box::new(row), Box::new(n))),
            Box::new(col),
        )
    }

    /// A constant of the function, for a parameter the callee leaves out of
    /// its `wrt`: a literal, a `const`, an integer cast, a constant struct's
    /// field or element, or a sum or product of two ([`is_constant`]).
    fn constant(&mut self, depth: u32) -> Expr {
        if depth > 0 && self.rng.chance(0.3) {
            let op = *self.rng.pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul]);
            return Expr::Bin(op, Self::b(self.constant(0)), Self::b(self.constant(0)));
        }
        let ints = self.value_ints();
        let fields: Vec<(String, u64)> = self
            .structs
            .iter()
            .filter(|(_, _, active)| !active)
            .map(|(p, n, _)| (p.clone(), *n))
            .collect();
        let arrs = self.constant_arrs();
        let w = [
            3,
            if self.has("user_const") && !self.consts.is_empty() {
                1
            } else {
                0
            },
            if ints.is_empty() { 0 } else { 1 },
            if fields.is_empty() { 0 } else { 2 },
            if arrs.is_empty() { 0 } else { 2 },
        ];
        match self.rng.weighted(&w) {
            0 => self.lit(),
            1 => Expr::Const(self.rng.pick(&self.consts).clone()),
            2 => Expr::IntCast(IExpr::Var(self.rng.pick(&ints).0.clone())),
            3 => {
                let (p, n) = self.rng.pick(&fields).clone();
                Expr::Field(p, self.rng.below(n as usize) as u64)
            }
            _ => {
                let (a, len) = self.rng.pick(&arrs).clone();
                self.element(a, len)
            }
        }
    }

    /// The integer variables in scope that may be an index (of another
    /// array than the struct's own `w`) or an argument: a differentiated
    /// struct's `n` only with `int_field_elsewhere` (otherwise only loop
    /// bounds, `w`'s index, casts and conditions read it).
    fn value_ints(&self) -> Vec<(String, u64)> {
        let active_field = |n: &str| {
            n.strip_suffix(".n").is_some_and(|s| {
                self.structs
                    .iter()
                    .any(|(name, _, active)| name == s && *active)
            })
        };
        let ok = self.has("int_field_elsewhere");
        self.ints()
            .into_iter()
            .filter(|(n, _)| ok || !active_field(n))
            .collect()
    }

    /// A `usize` argument for a parameter whose values are at most `max`:
    /// an integer variable that fits (a loop index, a parameter, a
    /// struct's `n`), one taken modulo `max + 1`, or a literal.
    fn int_arg(&mut self, max: u64) -> IExpr {
        let ints = self.value_ints();
        let fitting: Vec<String> = ints
            .iter()
            .filter(|(_, m)| *m <= max)
            .map(|(n, _)| n.clone())
            .collect();
        let r = self.rng.below(10);
        if !fitting.is_empty() && r < 5 {
            IExpr::Var(self.rng.pick(&fitting).clone())
        } else if !ints.is_empty() && r < 7 {
            let v = IExpr::Var(self.rng.pick(&ints).0.clone());
            IExpr::Rem(Box::new(v), max + 1)
        } else {
            IExpr::Lit(self.rng.range(0, max as usize) as u64)
        }
    }

    /// Arguments for `params`: any float where the callee differentiates
    /// the parameter, a constant where it does not, an integer, a `bool`
    /// literal, an array of the slice's length; `None` when the caller
    /// has no such array.
    fn call_args(&mut self, params: &[Param], depth: u32) -> Option<Vec<Arg>> {
        let mut args = Vec::new();
        for p in params {
            args.push(match &p.kind {
                PKind::Scalar => match self.float_whole_arg() {
                    // A float bound to be passed on whole (`passed_whole`).
                    Some(e) => Arg::F(e),
                    None => {
                        self.in_call += 1;
                        let e = self.expr(depth);
                        self.in_call -= 1;
                        Arg::F(e)
                    }
                },
                PKind::ConstScalar => Arg::F(self.constant(1)),
                PKind::Int { max } => Arg::I(self.int_arg(*max)),
                PKind::Bool => Arg::B(self.rng.chance(0.5)),
                // An array of the caller's exactly as long as the slice
                // (the callee's loops run to `hs0.len()` and index arrays
                // of that length).
                PKind::Slice { len, .. } => {
                    let long: Vec<String> = self
                        .arrs_where(|_, k| matches!(k, ArrKind::Param | ArrKind::Local))
                        .into_iter()
                        .filter(|(_, l)| l == len)
                        .map(|(a, _)| a)
                        .collect();
                    if long.is_empty() {
                        return None;
                    }
                    Arg::A(self.rng.pick(&long).clone())
                }
                PKind::Struct { .. }
                | PKind::Data { .. }
                | PKind::Receiver
                | PKind::MutReceiver
                | PKind::MutStruct
                | PKind::MutScalar
                | PKind::Enum { .. } => {
                    unreachable!("no callee takes a struct or a float by `&mut` here")
                }
            });
        }
        Some(args)
    }

    /// Whether `name` is a constant struct parameter of the function.
    fn constant_struct(&self, name: &str) -> bool {
        self.structs
            .iter()
            .any(|(n, _, active)| n == name && !active)
    }

    /// The methods the code being generated may call, of `method_calls`:
    /// on a differentiated receiver outside branch arms (or with
    /// `method_in_branch`), on a constant one outside loops (or with
    /// `const_method_in_loop`).
    fn callable_methods(&self) -> Vec<(String, String, Vec<Param>)> {
        // A struct writer reads its struct whole in a loop only with
        // `struct_writer_read_in_loop` (a finding: KNOWN_FAILING).
        if self.sw_lent.is_some() && self.loops > 0 && !self.has("struct_writer_read_in_loop") {
            return Vec::new();
        }
        let in_arm = self.arms > 0 || self.returned;
        let ok = |recv: &str| {
            if self.constant_struct(recv) {
                self.loops == 0 || self.has("const_method_in_loop")
            } else {
                !in_arm || self.has("method_in_branch")
            }
        };
        let mut out: Vec<(String, String, Vec<Param>)> = self
            .method_calls
            .iter()
            .filter(|(recv, ..)| ok(recv))
            .cloned()
            .collect();
        // Not `mut` local structs (`struct_values`).
        if !in_arm || self.has("method_in_branch") {
            for q in self.local_receivers() {
                for (m, ps) in &self.sv_methods {
                    out.push((q.clone(), m.clone(), ps.clone()));
                }
            }
        }
        out
    }

    /// A call of one of the methods the function may call
    /// ([`Self::callable_methods`], not empty).
    fn method_call(&mut self, depth: u32) -> Expr {
        let (recv, name, params) = self.rng.pick(&self.callable_methods()).clone();
        let Some(mut args) = self.call_args(&params, depth) else {
            return self.leaf();
        };
        if self.constant_struct(&recv) && !self.has("const_receiver_opaque_arg") {
            // A float argument whose type #[grad] cannot see goes through
            // a typed `let`: `p0.m0({ let t: f64 = a; t })`.
            for (a, p) in args.iter_mut().zip(&params) {
                if let (Arg::F(e), PKind::Scalar) = (a, &p.kind) {
                    if is_typed(e) && !self.anchored(e) {
                        let t = self.fresh("t");
                        let init = std::mem::replace(e, Expr::Var(t.clone()));
                        let stmts = vec![Stmt::Let {
                            name: t.clone(),
                            mutable: false,
                            typed: true,
                            init,
                        }];
                        *e = Expr::Block(Box::new(Block {
                            stmts,
                            tail: Expr::Var(t),
                        }));
                    }
                }
            }
        }
        // A struct writer reads the struct it changes by a method's path
        // only with `struct_writer_path_read` (a finding: KNOWN_FAILING).
        let path = self.method_path()
            && (self.sw_lent.as_deref() != Some(recv.as_str())
                || self.has("struct_writer_path_read"));
        Expr::Method(recv, name, args, path)
    }

    fn leaf(&mut self) -> Expr {
        let floats = if self.closure > 0 && !self.has("closure_capture") {
            self.closure_vars.clone()
        } else if self.immutable_captures {
            self.floats().into_iter().filter(|(_, m)| !m).collect()
        } else {
            self.floats()
        };
        let readable = if self.closure > 0 {
            Vec::new()
        } else {
            self.readable_arrs()
        };
        let ints = self.ints();
        let w = [
            if floats.is_empty() { 0 } else { 8 },
            3,
            if self.has("user_const") && !self.consts.is_empty() {
                1
            } else {
                0
            },
            if readable.is_empty() { 0 } else { 3 },
            if self.has("int_cast") && !ints.is_empty() && self.closure == 0 {
                1
            } else {
                0
            },
            // A field of a struct parameter (not in a closure: a `let`
            // closure borrows, and fields stay simple).
            if self.structs.is_empty() || self.closure > 0 {
                0
            } else {
                4
            },
            // A struct's integer field cast, `p0.n as f64`.
            if self.grid.is_some() && self.closure == 0 {
                1
            } else {
                0
            },
            // A local struct's field (`struct_values`, `struct_writer`).
            if self.locals_here() && !self.local_structs().is_empty() {
                4
            } else {
                0
            },
        ];
        match self.rng.weighted(&w) {
            0 => Expr::Var(self.rng.pick(&floats).0.clone()),
            5 => {
                let (p, n, _) = self.rng.pick(&self.structs).clone();
                Expr::Field(p, self.rng.below(n as usize) as u64)
            }
            6 => {
                let (s, _) = self.grid.clone().expect("a grid");
                let n = || Box::new(IExpr::Var(format!("{s}.n")));
                if self.has("int_field_arith") && self.rng.chance(0.4) {
                    match self.rng.chance(0.5) {
                        true => Expr::IntCast(IExpr::Mul(n(), n())),
                        false => Expr::IntCast(IExpr::Add(n(), n())),
                    }
                } else {
                    Expr::IntCast(*n())
                }
            }
            7 => {
                let q = self.rng.pick(&self.local_structs()).name.clone();
                let (fields, _) = self.layout.expect("the struct type");
                Expr::Field(q, self.rng.below(fields as usize) as u64)
            }
            1 => self.lit(),
            2 => Expr::Const(self.rng.pick(&self.consts).clone()),
            3 => {
                let (a, len) = self.rng.pick(&readable).clone();
                self.element(a, len)
            }
            _ => {
                let (n, _) = self.rng.pick(&ints).clone();
                Expr::IntCast(IExpr::Var(n))
            }
        }
    }

    fn b(e: Expr) -> Box<Expr> {
        Box::new(e)
    }

    /// A bounded image of `e` in about [-1.6, 1.6].
    fn squash(&mut self, e: Expr) -> Expr {
        let mut opts = Vec::new();
        if self.has("trig") {
            opts.extend([Un::Tanh, Un::Sin, Un::Cos, Un::Atan]);
        }
        if opts.is_empty() {
            if self.has("ml") {
                return Expr::Ml(Ml::Sigmoid, Self::b(e));
            }
            if self.has("division") {
                // e / (e*e + 1) is in [-1/2, 1/2].
                let d = Expr::Bin(
                    BinOp::Add,
                    Self::b(Expr::Bin(
                        BinOp::Mul,
                        Self::b(e.clone()),
                        Self::b(e.clone()),
                    )),
                    Self::b(Expr::Lit(1.0, LitStyle::Plain)),
                );
                return Expr::Bin(BinOp::Div, Self::b(e), Self::b(d));
            }
            return Expr::Bin(
                BinOp::Mul,
                Self::b(e),
                Self::b(Expr::Lit(0.5, LitStyle::Plain)),
            );
        }
        let u = *self.rng.pick(&opts);
        let path = self.path();
        Expr::Un(u, Self::b(e), path)
    }

    fn path(&mut self) -> bool {
        self.has("path_form") && self.rng.chance(0.15)
    }

    /// `b*b + c` with `c > 0`.
    fn positive_of(&mut self, b: Expr) -> Expr {
        let c = *self.rng.pick(&[0.5, 1.0, 2.0]);
        Expr::Bin(
            BinOp::Add,
            Self::b(Expr::Bin(BinOp::Mul, Self::b(b.clone()), Self::b(b))),
            Self::b(Expr::Lit(c, LitStyle::Plain)),
        )
    }

    fn positive(&mut self) -> Expr {
        let b = self.expr(1);
        if self.rng.chance(0.3) {
            let v = *self.rng.pick(&[2.0, 1.5, 4.0, 0.5]);
            self.lit_of(v)
        } else {
            self.positive_of(b)
        }
    }

    fn expr(&mut self, depth: u32) -> Expr {
        if depth == 0 || self.rng.chance(0.2) {
            return self.leaf();
        }
        let no_closure = self.closure == 0;
        let arrs = if no_closure {
            self.arrs(false)
        } else {
            Vec::new()
        };
        let ints = if no_closure { self.ints() } else { Vec::new() };
        let w = [
            /* 0 arith */ 10,
            /* 1 neg */ 1,
            /* 2 div */ if self.has("division") { 2 } else { 0 },
            /* 3 trig */ if self.has("trig") { 4 } else { 0 },
            /* 4 exp_log */ if self.has("exp_log") { 3 } else { 0 },
            /* 5 pow */ if self.has("pow") { 2 } else { 0 },
            /* 6 kinks */ if self.has("kinks") { 2 } else { 0 },
            /* 7 two_arg */ if self.has("two_arg") { 1 } else { 0 },
            /* 8 ml */ if self.has("ml") { 1 } else { 0 },
            /* 9 if */
            if self.has("if_expr") && no_closure && depth >= 2 {
                1
            } else {
                0
            },
            /* 10 match */
            if self.has("match_int") && !ints.is_empty() && depth >= 2 {
                1
            } else {
                0
            },
            /* 11 call */
            if self.helper.is_some()
                && no_closure
                && !self.in_helper
                && (self.in_call == 0 || self.has("nested_call"))
            {
                3
            } else {
                0
            },
            /* 12 sum */
            if self.has("sum") && !arrs.is_empty() {
                1
            } else {
                0
            },
            /* 13 map_sum */
            if self.has("map_sum") && !arrs.is_empty() {
                1
            } else {
                0
            },
            /* 14 fold */
            if self.has("fold") && !arrs.is_empty() {
                1
            } else {
                0
            },
            /* 15 block */
            if self.has("block_expr") && no_closure && depth >= 2 {
                1
            } else {
                0
            },
            /* 16 zip_sum */
            if self.has("zip_sum") && !arrs.is_empty() {
                1
            } else {
                0
            },
            /* 17 closure call */
            if no_closure && !self.closures().is_empty() {
                2
            } else {
                0
            },
            /* 18 method call */
            if no_closure && !self.callable_methods().is_empty() {
                3
            } else {
                0
            },
            /* 19 fallible call */
            if self.fallible.is_some()
                && no_closure
                && !self.in_helper
                && (self.in_call == 0 || self.has("nested_call"))
            {
                3
            } else {
                0
            },
            /* 20 hp0(&q, ..) */
            if self.struct_fn.is_some()
                && self.whole_use_here()
                && !self.local_structs().is_empty()
                && (self.in_call == 0 || self.has("nested_call"))
            {
                2
            } else {
                0
            },
            /* 21 (0..n).map(|i| ..).sum::<f64>() */
            if self.has("range_chain") && no_closure {
                1
            } else {
                0
            },
            /* 22 (a..b).fold(init, |acc, i| ..) */
            if self.has("range_chain") && no_closure {
                1
            } else {
                0
            },
            /* 23 rd0(d, x), hf0(t, y): results passed on whole */
            if self.wholes.is_empty() || !no_closure || self.in_helper {
                0
            } else if self.whole_vars(|_| true).is_empty() {
                1
            } else {
                3
            },
            /* 24 r * e, r.sin() of a reference `r` */
            if no_closure && !self.float_refs().is_empty() {
                3
            } else {
                0
            },
            /* 25 p.energy(), make(..).norm2() */
            if self.made_here() && (self.in_call == 0 || self.has("nested_call")) {
                2
            } else {
                0
            },
        ];
        let d = depth - 1;
        match self.rng.weighted(&w) {
            0 => {
                let op = *self.rng.pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul]);
                Expr::Bin(op, Self::b(self.expr(d)), Self::b(self.expr(d)))
            }
            1 => Expr::Neg(Self::b(self.expr(d))),
            2 => {
                let a = self.expr(d);
                let den = self.positive();
                Expr::Bin(BinOp::Div, Self::b(a), Self::b(den))
            }
            3 => {
                let u = *self
                    .rng
                    .pick(&[Un::Sin, Un::Cos, Un::Tanh, Un::Atan, Un::Asinh, Un::Tan]);
                let a = self.expr(d);
                let a = if u == Un::Tan {
                    Expr::Un(Un::Tanh, Self::b(a), false)
                } else {
                    a
                };
                let path = self.path();
                Expr::Un(u, Self::b(a), path)
            }
            4 => {
                let a = self.expr(d.min(1));
                let path = self.path();
                match self.rng.below(7) {
                    0 => {
                        let s = self.squash(a);
                        Expr::Un(Un::Exp, Self::b(s), path)
                    }
                    1 => {
                        let n = Expr::Neg(Self::b(Expr::Bin(
                            BinOp::Mul,
                            Self::b(a.clone()),
                            Self::b(a),
                        )));
                        Expr::Un(Un::Exp, Self::b(n), path)
                    }
                    2 => {
                        let p = self.positive_of(a);
                        Expr::Un(Un::Ln, Self::b(p), path)
                    }
                    3 => {
                        let sq = Expr::Bin(BinOp::Mul, Self::b(a.clone()), Self::b(a));
                        Expr::Un(Un::Ln1p, Self::b(sq), path)
                    }
                    4 => {
                        let p = self.positive_of(a);
                        Expr::Un(Un::Sqrt, Self::b(p), path)
                    }
                    5 => {
                        let p = self.positive_of(a);
                        Expr::Un(Un::Cbrt, Self::b(p), path)
                    }
                    _ => {
                        let p = self.positive_of(a);
                        Expr::Un(Un::Recip, Self::b(p), path)
                    }
                }
            }
            5 => {
                let a = self.expr(d.min(1));
                let path = self.path();
                match self.rng.below(3) {
                    0 => {
                        let k = *self.rng.pick(&[0, 1, 2, 2, 3]);
                        Expr::Un(Un::Powi(k), Self::b(a), path)
                    }
                    1 => {
                        let k = *self.rng.pick(&[-1, -2]);
                        let p = self.positive_of(a);
                        Expr::Un(Un::Powi(k), Self::b(p), path)
                    }
                    _ => {
                        let base = self.positive_of(a);
                        let e = if self.rng.chance(0.6) {
                            let v = *self.rng.pick(&[0.5, 1.5, -0.5, 2.5, 0.3]);
                            self.lit_of(v)
                        } else {
                            let e = self.expr(1);
                            self.squash(e)
                        };
                        Expr::Bi(Bi::Powf, Self::b(base), Self::b(e), path)
                    }
                }
            }
            6 => {
                let path = self.path();
                match self.rng.below(3) {
                    0 => Expr::Un(Un::Abs, Self::b(self.expr(d)), path),
                    1 => Expr::Bi(Bi::Max, Self::b(self.expr(d)), Self::b(self.expr(d)), path),
                    _ => Expr::Bi(Bi::Min, Self::b(self.expr(d)), Self::b(self.expr(d)), path),
                }
            }
            7 => {
                let path = self.path();
                match self.rng.below(3) {
                    0 => Expr::Bi(
                        Bi::Hypot,
                        Self::b(self.expr(d)),
                        Self::b(self.expr(d)),
                        path,
                    ),
                    1 => Expr::Bi(
                        Bi::Atan2,
                        Self::b(self.expr(d)),
                        Self::b(self.expr(d)),
                        path,
                    ),
                    _ => Expr::MulAdd(
                        Self::b(self.expr(d)),
                        Self::b(self.expr(d)),
                        Self::b(self.expr(d)),
                    ),
                }
            }
            8 => {
                let m = *self.rng.pick(&[Ml::Sigmoid, Ml::Softplus, Ml::Relu]);
                Expr::Ml(m, Self::b(self.expr(d)))
            }
            9 => {
                let c = self.cond(1);
                self.arms += 1;
                let a = self.expr_block(TOP_EXPR, d);
                let b = if self.has("else_if") && self.rng.chance(0.25) {
                    let c2 = self.cond(1);
                    let x = self.expr_block(TOP_EXPR, d);
                    let y = self.expr_block(TOP_EXPR, d);
                    Block {
                        stmts: vec![],
                        tail: Expr::If(Box::new(c2), Box::new(x), Box::new(y)),
                    }
                } else {
                    self.expr_block(TOP_EXPR, d)
                };
                self.arms -= 1;
                Expr::If(Box::new(c), Box::new(a), Box::new(b))
            }
            10 => {
                let (n, max) = self.rng.pick(&ints).clone();
                let (scrut, max) = if self.rng.chance(0.3) {
                    (IExpr::Rem(Box::new(IExpr::Var(n)), 3), 2)
                } else {
                    (IExpr::Var(n), max)
                };
                let mut vals: Vec<u64> = (0..=max.min(4)).collect();
                let mut arms = Vec::new();
                self.arms += 1;
                for _ in 0..self.rng.range(1, 3) {
                    if vals.is_empty() {
                        break;
                    }
                    let pats = self.arm_patterns(&mut vals);
                    arms.push((pats, self.expr(d)));
                }
                let def = self.expr(d);
                self.arms -= 1;
                Expr::Match(scrut, arms, Self::b(def))
            }
            11 => {
                let (name, params) = self.helper.clone().expect("helper");
                match self.call_args(&params, d) {
                    Some(args) => Expr::Call(name, args),
                    None => self.leaf(),
                }
            }
            18 => self.method_call(d),
            19 => self.try_call(d),
            20 => self.struct_fn_call(d),
            21 => self.range_sum(d),
            22 => self.range_fold(d),
            23 => match self.whole_call(d) {
                Some(e) => e,
                None => self.leaf(),
            },
            24 => self.ref_use(d),
            25 => self.made_use(d),
            12 => Expr::Sum(self.rng.pick(&arrs).0.clone()),
            13 => {
                let arr = self.rng.pick(&arrs).0.clone();
                let var = self.fresh("u");
                let by_ref = self.rng.chance(0.5);
                self.push();
                self.declare_float(&var, false);
                self.closure += 1;
                self.closure_vars.push((var.clone(), false));
                let mut body = self.expr(2);
                self.closure_vars.pop();
                self.closure -= 1;
                self.pop();
                if !self.has("closure_ignores_param") && !mentions_var(&body, &var) {
                    body = Expr::Bin(BinOp::Add, Self::b(body), Self::b(Expr::Var(var.clone())));
                }
                Expr::MapSum {
                    arr,
                    var,
                    by_ref,
                    body: Self::b(body),
                }
            }
            14 => {
                let arr = self.rng.pick(&arrs).0.clone();
                self.in_fold_init += 1;
                let init = self.expr(1);
                self.in_fold_init -= 1;
                let acc = self.fresh("acc");
                let var = self.fresh("u");
                let by_ref = self.rng.chance(0.5);
                self.push();
                self.declare_float(&acc, false);
                self.declare_float(&var, false);
                self.closure += 1;
                self.closure_vars.push((acc.clone(), false));
                self.closure_vars.push((var.clone(), false));
                let mut body = self.expr(2);
                self.closure_vars.pop();
                self.closure_vars.pop();
                if !self.has("closure_ignores_param") && !mentions_var(&body, &var) {
                    body = Expr::Bin(BinOp::Add, Self::b(body), Self::b(Expr::Var(var.clone())));
                }
                // The accumulator only through a squashing function: the
                // fold stays bounded however long the array.
                if mentions_var(&body, &acc) {
                    body = self.squash(body);
                }
                let body = if self.rng.chance(0.5)
                    || (!self.has("closure_ignores_param") && !mentions_var(&body, &acc))
                {
                    // acc * c + g(v): the classic running combination.
                    let c = Expr::Lit(*self.rng.pick(&[0.5, 0.9]), LitStyle::Plain);
                    Expr::Bin(
                        BinOp::Add,
                        Self::b(Expr::Bin(
                            BinOp::Mul,
                            Self::b(Expr::Var(acc.clone())),
                            Self::b(c),
                        )),
                        Self::b(body),
                    )
                } else {
                    body
                };
                self.closure -= 1;
                self.pop();
                Expr::Fold {
                    arr,
                    init: Self::b(init),
                    acc,
                    var,
                    by_ref,
                    body: Self::b(body),
                }
            }
            15 => Expr::Block(Box::new(self.expr_block(TOP_EXPR, d))),
            17 => {
                let c = self.rng.pick(&self.closures()).clone();
                Expr::CallClosure(c, Self::b(self.expr(d)))
            }
            _ => {
                let a = self.rng.pick(&arrs).0.clone();
                let b = self.rng.pick(&arrs).0.clone();
                let va = self.fresh("u");
                let vb = self.fresh("u");
                self.push();
                self.declare_float(&va, false);
                self.declare_float(&vb, false);
                self.closure += 1;
                self.closure_vars.push((va.clone(), false));
                self.closure_vars.push((vb.clone(), false));
                let mut body = self.expr(2);
                self.closure_vars.pop();
                self.closure_vars.pop();
                self.closure -= 1;
                self.pop();
                // Both elements in the body: the pairing is what is tested.
                if !self.has("closure_ignores_param") {
                    let pair = Expr::Bin(
                        BinOp::Mul,
                        Self::b(Expr::Var(va.clone())),
                        Self::b(Expr::Var(vb.clone())),
                    );
                    body = Expr::Bin(BinOp::Add, Self::b(body), Self::b(pair));
                }
                Expr::ZipSum {
                    a,
                    b,
                    va,
                    vb,
                    body: Self::b(body),
                }
            }
        }
    }

    /// A block for an expression: maybe a `let`, then a tail.
    fn expr_block(&mut self, _ctx: Ctx, depth: u32) -> Block {
        self.push();
        let mut stmts = Vec::new();
        if self.has("block_expr") && self.rng.chance(0.3) {
            let name = self.fresh("t");
            let init = self.expr(depth);
            let typed = self.annotate(&name, &init);
            stmts.push(Stmt::Let {
                name: name.clone(),
                mutable: false,
                typed,
                init,
            });
            self.declare_float(&name, false);
        }
        let tail = self.expr(depth);
        self.pop();
        Block { stmts, tail }
    }

    fn cond(&mut self, depth: u32) -> Cond {
        let ints = if self.closure == 0 {
            self.ints()
        } else {
            Vec::new()
        };
        if depth > 0 && self.has("bool_logic") && self.rng.chance(0.15) {
            self.in_logic += 1;
            let a = self.cond(depth - 1);
            let b = self.cond(depth - 1);
            self.in_logic -= 1;
            return if self.rng.chance(0.5) {
                Cond::And(Box::new(a), Box::new(b))
            } else {
                Cond::Or(Box::new(a), Box::new(b))
            };
        }
        if !self.bools.is_empty() && self.closure == 0 && self.rng.chance(0.3) {
            let b = self.rng.pick(&self.bools).clone();
            return Cond::B(b, self.rng.chance(0.4));
        }
        if !ints.is_empty() && self.rng.chance(0.25) {
            let (n, max) = self.rng.pick(&ints).clone();
            return if self.rng.chance(0.5) {
                let m = *self.rng.pick(&[2, 3]);
                let k = self.rng.below(m as usize) as u64;
                let op = *self.rng.pick(&[Cmp::Eq, Cmp::Ne]);
                Cond::I(op, IExpr::Rem(Box::new(IExpr::Var(n)), m), IExpr::Lit(k))
            } else {
                let k = self.rng.range(0, max as usize) as u64;
                let op = *self.rng.pick(&[Cmp::Lt, Cmp::Gt, Cmp::Eq, Cmp::Ge]);
                Cond::I(op, IExpr::Var(n), IExpr::Lit(k))
            };
        }
        let op = *self.rng.pick(&[Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge]);
        let a = self.expr(depth.min(1));
        let b = if self.rng.chance(0.6) {
            let v = (self.rng.uniform(-1.5, 1.5) * 100.0).round() / 100.0;
            self.lit_of(v)
        } else {
            self.leaf()
        };
        Cond::F(op, a, b)
    }
}

const TOP_EXPR: Ctx = Ctx {
    loops: 0,
    top: false,
    loop_top: false,
    loops_at_top: false,
    ifs: 0,
};

fn mentions_var(e: &Expr, name: &str) -> bool {
    let mut found = false;
    visit_vars(e, &mut |v| found |= v == name);
    found
}

/// Whether `e` reads the array `a` (an element, or through a chain).
fn reads_arr(e: &Expr, a: &str) -> bool {
    fn len_of(i: &IExpr, a: &str) -> bool {
        match i {
            IExpr::Len(n) => n == a,
            IExpr::Add(x, y) | IExpr::Mul(x, y) => len_of(x, a) || len_of(y, a),
            IExpr::Rem(x, _) => len_of(x, a),
            IExpr::Lit(_) | IExpr::Var(_) => false,
        }
    }
    let mut found = false;
    visit_exprs(e, &mut |x| match x {
        Expr::Index(n, i) => found |= n == a || len_of(i, a),
        Expr::Sum(n) => found |= n == a,
        // `(0..a.len()).map(..)`, `a.len() as f64`: its length read too
        // (`a.fill(..)` borrows `a` mutably through a slice, before its
        // argument runs).
        Expr::RangeSum { range, .. } | Expr::RangeFold { range, .. } => {
            found |= len_of(&range.lo, a) || len_of(&range.hi, a)
        }
        Expr::IntCast(i) | Expr::Match(i, ..) => found |= len_of(i, a),
        Expr::MapSum { arr, .. } | Expr::Fold { arr, .. } => found |= arr == a,
        Expr::ZipSum { a: x, b: y, .. } => found |= x == a || y == a,
        Expr::Call(_, args)
        | Expr::Method(_, _, args, _)
        | Expr::Assoc(_, _, args)
        | Expr::ResultMethod { args, .. } => {
            found |= args.iter().any(|g| matches!(g, Arg::A(n) if n == a))
        }
        _ => {}
    });
    found
}

/// Whether a loop body changes a variable or an array declared before it
/// (assigns it, stores into it, pushes to it, replaces it whole).
fn changes_outer(body: &[Stmt]) -> bool {
    fn walk(ss: &[Stmt], declared: &mut Vec<String>, changed: &mut Vec<String>) {
        for s in ss {
            match s {
                Stmt::Let { name, .. }
                | Stmt::Deferred { name, .. }
                | Stmt::LetArr { name, .. }
                | Stmt::LetVec { name, .. }
                | Stmt::LetClosure { name, .. } => declared.push(name.clone()),
                Stmt::Assign { name, .. } => changed.push(name.clone()),
                Stmt::Store { arr, .. } | Stmt::Push { arr, .. } => changed.push(arr.clone()),
                Stmt::ArrAssign { dst, src } => {
                    changed.push(dst.clone());
                    if let ArrSrc::Swap(n) = src {
                        changed.push(n.clone());
                    }
                }
                Stmt::LetTuple { names, .. } => declared.extend(names.iter().cloned()),
                Stmt::LetStruct { name, .. } => declared.push(name.clone()),
                Stmt::FieldAssign { name, .. } | Stmt::StructStep { name, .. } => {
                    changed.push(name.clone())
                }
                Stmt::WriterCall { lent, .. } => changed.extend(lent.iter().cloned()),
                Stmt::If { .. } | Stmt::Match { .. } => {
                    for b in branches(s) {
                        walk(b, declared, changed);
                    }
                }
                Stmt::For { body, .. }
                | Stmt::ForEach { body, .. }
                | Stmt::While { body, .. }
                | Stmt::Loop { body, .. } => walk(body, declared, changed),
                Stmt::LetCall { pat, .. } => match pat {
                    CallPat::Whole(n) | CallPat::Passed(n) | CallPat::Made(n) => {
                        declared.push(n.clone())
                    }
                    CallPat::Array(ns) | CallPat::Tuple(ns) => declared.extend(ns.iter().cloned()),
                },
                Stmt::LetLoop { name, body, .. } => {
                    walk(body, declared, changed);
                    declared.push(name.clone());
                }
                Stmt::Labeled { body, .. } => {
                    walk(std::slice::from_ref(&**body), declared, changed)
                }
                Stmt::EnumMatch { name, .. } => {
                    for b in branches(s) {
                        walk(b, declared, changed);
                    }
                    if let Some((n, _)) = name {
                        declared.push(n.clone());
                    }
                }
                Stmt::WhileLet { body, .. } => walk(body, declared, changed),
                Stmt::LetRef { name, .. } => declared.push(name.clone()),
                Stmt::StructWrite { target, .. }
                | Stmt::StructReplace { target, .. }
                | Stmt::VecFieldAssign { target, .. } => changed.push(target.clone()),
                Stmt::Replace { old, target, .. } => {
                    declared.extend(old.iter().cloned());
                    changed.push(target.clone());
                }
                Stmt::Break
                | Stmt::Continue
                | Stmt::Return(_)
                | Stmt::ReturnVoid
                | Stmt::ReturnErr(_)
                | Stmt::BreakValue(_)
                | Stmt::BreakValueTo(..)
                | Stmt::BreakTo(_)
                | Stmt::ContinueTo(_) => {}
            }
        }
    }
    let (mut declared, mut changed) = (Vec::new(), Vec::new());
    walk(body, &mut declared, &mut changed);
    changed.iter().any(|c| !declared.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render;

    /// Every program is well-formed, and the new constructs show up: a
    /// state array replaced in a loop, a step call, pushes, checkpoints,
    /// a writer's call, a fallible call with `?` and unwrapped, jumps in
    /// `match` arms, tuples from branches, local structs built, copied,
    /// given to `hp0`, changed by a field, stepped by `st0`, methods called
    /// on them.
    #[test]
    fn programs_are_well_formed_and_use_every_construct() {
        let all = Features::all();
        let mut seen = [0usize; 26];
        // Statements of `f` anywhere (loops, branch arms).
        fn any(ss: &[Stmt], f: &dyn Fn(&Stmt) -> bool) -> bool {
            ss.iter().any(|s| {
                f(s) || match s {
                    Stmt::For { body, .. }
                    | Stmt::ForEach { body, .. }
                    | Stmt::While { body, .. }
                    | Stmt::Loop { body, .. } => any(body, f),
                    Stmt::If { .. } | Stmt::Match { .. } => {
                        branches(s).into_iter().any(|b| any(b, f))
                    }
                    _ => false,
                }
            })
        }
        for seed in 0..2000 {
            let p = generate(seed, &all);
            if let Err(e) = crate::check::validate(&p) {
                panic!("seed {seed}: {e}\n{}", render::user_code(&p, "#[grad]"));
            }
            let text = render::user_code(&p, "#[grad]");
            for (k, pat) in [
                "std::mem::swap(",
                ".copy_from_slice(",
                ".fill(",
                " = step(",
                "= Vec::new();",
                ".push(",
                "#[checkpoint(every",
                "#[checkpoint(snapshots",
                "w0(&mut ",
                ")?",
                ").unwrap()",
                "=> break,",
                "=> continue,",
                "=> return ",
                ") = if ",
                ") = match ",
                " = P0 { f0: ",
                "w: vec![",
                ".to_vec() }",
                ".clone();",
                ", ..q",
                "hp0(&q",
                ".st0(",
            ]
            .iter()
            .enumerate()
            {
                seen[k] += usize::from(text.contains(pat));
            }
            // Local structs moved, changed by a field, stepped in a loop,
            // a method called on a `let mut` one.
            let body = &p.main.body.stmts;
            let moved = |s: &Stmt| {
                matches!(
                    s,
                    Stmt::LetStruct {
                        init: StructInit::Move(_),
                        ..
                    }
                )
            };
            let in_loop = |s: &Stmt| match s {
                Stmt::For { body, .. } | Stmt::ForEach { body, .. } | Stmt::While { body, .. } => {
                    any(body, &|s| matches!(s, Stmt::StructStep { .. }))
                }
                _ => false,
            };
            // A method called on a `let mut` local struct.
            let muts = mutable_structs(body);
            let mut method_on_mut = false;
            let mut b = p.main.body.clone();
            map_block(
                &mut b,
                &mut |e: &mut Expr| {
                    if let Expr::Method(q, ..) = e {
                        method_on_mut |= muts.contains(q);
                    }
                },
                &mut |_: &mut IExpr| {},
            );
            for (k, hit) in [
                any(body, &moved),
                any(body, &|s| matches!(s, Stmt::FieldAssign { .. })),
                any(body, &in_loop),
                method_on_mut,
            ]
            .into_iter()
            .enumerate()
            {
                seen[22 + k] += usize::from(hit);
            }
        }
        // `xs.to_vec()` needs an array exactly as long as the grid.
        let least = |k: usize| if k == 18 { 5 } else { 20 };
        assert!(
            seen.iter().enumerate().all(|(k, &n)| n >= least(k)),
            "{seen:?}"
        );
    }

    /// The `let mut` local structs declared anywhere in `ss`.
    fn mutable_structs(ss: &[Stmt]) -> Vec<String> {
        let mut out = Vec::new();
        for s in ss {
            match s {
                Stmt::LetStruct {
                    name,
                    mutable: true,
                    ..
                } => out.push(name.clone()),
                Stmt::For { body, .. }
                | Stmt::ForEach { body, .. }
                | Stmt::While { body, .. }
                | Stmt::Loop { body, .. } => out.extend(mutable_structs(body)),
                Stmt::If { .. } | Stmt::Match { .. } => {
                    for b in branches(s) {
                        out.extend(mutable_structs(b));
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The constructs of `array_call`, `loop_value`, `labels`,
    /// `range_chain`, `enum_match` and `while_let` show up.
    #[test]
    fn programs_use_the_new_loops_calls_and_matches() {
        let all = Features::all();
        let pats = [
            " = g1(",
            ") = g2(",
            " = loop {",
            "break 'outer",
            "continue 'outer",
            ".map(|i",
            ".filter(|i",
            "fold(",
            "match mode0 {",
            "Mode0::C(",
            ".pop() {",
            ".next() {",
        ];
        let mut seen = [0usize; 12];
        for seed in 0..1000 {
            let text = render::user_code(&generate(seed, &all), "#[grad]");
            for (k, pat) in pats.iter().enumerate() {
                seen[k] += usize::from(text.contains(pat));
            }
        }
        assert!(seen.iter().all(|&n| n >= 5), "{seen:?}");
    }

    /// The shapes of `method_path`, `assoc_fn`, `made_struct`,
    /// `mem_replace`, `filter_names` and `float_ref` show up, each as users
    /// write it.
    #[test]
    fn programs_use_the_shapes_users_write() {
        let all = Features::all();
        let pats = [
            "P0::m0(p0",
            "P0::m0(&q",
            "Self::m0(self",
            "P0::helper(",
            "K0::helper(",
            ": P1 = make(",
            "P1::",
            "std::mem::replace(&mut ",
            "let _ = std::mem::replace(",
            ".enumerate().filter(|(",
            "**y",
            "(*y",
        ];
        let mut seen = [0usize; 12];
        let mut used = [0usize; 6];
        let mut on_result = 0;
        for seed in 0..1000 {
            let p = generate(seed, &all);
            if let Err(e) = crate::check::validate(&p) {
                panic!("seed {seed}: {e}\n{}", render::user_code(&p, "#[grad]"));
            }
            let text = render::user_code(&p, "#[grad]");
            for (k, pat) in pats.iter().enumerate() {
                seen[k] += usize::from(text.contains(pat));
            }
            let counted = crate::features::counted(&p);
            for (k, f) in crate::features::COUNTED[12..18].iter().enumerate() {
                used[k] += usize::from(counted.contains(f));
            }
            let mut b = p.main.body.clone();
            let mut direct = false;
            map_block(
                &mut b,
                &mut |e: &mut Expr| direct |= matches!(e, Expr::ResultMethod { .. }),
                &mut |_: &mut IExpr| {},
            );
            on_result += usize::from(direct);
        }
        assert!(seen.iter().all(|&n| n >= 5), "{seen:?}");
        assert!(used.iter().all(|&n| n >= 25), "{used:?}");
        assert!(on_result >= 20, "{on_result} direct calls on a result");
    }

    /// With any one feature off, programs stay well-formed.
    #[test]
    fn programs_are_well_formed_with_any_feature_off() {
        for (name, _) in crate::features::FEATURES {
            let f = Features::without(&[*name]).unwrap();
            for seed in 0..150 {
                let p = generate(seed, &f);
                if let Err(e) = crate::check::validate(&p) {
                    panic!(
                        "without {name}, seed {seed}: {e}\n{}",
                        render::user_code(&p, "#[grad]")
                    );
                }
            }
        }
    }
}

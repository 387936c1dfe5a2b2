//! The programs the generator writes: a small AST of the README's subset,
//! rendered twice (as the `#[grad]` function and as its dual-number twin).

/// How a float literal is spelled in the plain function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LitStyle {
    /// `0.5`, `2.0`
    Plain,
    /// `2.` (integral values only)
    Dot,
    /// `5e-1`
    Exp,
    /// `0.5_f64`
    Suffix,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

/// Float methods of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Un {
    Sin,
    Cos,
    Tan,
    Tanh,
    Atan,
    Asinh,
    Exp,
    Ln,
    Ln1p,
    Sqrt,
    Cbrt,
    Recip,
    Abs,
    Powi(i32),
}

/// Float methods of two operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bi {
    Powf,
    Max,
    Min,
    Hypot,
    Atan2,
}

/// The runtime's ML primitives, called as `autodiff::name(x)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ml {
    Sigmoid,
    Softplus,
    Relu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AOp {
    Set,
    Add,
    Sub,
    Mul,
    Div,
}

/// A float expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Lit(f64, LitStyle),
    /// A float variable, parameter or closure parameter.
    Var(String),
    /// A user `const`.
    Const(String),
    /// `(i as f64)`
    IntCast(IExpr),
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `x.m()`, or `f64::m(x)` when the flag is set.
    Un(Un, Box<Expr>, bool),
    /// `x.m(y)`, or `f64::m(x, y)` when the flag is set.
    Bi(Bi, Box<Expr>, Box<Expr>, bool),
    MulAdd(Box<Expr>, Box<Expr>, Box<Expr>),
    Ml(Ml, Box<Expr>),
    /// `xs[i]` of a parameter or a local array.
    Index(String, IExpr),
    If(Box<Cond>, Box<Block>, Box<Block>),
    /// `match i { 0 => a, 1 | 2 => b, _ => c }`
    Match(IExpr, Vec<(Vec<u64>, Expr)>, Box<Expr>),
    /// A call of the helper, one argument per parameter.
    Call(String, Vec<Arg>),
    /// A call of the fallible function (feature `fallible_call`):
    /// `g0(args..).unwrap()`, `.expect("..")` or `g0(args..)?`.
    TryCall(String, Vec<Arg>, Try),
    /// `recv.name(args..)`: a `#[grad]` method of the struct, called on
    /// a struct parameter or on `self`; by its path when the flag is set,
    /// `P0::name(recv, args..)` (`P0::name(&q, ..)` of a local struct,
    /// `Self::name(self, ..)`; feature `method_path`).
    Method(String, String, Vec<Arg>, bool),
    /// `Ty::name(args..)`: a call of an associated function without a
    /// receiver, the helper written in the `impl` of `Ty` (feature
    /// `assoc_fn`).
    Assoc(String, String, Vec<Arg>),
    /// `func(args..).method()`: a method without arguments of the struct
    /// a `#[grad]` call returned (feature `made_struct`).
    ResultMethod {
        func: String,
        args: Vec<Arg>,
        method: String,
    },
    /// A call of a closure bound by `let` (`Stmt::LetClosure`).
    CallClosure(String, Box<Expr>),
    /// `p.f1`: a field of a struct parameter (or of `self`).
    Field(String, u64),
    /// `xs.iter().sum::<f64>()`
    Sum(String),
    /// `xs.iter().map(|v| body).sum::<f64>()`; `by_ref` writes `|&v|`.
    MapSum {
        arr: String,
        var: String,
        by_ref: bool,
        body: Box<Expr>,
    },
    /// `xs.iter().zip(ys.iter()).map(|(&a, &b)| body).sum::<f64>()`
    ZipSum {
        a: String,
        b: String,
        va: String,
        vb: String,
        body: Box<Expr>,
    },
    /// `xs.iter().fold(init, |acc, v| body)`
    Fold {
        arr: String,
        init: Box<Expr>,
        acc: String,
        var: String,
        by_ref: bool,
        body: Box<Expr>,
    },
    Block(Box<Block>),
    /// `(lo..hi).map(|var| body).sum::<f64>()` over a range of `usize`s,
    /// with `filter` `(m, k)` `.filter(|var| var % m == k)` before the map
    /// (feature `range_chain`); `var` is an integer the body casts.
    RangeSum {
        range: Box<Range>,
        var: String,
        filter: Option<(u64, u64)>,
        body: Box<Expr>,
    },
    /// `(lo..hi).fold(init, |acc, var| body)` over a range of `usize`s.
    RangeFold {
        range: Box<Range>,
        init: Box<Expr>,
        acc: String,
        var: String,
        body: Box<Expr>,
    },
}

/// How a call of a fallible function takes its value.
#[derive(Clone, Debug, PartialEq)]
pub enum Try {
    Unwrap,
    Expect(String),
    /// `?`, in a function that is fallible too.
    Question,
}

/// An argument of a call, as its parameter's kind asks.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A float (for a parameter left out of the callee's `wrt`, a
    /// constant of the caller's: [`is_constant`]).
    F(Expr),
    /// A `usize`.
    I(IExpr),
    /// A `bool` literal.
    B(bool),
    /// An array of the caller's, for a slice parameter.
    A(String),
    /// A local struct of the caller's by reference, `&q`, for a struct
    /// parameter (feature `struct_values`).
    S(String),
    /// An array or a `Vec` a call returned, passed on whole to an array
    /// parameter (feature `passed_whole`): by value (`d`, `tf0(d, x)`) for
    /// a `[f64; N]`, by reference (`&d`, `&vw0(&d, x)`) for a `&[f64; N]`
    /// or a `&[f64]`. (A float passed on whole is an `F` of its variable
    /// or of its call.)
    W { by_ref: bool, value: Whole },
}

/// A value passed on whole (feature `passed_whole`), never read in parts.
#[derive(Clone, Debug, PartialEq)]
pub enum Whole {
    /// A variable bound by `let d = g(..);` without a type
    /// ([`CallPat::Passed`]).
    Var(String),
    /// A call of a function returning an array or a `Vec`, its result
    /// passed on without a name: `tf0(d, x)`, `mk0(x, y)`.
    Call(String, Vec<Arg>),
}

/// A condition: comparisons of floats or of integers, a `bool` variable
/// (`!` when the flag is set), `&&`, `||`.
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    F(Cmp, Expr, Expr),
    I(Cmp, IExpr, IExpr),
    B(String, bool),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
}

/// A `usize` expression (indices, bounds, scrutinees): inactive code. A
/// variable may be a struct's integer field (`p0.n`), an array a struct's
/// `Vec` field (`data0.ys.len()`).
#[derive(Clone, Debug, PartialEq)]
pub enum IExpr {
    Lit(u64),
    Var(String),
    Len(String),
    Add(Box<IExpr>, Box<IExpr>),
    /// `a * b` (`i * p0.n`)
    Mul(Box<IExpr>, Box<IExpr>),
    /// `(a) % m`, `m > 0`
    Rem(Box<IExpr>, u64),
}

/// Statements and a tail expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub tail: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DeferredInit {
    /// `let y; y = e;`
    Direct(Expr),
    /// `let y; if c { ..; y = a; } else { ..; y = b; }`
    Branch(Box<Cond>, Box<Block>, Box<Block>),
}

/// The pattern of an arm of a [`Stmt::Match`].
#[derive(Clone, Debug, PartialEq)]
pub enum MatchPat {
    /// `0 | 2`
    Lits(Vec<u64>),
    /// `k if k > 2`: binds the scrutinee's value (an integer the arm may
    /// read) under a guard.
    Guard { bind: String, op: Cmp, k: u64 },
}

/// An arm of a tuple's branch: `let`s, then the tuple `(a, b)`.
#[derive(Clone, Debug, PartialEq)]
pub struct TupleArm {
    /// Only `Stmt::Let`s.
    pub stmts: Vec<Stmt>,
    pub items: Vec<Expr>,
}

/// The value of a [`Stmt::LetTuple`].
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)] // small trees, as `Stmt`
pub enum TupleInit {
    /// `if c { (a, b) } else { (c, d) }`
    If(Cond, TupleArm, TupleArm),
    /// `match i { 0 => (a, b), 1 | 2 => { let t = ..; (t, c) }, _ => (d, e) }`
    Match(IExpr, Vec<(Vec<u64>, TupleArm)>, TupleArm),
    /// `{ let t = ..; (t, e) }`
    Block(TupleArm),
}

impl TupleInit {
    /// The arms, in order.
    pub fn arms(&self) -> Vec<&TupleArm> {
        match self {
            TupleInit::If(_, a, b) => vec![a, b],
            TupleInit::Match(_, arms, d) => arms.iter().map(|(_, a)| a).chain([d]).collect(),
            TupleInit::Block(a) => vec![a],
        }
    }

    pub fn arms_mut(&mut self) -> Vec<&mut TupleArm> {
        match self {
            TupleInit::If(_, a, b) => vec![a, b],
            TupleInit::Match(_, arms, d) => arms
                .iter_mut()
                .map(|(_, a)| a)
                .chain(std::iter::once(d))
                .collect(),
            TupleInit::Block(a) => vec![a],
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ArrInit {
    /// `vec![0.0; n]` (`vec` set) or `[0.0; n]`
    Fill { len: u64, vec: bool },
    /// `vec![a, b]` or `[a, b]`
    List { items: Vec<Expr>, vec: bool },
}

impl ArrInit {
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> u64 {
        match self {
            ArrInit::Fill { len, .. } => *len,
            ArrInit::List { items, .. } => items.len() as u64,
        }
    }
}

/// What replaces a local array as a whole (feature `array_state`,
/// `step_call`): `dst = next;`, `std::mem::swap(&mut dst, &mut next);`,
/// `dst.copy_from_slice(&next);`, `dst.fill(v);`, `dst = [a, b];`,
/// `dst = step(&dst, k);`.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrSrc {
    /// `dst = src;`: `src` is moved (declared in the same loop body).
    Move(String),
    Swap(String),
    Copy(String),
    Fill(Expr),
    /// `dst = [a, b];` (`vec![a, b]` when `vec`), as long as `dst`.
    List {
        items: Vec<Expr>,
        vec: bool,
    },
    /// `dst = step(args..)`: a `#[grad]` function returning `Vec<f64>`.
    Call(String, Vec<Arg>),
}

/// `#[checkpoint(every = count)]` or `#[checkpoint(snapshots = count)]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ckpt {
    pub every: bool,
    pub count: IExpr,
}

/// The `w: Vec<f64>` of a struct built whole (feature `struct_values`),
/// exactly as long as the struct type's grid.
#[derive(Clone, Debug, PartialEq)]
pub enum VecInit {
    /// `xs.to_vec()` of an array parameter or a local array.
    ToVec(String),
    /// `p0.w.clone()` of another struct's `w`.
    Clone(String),
    /// `vec![a, b, ..]`
    List(Vec<Expr>),
    /// `vec![e; len]`
    Fill(Box<Expr>, u64),
    /// A local array bound before, `let w = self.w.clone();` (`st0`'s:
    /// written in the struct a method returns, `self.w.clone()` is
    /// refused, a finding: struct_values_return_vec_field_inline.rs).
    Var(String),
}

/// `P0 { f0: a, f1: b, n: i, w: v }`, a value of the struct parameter's
/// type `P0` with every field named (feature `struct_values`).
#[derive(Clone, Debug, PartialEq)]
pub struct StructLit {
    /// The float fields `f0, f1, ..`, in order.
    pub floats: Vec<Expr>,
    /// With a grid: `n` and `w`.
    pub grid: Option<(IExpr, VecInit)>,
}

/// The value of a [`Stmt::LetStruct`].
#[derive(Clone, Debug, PartialEq)]
pub enum StructInit {
    Lit(StructLit),
    /// `let r = q;`: `q` moved.
    Move(String),
    /// `let r = q.clone();`
    Clone(String),
    /// `P0 { f1: e, ..q }`: the float fields given (index, value), the
    /// others from `q` (its `w` moved out of it with a grid).
    Update(Vec<(u64, Expr)>, String),
}

/// How `let` binds what a function returning several floats gives
/// (feature `array_call`).
#[derive(Clone, Debug, PartialEq)]
pub enum CallPat {
    /// `let d = g1(..);`: the array whole, read as `d[k]`.
    Whole(String),
    /// `let [a, b] = g1(..);`
    Array(Vec<String>),
    /// `let (a, b) = g2(..);`
    Tuple(Vec<String>),
    /// `let d = g(..);` without a type, of a function of `passed_whole`
    /// (returning a float, an array or a `Vec`): `d` is only ever passed on
    /// whole to other calls, never read in parts nor computed with.
    Passed(String),
    /// `let p: P1 = make(..);` of the function returning the struct of
    /// `made_struct` ([`MADE_TY`]), the type stated: `p`'s methods are
    /// called on it (`p.energy()`).
    Made(String),
}

/// A pattern of the enum parameter's type `Mode0 { A, B, C(f64) }`
/// (feature `enum_match`).
#[derive(Clone, Debug, PartialEq)]
pub enum EnumPat {
    A,
    B,
    /// `Mode0::C(c)`, binding the payload, a constant float.
    C(String),
    /// `_`
    Wild,
}

/// An arm of a [`Stmt::EnumMatch`]: statements, then the value bound by
/// the `let` (if the match has one).
#[derive(Clone, Debug, PartialEq)]
pub struct EnumArm {
    pub pat: EnumPat,
    pub stmts: Vec<Stmt>,
    pub value: Option<Expr>,
}

/// What a `while let` takes its elements from (feature `while_let`).
#[derive(Clone, Debug, PartialEq)]
pub enum WhileSrc {
    /// `let mut stack: Vec<usize> = vec![k, ..]; while let Some(v) =
    /// stack.pop()`: `v` an integer (a stack of floats: a `#[grad]` finding,
    /// while_let_pop_float_stack.rs).
    Pop { stack: String, items: Vec<u64> },
    /// `let mut it = arr.iter(); while let Some(&v) = it.next()` of a
    /// constant array (an active one is refused, as the README says: the
    /// iterator holds active values in a type `#[grad]` does not model).
    Iter { it: String, arr: String },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    pub lo: IExpr,
    pub hi: IExpr,
    pub inclusive: bool,
    pub rev: bool,
    pub step: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)] // small trees; boxing would only add noise
pub enum Stmt {
    Let {
        name: String,
        mutable: bool,
        typed: bool,
        init: Expr,
    },
    Deferred {
        name: String,
        /// Declared `let y: f64;`.
        typed: bool,
        init: DeferredInit,
    },
    Assign {
        name: String,
        op: AOp,
        value: Expr,
    },
    LetArr {
        name: String,
        typed: bool,
        init: ArrInit,
    },
    /// `let name = |param: f64| body;`, reading only immutable variables.
    LetClosure {
        name: String,
        param: String,
        body: Expr,
    },
    Store {
        arr: String,
        idx: IExpr,
        op: AOp,
        value: Expr,
    },
    /// A local array replaced as a whole.
    ArrAssign {
        dst: String,
        src: ArrSrc,
    },
    /// `let mut name = Vec::new();` (`: Vec<f64>` when `typed`).
    LetVec {
        name: String,
        typed: bool,
    },
    /// `arr.push(value);`
    Push {
        arr: String,
        value: Expr,
    },
    If {
        cond: Cond,
        then: Vec<Stmt>,
        els: Option<Vec<Stmt>>,
    },
    Break,
    Continue,
    Return(Expr),
    /// `return;` in a writer (a guard clause `if c { return; }`).
    ReturnVoid,
    /// `return Err("..".to_string());` (`return None;` in a function
    /// returning an `Option`): the fallible function's guard clause.
    ReturnErr(String),
    /// `w0(&mut x, &mut y, args..);`: a call of the writer, lending it
    /// `let mut` floats of the caller (feature `float_writer`).
    WriterCall {
        name: String,
        lent: Vec<String>,
        args: Vec<Arg>,
    },
    /// `match scrut { pat => arm, .., _ => default }` as a statement, its
    /// arms ending with `break`, `continue` or `return e` where a branch
    /// of an `if` may (feature `jump_in_match`).
    Match {
        scrut: IExpr,
        arms: Vec<(MatchPat, Vec<Stmt>)>,
        default: Vec<Stmt>,
    },
    /// `let (a, b) = <init>;`, two new immutable floats (feature
    /// `tuple_from_branches`).
    LetTuple {
        names: Vec<String>,
        init: TupleInit,
    },
    /// `let [mut] q = <init>;`: a local struct of type `P0` (feature
    /// `struct_values`). With `held: Some(k)` (feature `struct_vec_locals`)
    /// the struct is element `k` of a `Vec` of structs, `let [mut] q =
    /// vec![P0 { .. }, .., <init>];` (the `k` elements before it constant
    /// structs), and every use of it is a use of `q[k]`: `q[k].f0`,
    /// `q[k].f1 += e;`, `q[k].m0(e)`, `hp0(&q[k], e)`, `q[k].drift0(e);`,
    /// `kick0(&mut q[k], e);`, `q[k] = q[k].st0(e);`, a copy `let r =
    /// q[k].clone();` (a move of `q` too: it is not used again).
    LetStruct {
        name: String,
        mutable: bool,
        init: StructInit,
        held: Option<u64>,
    },
    /// `q.f1 op= value;` of a `let mut` local struct.
    FieldAssign {
        name: String,
        field: u64,
        op: AOp,
        value: Expr,
    },
    /// `q = q.step(args..);`: a `let mut` local struct replaced whole by
    /// what a method of its type returning `Self` makes of it.
    StructStep {
        name: String,
        method: String,
        args: Vec<Arg>,
    },
    /// `for var in range { body }`, under `#[checkpoint(..)]` if `ckpt`.
    For {
        var: String,
        range: Range,
        body: Vec<Stmt>,
        ckpt: Option<Ckpt>,
    },
    /// `for &x in xs` or `for (i, &x) in xs.iter().enumerate()`; with a
    /// filter `for (i, x) in xs.iter().enumerate().filter(..)`, `x` a
    /// reference the body reads as `*x`. With `held: Some((how, k))`
    /// (feature `struct_vec_loops`), `arr` is a local struct held in a
    /// `Vec` of structs (`struct_vec_locals`), the loop walks that `Vec`
    /// as `how` says, and the body starts `let x = p.fk;` of its element
    /// (`w[1].fk - w[0].fk` of a window).
    ForEach {
        idx: Option<String>,
        var: String,
        arr: String,
        body: Vec<Stmt>,
        filter: Option<Filter>,
        held: Option<(Held, u64)>,
    },
    /// `let mut k: usize = 0; while k < limit && cond { k += 1; body }`
    While {
        counter: String,
        limit: u64,
        cond: Option<Cond>,
        body: Vec<Stmt>,
    },
    /// `let mut k: usize = 0; loop { k += 1; if k > limit { break; } body }`
    Loop {
        counter: String,
        limit: u64,
        body: Vec<Stmt>,
    },
    /// `let pat = g(args..);` of a function returning `[f64; N]` or
    /// `(f64, f64)` (feature `array_call`).
    LetCall {
        pat: CallPat,
        func: String,
        args: Vec<Arg>,
    },
    /// `let mut k: usize = 0; let name = loop { k += 1; body; if k > limit
    /// { break exit; } };`, `body` holding `if c { break e; }` (feature
    /// `loop_value`).
    LetLoop {
        name: String,
        typed: bool,
        counter: String,
        limit: u64,
        body: Vec<Stmt>,
        exit: Expr,
        /// `let name = 'label: loop { .. }`, broken out of with a value
        /// from a loop inside it ([`Stmt::BreakValueTo`]).
        label: Option<String>,
    },
    /// `break e;` out of a [`Stmt::LetLoop`].
    BreakValue(Expr),
    /// `break 'label e;` out of a loop inside a labelled
    /// [`Stmt::LetLoop`].
    BreakValueTo(String, Expr),
    /// `'label: <loop>` (feature `labels`).
    Labeled {
        label: String,
        body: Box<Stmt>,
    },
    /// `break 'label;`
    BreakTo(String),
    /// `continue 'label;`
    ContinueTo(String),
    /// `match scrut { Mode0::A => { .. } .. }` on the enum parameter, as a
    /// statement or, with `name`, `let name = match scrut { .. };` (its
    /// type written when `typed`) (feature `enum_match`).
    EnumMatch {
        name: Option<(String, bool)>,
        scrut: String,
        arms: Vec<EnumArm>,
    },
    /// `while let Some(var) = ..` (feature `while_let`).
    WhileLet {
        var: String,
        src: WhileSrc,
        body: Vec<Stmt>,
    },
    /// `let name = &target;`: a shared reference to an immutable float,
    /// read as the float in arithmetic and as a float method's receiver
    /// (`name * y`, `name.sin()`; feature `float_ref`).
    LetRef {
        name: String,
        target: String,
    },
    /// `let old = std::mem::replace(&mut target, src);` (`let _ = ..`
    /// without `old`) of a `let mut` float and a float variable bound just
    /// before (feature `mem_replace`).
    Replace {
        old: Option<String>,
        target: String,
        src: String,
    },
    /// A call of a struct writer (feature `struct_writer`) as a statement,
    /// changing `target`: a `let mut` local struct of `P0`, or the struct
    /// a writer changes (`self`, its `&mut P0` parameter). `q.drift0(args);`
    /// of a method (`P0::drift0(&mut q, args);` by its path), or
    /// `kick0(&mut q, args);` of a free function (`kick0(self, args)`,
    /// `kick0(sp, args)` of the struct a writer changes).
    StructWrite {
        target: String,
        writer: String,
        args: Vec<Arg>,
        /// The writer is a method (`&mut self`).
        method: bool,
        /// A method called by its path (`method_path`).
        path: bool,
    },
    /// `*self = P0 { .. };` (`*sp = ..`) of the struct a writer changes:
    /// replaced whole (feature `struct_writer`).
    StructReplace {
        target: String,
        lit: StructLit,
    },
    /// `self.w = v;` of the struct a writer changes, with a grid: its `Vec`
    /// field assigned whole from a `Vec` of the writer's body (moved).
    VecFieldAssign {
        target: String,
        src: String,
    },
}

/// How a `for` loop walks a local `Vec` of structs `q` ([`Stmt::ForEach`]
/// with `held`, feature `struct_vec_loops`).
#[derive(Clone, Debug, PartialEq)]
pub enum Held {
    /// `for p in &q[lo..]`
    From(u64),
    /// `for p in q[..hi].iter()`
    To(u64),
    /// `for (i, p) in q.iter().enumerate().skip(n)`
    EnumSkip(u64),
    /// `for (i, p) in q.iter().rev().enumerate().take(n)`
    RevEnumTake(u64),
    /// `for p in q.iter().filter(|p| p.fk op v)`
    Filter(u64, Cmp, f64),
    /// `for w in q.windows(2)`
    Windows,
}

/// The condition of a `filter` on `xs.iter().enumerate()` in a `for` loop
/// (feature `filter_names`), its closure naming its parameters as the
/// loop's pattern does: `|(i, _)| *i % 2 == 0`, or `|(i, x)| **x > 0.5 &&
/// *i != 1` (the element's test first or last).
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    /// `*i % m == k` with `m` (`*i op k` without).
    pub index: Option<(Option<u64>, Cmp, u64)>,
    /// `**x op v`: `v` a literal or a float variable that does not change
    /// in the loop.
    pub element: Option<(Cmp, Expr)>,
    /// The element's test first.
    pub element_first: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceStyle {
    /// `&[f64]`
    Slice,
    /// `[f64; N]`
    Array,
    /// `&[f64; N]`
    ArrayRef,
    /// `&Vec<f64>`
    VecRef,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PKind {
    Scalar,
    /// A float taken by `&mut` (a writer's: feature `float_writer`), read
    /// as `*a` and written as `*a = ..`.
    MutScalar,
    /// An `f64` the function leaves out of its `wrt(..)`: a constant, which
    /// its callers give constants ([`is_constant`]).
    ConstScalar,
    /// A `usize` whose test values (or arguments) are at most `max`.
    Int {
        max: u64,
    },
    /// A `bool`.
    Bool,
    Slice {
        len: u64,
        style: SliceStyle,
    },
    /// `p: &P` of a struct `P { f0: f64, f1: f64, .., n: usize, w: Vec<f64> }`
    /// deriving `Differentiable`, with `fields` float fields and, with a
    /// grid, `n` and `w`; named in `wrt` (its floats are inputs) unless
    /// `fixed`, a constant struct of these values (the fields, then `w`).
    Struct {
        fields: u64,
        grid: Option<Grid>,
        fixed: Option<Vec<f64>>,
    },
    /// `data: &Data { ys: Vec<f64> }`, a constant struct (no derive) of
    /// these values.
    Data {
        ys: Vec<f64>,
    },
    /// `&self` of a method of the struct parameter's type, in `wrt(self)`.
    Receiver,
    /// `&mut self` of a struct writer method of `P0` (feature
    /// `struct_writer`), differentiated (a bare `#[grad]`).
    MutReceiver,
    /// `sp: &mut P0` of a free struct writer (feature `struct_writer`),
    /// differentiated (a bare `#[grad]`).
    MutStruct,
    /// `mode0: Mode0` of `enum Mode0 { A, B, C(f64) }` (feature
    /// `enum_match`), a constant: each test point picks the variant by an
    /// integer (0 `A`, 1 `B`, 2 `C(payload)`).
    Enum {
        payload: f64,
    },
}

/// A struct's integer field `n: usize` and its `w: Vec<f64>` of `rows * n`
/// elements, read as `p.w[i * p.n + j]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub rows: u64,
    pub n: u64,
}

impl Grid {
    pub fn len(&self) -> u64 {
        self.rows * self.n
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl PKind {
    /// Number of float inputs of a parameter of this kind.
    pub fn width(&self) -> usize {
        match self {
            PKind::Scalar | PKind::MutScalar => 1,
            PKind::Slice { len, .. } => *len as usize,
            PKind::Struct {
                fields,
                grid,
                fixed: None,
            } => (*fields + grid.map_or(0, |g| g.len())) as usize,
            PKind::ConstScalar
            | PKind::Int { .. }
            | PKind::Bool
            | PKind::Struct { .. }
            | PKind::Data { .. }
            | PKind::Enum { .. }
            | PKind::Receiver
            | PKind::MutReceiver
            | PKind::MutStruct => 0,
        }
    }

    /// Whether the function differentiates the parameter (names it in
    /// `wrt(..)`, or would by default).
    pub fn active(&self) -> bool {
        match self {
            PKind::Scalar
            | PKind::MutScalar
            | PKind::Slice { .. }
            | PKind::Receiver
            | PKind::MutReceiver
            | PKind::MutStruct => true,
            PKind::Struct { fixed, .. } => fixed.is_none(),
            PKind::ConstScalar
            | PKind::Int { .. }
            | PKind::Bool
            | PKind::Data { .. }
            | PKind::Enum { .. } => false,
        }
    }
}

/// The parameter of the function taking a `P0` by reference (feature
/// `struct_values`): `hp0(hp: &P0, ..)`.
pub const STRUCT_FN_PARAM: &str = "hp";

/// The struct type of a struct parameter: `p0` is a `P0` (its twin a `P0D`),
/// `data0` a `Data0`; [`STRUCT_FN_PARAM`] a `P0` too.
pub fn struct_ty(param: &str) -> String {
    if param == STRUCT_FN_PARAM {
        return struct_ty("p0");
    }
    let mut c = param.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub kind: PKind,
}

/// What a function returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ret {
    /// `f64`
    #[default]
    Float,
    /// `Result<f64, String>`: its tail `Ok(e)`, its returns `return Ok(e);`.
    Result,
    /// `Option<f64>`: `Some(e)`.
    Option,
    /// Nothing: a writer, whose floats change through `&mut`.
    Unit,
    /// `Self`: a method of the struct type making a new one
    /// ([`Func::ret_struct`], feature `struct_values`).
    Struct,
    /// `[f64; N]` of [`Func::ret_items`] (feature `array_call`).
    Array(u64),
    /// `(f64, f64)` of [`Func::ret_items`] (feature `array_call`).
    Tuple(u64),
    /// [`MADE_TY`], built whole from [`Func::ret_struct`] (`make(..) ->
    /// P1`, feature `made_struct`).
    Made,
}

/// The struct type of `made_struct`: floats only, deriving
/// `Differentiable` (its twin `P1D`).
pub const MADE_TY: &str = "P1";

/// The unit struct whose `impl` holds the helper where the program has no
/// struct type of its own (`assoc_fn`, [`Program::helper_owner`]).
pub const UNIT_TY: &str = "K0";

/// The `#[grad]` function returning a [`MADE_TY`].
pub const MADE_FN: &str = "make";

/// The struct of `made_struct`: `P1 { f0: f64, .. }`, the function
/// `make(..) -> P1` building it and its methods without arguments (named
/// like no float's or `std`'s method: `energy`, `norm2`), which `f` calls
/// on what `make` returned (`let p: P1 = make(a, b); p.energy()`,
/// `make(a, b).norm2()`).
#[derive(Clone, Debug, PartialEq)]
pub struct Made {
    /// The float fields `f0, f1, ..`.
    pub fields: u64,
    /// `make(..) -> P1` under `#[grad]`.
    pub make: Func,
    /// `energy(&self) -> f64` .. under `#[grad(wrt(self))]`.
    pub methods: Vec<Func>,
}

impl Ret {
    pub fn fallible(self) -> bool {
        matches!(self, Ret::Result | Ret::Option)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    pub name: String,
    pub params: Vec<Param>,
    pub body: Block,
    /// The tail written `return e;`.
    pub explicit_return: bool,
    /// Returns this local array, a `Vec<f64>`, rather than the tail (the
    /// step function of `step_call`; its `body.tail` is unused).
    pub ret_arr: Option<String>,
    /// Returns this struct built whole rather than the tail (a method
    /// returning `Self`, `ret` [`Ret::Struct`]; its `body.tail` is unused).
    pub ret_struct: Option<StructLit>,
    /// Returns these floats as an array or a tuple (`ret` [`Ret::Array`],
    /// [`Ret::Tuple`]; its `body.tail` is unused).
    pub ret_items: Vec<Expr>,
    /// What it returns (a writer's `body.tail` is unused).
    pub ret: Ret,
}

impl Func {
    /// Number of float inputs once array parameters are flattened.
    pub fn n_inputs(&self) -> usize {
        self.params.iter().map(|p| p.kind.width()).sum()
    }

    /// Whether the function is a method (its first parameter `&self`, or
    /// `&mut self` of a struct writer).
    pub fn is_method(&self) -> bool {
        self.params
            .first()
            .is_some_and(|p| matches!(p.kind, PKind::Receiver | PKind::MutReceiver))
    }

    /// Whether the function is a struct writer (feature `struct_writer`):
    /// its first parameter `&mut self` or `sp: &mut P0`.
    pub fn is_struct_writer(&self) -> bool {
        self.params
            .first()
            .is_some_and(|p| matches!(p.kind, PKind::MutReceiver | PKind::MutStruct))
    }

    pub fn n_ints(&self) -> usize {
        self.params
            .iter()
            .filter(|p| matches!(p.kind, PKind::Int { .. } | PKind::Enum { .. }))
            .count()
    }

    /// Names of the flattened float inputs: `x0`, `xs1[2]`, `p0.f1`,
    /// `p0.w[3]`.
    pub fn input_labels(&self) -> Vec<String> {
        let mut out = Vec::new();
        for p in &self.params {
            match &p.kind {
                PKind::Scalar => out.push(p.name.clone()),
                PKind::Slice { len, .. } => {
                    for k in 0..*len {
                        out.push(format!("{}[{k}]", p.name));
                    }
                }
                PKind::Struct {
                    fields,
                    grid,
                    fixed: None,
                } => {
                    for k in 0..*fields {
                        out.push(format!("{}.f{k}", p.name));
                    }
                    for k in 0..grid.map_or(0, |g| g.len()) {
                        out.push(format!("{}.w[{k}]", p.name));
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The struct parameter of a function (the type of the methods'
    /// `self`).
    pub fn struct_param(&self) -> Option<&Param> {
        self.params
            .iter()
            .find(|p| matches!(p.kind, PKind::Struct { .. }))
    }
}

/// A test point: the flattened float inputs and the integer arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub floats: Vec<f64>,
    pub ints: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The seed the program was generated from.
    pub seed: u64,
    pub consts: Vec<(String, f64)>,
    pub helper: Option<Func>,
    /// `#[grad]` methods of the main function's struct parameter's type,
    /// in order: a method calls only those before it.
    pub methods: Vec<Func>,
    pub main: Func,
    /// `step(s: &[f64], k..: f64) -> Vec<f64>` under `#[grad]`, called as
    /// `u = step(&u, ..)` (`step_call`).
    pub step: Option<Func>,
    /// `w0(a: &mut f64, b: &mut f64, k: f64)` under `#[grad]`, called as
    /// `w0(&mut x, &mut y, e);` (`float_writer`).
    pub writer: Option<Func>,
    /// `g0(x: f64, ..) -> Result<f64, String>` (or `Option<f64>`) under
    /// `#[grad]`, called as `g0(..).unwrap()`, `.expect(..)` or `g0(..)?`
    /// (`fallible_call`).
    pub fallible: Option<Func>,
    /// `hp0(hp: &P0, h0: f64, ..)` under `#[grad(wrt(hp, h0, ..))]`,
    /// given local structs of `f`, `hp0(&q, ..)` (`struct_values`).
    pub struct_fn: Option<Func>,
    /// `g1(..) -> [f64; N]` and `g2(..) -> (f64, f64)` under `#[grad]`,
    /// called as `let d = g1(..);`, `let [a, b] = g1(..);`, `let (a, b) =
    /// g2(..);` (`array_call`).
    pub multis: Vec<Func>,
    /// The functions of `passed_whole` under `#[grad]`, whose results `f`
    /// passes on whole to other calls (src/gen/passed.rs): `mk0(..) ->
    /// [f64; N]`, `tf0(ta0: [f64; N], ..) -> [f64; N]`, `rd0(ra0: [f64; N]
    /// (or &[f64; N]), ..) -> f64`, `vw0(ws0: &[f64], ..) -> Vec<f64>`,
    /// `rv0(rs0: &[f64], ..) -> f64`, `hf0(..) -> f64`, those `f` calls.
    pub wholes: Vec<Func>,
    /// The struct of `made_struct`, its `make` and its methods.
    pub made: Option<Made>,
    /// The struct writers of `P0` under `#[grad]` (feature
    /// `struct_writer`): methods `drift0(&mut self, dk0: f64, ..)` and free
    /// functions `kick0(sp: &mut P0, kk0: f64, ..)`, in order (a writer
    /// calls only those before it), called as statements, `q.drift0(e);`,
    /// `kick0(&mut q, e);`.
    pub struct_writers: Vec<Func>,
    /// The type whose `impl` holds the helper, an associated function
    /// called by its path (`P0::helper(..)`, or `K0::helper(..)` of a unit
    /// struct `K0`; feature `assoc_fn`).
    pub helper_owner: Option<String>,
    pub points: Vec<Point>,
    /// The direction of the Taylor check, one entry per float input.
    pub dir: Vec<f64>,
    /// The main function is under `#[grad(trace)]` ([`crate::trace`]).
    pub trace: bool,
    /// The main function is under `#[grad(jvp)]` ([`crate::jvp`]).
    pub jvp: bool,
    /// A checkpointed `f_grad` must equal `f_nockpt_grad` in the sign of
    /// a zero too (feature `checkpoint_zero_sign`); otherwise 0.0 and -0.0
    /// compare equal there, every other entry bit for bit.
    pub ckpt_zero_sign: bool,
    /// The program has a generic twin `f_gen` under `#[grad(hessian)]`
    /// ([`crate::hessian`]).
    pub hessian: bool,
    /// How that twin is written.
    pub gen_style: GenStyle,
}

/// How the generic twin of a program under `#[grad(hessian)]` writes the
/// constructs that `#[grad]` does not take in generic code yet (findings:
/// [`crate::KNOWN_FAILING`]); each as a user would, with its feature, or
/// in the form that works without it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct GenStyle {
    /// Float literals inside `vec![..]` as written, `vec![0.0; n]`,
    /// `vec![x, 2.0]` (feature `hessian_vec_literal`); otherwise
    /// `vec![T::zero(); n]` and `T::from_f64(2.0)` there.
    pub vec_literals: bool,
    /// Float methods in path form as `T::sin(x)` (feature
    /// `hessian_path_form`); otherwise as methods, `x.sin()`.
    pub path_form: bool,
    /// `f_gen` takes a `&Vec<f64>` parameter as `&Vec<T>` (feature
    /// `hessian_vec_param`); otherwise as `&[T]`.
    pub vec_param: bool,
    /// A call whose floats are all literals and whose other arguments
    /// (integers, `bool`s) carry no `T` (`h(0.5, 1)`) gets its literals as
    /// written (feature `hessian_literal_args`); otherwise
    /// `T::from_f64(0.5)`.
    pub literal_args: bool,
}

// ---------------------------------------------------------------- size

impl Made {
    /// `make`, then the methods.
    pub fn functions(&self) -> impl Iterator<Item = &Func> {
        std::iter::once(&self.make).chain(self.methods.iter())
    }

    /// [`Made::functions`], mutably.
    pub fn functions_mut(&mut self) -> impl Iterator<Item = &mut Func> {
        std::iter::once(&mut self.make).chain(self.methods.iter_mut())
    }
}

impl Program {
    /// The callees (helper, methods, step function, writer, fallible
    /// function, struct function, the functions of `array_call`,
    /// `passed_whole` and `made_struct`) and the main function, last.
    pub fn functions(&self) -> impl Iterator<Item = &Func> {
        self.helper
            .iter()
            .chain(self.methods.iter())
            .chain(self.step.iter())
            .chain(self.writer.iter())
            .chain(self.fallible.iter())
            .chain(self.struct_fn.iter())
            .chain(self.multis.iter())
            .chain(self.wholes.iter())
            .chain(self.made.iter().flat_map(|m| m.functions()))
            .chain(self.struct_writers.iter())
            .chain(std::iter::once(&self.main))
    }

    /// The callees written as free functions (not methods), in the order
    /// the programs' crates write them (the helper in an `impl` instead
    /// where [`Program::helper_owner`] says so); the main function is not
    /// one.
    pub fn free_callees(&self) -> impl Iterator<Item = &Func> {
        self.helper
            .iter()
            .chain(self.step.iter())
            .chain(self.writer.iter())
            .chain(self.fallible.iter())
            .chain(self.struct_fn.iter())
            .chain(self.multis.iter())
            .chain(self.wholes.iter())
            .chain(self.made.iter().map(|m| &m.make))
            .chain(self.struct_writers.iter().filter(|w| !w.is_method()))
    }

    /// [`Program::functions`], mutably.
    pub fn functions_mut(&mut self) -> impl Iterator<Item = &mut Func> {
        self.helper
            .iter_mut()
            .chain(self.methods.iter_mut())
            .chain(self.step.iter_mut())
            .chain(self.writer.iter_mut())
            .chain(self.fallible.iter_mut())
            .chain(self.struct_fn.iter_mut())
            .chain(self.multis.iter_mut())
            .chain(self.wholes.iter_mut())
            .chain(self.made.iter_mut().flat_map(|m| m.functions_mut()))
            .chain(self.struct_writers.iter_mut())
            .chain(std::iter::once(&mut self.main))
    }

    /// Number of AST nodes: what the shrinker minimises.
    pub fn size(&self) -> usize {
        let f = |f: &Func| {
            f.params.len()
                + usize::from(f.ret.fallible())
                + block_size(&f.body)
                + f.ret_struct.as_ref().map_or(0, struct_lit_size)
                + f.ret_items.iter().map(expr_size).sum::<usize>()
        };
        self.consts.len()
            + self.helper.as_ref().map_or(0, f)
            + self.methods.iter().map(f).sum::<usize>()
            + self.step.as_ref().map_or(0, f)
            + self.writer.as_ref().map_or(0, f)
            + self.fallible.as_ref().map_or(0, f)
            + self.struct_fn.as_ref().map_or(0, f)
            + self.multis.iter().map(f).sum::<usize>()
            + self.wholes.iter().map(f).sum::<usize>()
            + self
                .made
                .iter()
                .flat_map(|m| m.functions())
                .map(f)
                .sum::<usize>()
            + self.struct_writers.iter().map(f).sum::<usize>()
            + f(&self.main)
            + self.points.len()
    }
}

pub fn block_size(b: &Block) -> usize {
    stmts_size(&b.stmts) + expr_size(&b.tail)
}

pub fn stmts_size(s: &[Stmt]) -> usize {
    s.iter().map(stmt_size).sum()
}

pub fn stmt_size(s: &Stmt) -> usize {
    1 + match s {
        Stmt::Let { init, .. } => expr_size(init),
        Stmt::LetClosure { body, .. } => 1 + expr_size(body),
        Stmt::Deferred { init, .. } => match init {
            DeferredInit::Direct(e) => expr_size(e),
            DeferredInit::Branch(c, a, b) => 1 + cond_size(c) + block_size(a) + block_size(b),
        },
        Stmt::Assign { value, .. } => expr_size(value),
        Stmt::LetArr { init, .. } => match init {
            ArrInit::Fill { .. } => 1,
            ArrInit::List { items, .. } => items.iter().map(expr_size).sum(),
        },
        Stmt::Store { idx, value, .. } => iexpr_size(idx) + expr_size(value),
        Stmt::ArrAssign { src, .. } => match src {
            ArrSrc::Move(_) | ArrSrc::Swap(_) | ArrSrc::Copy(_) => 1,
            ArrSrc::Fill(e) => expr_size(e),
            ArrSrc::List { items, .. } => items.iter().map(expr_size).sum(),
            ArrSrc::Call(_, args) => args.iter().map(arg_size).sum(),
        },
        Stmt::LetVec { .. } => 0,
        Stmt::Push { value, .. } => expr_size(value),
        Stmt::If { cond, then, els } => {
            cond_size(cond) + stmts_size(then) + els.as_ref().map_or(0, |e| 1 + stmts_size(e))
        }
        Stmt::Break | Stmt::Continue | Stmt::ReturnVoid | Stmt::ReturnErr(_) => 0,
        Stmt::Return(e) => expr_size(e),
        Stmt::WriterCall { lent, args, .. } => {
            lent.len() + args.iter().map(arg_size).sum::<usize>()
        }
        Stmt::Match {
            scrut,
            arms,
            default,
        } => {
            iexpr_size(scrut)
                + arms
                    .iter()
                    .map(|(p, b)| {
                        1 + stmts_size(b)
                            + match p {
                                MatchPat::Lits(l) => l.len(),
                                MatchPat::Guard { .. } => 2,
                            }
                    })
                    .sum::<usize>()
                + stmts_size(default)
        }
        Stmt::LetTuple { names, init } => {
            let arms: usize = init
                .arms()
                .iter()
                .map(|a| 1 + stmts_size(&a.stmts) + a.items.iter().map(expr_size).sum::<usize>())
                .sum();
            names.len()
                + arms
                + match init {
                    TupleInit::If(c, ..) => cond_size(c),
                    TupleInit::Match(i, arms, _) => {
                        iexpr_size(i) + arms.iter().map(|(p, _)| p.len()).sum::<usize>()
                    }
                    TupleInit::Block(_) => 0,
                }
        }
        Stmt::LetStruct { init, .. } => match init {
            StructInit::Lit(l) => struct_lit_size(l),
            StructInit::Move(_) | StructInit::Clone(_) => 1,
            StructInit::Update(given, _) => {
                1 + given.iter().map(|(_, e)| 1 + expr_size(e)).sum::<usize>()
            }
        },
        Stmt::FieldAssign { value, .. } => 1 + expr_size(value),
        Stmt::StructStep { args, .. } => 1 + args.iter().map(arg_size).sum::<usize>(),
        Stmt::For {
            range, body, ckpt, ..
        } => {
            usize::from(ckpt.is_some())
                + iexpr_size(&range.lo)
                + iexpr_size(&range.hi)
                + usize::from(range.inclusive)
                + usize::from(range.rev)
                + usize::from(range.step.is_some())
                + stmts_size(body)
        }
        Stmt::ForEach {
            idx,
            body,
            filter,
            held,
            ..
        } => {
            1 + usize::from(idx.is_some())
                + usize::from(held.is_some())
                + filter.as_ref().map_or(0, filter_size)
                + stmts_size(body)
        }
        Stmt::While { cond, body, .. } => 2 + cond.as_ref().map_or(0, cond_size) + stmts_size(body),
        Stmt::Loop { body, .. } => 2 + stmts_size(body),
        Stmt::LetCall { pat, args, .. } => {
            1 + args.iter().map(arg_size).sum::<usize>()
                + match pat {
                    CallPat::Whole(_) | CallPat::Passed(_) | CallPat::Made(_) => 0,
                    CallPat::Array(n) | CallPat::Tuple(n) => n.len(),
                }
        }
        Stmt::LetLoop { body, exit, .. } => 2 + stmts_size(body) + expr_size(exit),
        Stmt::BreakValue(e) | Stmt::BreakValueTo(_, e) => expr_size(e),
        Stmt::Labeled { body, .. } => stmt_size(body),
        Stmt::BreakTo(_) | Stmt::ContinueTo(_) => 0,
        Stmt::EnumMatch { name, arms, .. } => {
            usize::from(name.is_some())
                + arms
                    .iter()
                    .map(|a| 1 + stmts_size(&a.stmts) + a.value.as_ref().map_or(0, expr_size))
                    .sum::<usize>()
        }
        Stmt::WhileLet { src, body, .. } => {
            2 + stmts_size(body)
                + match src {
                    WhileSrc::Pop { items, .. } => items.len(),
                    WhileSrc::Iter { .. } => 1,
                }
        }
        Stmt::LetRef { .. } => 1,
        Stmt::Replace { old, .. } => 2 + usize::from(old.is_some()),
        Stmt::StructWrite { args, .. } => 1 + args.iter().map(arg_size).sum::<usize>(),
        Stmt::StructReplace { lit, .. } => 1 + struct_lit_size(lit),
        Stmt::VecFieldAssign { .. } => 1,
    }
}

/// A filter's size: its tests.
pub fn filter_size(f: &Filter) -> usize {
    f.index
        .as_ref()
        .map_or(0, |(m, ..)| 2 + usize::from(m.is_some()))
        + f.element.as_ref().map_or(0, |(_, e)| 1 + expr_size(e))
}

/// A range's size: its bounds and its forms.
pub fn range_size(r: &Range) -> usize {
    iexpr_size(&r.lo)
        + iexpr_size(&r.hi)
        + usize::from(r.inclusive)
        + usize::from(r.rev)
        + usize::from(r.step.is_some())
}

/// A struct literal's size: its fields' values.
pub fn struct_lit_size(l: &StructLit) -> usize {
    l.floats.iter().map(expr_size).sum::<usize>()
        + l.grid.as_ref().map_or(0, |(n, w)| {
            iexpr_size(n)
                + match w {
                    VecInit::ToVec(_) | VecInit::Clone(_) | VecInit::Var(_) => 1,
                    VecInit::List(items) => items.iter().map(expr_size).sum(),
                    VecInit::Fill(e, _) => 1 + expr_size(e),
                }
        })
}

pub fn cond_size(c: &Cond) -> usize {
    1 + match c {
        Cond::F(_, a, b) => expr_size(a) + expr_size(b),
        Cond::I(_, a, b) => iexpr_size(a) + iexpr_size(b),
        Cond::B(_, not) => usize::from(*not),
        Cond::And(a, b) | Cond::Or(a, b) => cond_size(a) + cond_size(b),
    }
}

pub fn iexpr_size(e: &IExpr) -> usize {
    1 + match e {
        IExpr::Lit(_) | IExpr::Var(_) | IExpr::Len(_) => 0,
        IExpr::Add(a, b) | IExpr::Mul(a, b) => iexpr_size(a) + iexpr_size(b),
        IExpr::Rem(a, _) => iexpr_size(a) + 1,
    }
}

pub fn arg_size(a: &Arg) -> usize {
    match a {
        Arg::F(e) => expr_size(e),
        Arg::I(i) => iexpr_size(i),
        Arg::B(_) | Arg::A(_) | Arg::S(_) => 1,
        Arg::W { value, .. } => whole_size(value),
    }
}

/// A value passed on whole: 1, and a nested call's arguments.
pub fn whole_size(w: &Whole) -> usize {
    match w {
        Whole::Var(_) => 1,
        Whole::Call(_, args) => 1 + args.iter().map(arg_size).sum::<usize>(),
    }
}

pub fn expr_size(e: &Expr) -> usize {
    1 + match e {
        Expr::Lit(..) | Expr::Var(_) | Expr::Const(_) | Expr::Sum(_) | Expr::Field(..) => 0,
        Expr::IntCast(i) => iexpr_size(i),
        Expr::Neg(a) | Expr::Un(_, a, _) | Expr::Ml(_, a) => expr_size(a),
        Expr::Bin(_, a, b) | Expr::Bi(_, a, b, _) => expr_size(a) + expr_size(b),
        Expr::MulAdd(a, b, c) => expr_size(a) + expr_size(b) + expr_size(c),
        Expr::Index(_, i) => iexpr_size(i),
        Expr::If(c, a, b) => cond_size(c) + block_size(a) + block_size(b),
        Expr::Match(i, arms, d) => {
            iexpr_size(i)
                + arms
                    .iter()
                    .map(|(p, e)| p.len() + expr_size(e))
                    .sum::<usize>()
                + expr_size(d)
        }
        Expr::Call(_, args) | Expr::Method(_, _, args, _) => args.iter().map(arg_size).sum(),
        Expr::Assoc(_, _, args) | Expr::ResultMethod { args, .. } => {
            1 + args.iter().map(arg_size).sum::<usize>()
        }
        Expr::TryCall(_, args, _) => 1 + args.iter().map(arg_size).sum::<usize>(),
        Expr::CallClosure(_, a) => 1 + expr_size(a),
        Expr::MapSum { body, .. } => 1 + expr_size(body),
        Expr::ZipSum { body, .. } => 2 + expr_size(body),
        Expr::Fold { init, body, .. } => 2 + expr_size(init) + expr_size(body),
        Expr::Block(b) => block_size(b),
        Expr::RangeSum {
            range,
            filter,
            body,
            ..
        } => 2 + range_size(range) + usize::from(filter.is_some()) + expr_size(body),
        Expr::RangeFold {
            range, init, body, ..
        } => 2 + range_size(range) + expr_size(init) + expr_size(body),
    }
}

// ---------------------------------------------------------------- queries

/// Whether the expression has a type of its own (f64) without context:
/// it contains a variable, a call, ... A literal-only expression is
/// `{float}` to rustc, and a method call on it is ambiguous.
pub fn is_typed(e: &Expr) -> bool {
    match e {
        Expr::Lit(..) => false,
        Expr::Field(..)
        | Expr::Var(_)
        | Expr::Const(_)
        | Expr::IntCast(_)
        | Expr::Index(..)
        | Expr::Call(..)
        | Expr::TryCall(..)
        | Expr::Method(..)
        | Expr::Assoc(..)
        | Expr::ResultMethod { .. }
        | Expr::CallClosure(..)
        | Expr::Sum(_)
        | Expr::MapSum { .. }
        | Expr::ZipSum { .. }
        | Expr::RangeSum { .. }
        | Expr::Ml(..) => true,
        Expr::Neg(a) => is_typed(a),
        Expr::Un(_, a, path) => *path || is_typed(a),
        Expr::Bi(_, a, b, path) => *path || is_typed(a) || is_typed(b),
        Expr::MulAdd(a, _, _) => is_typed(a),
        Expr::Bin(_, a, b) => is_typed(a) || is_typed(b),
        Expr::If(_, a, b) => is_typed(&a.tail) || is_typed(&b.tail),
        Expr::Match(_, arms, d) => is_typed(d) || arms.iter().any(|(_, e)| is_typed(e)),
        Expr::Fold { init, body, .. } | Expr::RangeFold { init, body, .. } => {
            is_typed(init) || is_typed(body)
        }
        Expr::Block(b) => is_typed(&b.tail),
    }
}

/// Whether `e` is a constant of its function: literals, user `const`s,
/// integer casts and reads of the constant structs that `constant` names
/// (`p0.f1`, `data0.ys[k]`), combined by arithmetic. An argument for a
/// parameter that the callee leaves out of its `wrt` must be one: one that
/// depends on a differentiated input is a compile error, by design.
pub fn is_constant(e: &Expr, constant: &impl Fn(&str) -> bool) -> bool {
    match e {
        Expr::Lit(..) | Expr::Const(_) | Expr::IntCast(_) => true,
        Expr::Field(p, _) => constant(p),
        Expr::Index(a, _) => a.split_once('.').is_some_and(|(p, _)| constant(p)),
        Expr::Neg(a) => is_constant(a, constant),
        Expr::Bin(_, a, b) => is_constant(a, constant) && is_constant(b, constant),
        _ => false,
    }
}

/// Whether a statement of a function of `p`, at any depth, is one `f`
/// says yes to.
pub fn any_stmt(p: &Program, f: &dyn Fn(&Stmt) -> bool) -> bool {
    fn any(ss: &[Stmt], f: &dyn Fn(&Stmt) -> bool) -> bool {
        ss.iter().any(|s| {
            f(s) || match s {
                Stmt::For { body, .. }
                | Stmt::ForEach { body, .. }
                | Stmt::While { body, .. }
                | Stmt::WhileLet { body, .. }
                | Stmt::LetLoop { body, .. }
                | Stmt::Loop { body, .. } => any(body, f),
                Stmt::Labeled { body, .. } => any(std::slice::from_ref(&**body), f),
                Stmt::If { .. } | Stmt::Match { .. } | Stmt::EnumMatch { .. } => {
                    branches(s).into_iter().any(|b| any(b, f))
                }
                _ => false,
            }
        })
    }
    p.functions().any(|g| any(&g.body.stmts, f))
}

/// Whether a function of `p` has a `for` loop over
/// `xs.iter().enumerate().filter(..)` (`filter_names`): such programs go
/// under `jvp` and `trace` with `jvp_filter` and `trace_filter` on.
pub fn filters_loops(p: &Program) -> bool {
    any_stmt(p, &|s| {
        matches!(
            s,
            Stmt::ForEach {
                filter: Some(_),
                ..
            }
        )
    })
}

/// The statement lists of the branches of a statement that are not a
/// loop's body: an `if`'s branches, a `match`'s arms.
pub fn branches(s: &Stmt) -> Vec<&Vec<Stmt>> {
    match s {
        Stmt::If { then, els, .. } => std::iter::once(then).chain(els.iter()).collect(),
        Stmt::Match { arms, default, .. } => arms
            .iter()
            .map(|(_, b)| b)
            .chain(std::iter::once(default))
            .collect(),
        Stmt::EnumMatch { arms, .. } => arms.iter().map(|a| &a.stmts).collect(),
        _ => Vec::new(),
    }
}

/// Whether the statements contain a `break` or `continue` that belongs to
/// the loop around them (not to a loop inside them).
pub fn has_own_jump(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Break
        | Stmt::Continue
        | Stmt::BreakValue(_)
        | Stmt::BreakValueTo(..)
        | Stmt::BreakTo(_)
        | Stmt::ContinueTo(_) => true,
        Stmt::If { .. } | Stmt::Match { .. } | Stmt::EnumMatch { .. } => {
            branches(s).into_iter().any(|b| has_own_jump(b))
        }
        _ => false,
    })
}

/// Whether the statements contain a `return` anywhere.
pub fn has_return(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Return(_) | Stmt::ReturnVoid | Stmt::ReturnErr(_) => true,
        Stmt::If { .. } | Stmt::Match { .. } | Stmt::EnumMatch { .. } => {
            branches(s).into_iter().any(|b| has_return(b))
        }
        Stmt::For { body, .. }
        | Stmt::ForEach { body, .. }
        | Stmt::While { body, .. }
        | Stmt::WhileLet { body, .. }
        | Stmt::LetLoop { body, .. }
        | Stmt::Loop { body, .. } => has_return(body),
        Stmt::Labeled { body, .. } => has_return(std::slice::from_ref(&**body)),
        _ => false,
    })
}

// ---------------------------------------------------------------- rewriting

/// Applies `fe` to every expression and `fi` to every integer expression
/// of a statement, innermost first.
pub fn map_stmt(s: &mut Stmt, fe: &mut impl FnMut(&mut Expr), fi: &mut impl FnMut(&mut IExpr)) {
    match s {
        Stmt::Let { init, .. } => map_expr(init, fe, fi),
        Stmt::LetClosure { body, .. } => map_expr(body, fe, fi),
        Stmt::Deferred { init, .. } => match init {
            DeferredInit::Direct(e) => map_expr(e, fe, fi),
            DeferredInit::Branch(c, a, b) => {
                map_cond(c, fe, fi);
                map_block(a, fe, fi);
                map_block(b, fe, fi);
            }
        },
        Stmt::Assign { value, .. } => map_expr(value, fe, fi),
        Stmt::LetArr { init, .. } => {
            if let ArrInit::List { items, .. } = init {
                for e in items {
                    map_expr(e, fe, fi);
                }
            }
        }
        Stmt::Store { idx, value, .. } => {
            fi(idx);
            map_expr(value, fe, fi);
        }
        Stmt::ArrAssign { src, .. } => match src {
            ArrSrc::Move(_) | ArrSrc::Swap(_) | ArrSrc::Copy(_) => {}
            ArrSrc::Fill(e) => map_expr(e, fe, fi),
            ArrSrc::List { items, .. } => {
                for e in items {
                    map_expr(e, fe, fi);
                }
            }
            ArrSrc::Call(_, args) => map_args(args, fe, fi),
        },
        Stmt::LetVec { .. } => {}
        Stmt::Push { value, .. } => map_expr(value, fe, fi),
        Stmt::If { cond, then, els } => {
            map_cond(cond, fe, fi);
            for s in then {
                map_stmt(s, fe, fi);
            }
            for s in els.iter_mut().flatten() {
                map_stmt(s, fe, fi);
            }
        }
        Stmt::Break | Stmt::Continue | Stmt::ReturnVoid | Stmt::ReturnErr(_) => {}
        Stmt::Return(e) => map_expr(e, fe, fi),
        Stmt::WriterCall { args, .. } => map_args(args, fe, fi),
        Stmt::Match {
            scrut,
            arms,
            default,
        } => {
            fi(scrut);
            for s in arms.iter_mut().flat_map(|(_, b)| b.iter_mut()) {
                map_stmt(s, fe, fi);
            }
            for s in default {
                map_stmt(s, fe, fi);
            }
        }
        Stmt::LetTuple { init, .. } => {
            match init {
                TupleInit::If(c, ..) => map_cond(c, fe, fi),
                TupleInit::Match(i, ..) => fi(i),
                TupleInit::Block(_) => {}
            }
            for a in init.arms_mut() {
                for s in &mut a.stmts {
                    map_stmt(s, fe, fi);
                }
                for e in &mut a.items {
                    map_expr(e, fe, fi);
                }
            }
        }
        Stmt::LetStruct { init, .. } => match init {
            StructInit::Lit(l) => map_struct_lit(l, fe, fi),
            StructInit::Move(_) | StructInit::Clone(_) => {}
            StructInit::Update(given, _) => {
                for (_, e) in given {
                    map_expr(e, fe, fi);
                }
            }
        },
        Stmt::FieldAssign { value, .. } => map_expr(value, fe, fi),
        Stmt::StructStep { args, .. } => map_args(args, fe, fi),
        Stmt::For {
            range, body, ckpt, ..
        } => {
            if let Some(c) = ckpt {
                fi(&mut c.count);
            }
            fi(&mut range.lo);
            fi(&mut range.hi);
            for s in body {
                map_stmt(s, fe, fi);
            }
        }
        Stmt::ForEach { body, .. } | Stmt::Loop { body, .. } => {
            for s in body {
                map_stmt(s, fe, fi);
            }
        }
        Stmt::While { cond, body, .. } => {
            if let Some(c) = cond {
                map_cond(c, fe, fi);
            }
            for s in body {
                map_stmt(s, fe, fi);
            }
        }
        Stmt::LetCall { args, .. } => map_args(args, fe, fi),
        Stmt::LetLoop { body, exit, .. } => {
            for s in body {
                map_stmt(s, fe, fi);
            }
            map_expr(exit, fe, fi);
        }
        Stmt::BreakValue(e) | Stmt::BreakValueTo(_, e) => map_expr(e, fe, fi),
        Stmt::Labeled { body, .. } => map_stmt(body, fe, fi),
        Stmt::BreakTo(_) | Stmt::ContinueTo(_) => {}
        Stmt::EnumMatch { arms, .. } => {
            for a in arms {
                for s in &mut a.stmts {
                    map_stmt(s, fe, fi);
                }
                if let Some(v) = &mut a.value {
                    map_expr(v, fe, fi);
                }
            }
        }
        Stmt::WhileLet { body, .. } => {
            for s in body {
                map_stmt(s, fe, fi);
            }
        }
        Stmt::LetRef { .. } | Stmt::Replace { .. } | Stmt::VecFieldAssign { .. } => {}
        Stmt::StructWrite { args, .. } => map_args(args, fe, fi),
        Stmt::StructReplace { lit, .. } => map_struct_lit(lit, fe, fi),
    }
}

pub fn map_block(b: &mut Block, fe: &mut impl FnMut(&mut Expr), fi: &mut impl FnMut(&mut IExpr)) {
    for s in &mut b.stmts {
        map_stmt(s, fe, fi);
    }
    map_expr(&mut b.tail, fe, fi);
}

/// [`map_stmt`] over a struct literal's values.
pub fn map_struct_lit(
    l: &mut StructLit,
    fe: &mut impl FnMut(&mut Expr),
    fi: &mut impl FnMut(&mut IExpr),
) {
    for e in &mut l.floats {
        map_expr(e, fe, fi);
    }
    if let Some((n, w)) = &mut l.grid {
        fi(n);
        match w {
            VecInit::ToVec(_) | VecInit::Clone(_) | VecInit::Var(_) => {}
            VecInit::List(items) => {
                for e in items {
                    map_expr(e, fe, fi);
                }
            }
            VecInit::Fill(e, _) => map_expr(e, fe, fi),
        }
    }
}

pub fn map_cond(c: &mut Cond, fe: &mut impl FnMut(&mut Expr), fi: &mut impl FnMut(&mut IExpr)) {
    match c {
        Cond::F(_, a, b) => {
            map_expr(a, fe, fi);
            map_expr(b, fe, fi);
        }
        Cond::I(_, a, b) => {
            fi(a);
            fi(b);
        }
        Cond::B(..) => {}
        Cond::And(a, b) | Cond::Or(a, b) => {
            map_cond(a, fe, fi);
            map_cond(b, fe, fi);
        }
    }
}

pub fn map_expr(e: &mut Expr, fe: &mut impl FnMut(&mut Expr), fi: &mut impl FnMut(&mut IExpr)) {
    match e {
        Expr::Lit(..) | Expr::Var(_) | Expr::Const(_) | Expr::Sum(_) | Expr::Field(..) => {}
        Expr::IntCast(i) | Expr::Index(_, i) => fi(i),
        Expr::Neg(a) | Expr::Un(_, a, _) | Expr::Ml(_, a) => map_expr(a, fe, fi),
        Expr::Bin(_, a, b) | Expr::Bi(_, a, b, _) => {
            map_expr(a, fe, fi);
            map_expr(b, fe, fi);
        }
        Expr::MulAdd(a, b, c) => {
            map_expr(a, fe, fi);
            map_expr(b, fe, fi);
            map_expr(c, fe, fi);
        }
        Expr::If(c, a, b) => {
            map_cond(c, fe, fi);
            map_block(a, fe, fi);
            map_block(b, fe, fi);
        }
        Expr::Match(i, arms, d) => {
            fi(i);
            for (_, a) in arms {
                map_expr(a, fe, fi);
            }
            map_expr(d, fe, fi);
        }
        Expr::Call(_, args)
        | Expr::Method(_, _, args, _)
        | Expr::Assoc(_, _, args)
        | Expr::ResultMethod { args, .. }
        | Expr::TryCall(_, args, _) => map_args(args, fe, fi),
        Expr::MapSum { body, .. } | Expr::ZipSum { body, .. } | Expr::CallClosure(_, body) => {
            map_expr(body, fe, fi)
        }
        Expr::Fold { init, body, .. } => {
            map_expr(init, fe, fi);
            map_expr(body, fe, fi);
        }
        Expr::Block(b) => map_block(b, fe, fi),
        Expr::RangeSum { range, body, .. } => {
            fi(&mut range.lo);
            fi(&mut range.hi);
            map_expr(body, fe, fi);
        }
        Expr::RangeFold {
            range, init, body, ..
        } => {
            fi(&mut range.lo);
            fi(&mut range.hi);
            map_expr(init, fe, fi);
            map_expr(body, fe, fi);
        }
    }
    fe(e);
}

fn map_args(args: &mut [Arg], fe: &mut impl FnMut(&mut Expr), fi: &mut impl FnMut(&mut IExpr)) {
    for a in args {
        match a {
            Arg::F(e) => map_expr(e, fe, fi),
            Arg::I(i) => fi(i),
            Arg::B(_) | Arg::A(_) | Arg::S(_) => {}
            Arg::W { value, .. } => {
                if let Whole::Call(_, args) = value {
                    map_args(args, fe, fi)
                }
            }
        }
    }
}

/// Calls `f` on the name of every float variable `e` reads.
pub fn visit_vars(e: &Expr, f: &mut impl FnMut(&str)) {
    visit_exprs(e, &mut |x| {
        if let Expr::Var(v) = x {
            f(v)
        }
    });
}

/// Calls `f` on `e` and every expression inside it (not inside blocks'
/// statements).
pub fn visit_exprs(e: &Expr, f: &mut impl FnMut(&Expr)) {
    f(e);
    match e {
        Expr::Lit(..)
        | Expr::Var(_)
        | Expr::Const(_)
        | Expr::IntCast(_)
        | Expr::Index(..)
        | Expr::Sum(_)
        | Expr::Field(..) => {}
        Expr::Neg(a) | Expr::Un(_, a, _) | Expr::Ml(_, a) => visit_exprs(a, f),
        Expr::Bin(_, a, b) | Expr::Bi(_, a, b, _) => {
            visit_exprs(a, f);
            visit_exprs(b, f);
        }
        Expr::MulAdd(a, b, c) => {
            visit_exprs(a, f);
            visit_exprs(b, f);
            visit_exprs(c, f);
        }
        Expr::If(c, a, b) => {
            visit_cond(c, f);
            visit_exprs(&a.tail, f);
            visit_exprs(&b.tail, f);
            for s in a.stmts.iter().chain(&b.stmts) {
                if let Stmt::Let { init, .. } = s {
                    visit_exprs(init, f);
                }
            }
        }
        Expr::Match(_, arms, d) => {
            for (_, a) in arms {
                visit_exprs(a, f);
            }
            visit_exprs(d, f);
        }
        Expr::Call(_, args)
        | Expr::Method(_, _, args, _)
        | Expr::Assoc(_, _, args)
        | Expr::ResultMethod { args, .. }
        | Expr::TryCall(_, args, _) => visit_args(args, f),
        Expr::MapSum { body, .. } | Expr::ZipSum { body, .. } | Expr::CallClosure(_, body) => {
            visit_exprs(body, f)
        }
        Expr::Fold { init, body, .. } | Expr::RangeFold { init, body, .. } => {
            visit_exprs(init, f);
            visit_exprs(body, f);
        }
        Expr::RangeSum { body, .. } => visit_exprs(body, f),
        Expr::Block(b) => {
            for s in &b.stmts {
                if let Stmt::Let { init, .. } = s {
                    visit_exprs(init, f);
                }
            }
            visit_exprs(&b.tail, f);
        }
    }
}

/// [`visit_exprs`] of a call's float arguments, in the calls nested in
/// values passed on whole too.
fn visit_args(args: &[Arg], f: &mut impl FnMut(&Expr)) {
    for a in args {
        match a {
            Arg::F(e) => visit_exprs(e, f),
            Arg::W {
                value: Whole::Call(_, inner),
                ..
            } => visit_args(inner, f),
            _ => {}
        }
    }
}

fn visit_cond(c: &Cond, f: &mut impl FnMut(&Expr)) {
    match c {
        Cond::F(_, a, b) => {
            visit_exprs(a, f);
            visit_exprs(b, f);
        }
        Cond::I(..) | Cond::B(..) => {}
        Cond::And(a, b) | Cond::Or(a, b) => {
            visit_cond(a, f);
            visit_cond(b, f);
        }
    }
}

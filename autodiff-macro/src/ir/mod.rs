//! The intermediate representation: a Wengert list in SSA form, with
//! structured regions.
//!
//! Every scalar the function computes is a [`Value`] defined exactly once by
//! an [`Inst`]. User variables are not part of the IR: lowering maps each
//! name to the value it currently holds, so shadowing, `let mut` and
//! reassignment become new values (`s`, `s_1`, `s_2`, ...) and the reverse
//! sweep can read every intermediate it needs without saving anything.
//!
//! Code the macro does not need to understand (statements on strings,
//! vectors, user structs, logging, assertions) is kept as [`Inst::Verbatim`]
//! and copied into the forward sweep as written; the values it reads are
//! listed so that activity analysis can refuse it when it sits on the path
//! from an active input to the output.
//!
//! Blocks are [`Inst::Scope`] regions and branches [`Inst::Branch`]
//! regions whose arms end in [`Merge`]s (the SSA φ of the values that differ
//! by arm), and loops [`Inst::Loop`] regions whose [`Carried`] values are
//! the SSA φ at the loop header. The analyses walk regions recursively and
//! only ever ask a region for the values it defines and reads.

use proc_macro2::{Span, TokenStream};

pub use crate::rules::{BinOp, UnOp};

mod output;
mod types;
mod values;
pub mod verify;
mod walk;

pub use output::*;
pub use types::*;
pub use values::ArmExports;
pub use walk::ZeroLength;

/// Index of a value in [`Function::values`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub usize);

/// How a value comes into being.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueKind {
    /// The function's parameter with this index.
    Param(usize),
    /// Defined by an [`Inst::Def`].
    Def,
    /// A variable of a type the macro does not model (a `Vec`, a `String`,
    /// a user struct), bound or changed by an [`Inst::Verbatim`] statement.
    Opaque,
}

/// One value of the Wengert list.
#[derive(Clone, Debug)]
pub struct Value {
    /// The user variable this value was bound to, if any.
    pub name: Option<String>,
    pub ty: Ty,
    pub kind: ValueKind,
    /// Where it was written: for a named value, the user's identifier,
    /// whose span the expansion reuses so that the name resolves as the
    /// user's own code does (also inside `macro_rules!` expansions).
    pub span: Span,
}

/// An argument of an operation.
#[derive(Clone, Debug)]
pub enum Operand {
    Value(ValueId),
    /// A literal or a constant path (`2.0`, `std::f64::consts::PI`), never
    /// active, emitted inline.
    Const(Box<syn::Expr>),
}

impl Operand {
    pub fn value(&self) -> Option<ValueId> {
        match self {
            Operand::Value(v) => Some(*v),
            Operand::Const(_) => None,
        }
    }

    /// Whether this is the integer literal `n` (`0`, `1usize`).
    pub fn is_int(&self, n: u64) -> bool {
        matches!(self, Operand::Const(e) if matches!(&**e,
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })
                if i.base10_parse::<u64>().ok() == Some(n)))
    }

    /// Whether `self` and `other` are the same value, or constants spelled
    /// the same.
    pub fn same(&self, other: &Operand) -> bool {
        match (self, other) {
            (Operand::Value(x), Operand::Value(y)) => x == y,
            (Operand::Const(x), Operand::Const(y)) => {
                quote::ToTokens::to_token_stream(x).to_string()
                    == quote::ToTokens::to_token_stream(y).to_string()
            }
            _ => false,
        }
    }
}

/// An elementary operation: the right-hand side of one Wengert entry.
#[derive(Clone, Debug)]
pub enum Op {
    /// `y = x`.
    Copy(Operand),
    Unary(UnOp, Operand),
    Binary(BinOp, Operand, Operand),
    /// `recv.name(args)`.
    Method {
        name: syn::Ident,
        recv: Operand,
        args: Vec<Operand>,
        /// For a method computed with its derivative when active (see
        /// [`crate::rules::with_partial`]): the value that receives
        /// dy/dx, which the reverse sweep reads instead of `recv`.
        partial: Option<ValueId>,
    },
    /// `path(args)`: a runtime primitive (`sigmoid(x)`), a float method in
    /// path form (`f64::sin(x)`) or any other function.
    Call {
        path: syn::Path,
        /// What the path resolves to (see [`crate::rules::Callee`]).
        callee: crate::rules::Callee,
        args: Vec<Operand>,
        /// Per argument, whether it is passed by reference (`&xs`).
        borrowed: Vec<bool>,
        /// For a call to another `#[grad]` function: per argument, the value
        /// that receives the callee's slot for it (`emit/slots.rs`): its
        /// partial derivative, or `Constant` where the callee leaves the
        /// parameter constant.
        partials: Vec<Option<ValueId>>,
        /// `update(&mut s, y)`: the argument lent by `&mut`, the float the
        /// callee writes (a writer of one float, `Function::lent`); the call's
        /// value is its new value.
        mutated: Option<usize>,
        /// `g(x)?`, `g(x).unwrap()`, `g(x).expect(..)`: the callee
        /// returns a `Result` or an `Option` (its `_grad` too), whose error
        /// leaves (or panics) through the same `?`, `unwrap` or `expect`.
        exit: Option<Exit>,
    },
    /// `recv.name(args)` on a value of the user's type, with float
    /// arguments, or on a differentiated struct or `self`: a method with
    /// `#[grad]`, differentiated through its slots like a call.
    /// `partials`: the receiver's slot, then one per argument.
    GradMethod {
        name: syn::Ident,
        recv: Operand,
        args: Vec<Operand>,
        /// Per argument, whether it is passed by reference (`&q`).
        borrowed: Vec<bool>,
        partials: Vec<Option<ValueId>>,
        /// `self.root(x)?`: as `Op::Call::exit`.
        exit: Option<Exit>,
    },
    /// `x as ty`.
    Cast(Operand, Box<syn::Type>),
    /// `array[index]` (`array[i][j]` for a nested array).
    Load {
        array: ValueId,
        index: Vec<Operand>,
    },
    /// `path(args)` of a `#[grad]` function that returns a tuple of
    /// floats: its value is the tuple, read by projection; the reverse
    /// sweep calls its `_vjp` slots (`emit/slots.rs`) with the tuple's
    /// adjoint: one gradient or `Constant` per argument.
    VjpCall {
        path: syn::Path,
        args: Vec<Operand>,
        borrowed: Vec<bool>,
        /// `scale(&mut u, k);` of an array writer, `step(&mut x, &mut v,
        /// dt);` of a writer of several floats (`Function::lent`): the
        /// arguments lent by `&mut`, whose new contents are the call's
        /// value (the array, or the floats' tuple), computed on copies
        /// the writer changes. Empty for another call.
        mutated: Vec<usize>,
        /// `let r = accumulate(&mut s, y);` of a function that returns a
        /// value and writes the floats lent in `mutated`: the function
        /// the forward sweep calls, on copies; the call's value is the
        /// tuple of its value and their new values, and `path` is its lent
        /// variant (`desugar/mut_params.rs lent_variant`), whose `_vjp`
        /// the reverse sweep calls.
        original: Option<syn::Path>,
        /// `recv.name(args)`: a method, `path` its name, the receiver
        /// `args[0]` (`s.step(dt)` read as `s.step(dt).x`).
        method: bool,
        /// `let (x, y) = polar(r, t)?;`, `rhs(&s).unwrap()`: the callee
        /// returns a `Result` or an `Option` (its `_vjp` too), as in
        /// `Op::Call::exit`.
        exit: Option<Exit>,
        /// The result is only passed on whole, to other `#[grad]` calls
        /// (`let arm = sub(&r, &p); cross(arm, f)`): the caller does not
        /// see whether it is a float or a vector, and every callee has
        /// `_vjp` slots (`lower/vector_calls.rs passed_on_whole`). Here
        /// the call as it was lowered (`Op::Call`, `Op::GradMethod`),
        /// which forward mode and traces, needing the shape, take as a
        /// float's call (`Op::forward_form`).
        whole: Option<Box<Op>>,
    },
    /// `base.a[i].b`: a part of a composite parameter, read where the
    /// source reads it; its type is rustc's. `by_ref`: `&base.a[i].b`, a
    /// part passed by reference to a call (`layer(&net.layers[k], x)`),
    /// whose gradient is a value of the part's own type.
    Project {
        base: ValueId,
        path: Vec<Step>,
        by_ref: bool,
    },
    /// `Path { f: a, g: b }`: a struct built whole from its fields, passed
    /// to a call or a method's receiver; a `Ty::Composite` whose adjoint
    /// gives each field's back. With a `base`, `Path { f: a, ..base }`:
    /// the fields not named are `base`'s (a copy of it), and so is their
    /// adjoint (a struct writer's field assigned, `desugar/mut_params.rs`).
    Construct {
        path: syn::Path,
        fields: Vec<(syn::Member, Operand)>,
        base: Option<ValueId>,
    },
    /// `base.member` of a struct built whole (`Op::Construct`), which took
    /// `from` for it: its value is read from the struct (a method it was
    /// built for may have changed it where no derivative passes), its
    /// derivative is `from`'s (where one passes, the method took `&self`).
    /// With `constant`, a field read back after a method that may change
    /// it (`&mut self`), `from` a constant the macro does not model (`mode:
    /// Mode::Damped`): the field must be marked
    /// `#[differentiable(constant)]`, which the generated code has rustc
    /// check (`runtime::differentiable::constant_field`).
    Field {
        base: ValueId,
        member: syn::Member,
        from: Operand,
        constant: bool,
    },
    /// A new local array.
    NewArray(ArrayInit),
    /// A runtime kernel (`dot`, `matvec`, `softmax`, ...) called by `path`.
    Kernel {
        kernel: &'static crate::rules::Kernel,
        path: syn::Path,
        args: Vec<KernelOperand>,
    },
    /// An expression the macro does not look into, copied as written. It
    /// reads `reads`; its result is never differentiated, so activity
    /// analysis refuses it where a derivative would have to pass through.
    Opaque {
        expr: syn::Expr,
        reads: Reads,
    },
}

/// An argument of a kernel call.
#[derive(Clone, Debug)]
pub enum KernelOperand {
    /// A modelled array, passed by reference.
    Array(ValueId),
    /// A float array inside another value, passed by reference: a row of
    /// a modelled nested array (`&w[i]`) or a part of a composite
    /// (`&p.w`, `&points[i]`). Its adjoint is the same place in the
    /// base's (`d_w[i]`, `d_p.w`).
    Place { base: ValueId, path: Vec<Step> },
    /// A size or an index.
    Value(Operand),
}

impl KernelOperand {
    /// The array passed whole or by a row.
    pub fn array(&self) -> Option<ValueId> {
        match self {
            KernelOperand::Array(v) | KernelOperand::Place { base: v, .. } => Some(*v),
            KernelOperand::Value(_) => None,
        }
    }
}

/// How a local array starts.
#[derive(Clone, Debug)]
pub enum ArrayInit {
    /// `vec![value; len]`.
    Filled { value: Operand, len: Operand },
    /// `[value; LEN]`, `LEN` a constant as written.
    Repeat { value: Operand, len: String },
    /// `vec![a, b, ...]` (`is_vec`) or `[a, b, ...]`.
    List { items: Vec<Operand>, is_vec: bool },
    /// `Vec::new()` or `Vec::with_capacity(n)`, filled by `push`.
    Empty { capacity: Option<Operand> },
}

impl ArrayInit {
    pub fn operands(&self) -> Vec<ValueId> {
        match self {
            ArrayInit::Filled { value, len } => {
                value.value().into_iter().chain(len.value()).collect()
            }
            ArrayInit::Repeat { value, .. } => value.value().into_iter().collect(),
            ArrayInit::List { items, .. } => items.iter().filter_map(Operand::value).collect(),
            ArrayInit::Empty { capacity } => capacity.iter().filter_map(Operand::value).collect(),
        }
    }
}

/// The user variables a piece of verbatim code mentions, with the values
/// they hold there. Emission rebinds a name when the value's forward name
/// differs from it (after shadowing or reassignment).
#[derive(Clone, Debug, Default)]
pub struct Reads(pub Vec<(String, ValueId)>);

impl Reads {
    pub fn values(&self) -> Vec<ValueId> {
        self.0.iter().map(|(_, v)| *v).collect()
    }
}

/// A statement of the structured Wengert list.
#[derive(Clone, Debug)]
pub enum Inst {
    /// `dst = op`: one Wengert entry.
    Def {
        dst: ValueId,
        op: Op,
        /// What the user wrote on the `let` that the expansion keeps.
        written: Option<Box<Written>>,
        span: Span,
    },
    /// A statement copied as written: an item, a `let` of a value the macro
    /// does not model, or an expression statement (logging, assertions,
    /// calls made for their effect). `defs` are the opaque variables it
    /// binds or may change, each a new value reading `reads`.
    Verbatim {
        tokens: TokenStream,
        kind: VerbatimKind,
        defs: Vec<ValueId>,
        reads: Reads,
    },
    /// A block: values defined inside stay visible to the reverse sweep,
    /// bindings made by verbatim statements inside stay local to it.
    Scope(Block),
    /// `if` / `else if` / `else`, or a `match`: one of `arms` runs, chosen
    /// by inactive values; `merges` are the values that differ by arm (the
    /// branch's own value, and variables assigned in an arm).
    Branch(Box<Branch>),
    /// A `for` loop over an integer range, or a `while` loop.
    Loop(Box<Loop>),
    /// `array[index] = value`: overwrites an element of a modelled array.
    Store {
        array: ValueId,
        index: Vec<Operand>,
        value: Operand,
    },
    /// `array.push(value)`, the element landing at `position`, the length
    /// before the push.
    Push {
        array: ValueId,
        position: ValueId,
        value: Operand,
    },
}

/// A loop region. Its body's values are overwritten each iteration: those
/// the reverse sweep reads are pushed on the value stack by the forward
/// sweep and popped by the reverse sweep, which runs the iterations
/// backwards.
#[derive(Clone, Debug)]
pub struct Loop {
    /// Numbers the loops of a function, to pair a loop with its reverse.
    pub id: usize,
    pub kind: LoopKind,
    /// The variables the body changes.
    pub carried: Vec<Carried>,
    pub body: Block,
    /// Counts the iterations that ran, for the reverse sweep, where they
    /// cannot be known from the range: `while` loops, and loops that
    /// `break`.
    pub trips: Option<ValueId>,
    /// For a loop that `break`s: the value, at the end of an iteration,
    /// that says to leave the loop.
    pub exit: Option<Operand>,
    /// `#[checkpoint(..)]`: the loop's reverse recomputes its iterations
    /// from stored states instead of recording them all.
    pub checkpoint: Option<Checkpoint>,
    /// Variables kept as written (opaque) that the body changes: the
    /// version before the loop and the body's last. The body's reads of
    /// the first see, from the second iteration on, what the last was
    /// at the end of the one before: the activity analysis carries it
    /// back, so that a value the macro does not model, made from values
    /// that carry a derivative in one iteration and read in the next, is
    /// refused instead of read as a constant.
    pub opaque_carried: Vec<(ValueId, ValueId)>,
}

/// A loop's checkpointing (`runtime::checkpoint`): its scheme and its
/// count (K iterations between stored states, or S stored states), a
/// `usize` evaluated once before the loop.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    pub scheme: Scheme,
    pub count: Operand,
    /// The attribute as written, for errors about the loop.
    pub attr: TokenStream,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// `every = K`: `Schedule::every`.
    Every,
    /// `snapshots = S`: `Schedule::binomial`.
    Snapshots,
}

#[derive(Clone, Debug)]
pub enum LoopKind {
    /// `for index in range`, the range evaluated once before the loop; the
    /// reverse sweep walks it backwards, so the index is never recorded.
    Range {
        index: Option<ValueId>,
        range: RangeIter,
    },
    /// `while cond` (`loop` is `while true`), `cond` computed by
    /// `cond_block` at the start of every iteration.
    While { cond_block: Block, cond: Operand },
}

/// `start..end` or `start..=end`, then `.rev()` and `.step_by(k)` in the
/// order written.
#[derive(Clone, Debug)]
pub struct RangeIter {
    pub start: Operand,
    pub end: Operand,
    pub inclusive: bool,
    pub adaptors: Vec<Adaptor>,
}

#[derive(Clone, Debug)]
pub enum Adaptor {
    Rev,
    StepBy(Operand),
}

impl RangeIter {
    pub fn operands(&self) -> Vec<ValueId> {
        let mut out: Vec<ValueId> = [&self.start, &self.end]
            .into_iter()
            .filter_map(Operand::value)
            .collect();
        for a in &self.adaptors {
            if let Adaptor::StepBy(Operand::Value(v)) = a {
                out.push(*v);
            }
        }
        out
    }
}

/// A variable the loop body changes: `header` holds its value at the start
/// of each iteration (`init` at the first), `next` at the end of it, `out`
/// after the loop.
#[derive(Clone, Debug)]
pub struct Carried {
    pub header: ValueId,
    pub init: Operand,
    pub next: Operand,
    pub out: ValueId,
}

/// A branch region.
#[derive(Clone, Debug)]
pub struct Branch {
    pub selector: Selector,
    pub arms: Vec<Block>,
    pub merges: Vec<Merge>,
    /// Per arm, whether it ends by panicking (its merge operands are never
    /// read).
    pub diverging: Vec<bool>,
    /// For a `match`: the value holding the index of the arm that ran,
    /// which the reverse sweep reads to replay the same arm.
    pub arm_index: Option<ValueId>,
}

/// How a branch chooses its arm.
#[derive(Clone, Debug)]
pub enum Selector {
    /// `if cond { arms[0] } else { arms[1] }`.
    If(Operand),
    /// `match scrutinee { patterns[i] => arms[i], ... }`, each pattern with
    /// its guard, written as the user wrote them. The patterns bind no
    /// modelled values.
    Match {
        scrutinee: Operand,
        patterns: Vec<(syn::Pat, Option<syn::Expr>)>,
        reads: Reads,
        /// The scrutinee is a reference to the place the user matched on
        /// (`ops[i]`, `cfg.kind`, `*op` of a value the macro does not
        /// model), matched as `*scrutinee`: a pattern binding `Copy`
        /// fields of a non-`Copy` enum moves nothing out of its owner.
        lent: bool,
    },
}

/// A value defined by a branch: `dst` is `arms[i]` when arm `i` ran.
#[derive(Clone, Debug)]
pub struct Merge {
    pub dst: ValueId,
    pub arms: Vec<Operand>,
}

/// The parts of a user's `let` kept on its Wengert entry: the type and
/// the (lint) attributes.
#[derive(Clone, Debug, Default)]
pub struct Written {
    pub ty: Option<syn::Type>,
    pub attrs: Vec<syn::Attribute>,
}

/// What a verbatim statement is.
#[derive(Clone, Debug)]
pub enum VerbatimKind {
    /// An item (`use`, `const`, `fn`): binds names for the rest of its block.
    Item,
    /// `let <pat> = <init>;`: the initialiser is wrapped when names must be
    /// rebound, while the binding itself stays in scope.
    Let(Box<VerbatimLet>),
    /// An expression or macro statement.
    Stmt,
    /// The names a `match` pattern binds (emitted by the pattern itself):
    /// `tokens` is the pattern.
    Binding,
}

/// The pieces of a verbatim `let` statement: `let <pat> = <init>;`.
#[derive(Clone, Debug)]
pub struct VerbatimLet {
    pub pat: TokenStream,
    pub init: syn::Expr,
}

/// A sequence of instructions.
#[derive(Clone, Debug, Default)]
pub struct Block {
    pub insts: Vec<Inst>,
}

/// A parameter of the function.
#[derive(Clone, Debug)]
pub struct Param {
    pub ident: syn::Ident,
    pub ty: syn::Type,
    pub value: ValueId,
    /// Whether the gradient is taken with respect to it.
    pub active: bool,
}

/// A method that may be the user's, called in code kept as written on a
/// struct the function takes by `&` (`p0.energy(x)` inside a loop kept as
/// written), which the lowering lets leave the struct as it was: a method
/// with #[grad] never changes it with values that carry a derivative
/// (`analysis/escapes.rs`), and where it is given such values the
/// generated code checks that it has #[grad].
#[derive(Clone, Debug)]
pub struct LentCall {
    /// The parameter.
    pub param: String,
    /// The receiver as written: the parameter or a field of it.
    pub recv: syn::Expr,
    pub method: syn::Ident,
    /// The arguments as written, each with what it reads.
    pub args: Vec<(syn::Expr, Reads)>,
    /// What its receiver and arguments read.
    pub given: Reads,
}

/// A function lowered to IR.
#[derive(Clone, Debug)]
pub struct Function {
    pub values: Vec<Value>,
    pub params: Vec<Param>,
    pub body: Block,
    /// The returned value: the float, or the array for an array output.
    pub ret: Operand,
    /// The float type of the output (of its elements for a vector output).
    pub ret_ty: FloatTy,
    /// What the function returns.
    pub output: Output,
    /// The float type parameter of a generic function (`T` in
    /// `fn f<T: autodiff::Float>`).
    pub generic: Option<syn::Ident>,
    /// Whether `#[grad(wrt(..))]` names the active parameters (otherwise
    /// they are the parameters of a float type, as written).
    pub wrt_given: bool,
    /// For a function returning `Result<T, E>` or `Option<T>`: which; the
    /// rest of the IR is the function returning `T`.
    pub fallible: Option<Fallible>,
    /// The calls of [`LentCall`], in the order written.
    pub lent_calls: Vec<LentCall>,
    /// The float parameters taken by `&mut` (`x: &mut f64`): by index,
    /// with the value each holds at the end, which the generated function
    /// writes back through the reference.
    pub written: Vec<(usize, Operand)>,
    /// For a *writer*, a function that returns nothing and writes its
    /// results through `&mut` (`desugar/mut_params.rs`): the parameters
    /// its callers lend (`update(&mut s, y);`), which it is lowered as
    /// returning. One float: a scalar output, whose `_grad` takes it by
    /// `&mut` (`written`); several floats: a tuple output taking them by
    /// value; one float array (`fn scale(v: &mut [f64], k: f64)`): an
    /// array output taking it by shared reference. Callers call it
    /// through its `__autodiff_mut_slots_<name>` (`emit/slots.rs`), which
    /// only a writer has: `Op::Call::mutated` for one float,
    /// `Op::VjpCall::mutated` for the others. Empty for any other function.
    pub lent: Vec<usize>,
}

//! The rules table: which runtime rule differentiates which operator,
//! method or function. The math is in `autodiff-runtime`; a row here only
//! names it. A rule `name` in module `m` is called as
//! `::autodiff::runtime::m::name(args)` for its value and
//! `::autodiff::runtime::m::name_pullback(args, y, dy)` for its pullback,
//! which returns one adjoint contribution per float argument (a tuple when
//! there are several).

mod resolve;

pub use resolve::*;

/// A unary operator, as the rules table knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

/// A binary operator, as the rules table knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    /// Comparisons, boolean logic, bit operations and shifts: their results
    /// are integers or booleans and carry no derivative.
    Other(&'static str),
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Other(s) => s,
        }
    }
}

/// The kind of one argument of a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// Differentiated.
    Float,
    /// An `i32` exponent and the like: passed to the pullback, not
    /// differentiated.
    Int,
}

/// A primitive with a pullback in the runtime.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    pub name: &'static str,
    pub module: &'static str,
    pub args: &'static [Arg],
    /// Which inputs the pullback reads, one character per argument and a
    /// last one for the output `y`: `u` read, `-` not, and, for a rule of
    /// two arguments, `x` read only for the other argument's partial
    /// (`a * b`: ∂/∂a = b, ∂/∂b = a). Inside a loop, only what is read
    /// needs recording; what is not gets a placeholder.
    pub uses: &'static str,
}

impl Rule {
    /// Whether the pullback reads argument `i` (`i == args.len()`: the
    /// output), given which arguments take a partial (`targets`).
    pub fn reads<T>(&self, i: usize, targets: &[Option<T>]) -> bool {
        match self.uses.as_bytes().get(i) {
            Some(b'u') => true,
            Some(b'x') => targets.get(1 - i).is_some_and(Option::is_some),
            _ => false,
        }
    }
}

const F: Arg = Arg::Float;
const I: Arg = Arg::Int;

macro_rules! rules {
    ($($name:literal in $module:literal ($($arg:ident),*) uses $uses:literal),* $(,)?) => {
        &[$(Rule { name: $name, module: $module, args: &[$($arg),*], uses: $uses }),*]
    };
}

/// Float methods, receiver first. Each is also accepted in path form
/// (`f64::sin(x)`).
pub const METHODS: &[Rule] = rules![
    "sin" in "trig" (F) uses "u-", "cos" in "trig" (F) uses "u-", "tan" in "trig" (F) uses "-u",
    "asin" in "trig" (F) uses "u-", "acos" in "trig" (F) uses "u-", "atan" in "trig" (F) uses "u-",
    "atan2" in "trig" (F, F) uses "uu-",
    "sinh" in "trig" (F) uses "u-", "cosh" in "trig" (F) uses "u-", "tanh" in "trig" (F) uses "-u",
    "asinh" in "trig" (F) uses "u-", "acosh" in "trig" (F) uses "u-", "atanh" in "trig" (F) uses "u-",
    "hypot" in "trig" (F, F) uses "uuu",
    "to_degrees" in "trig" (F) uses "--", "to_radians" in "trig" (F) uses "--",
    "exp" in "exp_log" (F) uses "-u", "exp2" in "exp_log" (F) uses "-u", "exp_m1" in "exp_log" (F) uses "-u",
    "ln" in "exp_log" (F) uses "u-", "ln_1p" in "exp_log" (F) uses "u-", "log" in "exp_log" (F, F) uses "uuu",
    "log2" in "exp_log" (F) uses "u-", "log10" in "exp_log" (F) uses "u-",
    "sqrt" in "power" (F) uses "-u", "cbrt" in "power" (F) uses "-u",
    "powi" in "power" (F, I) uses "uu-", "powf" in "power" (F, F) uses "uuu",
    "recip" in "arith" (F) uses "-u",
    "abs" in "piecewise" (F) uses "u-", "signum" in "piecewise" (F) uses "--",
    "max" in "piecewise" (F, F) uses "uuu", "min" in "piecewise" (F, F) uses "uuu",
    "clamp" in "piecewise" (F, F, F) uses "uuu-",
    "rem_euclid" in "piecewise" (F, F) uses "uu-", "div_euclid" in "piecewise" (F, F) uses "---",
    "floor" in "piecewise" (F) uses "--", "ceil" in "piecewise" (F) uses "--", "round" in "piecewise" (F) uses "--",
    "trunc" in "piecewise" (F) uses "--", "fract" in "piecewise" (F) uses "--",
    "mul_add" in "fused" (F, F, F) uses "uu--",
];

/// Free functions of the runtime, callable as `sigmoid(x)` or
/// `autodiff::sigmoid(x)`.
pub const FUNCTIONS: &[Rule] = rules![
    "sigmoid" in "ml" (F) uses "-u", "relu" in "ml" (F) uses "u-", "softplus" in "ml" (F) uses "u-", "log_sigmoid" in "ml" (F) uses "u-",
];

const OPERATORS: &[Rule] = rules![
    "add" in "arith" (F, F) uses "---", "sub" in "arith" (F, F) uses "---", "mul" in "arith" (F, F) uses "xx-",
    "div" in "arith" (F, F) uses "-uu", "rem" in "arith" (F, F) uses "uu-", "neg" in "arith" (F) uses "--",
];

/// An argument of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelArg {
    /// A float array, passed as a slice; its adjoint is `Some(&mut ..)`
    /// when it is active.
    Array,
    /// A size or an index.
    Usize,
}

/// A coarse-grained kernel of the runtime (module `kernels`), differentiated
/// by its own pullback `name_pullback(args.., y, dy, d_array..)`.
#[derive(Debug, PartialEq, Eq)]
pub struct Kernel {
    pub name: &'static str,
    pub args: &'static [KernelArg],
    /// Whether it returns a `Vec` (else one float).
    pub returns_array: bool,
}

const A: KernelArg = KernelArg::Array;
const U: KernelArg = KernelArg::Usize;

pub const KERNELS: &[Kernel] = &[
    Kernel {
        name: "dot",
        args: &[A, A],
        returns_array: false,
    },
    Kernel {
        name: "matvec",
        args: &[A, A, U],
        returns_array: true,
    },
    Kernel {
        name: "matmul",
        args: &[A, A, U, U, U],
        returns_array: true,
    },
    Kernel {
        name: "logsumexp",
        args: &[A],
        returns_array: false,
    },
    Kernel {
        name: "softmax",
        args: &[A],
        returns_array: true,
    },
    Kernel {
        name: "softmax_cross_entropy",
        args: &[A, U],
        returns_array: false,
    },
];

pub fn kernel(name: &str) -> Option<&'static Kernel> {
    KERNELS.iter().find(|k| k.name == name)
}

fn find(table: &'static [Rule], name: &str) -> Option<&'static Rule> {
    table.iter().find(|r| r.name == name)
}

pub fn method(name: &str) -> Option<&'static Rule> {
    find(METHODS, name)
}

/// The float methods whose runtime module computes the value and its
/// derivative together more cheaply than apart, as
/// `<name>_with_partial(x) -> (y, dy/dx)`: `sin` and `cos`, through one
/// `sincos`. Where such an entry is active, the forward sweep calls that
/// function, and the reverse sweep (and, inside a loop, the value stack)
/// reads the derivative instead of the input.
const WITH_PARTIAL: &[&str] = &["sin", "cos"];

/// Whether the method `name` has a `<name>_with_partial` (see
/// `WITH_PARTIAL`).
pub fn with_partial(name: &str) -> bool {
    WITH_PARTIAL.contains(&name)
}

/// The rules whose runtime module also has `<name>_pullback_unguarded`:
/// the same partials without the zero-adjoint guard, called by the first
/// attempt of a reverse sweep that is repeated with the guarded rules when
/// a gradient entry comes out NaN (`runtime::float::first_try`, where the
/// argument for it is). Products, quotients and every rule of one float
/// input whose pullback is `dy · f'(x)` (the runtime's `unary_rule!`, and
/// `sqrt`, `cbrt`, `recip`, `powi`, `abs`): where the adjoint is the only
/// thing a loop iteration waits on, the guard's compare and branch costs
/// more than the multiplication.
const UNGUARDED: &[(&str, &[&str])] = &[
    ("arith", &["mul", "div", "recip"]),
    ("power", &["sqrt", "cbrt", "powi"]),
    (
        "piecewise",
        &["abs", "signum", "floor", "ceil", "round", "trunc", "fract"],
    ),
    (
        "exp_log",
        &["exp", "exp2", "exp_m1", "ln", "ln_1p", "log2", "log10"],
    ),
    (
        "trig",
        &[
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "sinh",
            "cosh",
            "tanh",
            "asinh",
            "acosh",
            "atanh",
            "to_degrees",
            "to_radians",
        ],
    ),
];

/// Whether `rule` has a `<name>_pullback_unguarded` (see `UNGUARDED`).
pub fn has_unguarded(rule: &Rule) -> bool {
    UNGUARDED
        .iter()
        .any(|(m, names)| *m == rule.module && names.contains(&rule.name))
}

/// The rules whose pullback hands `dy` itself, unchanged, to some
/// arguments: `a + b` to both, `a - b` to `a` (the runtime's
/// `hands_dy_on_unchanged` test pins this). The reverse of an increment
/// relies on it (`reverse/increments.rs`).
pub const PASSES_DY: &[(&str, &str, &[usize])] =
    &[("arith", "add", &[0, 1]), ("arith", "sub", &[0])];

/// Whether `rule`'s pullback gives argument `i` exactly `dy`.
pub fn passes_dy(rule: &Rule, i: usize) -> bool {
    PASSES_DY
        .iter()
        .any(|(m, n, args)| *m == rule.module && *n == rule.name && args.contains(&i))
}

pub fn function(name: &str) -> Option<&'static Rule> {
    find(FUNCTIONS, name)
}

pub fn binary(op: BinOp) -> Option<&'static Rule> {
    let name = match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::Div => "div",
        BinOp::Rem => "rem",
        BinOp::Other(_) => return None,
    };
    find(OPERATORS, name)
}

pub fn unary(op: UnOp) -> Option<&'static Rule> {
    match op {
        UnOp::Neg => find(OPERATORS, "neg"),
        UnOp::Not => None,
    }
}

/// Float methods whose result carries no derivative, with the kind of
/// value they return: they may read active values freely.
pub fn inactive_method(name: &str) -> Option<InactiveResult> {
    Some(match name {
        "is_nan" | "is_infinite" | "is_finite" | "is_normal" | "is_subnormal"
        | "is_sign_positive" | "is_sign_negative" | "is_empty" => InactiveResult::Bool,
        // `to_bits` of an active float is refused all the same: the
        // integer holds it whole (`analysis/refusals`).
        "to_bits" | "len" | "count_ones" | "leading_zeros" | "trailing_zeros" => {
            InactiveResult::Int
        }
        _ => return None,
    })
}

/// Whether a method of this name may be one of the user's (`self.energy(x)`,
/// `p.norm()`): no float method, no method that gives an integer or a
/// `bool`, no `std` method a chain or a copy stands for.
pub fn maybe_users_method(name: &str) -> bool {
    method(name).is_none()
        && inactive_method(name).is_none()
        && !is_std_method(name)
        && !float_method_without_rule(name)
}

/// A float's methods of `std`'s that have no derivative rule here
/// (`x.copysign(y)`): no method of the user's, so that a call of one is
/// refused by its name, not read as a struct's.
pub fn float_method_without_rule(name: &str) -> bool {
    matches!(name, "copysign" | "total_cmp" | "to_bits")
}

/// Whether `e` is a literal of no float type, or a reference to one:
/// a string, a byte string, a `char`, a `bool` (`"ab"`, `&'x'`).
pub fn literal_of_no_float(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(l) => !matches!(l.lit, syn::Lit::Float(_) | syn::Lit::Int(_)),
        syn::Expr::Reference(r) => literal_of_no_float(&r.expr),
        syn::Expr::Paren(p) => literal_of_no_float(&p.expr),
        _ => false,
    }
}

/// Whether `e` names a type of interior mutability (`Cell::new(0.0)`,
/// `RefCell::new(v)`, `Mutex::default()`, `AtomicU64::new(0)`): a value
/// a shared reference may change. With `bare_cell` false, a bare `Cell`
/// is not one: it may be the user's (a grid's cell, with a `#[grad]`
/// constructor); `cell::Cell` still is.
pub fn interior_mutable(e: &syn::Expr, bare_cell: bool) -> bool {
    let tokens = quote::ToTokens::to_token_stream(e).to_string();
    let mut names = std::collections::HashSet::new();
    crate::desugar::internal::collect_idents(quote::ToTokens::to_token_stream(e), &mut names);
    names.iter().any(|n| {
        matches!(
            n.as_str(),
            "RefCell" | "OnceCell" | "UnsafeCell" | "Mutex" | "RwLock"
        ) || n.starts_with("Atomic")
            || n == "Cell" && (bare_cell || tokens.contains("cell :: Cell"))
    })
}

/// Whether `method` is one of `Vec`'s that change it, other than `push`
/// (which fills a `Vec` the lowering follows, `lower/float_vecs.rs`).
pub fn changes_a_vec(method: &syn::Ident) -> bool {
    matches!(
        method.to_string().as_str(),
        "pop"
            | "remove"
            | "swap_remove"
            | "insert"
            | "truncate"
            | "clear"
            | "drain"
            | "retain"
            | "dedup"
            | "sort"
            | "sort_by"
            | "sort_unstable"
            | "sort_unstable_by"
            | "reverse"
            | "rotate_left"
            | "rotate_right"
            | "extend"
            | "extend_from_slice"
            | "append"
            | "resize"
            | "split_off"
    )
}

/// Whether `path` names an item of `std`'s (`Vec::with_capacity`,
/// `std::mem::take`, `Default::default`): never a `#[grad]` function.
pub fn is_std_path(path: &syn::Path) -> bool {
    path.segments.first().is_some_and(|s| {
        ["Vec", "Box", "String", "std", "core", "alloc", "Default"]
            .contains(&s.ident.to_string().as_str())
    })
}

/// Methods of `std` that a struct's receiver may call (`self.clone()`,
/// `p.iter()`): never a `#[grad]` method of the user's, so never called
/// through its slots.
pub fn is_std_method(name: &str) -> bool {
    matches!(
        name,
        "clone"
            | "to_owned"
            | "to_vec"
            | "iter"
            | "iter_mut"
            | "into_iter"
            | "as_ref"
            | "as_mut"
            | "as_slice"
            | "borrow"
            | "into"
            | "unwrap"
            | "expect"
            | "get"
            | "first"
            | "last"
    )
}

/// Methods of `std`'s slices and `Vec`s that only read their receiver
/// (`w.len()`, `w.iter()`, `w.to_vec()`), and a float's `sin_cos`: one
/// called on an array in code kept as written leaves the array as it was,
/// and `phi.sin_cos()` leaves `phi` a variable the lowering models.
pub fn reads_only(name: &str) -> bool {
    matches!(
        name,
        "len"
            | "is_empty"
            | "iter"
            | "first"
            | "last"
            | "get"
            | "contains"
            | "to_vec"
            | "clone"
            | "as_slice"
            | "sin_cos"
            | "windows"
            | "chunks"
            | "chunks_exact"
            | "rchunks"
            | "split_at"
            | "split_first"
            | "split_last"
            | "binary_search"
            | "binary_search_by"
            | "binary_search_by_key"
            | "partition_point"
    )
}

/// Methods of `std`'s slices and `Vec`s that change their receiver in
/// place (`v.sort_by(..)`, `v.clear()`, `v.truncate(n)`, and on a part of
/// it, `v[1..].fill(0.0)`, where #[grad] follows `fill`,
/// `copy_from_slice` and `swap` of the whole array only).
pub fn changes_in_place(name: &str) -> bool {
    matches!(
        name,
        "sort"
            | "sort_by"
            | "sort_by_key"
            | "sort_unstable"
            | "sort_unstable_by"
            | "sort_unstable_by_key"
            | "sort_by_cached_key"
            | "select_nth_unstable"
            | "select_nth_unstable_by"
            | "reverse"
            | "rotate_left"
            | "rotate_right"
            | "clear"
            | "truncate"
            | "resize"
            | "resize_with"
            | "extend"
            | "extend_from_within"
            | "insert"
            | "remove"
            | "swap_remove"
            | "retain"
            | "retain_mut"
            | "dedup"
            | "dedup_by"
            | "dedup_by_key"
            | "drain"
            | "append"
            | "split_off"
            | "fill_with"
            | "copy_within"
            | "copy_from_slice"
            | "clone_from_slice"
            | "swap_with_slice"
            | "fill"
            | "swap"
            | "iter_mut"
            | "chunks_mut"
            | "chunks_exact_mut"
            | "split_at_mut"
            | "pop"
    )
}

/// The views of a slice, `w.windows(n)`, `w.chunks(n)`,
/// `w.chunks_exact(n)`: they only read it too.
pub fn is_view(name: &str) -> bool {
    matches!(name, "windows" | "chunks" | "chunks_exact")
}

/// Whether a method of this name leaves its receiver as it was, by its
/// name alone: a float's method (a rule, or one without a derivative),
/// or a reading method of `std`'s slices and `Vec`s.
pub fn leaves_receiver(name: &str) -> bool {
    method(name).is_some()
        || inactive_method(name).is_some()
        || reads_only(name)
        || is_view(name)
        || compares(name)
}

/// The comparisons of `std`'s traits (`a.partial_cmp(b)` in a `max_by`'s
/// closure): they take their receiver by reference and change nothing,
/// so a tuple's names bound elsewhere (`|(a, b), x|` of a `fold`) are not
/// taken for values a closure changes (trial 11 r937).
pub fn compares(name: &str) -> bool {
    matches!(
        name,
        "partial_cmp" | "total_cmp" | "cmp" | "eq" | "ne" | "lt" | "le" | "gt" | "ge"
    )
}

/// Methods of `std`'s that hand out a way into their receiver's inside
/// (`p.log.borrow_mut()`, `p.m.lock()`, `v.iter_mut()`): what is done
/// through their value changes the receiver. Never taken for a method of
/// the user's that leaves it as it was (`Function::lent_calls`).
pub fn hands_out_interior(name: &str) -> bool {
    matches!(
        name,
        "borrow"
            | "borrow_mut"
            | "try_borrow"
            | "try_borrow_mut"
            | "lock"
            | "try_lock"
            | "read"
            | "write"
            | "get_mut"
            | "as_mut"
            | "as_ref"
            | "deref"
            | "deref_mut"
            | "as_ptr"
            | "as_mut_ptr"
            | "iter_mut"
            | "values_mut"
            | "entry"
            | "upgrade"
    )
}

pub enum InactiveResult {
    Bool,
    Int,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_has_one_row() {
        for (i, r) in METHODS.iter().enumerate() {
            assert!(
                METHODS[i + 1..].iter().all(|s| s.name != r.name),
                "{} twice",
                r.name
            );
            assert_eq!(r.args[0], Arg::Float, "{}: the receiver is a float", r.name);
        }
    }

    fn float_args(rule: &Rule) -> usize {
        rule.args.iter().filter(|a| **a == Arg::Float).count()
    }

    #[test]
    fn uses_cover_every_argument_and_the_output() {
        for r in METHODS.iter().chain(FUNCTIONS).chain(OPERATORS) {
            assert_eq!(r.uses.len(), r.args.len() + 1, "{}", r.name);
            assert!(
                r.uses.bytes().all(|b| b == b'u' || b == b'-' || b == b'x'),
                "{}",
                r.name
            );
            assert!(!r.uses.contains('x') || r.args.len() == 2, "{}", r.name);
        }
    }

    #[test]
    fn operators_and_functions_resolve() {
        assert_eq!(binary(BinOp::Mul).unwrap().module, "arith");
        assert!(binary(BinOp::Other("<")).is_none());
        assert_eq!(float_args(unary(UnOp::Neg).unwrap()), 1);
        assert_eq!(float_args(method("powi").unwrap()), 1);
        assert_eq!(float_args(method("clamp").unwrap()), 3);
        assert_eq!(function("sigmoid").unwrap().module, "ml");
    }
}

//! What the twin knows by name: the constants and methods it may read
//! and call at `T`, and how an iterator chain gives its elements (by
//! reference, copied, or integers of a range), which decides whether a
//! loop or a closure may do arithmetic on them.

use syn::Expr as E;

/// The names of `std::f64::consts` (but `E`, a common name for other
/// things), read bare after a `use`.
pub(super) const CONSTS: &[&str] = &[
    "PI",
    "TAU",
    "SQRT_2",
    "FRAC_1_SQRT_2",
    "LN_2",
    "LN_10",
    "LOG2_E",
    "LOG10_E",
    "LOG2_10",
    "LOG10_2",
    "FRAC_PI_2",
    "FRAC_PI_3",
    "FRAC_PI_4",
    "FRAC_PI_6",
    "FRAC_PI_8",
    "FRAC_1_PI",
    "FRAC_2_PI",
    "FRAC_2_SQRT_PI",
];

/// The methods the twin may call: the float's (the rules' and those that
/// carry no derivative), and those of slices, `Vec`s, iterators and
/// integers that take and give the elements as they are.
pub(super) const METHODS: &[&str] = &[
    // The float's, beyond the rules' table.
    "sin_cos",
    "is_nan",
    "is_infinite",
    "is_finite",
    "is_normal",
    "is_sign_positive",
    "is_sign_negative",
    "partial_cmp",
    "min",
    "max",
    "clone",
    "copied",
    "cloned",
    // Slices, `Vec`s and iterators.
    "len",
    "is_empty",
    "iter",
    "iter_mut",
    "into_iter",
    "enumerate",
    "zip",
    "map",
    "filter",
    "fold",
    "rev",
    "skip",
    "take",
    "step_by",
    "windows",
    "chunks",
    "chunks_exact",
    "get",
    "first",
    "last",
    "push",
    "pop",
    "to_vec",
    "collect",
    "count",
    "min_by",
    "max_by",
    "all",
    "any",
    "position",
    "swap",
    "extend_from_slice",
    "resize",
    "unwrap",
    "expect",
    "for_each",
    "filter_map",
    "take_while",
    "skip_while",
    "chain",
    "last_mut",
    "first_mut",
    "get_mut",
    "split_at",
    "contains",
    "is_some",
    "is_none",
    "unwrap_or",
    "abs_diff",
    "pow",
    "saturating_sub",
    "wrapping_add",
    "checked_sub",
    "checked_add",
    "rem_euclid",
    "div_euclid",
    // Generic over their elements (`T: Copy + PartialOrd`), dual numbers
    // too (trial 12 r1015).
    "copy_from_slice",
    "clone_from_slice",
    "fill",
    "reverse",
    "sort_by",
    "to_owned",
    "reduce",
];

/// The methods that give a collection's elements by reference.
pub(super) const BY_REFERENCE: &[&str] = &["iter", "iter_mut", "into_iter"];

/// The adapters between a `for` and its `.iter()` that keep the elements
/// as they are (so that the `for`'s pattern decides).
pub(super) const FOR_ADAPTERS: &[&str] = &[
    "iter",
    "iter_mut",
    "into_iter",
    "enumerate",
    "zip",
    "rev",
    "skip",
    "take",
    "step_by",
];

/// Whether an iterator chain copies its elements (`.copied()`,
/// `.cloned()`) after its last `.iter()`.
pub(super) fn chain_copies(e: &E) -> bool {
    match e {
        E::MethodCall(m) if m.method == "copied" || m.method == "cloned" => true,
        E::MethodCall(m) if BY_REFERENCE.contains(&m.method.to_string().as_str()) => false,
        E::MethodCall(m) => chain_copies(&m.receiver),
        E::Paren(p) => chain_copies(&p.expr),
        _ => false,
    }
}

/// Whether `e` is a range of integers, through adapters that keep its
/// elements (`(0..n).rev()`, `(0..m).step_by(2)`).
pub(super) fn of_range(e: &E) -> bool {
    match e {
        E::Range(_) => true,
        E::Paren(p) => of_range(&p.expr),
        E::MethodCall(m) => {
            matches!(
                m.method.to_string().as_str(),
                "rev" | "step_by" | "skip" | "take"
            ) && of_range(&m.receiver)
        }
        _ => false,
    }
}

/// Whether a `for`'s pattern takes every element it binds apart by `&`
/// (`&x`, `(i, &x)` over `.enumerate()`, `(&a, &b)` over `.zip(..)`).
pub(super) fn dereferences(pat: &syn::Pat, expr: &E) -> bool {
    fn all_by_ref(p: &syn::Pat) -> bool {
        match p {
            syn::Pat::Reference(_) | syn::Pat::Wild(_) => true,
            syn::Pat::Tuple(t) => t.elems.iter().all(all_by_ref),
            syn::Pat::Paren(p) => all_by_ref(&p.pat),
            _ => false,
        }
    }
    match (pat, expr) {
        (syn::Pat::Tuple(t), E::MethodCall(m)) if m.method == "enumerate" && t.elems.len() == 2 => {
            dereferences(&t.elems[1], &m.receiver)
        }
        _ => all_by_ref(pat),
    }
}

/// Whether a consumer's closure takes its elements apart by `&`, as a
/// `for`'s pattern may: `map(|&x| ..)`, `fold(init, |acc, &x| ..)`,
/// `map(|(&a, &b)| ..)` over a `zip`.
pub(super) fn closure_dereferences(m: &syn::ExprMethodCall) -> bool {
    let at = match m.method.to_string().as_str() {
        "map" | "for_each" => 0,
        "fold" => 1,
        _ => return false,
    };
    match m.args.iter().last() {
        Some(E::Closure(c)) if c.inputs.len() == at + 1 => dereferences(&c.inputs[at], &m.receiver),
        _ => false,
    }
}

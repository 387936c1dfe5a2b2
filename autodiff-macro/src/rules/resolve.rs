//! What a call resolves to, decided once from its path and kept in the IR:
//! a runtime function (`sigmoid`, `autodiff::relu`), a float method in path
//! form (`f64::sin`), or another function, differentiated through its
//! `_grad`.

use super::{function, method, Rule};

/// What a call resolves to, decided once, from its path, by the lowering
/// and kept in the IR (`Op::Call::callee`): the later stages read it.
#[derive(Clone, Copy, Debug)]
pub enum Callee {
    /// A runtime function by a name that may be the user's own
    /// (`sigmoid(x)`, `autodiff::relu(x)`): the rule, and whether the name
    /// is bare (then the generated code checks it is the runtime's).
    Runtime { rule: &'static Rule, bare: bool },
    /// A float method in path form (`f64::sin(x)`).
    Method(&'static Rule),
    /// `f64::..`/`f32::..` with no rule (`f64::from_bits`): not
    /// differentiated.
    Primitive,
    /// Any other function: differentiated, where active, through its
    /// `_grad`.
    Function,
}

/// The names of `path`'s segments, in order (`std::f64::consts::PI`:
/// `["std", "f64", "consts", "PI"]`), without their generic arguments.
pub fn path_segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// What the call to `path` resolves to.
pub fn resolve(path: &syn::Path) -> Callee {
    let segs = path_segments(path);
    let last = segs.last().map(String::as_str).unwrap_or("");
    if is_runtime_function(path) {
        if let Some(rule) = function(last) {
            return Callee::Runtime {
                rule,
                bare: segs.len() == 1,
            };
        }
    }
    if segs.len() == 2 && (segs[0] == "f64" || segs[0] == "f32") {
        return method(last).map_or(Callee::Primitive, Callee::Method);
    }
    Callee::Function
}

/// Whether a call's callee is a tuple struct's or an enum variant's
/// constructor (`Pt`, `Shape::Circle`, `Some`): a path whose last name
/// starts with a capital letter, as Rust names types and variants and not
/// functions.
pub fn is_constructor(func: &syn::Expr) -> bool {
    let syn::Expr::Path(p) = func else {
        return false;
    };
    p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| {
            s.ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase())
        })
}

/// `sigmoid`, `autodiff::sigmoid`, `::autodiff::runtime::ml::sigmoid`, ...
fn is_runtime_function(path: &syn::Path) -> bool {
    let segs = path_segments(path);
    let last = segs.last().map(String::as_str).unwrap_or("");
    function(last).is_some()
        && (segs.len() == 1 || segs[0] == "autodiff" || segs[0] == "autodiff_runtime")
}

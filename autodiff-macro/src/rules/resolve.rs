//! What a call resolves to, decided from its path: a runtime function
//! (`sigmoid`, `autodiff::relu`), a float method in path form (`f64::sin`),
//! or another function, differentiated through its `_grad`.

use super::function;

/// A call that is not to a runtime primitive or a float method in path
/// form (`f64::sin`): differentiated, where active, through the callee's
/// `_grad`.
pub fn calls_grad_function(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let float_method = segs.len() == 2 && (segs[0] == "f64" || segs[0] == "f32");
    !is_runtime_function(path) && !float_method
}

/// `sigmoid`, `autodiff::sigmoid`, `::autodiff::runtime::ml::sigmoid`, ...
pub fn is_runtime_function(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let last = segs.last().map(String::as_str).unwrap_or("");
    function(last).is_some()
        && (segs.len() == 1 || segs[0] == "autodiff" || segs[0] == "autodiff_runtime")
}

//! Analyses of the IR that the reverse sweep and emission rely on: which
//! values are active, which loads repeat an earlier one, and where a loop can read arrays through a slice
//! taken once (bounds-check windows).

pub mod activity;
pub mod casts;
pub mod escapes;
pub mod loads;
pub mod refusals;
pub mod windows;

/// Runs the activity analysis (`activity.rs`), then refuses code kept as
/// written where a derivative would be lost in it (`refusals/`) or leave
/// the function unseen (`escapes.rs`), every error at once.
pub fn analyse(f: &crate::ir::Function) -> Result<activity::Activity, syn::Error> {
    let activity = activity::dependences(f);
    let mut errors = None;
    refusals::check_function(f, &activity, &mut errors);
    let escapes = escapes::check(f, &activity, &mut errors);
    match errors {
        Some(e) => Err(e),
        None => Ok(activity.with_escapes(escapes)),
    }
}

//! Analyses of the IR that the reverse sweep and emission rely on: which
//! values are active, which loads repeat an earlier one, and where a loop can read arrays through a slice
//! taken once (bounds-check windows).

pub mod activity;
pub mod casts;
pub mod escapes;
pub mod loads;
pub mod windows;

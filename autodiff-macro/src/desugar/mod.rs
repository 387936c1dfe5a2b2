//! Syntax rewritten into simpler syntax before lowering: jumps in loops
//! into flags and branches, guard clauses into `if`/`else`, iterator
//! reductions into index loops, a vector output's tail into names. Each
//! rewrite is syntax to syntax, so what it does can be read (and tested)
//! as the Rust it produces.

pub mod generic;
pub mod if_let;
pub mod internal;
pub mod iterators;
pub mod jumps;
pub mod outputs;

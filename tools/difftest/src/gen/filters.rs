//! Feature `filter_names`: `for` loops over `xs.iter().enumerate()` with a
//! `filter` whose closure names its parameters as the loop's pattern does
//! (README: "a `filter`'s closure takes its element by reference, as in
//! `std`"):
//!
//! - `for (i, x) in xs.iter().enumerate().filter(|(i, _)| *i % 2 == 0)`
//!   (or `*i != 1`, `*i < 2`): a test of the index alone;
//! - `.filter(|(i, x)| **x > 0.25 && *i != 1)` (either order): the element
//!   read through both references beside a test of the index, compared
//!   with a literal or a float that does not change in the loop (an
//!   immutable one: the closure borrows it while the loop runs).
//!
//! The body reads the element, a `&f64`, as `*x` (the loop's jumps and
//! everything else as in any loop). The dual-number twin writes the
//! filter as `if !(..) { continue; }` at the top of the body.

use super::*;

impl G<'_> {
    /// The filter of a `for` loop over `xs.iter().enumerate()` of `len`
    /// elements: half the loops of a program that filters (drawn from the
    /// stream of the features added with it).
    pub(super) fn loop_filter(&mut self, len: u64) -> Option<Filter> {
        if !self.filters_ok || !self.more.chance(0.5) {
            return None;
        }
        let index = Some(self.index_test(len));
        let element = if self.more.chance(0.5) {
            let op = *self.more.pick(&[Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge]);
            Some((op, self.filter_bound()))
        } else {
            None
        };
        Some(Filter {
            index,
            element,
            element_first: self.more.chance(0.5),
        })
    }

    /// `*i % m == k` (or `!=`), `*i != k`, `*i < k` .. of an index below
    /// `len`.
    fn index_test(&mut self, len: u64) -> (Option<u64>, Cmp, u64) {
        match self.more.below(3) {
            0 => {
                let m = *self.more.pick(&[2, 3]);
                let op = *self.more.pick(&[Cmp::Eq, Cmp::Ne]);
                (Some(m), op, self.more.below(m as usize) as u64)
            }
            1 => (None, Cmp::Ne, self.more.below(len as usize) as u64),
            _ => {
                let op = *self.more.pick(&[Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge]);
                (None, op, self.more.below(len as usize) as u64)
            }
        }
    }

    /// What the element is compared with: a literal, or a float in scope
    /// that no statement changes (not a reference).
    fn filter_bound(&mut self) -> Expr {
        let fixed: Vec<String> = self
            .floats()
            .into_iter()
            .filter(|(n, mutable)| !mutable && !self.is_ref(n))
            .map(|(n, _)| n)
            .collect();
        if !fixed.is_empty() && self.more.chance(0.4) {
            return Expr::Var(self.more.pick(&fixed).clone());
        }
        let v = (self.more.uniform(-1.0, 1.0) * 100.0).round() / 100.0;
        Expr::Lit(v, LitStyle::Plain)
    }
}

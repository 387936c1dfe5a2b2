//! Checkpointing of a loop: which iterations a differentiated loop runs
//! plainly, which it records, and which states it stores, so that its
//! reverse sweep needs a few stored states instead of every iteration's
//! values.
//!
//! `#[checkpoint(every = K)]` or `#[checkpoint(snapshots = S)]` on a `for`
//! loop of a `#[grad]` function makes the generated gradient walk a
//! [`Schedule`]: the forward sweep runs its [`Schedule::forward`] actions,
//! the reverse sweep its [`Schedule::reverse`] actions, each an
//! [`Action`] on the loop's state (its carried variables and the arrays it
//! changes), stored in [`States`]. Every iteration is recorded exactly
//! once and reversed right after, so the gradient is the one without
//! checkpointing, bit for bit: a recomputed iteration computes what the
//! first did, from the same state.
//!
//! - [`Schedule::every`]`(K, n)`: the reference texts' scheme. The forward
//!   sweep stores the state at every K-th iteration and records only the
//!   last segment; the reverse sweep restores each earlier segment's
//!   state, records its K iterations and reverses them. No iteration runs
//!   more than twice; ⌈n/K⌉ − 1 states are stored and K iterations
//!   recorded at a time.
//! - [`Schedule::binomial`]`(S, n)`: binomial checkpointing (Griewank and
//!   Walther, *Algorithm 799: Revolve*, ACM TOMS 26(1), 2000) with at most
//!   S states stored and one iteration recorded at a time. With r the
//!   least integer such that C(S + r, S) ≥ n, the plain iterations it runs
//!   in all number `r·n − C(S + r, r − 1)` ([`binomial_advances`]), the
//!   least any schedule with S states can do; n − 1 of them belong to the
//!   forward sweep, the rest ([`Schedule::recomputed`]) to the reverse.

/// One step of a checkpointing schedule. Iterations are numbered from 0,
/// `from..to` in the loop's own order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Store the state the loop holds now in slot `.0`.
    Store(usize),
    /// Set the loop's state to the one stored in slot `.0`.
    Restore(usize),
    /// Run iterations `from..to` without recording.
    Advance {
        /// The first iteration.
        from: usize,
        /// One past the last.
        to: usize,
    },
    /// Run iterations `from..to`, recording what their reverse reads.
    Record {
        /// The first iteration.
        from: usize,
        /// One past the last.
        to: usize,
    },
    /// Run the reverse of iterations `from..to`, last first, reading what
    /// the matching `Record` recorded.
    Reverse {
        /// The first iteration.
        from: usize,
        /// One past the last.
        to: usize,
    },
}

/// The actions of a checkpointed loop of `n` iterations, split between
/// the forward sweep (which ends with the state after the last iteration)
/// and the reverse sweep. The actions are generated as they are walked,
/// in memory that does not grow with `n`.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    scheme: Scheme,
    n: usize,
}

#[derive(Clone, Copy, Debug)]
enum Scheme {
    Every(usize),
    Binomial(usize),
}

impl Schedule {
    /// The state stored every `k` iterations; each segment recorded and
    /// reversed in turn. A `k` of zero (`every = n / 10` of a short run)
    /// is taken as one: the function itself runs with any count, and so
    /// does its gradient.
    pub fn every(k: usize, n: usize) -> Schedule {
        Schedule {
            scheme: Scheme::Every(k.max(1)),
            n,
        }
    }

    /// Binomial checkpointing with at most `snapshots` states stored
    /// (the one before the first iteration among them), one iteration
    /// recorded at a time, and the fewest plain iterations that allows.
    /// A count of zero is taken as one (the state before the first
    /// iteration, which every schedule stores).
    pub fn binomial(snapshots: usize, n: usize) -> Schedule {
        Schedule {
            scheme: Scheme::Binomial(snapshots.max(1)),
            n,
        }
    }

    /// Every action, forward sweep first.
    fn all(&self) -> Actions {
        let mut pending = std::collections::VecDeque::new();
        let mut tasks = Vec::new();
        match self.scheme {
            Scheme::Every(k) => tasks.push(Task::Every { k, next: 0 }),
            Scheme::Binomial(snapshots) if self.n > 0 => {
                pending.push_back(Action::Store(0));
                tasks.push(Task::Revolve {
                    from: 0,
                    to: self.n,
                    slot: 0,
                    free: snapshots - 1,
                });
            }
            Scheme::Binomial(_) => {}
        }
        Actions {
            n: self.n,
            pending,
            tasks,
        }
    }

    /// What the forward sweep runs: up to the recording of the last
    /// iterations, which leaves the loop's final state.
    pub fn forward(&self) -> impl Iterator<Item = Action> {
        let mut done = false;
        self.all().take_while(move |a| {
            let before = done;
            done |= matches!(a, Action::Record { .. });
            !before
        })
    }

    /// What the reverse sweep runs: the rest.
    pub fn reverse(&self) -> impl Iterator<Item = Action> {
        let mut seen = false;
        self.all().skip_while(move |a| {
            let before = seen;
            seen |= matches!(a, Action::Record { .. });
            !before
        })
    }

    /// The number of state slots the schedule uses.
    pub fn slots(&self) -> usize {
        match self.scheme {
            Scheme::Every(k) => self.n.div_ceil(k).saturating_sub(1),
            Scheme::Binomial(snapshots) => snapshots.min(self.n),
        }
    }

    /// The plain iterations the reverse sweep runs again.
    pub fn recomputed(&self) -> usize {
        steps(self.reverse(), |a| matches!(a, Action::Advance { .. }))
    }

    /// The iterations the reverse sweep records again.
    pub fn rerecorded(&self) -> usize {
        steps(self.reverse(), |a| matches!(a, Action::Record { .. }))
    }

    /// The most iterations recorded at once.
    pub fn longest_record(&self) -> usize {
        self.all()
            .map(|a| match a {
                Action::Record { from, to } => to - from,
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }
}

impl Schedule {
    /// Where each iteration's recording comes from, in the order the
    /// iterations run: the segments the schedule records, each with the
    /// iteration whose stored state the reverse sweep recomputes it from
    /// (`None` for the forward sweep's own recording). `#[grad(trace)]`
    /// shows them as [`Frame::Recomputed`](crate::trace::Frame::Recomputed).
    pub fn segments(&self) -> Segments {
        let mut stored: Vec<usize> = Vec::new();
        let mut at = 0;
        let mut origin = 0;
        let mut out = Vec::new();
        let mut reversing = false;
        for a in self.all() {
            match a {
                Action::Store(slot) => {
                    if stored.len() <= slot {
                        stored.resize(slot + 1, 0);
                    }
                    stored[slot] = at;
                }
                Action::Restore(slot) => {
                    at = stored[slot];
                    origin = at;
                }
                Action::Advance { to, .. } => at = to,
                Action::Record { from, to } => {
                    out.push(Segment {
                        from,
                        to,
                        restored: reversing.then_some(origin),
                    });
                    at = to;
                }
                Action::Reverse { .. } => reversing = true,
            }
        }
        out.sort_by_key(|s| s.from);
        Segments(out)
    }
}

/// A run of iterations a schedule records at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// The first iteration.
    pub from: usize,
    /// One past the last.
    pub to: usize,
    /// For iterations the reverse sweep computes again: the iteration whose
    /// stored state it starts from.
    pub restored: Option<usize>,
}

/// A schedule's [`Segment`]s, in the order of their iterations.
#[derive(Clone, Debug)]
pub struct Segments(Vec<Segment>);

impl Segments {
    /// The recomputed segment that starts at iteration `k`.
    pub fn recomputed_from(&self, k: usize) -> Option<Segment> {
        self.0
            .iter()
            .copied()
            .find(|s| s.from == k && s.restored.is_some())
    }

    /// Whether a recomputed segment ends with iteration `k`.
    pub fn recomputed_until(&self, k: usize) -> bool {
        self.0.iter().any(|s| s.to == k + 1 && s.restored.is_some())
    }

    /// Every segment.
    pub fn all(&self) -> &[Segment] {
        &self.0
    }
}

fn steps(actions: impl Iterator<Item = Action>, which: impl Fn(&Action) -> bool) -> usize {
    actions
        .filter(|a| which(a))
        .map(|a| match a {
            Action::Advance { from, to } | Action::Record { from, to } => to - from,
            _ => 0,
        })
        .sum()
}

/// Work left for [`Actions`] to turn into actions.
#[derive(Clone, Copy, Debug)]
enum Task {
    /// The reverse of iterations `from..to`, with the loop holding the
    /// state at `from`, also stored in slot `slot`, and `free` slots above
    /// it (Revolve's recursion).
    Revolve {
        from: usize,
        to: usize,
        slot: usize,
        free: usize,
    },
    /// With no slot free: iteration `j` and those before it, down to
    /// `from`, each from the state stored in `slot` (`first`: the loop
    /// holds that state already).
    Sweep {
        from: usize,
        j: usize,
        slot: usize,
        first: bool,
    },
    /// A restore of slot `.0`, once the tasks above it ran.
    Restored(usize),
    /// `every = k`: the segments from iteration `next` on.
    Every { k: usize, next: usize },
    /// `every = k`, reverse sweep: segment `index` and those before it.
    EveryBack { k: usize, index: usize },
}

/// A schedule's actions as an iterator: Revolve's recursion run with an
/// explicit stack, whose depth is bounded by the count of snapshots and
/// the number of repetitions, not by the loop's length.
#[derive(Debug)]
struct Actions {
    n: usize,
    pending: std::collections::VecDeque<Action>,
    tasks: Vec<Task>,
}

impl Iterator for Actions {
    type Item = Action;

    fn next(&mut self) -> Option<Action> {
        loop {
            if let Some(a) = self.pending.pop_front() {
                return Some(a);
            }
            let task = self.tasks.pop()?;
            self.expand(task);
        }
    }
}

impl Actions {
    fn expand(&mut self, task: Task) {
        match task {
            Task::Every { k, next } => {
                let n = self.n;
                if next >= n {
                    return;
                }
                let index = next / k;
                if next + k < n {
                    self.pending.push_back(Action::Store(index));
                    self.pending.push_back(Action::Advance {
                        from: next,
                        to: next + k,
                    });
                    self.tasks.push(Task::Every { k, next: next + k });
                } else {
                    self.pending.push_back(Action::Record { from: next, to: n });
                    self.pending
                        .push_back(Action::Reverse { from: next, to: n });
                    if index > 0 {
                        self.tasks.push(Task::EveryBack {
                            k,
                            index: index - 1,
                        });
                    }
                }
            }
            Task::EveryBack { k, index } => {
                let (from, to) = (index * k, index * k + k);
                self.pending.push_back(Action::Restore(index));
                self.pending.push_back(Action::Record { from, to });
                self.pending.push_back(Action::Reverse { from, to });
                if index > 0 {
                    self.tasks.push(Task::EveryBack {
                        k,
                        index: index - 1,
                    });
                }
            }
            Task::Revolve {
                from,
                to,
                slot,
                free,
            } => {
                let len = to - from;
                if len == 1 {
                    self.pending.push_back(Action::Record { from, to });
                    self.pending.push_back(Action::Reverse { from, to });
                } else if free == 0 {
                    self.tasks.push(Task::Sweep {
                        from,
                        j: to - 1,
                        slot,
                        first: true,
                    });
                } else {
                    let mid = from + split(len, free + 1);
                    self.pending.push_back(Action::Advance { from, to: mid });
                    self.pending.push_back(Action::Store(slot + 1));
                    // Popped last first: the right part, a restore, the
                    // left part.
                    self.tasks.push(Task::Revolve {
                        from,
                        to: mid,
                        slot,
                        free,
                    });
                    self.tasks.push(Task::Restored(slot));
                    self.tasks.push(Task::Revolve {
                        from: mid,
                        to,
                        slot: slot + 1,
                        free: free - 1,
                    });
                }
            }
            Task::Restored(slot) => self.pending.push_back(Action::Restore(slot)),
            Task::Sweep {
                from,
                j,
                slot,
                first,
            } => {
                if !first {
                    self.pending.push_back(Action::Restore(slot));
                }
                if j > from {
                    self.pending.push_back(Action::Advance { from, to: j });
                }
                self.pending
                    .push_back(Action::Record { from: j, to: j + 1 });
                self.pending
                    .push_back(Action::Reverse { from: j, to: j + 1 });
                if j > from {
                    self.tasks.push(Task::Sweep {
                        from,
                        j: j - 1,
                        slot,
                        first: false,
                    });
                }
            }
        }
    }
}

/// C(s + r, s), saturating.
fn beta(s: usize, r: usize) -> usize {
    let mut b: usize = 1;
    for i in 1..=s.min(r) {
        b = b.saturating_mul(s + r + 1 - i) / i;
    }
    b
}

/// How far to advance before storing the next state, for `len`
/// iterations and `snaps` states (the current one among them): Revolve's
/// rule, optimal for the count of plain iterations.
fn split(len: usize, snaps: usize) -> usize {
    let mut reps = 0;
    let mut range = 1;
    while range < len {
        reps += 1;
        range = range * (reps + snaps) / reps;
    }
    let bino1 = range * reps / (snaps + reps);
    let bino2 = if snaps > 1 {
        bino1 * snaps / (snaps + reps - 1)
    } else {
        1
    };
    let bino3 = match snaps {
        1 => 0,
        2 => 1,
        _ => bino2 * (snaps - 1) / (snaps + reps - 2),
    };
    let bino4 = bino2 * (reps - 1) / snaps;
    let bino5 = if snaps > 2 {
        bino3 * (snaps - 2) / reps
    } else {
        1
    };
    let m = if len <= bino1 + bino3 {
        bino4
    } else if len >= range - bino5 {
        bino1
    } else {
        len - bino2 - bino3
    };
    m.clamp(1, len - 1)
}

/// The fewest plain iterations that reversing `n` iterations with
/// `snapshots` stored states takes (forward sweep included):
/// `r·n − C(S + r, r − 1)`, r the least with C(S + r, S) ≥ n.
pub fn binomial_advances(snapshots: usize, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    let mut r = 0;
    while beta(snapshots, r) < n {
        r += 1;
    }
    r * n - beta(snapshots + 1, r - 1)
}

/// The index of iteration `by` of a loop over `start..`: `start + by` in
/// the range's own integer type.
///
/// # Panics
///
/// If `by` does not fit that type, which a range's iteration count rules
/// out.
#[inline]
pub fn offset<T: Copy + core::ops::Add<Output = T> + TryFrom<usize>>(start: T, by: usize) -> T {
    match T::try_from(by) {
        Ok(k) => start + k,
        Err(_) => panic!("iteration {by} of a checkpointed loop does not fit its index type"),
    }
}

/// The stored states of a checkpointed loop, one per slot.
#[derive(Debug)]
pub struct States<T> {
    slots: Vec<Option<T>>,
}

impl<T> States<T> {
    /// Room for `slots` states.
    pub fn new(slots: usize) -> Self {
        States {
            slots: (0..slots).map(|_| None).collect(),
        }
    }

    /// Stores `state` in `slot`.
    #[inline]
    pub fn store(&mut self, slot: usize, state: T) {
        self.slots[slot] = Some(state);
    }

    /// The state in `slot`.
    ///
    /// # Panics
    ///
    /// If nothing was stored there, which a [`Schedule`] never asks.
    #[inline]
    pub fn get(&self, slot: usize) -> &T {
        match &self.slots[slot] {
            Some(s) => s,
            None => panic!("checkpoint slot {slot} restored before it was stored"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a schedule on a model loop: the state is the iteration count;
    /// checks that every iteration is recorded from its own state,
    /// reversed right after its recording, last first, exactly once.
    fn replay(s: &Schedule, n: usize) -> (usize, usize) {
        let mut state = 0;
        let mut stored = vec![None; s.slots()];
        let mut recorded: Option<(usize, usize)> = None;
        let mut next_reversed = n;
        let mut plain = 0;
        for a in s.forward().chain(s.reverse()) {
            match a {
                Action::Store(k) => stored[k] = Some(state),
                Action::Restore(k) => state = stored[k].expect("stored"),
                Action::Advance { from, to } => {
                    assert_eq!(state, from);
                    plain += to - from;
                    state = to;
                }
                Action::Record { from, to } => {
                    assert_eq!(state, from);
                    assert!(recorded.is_none());
                    recorded = Some((from, to));
                    state = to;
                }
                Action::Reverse { from, to } => {
                    assert_eq!(recorded.take(), Some((from, to)));
                    assert_eq!(to, next_reversed);
                    next_reversed = from;
                }
            }
        }
        assert_eq!(next_reversed, 0);
        // The forward sweep leaves the final state.
        let mut state = 0;
        for a in s.forward() {
            match a {
                Action::Advance { to, .. } | Action::Record { to, .. } => state = to,
                Action::Restore(_) | Action::Reverse { .. } => panic!("in the forward sweep"),
                Action::Store(_) => {}
            }
        }
        assert_eq!(state, n);
        (plain, s.slots())
    }

    #[test]
    fn every_k_stores_each_segment_and_runs_no_iteration_a_third_time() {
        for (k, n) in [(1, 1), (3, 10), (4, 8), (100, 10_000), (7, 3), (5, 0)] {
            let s = Schedule::every(k, n);
            let (plain, slots) = replay(&s, n);
            let segments = n.div_ceil(k);
            assert_eq!(slots, segments.saturating_sub(1));
            assert_eq!(s.recomputed(), 0);
            // The forward sweep runs every segment but the last plainly.
            assert_eq!(plain, n - (n - (segments.max(1) - 1) * k).min(n));
            assert!(s.longest_record() <= k);
        }
    }

    #[test]
    fn binomial_runs_the_fewest_plain_iterations() {
        for snapshots in 1..=6 {
            for n in 1..=120 {
                let s = Schedule::binomial(snapshots, n);
                let (plain, slots) = replay(&s, n);
                assert!(slots <= snapshots, "S = {snapshots}, n = {n}");
                assert_eq!(
                    plain,
                    binomial_advances(snapshots, n),
                    "S = {snapshots}, n = {n}"
                );
                assert_eq!(s.recomputed(), plain - (n - 1));
                assert_eq!(s.longest_record(), 1);
            }
        }
    }

    #[test]
    fn binomial_matches_the_formula_at_scale() {
        // n = 10,000 with 10 and 20 states, as in BENCHMARKS.md.
        for (snapshots, n) in [(10, 10_000), (20, 10_000), (3, 1_000)] {
            let s = Schedule::binomial(snapshots, n);
            let (plain, _) = replay(&s, n);
            assert_eq!(plain, binomial_advances(snapshots, n));
        }
        // The closed form, with r found by search.
        let r = (0..).find(|&r| beta(10, r) >= 10_000).unwrap();
        assert_eq!(binomial_advances(10, 10_000), r * 10_000 - beta(11, r - 1));
    }

    #[test]
    fn one_snapshot_reverses_from_the_start_each_time() {
        let n = 6;
        let s = Schedule::binomial(1, n);
        let (plain, slots) = replay(&s, n);
        assert_eq!(slots, 1);
        assert_eq!(plain, n * (n - 1) / 2);
    }

    #[test]
    fn segments_say_where_each_recording_starts() {
        // every = 2 over 7: 0..2, 2..4, 4..6 recomputed from their starts,
        // 6..7 recorded by the forward sweep.
        let s = Schedule::every(2, 7).segments();
        let got: Vec<(usize, usize, Option<usize>)> =
            s.all().iter().map(|g| (g.from, g.to, g.restored)).collect();
        assert_eq!(
            got,
            [
                (0, 2, Some(0)),
                (2, 4, Some(2)),
                (4, 6, Some(4)),
                (6, 7, None)
            ]
        );
        assert_eq!(s.recomputed_from(2).map(|g| g.to), Some(4));
        assert!(s.recomputed_until(3));
        assert!(!s.recomputed_until(6));
        // Binomial: one iteration at a time, each from a stored state at or
        // before it, the last recorded by the forward sweep.
        for n in 1..40 {
            let s = Schedule::binomial(3, n).segments();
            assert_eq!(s.all().len(), n);
            for (k, g) in s.all().iter().enumerate() {
                assert_eq!((g.from, g.to), (k, k + 1));
                assert_eq!(g.restored.is_none(), k + 1 == n);
                assert!(g.restored.map_or(true, |r| r <= k));
            }
        }
    }

    #[test]
    fn states_hold_what_was_stored() {
        let mut states = States::new(2);
        states.store(1, (2.0, vec![1.0]));
        assert_eq!(states.get(1), &(2.0, vec![1.0]));
    }
}

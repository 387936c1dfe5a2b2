//! A differential tester of `#[grad]`.
//!
//! It generates random programs strictly inside the subset the README
//! documents ([`gen`], every construct behind a feature of
//! [`features::FEATURES`]), writes them into one crate under
//! `target/difftest/<seed>/` (under `$DIFFTEST_OUT` instead if set:
//! [`output_root`]) together with a twin of each body over a
//! forward-mode dual number (`templates/dual.rs`), builds it once and runs
//! it ([`driver`]). Each program is then classified ([`driver::Class`]):
//! the value of `f_grad` must equal `f` bit for bit; every gradient entry
//! must match the dual-number oracle to `|g − o| ≤ 1e-9·max(|g|, |o|) +
//! 1e-12`; and the Taylor remainder |f(x+hv) − f(x) − h⟨g, v⟩| must shrink
//! as h² from h = 1e-3 to 1e-4 wherever the segment stays on one smooth
//! piece. Where a fallible `f` (returning `Result<f64, String>` or
//! `Option<f64>`) fails, `f_grad` must fail with the same error (kind
//! `wrong-error`). Every program whose constructs `#[grad(trace)]` supports is
//! generated under it ([`trace`]), and `f_trace` is checked too: its value
//! equal to `f`'s bit for bit, its gradient (the trace's input nodes,
//! summed by name) equal to `f_grad`'s to the oracle's tolerance. Every
//! program whose constructs forward mode supports has `f` under
//! `#[grad(jvp)]` ([`jvp`]), and `f_jvp` is checked along three tangents
//! per test point: its value equal to `f`'s bit for bit, its tangent equal
//! to `f_grad`'s gradient dotted with the tangent to 1e-9 relative (class
//! `jvp-wrong`, "_jvp differs from _grad", otherwise). Every program with
//! at most 8 float inputs whose constructs `#[grad(hessian)]` takes has a
//! generic twin of its functions, `f_gen` under `#[grad(hessian)]`
//! ([`hessian`]): `f_gen_hessian`'s value must equal `f`'s bit for bit,
//! its gradient `f_grad`'s, its matrix be symmetric and equal a
//! hyper-dual twin's (num-dual's `HyperDual64`, `templates/hyper.rs`) to
//! 1e-8 relative where no decision is taken at a tie, and `f_gen_hvp`
//! along two directions per point equal that matrix times the direction
//! (class `hessian-wrong`, "_hessian differs from the oracle", otherwise). A
//! program whose `f` has a `#[checkpoint(..)]` loop is also written
//! without the attribute (`f_nockpt`), and `f_grad` must equal
//! `f_nockpt_grad` bit for bit (kind `checkpoint`). A
//! failing program can be shrunk ([`shrink`]) to a minimal one that fails
//! the same way.
//!
//! ```text
//! cargo run -p autodiff-difftest --release -- --seed 1 --count 500 [--features-off a,b] [--shrink]
//! ```

pub mod ast;
pub mod check;
pub mod driver;
pub mod features;
pub mod gen;
pub mod hessian;
pub mod jvp;
pub mod render;
pub mod rng;
pub mod shrink;
pub mod trace;

use ast::Program;
use driver::{Class, Crate, Outcome, CLASSES};
use features::Features;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Generator features that still make `#[grad]` fail, with why. The CI
/// test switches them off; fix the bug, delete its line, and the test
/// covers the construct again. Nothing else is switched off.
pub const KNOWN_FAILING: &[(&str, &str)] = &[];

/// The names in [`KNOWN_FAILING`].
pub fn known_failing() -> Vec<&'static str> {
    KNOWN_FAILING.iter().map(|(f, _)| *f).collect()
}

#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    pub count: usize,
    pub features: Features,
    /// Shrink this many failing programs of each class and kind.
    pub shrink_per_kind: usize,
    pub verbose: bool,
    /// The autodiff checkout to test (default: this workspace).
    pub autodiff: Option<PathBuf>,
    /// The checker's self-test ([`driver::Crate::perturb`]).
    pub perturb: bool,
    /// The trace check's self-test ([`driver::Crate::perturb_trace`]).
    pub perturb_trace: bool,
    /// The hessian check's self-test ([`driver::Crate::perturb_hessian`]).
    pub perturb_hessian: bool,
}

/// The autodiff workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.join("../..")
        .canonicalize()
        .unwrap_or_else(|_| here.join("../.."))
}

/// Where the generated crates (`difftest/<seed>`) and their target
/// directory (`difftest-target`) go: `$DIFFTEST_OUT` if set (so that two
/// batches of one seed, from two checkouts or two people, do not write
/// the same files), else the workspace's `target/`.
pub fn output_root() -> PathBuf {
    std::env::var_os("DIFFTEST_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

pub struct Report {
    pub seed: u64,
    pub dir: PathBuf,
    pub programs: Vec<Program>,
    pub outcomes: Vec<Outcome>,
    /// Shrunk failures: the original index, the minimal program, its outcome.
    pub shrunk: Vec<(usize, Program, Outcome)>,
    pub seconds: f64,
    pub features_off: Vec<&'static str>,
}

impl Report {
    pub fn count(&self, c: Class) -> usize {
        self.outcomes.iter().filter(|o| o.class == c).count()
    }

    pub fn passed(&self) -> usize {
        self.count(Class::Pass)
    }

    pub fn failed(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|o| o.class.is_failure())
            .count()
    }

    /// `difftest: N passed, N failed`, a table per class, the failures.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "difftest: {} passed, {} failed\n",
            self.passed(),
            self.failed()
        );
        let _ = writeln!(
            s,
            "seed {}, {} programs, {:.0}s, features off: {}",
            self.seed,
            self.outcomes.len(),
            self.seconds,
            if self.features_off.is_empty() {
                "none".to_string()
            } else {
                self.features_off.join(",")
            }
        );
        let _ = writeln!(s, "\n{:<52} {:>8}", "class", "programs");
        for &c in CLASSES {
            let _ = writeln!(s, "{:<52} {:>8}", c.describe(), self.count(c));
        }
        // Per class, the kinds and the programs.
        let mut by: BTreeMap<(Class, String), Vec<usize>> = BTreeMap::new();
        for (i, o) in self.outcomes.iter().enumerate() {
            if o.class.is_failure() {
                by.entry((o.class, o.kind.clone())).or_default().push(i);
            }
        }
        if !by.is_empty() {
            s.push_str("\nfailures by class and kind (programs):\n");
            for ((c, k), is) in &by {
                let names: Vec<String> = is.iter().take(12).map(|i| format!("p{i:04}")).collect();
                let more = if is.len() > 12 { " .." } else { "" };
                let _ = writeln!(
                    s,
                    "  {:<22} {:<60} {:>4}  {}{more}",
                    c.name(),
                    k,
                    is.len(),
                    names.join(" ")
                );
            }
            let _ = writeln!(
                s,
                "failing programs written to {}",
                self.dir.join("failures").display()
            );
        }
        let taylor: usize = self
            .outcomes
            .iter()
            .filter(|o| o.class == Class::Pass)
            .filter_map(|o| o.detail.split_whitespace().nth(3)?.parse::<usize>().ok())
            .sum();
        let _ = writeln!(
            s,
            "Taylor check done at {taylor} of {} test points of passing programs (skipped where not smooth)",
            self.passed() * 3
        );
        let traced = self.programs.iter().filter(|p| trace::traced(p)).count();
        let features = Features::without(&self.features_off).unwrap_or_default();
        let trace_points: usize = self
            .outcomes
            .iter()
            .filter(|o| o.class == Class::Pass)
            .filter_map(|o| o.detail.rsplit(' ').next()?.parse::<usize>().ok())
            .sum();
        let _ = writeln!(
            s,
            "f_trace checked at {trace_points} test points of passing programs; {} of {} programs under #[grad(trace)] ({} not: {})",
            traced,
            self.programs.len(),
            self.programs.len() - traced,
            trace::untraced_reasons(&self.programs, &features)
        );
        let under_jvp = self.programs.iter().filter(|p| jvp::checked(p)).count();
        let (mut jvp_programs, mut jvp_points, mut jvp_dirs) = (0, 0, 0);
        for o in self.outcomes.iter().filter(|o| o.class == Class::Pass) {
            let Some((_, rest)) = o.detail.split_once("f_jvp checked at ") else {
                continue;
            };
            let words: Vec<&str> = rest.split_whitespace().collect();
            let points = words.first().and_then(|w| w.parse::<usize>().ok());
            let dirs = words.get(3).and_then(|w| w.parse::<usize>().ok());
            if let (Some(points), Some(dirs)) = (points, dirs) {
                jvp_programs += usize::from(points > 0);
                jvp_points += points;
                jvp_dirs += dirs;
            }
        }
        let _ = writeln!(
            s,
            "f_jvp checked in {jvp_programs} passing programs at {jvp_points} test points ({jvp_dirs} directions) against f and f_grad; {} of {} programs under #[grad(jvp)] ({} not: {})",
            under_jvp,
            self.programs.len(),
            self.programs.len() - under_jvp,
            jvp::unchecked_reasons(&self.programs, &features)
        );
        let under_hessian = self.programs.iter().filter(|p| hessian::checked(p)).count();
        let (mut h_programs, mut h_points, mut h_oracle, mut h_dirs) = (0, 0, 0, 0);
        let (mut h_ties, mut h_infinite) = (0, 0);
        let mut h_worst: f64 = 0.0;
        for o in self.outcomes.iter().filter(|o| o.class == Class::Pass) {
            let Some((_, rest)) = o.detail.split_once("f_gen_hessian checked at ") else {
                continue;
            };
            let words: Vec<&str> = rest.split_whitespace().collect();
            let num = |k: usize| {
                words
                    .get(k)
                    .and_then(|w| w.trim_start_matches('(').parse::<usize>().ok())
            };
            // `3 points (2 against the oracle, 1 at a tie, 0 not finite)
            // with f_gen_hvp along 6 directions, largest difference from
            // the oracle 1.2e-3 of its tolerance`
            if let (Some(points), Some(oracle), Some(ties), Some(infinite), Some(dirs)) =
                (num(0), num(2), num(6), num(10), num(16))
            {
                h_programs += usize::from(points > 0);
                h_points += points;
                h_oracle += oracle;
                h_ties += ties;
                h_infinite += infinite;
                h_dirs += dirs;
            }
            if let Some(w) = words.get(23).and_then(|w| w.parse::<f64>().ok()) {
                h_worst = h_worst.max(w);
            }
        }
        let _ = writeln!(
            s,
            "f_gen_hessian checked in {h_programs} passing programs at {h_points} test points ({h_oracle} against the hyper-dual oracle, {h_ties} not: a decision at a tie, {h_infinite} not: the oracle's matrix not finite), f_gen_hvp along {h_dirs} directions; largest difference from the oracle {h_worst:.2e} of its tolerance; {} of {} programs with a generic twin under #[grad(hessian)] ({} not: {})",
            under_hessian,
            self.programs.len(),
            self.programs.len() - under_hessian,
            hessian::unchecked_reasons(&self.programs, &features)
        );
        let used: Vec<String> = features::COUNTED
            .iter()
            .map(|f| {
                let n = self
                    .programs
                    .iter()
                    .filter(|p| features::counted(p).contains(f))
                    .count();
                format!("{f} {n}")
            })
            .collect();
        let _ = writeln!(
            s,
            "programs using (of {}): {}",
            self.programs.len(),
            used.join(", ")
        );
        let error_points: usize = self
            .outcomes
            .iter()
            .filter(|o| o.class == Class::Pass)
            .filter_map(|o| {
                let (_, rest) = o.detail.split_once("compared at ")?;
                rest.split(';').next()?.trim().parse::<usize>().ok()
            })
            .sum();
        let fallible = self
            .programs
            .iter()
            .filter(|p| p.main.ret.fallible())
            .count();
        let _ = writeln!(
            s,
            "{fallible} programs with a fallible f; f_grad failed with f's error at {error_points} test points where f failed"
        );
        let ckpt = self
            .programs
            .iter()
            .filter(|p| render::checkpointed(&p.main))
            .count();
        let _ = writeln!(
            s,
            "{ckpt} of {} programs with a #[checkpoint(..)] loop, f_grad compared bit for bit with f_nockpt_grad (the same function without it)",
            self.programs.len()
        );
        let wrong: Vec<&Outcome> = self
            .outcomes
            .iter()
            .filter(|o| o.kind == "wrong-grad")
            .collect();
        if !wrong.is_empty() {
            let count = |s: &str| {
                wrong
                    .iter()
                    .filter(|o| o.detail.contains(&format!("of f_grad's gradient: {s}")))
                    .count()
            };
            let _ = writeln!(
                s,
                "wrong gradients: the Taylor check flags {} of {} on its own ({} inconclusive: not smooth or ill-conditioned)",
                count("FAILS"),
                wrong.len(),
                count("skipped")
            );
        }
        for (i, p, o) in &self.shrunk {
            // A failure of the hessian check shows the generic twin too.
            let twin = if o.class == Class::HessianWrong && p.hessian {
                format!(
                    "\n// the generic twin (src/hessian.rs)\n{}",
                    render::gen_code(p, "#[grad]", "")
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "\n== shrunk p{i:04} ({}, {}): {} nodes\n{}{twin}\n-- {}",
                o.class.name(),
                o.kind,
                p.size(),
                render::user_code(p, "#[grad]"),
                o.detail
            );
        }
        s
    }
}

/// Generates, builds, runs and classifies a batch, writes the failing
/// programs, and shrinks as asked.
pub fn run(cfg: &Config) -> Report {
    let start = Instant::now();
    let root = workspace_root();
    let out = output_root();
    let dir = out.join("difftest").join(cfg.seed.to_string());
    let programs: Vec<Program> = (0..cfg.count)
        .map(|i| {
            let seed = rng::program_seed(cfg.seed, i as u64);
            let p = gen::generate(seed, &cfg.features);
            if let Err(e) = check::validate(&p) {
                panic!(
                    "generator bug: program {i} (seed {seed}) is ill-formed: {e}\n{}",
                    render::user_code(&p, "#[grad]")
                );
            }
            p
        })
        .collect();
    let krate = Crate {
        dir: dir.clone(),
        // A binary of its own per seed: batches of different seeds may run
        // at once in the shared target directory.
        name: format!("difftest-gen-{}", cfg.seed),
        root: cfg.autodiff.clone().unwrap_or_else(|| root.clone()),
        target: out.join("difftest-target"),
        verbose: cfg.verbose,
        perturb: cfg.perturb,
        perturb_trace: cfg.perturb_trace,
        perturb_hessian: cfg.perturb_hessian,
    };
    let outcomes = krate.evaluate(&programs);
    let features_off = cfg.features.off();
    let failures = dir.join("failures");
    let _ = std::fs::remove_dir_all(&failures);
    for (i, (p, o)) in programs.iter().zip(&outcomes).enumerate() {
        if o.class.is_failure() {
            let _ = std::fs::create_dir_all(&failures);
            let header = header(cfg.seed, i, p, o, &features_off);
            let text = render::reproducer(p, o.point, &header);
            let _ = std::fs::write(
                failures.join(format!("p{i:04}-{}.rs", o.class.name())),
                text,
            );
        }
    }
    let mut shrunk = Vec::new();
    if cfg.shrink_per_kind > 0 {
        let mut done: BTreeMap<(Class, String), usize> = BTreeMap::new();
        let shrink_crate = Crate {
            dir: dir.join("shrink"),
            name: format!("difftest-shrink-{}", cfg.seed),
            ..krate.clone()
        };
        let mut seen_minimal: BTreeSet<String> = BTreeSet::new();
        for (i, (p, o)) in programs.iter().zip(&outcomes).enumerate() {
            if !o.class.is_failure() || o.class == Class::GeneratorBug {
                continue;
            }
            let n = done.entry((o.class, o.kind.clone())).or_insert(0);
            if *n >= cfg.shrink_per_kind {
                continue;
            }
            *n += 1;
            if cfg.verbose {
                eprintln!(
                    "difftest: shrinking p{i:04} ({}, {} nodes)",
                    o.class.name(),
                    p.size()
                );
            }
            let (min, mo) = shrink::shrink(&shrink_crate, p, o, cfg.verbose);
            let code = render::user_code(&min, "#[grad]");
            if !seen_minimal.insert(code) {
                continue;
            }
            let header = header(cfg.seed, i, &min, &mo, &features_off);
            let text = render::reproducer(&min, mo.point, &header);
            let _ = std::fs::create_dir_all(&failures);
            let _ = std::fs::write(
                failures.join(format!("p{i:04}-{}.min.rs", o.class.name())),
                text,
            );
            shrunk.push((i, min, mo));
        }
    }
    Report {
        seed: cfg.seed,
        dir,
        programs,
        outcomes,
        shrunk,
        seconds: start.elapsed().as_secs_f64(),
        features_off,
    }
}

fn header(seed: u64, i: usize, p: &Program, o: &Outcome, off: &[&str]) -> String {
    format!(
        "difftest seed {seed}, program {i} (program seed {}), features off: [{}]\nclass: {} ({})\nkind: {}\ntest point {}\n{}",
        p.seed,
        off.join(","),
        o.class.name(),
        o.class.describe(),
        o.kind,
        o.point,
        o.detail
    )
}

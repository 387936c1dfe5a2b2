//! Building and running a batch: one generated crate, one module per
//! program, built once (then again without the programs whose errors the
//! first build attributed to them), run once, each program classified.

use crate::ast::Program;
use crate::render;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What happened to one program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    Pass,
    /// The value at a test point is not finite (or the derivative is not):
    /// not counted.
    Rejected,
    /// The value of `f_grad` differs from `f`, or a gradient entry from the
    /// oracle, or the Taylor check fails, or (kind `wrong-error`) a fallible
    /// `f_grad` fails otherwise than `f`, or (kind `checkpoint`) a function
    /// with a `#[checkpoint(..)]` loop has a gradient other than, bit for
    /// bit, the same function's without the attribute.
    Wrong,
    /// `#[grad]` refused the function with a compile error of its own.
    Refused,
    /// rustc rejected the code `#[grad]` generated.
    GeneratedCodeError,
    /// "internal error in `#[grad]`": the macro panicked.
    MacroPanic,
    /// `f` ran, `f_grad` panicked.
    GradPanic,
    /// The process died (or hung) inside `f_grad`.
    GradCrash,
    /// `f_grad` passed, but `f_trace` (`#[grad(trace)]`) disagrees: its
    /// value differs from `f`'s bit for bit, its gradient from `f_grad`'s
    /// beyond the oracle's tolerance, its input nodes are not the
    /// function's inputs, it panics or crashes, or `trace` is refused or
    /// does not compile where plain `#[grad]` does.
    TraceWrong,
    /// `f_grad` passed, but `f_jvp` (`#[grad(jvp)]`) disagrees: its value
    /// differs from `f`'s bit for bit, or its tangent from `f_grad`'s
    /// gradient dotted with the same tangents beyond the tolerance of
    /// [`crate::jvp`], or it panics or crashes. A WRONG DERIVATIVE of
    /// forward mode.
    JvpWrong,
    /// `f_grad` passed, but the generic twin under `#[grad(hessian)]`
    /// (src/hessian.rs) disagrees: `f_gen_hessian`'s value differs from
    /// `f`'s bit for bit, its gradient from `f_grad`'s, its matrix is not
    /// symmetric or differs from the hyper-dual oracle's, `f_gen_hvp`'s
    /// H·v from that matrix's or the oracle's, either panics or crashes, or
    /// the twin does not compile where the program does (a `#[grad]`
    /// refusal, rustc's error in its expansion, a macro panic). A WRONG
    /// SECOND DERIVATIVE, or second order refused.
    HessianWrong,
    /// The tester's own fault: `f` or its twin does not compile or panics,
    /// or the twin's value differs from `f`'s.
    GeneratorBug,
}

pub const CLASSES: &[Class] = &[
    Class::Pass,
    Class::Rejected,
    Class::Wrong,
    Class::Refused,
    Class::GeneratedCodeError,
    Class::MacroPanic,
    Class::GradPanic,
    Class::GradCrash,
    Class::TraceWrong,
    Class::JvpWrong,
    Class::HessianWrong,
    Class::GeneratorBug,
];

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Pass => "pass",
            Class::Rejected => "rejected",
            Class::Wrong => "wrong",
            Class::Refused => "refused",
            Class::GeneratedCodeError => "generated-code-error",
            Class::MacroPanic => "macro-panic",
            Class::GradPanic => "grad-panic",
            Class::GradCrash => "grad-crash",
            Class::TraceWrong => "trace-wrong",
            Class::JvpWrong => "jvp-wrong",
            Class::HessianWrong => "hessian-wrong",
            Class::GeneratorBug => "generator-bug",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Class::Pass => "pass",
            Class::Rejected => "rejected: value not finite (not counted)",
            Class::Wrong => "wrong value or gradient",
            Class::Refused => "refused although documented (#[grad] error)",
            Class::GeneratedCodeError => "rustc error inside the generated code",
            Class::MacroPanic => "macro panic (internal error in #[grad])",
            Class::GradPanic => "run-time panic only in _grad",
            Class::GradCrash => "crash or hang inside _grad",
            Class::TraceWrong => "_trace differs from f / _grad, or fails alone",
            Class::JvpWrong => "_jvp differs from _grad",
            Class::HessianWrong => "_hessian differs from the oracle, or fails alone",
            Class::GeneratorBug => "generator bug (the tester's own)",
        }
    }

    pub fn is_failure(self) -> bool {
        !matches!(self, Class::Pass | Class::Rejected)
    }
}

#[derive(Clone, Debug)]
pub struct Outcome {
    pub class: Class,
    /// A finer kind within the class: `wrong-grad`, `wrong-value`,
    /// `taylor`, or the first words of a compile error.
    pub kind: String,
    /// The test point that failed.
    pub point: usize,
    pub detail: String,
}

impl Outcome {
    fn new(class: Class, kind: &str, point: usize, detail: String) -> Outcome {
        Outcome {
            class,
            kind: kind.to_string(),
            point,
            detail,
        }
    }
}

/// Where a generated crate lives and what it builds against.
#[derive(Clone, Debug)]
pub struct Crate {
    /// The crate's directory (`target/difftest/<seed>` or below).
    pub dir: PathBuf,
    /// The package name (the binary's name).
    pub name: String,
    /// The autodiff workspace root.
    pub root: PathBuf,
    /// The shared target directory `target/difftest-target`.
    pub target: PathBuf,
    pub verbose: bool,
    /// Runs the checker's self-test: every gradient's first entry off by
    /// 1e-3 (relative), which every program must then report.
    pub perturb: bool,
    /// Runs the trace check's self-test: `f_trace`'s value one bit off, or
    /// its first gradient entry off by 1e-3, which every traced program
    /// must then report as [`Class::TraceWrong`].
    pub perturb_trace: bool,
    /// Runs the hessian check's self-test (`DIFFTEST_PERTURB_HESSIAN` for
    /// the binary: src/hessian.rs), which every program under `hessian`
    /// must then report as [`Class::HessianWrong`].
    pub perturb_hessian: bool,
}

fn cargo() -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut c = Command::new(cargo);
    // The generated crate allows warnings itself; flags of an outer build
    // (CI's `-D warnings`) would also rebuild every dependency.
    for v in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET_DIR",
        // The manifest's profile decides.
        "CARGO_INCREMENTAL",
    ] {
        c.env_remove(v);
    }
    c.env("CARGO_TERM_COLOR", "never");
    c
}

fn module_name(i: usize) -> String {
    format!("p{i:04}")
}

/// What a build gave ([`Crate::build`]).
struct Built {
    ok: bool,
    /// The errors per module of the programs' crate.
    errors: BTreeMap<usize, Vec<CompileError>>,
    /// The errors per module of the hessian crate.
    hessian_errors: BTreeMap<usize, Vec<CompileError>>,
    /// The errors no module could be blamed for.
    unattributed: Vec<String>,
    stderr: String,
}

/// A compile error, attributed to a program.
#[derive(Clone, Debug)]
struct CompileError {
    message: String,
    line: usize,
    rendered: String,
}

impl Crate {
    fn write_if_changed(path: &Path, text: &str) {
        if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
            std::fs::write(path, text)
                .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        }
    }

    fn write_scaffold(&self) {
        std::fs::create_dir_all(self.dir.join("src")).expect("creating the crate directory");
        let manifest = format!(
            r#"# Generated by autodiff-difftest: programs under #[grad], their dual-number twins.
[package]
name = "{name}"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
autodiff = {{ path = "{root}" }}

[features]
# Only the plain functions and their twins: checks that a program is valid Rust.
plain = []
# #[grad] without `trace`: checks whether a compile error is _trace's own.
notrace = []

# `hessian/`: the generic twins under #[grad(hessian)] and their oracles
# (src/hessian.rs), a crate of their own, built beside this one (rustc
# checks one crate on one core).
[workspace]
members = ["hessian"]

[profile.dev]
debug = false
# One clean build of a large crate: incremental compilation's bookkeeping
# costs a fifth of it and saves nothing (with the `_trace` functions of
# #[grad(trace)], 37 s rather than 46 s for 500 programs on 2 cores).
# 256 units, as incremental builds have: 16 would be slower still.
incremental = false
codegen-units = 256
# The macro expands every program: optimise it.
[profile.dev.build-override]
opt-level = 3
"#,
            name = self.name,
            root = self.root.display()
        );
        Self::write_if_changed(&self.dir.join("Cargo.toml"), &manifest);
        let lock = self.dir.join("Cargo.lock");
        if !lock.exists() {
            // The workspace's versions, so that no resolution is needed.
            let _ = std::fs::copy(self.root.join("Cargo.lock"), &lock);
        }
        Self::write_if_changed(
            &self.dir.join("src/dual.rs"),
            include_str!("../templates/dual.rs"),
        );
        Self::write_if_changed(
            &self.dir.join("src/harness.rs"),
            include_str!("../templates/harness.rs"),
        );
        let h = self.hessian_dir();
        std::fs::create_dir_all(h.join("src")).expect("creating the hessian crate's directory");
        let manifest = format!(
            r#"# Generated by autodiff-difftest: the generic twins of the programs under
# #[grad(hessian)], their dual- and hyper-dual-number twins (src/hessian.rs).
[package]
name = "{name}"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
autodiff = {{ path = "{root}" }}
# The second-order oracle's hyper-dual numbers; without nalgebra, which
# num-dual needs only for its vector types.
num-dual = {{ version = "0.15", default-features = false }}
"#,
            name = self.hessian_name(),
            root = self.root.display()
        );
        Self::write_if_changed(&h.join("Cargo.toml"), &manifest);
        Self::write_if_changed(&h.join("src/dual.rs"), include_str!("../templates/dual.rs"));
        Self::write_if_changed(
            &h.join("src/hyper.rs"),
            include_str!("../templates/hyper.rs"),
        );
        Self::write_if_changed(
            &h.join("src/harness.rs"),
            include_str!("../templates/harness_hessian.rs"),
        );
    }

    /// The hessian check's crate (`hessian/` in the crate's directory).
    fn hessian_dir(&self) -> PathBuf {
        self.dir.join("hessian")
    }

    /// Its package's (and binary's) name.
    fn hessian_name(&self) -> String {
        format!("{}-hessian", self.name)
    }

    fn write_main(&self, active: &BTreeSet<usize>) {
        Self::write_main_at(&self.dir, "", "PROG", active);
    }

    /// The hessian crate's `main.rs`, of the programs `active`.
    fn write_hessian_main(&self, active: &BTreeSet<usize>) {
        Self::write_main_at(&self.hessian_dir(), "mod hyper;\n", "PROG_H", active);
    }

    /// A `main.rs` in the crate at `dir` that declares the programs `active`
    /// (and `modules` beside the harness) and runs their `program` tables.
    fn write_main_at(dir: &Path, modules: &str, program: &str, active: &BTreeSet<usize>) {
        let mut s = format!("#![allow(warnings)]\nmod dual;\nmod harness;\n{modules}");
        for i in active {
            let _ = writeln!(s, "mod {};", module_name(*i));
        }
        s.push_str("\nfn main() {\n    harness::main(&[\n");
        for i in active {
            let _ = writeln!(s, "        ({i}, {}::{program}),", module_name(*i));
        }
        s.push_str("    ]);\n}\n");
        Self::write_if_changed(&dir.join("src/main.rs"), &s);
    }

    /// Builds (both crates, or checks the programs' with `feature`);
    /// returns whether it succeeded, the errors per module index (of the
    /// programs' crate, and of the hessian crate's), the errors no module
    /// could be blamed for, and rustc's stderr.
    fn build(&self, feature: Option<&str>) -> Built {
        let mut cmd = cargo();
        cmd.arg(if feature.is_some() { "check" } else { "build" })
            .arg("--message-format=json")
            .arg("--manifest-path")
            .arg(self.dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(&self.target);
        match feature {
            Some(f) => {
                cmd.arg("--features").arg(f);
            }
            None => {
                cmd.arg("--workspace");
            }
        }
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("running cargo: {e}"));
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let mut errors: BTreeMap<usize, Vec<CompileError>> = BTreeMap::new();
        let mut hessian_errors: BTreeMap<usize, Vec<CompileError>> = BTreeMap::new();
        let mut unattributed = Vec::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if v["reason"] != "compiler-message" {
                continue;
            }
            let m = &v["message"];
            let level = m["level"].as_str().unwrap_or("");
            if !level.starts_with("error") {
                continue;
            }
            let message = m["message"].as_str().unwrap_or("").to_string();
            let rendered = m["rendered"].as_str().unwrap_or("").to_string();
            let of_hessian = v["manifest_path"]
                .as_str()
                .is_some_and(|p| Path::new(p).starts_with(self.hessian_dir()));
            let into = if of_hessian {
                &mut hessian_errors
            } else {
                &mut errors
            };
            match attribute(m) {
                Some((idx, line)) => into.entry(idx).or_default().push(CompileError {
                    message,
                    line,
                    rendered,
                }),
                None => {
                    if !message.starts_with("aborting due to") {
                        unattributed.push(rendered);
                    }
                }
            }
        }
        Built {
            ok: out.status.success(),
            errors,
            hessian_errors,
            unattributed,
            stderr,
        }
    }

    /// Evaluates `programs`, writing them as modules `p0000`.. of the crate.
    pub fn evaluate(&self, programs: &[Program]) -> Vec<Outcome> {
        let t0 = Instant::now();
        self.write_scaffold();
        let mut twin_lines = Vec::new();
        for (i, p) in programs.iter().enumerate() {
            let title = format!("program {i}, seed {}", p.seed);
            let (text, twin) = render::module(p, &title);
            twin_lines.push(twin);
            Self::write_if_changed(&self.dir.join(format!("src/{}.rs", module_name(i))), &text);
            if crate::hessian::checked(p) {
                let path = self
                    .hessian_dir()
                    .join(format!("src/{}.rs", module_name(i)));
                Self::write_if_changed(&path, &render::hessian_module(p, &title));
            }
        }
        // Remove modules of an earlier, larger batch (of programs without
        // the hessian check, from its crate).
        let all = |_: usize| true;
        let checked = |i: usize| crate::hessian::checked(&programs[i]);
        let dirs: [(PathBuf, &dyn Fn(usize) -> bool); 2] = [
            (self.dir.join("src"), &all),
            (self.hessian_dir().join("src"), &checked),
        ];
        for (dir, keep) in dirs {
            let Ok(rd) = std::fs::read_dir(dir) else {
                continue;
            };
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if let Some(n) = name.strip_prefix('p').and_then(|s| s.strip_suffix(".rs")) {
                    if n.parse::<usize>()
                        .is_ok_and(|n| n >= programs.len() || !keep(n))
                    {
                        let _ = std::fs::remove_file(e.path());
                    }
                }
            }
        }
        let mut outcomes: Vec<Option<Outcome>> = vec![None; programs.len()];
        let mut active: BTreeSet<usize> = (0..programs.len()).collect();
        let mut active_hessian: BTreeSet<usize> = (0..programs.len())
            .filter(|i| crate::hessian::checked(&programs[*i]))
            .collect();
        let mut compile_failed: BTreeMap<usize, Vec<CompileError>> = BTreeMap::new();
        let mut hessian_failed: BTreeMap<usize, Vec<CompileError>> = BTreeMap::new();
        let mut panics_seen = Vec::new();
        let mut rounds = 0;
        let mut retried = false;
        loop {
            rounds += 1;
            self.write_main(&active);
            self.write_hessian_main(&active_hessian);
            let b = self.build(None);
            panics_seen.extend(panic_messages(&b.stderr));
            if b.ok {
                break;
            }
            if b.errors.is_empty() && b.hessian_errors.is_empty() {
                if active.is_empty() && active_hessian.is_empty() {
                    break;
                }
                if !retried {
                    // Another build in the shared target directory (or a
                    // dependency being edited) may have been in the way.
                    retried = true;
                    std::thread::sleep(Duration::from_secs(5));
                    continue;
                }
                panic!(
                    "the generated crate at {} does not build and no program can be blamed:\n{}\n{}",
                    self.dir.display(),
                    b.unattributed.join("\n"),
                    tail(&b.stderr, 40)
                );
            }
            for (i, errs) in b.errors {
                active.remove(&i);
                compile_failed.insert(i, errs);
            }
            for (i, errs) in b.hessian_errors {
                active_hessian.remove(&i);
                hessian_failed.insert(i, errs);
            }
            // Each build blames at least one program, and rustc may report
            // one only (a parse error in a macro's expansion stops the
            // crate's compilation): a batch of failing shrink candidates
            // takes a build each.
            if rounds > 20 + programs.len() {
                panic!("the generated crate still fails after {rounds} builds");
            }
        }
        let built = t0.elapsed();
        if !compile_failed.is_empty() {
            // Are they valid Rust without #[grad]? If not, the tester is at fault.
            let failing: BTreeSet<usize> = compile_failed.keys().copied().collect();
            self.write_main(&failing);
            let plain_errors = self.build(Some("plain")).errors;
            // Those under `#[grad(trace)]`: do they build without `trace`?
            let traced: BTreeSet<usize> = failing
                .iter()
                .copied()
                .filter(|i| !plain_errors.contains_key(i) && crate::trace::traced(&programs[*i]))
                .collect();
            // `None`: that build failed and blamed no program.
            let notrace_errors = if traced.is_empty() {
                None
            } else {
                self.write_main(&traced);
                let b = self.build(Some("notrace"));
                (b.ok || !b.errors.is_empty()).then_some(b.errors)
            };
            for (&i, errs) in &compile_failed {
                outcomes[i] = Some(match plain_errors.get(&i) {
                    Some(pe) => Outcome::new(
                        Class::GeneratorBug,
                        "invalid-program",
                        0,
                        format!("the program is not valid Rust: {}", pe[0].rendered),
                    ),
                    None if traced.contains(&i) => {
                        match notrace_errors.as_ref().map(|e| e.get(&i)) {
                            Some(Some(errs)) => classify_compile_errors(errs, twin_lines[i]),
                            Some(None) => classify_trace_compile_errors(errs, twin_lines[i]),
                            None => classify_compile_errors(errs, twin_lines[i]),
                        }
                    }
                    None => classify_compile_errors(errs, twin_lines[i]),
                });
            }
            self.write_main(&active);
        }
        if panics_seen.len() == 1 {
            for o in outcomes.iter_mut().flatten() {
                if o.class == Class::MacroPanic {
                    o.detail += &format!("; the macro's panic: {}", panics_seen[0]);
                }
            }
        }
        let t1 = Instant::now();
        let exe = self.target.join("debug").join(&self.name);
        let passed = self.run(&exe, Role::Programs, &active, &[], &mut outcomes);
        // The hessian check, of the programs that passed the rest: its
        // crate's errors are the generic twins' own (class `hessian-wrong`).
        let pass = |o: &Option<Outcome>| o.as_ref().is_some_and(|o| o.class == Class::Pass);
        for (i, errs) in &hessian_failed {
            if pass(&outcomes[*i]) {
                outcomes[*i] = Some(classify_hessian_compile_errors(errs));
            }
        }
        let checked: BTreeSet<usize> = active_hessian
            .iter()
            .copied()
            .filter(|i| pass(&outcomes[*i]))
            .collect();
        if !checked.is_empty() {
            let file = self.hessian_dir().join("passed.txt");
            std::fs::write(&file, passed)
                .unwrap_or_else(|e| panic!("writing {}: {e}", file.display()));
            let exe = self.target.join("debug").join(self.hessian_name());
            let file = file.display().to_string();
            self.run(&exe, Role::Hessian, &checked, &[file], &mut outcomes);
        }
        if self.verbose {
            eprintln!(
                "difftest: {} programs built in {:.1}s ({} build{}), run in {:.1}s",
                programs.len(),
                built.as_secs_f64(),
                rounds,
                if rounds == 1 { "" } else { "s" },
                t1.elapsed().as_secs_f64()
            );
        }
        outcomes
            .into_iter()
            .map(|o| {
                o.unwrap_or_else(|| {
                    Outcome::new(
                        Class::GeneratorBug,
                        "no-result",
                        0,
                        "no result reported".into(),
                    )
                })
            })
            .collect()
    }

    /// Runs the binary `exe` (of `role`) over `active`, again without a
    /// program that crashed or hung, until every program reported; `args`
    /// after the list of programs to skip (those the binary has and
    /// `active` leaves out, then those done). Returns the `V` lines (the
    /// programs' binary's, for the hessian check). The hessian check's
    /// outcomes are merged into the programs': a pass adds its detail, a
    /// failure replaces the pass.
    fn run(
        &self,
        exe: &Path,
        role: Role,
        active: &BTreeSet<usize>,
        args: &[String],
        outcomes: &mut [Option<Outcome>],
    ) -> String {
        let mut passed = String::new();
        if active.is_empty() {
            return passed;
        }
        let compiled: BTreeSet<usize> = match role {
            Role::Programs => active.clone(),
            Role::Hessian => (0..outcomes.len()).collect(),
        };
        let mut skip: BTreeSet<usize> = compiled.difference(active).copied().collect();
        loop {
            let skip_arg: Vec<String> = skip.iter().map(|i| i.to_string()).collect();
            let mut cmd = Command::new(exe);
            if self.perturb {
                cmd.env("DIFFTEST_PERTURB", "1");
            }
            if self.perturb_trace {
                cmd.env("DIFFTEST_PERTURB_TRACE", "1");
            }
            if self.perturb_hessian {
                cmd.env("DIFFTEST_PERTURB_HESSIAN", "1");
            }
            let mut child = cmd
                .arg(skip_arg.join(","))
                .args(args)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()));
            let stdout = child.stdout.take().expect("stdout");
            let mut stderr = child.stderr.take().expect("stderr");
            let err_thread = std::thread::spawn(move || {
                let mut s = String::new();
                let _ = stderr.read_to_string(&mut s);
                s
            });
            let (tx, rx) = mpsc::channel();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            let mut current: Option<(usize, In)> = None;
            let mut hung = false;
            loop {
                match rx.recv_timeout(Duration::from_secs(60)) {
                    Ok(line) => {
                        let parts: Vec<&str> = line.splitn(5, '\t').collect();
                        match parts.as_slice() {
                            ["S", i] => current = i.parse().ok().map(|i| (i, In::Plain)),
                            ["G", i] => current = i.parse().ok().map(|i| (i, In::Grad)),
                            ["T", i] => current = i.parse().ok().map(|i| (i, In::Trace)),
                            ["J", i] => current = i.parse().ok().map(|i| (i, In::Jvp)),
                            ["H", i] => current = i.parse().ok().map(|i| (i, In::Hessian)),
                            ["V", ..] => {
                                passed.push_str(&line);
                                passed.push('\n');
                            }
                            ["R", i, class, point, detail] => {
                                let i: usize = i.parse().expect("index");
                                let o = runtime_outcome(class, point, detail);
                                outcomes[i] = Some(match (role, outcomes[i].take()) {
                                    (Role::Hessian, Some(mut before)) if o.class == Class::Pass => {
                                        before.detail =
                                            with_hessian_detail(&before.detail, &o.detail);
                                        before
                                    }
                                    _ => o,
                                });
                                skip.insert(i);
                                current = None;
                            }
                            _ => {}
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        hung = true;
                        let _ = child.kill();
                        break;
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
            let status = child.wait().expect("waiting for the binary");
            let err = err_thread.join().unwrap_or_default();
            match current {
                None => {
                    if status.success() || active.iter().all(|i| skip.contains(i)) {
                        return passed;
                    }
                    panic!(
                        "the generated binary failed outside any program: {status}\n{}",
                        tail(&err, 30)
                    );
                }
                Some((i, within)) => {
                    let what = if hung {
                        "no output for 60 s (hang)".to_string()
                    } else {
                        format!(
                            "the process died: {status}; {}",
                            tail(&err, 6).replace('\n', " ")
                        )
                    };
                    outcomes[i] = Some(match within {
                        In::Grad => {
                            Outcome::new(Class::GradCrash, "crash", 0, format!("in f_grad: {what}"))
                        }
                        In::Trace => Outcome::new(
                            Class::TraceWrong,
                            "trace-crash",
                            0,
                            format!("in f_trace: {what}"),
                        ),
                        In::Jvp => Outcome::new(
                            Class::JvpWrong,
                            "jvp-crash",
                            0,
                            format!("in f_jvp: {what}"),
                        ),
                        In::Hessian => Outcome::new(
                            Class::HessianWrong,
                            "hessian-crash",
                            0,
                            format!("in f_gen_hessian or f_gen_hvp: {what}"),
                        ),
                        In::Plain => Outcome::new(
                            Class::GeneratorBug,
                            "crash",
                            0,
                            match role {
                                Role::Programs => format!("in f or its twin: {what}"),
                                Role::Hessian => {
                                    format!("in the twins over dual or hyper-dual numbers: {what}")
                                }
                            },
                        ),
                    });
                    skip.insert(i);
                    if active.iter().all(|i| skip.contains(i)) {
                        return passed;
                    }
                }
            }
        }
    }
}

/// Which binary runs: the programs' crate's, or the hessian check's.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Programs,
    Hessian,
}

/// A passing program's detail with the hessian check's inserted before
/// its last part (`f_trace checked at N`, which the summary reads last).
fn with_hessian_detail(detail: &str, hessian: &str) -> String {
    match detail.rsplit_once("; ") {
        Some((head, last)) => format!("{head}; {hessian}; {last}"),
        None => format!("{detail}; {hessian}"),
    }
}

/// Which function of a program the binary was in.
#[derive(Clone, Copy, Debug)]
enum In {
    /// `f`, its twin, the harness.
    Plain,
    Grad,
    Trace,
    Jvp,
    Hessian,
}

fn runtime_outcome(class: &str, point: &str, detail: &str) -> Outcome {
    let point = point.parse().unwrap_or(0);
    let c = match class {
        "pass" => Class::Pass,
        "rejected" => Class::Rejected,
        "wrong-value" | "wrong-grad" | "wrong-error" | "taylor" | "checkpoint" => Class::Wrong,
        "grad-panic" => Class::GradPanic,
        "trace-value" | "trace-grad" | "trace-inputs" | "trace-panic" => Class::TraceWrong,
        "jvp-value" | "jvp-tangent" | "jvp-panic" => Class::JvpWrong,
        "hessian-value" | "hessian-grad" | "hessian-shape" | "hessian-nonfinite"
        | "hessian-asymmetric" | "hessian-matrix" | "hvp-value" | "hvp-grad" | "hvp-product"
        | "hvp-oracle" | "hessian-panic" => Class::HessianWrong,
        _ => Class::GeneratorBug,
    };
    Outcome::new(c, class, point, detail.to_string())
}

/// The module a diagnostic belongs to, and the line: the first span (the
/// primary ones first, then the macro call sites they expand from, then
/// the notes' spans) in `src/pNNNN.rs`.
fn attribute(m: &Value) -> Option<(usize, usize)> {
    fn of_span(s: &Value) -> Option<(usize, usize)> {
        let file = s["file_name"].as_str()?;
        let stem = Path::new(file).file_name()?.to_str()?;
        let n = stem.strip_prefix('p')?.strip_suffix(".rs")?;
        // The programs' crate's `src/`, the hessian check's `hessian/src/`.
        if !file.starts_with("src") && !file.starts_with("hessian/src") {
            return None;
        }
        Some((
            n.parse().ok()?,
            s["line_start"].as_u64().unwrap_or(0) as usize,
        ))
    }
    fn walk(s: &Value) -> Option<(usize, usize)> {
        of_span(s).or_else(|| {
            let e = &s["expansion"];
            if e.is_object() {
                walk(&e["span"])
            } else {
                None
            }
        })
    }
    let spans = m["spans"].as_array()?;
    let primary = spans.iter().filter(|s| s["is_primary"] == true);
    let rest = spans.iter().filter(|s| s["is_primary"] != true);
    for s in primary.chain(rest) {
        if let Some(r) = walk(s) {
            return Some(r);
        }
    }
    for c in m["children"].as_array().into_iter().flatten() {
        if let Some(r) = attribute(c) {
            return Some(r);
        }
    }
    None
}

fn classify_compile_errors(errs: &[CompileError], twin_line: usize) -> Outcome {
    let first_line = |r: &str| r.lines().take(12).collect::<Vec<_>>().join("\n");
    if let Some(e) = errs
        .iter()
        .find(|e| e.message.contains("internal error in #[grad]"))
    {
        return Outcome::new(
            Class::MacroPanic,
            "internal-error",
            0,
            first_line(&e.rendered),
        );
    }
    if let Some(e) = errs.iter().find(|e| e.message.starts_with("#[grad]")) {
        let kind = normalise(&e.message);
        return Outcome::new(Class::Refused, &kind, 0, first_line(&e.rendered));
    }
    let e = errs.iter().find(|e| e.line < twin_line).unwrap_or(&errs[0]);
    let kind = normalise(&e.message);
    Outcome::new(Class::GeneratedCodeError, &kind, 0, first_line(&e.rendered))
}

/// Errors of a program that builds without `trace` and not with it:
/// `_trace`'s own, kind `trace-refused: ..` (an error of `#[grad(trace)]`),
/// `trace-macro-panic` or `trace-compile: ..` (rustc's, in its code).
fn classify_trace_compile_errors(errs: &[CompileError], twin_line: usize) -> Outcome {
    let o = classify_compile_errors(errs, twin_line);
    let first = errs
        .iter()
        .find(|e| e.message.starts_with("#[grad(trace)]"))
        .map(|e| (format!("trace-refused: {}", normalise(&e.message)), e));
    let (kind, detail) = match (first, o.class) {
        (Some((kind, e)), _) => (
            kind,
            e.rendered.lines().take(12).collect::<Vec<_>>().join("\n"),
        ),
        (None, Class::MacroPanic) => ("trace-macro-panic".to_string(), o.detail),
        (None, _) => (format!("trace-compile: {}", o.kind), o.detail),
    };
    Outcome::new(
        Class::TraceWrong,
        &kind,
        0,
        format!("builds without `trace`, not with it: {detail}"),
    )
}

/// Errors of a program's generic twin, in the hessian check's crate (the
/// program built in its own): kind `hessian-refused: ..` (an error of
/// `#[grad]` on the twin), `hessian-macro-panic` or `hessian-compile: ..`
/// (rustc's, in the twin or its expansion).
fn classify_hessian_compile_errors(errs: &[CompileError]) -> Outcome {
    let o = classify_compile_errors(errs, usize::MAX);
    let refusal = errs.iter().find(|e| e.message.starts_with("#[grad"));
    let (kind, detail) = match (o.class, refusal) {
        (Class::MacroPanic, _) => ("hessian-macro-panic".to_string(), o.detail),
        (_, Some(e)) => (
            format!("hessian-refused: {}", normalise(&e.message)),
            e.rendered.lines().take(12).collect::<Vec<_>>().join("\n"),
        ),
        _ => (format!("hessian-compile: {}", o.kind), o.detail),
    };
    Outcome::new(
        Class::HessianWrong,
        &kind,
        0,
        format!("the program builds, its generic twin does not: {detail}"),
    )
}

/// An error message without the names in it (`` `s7` `` becomes `` `_` ``),
/// cut to 70 characters: errors of one kind on different programs compare
/// equal.
pub fn normalise(message: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in message.chars() {
        if c == '`' {
            if inside {
                out.push_str("_`");
            } else {
                out.push('`');
            }
            inside = !inside;
        } else if !inside {
            out.push(c);
        }
    }
    out.chars().take(70).collect()
}

fn panic_messages(stderr: &str) -> Vec<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.contains("panicked at") {
            let msg = lines.get(i + 1).copied().unwrap_or("");
            out.push(format!("{} {}", l.trim(), msg.trim()));
        }
    }
    out
}

fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

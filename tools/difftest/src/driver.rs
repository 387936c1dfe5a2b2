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

[workspace]

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
    }

    fn write_main(&self, active: &BTreeSet<usize>) {
        let mut s = String::from("#![allow(warnings)]\nmod dual;\nmod harness;\n");
        for i in active {
            let _ = writeln!(s, "mod {};", module_name(*i));
        }
        s.push_str("\nfn main() {\n    harness::main(&[\n");
        for i in active {
            let _ = writeln!(s, "        ({i}, {}::PROG),", module_name(*i));
        }
        s.push_str("    ]);\n}\n");
        Self::write_if_changed(&self.dir.join("src/main.rs"), &s);
    }

    /// Builds; returns whether it succeeded, the errors per module index,
    /// the errors no module could be blamed for, and rustc's stderr.
    fn build(
        &self,
        feature: Option<&str>,
    ) -> (
        bool,
        BTreeMap<usize, Vec<CompileError>>,
        Vec<String>,
        String,
    ) {
        let mut cmd = cargo();
        cmd.arg(if feature.is_some() { "check" } else { "build" })
            .arg("--message-format=json")
            .arg("--manifest-path")
            .arg(self.dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(&self.target);
        if let Some(f) = feature {
            cmd.arg("--features").arg(f);
        }
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("running cargo: {e}"));
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let mut errors: BTreeMap<usize, Vec<CompileError>> = BTreeMap::new();
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
            match attribute(m) {
                Some((idx, line)) => errors.entry(idx).or_default().push(CompileError {
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
        (out.status.success(), errors, unattributed, stderr)
    }

    /// Evaluates `programs`, writing them as modules `p0000`.. of the crate.
    pub fn evaluate(&self, programs: &[Program]) -> Vec<Outcome> {
        let t0 = Instant::now();
        self.write_scaffold();
        let mut twin_lines = Vec::new();
        for (i, p) in programs.iter().enumerate() {
            let (text, twin) = render::module(p, &format!("program {i}, seed {}", p.seed));
            twin_lines.push(twin);
            Self::write_if_changed(&self.dir.join(format!("src/{}.rs", module_name(i))), &text);
        }
        // Remove modules of an earlier, larger batch.
        if let Ok(rd) = std::fs::read_dir(self.dir.join("src")) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if let Some(n) = name.strip_prefix('p').and_then(|s| s.strip_suffix(".rs")) {
                    if n.parse::<usize>().is_ok_and(|n| n >= programs.len()) {
                        let _ = std::fs::remove_file(e.path());
                    }
                }
            }
        }
        let mut outcomes: Vec<Option<Outcome>> = vec![None; programs.len()];
        let mut active: BTreeSet<usize> = (0..programs.len()).collect();
        let mut compile_failed: BTreeMap<usize, Vec<CompileError>> = BTreeMap::new();
        let mut panics_seen = Vec::new();
        let mut rounds = 0;
        let mut retried = false;
        loop {
            rounds += 1;
            self.write_main(&active);
            let (ok, errors, unattributed, stderr) = self.build(None);
            panics_seen.extend(panic_messages(&stderr));
            if ok {
                break;
            }
            if errors.is_empty() {
                if active.is_empty() {
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
                    unattributed.join("\n"),
                    tail(&stderr, 40)
                );
            }
            for (i, errs) in errors {
                active.remove(&i);
                compile_failed.insert(i, errs);
            }
            if rounds > 20 {
                panic!("the generated crate still fails after 20 builds");
            }
        }
        let built = t0.elapsed();
        if !compile_failed.is_empty() {
            // Are they valid Rust without #[grad]? If not, the tester is at fault.
            let failing: BTreeSet<usize> = compile_failed.keys().copied().collect();
            self.write_main(&failing);
            let (_, plain_errors, _, _) = self.build(Some("plain"));
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
                let (ok, errors, _, _) = self.build(Some("notrace"));
                (ok || !errors.is_empty()).then_some(errors)
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
        self.run(&active, &mut outcomes);
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

    /// Runs the binary over `active`, again without a program that crashed
    /// or hung, until every program reported.
    fn run(&self, active: &BTreeSet<usize>, outcomes: &mut [Option<Outcome>]) {
        if active.is_empty() {
            return;
        }
        let exe = self.target.join("debug").join(&self.name);
        let mut skip: BTreeSet<usize> = BTreeSet::new();
        loop {
            let skip_arg: Vec<String> = skip.iter().map(|i| i.to_string()).collect();
            let mut cmd = Command::new(&exe);
            if self.perturb {
                cmd.env("DIFFTEST_PERTURB", "1");
            }
            if self.perturb_trace {
                cmd.env("DIFFTEST_PERTURB_TRACE", "1");
            }
            let mut child = cmd
                .arg(skip_arg.join(","))
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
                            ["R", i, class, point, detail] => {
                                let i: usize = i.parse().expect("index");
                                outcomes[i] = Some(runtime_outcome(class, point, detail));
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
                        return;
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
                        In::Plain => Outcome::new(
                            Class::GeneratorBug,
                            "crash",
                            0,
                            format!("in f or its twin: {what}"),
                        ),
                    });
                    skip.insert(i);
                    if active.iter().all(|i| skip.contains(i)) {
                        return;
                    }
                }
            }
        }
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
        if !file.starts_with("src") {
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

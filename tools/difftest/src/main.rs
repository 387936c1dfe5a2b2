//! `cargo run -p autodiff-difftest --release -- --seed S --count N
//! [--features-off a,b] [--known-failing-off] [--shrink] [--shrink-per-kind K]
//! [--autodiff PATH] [--self-test] [--self-test-trace] [--self-test-hessian]` (PATH: another
//! checkout of autodiff to test; `--self-test` offsets every gradient by
//! 1e-3 to check the checker (and `DIFFTEST_PERTURB_JVP=1` in the
//! environment every `f_jvp`'s value by one bit or its tangent by 1e-3, to
//! check the jvp check: src/jvp.rs), `--self-test-trace` every `f_trace`'s value
//! by one bit or its first gradient entry by 1e-3 to check the trace check,
//! `--self-test-hessian` (or `DIFFTEST_PERTURB_HESSIAN=1` in the
//! environment) every `f_gen_hessian`'s value, matrix or H·v, to check the
//! hessian check: src/hessian.rs;
//! `DIFFTEST_OUT=DIR` in the environment builds the generated crates
//! under DIR rather than the workspace's `target/`)

use autodiff_difftest::{features, known_failing, run, Config, KNOWN_FAILING};
use std::process::ExitCode;

const USAGE: &str = "usage: autodiff-difftest [--seed S] [--count N] [--features-off a,b] \
[--known-failing-off] [--shrink] [--shrink-per-kind K] [--autodiff PATH] [--self-test] [--self-test-trace] \
[--self-test-hessian] [--list-features] [--quiet]";

fn main() -> ExitCode {
    let mut seed = 1u64;
    let mut count = 100usize;
    let mut off: Vec<String> = Vec::new();
    let mut shrink = 0usize;
    let mut verbose = true;
    let mut autodiff = None;
    let mut perturb = false;
    let mut perturb_trace = false;
    let mut perturb_hessian = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| {
            args.next().unwrap_or_else(|| {
                eprintln!("{name} needs a value\n{USAGE}");
                std::process::exit(2)
            })
        };
        match a.as_str() {
            "--seed" => seed = parse(&value("--seed")),
            "--count" => count = parse(&value("--count")),
            "--features-off" => off.extend(value("--features-off").split(',').map(String::from)),
            "--known-failing-off" => off.extend(known_failing().iter().map(|s| s.to_string())),
            "--shrink" => shrink = shrink.max(1),
            "--shrink-per-kind" => shrink = parse(&value("--shrink-per-kind")),
            "--quiet" => verbose = false,
            "--self-test" => perturb = true,
            "--self-test-trace" => perturb_trace = true,
            "--self-test-hessian" => perturb_hessian = true,
            "--autodiff" => {
                let p = std::path::PathBuf::from(value("--autodiff"));
                autodiff = Some(p.canonicalize().unwrap_or(p));
            }
            "--list-features" => {
                for (name, what) in features::FEATURES {
                    let known = KNOWN_FAILING
                        .iter()
                        .find(|(f, _)| f == name)
                        .map(|(_, why)| format!("  [known failing: {why}]"))
                        .unwrap_or_default();
                    println!("{name:<24} {what}{known}");
                }
                return ExitCode::SUCCESS;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument `{other}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let features = match features::Features::without(&off) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let report = run(&Config {
        seed,
        count,
        features,
        shrink_per_kind: shrink,
        verbose,
        autodiff,
        perturb,
        perturb_trace,
        perturb_hessian,
    });
    print!("{}", report.summary());
    if report.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn parse<T: std::str::FromStr>(s: &str) -> T {
    s.parse().unwrap_or_else(|_| {
        eprintln!("not a number: `{s}`\n{USAGE}");
        std::process::exit(2)
    })
}

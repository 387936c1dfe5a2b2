//! A fixed-seed batch of 500 generated programs, built against this
//! workspace's `autodiff`. Every program must pass: the value of `f_grad`
//! equal to `f`'s bit for bit, every gradient entry equal to the
//! dual-number oracle's to 1e-9, the Taylor check; no refusal of a
//! construct the README documents, no rustc error inside the generated
//! code, no macro panic, no panic or crash only in `_grad`, no invalid
//! program from the generator. Every program whose constructs
//! `#[grad(trace)]` supports is generated under it (all but those that
//! call a method or have a step function returning `Vec<f64>`, see
//! src/trace.rs), and `f_trace` must agree:
//! its value equal to `f`'s bit for bit, its gradient to `f_grad`'s to the
//! oracle's tolerance (class `trace-wrong` otherwise). The same binary is
//! then run again with every `f_trace` perturbed (the trace check's
//! self-test, `--self-test-trace`): each traced program must then fail.
//! Every program whose constructs `#[grad(jvp)]` supports has `f` under
//! it (src/jvp.rs), and `f_jvp` must agree with `f` (value, bit for bit)
//! and `f_grad` (the gradient dotted with the tangents; class `jvp-wrong`).
//! Every program with at most 8 float inputs whose constructs
//! `#[grad(hessian)]` takes has a generic twin under it (src/hessian.rs),
//! and `f_gen_hessian` and `f_gen_hvp` must agree with `f`, `f_grad` and
//! the hyper-dual oracle (class `hessian-wrong`); a third run perturbs
//! them (the hessian check's self-test), and each such program must then
//! fail.
//! A program with a `#[checkpoint(..)]` loop must have the gradient of the
//! same function without the attribute, bit for bit.
//!
//! The features of `KNOWN_FAILING` (each with the bug it still triggers)
//! are switched off, and nothing else is: when a fix lands, delete its
//! line there and this test covers the construct again.
//! `cargo run -p autodiff-difftest --release -- --seed 2024 --count 500
//! --known-failing-off --shrink` reproduces a failure here and shrinks it.

use autodiff_difftest::driver::{Class, CLASSES};
use autodiff_difftest::features::Features;
use autodiff_difftest::{hessian, jvp, known_failing, run, trace, Config};

#[test]
fn a_batch_of_500_programs_differentiates_correctly() {
    let features = Features::without(&known_failing()).expect("KNOWN_FAILING names features");
    let report = run(&Config {
        seed: 2024,
        count: 500,
        features,
        shrink_per_kind: 0,
        verbose: false,
        autodiff: None,
        perturb: false,
        perturb_trace: false,
        perturb_hessian: false,
    });
    let summary = report.summary();
    println!("{summary}");
    assert_eq!(report.outcomes.len(), 500);
    let failures = report.dir.join("failures");
    for &c in CLASSES {
        if c.is_failure() {
            assert_eq!(
                report.count(c),
                0,
                "{}: see the programs in {}\n{summary}",
                c.describe(),
                failures.display()
            );
        }
    }
    // Programs whose value is not finite at a test point are not counted;
    // the generator keeps values bounded, so there must be few.
    assert!(
        report.count(Class::Rejected) <= 10,
        "too many programs rejected (value not finite)\n{summary}"
    );
    // The trace check ran, on every program without a construct that
    // `#[grad(trace)]` refuses (a method call) or a feature to trace it
    // switched off.
    let traced = report.programs.iter().filter(|p| p.trace).count();
    let features = Features::without(&known_failing()).expect("KNOWN_FAILING names features");
    let traceable = report
        .programs
        .iter()
        .filter(|p| trace::untraced_reason(p, &features).is_none())
        .count();
    assert_eq!(traced, traceable, "programs traced\n{summary}");
    // (350 before `made_struct`, whose programs call methods of a struct
    // a call returned, which `trace` refuses: src/trace.rs.)
    assert!(traced >= 340, "only {traced} programs traced\n{summary}");
    // The jvp check ran, on every program without a construct that
    // `#[grad(jvp)]` refuses (src/jvp.rs).
    let under_jvp = report.programs.iter().filter(|p| p.jvp).count();
    let checkable = report
        .programs
        .iter()
        .filter(|p| jvp::unchecked_reason(p, &features).is_none())
        .count();
    assert_eq!(under_jvp, checkable, "programs under jvp\n{summary}");
    // The hessian check ran, on every program it takes (src/hessian.rs).
    let under_hessian = report.programs.iter().filter(|p| p.hessian).count();
    let checkable = report
        .programs
        .iter()
        .filter(|p| hessian::unchecked_reason(p, &features).is_none())
        .count();
    assert_eq!(
        under_hessian, checkable,
        "programs under hessian\n{summary}"
    );
    assert!(
        under_hessian >= 250,
        "only {under_hessian} programs under hessian\n{summary}"
    );

    // The trace check can fail: the same binary (nothing is rebuilt), run
    // with f_trace's value one bit off (even programs) or its first
    // gradient entry off by 1e-3 (odd ones). Every traced program must be
    // reported, with both kinds, and every other one still pass.
    let perturbed = run(&Config {
        seed: 2024,
        count: 500,
        features: Features::without(&known_failing()).expect("KNOWN_FAILING names features"),
        shrink_per_kind: 0,
        verbose: false,
        autodiff: None,
        perturb: false,
        perturb_trace: true,
        perturb_hessian: false,
    });
    let summary = perturbed.summary();
    for (i, (p, o)) in perturbed
        .programs
        .iter()
        .zip(&perturbed.outcomes)
        .enumerate()
    {
        let expected: &[&str] = match (p.trace, o.class) {
            (_, Class::Rejected) => continue,
            (true, _) => &["trace-value", "trace-grad"],
            (false, _) => &["pass"],
        };
        assert!(
            expected.contains(&o.kind.as_str()),
            "with f_trace perturbed, p{i:04}: {} ({}), expected {expected:?}\n{summary}",
            o.kind,
            o.detail
        );
    }
    for kind in ["trace-value", "trace-grad"] {
        assert!(
            perturbed.outcomes.iter().any(|o| o.kind == kind),
            "with f_trace perturbed, no {kind}\n{summary}"
        );
    }
    // Those are no failures to look at.
    let _ = std::fs::remove_dir_all(perturbed.dir.join("failures"));

    // The hessian check can fail: the same binaries, with f_gen_hessian's
    // value one bit off, an entry of its matrix or f_gen_hvp's H·v off by
    // 1e-3 (src/hessian.rs). Every program under hessian must be reported,
    // with each kind, and every other one still pass.
    let perturbed = run(&Config {
        seed: 2024,
        count: 500,
        features: Features::without(&known_failing()).expect("KNOWN_FAILING names features"),
        shrink_per_kind: 0,
        verbose: false,
        autodiff: None,
        perturb: false,
        perturb_trace: false,
        perturb_hessian: true,
    });
    let summary = perturbed.summary();
    let kinds = [
        "hessian-value",
        "hessian-asymmetric",
        "hvp-product",
        "hessian-matrix",
    ];
    for (i, (p, o)) in perturbed
        .programs
        .iter()
        .zip(&perturbed.outcomes)
        .enumerate()
    {
        let expected: &[&str] = match (p.hessian, o.class) {
            (_, Class::Rejected) => continue,
            (true, _) => &kinds,
            (false, _) => &["pass"],
        };
        assert!(
            expected.contains(&o.kind.as_str()),
            "with f_gen_hessian perturbed, p{i:04}: {} ({}), expected {expected:?}\n{summary}",
            o.kind,
            o.detail
        );
    }
    for kind in ["hessian-value", "hvp-product"] {
        assert!(
            perturbed.outcomes.iter().any(|o| o.kind == kind),
            "with f_gen_hessian perturbed, no {kind}\n{summary}"
        );
    }
    let _ = std::fs::remove_dir_all(perturbed.dir.join("failures"));
}

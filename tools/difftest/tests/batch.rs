//! A fixed-seed batch of 500 generated programs, built against this
//! workspace's `autodiff`. Every program must pass: the value of `f_grad`
//! equal to `f`'s bit for bit, every gradient entry equal to the
//! dual-number oracle's to 1e-9, the Taylor check; no refusal of a
//! construct the README documents, no rustc error inside the generated
//! code, no macro panic, no panic or crash only in `_grad`, no invalid
//! program from the generator.
//!
//! The features of `KNOWN_FAILING` (each with the bug it still triggers)
//! are switched off, and nothing else is: when a fix lands, delete its
//! line there and this test covers the construct again.
//! `cargo run -p autodiff-difftest --release -- --seed 2024 --count 500
//! --known-failing-off --shrink` reproduces a failure here and shrinks it.

use autodiff_difftest::driver::{Class, CLASSES};
use autodiff_difftest::features::Features;
use autodiff_difftest::{known_failing, run, Config};

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
}

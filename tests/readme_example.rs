//! The crate docs open with the README's first example (issue 29): the
//! same code, which the crate-level doctest runs and checks with lines
//! rustdoc hides (`# assert!(..)`), so that what crates.io and docs.rs
//! show first is one tested example.

use std::path::Path;

/// The lines of the first fenced block that opens with ```` ```rust ````
/// (or a bare ```` ``` ```` where `bare` is set), with each line's
/// `prefix` removed.
fn first_block(text: &str, prefix: &str, bare: bool) -> Vec<String> {
    let mut lines = text.lines().filter_map(|line| {
        if prefix.is_empty() {
            return Some(line.to_string());
        }
        // `//!` alone is an empty line of the docs.
        let rest = line.strip_prefix(prefix.trim_end())?;
        Some(rest.strip_prefix(' ').unwrap_or(rest).to_string())
    });
    let opens = |l: &str| l == "```rust" || (bare && l == "```");
    lines.by_ref().find(|l| opens(l)).expect("a code block");
    lines.take_while(|l| l != "```").collect()
}

/// What rustdoc shows of a doctest: every line but the hidden ones (`#`
/// alone, or `#` and a space, after indentation).
fn shown(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .filter(|l| {
            let t = l.trim_start();
            t != "#" && !t.starts_with("# ")
        })
        .collect()
}

#[test]
fn the_crate_docs_open_with_the_readmes_first_example() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let readme = first_block(&read("README.md"), "", false);
    let docs = shown(first_block(&read("src/lib.rs"), "//! ", true));
    assert_eq!(
        docs, readme,
        "src/lib.rs's first example differs from the README's"
    );
}

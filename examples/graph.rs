//! Draws the graphs of the reference texts' worked examples: for each, the
//! trace that `#[grad(trace)]` generates, written as Graphviz DOT
//! (`<name>.dot`), as SVG by Graphviz's `dot` where it is installed
//! (`<name>.svg`; Debian package graphviz), and as the forward and reverse
//! tables (`<name>.txt`).
//!
//! Run with `cargo run --example graph [DIRECTORY]` (default
//! `target/graphs`).

use std::path::{Path, PathBuf};
use std::process::Command;

use autodiff::{grad, Trace};

/// The first text's logistic function, built from primitives, at 0.5.
#[grad(trace)]
fn sigmoid(x: f64) -> f64 {
    let f = -x;
    let g = f.exp();
    let w = 1.0 + g;
    1.0 / w
}

/// The first text's ln(x1) + x1·x2 − sin(x2), at (2, 5): fan-in, and x1
/// read twice.
#[grad(trace)]
fn log_product_sine(x1: f64, x2: f64) -> f64 {
    x1.ln() + x1 * x2 - x2.sin()
}

/// The second text's numeric walk-through, at (1, 2).
#[grad(trace)]
fn f(x1: f64, x2: f64) -> f64 {
    (x1 - x2).powi(2) + (x1 + x2).cos()
}

/// The third text's z = x·x + x·y, at (3, 10).
#[grad(trace)]
fn xx_plus_xy(x: f64, y: f64) -> f64 {
    x * x + x * y
}

/// The fourth and fifth texts' x1·x2 + sin(x1), at (2, 3).
#[grad(trace)]
fn product_plus_sine(x1: f64, x2: f64) -> f64 {
    x1 * x2 + x1.sin()
}

/// The fourth text's shared intermediate, u = x², y = sin(u) + u, at 1.5.
#[grad(trace)]
fn shared_intermediate(x: f64) -> f64 {
    let u = x * x;
    u.sin() + u
}

fn traces() -> Vec<Trace> {
    vec![
        sigmoid_trace(0.5),
        log_product_sine_trace(2.0, 5.0),
        f_trace(1.0, 2.0),
        xx_plus_xy_trace(3.0, 10.0),
        product_plus_sine_trace(2.0, 3.0),
        shared_intermediate_trace(1.5),
    ]
}

fn write(path: &Path, text: &str) {
    if let Err(e) = std::fs::write(path, text) {
        eprintln!("graph: cannot write {}: {e}", path.display());
        std::process::exit(1);
    }
}

fn main() {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "target/graphs".into()),
    );
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("graph: cannot create {}: {e}", dir.display());
        std::process::exit(1);
    }
    let mut graphviz = true;
    for trace in traces() {
        let name = &trace.function;
        let dot = dir.join(format!("{name}.dot"));
        write(&dot, &trace.to_dot());
        write(&dir.join(format!("{name}.txt")), &trace.to_string());
        let mut wrote = vec![dot.display().to_string(), format!("{name}.txt")];
        if graphviz {
            let svg = dir.join(format!("{name}.svg"));
            match Command::new("dot")
                .arg("-Tsvg")
                .arg(&dot)
                .arg("-o")
                .arg(&svg)
                .status()
            {
                Ok(status) if status.success() => wrote.push(format!("{name}.svg")),
                Ok(status) => {
                    eprintln!("graph: dot failed on {} ({status})", dot.display());
                    std::process::exit(1);
                }
                Err(_) => {
                    graphviz = false;
                    println!("graph: Graphviz's `dot` is not on PATH, so no SVG is drawn (apt-get install graphviz)");
                }
            }
        }
        println!(
            "{name}: f = {:.5}, wrote {}",
            trace.value(),
            wrote.join(", ")
        );
    }
}

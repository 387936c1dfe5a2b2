//! Plots one criterion benchmark group as time against its parameter, a
//! line per method, on log–log axes, as SVG.
//!
//! ```text
//! cargo bench -p autodiff-benches --bench gradients -- scaling
//! cargo run -p bench-plot -- [criterion-dir] [group] [out.svg]
//! ```
//!
//! Defaults: `target/criterion`, `scaling`, `benches/scaling.svg`, relative
//! to the workspace root. The group's benchmarks must be parameterised by
//! a number (`BenchmarkId::new(method, n)`): criterion keeps each one's
//! ids in `<group>/<method>/<n>/new/benchmark.json` and its estimates in
//! `estimates.json` next to it; the plot uses the mean.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use plotters::prelude::*;

/// Per method, (parameter, mean time in seconds), sorted by parameter.
type Series = BTreeMap<String, Vec<(f64, f64)>>;

fn main() -> ExitCode {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest
        .join("../..")
        .canonicalize()
        .unwrap_or(manifest.join("../.."));
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/criterion"));
    let group = args.next().unwrap_or_else(|| "scaling".to_string());
    let out = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("benches/scaling.svg"));
    match read_group(&dir, &group).and_then(|series| plot(&series, &group, &out)) {
        Ok(()) => {
            println!("wrote {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bench-plot: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Every `<dir>/<group>/**/new/benchmark.json` of the group, with its
/// mean from `estimates.json`.
fn read_group(dir: &Path, group: &str) -> Result<Series, String> {
    let base = dir.join(group.replace('/', "_"));
    let mut files = Vec::new();
    find(&base, &mut files).map_err(|e| {
        format!(
            "cannot read {}: {e} (run the benchmarks first)",
            base.display()
        )
    })?;
    let mut series = Series::new();
    for file in files {
        let json = |p: &Path| -> Result<serde_json::Value, String> {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))
        };
        let id = json(&file)?;
        if id["group_id"].as_str() != Some(group) {
            continue;
        }
        let (Some(method), Some(n)) = (
            id["function_id"].as_str(),
            id["value_str"].as_str().and_then(|v| v.parse::<f64>().ok()),
        ) else {
            continue;
        };
        let estimates = json(&file.with_file_name("estimates.json"))?;
        let mean = estimates["mean"]["point_estimate"]
            .as_f64()
            .ok_or_else(|| format!("{}: no mean", file.display()))?;
        series
            .entry(method.to_string())
            .or_default()
            .push((n, mean * 1e-9));
    }
    if series.is_empty() {
        return Err(format!(
            "no benchmark of group {group:?} with a numeric parameter under {}",
            base.display()
        ));
    }
    for points in series.values_mut() {
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    Ok(series)
}

/// The `benchmark.json` files of the latest run (`new/`) under `dir`.
fn find(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            find(&path, out)?;
        } else if path.ends_with("new/benchmark.json") {
            out.push(path);
        }
    }
    Ok(())
}

fn plot(series: &Series, group: &str, out: &Path) -> Result<(), String> {
    let all = || series.values().flatten();
    let (x0, x1) = bounds(all().map(|p| p.0));
    let (y0, y1) = bounds(all().map(|p| p.1));
    let root = SVGBackend::new(out, (900, 600)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| format!("drawing {}: {e}", out.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{group}: time per gradient against n (log-log)"),
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(
            (x0 / 1.5..x1 * 1.5).log_scale(),
            (y0 / 2.0..y1 * 2.0).log_scale(),
        )
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("n")
        .y_desc("time per gradient")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| seconds(*v))
        .draw()
        .map_err(|e| err(&e))?;
    // The generated gradient last, in black and thicker, over the
    // hand-written one it often matches.
    let mut order: Vec<(&String, &Vec<(f64, f64)>)> = series.iter().collect();
    order.sort_by_key(|(m, _)| m.as_str() == "generated");
    for (k, (method, points)) in order.into_iter().enumerate() {
        let (colour, width) = style(method, k);
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                colour.stroke_width(width),
            ))
            .map_err(|e| err(&e))?
            .label(method.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 4, colour.filled())))
            .map_err(|e| err(&e))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}

/// A method's colour and line width: fixed for the methods of this
/// project's benches, from a palette for others.
fn style(method: &str, k: usize) -> (RGBAColor, u32) {
    let rgb = |r, g, b| RGBColor(r, g, b).to_rgba();
    match method {
        "generated" => (BLACK.to_rgba(), 3),
        "hand-written" => (rgb(31, 119, 180), 2),
        "function" => (rgb(150, 150, 150), 2),
        "reverse (tape)" => (rgb(148, 103, 189), 2),
        "num-dual" => (rgb(255, 127, 14), 2),
        "central differences" => (rgb(214, 39, 40), 2),
        _ => (Palette99::pick(k).to_rgba(), 2),
    }
}

/// The smallest and largest of some positive values.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, 0.0), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// A time in seconds as ns, µs, ms or s.
fn seconds(t: f64) -> String {
    match t {
        t if t < 1e-6 => format!("{:.0} ns", t * 1e9),
        t if t < 1e-3 => format!("{:.0} µs", t * 1e6),
        t if t < 1.0 => format!("{:.0} ms", t * 1e3),
        t => format!("{t:.1} s"),
    }
}

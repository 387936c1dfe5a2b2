// An iterator chain #[grad] does not read as a loop (`step_by` after
// `windows`): the error names the chain and says to write the loop.
use autodiff::grad;

#[grad]
fn smooth(controls: &[f64]) -> f64 {
    controls.windows(4).step_by(2).map(|c| (c[2] - c[0]).powi(2)).sum()
}

fn main() {}

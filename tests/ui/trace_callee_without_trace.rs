// A traced function nests its callees' traces, so a `#[grad]` function it
// calls needs `trace` too (or a custom pullback): without it, the call
// names a `_trace_into` that does not exist.
use autodiff::grad;

#[grad]
fn plain(x: f64) -> f64 {
    x.sin()
}

#[grad(trace)]
fn traced(x: f64) -> f64 {
    plain(x) * x
}

fn main() {}

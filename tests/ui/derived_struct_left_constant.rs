// A struct that derives `Differentiable`, given to a bare #[grad], is a
// constant: rustc warns at its type (as a deprecation, the one warning a
// macro can raise), so the missing gradient slot is seen where it is
// made. `wrt(..)` says what is meant, and silences it. (The error at the
// end only makes this test fail to compile, as trybuild needs.)
#[derive(Clone, autodiff::Differentiable)]
struct Params {
    a: f64,
}

#[autodiff::grad]
fn bare(p: &Params, x: f64) -> f64 {
    p.a * x
}

#[autodiff::grad(wrt(x))]
fn said(p: &Params, x: f64) -> f64 {
    p.a * x
}

fn main() {
    let _: () = 1.0;
}
